"""One contract for every GraphStore and for the source memory: the embedded stores always,
the servers (Neo4j, Qdrant) whenever FATHOM_NEO4J__URI / FATHOM_QDRANT__URL name one."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from fathom_ray.adapters.edge_documents import EdgeDocumentStore
from fathom_ray.adapters.edge_memory import EdgeSourceMemory
from fathom_ray.adapters.memory_points import SourceMemory
from fathom_ray.adapters.memory_stores import open_source_memory
from fathom_ray.adapters.neo4j_graph import Neo4jGraphStore
from fathom_ray.adapters.qdrant_memory import QdrantSourceMemory
from fathom_ray.adapters.sqlite_graph import SqliteGraphStore
from fathom_ray.adapters.state_codec import state_to_json
from fathom_ray.documents.models import Chunk, Document
from fathom_ray.errors import StoreError
from fathom_ray.models import (
    Candidate,
    CandidateOrigin,
    ChecklistItem,
    Event,
    EventType,
    Fact,
    ResearchRequest,
    Usage,
)
from fathom_ray.ports import GraphStore
from fathom_ray.research.fact_ledger import FactLedger
from fathom_ray.research.frontier import EntryState, SessionFrontier
from fathom_ray.research.session_state import COMPLETE, SessionState
from fathom_ray.settings import Neo4jSettings, QdrantSettings, load_settings

pytestmark = pytest.mark.integration
GRAPH_BACKENDS = [
    "sqlite",
    pytest.param(
        "neo4j",
        marks=pytest.mark.skipif(not os.environ.get("FATHOM_NEO4J__URI"), reason="no Neo4j server named"),
    ),
]
MEMORY_BACKENDS = [
    "edge",
    "local",
    pytest.param(
        "server",
        marks=pytest.mark.skipif(not os.environ.get("FATHOM_QDRANT__URL"), reason="no Qdrant server named"),
    ),
]


@pytest.fixture(params=GRAPH_BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GraphStore]:
    opened: GraphStore = (
        SqliteGraphStore(tmp_path / "graph.sqlite")
        if request.param == "sqlite"
        else Neo4jGraphStore(
            load_settings().neo4j if os.environ.get("FATHOM_NEO4J__URI") else Neo4jSettings()
        )
    )
    yield opened
    opened.close()


def test_session_state_round_trips(store: GraphStore) -> None:
    sid = f"c-{uuid.uuid4().hex[:8]}"
    request = ResearchRequest("a goal", "quick", ("http://www.sqlite.test/wal.html",), owner="alice")
    state = SessionState(sid, request)
    store.save_session(state)
    state.round, state.status, state.judge = 2, COMPLETE, "evidence (BM25)"
    state.checklist = [ChecklistItem("Q1", "What is WAL?", True, ("F1",))]
    state.fact_ledger = FactLedger(
        [Fact("F1", "WAL is a journal.", "WAL", "http://www.sqlite.test/wal.html", ("Q1",))]
    )
    state.usage = Usage(calls=3, prompt_tokens=10)
    store.save_session(state)
    assert store.load_session(sid) == state  # the whole value, as saved last
    listed = next(s for s in store.list_sessions() if s.id == sid)
    assert (listed.goal, listed.status, listed.facts, listed.owner) == ("a goal", "complete", 1, "alice")
    assert listed.depth == "quick"  # History's depth column
    assert listed.updated > 0
    assert store.load_session("no-such-session") is None


def test_a_session_stored_by_an_earlier_version_loads_with_its_facts(tmp_path: Path) -> None:
    # earlier versions kept the fact ledger under "ledger"; it is read and listed as before
    store = SqliteGraphStore(tmp_path / "graph.sqlite")
    state = SessionState("old-1", ResearchRequest("a goal", "quick"))
    state.fact_ledger = FactLedger(
        [Fact("F1", "WAL is a journal.", "WAL", "http://www.sqlite.test/wal.html")]
    )
    data = state_to_json(state)
    data["ledger"] = data.pop("fact_ledger")
    with sqlite3.connect(tmp_path / "graph.sqlite") as db:
        db.execute(
            "INSERT INTO sessions VALUES (?, ?, ?, ?, ?)",
            ("old-1", "a goal", "running", 1.0, json.dumps(data)),
        )
    assert store.load_session("old-1") == state
    assert next(s for s in store.list_sessions() if s.id == "old-1").facts == 1
    store.close()


def test_events_append_once_in_order(store: GraphStore) -> None:
    sid = f"c-{uuid.uuid4().hex[:8]}"
    events = [Event(sid, i, EventType.ROUND_END, {"round": i}) for i in (1, 2, 3)]
    store.append_events(sid, events[:2])
    store.append_events(sid, events[1:])  # a resumed session re-sends what it is unsure of
    assert store.events(sid) == events
    assert store.events(sid, after_seq=2) == events[2:]


def test_frontier_and_fact_graph(store: GraphStore) -> None:
    sid = f"c-{uuid.uuid4().hex[:8]}"
    frontier = SessionFrontier(50)
    frontier.add([Candidate("http://www.sqlite.test/wal.html", CandidateOrigin.SEARCH, "WAL", "s", "q", 2)])
    frontier.mark("http://www.sqlite.test/wal.html", EntryState.FAILED, "timeout")
    store.save_frontier(sid, frontier)
    assert store.load_frontier(sid) == frontier
    url = f"http://www.sqlite.test/{sid}.html"
    fact = Fact("F1", "WAL came in 3.7.0", "3.7.0 added WAL", url, ("Q1",), 0.9, "sqlite", (), ())
    store.record_facts(sid, [ChecklistItem("Q1", "When did WAL come?", True)], [fact])
    assert store.facts_of_page(url) == [fact]


def test_a_deleted_session_leaves_nothing_behind(store: GraphStore) -> None:
    sid, kept = f"c-{uuid.uuid4().hex[:8]}", f"c-{uuid.uuid4().hex[:8]}"
    url = f"http://www.sqlite.test/{sid}.html"
    for session in (sid, kept):
        store.save_session(SessionState(session, ResearchRequest("a goal", "quick")))
        store.append_events(session, [Event(session, 1, EventType.ROUND_END, {"round": 1})])
        store.save_frontier(session, SessionFrontier(50))
        fact = Fact("F1", "WAL came in 3.7.0", "3.7.0 added WAL", url, ("Q1",))
        store.record_facts(session, [ChecklistItem("Q1", "When did WAL come?", True)], [fact])
    assert store.delete_session(sid)
    assert store.load_session(sid) is None
    assert store.events(sid) == []
    assert store.load_frontier(sid) is None
    assert sid not in {s.id for s in store.list_sessions()}
    assert len(store.facts_of_page(url)) == 1  # the other session's fact of the page stays
    assert store.load_session(kept) is not None
    assert store.events(kept) != []
    assert not store.delete_session(sid)  # gone already


@pytest.fixture(params=MEMORY_BACKENDS)
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SourceMemory]:
    """Qdrant Edge (the embedded default), qdrant-client's local mode (standing in for a server:
    the same client calls), and a named server."""
    opened: SourceMemory
    if request.param == "edge":
        opened = EdgeSourceMemory(tmp_path / "memory", dimension=3)
    else:
        settings = (
            load_settings().qdrant
            if request.param == "server"
            else QdrantSettings(collection=f"t{uuid.uuid4().hex[:8]}")
        )
        opened = QdrantSourceMemory(settings, tmp_path / "qdrant", dimension=3)
    opened.start()
    yield opened
    opened.close()


def test_domain_productivity_is_beta_smoothed(memory: SourceMemory) -> None:
    assert memory.domain_qualities(["sqlite.test"]) == {"sqlite.test": 0.5}
    memory.record_visit("http://www.sqlite.test/a.html", 1.0)  # counted under its domain, sqlite.test
    memory.record_visit("http://sqlite.test/b.html", 1.0)
    assert memory.domain_qualities(["sqlite.test"])["sqlite.test"] == pytest.approx(3 / 4)


def test_suggestions_weigh_similarity_by_domain_quality(memory: SourceMemory) -> None:
    memory.remember_page("http://good.test/p", "good page", [1.0, 0.0, 0.0], 2)
    memory.remember_page("http://poor.test/p", "poor page", [0.9, 0.1, 0.0], 0)
    memory.remember_page("http://off.test/p", "unrelated", [0.0, 0.0, 1.0], 1)
    for _ in range(3):
        memory.record_visit("http://good.test/x", 1.0)
        memory.record_visit("http://poor.test/x", 0.0)
    suggestions = memory.suggest([1.0, 0.0, 0.0], limit=5)
    assert [s.url for s in suggestions] == [
        "http://good.test/p",
        "http://poor.test/p",
    ]  # unrelated is left out
    assert suggestions[0].score > suggestions[1].score
    assert (
        memory.suggest([1.0, 0.0, 0.0], limit=5, exclude=["http://good.test/p"])[0].url
        == "http://poor.test/p"
    )


def test_the_embedded_memory_persists_across_owners(tmp_path: Path) -> None:
    first = EdgeSourceMemory(tmp_path / "memory", dimension=3)
    first.record_visit("http://a.test/", 1.0)
    first.close()
    second = EdgeSourceMemory(tmp_path / "memory", dimension=3)
    assert second.domain_qualities(["a.test"])["a.test"] == pytest.approx(2 / 3)
    second.close()


def test_an_earlier_versions_memory_is_moved_once_and_kept(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path / "data")
    old = QdrantSourceMemory(settings.qdrant, tmp_path / "data" / "qdrant", dimension=3)
    old.record_visit("http://good.test/x", 1.0)
    old.remember_page("http://good.test/p", "good page", [1.0, 0.0, 0.0], 2)
    old.close()
    moved = open_source_memory(settings, dimension=3)
    try:
        assert isinstance(moved, EdgeSourceMemory)
        assert moved.domain_qualities(["good.test"])["good.test"] == pytest.approx(2 / 3)
        assert [s.url for s in moved.suggest([1.0, 0.0, 0.0], limit=3)] == ["http://good.test/p"]
    finally:
        moved.close()
    assert not (tmp_path / "data" / "qdrant").exists()
    assert (tmp_path / "data" / "qdrant.local-mode" / "meta.json").is_file()
    again = open_source_memory(settings, dimension=3)  # once: nothing left to move, nothing lost
    assert again.domain_qualities(["good.test"])["good.test"] == pytest.approx(2 / 3)
    again.close()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "disk"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=200m", "tmpfs", str(folder)], capture_output=True, check=False
    )
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (no privilege to)")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False, timeout=30)


def test_the_embedded_stores_refuse_a_write_on_a_full_disk_instead_of_dying(small_disk: Path) -> None:
    """Qdrant Edge writes through memory maps: on a full disk an unchecked write is a SIGBUS that
    kills the process. Each write checks the disk first and says why it cannot."""
    memory = EdgeSourceMemory(small_disk / "memory", dimension=3)
    documents = EdgeDocumentStore(small_disk / "docstore", 3, "docs")
    memory.record_visit("http://a.test/", 1.0)
    chunk = Chunk("d1", 0, "The write-ahead log.", "", 0, 20)
    documents.put(Document("d1", "WAL", "/wal.txt", "0" * 64, 1, 20), [chunk], [[1.0, 0.0, 0.0]])
    filler = small_disk / "filler"
    with filler.open("wb") as out, contextlib.suppress(OSError):
        while True:
            out.write(bytes(4 * 2**20))
            out.flush()
    with pytest.raises(StoreError, match="No space left"):
        memory.remember_page("http://a.test/p", "page", [1.0, 0.0, 0.0], 1)
    with pytest.raises(StoreError, match="No space left"):
        documents.put(Document("d2", "Two", "/two.txt", "1" * 64, 1, 20), [chunk], [[1.0, 0.0, 0.0]])
    assert memory.domain_qualities(["a.test"])["a.test"] == pytest.approx(2 / 3)  # reads go on
    assert [d.id for d in documents.documents()] == ["d1"]
    filler.unlink()
    memory.remember_page("http://a.test/p", "page", [1.0, 0.0, 0.0], 1)  # room again: writes go on
    assert [s.url for s in memory.suggest([1.0, 0.0, 0.0], limit=1)] == ["http://a.test/p"]
    memory.close()
    documents.close()
