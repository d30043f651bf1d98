"""The report: findings whose every sentence cites facts, and the sources those facts come from.

Only findings whose fact ids resolve to kept facts, and whose sentence holds
no markup, image, active link, instruction or secret, are printed; citations
become numbered sources. Markdown is rendered safe: no images, no raw HTML,
and only plain http(s) links.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from fathom_ray.llm.answers import Finding
from fathom_ray.models import ChecklistItem, Fact
from fathom_ray.untrusted import unfit_for_fact

_MARKUP = re.compile(r"[<>\[\]`!|*_#]")
_LEADING_MARKER = re.compile(r"^([-+=]|\d+[.)])(?=\s|$)")  # would start a list or a heading underline


def safe_inline(text: str) -> str:
    """Text that cannot become markup, an image or a link in Markdown, nor start a list of its own."""
    flat = " ".join(_MARKUP.sub(lambda m: "\\" + m.group(0), text).split())
    return _LEADING_MARKER.sub(lambda m: m.group(0)[:-1] + "\\" + m.group(0)[-1], flat)


def _source_numbers(facts: Sequence[Fact]) -> dict[str, int]:
    numbers: dict[str, int] = {}
    for fact in facts:
        numbers.setdefault(fact.source_url, len(numbers) + 1)
    return numbers


def render(
    goal: str,
    checklist: Sequence[ChecklistItem],
    findings: Sequence[Finding],
    facts: Sequence[Fact],
    stop_reason: str,
) -> str:
    """The Markdown report; with no usable finding it says so and invents nothing."""
    by_id = {f.id: f for f in facts}
    usable = [
        f
        for f in findings
        if f.fact_ids and all(i in by_id for i in f.fact_ids) and unfit_for_fact(f.sentence) is None
    ]
    cited = [by_id[i] for f in usable for i in f.fact_ids]
    if not usable and facts:  # the model composed nothing usable: list the verified facts themselves
        usable = [Finding(sentence=f.claim, fact_ids=[f.id]) for f in facts]
        cited = list(facts)
    numbers = _source_numbers(cited)
    lines = [f"# {safe_inline(goal)}", ""]
    if not usable:
        lines += ["No facts with verifiable evidence were found, so there are no findings.", ""]
    else:
        lines += ["## Findings", ""]
        for finding in usable:
            refs = sorted({numbers[by_id[i].source_url] for i in finding.fact_ids})
            marks = "".join(f"[{n}]" for n in refs)
            ids = ", ".join(finding.fact_ids)
            lines.append(f"- {safe_inline(finding.sentence)} {marks} ({ids})")
        lines.append("")
    lines += ["## Checklist", ""]
    lines += [f"- [{'x' if i.satisfied else ' '}] {safe_inline(i.question)}" for i in checklist]
    lines += ["", f"Stopped because: {stop_reason}.", ""]
    if numbers:
        lines += ["## Sources", ""]
        lines += [f"{n}. <{url}>" for url, n in numbers.items() if url.startswith(("http://", "https://"))]
        lines.append("")
    return "\n".join(lines)


def render_answer(question: str, answer: str, facts: Sequence[Fact], stop_reason: str) -> str:
    """The single-pass baseline's report: its one answer, the claims it cited, and their sources."""
    numbers = _source_numbers(facts)
    lines = [f"# {safe_inline(question)}", "", "## Answer", "", safe_inline(answer) or "(no answer)", ""]
    if facts:
        lines += ["## Cited claims", ""]
        lines += [f"- {safe_inline(f.claim)} [{numbers[f.source_url]}] ({f.id})" for f in facts]
        lines.append("")
    lines += [f"Stopped because: {stop_reason}.", ""]
    if numbers:
        lines += ["## Sources", ""]
        lines += [f"{n}. <{url}>" for url, n in numbers.items() if url.startswith(("http://", "https://"))]
        lines.append("")
    return "\n".join(lines)
