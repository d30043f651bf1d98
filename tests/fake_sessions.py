"""An in-process SessionManager that plays a scripted session, and the API served over it by uvicorn.

Shared by the API, client, schema and MCP tests (no Ray).
"""

from __future__ import annotations

import asyncio
import threading
import time

import uvicorn
from playwright.async_api import async_playwright

from fathom_ray.errors import SessionNotFoundError
from fathom_ray.judges.llm.answers import Finding
from fathom_ray.models import ChecklistItem, Event, EventType, Fact, JsonValue, ResearchRequest
from fathom_ray.research import report
from fathom_ray.research.answer_sheet import Answer, AnswerStatus
from fathom_ray.research.fact_ledger import FactLedger
from fathom_ray.research.report_html import session_page
from fathom_ray.research.results import summary_record
from fathom_ray.research.session_events import EventLog
from fathom_ray.research.session_state import CANCELLED, COMPLETE, RUNNING, SessionState, SessionSummary
from fathom_ray.settings import ApiSettings, BrowserSettings
from fathom_ray.swarm.bundle import bundle_zip
from serve.app import build_app
from serve.documents import DocumentsApi
from serve.sessions import NoBundleError, NoReportError, SessionBusyError, SessionRunningError

START_TIMEOUT_S = 30.0
FACT = Fact(
    "F1", "Python 3.8 added :=", "Assignment expressions", "http://docs.python.test/3.11/whatsnew/3.8.html"
)

SCRIPT: list[tuple[EventType, dict[str, JsonValue]]] = [
    (EventType.DECOMPOSE, {"questions": ["Which version?"]}),
    (EventType.SEARCHING, {"queries": ["walrus operator"]}),
    (EventType.FETCHING, {"count": 1, "urls": ["http://docs.python.test/3.11/whatsnew/3.8.html"]}),
    (
        EventType.ANALYZED,
        {
            "url": "http://docs.python.test/3.11/whatsnew/3.8.html",
            "title": "3.8",
            "fact_count": 1,
            "facts": [],
        },
    ),
    (EventType.ROUND_END, {"round": 1, "round_facts": 1, "total_facts": 1, "total_pages": 1}),
    (EventType.COMPOSING, {"facts": 1}),
    (EventType.COMPLETE, {"facts": 1, "pages": 1}),
]


class FakeSessions:
    """Sessions that emit a scripted event every ``step_s`` seconds."""

    def __init__(
        self,
        max_sessions: int = 2,
        step_s: float = 0.15,
        script: list[tuple[EventType, dict[str, JsonValue]]] | None = None,
        fact: Fact = FACT,
        more_facts: tuple[Fact, ...] = (),
    ) -> None:
        self.max_sessions = max_sessions
        self.step_s = step_s
        self.script = SCRIPT if script is None else script
        self.fact = fact
        self.more_facts = more_facts  # kept too, cited by no answer
        self.logs: dict[str, EventLog] = {}
        self.states: dict[str, SessionState] = {}
        self.cancelled: set[str] = set()
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.agents: dict[str, int | None] = {}

    def running(self) -> int:
        return sum(not t.done() for t in self.tasks.values())

    async def start(self, request: ResearchRequest, agents: int | None = None) -> str:
        if self.running() >= self.max_sessions:
            raise SessionBusyError(self.running(), retry_after_s=7)
        session_id = f"{'s' if agents is None else 'w'}{len(self.logs) + 1}"
        self.agents[session_id] = agents
        self.logs[session_id] = EventLog(session_id)
        self.states[session_id] = SessionState(
            session_id, request, fact_ledger=FactLedger([self.fact, *self.more_facts])
        )
        self.tasks[session_id] = asyncio.create_task(self._play(session_id))
        return session_id

    async def _play(self, session_id: str) -> None:
        state = self.states[session_id]
        for kind, data in self.script:
            await asyncio.sleep(self.step_s)
            if session_id in self.cancelled:
                self.logs[session_id].emit(EventType.COMPLETE, {"facts": 0, "pages": 0})
                state.status, state.stop_reason = CANCELLED, "cancelled"
                return
            if kind is EventType.COMPLETE:  # the report exists before the stream says it is done
                goal = state.request.goal
                state.checklist = [ChecklistItem("Q1", goal, satisfied=True)]
                state.stop_reason = "checklist satisfied"
                finding = Finding(sentence=self.fact.claim, fact_ids=[self.fact.id])
                span = " ".join(self.fact.evidence.split()[-1:])  # its last word, verbatim
                state.answers = [Answer("Q1", goal, AnswerStatus.ANSWERED, span, (self.fact.id,))]
                state.report_markdown = report.render(
                    goal, state.checklist, [finding], [self.fact], "done", answers=state.answers
                )
                state.status = COMPLETE
            self.logs[session_id].emit(kind, data)
        state.status = COMPLETE

    async def events(self, session_id: str, after_seq: int) -> list[Event]:
        if session_id not in self.logs:
            raise SessionNotFoundError(session_id)
        return self.logs[session_id].since(after_seq)

    async def result(self, session_id: str) -> SessionState:
        if session_id not in self.states:
            raise SessionNotFoundError(session_id)
        return self.states[session_id]

    async def cancel(self, session_id: str) -> bool:
        await self.result(session_id)
        self.cancelled.add(session_id)
        return True

    async def list(self) -> list[dict[str, JsonValue]]:
        return [
            summary_record(
                SessionSummary(
                    i,
                    s.request.goal,
                    s.status,
                    s.pages_fetched,
                    len(s.fact_ledger.facts),
                    1.0,
                    s.request.owner,
                    s.request.depth,
                )
            )
            for i, s in reversed(self.states.items())
        ]

    async def operations(self) -> dict[str, JsonValue]:
        return {
            "judge": "scripted",
            "max_sessions": self.max_sessions,
            "running": self.running(),
            "dashboard_url": None,
            "web": "offline",  # its pages are the offline web's
        }

    async def forget(self, session_id: str) -> None:
        await self.result(session_id)
        if not self.tasks[session_id].done():
            raise SessionRunningError(session_id)
        for kept in (self.states, self.logs, self.tasks, self.agents):
            kept.pop(session_id, None)

    async def report_pdf(self, session_id: str) -> bytes:
        """Printed by a Chromium of its own, as the engine's browser pool prints: no script, no loads."""
        state = await self.result(session_id)
        if state.status == RUNNING:
            raise NoReportError(session_id, "still running")
        page = session_page(state.request.goal, state.report_markdown, state.fact_ledger.facts)
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=str(BrowserSettings().executable), args=["--no-sandbox"]
            )
            try:
                tab = await browser.new_page(java_script_enabled=False)
                await tab.set_content(page)
                return await tab.pdf(format="A4")
            finally:
                await browser.close()

    async def bundle(self, session_id: str) -> bytes:
        state = await self.result(session_id)
        if self.agents[session_id] is None:
            raise NoBundleError(session_id, "a session, not a swarm")
        if not self.tasks[session_id].done():
            raise NoBundleError(session_id, "still running")
        return bundle_zip(session_id, {"index.md": f"# {state.request.goal}\n"}, b"%PDF-1.4")


class Server:
    def __init__(
        self, sessions: FakeSessions, settings: ApiSettings, documents: DocumentsApi | None = None
    ) -> None:
        self.sessions = sessions
        app = build_app(sessions, settings, poll_s=0.05, documents=documents)
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self.server.started:  # uvicorn sets no event; its flag is polled, within a deadline
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test API server did not start")
            time.sleep(0.02)
        self.url = f"http://127.0.0.1:{self.server.servers[0].sockets[0].getsockname()[1]}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
