"""A swarm's report bundle: the files a reader opens, as text, to write to a folder or a zip.

- ``index.md``: the goal, the checklist with each item's state, the agents and their budgets, the
  files of the bundle;
- ``summary.md``: the cited synthesis (the report of the verified facts);
- ``findings/<agent>-<sub-goal>.md``: per researcher, its sub-goal and every fact it kept, with
  the evidence quote, the analyst's marks and the verifier's verdict;
- ``sources.md``: every page a fact cites, with its facts and their receipts;
- ``ledger.jsonl``: the task-tree ledger as written; ``result.json``: the swarm's result document;
- ``report.html``: summary, findings and sources on one safe page (``report.pdf`` is it printed by
  Chromium, added where a browser is at hand).

Every text from a page goes through ``report.safe_inline``: nothing a source wrote becomes markup.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fathom_ray.research.report import safe_inline
from fathom_ray.research.report_html import render_html
from fathom_ray.research.results import ResearchResult
from fathom_ray.swarm.analyst import MergedFact
from fathom_ray.swarm.coordinator import SwarmResult
from fathom_ray.swarm.receipts import Receipt, latest

PDF = "report.pdf"


@dataclass(frozen=True, slots=True)
class SwarmReport:
    """What a finished swarm hands back: its result, the run's result (result.json), and its bundle."""

    result: SwarmResult
    research: ResearchResult
    files: dict[str, str]  # path in the bundle -> text
    pdf: bytes | None


_SLUG = re.compile(r"[^a-z0-9]+")


def _slug(text: str, limit: int = 40) -> str:
    return _SLUG.sub("-", text.lower()).strip("-")[:limit].strip("-") or "goal"


def findings_name(agent: str, goal: str) -> str:
    return f"findings/{_slug(agent)}-{_slug(goal)}.md"


def _link(url: str) -> str:
    return f"<{url}>" if url.startswith(("http://", "https://")) else safe_inline(url)


def _receipt_marks(fact_id: str, receipts: Sequence[Receipt]) -> str:
    marks = [
        f"{r.kind.value} {r.verdict.value}" + (f" ({safe_inline(r.detail)})" if r.detail else "")
        for (fid, _, _), r in sorted(latest(receipts).items(), key=lambda kv: kv[0][1].value)
        if fid == fact_id
    ]
    return ", ".join(marks) or "unchecked"


def _fact_lines(m: MergedFact, receipts: Sequence[Receipt]) -> list[str]:
    fact = m.fact
    marks = [f"verified: {_receipt_marks(fact.id, receipts)}"]
    if fact.confirms:
        marks.append("confirmed by " + ", ".join(fact.confirms))
    if fact.contradicts:
        marks.append("contradicted by " + ", ".join(fact.contradicts))
    return [
        f"- **{fact.id}** {safe_inline(fact.claim)} ({'; '.join(marks)})",
        f"  > {safe_inline(fact.evidence)}",
        f"  source: {_link(fact.source_url)}",
    ]


def index_md(result: SwarmResult, research: ResearchResult, files: Sequence[str]) -> str:
    facts_per_item = {i.id: sum(i.id in m.fact.checklist_ids for m in result.facts) for i in result.checklist}
    lines = [
        f"# {safe_inline(result.goal)}",
        "",
        f"Swarm `{result.swarm_id}` at depth {safe_inline(research.depth)}, "
        f"judge {safe_inline(research.judge)}: {len(result.agents)} researcher runs in "
        f"{result.rounds} round(s), {len(result.facts)} facts, {research.pages_fetched} pages, "
        f"{round(research.wall_s, 2)} s. Stopped because: {safe_inline(result.stop_reason)}.",
        "",
        "## Checklist",
        "",
    ]
    lines += [
        f"- [{'x' if i.satisfied else ' '}] {i.id}: {safe_inline(i.question)} ({facts_per_item[i.id]} facts)"
        for i in result.checklist
    ]
    lines += ["", "## Budgets", ""]
    budget = result.budget
    if budget is not None:
        lines.append(
            f"The swarm's budget: {budget.pages} pages, {budget.time_s:g} s, {budget.tokens} tokens, "
            "split among its researchers (each run's share below)."
        )
    lines += [
        "",
        "## Agents",
        "",
        "| agent | sub-goal | status | facts | pages | findings |",
        "|---|---|---|---|---|---|",
    ]
    for agent in result.agents:
        name, goal = str(agent["agent"]), str(agent.get("goal", ""))
        link = f"[{name}]({findings_name(name, goal)})" if agent.get("status") == "complete" else "-"
        lines.append(
            f"| {safe_inline(name)} | {safe_inline(goal)} | {agent.get('status', '')} | "
            f"{agent.get('facts', 0)} | {agent.get('pages', 0)} | {link} |"
        )
    lines += ["", "## Files", ""]
    lines += [f"- [{name}]({name})" for name in files if name != "index.md"]
    lines.append("")
    return "\n".join(lines)


def findings_md(result: SwarmResult, agent: Mapping[str, Any]) -> str:
    name = str(agent["agent"])
    mine = [m for m in result.facts if m.agent == name]
    lines = [
        f"# {safe_inline(str(agent.get('goal', '')))}",
        "",
        f"Researcher {safe_inline(name)}: {agent.get('pages', 0)} pages, {len(mine)} facts kept.",
        "",
    ]
    for m in mine:
        lines += _fact_lines(m, result.receipts)
    if not mine:
        lines.append("No fact of this researcher was kept.")
    lines.append("")
    return "\n".join(lines)


def sources_md(result: SwarmResult) -> str:
    by_url: dict[str, list[MergedFact]] = {}
    for m in result.facts:
        by_url.setdefault(m.fact.source_url, []).append(m)
    lines = ["# Sources", ""]
    for n, (url, facts) in enumerate(by_url.items(), 1):
        lines.append(f"{n}. {_link(url)}")
        lines += [
            f"   - {m.fact.id} ({safe_inline(m.agent)}): {_receipt_marks(m.fact.id, result.receipts)}"
            for m in facts
        ]
    if not by_url:
        lines.append("No fact cites a page.")
    lines.append("")
    return "\n".join(lines)


def _findings(result: SwarmResult) -> dict[str, str]:
    return {
        findings_name(str(a["agent"]), str(a.get("goal", ""))): findings_md(result, a)
        for a in result.agents
        if a.get("status") == "complete"
    }


def report_page(result: SwarmResult) -> str:
    """``report.html``: the summary, every researcher's findings and the sources on one page."""
    return _page(result, _findings(result), sources_md(result))


def _page(result: SwarmResult, findings: Mapping[str, str], sources: str) -> str:
    facts = [m.fact for m in result.facts]  # the Evidence section the report's fact ids link to
    return render_html(result.goal, [result.report_markdown, *findings.values(), sources], facts)


def bundle_files(
    result: SwarmResult,
    research: ResearchResult,
    ledger_jsonl: str,
    *,
    with_pdf: bool,
    page: str | None = None,
) -> dict[str, str]:
    """Every text file of the bundle by its path inside the bundle; ``index.md`` lists ``report.pdf``
    when ``with_pdf`` (the PDF itself is ``report.html`` printed by the browser). ``page``: the
    ``report_page`` already rendered for that PDF, not rendered again."""
    findings, sources = _findings(result), sources_md(result)
    files: dict[str, str] = {
        "summary.md": result.report_markdown,
        **findings,
        "sources.md": sources,
        "ledger.jsonl": ledger_jsonl,
        "result.json": json.dumps(research.to_json(), indent=2, ensure_ascii=False),
        "report.html": page if page is not None else _page(result, findings, sources),
    }
    names = ["index.md", *files, *([PDF] if with_pdf else [])]
    return {"index.md": index_md(result, research, names), **files}


def write_bundle(out: Path, files: Mapping[str, str], pdf: bytes | None) -> list[Path]:
    """The bundle's files under ``out``, ``report.pdf`` when there is one."""
    written = []
    for name, text in files.items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    if pdf is not None:
        (out / PDF).write_bytes(pdf)
        written.append(out / PDF)
    return written


def bundle_zip(folder: str, files: Mapping[str, str], pdf: bytes | None) -> bytes:
    """The bundle as one zip, its files under ``folder/``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(f"{folder}/{name}", text)
        if pdf is not None:
            archive.writestr(f"{folder}/{PDF}", pdf)
    return buffer.getvalue()


def read_bundle(folder: Path) -> tuple[dict[str, str], bytes | None]:
    """A bundle written by ``write_bundle``: its text files by path, and its PDF if it has one."""
    files = {
        path.relative_to(folder).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != PDF
    }
    pdf = folder / PDF
    return files, pdf.read_bytes() if pdf.is_file() else None
