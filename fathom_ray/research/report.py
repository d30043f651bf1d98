"""The report: the answers first, then findings grouped by checklist item, then numbered sources.

It opens with ``## Answer``: one line per item (its typed span with the [n] of the source and
the fact ids, the other value where sources disagree, or "not found in N pages read"), then the
goal's answer built from those lines. The findings follow under the item their facts serve; only
findings whose fact ids resolve to kept facts, and whose sentence holds no markup, image, active
link, instruction or secret, are printed. Citations become numbered sources, with the page's
title where it is known. Markdown is rendered safe: no images, no raw HTML, and only plain http(s)
links.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from fathom_ray.judges.llm.answers import Finding
from fathom_ray.models import ChecklistItem, Fact
from fathom_ray.research.answer_sheet import Answer, AnswerStatus, answered_items
from fathom_ray.text.untrusted import unfit_for_fact

_MARKUP = re.compile(r"[<>\[\]`!|*_#]")
_LEADING_MARKER = re.compile(r"^([-+=]|\d+[.)])(?=\s|$)")  # would start a list or a heading underline
MAX_TRIED_CHARS = 60


def safe_inline(text: str) -> str:
    """Text that cannot become markup, an image or a link in Markdown, nor start a list of its own."""
    flat = " ".join(_MARKUP.sub(lambda m: "\\" + m.group(0), text).split())
    return _LEADING_MARKER.sub(lambda m: m.group(0)[:-1] + "\\" + m.group(0)[-1], flat)


def _source_numbers(facts: Sequence[Fact]) -> dict[str, int]:
    numbers: dict[str, int] = {}
    for fact in facts:
        numbers.setdefault(fact.source_url, len(numbers) + 1)
    return numbers


def _marks(fact_ids: Sequence[str], by_id: Mapping[str, Fact], numbers: Mapping[str, int]) -> str:
    refs = sorted({numbers[by_id[i].source_url] for i in fact_ids if i in by_id})
    return "".join(f"[{n}]" for n in refs)


def _cited(fact_ids: Sequence[str], by_id: Mapping[str, Fact], numbers: Mapping[str, int]) -> str:
    """``[1] (F2, F3)``: the sources' numbers and the fact ids."""
    known = [i for i in fact_ids if i in by_id]
    return f"{_marks(known, by_id, numbers)} ({', '.join(known)})" if known else ""


def answer_line(answer: Answer, by_id: Mapping[str, Fact], numbers: Mapping[str, int]) -> str:
    """One item's answer as the report's line says it, after its question."""
    if answer.status is AnswerStatus.NOT_FOUND:
        tried = ", ".join(f'"{safe_inline(q[:MAX_TRIED_CHARS])}"' for q in answer.tried)
        pages = f"{answer.pages_read} page{'' if answer.pages_read == 1 else 's'}"
        return f"not found in {pages} read" + (f" (tried {tried})" if tried else "")
    line = f"{safe_inline(answer.answer)} {_cited(answer.fact_ids, by_id, numbers)}".strip()
    if answer.status is AnswerStatus.CONFLICTING:
        other = _cited(answer.other_fact_ids, by_id, numbers)
        line += f"; other sources say {safe_inline(answer.other_answer)} {other}".rstrip()
    return line


def goal_answer(answers: Sequence[Answer], by_id: Mapping[str, Fact], numbers: Mapping[str, int]) -> str:
    """The goal's answer in one or two sentences, built from the items' lines."""
    found = [a for a in answers if a.found]
    if not found:
        pages = max((a.pages_read for a in answers), default=0)
        return f"The {pages} pages read do not answer it."
    spans = "; ".join(f"{safe_inline(a.answer)} {_marks(a.fact_ids, by_id, numbers)}".strip() for a in found)
    missing = len(answers) - len(found)
    rest = f" Not found: {missing} of {len(answers)} parts." if missing else ""
    return f"In short: {spans}.{rest}"


def render(
    goal: str,
    checklist: Sequence[ChecklistItem],
    findings: Sequence[Finding],
    facts: Sequence[Fact],
    stop_reason: str,
    *,
    answers: Sequence[Answer] = (),
    titles: Mapping[str, str] | None = None,
) -> str:
    """The Markdown report; with no usable finding it says so and invents nothing."""
    by_id = {f.id: f for f in facts}
    usable = [
        f
        for f in findings
        if f.fact_ids and all(i in by_id for i in f.fact_ids) and unfit_for_fact(f.sentence) is None
    ]
    if not usable and facts:  # the model composed nothing usable: list the verified facts themselves
        usable = [Finding(sentence=f.claim, fact_ids=[f.id]) for f in facts]
    answer_ids = [i for a in answers for i in (*a.fact_ids, *a.other_fact_ids)]
    cited = [by_id[i] for i in (*answer_ids, *(i for f in usable for i in f.fact_ids)) if i in by_id]
    numbers = _source_numbers(cited)
    lines = [f"# {safe_inline(goal)}", ""]
    if answers:
        lines += ["## Answer", ""]
        lines += [f"- **{safe_inline(a.question)}** {answer_line(a, by_id, numbers)}" for a in answers]
        lines += ["", goal_answer(answers, by_id, numbers), ""]
    if not usable:
        lines += ["No facts with verifiable evidence were found, so there are no findings.", ""]
    else:
        lines += ["## Findings", ""]
        for item, mine in _grouped(checklist, usable, by_id):
            lines += [f"### {safe_inline(item.question)}", ""]
            lines += [f"- {safe_inline(f.sentence)} {_cited(f.fact_ids, by_id, numbers)}" for f in mine]
            lines.append("")
    lines += ["## Checklist", ""]
    lines += [f"- [{'x' if i.satisfied else ' '}] {safe_inline(i.question)}" for i in checklist]
    lines += ["", f"Stopped because: {stop_reason}.", ""]
    lines += _sources(numbers, titles or {})
    return "\n".join(lines)


def _grouped(
    checklist: Sequence[ChecklistItem], findings: Sequence[Finding], by_id: Mapping[str, Fact]
) -> list[tuple[ChecklistItem, list[Finding]]]:
    """Findings under the first item (the parts, then the goal) that one of their facts serves; a
    finding whose facts name no item goes under the goal, which every fact of the session serves."""
    order = [*answered_items(checklist), *checklist[:1]] if len(checklist) > 1 else list(checklist)
    order = order or [ChecklistItem("Q1", "Findings")]
    groups: dict[str, list[Finding]] = {}
    for finding in findings:
        served = {c for i in finding.fact_ids for c in by_id[i].checklist_ids}
        item = next((i for i in order if i.id in served), order[-1])
        groups.setdefault(item.id, []).append(finding)
    return [(i, groups[i.id]) for i in order if i.id in groups]


def _sources(numbers: Mapping[str, int], titles: Mapping[str, str]) -> list[str]:
    shown = [(n, url) for url, n in numbers.items() if url.startswith(("http://", "https://"))]
    if not shown:
        return []
    lines = ["## Sources", ""]
    for n, url in shown:
        title = safe_inline(titles.get(url, ""))
        lines.append(f"{n}. {title} <{url}>" if title else f"{n}. <{url}>")
    return [*lines, ""]


def render_answer(
    question: str,
    answer: str,
    facts: Sequence[Fact],
    stop_reason: str,
    *,
    answers: Sequence[Answer] = (),
    titles: Mapping[str, str] | None = None,
) -> str:
    """The single-pass baseline's report in the same shape: its answer lines (or its one answer when
    it wrote none), the claims it cited, and their sources."""
    by_id = {f.id: f for f in facts}
    numbers = _source_numbers(facts)
    lines = [f"# {safe_inline(question)}", "", "## Answer", ""]
    if answers:
        lines += [f"- **{safe_inline(a.question)}** {answer_line(a, by_id, numbers)}" for a in answers]
        lines += ["", goal_answer(answers, by_id, numbers), ""]
    lines += [safe_inline(answer) or "(no answer)", ""]
    if facts:
        lines += ["## Cited claims", ""]
        lines += [f"- {safe_inline(f.claim)} [{numbers[f.source_url]}] ({f.id})" for f in facts]
        lines.append("")
    lines += [f"Stopped because: {stop_reason}.", ""]
    lines += _sources(numbers, titles or {})
    return "\n".join(lines)
