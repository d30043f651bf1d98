"""`fathom docs add | ls | search | rm` as a user runs them, on the real store and embedder."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fathom_ray.adapters.document_stores import open_document_store
from fathom_ray.adapters.llm_backends import ThreadedEmbedder
from fathom_ray.adapters.qdrant_documents import QdrantDocumentStore
from fathom_ray.cli import app
from fathom_ray.documents.ingest import add_paths
from fathom_ray.documents.models import Document
from fathom_ray.settings import EmbedderSettings, load_settings

pytestmark = pytest.mark.integration
runner = CliRunner()


def test_add_list_search_and_remove(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FATHOM_DATA_DIR", str(tmp_path / "data"))
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "wal.md").write_text(
        "# Journaling\n\n## WAL\n\nThe write-ahead log lets readers run beside one writer."
    )
    (folder / "garden.txt").write_text("Tomatoes need full sun and regular watering.")
    (folder / "empty.html").write_text("")
    added = runner.invoke(app, ["docs", "add", str(folder)])
    assert added.exit_code == 0, added.output
    assert added.output.count("added") == 2
    flat = " ".join(added.output.split())  # rich wraps long lines
    assert re.search(r"failed \S*empty\.html: empty file", flat.replace("/ ", "/"))
    assert re.search(r"embedded and stored 2 chunks in [\d.]+ s \([\d.]+ chunks/s\)", flat)

    again = runner.invoke(app, ["docs", "add", str(folder / "wal.md")])
    assert "unchanged" in again.output

    listed = runner.invoke(app, ["docs", "ls"])
    assert listed.exit_code == 0, listed.output
    assert "Journaling" in listed.output
    assert "garden" in listed.output
    wal_id = next(m.group(1) for m in re.finditer(r"│ ([0-9a-f]{12}) +│ Journaling", listed.output))

    found = runner.invoke(app, ["docs", "search", "readers beside a writer", "--limit", "1"])
    assert found.exit_code == 0, found.output
    assert "1. Journaling" in found.output
    assert f"doc://{wal_id}#0" in found.output

    removed = runner.invoke(app, ["docs", "rm", wal_id, "nosuchid"])
    assert removed.exit_code == 1  # one of them did not exist: said, and the other removed anyway
    assert f"removed {wal_id}" in removed.output
    assert "no such document nosuchid" in removed.output
    assert "Journaling" not in runner.invoke(app, ["docs", "ls"]).output


def test_nothing_to_add_and_a_bad_mode_are_clear_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FATHOM_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "only.bin").write_bytes(b"\x00")
    nothing = runner.invoke(app, ["docs", "add", str(tmp_path / "only.bin")])
    assert nothing.exit_code == 1
    assert "unsupported file type .bin" in nothing.output
    bad = runner.invoke(app, ["docs", "search", "x", "--mode", "fuzzy"])
    assert bad.exit_code == 2
    assert "--mode must be one of hybrid, dense, sparse" in bad.output
    empty = runner.invoke(app, ["docs", "search", "anything"])
    assert "no documents" in empty.output


def test_ask_answers_with_cited_passages_and_a_trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FATHOM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("FATHOM_LLM__BACKEND", "evidence")
    nothing = runner.invoke(app, ["ask", "What is WAL?"])
    assert nothing.exit_code == 2
    assert "no documents to ask" in nothing.output
    (tmp_path / "wal.md").write_text("# WAL\n\nWAL mode was added to SQLite in version 3.7.0.\n")
    assert runner.invoke(app, ["docs", "add", str(tmp_path / "wal.md")]).exit_code == 0
    answered = runner.invoke(app, ["ask", "Which SQLite version added WAL mode?", "--json"])
    assert answered.exit_code == 0, answered.output
    payload = json.loads(answered.output[answered.output.index("{") :])
    assert payload["answer"].startswith("3.7.0 [1]")
    assert [(a["item"], a["answer"], a["passages"], a["status"]) for a in payload["answers"]] == [
        ("Q1", "3.7.0", [1], "answered")
    ]
    assert payload["citations"][0]["evidence"] == "WAL mode was added to SQLite in version 3.7.0."
    assert payload["passages"][0].startswith("doc://")
    assert set(payload["stages_s"]) >= {"plan", "search", "rerank", "answer"}
    too_long = runner.invoke(app, ["ask", "x" * 1001])
    assert too_long.exit_code == 2
    assert "question: is 1001 characters" in too_long.output


def test_killing_an_ingestion_leaves_nothing_half_ingested(tmp_path: Path) -> None:
    """`fathom docs add` killed (SIGKILL) while it works: the store holds whole documents only, and
    adding the folder again completes it."""
    data = tmp_path / "data"
    folder = tmp_path / "many"
    folder.mkdir()
    paragraph = "The write-ahead log keeps readers and the writer apart while a transaction commits. " * 4
    for n in range(24):
        (folder / f"doc{n:02d}.md").write_text(f"# Document {n}\n\n" + "\n\n".join([paragraph] * 12))
    fathom = Path(sys.executable).with_name("fathom")
    env = {**os.environ, "FATHOM_DATA_DIR": str(data)}
    with subprocess.Popen(
        [str(fathom), "docs", "add", str(folder)], env=env, stdout=subprocess.DEVNULL
    ) as run:
        try:
            run.wait(timeout=6)
        except subprocess.TimeoutExpired:
            run.send_signal(signal.SIGKILL)
            run.wait(timeout=30)
    store = open_document_store(load_settings(data_dir=data))
    try:
        kept = store.documents()
        assert store.chunk_count() == sum(d.chunks for d in kept)  # no chunk without its whole document
    finally:
        store.close()
    again = subprocess.run(
        [str(fathom), "docs", "add", str(folder)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert again.returncode == 0, again.stdout + again.stderr
    store = open_document_store(load_settings(data_dir=data))
    try:
        assert len(store.documents()) == 24
        assert store.chunk_count() == sum(d.chunks for d in store.documents())
    finally:
        store.close()


def test_a_store_of_the_earlier_version_is_moved_once_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    settings = load_settings(data_dir=data)
    legacy = QdrantDocumentStore(settings.qdrant, data / "documents", 384, settings.docs.collection)
    embedder = ThreadedEmbedder(EmbedderSettings())
    asyncio.run(add_paths(corpus(tmp_path / "notes"), legacy, embedder, settings.docs))
    half = Document("half", "Half", "/half.txt", "0" * 64, 1, 10)
    legacy._write_record(half, complete=False)  # an add killed midway in the old store: not moved
    before = legacy.documents()
    legacy.close()
    assert len(before) == 2

    monkeypatch.setenv("FATHOM_DATA_DIR", str(data))
    listed = runner.invoke(app, ["docs", "ls"])
    assert listed.exit_code == 0, listed.output
    assert "moving the document store" in listed.stderr
    assert "moved 2 documents" in listed.stderr
    assert "Journaling" in listed.stdout
    assert not (data / "documents").exists()
    assert (data / "documents.local-mode" / "meta.json").is_file()  # kept until the user deletes it

    said: list[str] = []
    store = open_document_store(load_settings(data_dir=data), said.append)
    try:
        assert said == []  # once
        assert store.documents() == before
        assert store.chunk_count() == sum(d.chunks for d in before)
        query = "readers beside a writer"
        hits = store.search(query, asyncio.run(embedder.embed([query]))[0], 1)
        assert hits[0].title == "Journaling"  # the copied vectors and sparse terms search as before
    finally:
        store.close()


def corpus(folder: Path) -> list[Path]:
    folder.mkdir()
    (folder / "wal.md").write_text("# Journaling\n\nThe write-ahead log lets readers run beside one writer.")
    (folder / "garden.txt").write_text("Tomatoes need full sun and regular watering.")
    return [folder]
