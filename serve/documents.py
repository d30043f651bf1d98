"""The documents API: POST /documents (multipart upload), GET /documents, DELETE /documents/{id},
POST /ask (JSON, or the stages as Server-Sent Events with ``Accept: text/event-stream``).

The routes call a ``DocumentAdmin`` (the DocumentStore actor in Serve, ``Documents`` in process)
and run ``fathom ask`` here, with the engine's embedder and judge.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Protocol

from fastapi import APIRouter, FastAPI, File, Header, HTTPException, UploadFile
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from fathom_ray.documents.answering import line_json
from fathom_ray.documents.ask import MAX_QUESTION_CHARS, AskResult, ask, passage_record
from fathom_ray.documents.conversations import Conversations, Turn
from fathom_ray.documents.models import AddOutcome, Document, DocumentHit
from fathom_ray.errors import FathomError
from fathom_ray.ports import Embedder, JudgePort

logger = logging.getLogger("fathom_ray.ask")
STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
READ_CHUNK = 1 << 20


class DocumentAdmin(Protocol):
    async def add_upload(self, name: str, data: bytes) -> AddOutcome: ...
    async def list_documents(self) -> list[Document]: ...
    async def remove(self, document_id: str) -> bool: ...
    async def search(
        self, query: str, vector: Sequence[float], limit: int, mode: str = "hybrid"
    ) -> list[DocumentHit]: ...
    async def chunk(self, document_id: str, index: int) -> DocumentHit | None: ...


@dataclass(frozen=True, slots=True)
class DocumentsApi:
    store: DocumentAdmin
    embedder: Embedder
    judge: JudgePort
    max_bytes: int
    conversations: Conversations | None = None  # where a conversation's last turns are kept


class AskBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    reflect: bool = True
    conversation_id: str | None = Field(
        default=None, pattern=r"^[A-Za-z0-9_-]{1,64}$", description="ask within a conversation (last 6 turns)"
    )


def document_record(document: Document) -> dict[str, Any]:
    return {
        "id": document.id,
        "title": document.title,
        "source": document.source,
        "chunks": document.chunks,
        "chars": document.chars,
        "flags": list(document.flags),
    }


def outcome_record(outcome: AddOutcome) -> dict[str, Any]:
    record: dict[str, Any] = {"name": outcome.path, "status": outcome.status, "error": outcome.error}
    if outcome.document is not None:
        record["document"] = document_record(outcome.document)
    return record


def answer_record(result: AskResult) -> dict[str, Any]:
    return {
        "trace_id": result.trace_id,
        "question": result.question,
        "answer": result.answer,
        "answers": [line_json(line) for line in result.answers],
        "citations": [
            {"passage": c.number, "claim": c.claim, "evidence": c.evidence} for c in result.citations
        ],
        "passages": [passage_record(n, p) for n, p in enumerate(result.passages, start=1)],
        "parts": list(result.parts),
        "follow_ups": list(result.follow_ups),
        "stages_s": result.stages_s,
        "usage": {
            "calls": result.usage.calls,
            "tokens_in": result.usage.prompt_tokens,
            "tokens_out": result.usage.completion_tokens,
            "cost_usd": result.usage.cost_usd,
        },
        "judge_failure": result.judge_failure,
        "asked_as": result.asked_as,
    }


def add_document_routes(app: FastAPI, api: DocumentsApi, guarded: list[Any]) -> None:
    router = APIRouter(dependencies=guarded)

    @router.post("/documents")
    async def upload(
        files: Annotated[list[UploadFile], File(description="files to add")],
    ) -> list[dict[str, Any]]:
        outcomes = []
        for file in files:
            data = await _read_capped(file, api.max_bytes)
            name = file.filename or "upload"
            if data is None:
                error = f"over the limit of {api.max_bytes} bytes (FATHOM_DOCS__MAX_BYTES)"
                outcomes.append(outcome_record(AddOutcome(name, "failed", error=error)))
                continue
            outcomes.append(outcome_record(await api.store.add_upload(name, data)))
        return outcomes

    @router.get("/documents")
    async def documents() -> list[dict[str, Any]]:
        return [document_record(d) for d in await api.store.list_documents()]

    @router.delete("/documents/{document_id}")
    async def remove(document_id: str) -> dict[str, str]:
        if not await api.store.remove(document_id):
            raise HTTPException(404, f"no document {document_id}")
        return {"id": document_id, "status": "removed"}

    @router.post("/ask", response_model=None)
    async def ask_route(
        body: AskBody, accept: Annotated[str, Header()] = ""
    ) -> dict[str, Any] | StreamingResponse:
        if not await api.store.list_documents():
            raise HTTPException(404, "no documents to ask; add some with POST /documents")
        if "text/event-stream" in accept:
            return StreamingResponse(
                _stream(api, body), media_type="text/event-stream", headers=STREAM_HEADERS
            )
        try:
            result = await ask(
                body.question,
                api.store,
                api.embedder,
                api.judge,
                reflect=body.reflect,
                history=_history(api, body),
            )
        except FathomError as e:
            raise HTTPException(422, str(e)) from e
        record = _remember(api, body, result)
        logger.info(json.dumps({k: v for k, v in record.items() if k != "passages"}))
        return record

    app.include_router(router)


async def _read_capped(file: UploadFile, limit: int) -> bytes | None:
    """The upload's bytes, or None as soon as it passes ``limit`` (nothing more is read)."""
    data = bytearray()
    while chunk := await file.read(READ_CHUNK):
        data += chunk
        if len(data) > limit:
            return None
    return bytes(data)


async def _stream(api: DocumentsApi, body: AskBody) -> AsyncIterator[bytes]:
    queue: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()
    task = asyncio.ensure_future(
        ask(
            body.question,
            api.store,
            api.embedder,
            api.judge,
            reflect=body.reflect,
            on_stage=lambda stage, data: queue.put_nowait((stage, data)),
            history=_history(api, body),
        )
    )
    seq = 0
    try:
        while not task.done() or not queue.empty():
            try:
                stage, data = await asyncio.wait_for(queue.get(), timeout=0.1)
            except TimeoutError:
                continue
            seq += 1
            yield _event(stage, seq, data)
        try:
            result = task.result()
        except Exception as e:  # noqa: BLE001 (whatever failed, the stream ends with an event that says so)
            logger.warning("ask failed: %s", e)
            yield _event("error", seq + 1, {"status": "failed", "detail": str(e)})
            return
        record = _remember(api, body, result)
        answered = ("answer", "answers", "citations")
        yield _event("answer", seq + 1, {k: record[k] for k in answered})
        yield _event("complete", seq + 2, {k: v for k, v in record.items() if k not in answered})
    finally:
        task.cancel()


def _history(api: DocumentsApi, body: AskBody) -> list[str]:
    if api.conversations is None or body.conversation_id is None:
        return []
    return [turn.question for turn in api.conversations.turns(body.conversation_id)]


def _remember(api: DocumentsApi, body: AskBody, result: AskResult) -> dict[str, Any]:
    """The answer's record (logged as one line), its turn added to its conversation."""
    record = answer_record(result)
    if api.conversations is not None and body.conversation_id is not None:
        turns = api.conversations.add(body.conversation_id, Turn(result.question, result.answer))
        record |= {"conversation_id": body.conversation_id, "turns": len(turns)}
    logger.info(json.dumps({k: v for k, v in record.items() if k != "passages"}))
    return record


def _event(kind: str, seq: int, data: dict[str, Any]) -> bytes:
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {kind}\nid: {seq}\ndata: {payload}\n\n".encode()
