"""The embedded graph store: SQLite in WAL mode, safe to open from several actors at once."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fathom_ray.adapters.state_codec import (
    fact_from_json,
    fact_to_json,
    frontier_from_json,
    frontier_to_json,
    state_from_json,
    state_to_json,
)
from fathom_ray.errors import StoreError
from fathom_ray.models import ChecklistItem, Event, EventType, Fact
from fathom_ray.research.frontier import SessionFrontier
from fathom_ray.research.session_state import SessionState, SessionSummary

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, goal TEXT NOT NULL, status TEXT NOT NULL, updated REAL NOT NULL,
    state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    session_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (session_id, seq));
CREATE TABLE IF NOT EXISTS frontier (session_id TEXT PRIMARY KEY, state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS questions (
    session_id TEXT NOT NULL, id TEXT NOT NULL, question TEXT NOT NULL, satisfied INTEGER NOT NULL,
    PRIMARY KEY (session_id, id));
CREATE TABLE IF NOT EXISTS pages (url TEXT PRIMARY KEY, last_session TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS facts (
    session_id TEXT NOT NULL, id TEXT NOT NULL, source_url TEXT NOT NULL, fact TEXT NOT NULL,
    PRIMARY KEY (session_id, id));
CREATE INDEX IF NOT EXISTS facts_by_page ON facts (source_url);
"""


class SqliteGraphStore:
    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, timeout=30, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(SCHEMA)
        except sqlite3.Error as e:
            raise StoreError("sqlite", f"cannot open {path}: {e}") from e

    def _write(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> None:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                for sql, args in statements:
                    self._db.execute(sql, args)
                self._db.execute("COMMIT")
            except sqlite3.Error as e:
                self._db.execute("ROLLBACK")
                raise StoreError("sqlite", str(e)) from e

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return list(self._db.execute(sql, args).fetchall())
            except sqlite3.Error as e:
                raise StoreError("sqlite", str(e)) from e

    def save_session(self, state: SessionState) -> None:
        self._write(
            [
                (
                    "INSERT INTO sessions VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                    "goal=excluded.goal, status=excluded.status, updated=excluded.updated, "
                    "state=excluded.state",
                    (
                        state.session_id,
                        state.request.goal,
                        state.status.value,
                        time.time(),
                        json.dumps(state_to_json(state)),
                    ),
                )
            ]
        )

    def load_session(self, session_id: str) -> SessionState | None:
        rows = self._read("SELECT state FROM sessions WHERE id = ?", (session_id,))
        return state_from_json(json.loads(rows[0][0])) if rows else None

    def list_sessions(self) -> list[SessionSummary]:
        rows = self._read(
            "SELECT id, goal, status, "
            "(SELECT count(*) FROM json_each(sessions.state, '$.pages') "
            "WHERE json_extract(value, '$.status') = 'ok'), "
            "coalesce(json_array_length(sessions.state, '$.fact_ledger.facts'), "
            "json_array_length(sessions.state, '$.ledger.facts')), updated, "
            "coalesce(json_extract(sessions.state, '$.request.owner'), ''), "
            "coalesce(json_extract(sessions.state, '$.request.depth'), '') "
            "FROM sessions ORDER BY updated DESC"
        )
        return [
            SessionSummary(
                r[0], r[1], r[2], int(r[3] or 0), int(r[4] or 0), float(r[5]), str(r[6]), str(r[7])
            )
            for r in rows
        ]

    def append_events(self, session_id: str, events: Sequence[Event]) -> None:
        self._write(
            [
                (
                    "INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?)",
                    (session_id, e.seq, e.type.value, json.dumps(dict(e.data))),
                )
                for e in events
            ]
        )

    def events(self, session_id: str, after_seq: int = 0) -> list[Event]:
        rows = self._read(
            "SELECT seq, type, data FROM events WHERE session_id = ? AND seq > ? ORDER BY seq",
            (session_id, after_seq),
        )
        return [Event(session_id, int(seq), EventType(kind), json.loads(data)) for seq, kind, data in rows]

    def save_frontier(self, session_id: str, frontier: SessionFrontier) -> None:
        self._write(
            [
                (
                    "INSERT INTO frontier VALUES (?, ?) "
                    "ON CONFLICT(session_id) DO UPDATE SET state=excluded.state",
                    (session_id, json.dumps(frontier_to_json(frontier))),
                )
            ]
        )

    def load_frontier(self, session_id: str) -> SessionFrontier | None:
        rows = self._read("SELECT state FROM frontier WHERE session_id = ?", (session_id,))
        return frontier_from_json(json.loads(rows[0][0])) if rows else None

    def record_facts(
        self, session_id: str, questions: Sequence[ChecklistItem], facts: Sequence[Fact]
    ) -> None:
        statements: list[tuple[str, Sequence[Any]]] = [
            (
                "INSERT OR REPLACE INTO questions VALUES (?, ?, ?, ?)",
                (session_id, q.id, q.question, int(q.satisfied)),
            )
            for q in questions
        ]
        for fact in facts:
            statements.append(("INSERT OR REPLACE INTO pages VALUES (?, ?)", (fact.source_url, session_id)))
            statements.append(
                (
                    "INSERT OR REPLACE INTO facts VALUES (?, ?, ?, ?)",
                    (session_id, fact.id, fact.source_url, json.dumps(fact_to_json(fact))),
                )
            )
        self._write(statements)

    def delete_session(self, session_id: str) -> bool:
        known = bool(self._read("SELECT 1 FROM sessions WHERE id = ?", (session_id,)))
        self._write(
            [("DELETE FROM sessions WHERE id = ?", (session_id,))]
            + [
                (f"DELETE FROM {table} WHERE session_id = ?", (session_id,))  # noqa: S608 (our names)
                for table in ("events", "frontier", "questions", "facts")
            ]
        )
        return known

    def facts_of_page(self, url: str) -> list[Fact]:
        rows = self._read("SELECT fact FROM facts WHERE source_url = ? ORDER BY session_id, id", (url,))
        return [fact_from_json(json.loads(r[0])) for r in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()
