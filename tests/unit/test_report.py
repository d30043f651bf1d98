"""The report's shape: the answer first, findings by checklist item, numbered sources with titles."""

from __future__ import annotations

from fathom_ray.cli.research import answer_lines
from fathom_ray.judges.llm.answers import Finding, ItemAnswer, Report
from fathom_ray.models import ChecklistItem, Fact, Usage
from fathom_ray.research.answer_sheet import Answer, AnswerStatus
from fathom_ray.research.conclusion import conclude
from fathom_ray.research.report import render, render_answer
from fathom_ray.research.report_html import render_fragment
from fathom_ray.research.results import ResearchResult

GOAL = "Which version added it, and who contributed it?"
CHECKLIST = [
    ChecklistItem("Q1", GOAL),
    ChecklistItem("Q2", "Which version added it?"),
    ChecklistItem("Q3", "Who contributed it?"),
]
A, B = "http://docs.python.test/3.11/whatsnew/3.8.html", "http://docs.python.test/3.11/whatsnew/3.9.html"
FACTS = [
    Fact("F1", "It came in 3.8.", "New in version 3.8.", A, ("Q2",), 0.8),
    Fact("F2", "Emily wrote it.", "(Contributed by Emily Morehouse in bpo-35224.)", A, ("Q3",), 0.7),
    Fact("F3", "Or 3.9.", "Added in version 3.9.", B, ("Q2",), 0.7),
    Fact("F4", "Unrelated.", "Something else.", B, (), 0.5),
]
TITLES = {A: "What's New In Python 3.8", B: "What's New In Python 3.9"}


def test_the_report_opens_with_the_answer_then_findings_by_item_then_titled_sources() -> None:
    answers = [
        Answer("Q2", "Which version added it?", AnswerStatus.CONFLICTING, "3.8", ("F1",), "3.9", ("F3",)),
        Answer("Q3", "Who contributed it?", AnswerStatus.ANSWERED, "Emily Morehouse", ("F2",)),
    ]
    findings = [Finding(sentence=f.claim, fact_ids=[f.id]) for f in FACTS]
    text = render(GOAL, CHECKLIST, findings, FACTS, "done", answers=answers, titles=TITLES)
    head = text.split("## Findings")[0]
    assert head == (
        f"# {GOAL}\n\n## Answer\n\n"
        "- **Which version added it?** 3.8 [1] (F1); other sources say 3.9 [2] (F3)\n"
        "- **Who contributed it?** Emily Morehouse [1] (F2)\n\n"
        "In short: 3.8 [1]; Emily Morehouse [1].\n\n"
    )
    findings_part = text.split("## Findings")[1].split("## Checklist")[0]
    assert findings_part.index("### Which version added it?") < findings_part.index("It came in 3.8.")
    assert findings_part.index("### Who contributed it?") < findings_part.index("Emily wrote it.")
    assert f"### {GOAL}" in findings_part  # a fact serving no part is the goal's
    assert "1. What's New In Python 3.8 <http://docs.python.test/3.11/whatsnew/3.8.html>" in text
    assert "2. What's New In Python 3.9 <http://docs.python.test/3.11/whatsnew/3.9.html>" in text
    html = render_fragment(text)
    assert "<h2>Answer</h2>" in html
    assert html.index("<h2>Answer</h2>") < html.index("<h2>Findings</h2>")


def test_not_found_says_how_many_pages_and_what_was_tried() -> None:
    missing = Answer("Q3", "Who contributed it?", AnswerStatus.NOT_FOUND, pages_read=3, tried=("walrus PEP",))
    text = render(GOAL, CHECKLIST, [], FACTS[:1], "done", answers=[missing])
    assert '- **Who contributed it?** not found in 3 pages read (tried "walrus PEP")' in text
    assert "The 3 pages read do not answer it." in text


def test_conclude_holds_the_judges_answers_to_their_evidence_and_ticks_the_answered() -> None:
    composed = Report(
        answers=[
            ItemAnswer(item="Q2", answer="3.8", fact_ids=["F1"]),
            ItemAnswer(item="Q3", answer="Guido", fact_ids=["F2"]),  # F2 does not say so
        ],
        findings=[Finding(sentence="It came in 3.8.", fact_ids=["F1"])],
    )
    done = conclude(GOAL, CHECKLIST, composed, FACTS, pages_read=2, tried=["q"], stop_reason="x", titles={})
    assert [a.status for a in done.sheet.answers] == [AnswerStatus.ANSWERED, AnswerStatus.NOT_FOUND]
    assert done.sheet.dropped == 1
    assert [i.satisfied for i in done.checklist] == [False, True, False]
    assert done.markdown.startswith(f"# {GOAL}\n\n## Answer\n\n- **Which version added it?** 3.8 [1] (F1)\n")


def test_the_baseline_report_has_the_same_shape() -> None:
    answers = [Answer("Q1", "Which version added it?", AnswerStatus.ANSWERED, "3.8", ("F1",))]
    text = render_answer("Which version added it?", "It was 3.8.", FACTS[:1], "single pass", answers=answers)
    assert text.startswith(
        "# Which version added it?\n\n## Answer\n\n- **Which version added it?** 3.8 [1] (F1)\n"
    )
    assert text.index("In short: 3.8 [1].") < text.index("It was 3.8.") < text.index("## Cited claims")


def test_the_cli_prints_each_answer_with_its_source_number_and_facts() -> None:
    answers = (
        Answer("Q2", "Which version?", AnswerStatus.CONFLICTING, "3.8", ("F1",), "3.9", ("F3",)),
        Answer("Q3", "Who?", AnswerStatus.NOT_FOUND, pages_read=3),
    )
    result = ResearchResult(
        "s1", GOAL, "quick", "complete", "max pages reached", answers, tuple(CHECKLIST), tuple(FACTS),
        (), "", Usage(), 3, "evidence", 1.0,
    )  # fmt: skip
    assert answer_lines(result) == [
        "Which version? -> 3.8 [1] (F1); other sources say 3.9 [2] (F3)",
        "Who? -> not found in 3 pages read",
        f"  [1] {A}",
        f"  [2] {B}",
    ]
