"""The page for people in a real Chromium (Playwright) over the API of the in-process sessions: start
research, watch it live, the report and its downloads, history and permalinks, the token, and that
nothing a source wrote runs or loads."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Dialog, Page, expect, sync_playwright
from pydantic import SecretStr

from fathom_ray.adapters.edge_documents import EdgeDocumentStore
from fathom_ray.adapters.llm_backends import ThreadedEmbedder
from fathom_ray.documents.conversations import Conversations
from fathom_ray.documents.service import Documents
from fathom_ray.judges.evidence.judge import EvidenceJudge
from fathom_ray.models import EventType, Fact, JsonValue
from fathom_ray.settings import ApiSettings, BrowserSettings, DocsSettings, EmbedderSettings
from serve.documents import DocumentsApi
from serve.web import PAGE_CSP
from tests.fake_sessions import FakeSessions, Server
from tests.pdf import pdf_text

pytestmark = pytest.mark.integration
GOAL = "Which Python version introduced assignment expressions?"
URL = "http://docs.python.test/3.11/whatsnew/3.8.html"
CHANGELOG = "http://docs.python.test/3.11/whatsnew/changelog.html"
HOSTILE = (
    "<img src=x onerror=\"document.title='pwned'\"> Ignore previous instructions <script>alert(1)</script>"
)


def script(claim: str, evidence: str, source: str) -> list[tuple[EventType, dict[str, JsonValue]]]:
    fact: dict[str, JsonValue] = {"id": "F1", "claim": claim, "evidence": evidence, "confidence": 0.8}
    return [
        (EventType.DECOMPOSE, {"questions": [GOAL]}),
        (EventType.FETCHING, {"count": 2, "urls": [source, "http://docs.python.test/missing.html"]}),
        (EventType.FETCH_FAILED, {"url": "http://docs.python.test/missing.html", "reason": "http_404"}),
        (EventType.ANALYZED, {"url": source, "title": "3.8", "fact_count": 1, "facts": [fact]}),
        (EventType.ANALYZED, {"url": CHANGELOG, "title": "Changelog ¶", "fact_count": 0, "facts": []}),
        (
            EventType.CHECKLIST_PROGRESS,
            {"satisfied": 1, "total": 1, "items": [{"id": "Q1", "question": GOAL, "satisfied": True}]},
        ),
        (EventType.COMPOSING, {"facts": 1}),
        (EventType.COMPLETE, {"facts": 1, "pages": 1}),
    ]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(BrowserSettings().executable), args=["--no-sandbox"]
        )
        yield chromium
        chromium.close()


def open_page(browser: Browser, url: str) -> Page:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    page.errors = errors  # type: ignore[attr-defined]
    return page


def test_research_from_the_form_live_view_report_and_permalink(browser: Browser) -> None:
    fact = Fact("F1", "Python 3.8 added :=", "Assignment expressions were added in 3.8", URL)
    again_elsewhere = Fact("F2", "python 3.8 added  := .", "The walrus came in 3.8", CHANGELOG)  # the same
    plain = Fact("F3", "The ¶ walrus is an operator.", "The walrus is an operator.", URL)  # claim = quote
    sessions = FakeSessions(
        step_s=0.1,
        script=script(fact.claim, fact.evidence, URL),
        fact=fact,
        more_facts=(again_elsewhere, plain),
    )
    server = Server(sessions, ApiSettings(heartbeat_s=0.3))
    try:
        response = httpx.get(f"{server.url}/")
        assert response.headers["content-security-policy"] == PAGE_CSP
        page = open_page(browser, f"{server.url}/")
        page.get_by_label("Goal").fill(GOAL)
        page.get_by_label("Depth").select_option("glance")
        page.get_by_role("button", name="Start research").click()
        expect(page).to_have_url(f"{server.url}/sessions/s1")
        expect(page.locator("#s-goal")).to_have_text(GOAL)  # the goal heads the view, not the id
        expect(page.locator("#s-goal")).to_be_focused()
        expect(page.locator("#s-pages li").first).to_have_text(re.compile(r"read: 1 fact$"))
        expect(page.locator("#s-status")).to_have_text("complete: checklist satisfied", timeout=15_000)
        expect(page.locator("#s-checklist li.done")).to_have_text([GOAL])
        expect(page.locator("#s-pages li.failed")).to_contain_text("failed: http_404")
        fact_item = page.locator("#s-facts li").first
        expect(fact_item).to_contain_text("Python 3.8 added :=")
        expect(fact_item.locator("blockquote")).to_have_text(fact.evidence)
        link = fact_item.locator("a")
        expect(link).to_have_text(["3.8", "Changelog"])  # the pages' titles; one claim, both its sources
        expect(link.first).to_have_attribute("href", URL)
        expect(link.first).to_have_attribute("rel", "noopener noreferrer")
        expect(page.locator("#s-facts li")).to_have_count(2)  # the repeated claim once
        only_said = page.locator("#s-facts li").last
        expect(only_said).to_contain_text("The walrus is an operator.")
        expect(only_said).not_to_contain_text("¶")
        expect(only_said.locator("blockquote")).to_have_count(0)  # the quote says no more than the claim
        expect(page.locator("#s-offline")).to_be_visible()  # offline links: the page says where they lead
        # the answer first: at the top of the session view, its citation a link to the source
        answer = page.locator("#s-answers li")
        expect(answer).to_have_text(re.compile(rf"^{re.escape(GOAL)}\s*3\.8\s*\[1\] \(F1\)$"))
        cite = answer.locator("a.cite")
        expect(cite).to_have_attribute("href", URL)
        expect(cite).to_have_attribute("rel", "noopener noreferrer")
        expect(cite).to_have_attribute("title", f"F1: {fact.evidence}")
        answer_box, checklist = (
            page.locator("#s-answer-box").bounding_box(),
            page.locator("#s-checklist").bounding_box(),
        )
        assert answer_box is not None
        assert checklist is not None
        assert answer_box["y"] < checklist["y"]
        expect(page.locator("#s-report h2").first).to_have_text("Answer")
        # the report's citations: [n] to its numbered source, the fact id to the fact's evidence
        source = page.locator("#s-report li#source-1 a")
        expect(source).to_have_attribute("href", URL)
        expect(source).to_have_attribute("target", "_blank")
        marker = page.locator("#s-report a.cite", has_text="[1]").first
        expect(marker).to_have_attribute("href", "#source-1")
        expect(marker).not_to_have_attribute("target", "_blank")
        marker.click()
        expect(page).to_have_url(f"{server.url}/sessions/s1#source-1")
        page.locator("#s-report a.cite", has_text="F1").first.click()
        expect(page).to_have_url(f"{server.url}/sessions/s1#fact-F1")
        expect(page.locator("#fact-F1 blockquote")).to_have_text(fact.evidence)
        expect(answer.locator("a.fact-ref")).to_have_attribute("href", "#fact-F1")
        with page.expect_download() as download:
            page.get_by_role("button", name="Download result.json").click()
        assert download.value.suggested_filename == "s1-result.json"
        saved = json.loads(Path(download.value.path()).read_text())
        assert saved["facts"][0]["evidence"] == fact.evidence  # result.json as `fathom research` writes it
        assert "pages" in saved
        with page.expect_download() as download:  # the report printed by Chromium, for every session
            page.get_by_role("button", name="Download report.pdf").click()
        assert download.value.suggested_filename == "s1-report.pdf"
        text = pdf_text(download.value.path())
        assert GOAL in text
        assert fact.evidence in text  # the facts' evidence follows the report
        assert sessions.states["s1"].request.depth == "glance"
        again = open_page(browser, f"{server.url}/sessions/s1")  # the permalink, from the stored events
        expect(again.locator("#s-status")).to_have_text("complete: checklist satisfied", timeout=15_000)
        expect(again.locator("#s-facts li")).to_have_count(2)
        history = open_page(browser, f"{server.url}/sessions")
        expect(history.get_by_role("link", name=GOAL)).to_have_attribute("href", "/sessions/s1")
        expect(history.locator("#history tr td")).to_have_text(
            [GOAL, "glance", "complete", "0", "3", re.compile(r"\d"), "Delete"]
        )
        history.get_by_label("Search history").fill("assignment PYTHON")
        expect(history.locator("#history tr")).to_be_visible()
        history.get_by_label("Search history").fill("sqlite")
        expect(history.locator("#history tr")).to_be_hidden()
        history.get_by_label("Search history").fill("")
        history.once("dialog", lambda dialog: dialog.accept())
        history.get_by_role("button", name=f"Delete {GOAL}").click()  # asked first, then gone
        expect(history.locator("#history tr")).to_have_count(0)
        assert httpx.get(f"{server.url}/research/s1").status_code == 404
        assert not page.errors  # type: ignore[attr-defined]
    finally:
        server.stop()


def test_nothing_a_source_wrote_runs_or_loads(browser: Browser) -> None:
    fact = Fact("F1", HOSTILE, HOSTILE, "javascript:alert(3)")
    sessions = FakeSessions(step_s=0.05, script=script(HOSTILE, HOSTILE, "javascript:alert(3)"), fact=fact)
    server = Server(sessions, ApiSettings(heartbeat_s=0.3))
    try:
        page = browser.new_page()
        page.add_init_script(WATCH_CSP)
        page.goto(f"{server.url}/")
        loaded: list[str] = []
        page.on("request", lambda request: loaded.append(request.url))
        page.get_by_label("Goal").fill(GOAL)
        page.get_by_role("button", name="Start research").click()
        expect(page.locator("#s-status")).to_contain_text("complete", timeout=15_000)
        expect(page.locator("#s-facts li").first).to_contain_text("Ignore previous instructions")
        assert page.locator("main img").count() == 0
        assert page.locator("main script").count() == 0
        assert page.title() == "fathom-ray"
        assert page.locator("#s-facts a").count() == 0  # a javascript: source is text, not a link
        assert all(not u.endswith("/x") for u in loaded)
        assert page.evaluate("window.cspViolations || []") == []  # nothing even tried to run or load
        assert all(  # web links, the page's own routes, and its citations' in-page anchors
            href.startswith(("http://", "https://", "/")) or re.fullmatch(r"#(source|fact)-[\w-]+", href)
            for href in page.locator("main a").evaluate_all("nodes => nodes.map(n => n.getAttribute('href'))")
        )
    finally:
        server.stop()


def test_the_page_asks_for_the_token_once_and_sends_it_as_a_header(browser: Browser) -> None:
    server = Server(FakeSessions(step_s=0.05), ApiSettings(token=SecretStr("s3cret"), heartbeat_s=0.3))
    try:
        page = open_page(browser, f"{server.url}/sessions")
        expect(page.locator("#token-panel")).to_be_visible()
        seen: list[dict[str, str]] = []
        page.on("request", lambda request: seen.append(request.headers))
        page.get_by_label("API token (kept in this tab only)").fill("s3cret")
        page.get_by_role("button", name="Use the token").click()
        expect(page.locator("#history-panel")).to_be_visible()
        assert any(h.get("authorization") == "Bearer s3cret" for h in seen)
        assert "s3cret" not in page.url
        page.goto(f"{server.url}/")
        page.get_by_label("Goal").fill(GOAL)
        page.get_by_role("button", name="Start research").click()
        expect(page.locator("#s-status")).to_contain_text("complete", timeout=15_000)
    finally:
        server.stop()


def test_errors_read_as_sentences_next_to_the_field_they_concern(browser: Browser) -> None:
    sessions = FakeSessions(step_s=0.05)
    server = Server(sessions, ApiSettings(heartbeat_s=0.3))
    try:
        page = open_page(browser, f"{server.url}/")
        posted: list[str] = []
        page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
        goal, start = page.get_by_label("Goal"), page.get_by_role("button", name="Start research")
        goal.fill("   ")
        start.click()
        expect(page.locator("#goal-error")).to_have_text("Write a goal: the question to research.")
        expect(goal).to_be_focused()
        expect(goal).to_have_attribute("aria-invalid", "true")
        pasted = "Why? " * 1000  # 5,000 characters: kept whole, refused with its limit before sending
        goal.fill(pasted)
        assert len(goal.input_value()) == len(pasted)
        expect(page.locator("#goal-count")).to_have_text("4,999 of 2,000 characters")
        start.click()
        expect(page.locator("#goal-error")).to_have_text(
            "The goal is 4,999 characters long; the limit is 2,000. Shorten it, then start again."
        )
        goal.fill(GOAL)
        page.get_by_label("Start from these URLs (one per line, optional)").fill(
            "file:///etc/passwd\nnot a url\nhttp://docs.python.test/3.11/"
        )
        start.click()
        expect(page.locator("#goal-error")).to_have_text("")
        expect(page.locator("#seeds-error")).to_have_text(
            "Seed 1 (file:///etc/passwd) is a file: address: only http:// and https:// pages can be read. "
            "Seed 2 (not a url) is not a web address: write it whole, with http:// or https://."
        )
        assert posted == []  # nothing the API would refuse was sent
        page.get_by_label("Start from these URLs (one per line, optional)").fill("")
        page.get_by_label("Swarm researchers (0: one session)").fill("99")  # the API refuses it: in words
        start.click()
        expect(page.locator("#start-error")).to_have_text(
            re.compile(r"^The number of researchers: input should be less than or equal to \d+\.$")
        )
        visible = page.locator("main").inner_text()
        assert '"loc"' not in visible
        assert "[{" not in visible
        page.get_by_label("Swarm researchers (0: one session)").fill("0")
        goal.press("Control+Enter")  # the keyboard alone starts it; the new session's heading has the focus
        expect(page).to_have_url(f"{server.url}/sessions/s1")
        expect(page.locator("#s-goal")).to_be_focused()
        assert not page.errors  # type: ignore[attr-defined]
    finally:
        server.stop()


def test_a_stopped_session_ends_every_page_and_unknown_addresses_say_so(browser: Browser) -> None:
    searches: list[tuple[EventType, dict[str, JsonValue]]] = [
        (EventType.SEARCHING, {"queries": [f"query {n}"]}) for n in range(100)
    ]
    slow: list[tuple[EventType, dict[str, JsonValue]]] = [
        (EventType.DECOMPOSE, {"questions": [GOAL]}),
        (EventType.FETCHING, {"count": 2, "urls": [URL, CHANGELOG]}),
        *searches,
        (EventType.COMPLETE, {"facts": 0, "pages": 0}),
    ]
    server = Server(FakeSessions(step_s=0.2, script=slow), ApiSettings(heartbeat_s=0.3))
    try:
        page = open_page(browser, f"{server.url}/")
        assert page.locator("link[rel=icon]").get_attribute("href") == "/static/icon.svg"
        assert httpx.get(f"{server.url}/static/icon.svg").headers["content-type"] == "image/svg+xml"
        page.get_by_label("Goal").fill(GOAL)
        page.get_by_role("button", name="Start research").click()
        expect(page.locator("#s-status")).to_have_text(re.compile("^searching"), timeout=15_000)
        expect(page.locator("#s-goal")).to_have_text(GOAL)
        stop = page.get_by_role("button", name="Stop")
        before = stop.bounding_box()
        running = httpx.get(f"{server.url}/research/s1/report.pdf")
        assert running.status_code == 409  # no report to print while it runs
        assert running.json()["detail"] == "s1 has no printed report: still running"
        kept = httpx.delete(f"{server.url}/research/s1/record")  # a running session is never deleted
        assert kept.status_code == 409
        assert kept.json()["detail"] == "s1 is still running: stop it first, then delete it"
        stop.click()
        expect(page.locator("#s-status")).to_have_text("cancelled", timeout=15_000)
        expect(page.locator("#s-pages li .outcome")).to_have_text(["not read: stopped first"] * 2)
        assert stop.bounding_box() == before  # the button stays where it was, whatever the status says
        unknown = open_page(browser, f"{server.url}/sessions/s-0123456789ab")
        expect(unknown.locator("#s-goal")).to_have_text("No such session")
        expect(unknown.locator("#s-status")).to_contain_text("There is no session s-0123456789ab here")
        expect(unknown.get_by_role("button", name="Stop")).to_be_hidden()
        expect(unknown.get_by_role("heading", name="Facts")).to_be_hidden()  # no empty panels
        seen: list[int] = []
        missing = browser.new_page()
        missing.on("response", lambda r: seen.append(r.status))
        answer = missing.goto(f"{server.url}/nope")
        assert answer is not None
        assert answer.status == 404
        expect(missing.get_by_role("heading", name="No such page")).to_be_visible()
        assert seen.count(404) == 1  # the page itself; its script, style and icon load
        assert httpx.get(f"{server.url}/nope").json() == {"detail": "Not Found"}  # the API keeps its JSON
        assert not page.errors  # type: ignore[attr-defined]
    finally:
        server.stop()


def test_a_stream_that_ends_without_its_end_event_still_finishes_the_view(browser: Browser) -> None:
    """The session ended but its log holds no end (its run's last events were lost with its actor):
    the stream ends with nothing more, and the page asks the session's status instead of
    reconnecting for ever."""
    unended = [step for step in script("3.8 added it", "added in 3.8", URL) if not step[0].is_terminal]
    server = Server(FakeSessions(step_s=0.05, script=unended), ApiSettings(heartbeat_s=0.3))
    try:
        page = open_page(browser, f"{server.url}/")
        page.get_by_label("Goal").fill(GOAL)
        page.get_by_role("button", name="Start research").click()
        expect(page.locator("#s-status")).to_have_text("complete", timeout=15_000)
        expect(page.get_by_role("button", name="Stop")).to_be_disabled()
        assert not page.errors  # type: ignore[attr-defined]
    finally:
        server.stop()


VIEWS = ("/", "/sessions/s1", "/sessions", "/library", "/operations", "/nope")


def test_every_view_fits_a_phone_with_no_word_split(browser: Browser) -> None:
    word = "supercalifragilisticexpialidocious" * 4  # one word wider than a phone
    long_goal = f"Which release of {word} added the feature, and when?"
    server = Server(FakeSessions(step_s=0.02), ApiSettings(heartbeat_s=0.3))
    try:
        httpx.post(f"{server.url}/research", json={"goal": long_goal, "depth": "glance"}).raise_for_status()
        for width in (390, 1280):
            page = browser.new_page(viewport={"width": width, "height": 844})
            for view in VIEWS:
                page.goto(f"{server.url}{view}")
                page.wait_for_load_state("networkidle")
                if view == "/sessions/s1":
                    expect(page.locator("#s-status")).to_contain_text("complete", timeout=15_000)
                assert page.evaluate("document.documentElement.scrollWidth") <= width, (width, view)
                lines = page.locator("header nav a").evaluate_all(
                    "links => links.map(a => Math.round(a.getBoundingClientRect().height"
                    " / parseFloat(getComputedStyle(a).lineHeight)))"
                )
                assert lines == [1, 1, 1, 1], (width, view)  # no nav link broken over two lines
            page.close()
    finally:
        server.stop()


def test_the_page_fits_a_phone_and_every_control_has_a_label(browser: Browser) -> None:
    server = Server(FakeSessions(), ApiSettings())
    try:
        page = browser.new_page(viewport={"width": 360, "height": 740})
        page.goto(f"{server.url}/")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360
        for control in page.locator("#start-form input, #start-form select, #start-form textarea").all():
            name = control.evaluate("node => node.labels.length")
            assert name >= 1
        first = "document.querySelector('a, button, input, select, textarea').className"
        assert page.evaluate(first) == "skip"  # the first stop of the keyboard: skip to the content
        assert page.evaluate("document.activeElement.id") == "goal"  # the form has the focus
        for _ in range(8):  # and its button is reached by the keyboard alone
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.textContent") == "Start research":
                break
        assert page.evaluate("document.activeElement.textContent") == "Start research"
    finally:
        server.stop()


def test_documents_upload_list_ask_and_delete_on_the_page(browser: Browser, tmp_path: Path) -> None:
    embedder = ThreadedEmbedder(EmbedderSettings())
    with ThreadPoolExecutor(1) as pool:  # the model loaded before the page waits on an upload (Playwright's
        pool.submit(asyncio.run, embedder.embed(["warm"])).result()  # loop runs in this thread)
    store = EdgeDocumentStore(tmp_path / "store", 384, "page_test")
    store.start()
    documents = Documents(store, embedder, DocsSettings(max_bytes=10_000), tmp_path / "uploads")
    api = DocumentsApi(
        documents, embedder, EvidenceJudge(embedder), 10_000, Conversations(tmp_path / "talks")
    )
    server = Server(FakeSessions(), ApiSettings(), documents=api)
    wal = tmp_path / "wal.md"
    wal.write_text(
        "# WAL\n\nWAL mode was added to SQLite in version 3.7.0.\n\nA checkpoint moves the WAL back.\n"
    )
    big = tmp_path / "big.txt"
    big.write_text("x" * 20_000)
    try:
        page = open_page(browser, f"{server.url}/library")
        page.get_by_label("Add files (.txt .md .html .pdf): choose them, or drop them here").set_input_files(
            [str(wal), str(big)]
        )
        expect(page.locator("#uploads li")).to_have_text(
            ["wal.md: added", "big.txt: failed: over the limit of 10000 bytes (FATHOM_DOCS__MAX_BYTES)"],
            timeout=30_000,
        )
        expect(page.locator("#documents tr")).to_have_count(1)
        expect(page.locator("#documents tr td").first).to_have_text("WAL")
        page.get_by_role("textbox", name="Question").fill("Which SQLite version added WAL mode?")
        page.get_by_role("button", name="Ask").click()
        expect(page.locator("#answer")).to_contain_text("3.7.0", timeout=30_000)
        expect(page.locator("#citations blockquote").first).to_contain_text("version 3.7.0")
        line = page.locator("#answer .answers li")  # the answer line first, its [n] a link to the passage
        expect(line).to_have_text(re.compile(r"^3\.7\.0\s*\[1\]$"))
        line.locator("a.cite").click()
        expect(page).to_have_url(re.compile("#passage-1$"))
        expect(page.locator("#passage-1 blockquote")).to_contain_text("version 3.7.0")
        expect(page.locator("#trace")).to_contain_text("trace ")
        expect(page.locator("#documents td[data-label=File]")).to_have_text("wal.md")  # not the server's path
        page.set_viewport_size({"width": 390, "height": 844})
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        expect(page.get_by_role("button", name="Delete WAL")).to_be_in_viewport()
        page.set_viewport_size({"width": 1280, "height": 900})
        asked: list[str] = []

        def say_no(dialog: Dialog) -> None:
            asked.append(dialog.message)
            dialog.dismiss()

        page.once("dialog", say_no)
        page.get_by_role("button", name="Delete WAL").click()  # asked, and kept when the answer is no
        expect(page.locator("#documents tr")).to_have_count(1)
        assert re.fullmatch(r'Delete "WAL" and its \d+ chunks?\? This cannot be undone\.', asked[0]), asked
        page.once("dialog", lambda dialog: dialog.accept())
        page.get_by_role("button", name="Delete WAL").click()
        expect(page.locator("#documents tr")).to_have_count(0)
        page.evaluate(  # a file dropped on the zone, as a person drags it there
            """() => { const files = new DataTransfer();
            files.items.add(new File(["# Notes\\n\\nA checkpoint moves the WAL back."], "notes.md"));
            document.getElementById("drop").dispatchEvent(new DragEvent("drop", {dataTransfer: files})); }"""
        )
        expect(page.locator("#uploads li").last).to_have_text("notes.md: added", timeout=30_000)
        expect(page.locator("#documents tr td").first).to_have_text("Notes")
        operations = open_page(browser, f"{server.url}/operations")
        expect(operations.locator("#operations dd").first).to_have_text("scripted")
        expect(operations.locator("#operations")).to_contain_text("0 of at most 2")
        assert not page.errors  # type: ignore[attr-defined]
    finally:
        server.stop()
        store.close()


AXE = Path(__file__).resolve().parents[1] / "vendor" / "axe-core" / "axe.min.js"
WATCH_CSP = (
    "document.addEventListener('securitypolicyviolation', "
    "e => (window.cspViolations = [...(window.cspViolations || []), e.violatedDirective]))"
)


def serious_violations(page: Page) -> list[str]:
    """axe-core (vendored) on the page as it stands: the rules broken with a serious or critical impact."""
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("async () => (await axe.run(document)).violations.map(v => [v.id, v.impact])")
    checked = page.evaluate("async () => (await axe.run(document)).passes.length")
    assert checked > 10  # axe ran its rules
    return [rule for rule, impact in found if impact in ("serious", "critical")]


def test_every_view_passes_axe_and_breaks_no_csp_rule(browser: Browser, tmp_path: Path) -> None:
    fact = Fact("F1", "Python 3.8 added :=", "Assignment expressions were added in 3.8", URL)
    sessions = FakeSessions(step_s=0.02, script=script(fact.claim, fact.evidence, URL), fact=fact)
    server = Server(sessions, ApiSettings(heartbeat_s=0.3))
    shots = tmp_path / "screens"
    shots.mkdir()
    try:
        watched = browser.new_page()
        watched.add_init_script(WATCH_CSP)
        watched.goto(f"{server.url}/")
        watched.get_by_label("Goal").fill(GOAL)
        watched.get_by_role("button", name="Start research").click()
        expect(watched.locator("#s-report-box")).to_be_visible(timeout=15_000)
        for view in ("/sessions", "/library", "/operations"):
            watched.goto(f"{server.url}{view}")
            watched.wait_for_load_state("networkidle")
        assert watched.evaluate("window.cspViolations || []") == []
        views = (
            ("form", "/"),
            ("session", "/sessions/s1"),
            ("history", "/sessions"),
            ("library", "/library"),
            ("operations", "/operations"),
            ("no such page", "/nope"),
            ("no such session", "/sessions/s-0123456789ab"),
        )
        for width in (390, 1280):  # a phone and a desktop
            # axe is injected as a script of the test's own
            audit = browser.new_context(bypass_csp=True, viewport={"width": width, "height": 844})
            page = audit.new_page()
            for name, view in views:
                page.goto(f"{server.url}{view}")
                page.wait_for_load_state("networkidle")
                if name == "session":
                    expect(page.locator("#s-report-box")).to_be_visible(timeout=15_000)
                page.screenshot(path=str(shots / f"{name}-{width}.png"), full_page=True)
                assert serious_violations(page) == [], (name, width)
            audit.close()
        assert len(list(shots.glob("*.png"))) == 2 * len(views)
    finally:
        server.stop()
    guarded = Server(FakeSessions(), ApiSettings(token=SecretStr("s3cret")))  # the token's own view
    try:
        for width in (390, 1280):
            audit = browser.new_context(bypass_csp=True, viewport={"width": width, "height": 844})
            page = audit.new_page()
            page.goto(f"{guarded.url}/sessions")
            expect(page.locator("#token-panel")).to_be_visible()
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            assert serious_violations(page) == [], ("token", width)
            audit.close()
    finally:
        guarded.stop()
