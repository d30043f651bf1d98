"""The cluster graph store: Neo4j through the official driver, in Cypher.

Sessions ASK questions and FOUND facts; facts CITE pages. Session state,
events and frontier state are kept as JSON properties so a restarted actor
resumes from them, as with the embedded SQLite store.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from neo4j import Driver, GraphDatabase
from neo4j.exceptions import Neo4jError, ServiceUnavailable

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
from fathom_ray.settings import Neo4jSettings

CONSTRAINTS = (
    "CREATE CONSTRAINT IF NOT EXISTS FOR (s:Session) REQUIRE s.id IS UNIQUE",
    "CREATE CONSTRAINT IF NOT EXISTS FOR (p:Page) REQUIRE p.url IS UNIQUE",
    "CREATE INDEX IF NOT EXISTS FOR (e:Event) ON (e.session_id, e.seq)",
)


class Neo4jGraphStore:
    def __init__(self, settings: Neo4jSettings) -> None:
        if not settings.uri:
            raise StoreError("neo4j", "FATHOM_NEO4J__URI is not set")
        password = settings.password.get_secret_value() if settings.password else ""
        try:
            self._driver: Driver = GraphDatabase.driver(settings.uri, auth=(settings.user, password))
            for statement in CONSTRAINTS:
                self._run(statement)
        except (Neo4jError, ServiceUnavailable, ValueError) as e:
            raise StoreError("neo4j", str(e)) from e

    def _run(self, query: str, **params: Any) -> list[dict[str, Any]]:
        try:
            records, _, _ = self._driver.execute_query(query, params)
        except (Neo4jError, ServiceUnavailable) as e:
            raise StoreError("neo4j", str(e)) from e
        return [record.data() for record in records]

    def save_session(self, state: SessionState) -> None:
        self._run(
            "MERGE (s:Session {id: $id}) SET s.goal = $goal, s.status = $status, s.updated = $updated, "
            "s.state = $state, s.pages = $pages, s.facts = $facts, s.owner = $owner, "
            "s.depth = $depth",
            owner=state.request.owner,
            depth=state.request.depth,
            pages=state.pages_fetched,
            facts=len(state.fact_ledger.facts),
            id=state.session_id,
            goal=state.request.goal,
            status=state.status.value,
            updated=time.time(),
            state=json.dumps(state_to_json(state)),
        )

    def load_session(self, session_id: str) -> SessionState | None:
        rows = self._run("MATCH (s:Session {id: $id}) RETURN s.state AS state", id=session_id)
        return state_from_json(json.loads(rows[0]["state"])) if rows and rows[0]["state"] else None

    def list_sessions(self) -> list[SessionSummary]:
        rows = self._run(
            "MATCH (s:Session) RETURN s.id AS id, s.goal AS goal, s.status AS status, "
            "coalesce(s.pages, 0) AS pages, coalesce(s.facts, 0) AS facts, s.updated AS updated, "
            "coalesce(s.owner, '') AS owner, coalesce(s.depth, '') AS depth "
            "ORDER BY s.updated DESC"
        )
        return [
            SessionSummary(
                r["id"],
                r["goal"],
                r["status"],
                int(r["pages"]),
                int(r["facts"]),
                float(r["updated"]),
                str(r["owner"]),
                str(r["depth"]),
            )
            for r in rows
        ]

    def append_events(self, session_id: str, events: Sequence[Event]) -> None:
        if events:
            self._run(
                "UNWIND $events AS e MERGE (ev:Event {session_id: $sid, seq: e.seq}) "
                "ON CREATE SET ev.type = e.type, ev.data = e.data",
                sid=session_id,
                events=[
                    {"seq": e.seq, "type": e.type.value, "data": json.dumps(dict(e.data))} for e in events
                ],
            )

    def events(self, session_id: str, after_seq: int = 0) -> list[Event]:
        rows = self._run(
            "MATCH (ev:Event {session_id: $sid}) WHERE ev.seq > $after "
            "RETURN ev.seq AS seq, ev.type AS type, ev.data AS data ORDER BY ev.seq",
            sid=session_id,
            after=after_seq,
        )
        return [Event(session_id, int(r["seq"]), EventType(r["type"]), json.loads(r["data"])) for r in rows]

    def save_frontier(self, session_id: str, frontier: SessionFrontier) -> None:
        self._run(
            "MERGE (f:Frontier {session_id: $sid}) SET f.state = $state",
            sid=session_id,
            state=json.dumps(frontier_to_json(frontier)),
        )

    def load_frontier(self, session_id: str) -> SessionFrontier | None:
        rows = self._run("MATCH (f:Frontier {session_id: $sid}) RETURN f.state AS state", sid=session_id)
        return frontier_from_json(json.loads(rows[0]["state"])) if rows else None

    def record_facts(
        self, session_id: str, questions: Sequence[ChecklistItem], facts: Sequence[Fact]
    ) -> None:
        self._run(
            "MERGE (s:Session {id: $sid}) WITH s UNWIND $questions AS q "
            "MERGE (n:Question {session_id: $sid, id: q.id}) "
            "SET n.question = q.question, n.satisfied = q.satisfied "
            "MERGE (s)-[:ASKS]->(n)",
            sid=session_id,
            questions=[{"id": q.id, "question": q.question, "satisfied": q.satisfied} for q in questions],
        )
        self._run(
            "MERGE (s:Session {id: $sid}) WITH s UNWIND $facts AS f "
            "MERGE (p:Page {url: f.url}) MERGE (n:Fact {session_id: $sid, id: f.id}) SET n.data = f.data "
            "MERGE (n)-[:CITES]->(p) MERGE (s)-[:FOUND]->(n)",
            sid=session_id,
            facts=[{"id": f.id, "url": f.source_url, "data": json.dumps(fact_to_json(f))} for f in facts],
        )

    def delete_session(self, session_id: str) -> bool:
        rows = self._run("MATCH (s:Session {id: $id}) DETACH DELETE s RETURN count(*) AS n", id=session_id)
        self._run(
            "MATCH (n) WHERE (n:Event OR n:Frontier OR n:Question OR n:Fact) AND n.session_id = $id "
            "DETACH DELETE n",
            id=session_id,
        )
        return bool(rows and rows[0]["n"])

    def facts_of_page(self, url: str) -> list[Fact]:
        rows = self._run(
            "MATCH (n:Fact)-[:CITES]->(:Page {url: $url}) RETURN n.data AS data ORDER BY n.session_id, n.id",
            url=url,
        )
        return [fact_from_json(json.loads(r["data"])) for r in rows]

    def close(self) -> None:
        self._driver.close()
