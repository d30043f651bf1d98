"""Prompts from the template files in ``fathom_ray/judges/prompts/``, with sources framed as data.

The shared part of every prompt (rules, task, goal, checklist, known facts)
comes first and the page last, so calls about one session share a prefix the
engine can cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from string import Template

from fathom_ray.judges.evidence.select import select_passages
from fathom_ray.models import ChecklistItem, ExtractedPage, Fact
from fathom_ray.text.untrusted import SafeText, frame, make_safe, neutralise, strip_invisible

MAX_FACTS_IN_PROMPT = 40
MAX_LINKS_IN_PROMPT = 40


@dataclass(frozen=True, slots=True)
class Message:
    role: str
    content: str


@cache
def template(name: str) -> Template:
    return Template(files("fathom_ray.judges.prompts").joinpath(f"{name}.md").read_text(encoding="utf-8"))


def _messages(task: str, **values: str) -> tuple[Message, ...]:
    return (
        Message("system", template("system").substitute().strip()),
        Message("user", template(task).substitute(**values).strip()),
    )


def checklist_lines(items: Sequence[ChecklistItem]) -> str:
    if not items:
        return "(none yet)"
    return "\n".join(f"[{i.id}] {i.question}" + (" (settled)" if i.satisfied else "") for i in items)


def fact_lines(facts: Sequence[Fact]) -> str:
    if not facts:
        return "(none yet)"
    shown = facts[-MAX_FACTS_IN_PROMPT:]
    return "\n".join(f'[{f.id}] {_safe_line(f.claim)} (evidence: "{_safe_line(f.evidence)}")' for f in shown)


def _safe_line(text: str, limit: int = 300) -> str:
    return " ".join(neutralise(strip_invisible(text)).split())[:limit]


def decompose(goal: str, count: int) -> tuple[Message, ...]:
    return _messages("decompose", goal=_safe_line(goal, 2000), count=str(count))


def analyse_page(
    goal: str,
    checklist: Sequence[ChecklistItem],
    facts: Sequence[Fact],
    page: ExtractedPage,
    page_chars: int,
) -> tuple[tuple[Message, ...], SafeText]:
    """The messages for one page, and what making its text safe found (flags, redactions).

    A page longer than ``page_chars`` is cut to its best passages for the open questions
    (``evidence.select``), not to its head.
    """
    safe = make_safe(select_passages(page.text, page.title, checklist, page_chars), page_chars)
    links = page.links[:MAX_LINKS_IN_PROMPT]
    link_lines = "\n".join(f"{i}. {_safe_line(link.text, 120)} <{link.url}>" for i, link in enumerate(links))
    messages = _messages(
        "analyse_page",
        goal=_safe_line(goal, 2000),
        checklist=checklist_lines(checklist),
        facts=fact_lines(facts),
        source=frame("S1", page.url, page.title, safe.text),
        links=link_lines or "(no links)",
    )
    return messages, safe


def discover_queries(
    goal: str,
    open_items: Sequence[ChecklistItem],
    done_queries: Sequence[str],
    count: int,
    facts: Sequence[Fact] = (),
) -> tuple[Message, ...]:
    return _messages(
        "discover_queries",
        goal=_safe_line(goal, 2000),
        checklist=checklist_lines(open_items),
        facts=fact_lines(facts),
        queries="\n".join(f"- {_safe_line(q, 200)}" for q in done_queries[-30:]) or "(none)",
        count=str(count),
    )


def completeness(goal: str, checklist: Sequence[ChecklistItem], facts: Sequence[Fact]) -> tuple[Message, ...]:
    return _messages(
        "completeness",
        goal=_safe_line(goal, 2000),
        checklist=checklist_lines(checklist),
        facts=fact_lines(facts),
    )


def compose(goal: str, checklist: Sequence[ChecklistItem], facts: Sequence[Fact]) -> tuple[Message, ...]:
    return _messages(
        "compose", goal=_safe_line(goal, 2000), checklist=checklist_lines(checklist), facts=fact_lines(facts)
    )


def answer(question: str, pages: Sequence[ExtractedPage], total_chars: int) -> tuple[Message, ...]:
    """The single-pass baseline: the question and every page as a numbered source, sharing ``total_chars``."""
    share = max(400, total_chars // max(1, len(pages)))
    sources = "\n\n".join(
        frame(f"S{n}", page.url, page.title, make_safe(page.text, share).text)
        for n, page in enumerate(pages, start=1)
    )
    return _messages("answer", question=_safe_line(question, 2000), sources=sources or "(no sources)")


def rerank(question: str, pages: Sequence[ExtractedPage], chars_each: int) -> tuple[Message, ...]:
    """Scoring candidate passages for a question: each a numbered source of at most ``chars_each``."""
    sources = "\n\n".join(
        frame(f"S{n}", page.url, page.title, make_safe(page.text, chars_each).text)
        for n, page in enumerate(pages, start=1)
    )
    return _messages("rerank", question=_safe_line(question, 2000), count=str(len(pages)), sources=sources)


def grade(
    question: str, gold: str, aliases: Sequence[str], answer_text: str, answer_chars: int
) -> tuple[Message, ...]:
    """Grading an answer: the answer came from web pages, so it is framed as data."""
    return _messages(
        "grade",
        question=_safe_line(question, 2000),
        gold=_safe_line(gold),
        aliases=", ".join(_safe_line(a) for a in aliases) or "(none)",
        answer=frame("A1", "answer", "the answer to grade", make_safe(answer_text, answer_chars).text),
    )
