"""The documents API in process: upload, list, ask (JSON and SSE), delete, on the real store,
embedder and evidence judge (no Ray; Serve runs the same app)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from fathom_ray.adapters.edge_documents import EdgeDocumentStore
from fathom_ray.adapters.llm_backends import ThreadedEmbedder
from fathom_ray.client import ResearchClient
from fathom_ray.documents.conversations import Conversations
from fathom_ray.documents.service import Documents
from fathom_ray.errors import FathomError
from fathom_ray.judges.evidence.judge import EvidenceJudge
from fathom_ray.settings import ApiSettings, DocsSettings, EmbedderSettings
from serve.app import build_app
from serve.documents import DocumentsApi
from tests.fake_sessions import FakeSessions, Server

pytestmark = pytest.mark.integration
WAL = b"# WAL\n\nWAL mode was added to SQLite in version 3.7.0.\n\nA checkpoint moves the WAL back.\n"


@pytest.fixture(scope="module")
def embedder() -> ThreadedEmbedder:
    return ThreadedEmbedder(EmbedderSettings())


@pytest.fixture
def client(tmp_path: Path, embedder: ThreadedEmbedder) -> Iterator[TestClient]:
    store = EdgeDocumentStore(tmp_path / "store", 384, "api_test")
    store.start()
    documents = Documents(store, embedder, DocsSettings(max_bytes=10_000), tmp_path / "uploads")
    conversations = Conversations(tmp_path / "conversations")
    api = DocumentsApi(
        documents, embedder, EvidenceJudge(embedder), max_bytes=10_000, conversations=conversations
    )
    app = build_app(FakeSessions(), ApiSettings(token=SecretStr("s3cret")), documents=api)
    with TestClient(app, headers={"Authorization": "Bearer s3cret"}) as test_client:
        yield test_client
    store.close()


def sse(text: str) -> list[tuple[str, dict[str, object]]]:
    events = []
    for block in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def test_upload_list_ask_and_delete(client: TestClient) -> None:
    none_yet = client.post("/ask", json={"question": "Which version added WAL?"})
    assert none_yet.status_code == 404
    assert "no documents to ask" in none_yet.json()["detail"]

    files = [
        ("files", ("wal.md", WAL, "text/markdown")),
        ("files", ("tool.exe", b"MZ", "application/octet-stream")),
        ("files", ("big.txt", b"x" * 20_000, "text/plain")),
    ]
    added = client.post("/documents", files=files)
    assert added.status_code == 200
    outcomes = {o["name"]: o for o in added.json()}
    assert outcomes["wal.md"]["status"] == "added"
    assert "unsupported file type .exe" in outcomes["tool.exe"]["error"]
    assert "over the limit of 10000 bytes" in outcomes["big.txt"]["error"]  # the rest went on
    again = client.post("/documents", files=[("files", ("wal.md", WAL, "text/markdown"))])
    assert again.json()[0]["status"] == "unchanged"

    listed = client.get("/documents").json()
    assert [d["title"] for d in listed] == ["WAL"]
    document_id = listed[0]["id"]

    answer = client.post("/ask", json={"question": "Which SQLite version added WAL mode?"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert "3.7.0" in body["answer"]
    quoted = body["passages"][body["citations"][0]["passage"] - 1]["text"]
    assert body["citations"][0]["evidence"] in quoted
    assert body["passages"][0]["source"] == f"doc://{document_id}#0"
    assert body["answer"].startswith("3.7.0 [1]")  # the answer first, cited inline
    assert body["answers"] == [
        {
            "item": "Q1",
            "question": "Which SQLite version added WAL mode?",
            "answer": "3.7.0",
            "passages": [1],
            "status": "answered",
        }
    ]
    assert len(body["trace_id"]) == 16
    assert set(body["stages_s"]) >= {"plan", "search", "rerank", "answer"}

    streamed = client.post(
        "/ask",
        json={"question": "Which SQLite version added WAL mode?"},
        headers={"Accept": "text/event-stream"},
    )
    assert streamed.headers["content-type"].startswith("text/event-stream")
    events = sse(streamed.text)
    kinds = [kind for kind, _ in events]
    assert kinds == ["plan", "search", "rerank", "reflect", "passages", "answer", "complete"]
    answered = events[kinds.index("answer")][1]
    assert "3.7.0" in str(answered["answer"])
    assert answered["answers"] == body["answers"]

    assert client.delete(f"/documents/{document_id}").json() == {"id": document_id, "status": "removed"}
    assert client.delete(f"/documents/{document_id}").status_code == 404
    assert client.get("/documents").json() == []


def test_a_follow_up_question_carries_the_subject_of_its_conversation(client: TestClient) -> None:
    client.post("/documents", files=[("files", ("wal.md", WAL, "text/markdown"))])
    first = client.post(
        "/ask", json={"question": "Which SQLite version added WAL mode?", "conversation_id": "c-1"}
    )
    assert first.json()["turns"] == 1
    follow = client.post("/ask", json={"question": "What moves it back?", "conversation_id": "c-1"}).json()
    assert follow["turns"] == 2
    assert follow["asked_as"].startswith("What moves it back (")  # leaned on the first turn: its subject
    assert "WAL" in follow["asked_as"]
    alone = client.post("/ask", json={"question": "What moves it back?"}).json()
    assert alone["asked_as"] == "What moves it back?"
    bad = client.post("/ask", json={"question": "x?", "conversation_id": "../etc"})
    assert bad.status_code == 422


def test_bad_requests_are_clear(client: TestClient) -> None:
    too_long = client.post("/ask", json={"question": "x" * 1001})
    assert too_long.status_code == 422
    assert too_long.json()["detail"][0]["loc"] == ["body", "question"]
    assert client.post("/documents").status_code == 422  # no files
    unguarded = TestClient(client.app)
    assert unguarded.get("/documents").status_code == 401


def test_a_question_with_no_answer_in_the_documents_says_so(
    client: TestClient, embedder: ThreadedEmbedder
) -> None:
    client.post("/documents", files=[("files", ("garden.txt", b"Tomatoes need full sun.", "text/plain"))])
    body = client.post("/ask", json={"question": "Who wrote PEP 572?"}).json()
    assert body["follow_ups"][0] == "PEP 572 wrote"  # the name no passage holds was searched again
    assert all(c["evidence"] in body["passages"][c["passage"] - 1]["text"] for c in body["citations"])


def test_the_python_client_adds_lists_asks_and_removes(tmp_path: Path, embedder: ThreadedEmbedder) -> None:
    store = EdgeDocumentStore(tmp_path / "store", 384, "client_test")
    store.start()
    documents = Documents(store, embedder, DocsSettings(), tmp_path / "uploads")
    api = DocumentsApi(documents, embedder, EvidenceJudge(embedder), max_bytes=DocsSettings().max_bytes)
    server = Server(FakeSessions(), ApiSettings(), documents=api)
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "wal.md").write_bytes(WAL)
    (folder / "skip.bin").write_bytes(b"\x00")

    async def use() -> None:
        async with ResearchClient(server.url, timeout_s=120) as client:
            outcomes = await client.add_documents([folder])
            assert [o["status"] for o in outcomes] == ["added"]  # a folder gives its supported files
            listed = await client.documents()
            answer = await client.ask("Which SQLite version added WAL mode?")
            assert "3.7.0" in answer["answer"]
            await client.remove_document(listed[0]["id"])
            assert await client.documents() == []
            with pytest.raises(FathomError, match="HTTP 404"):
                await client.remove_document(listed[0]["id"])

    try:
        asyncio.run(use())
    finally:
        server.stop()
        store.close()
