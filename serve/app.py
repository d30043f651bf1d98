"""The HTTP API as a FastAPI app, built around any ``SessionManager`` (testable without Ray).

A superset of the original Fathom service's API: POST /research, GET
/research/{id}/stream (SSE, resumable with Last-Event-ID), GET /research/{id},
plus DELETE /research/{id}, GET /research, GET /health and OpenAPI at /docs; a swarm
(``"mode": "swarm"``) streams its agents' events and ships GET /research/{id}/bundle; with documents,
POST /documents, GET /documents, DELETE /documents/{id} and POST /ask (serve/documents.py).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, Header, HTTPException, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import AnyHttpUrl, BaseModel, ConfigDict, Field, model_validator

from fathom_ray.errors import FathomError, SessionNotFoundError
from fathom_ray.models import GOAL_MAX_CHARS, GOAL_MIN_CHARS, MAX_PAGES, MAX_SEEDS, Event, ResearchRequest
from fathom_ray.research.presets import DEFAULT_DEPTH
from fathom_ray.research.report_html import render_fragment
from fathom_ray.research.results import ResearchResult, status_document
from fathom_ray.research.session_state import RUNNING, SessionState
from fathom_ray.settings import ApiSettings
from fathom_ray.swarm.plan import MAX_AGENTS
from serve.access import Caller, caller_for
from serve.documents import DocumentsApi, add_document_routes
from serve.sessions import (
    NoBundleError,
    NoReportError,
    SessionBusyError,
    SessionManager,
    SessionRunningError,
)
from serve.sse import HEARTBEAT, encode
from serve.web import add_web_routes

logger = logging.getLogger(__name__)
DEFAULT_AGENTS = 3
Depth = Literal["glance", "quick", "focused", "standard", "thorough", "deep", "exhaustive"]
BEARER = HTTPBearer(auto_error=False)  # module level: FastAPI resolves annotations from here
SESSION_HEADER = "X-Session-Id"  # on a stream answered by POST: the id to GET or DELETE later
STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Connection": "keep-alive"}


Source = Literal["web", "documents"]


def _web_only() -> list[Source]:
    return ["web"]


class ResearchBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    goal: str = Field(min_length=GOAL_MIN_CHARS, max_length=GOAL_MAX_CHARS)
    depth: Depth = DEFAULT_DEPTH  # type: ignore[assignment]
    seeds: list[AnyHttpUrl] = Field(default_factory=list, max_length=MAX_SEEDS)
    sources: list[Source] = Field(
        default_factory=_web_only, min_length=1, description="where pages come from"
    )
    max_pages: int | None = Field(default=None, ge=1, le=MAX_PAGES)
    n: int | None = Field(default=None, ge=1)  # accepted for the original service's clients; unused
    keep_running: bool = Field(
        default=False, description="keep the session when a streaming client disconnects"
    )
    mode: Literal["session", "swarm"] = Field(
        default="session", description="one session, or a swarm of researchers sharing the budget"
    )
    agents: int | None = Field(
        default=None, ge=1, le=MAX_AGENTS, description=f"a swarm's researchers (default {DEFAULT_AGENTS})"
    )

    @model_validator(mode="after")
    def _agents_only_for_a_swarm(self) -> ResearchBody:
        if self.agents is not None and self.mode != "swarm":
            raise ValueError('agents is for "mode": "swarm"')
        return self


class Started(BaseModel):
    id: str
    status: str


def build_app(
    manager: SessionManager,
    settings: ApiSettings,
    poll_s: float = 0.2,
    documents: DocumentsApi | None = None,
) -> FastAPI:
    """The API; with ``documents``, the documents routes and POST /ask too."""
    app = FastAPI(title="fathom-ray", description="Autonomous web research; every claim cites its page.")

    async def authorised(
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)],
    ) -> Caller:
        caller = caller_for(settings, credentials.credentials if credentials else "")
        if caller is None:
            raise HTTPException(
                401, "a valid bearer token is required", headers={"WWW-Authenticate": "Bearer"}
            )
        return caller

    guarded = [Depends(authorised)]
    add_web_routes(app)
    if documents is not None:
        add_document_routes(app, documents, guarded)

    @app.exception_handler(SessionBusyError)
    async def busy(_: Request, error: SessionBusyError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, 429, headers={"Retry-After": str(error.retry_after_s)})

    @app.exception_handler(NoBundleError)
    async def no_bundle(_: Request, error: NoBundleError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, 409 if error.running else 404)

    @app.exception_handler(NoReportError)
    async def no_report(_: Request, error: NoReportError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, 409 if error.running else 503)

    @app.exception_handler(SessionRunningError)
    async def still_running(_: Request, error: SessionRunningError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, 409)

    @app.exception_handler(SessionNotFoundError)
    async def missing(_: Request, error: SessionNotFoundError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, 404)

    @app.get("/health")
    async def health() -> dict[str, str | None]:
        """Liveness, where the Ray dashboard is (for the page's operations view and operators), and
        which web the engine reads ("offline": the offline test web, whose links only it can reach)."""
        operations = await manager.operations()
        dashboard, web = operations.get("dashboard_url"), operations.get("web")
        return {
            "status": "ok",
            "dashboard_url": dashboard if isinstance(dashboard, str) else None,
            "web": web if isinstance(web, str) else None,
        }

    app.include_router(research_routes(manager, settings, Depends(authorised), poll_s))
    return app


def research_routes(manager: SessionManager, settings: ApiSettings, asker: Any, poll_s: float) -> APIRouter:
    """/research and its sessions, and /status; ``asker``: the dependency that says who asks."""
    router = APIRouter()

    async def visible(session_id: str, caller: Caller) -> SessionState:
        """The session's state, if ``caller`` may see it; another token's session is not found."""
        state = await manager.result(session_id)
        if not caller.may_see(state.request.owner):
            raise SessionNotFoundError(session_id)
        return state

    @router.post("/research", response_model=None)
    async def start(
        body: ResearchBody, caller: Caller = asker, accept: Annotated[str, Header()] = ""
    ) -> Started | StreamingResponse:
        try:
            request = ResearchRequest(
                body.goal,
                body.depth,
                tuple(str(s) for s in body.seeds),
                body.max_pages,
                sources=tuple(body.sources),
                owner=caller.name,
            )
        except FathomError as e:
            raise HTTPException(422, str(e)) from e
        agents = (body.agents or DEFAULT_AGENTS) if body.mode == "swarm" else None
        session_id = await manager.start(request, agents)
        if "text/event-stream" in accept:
            stream = _events(
                manager, session_id, 0, settings.heartbeat_s, poll_s, cancel=not body.keep_running
            )
            headers = {**STREAM_HEADERS, SESSION_HEADER: session_id}
            return StreamingResponse(stream, media_type="text/event-stream", headers=headers)
        return Started(id=session_id, status="running")

    @router.get("/research/{session_id}/stream")
    async def stream(
        session_id: str, caller: Caller = asker, last_event_id: Annotated[str | None, Header()] = None
    ) -> StreamingResponse:
        after = int(last_event_id) if last_event_id and last_event_id.isdigit() else 0
        await visible(session_id, caller)  # 404 before the stream starts
        events = _events(manager, session_id, after, settings.heartbeat_s, poll_s, cancel=False)
        return StreamingResponse(events, media_type="text/event-stream", headers=STREAM_HEADERS)

    @router.get("/research/{session_id}")
    async def result(session_id: str, caller: Caller = asker) -> dict[str, Any]:
        return status_document(await visible(session_id, caller))

    @router.get("/research/{session_id}/result")
    async def result_json(session_id: str, caller: Caller = asker) -> dict[str, Any]:
        """The session's result.json, as `fathom research` writes it (pages with their text included)."""
        state = await visible(session_id, caller)
        return ResearchResult.from_session(state, state.elapsed_s).to_json()

    @router.get("/research/{session_id}/report")
    async def report(session_id: str, caller: Caller = asker) -> dict[str, str]:
        """The report as Markdown and as the HTML a page shows (raw HTML and images off, web links only)."""
        markdown = (await visible(session_id, caller)).report_markdown
        return {"markdown": markdown, "html": render_fragment(markdown)}

    @router.get("/research/{session_id}/report.pdf")
    async def report_pdf(session_id: str, caller: Caller = asker) -> Response:
        """A finished session's report as a PDF, printed by the engine's Chromium."""
        await visible(session_id, caller)
        return _attachment(
            await manager.report_pdf(session_id), "application/pdf", f"{session_id}-report.pdf"
        )

    @router.get("/research/{session_id}/bundle")
    async def bundle(session_id: str, caller: Caller = asker) -> Response:
        """A finished swarm's report bundle as one zip."""
        await visible(session_id, caller)
        return _attachment(await manager.bundle(session_id), "application/zip", f"{session_id}-bundle.zip")

    @router.delete("/research/{session_id}")
    async def cancel(session_id: str, caller: Caller = asker) -> Started:
        await visible(session_id, caller)
        await manager.cancel(session_id)
        return Started(id=session_id, status="cancelled")

    @router.delete("/research/{session_id}/record")
    async def forget(session_id: str, caller: Caller = asker) -> Started:
        """Delete an ended session from the stores: its state, events and facts (409 while it runs)."""
        await visible(session_id, caller)
        await manager.forget(session_id)
        return Started(id=session_id, status="deleted")

    @router.get("/status", dependencies=[asker])
    async def status() -> dict[str, Any]:
        """The judge in use, the session cap, the sessions running and the Ray dashboard's URL."""
        return dict(await manager.operations())

    @router.get("/research")
    async def sessions(caller: Caller = asker) -> list[dict[str, Any]]:
        """The sessions this token may see (every one, where tokens are not isolated)."""
        return [row for row in await manager.list() if caller.may_see(str(row.get("owner", "")))]

    return router


def _attachment(body: bytes, media_type: str, filename: str) -> Response:
    """A download: ``body`` saved as ``filename`` (an id the API gave, so nothing to quote)."""
    return Response(
        body, media_type=media_type, headers={"Content-Disposition": f'attachment; filename="{filename}"'}
    )


async def _ended(manager: SessionManager, session_id: str, after: int) -> tuple[bool, Event | None]:
    """Whether the session no longer runs and no event came after ``after`` in the meantime; and then
    its terminal event where the event at ``after`` is not it. A run resumed from its checkpoint (its
    actor restarted, or adopted by another replica) numbers on from its last saved event, so a
    client may stand past an end it was never sent: it gets that end now, not a stream that ends
    without one (the page would reconnect for ever)."""
    if (await manager.result(session_id)).status == RUNNING:
        return False, None
    if await manager.events(session_id, after):
        return False, None
    at = await manager.events(session_id, after - 1) if after else []
    if at and at[0].type.is_terminal:
        return True, None
    logged = await manager.events(session_id, 0)
    return True, (logged[-1] if logged and logged[-1].type.is_terminal else None)


async def _events(
    manager: SessionManager, session_id: str, after: int, heartbeat_s: float, poll_s: float, *, cancel: bool
) -> AsyncIterator[bytes]:
    """The session's events as SSE until ``complete`` or ``error``; heartbeats while quiet.

    A quiet stream asks whether the session still runs (at once, then at each heartbeat): one
    resumed after its last event (Last-Event-ID at the terminal event) ends instead of idling on.
    """
    finished = False
    last_sent = time.monotonic()
    checked = False  # whether this quiet spell has asked yet
    try:
        while not finished:
            events = await manager.events(session_id, after)
            for event in events:
                yield encode(event)
                after = event.seq
                finished = finished or event.type.is_terminal
            if events:
                last_sent, checked = time.monotonic(), False
            else:
                due = time.monotonic() - last_sent >= heartbeat_s
                if not checked or due:
                    checked = True
                    finished, end = await _ended(manager, session_id, after)
                    if end is not None:
                        yield encode(end)
                if due and not finished:
                    yield HEARTBEAT
                    last_sent = time.monotonic()
            if not finished:
                await asyncio.sleep(poll_s)
    finally:
        if cancel and not finished:
            logger.info("stream of %s closed early: cancelling the session", session_id)
            await asyncio.shield(manager.cancel(session_id))
