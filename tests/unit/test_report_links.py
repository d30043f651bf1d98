"""Citation links in report.html and the page's report: [n] to the numbered source, fact ids to
their evidence; nothing a source wrote becomes a link or markup."""

from __future__ import annotations

import re

from fathom_ray.judges.llm.answers import Finding
from fathom_ray.models import ChecklistItem, Fact
from fathom_ray.research import report
from fathom_ray.research.answer_sheet import Answer, AnswerStatus
from fathom_ray.research.report_html import CSP, render_fragment, render_html

URL = "https://docs.python.org/3/whatsnew/3.8.html"
HOSTILE = 'See [2] (F9) <script>alert(1)</script> [x](javascript:alert(2)) <img src=x onerror="y()">'


def facts() -> list[Fact]:
    return [
        Fact("F1", "Python 3.8 added :=", "Assignment expressions were added in 3.8", URL, ("Q1",), 0.9),
        Fact("F2", HOSTILE, HOSTILE, "javascript:alert(3)", ("Q1",), 0.5),
    ]


def markdown() -> str:
    kept = facts()
    answer = Answer("Q1", "Which version added :=?", AnswerStatus.ANSWERED, "3.8", ("F1",))
    findings = [Finding(sentence=kept[0].claim, fact_ids=["F1"]), Finding(sentence=HOSTILE, fact_ids=["F2"])]
    checklist = [ChecklistItem("Q1", "Which version added :=?", True)]
    return report.render("Which version added :=?", checklist, findings, kept, "done", answers=[answer])


def links(page: str) -> list[tuple[str, str]]:
    return re.findall(r'<a href="([^"]+)"[^>]*>([^<]*)</a>', page)


def test_the_pages_report_links_each_marker_to_its_source_and_each_fact_id_to_its_evidence() -> None:
    text = markdown()
    assert "3.8 [1] (F1)" in text  # report.md itself is unchanged
    page = render_fragment(text)
    found = links(page)
    assert ("#source-1", "[1]") in found
    assert ("#fact-F1", "F1") in found
    assert '<li id="source-1">' in page  # the numbered source is the anchor
    assert f'href="{URL}"' in page
    # the hostile fact cites no web page: its [n] has no numbered source to go to, so it stays text
    assert all(not href.startswith("javascript") for href, _ in found)
    assert "#fact-F9" not in page  # brackets a source wrote are escapes, never markers
    assert "<script>" not in page
    assert "<img" not in page


def test_report_html_lists_the_evidence_its_fact_ids_link_to() -> None:
    page = render_html("Which version added :=?", [markdown()], facts())
    assert f'content="{CSP}"' in page
    found = links(page)
    assert ("#s1-source-1", "[1]") in found  # each section's sources have their own anchors
    assert ("#fact-F1", "F1") in found
    assert '<li id="s1-source-1">' in page
    assert '<li id="fact-F1"><strong>F1</strong> Python 3.8 added :=' in page
    assert "<blockquote>Assignment expressions were added in 3.8</blockquote>" in page
    assert f'<a href="{URL}" rel="noopener noreferrer">' in page
    assert '<li id="fact-F2">' in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # escaped, as text
    assert "<script>" not in page
    assert 'href="javascript:' not in page
    assert "<span>javascript:alert(3)</span>" in page


def test_a_fact_id_not_on_the_page_is_not_a_link() -> None:
    page = render_html(
        "g", ["# g\n\n- 3.8 [1] (F1, F7)\n\n## Sources\n\n1. <https://a.test/>\n"], facts()[:1]
    )
    found = links(page)
    assert ("#fact-F1", "F1") in found
    assert not [href for href, _ in found if "F7" in href]
    assert "F7" in page
