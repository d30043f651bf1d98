"""Whole sessions on local Ray and the offline web, with the scripted judge (orchestration)."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import threading
import time
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray

from actors.directory import OPTIONAL_PARTS
from actors.engine import Engine, run_session, run_session_here, start_engine
from actors.session import SessionService
from fathom_ray.errors import SessionError
from fathom_ray.models import Event, EventType, ResearchRequest
from fathom_ray.research.fact_ledger import evidence_in
from fathom_ray.research.presets import PRESETS
from fathom_ray.research.report_html import render_html
from fathom_ray.research.session_state import SessionState
from fathom_ray.settings import load_settings
from fathom_ray.testweb import server as offline_web
from fathom_ray.testweb.attacks import FORBIDDEN
from fathom_ray.text.untrusted import unfit_for_fact
from fathom_ray.web.network import NetworkMap
from fathom_ray.web.urls import domain_of
from tests.e2e.conftest import e2e_settings
from tests.ray_state import kill_chromium
from tests.scripted_judge import ScriptedJudge

pytestmark = [pytest.mark.e2e]
NONSENSE = "zzqx vvkk wwjj"  # a goal the offline search finds nothing for
GOAL = "Which Python version introduced assignment expressions, and who wrote the PEP?"


def session(
    engine: Engine, request: ResearchRequest, on_events: Any = None
) -> tuple[SessionState, list[Event]]:
    seen: list[Event] = []

    def collect(events: list[Event]) -> None:
        seen.extend(events)
        if on_events is not None:
            on_events(events)

    _, outcome = run_session(engine, request, f"t-{uuid.uuid4().hex[:8]}", collect)
    return outcome.state, seen


@contextlib.contextmanager
def questions_that_find_nothing(judge: Any) -> Iterator[None]:
    """The scripted judge's checklist and new queries find nothing on the offline web, for a while."""
    ray.get(judge.configure.remote(satisfy=False, questions=["zzqx vvkk"], queries=["qqzx wwvk"]))
    try:
        yield
    finally:
        defaults = ScriptedJudge()
        ray.get(judge.configure.remote(questions=defaults.questions, queries=defaults.queries))


def check_facts_cite_their_pages(state: SessionState) -> None:
    texts = {p.url: p.text for p in state.pages}
    for fact in state.fact_ledger.facts:
        assert fact.source_url in texts
        assert evidence_in(fact.evidence, texts[fact.source_url])


def test_a_quick_session_runs_every_stage(scripted_engine: tuple[Engine, Any]) -> None:
    engine, judge = scripted_engine
    ray.get(judge.configure.remote(satisfy=False))
    state, events = session(engine, ResearchRequest(GOAL, depth="quick"))
    assert state.status == "complete"
    assert state.stop_reason == "max pages reached"
    assert state.pages_fetched == 3  # the quick preset's page budget, never more
    kinds = [e.type for e in events]
    for kind in (
        EventType.DECOMPOSE,
        EventType.SEARCHING,
        EventType.RANKED,
        EventType.FETCHING,
        EventType.ANALYZED,
        EventType.ROUND_END,
        EventType.COMPOSING,
        EventType.COMPLETE,
    ):
        assert kind in kinds, kind
    assert kinds[-1] is EventType.COMPLETE
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert state.fact_ledger.facts
    assert state.fact_ledger.rejected >= 1  # the scripted judge's invented quote was kept out
    check_facts_cite_their_pages(state)
    assert "## Findings" in state.report_markdown
    assert "## Sources" in state.report_markdown
    # the judge's answers, held to their evidence: the faithful one kept, the invented one dropped
    assert state.report_markdown.startswith(f"# {GOAL}\n\n## Answer\n")
    found = [a for a in state.answers if a.status == "answered"]
    assert len(found) == 1
    evidence = {f.id: f.evidence for f in state.fact_ledger.facts}
    assert all(" ".join(found[0].answer.split()) in " ".join(evidence[i].split()) for i in found[0].fact_ids)
    assert state.answers_dropped >= 1
    assert len(state.answers) == len(state.checklist) - 1  # one per part of the goal
    assert next(i for i in state.checklist if i.id == found[0].item_id).satisfied  # answered: ticked
    complete = events[-1].data["answers"]
    assert isinstance(complete, list)
    assert [a["item"] for a in complete if isinstance(a, dict)] == [a.item_id for a in state.answers]
    round_end = next(e for e in events if e.type is EventType.ROUND_END)
    assert set(round_end.data) == {"round", "round_facts", "total_facts", "total_pages"}


def test_a_settled_checklist_stops_the_session(scripted_engine: tuple[Engine, Any]) -> None:
    engine, judge = scripted_engine
    ray.get(judge.configure.remote(satisfy=True))
    state, events = session(engine, ResearchRequest(GOAL, depth="focused"))
    assert state.stop_reason == "checklist satisfied"
    assert all(i.satisfied for i in state.checklist)
    # settled after its first batch, the session reads only what one pass would still read: the
    # goal's own results within the budget, with no discovery search after the first batch
    first_fetch = next(e.seq for e in events if e.type is EventType.FETCHING)
    assert not [e for e in events if e.type is EventType.SEARCHING and e.seq > first_fetch]
    assert len([e for e in events if e.type is EventType.RANKED]) == 1
    assert state.pages_fetched <= PRESETS["focused"].max_pages


def test_an_exhausted_frontier_stops_the_session(scripted_engine: tuple[Engine, Any]) -> None:
    engine, judge = scripted_engine
    with questions_that_find_nothing(judge):
        state, events = session(engine, ResearchRequest(NONSENSE, depth="quick"))
    assert state.stop_reason == "frontier exhausted"
    assert state.pages_fetched == 0
    assert "No facts with verifiable evidence" in state.report_markdown
    assert any(e.type is EventType.SEARCHING for e in events)


def test_the_time_budget_holds(scripted_engine: tuple[Engine, Any]) -> None:
    engine, judge = scripted_engine
    ray.get(judge.configure.remote(satisfy=False))
    state, events = session(engine, ResearchRequest(GOAL, depth="standard", time_budget_s=5))
    assert state.stop_reason == "time budget reached"
    assert state.pages_fetched < PRESETS["standard"].max_pages  # time, not the page budget, ended it
    assert events[-1].type is EventType.COMPLETE  # and the findings were still composed


def test_thin_frontier_triggers_discovery(scripted_engine: tuple[Engine, Any]) -> None:
    engine, judge = scripted_engine
    before = ray.get(judge.counts.remote()).get("discover_queries", 0)
    # exhaustive batches are 12 pages: the ~24 search results of the set-up are under 3 x 12
    state, events = session(engine, ResearchRequest(GOAL, depth="exhaustive", max_pages=2))
    assert state.pages_fetched <= 2
    assert ray.get(judge.counts.remote())["discover_queries"] > before
    searched = [q for e in events if e.type is EventType.SEARCHING for q in e.data["queries"]]  # type: ignore[union-attr]
    assert "assignment expressions walrus operator" in searched


def test_a_second_session_is_offered_the_first_sessions_sources(scripted_engine: tuple[Engine, Any]) -> None:
    engine, judge = scripted_engine
    # The first session reads one page its searches cannot find (its goal and questions find
    # nothing): the release notes of 3.8, which the offline search does not rank in the second
    # goal's top results, so only memory can bring it to the second session at set-up.
    remembered = "http://docs.python.test/3.11/whatsnew/3.8.html"
    with questions_that_find_nothing(judge):
        first, _ = session(engine, ResearchRequest(NONSENSE, depth="glance", seeds=(remembered,)))
    assert [p.url for p in first.pages] == [remembered]
    assert first.pages[0].quality > 0.5
    qualities = ray.get(engine.handles.memory.domain_qualities.remote([domain_of(remembered)]))
    assert qualities[domain_of(remembered)] > 0.5  # better than an unknown domain's 0.5
    _, events = session(engine, ResearchRequest(GOAL, depth="quick"))
    memory = [e for e in events if e.type is EventType.MEMORY_SOURCES]
    assert memory, "no memory_sources event"
    sources: list[Any] = [s for e in memory for s in e.data["sources"]]  # type: ignore[union-attr]
    offered = [str(s["url"]) for s in sources]
    assert remembered in offered
    assert len(offered) == len(set(offered))


def test_killing_the_session_actor_resumes_without_losing_facts(scripted_engine: tuple[Engine, Any]) -> None:
    engine, judge = scripted_engine
    ray.get(judge.configure.remote(satisfy=False))
    killed = threading.Event()
    request = ResearchRequest(GOAL, depth="focused")
    session_id = f"k-{uuid.uuid4().hex[:8]}"
    holder: dict[str, Any] = {}

    def on_events(events: list[Event]) -> None:
        if not killed.is_set() and any(e.type is EventType.ROUND_END for e in events):
            killed.set()
            ray.kill(holder["actor"], no_restart=False)

    actor = engine.spawn_session(session_id, request)
    holder["actor"] = actor
    done = actor.run.remote()
    seen = 0
    while not ray.wait([done], timeout=0.5)[0]:
        try:
            events = ray.get(actor.events_since.remote(seen), timeout=30)
        except ray.exceptions.RayError:
            continue
        if events:
            seen = events[-1].seq
            on_events(events)
    state = ray.get(done).state
    assert killed.is_set()
    assert state.status == "complete"
    urls = [p.url for p in state.pages]
    assert len(urls) == len(set(urls))  # nothing fetched twice
    check_facts_cite_their_pages(state)
    stored = ray.get(engine.handles.memory.events.remote(session_id))
    assert [e.seq for e in stored] == list(range(1, len(stored) + 1))
    assert state.pages_fetched <= request.budget.pages


@pytest.mark.parametrize(
    "victim", ["browser", "chromium", "extractor", "judge", "frontier", "memory", "embedder"]
)
def test_killing_a_shared_actor_mid_session_loses_nothing(
    scripted_engine: tuple[Engine, Any], victim: str
) -> None:
    """Each part killed once the session fetches (Chromium itself: its processes, not the actor)."""
    engine, judge = scripted_engine
    ray.get(judge.configure.remote(satisfy=False))
    killed = threading.Event()
    launches_before = ray.get(engine.handles.browser.launches.remote())

    def on_events(events: list[Event]) -> None:
        if not killed.is_set() and any(e.type is EventType.FETCHING for e in events):
            killed.set()
            if victim == "chromium":
                assert kill_chromium(engine.handles.browser) >= 1
            else:
                ray.kill(getattr(engine.handles, victim), no_restart=False)

    state, events = session(engine, ResearchRequest(GOAL, depth="focused", max_pages=4), on_events)
    assert killed.is_set()
    assert state.status == "complete"
    assert events[-1].type is EventType.COMPLETE
    assert state.pages_fetched >= 1  # the restarted actor served the rest of the session
    check_facts_cite_their_pages(state)
    fetched = [p.url for p in state.pages if p.status == "ok"]
    assert len(fetched) == len(set(fetched))  # no page fetched twice across the restart
    if victim == "chromium":  # the pool launched a new Chromium for the rest of the session
        assert ray.get(engine.handles.browser.launches.remote()) > launches_before
    if victim == "judge":
        ray.get(judge.configure.remote(satisfy=False), timeout=60)  # the restarted judge answers


def test_a_run_cancelled_from_outside_is_recorded_as_cancelled(scripted_engine: tuple[Engine, Any]) -> None:
    """ray.cancel of the run task (what Serve does to a request's children) leaves no session 'running'."""
    engine, judge = scripted_engine
    ray.get(judge.configure.remote(satisfy=False))
    session_id = f"c-{uuid.uuid4().hex[:8]}"
    request = ResearchRequest(GOAL, depth="thorough")
    actor = engine.spawn_session(session_id, request)
    done = actor.run.remote()
    while not ray.get(actor.events_since.remote(0), timeout=30):
        time.sleep(0.1)
    ray.cancel(done)
    with pytest.raises(ray.exceptions.TaskCancelledError):
        ray.get(done, timeout=60)
    # Ray's cancel is recursive: a call of the run's cancelled before it was sent leaves a gap in the
    # caller's sequence to an in-order actor (memory, frontier), which waits Ray's reorder timeout (30 s)
    # before it runs the calls sent after the gap. So the waits here are longer than that.
    deadline = time.monotonic() + 75
    while (saved := ray.get(engine.handles.memory.load_session.remote(session_id))) is None or (
        saved.status == "running"
    ):
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert saved.status == "cancelled", saved.stop_reason  # also when a call of the run's was cancelled first
    stored = ray.get(engine.handles.memory.events.remote(session_id))
    assert stored[-1].type is EventType.ERROR
    assert frontier_lets_go(engine, session_id, timeout_s=75)  # the cancelled run's pool is released too
    ray.kill(actor)


def test_a_session_in_the_commands_process_runs_as_its_actor_does(
    scripted_engine: tuple[Engine, Any],
) -> None:
    """run_session_here (what `fathom research` runs): the same session, events in order, stored."""
    engine, judge = scripted_engine
    ray.get(judge.configure.remote(satisfy=False))
    seen: list[Event] = []
    session_id = f"h-{uuid.uuid4().hex[:8]}"
    state = run_session_here(engine, ResearchRequest(GOAL, depth="quick"), session_id, seen.extend).state
    assert state.status == "complete"
    assert state.pages_fetched == 3
    assert [e.seq for e in seen] == list(range(1, len(seen) + 1))
    assert seen[-1].type is EventType.COMPLETE
    check_facts_cite_their_pages(state)
    saved = ray.get(engine.handles.memory.load_session.remote(session_id))
    assert saved.status == "complete"
    assert len(ray.get(engine.handles.memory.events.remote(session_id))) == len(seen)
    assert frontier_lets_go(engine, session_id)


def test_ctrl_c_in_the_commands_process_records_the_session_cancelled(
    scripted_engine: tuple[Engine, Any],
) -> None:
    """A KeyboardInterrupt while the live view updates (Ctrl-C) ends the session as cancelled."""
    engine, judge = scripted_engine
    ray.get(judge.configure.remote(satisfy=False))
    session_id = f"k-{uuid.uuid4().hex[:8]}"

    def interrupt(events: list[Event]) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_session_here(engine, ResearchRequest(GOAL, depth="thorough"), session_id, interrupt)
    deadline = time.monotonic() + 75  # as above: a cancelled call may hold an in-order actor's queue
    while (saved := ray.get(engine.handles.memory.load_session.remote(session_id))) is None or (
        saved.status == "running"
    ):
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert saved.status == "cancelled"
    assert frontier_lets_go(engine, session_id, timeout_s=75)


def frontier_lets_go(engine: Engine, session_id: str, timeout_s: float = 30.0) -> bool:
    """Whether the frontier actor stops holding ``session_id``'s pool within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while session_id in ray.get(engine.handles.frontier.sessions.remote()):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_an_ended_session_leaves_no_pool_in_the_frontier(scripted_engine: tuple[Engine, Any]) -> None:
    engine, judge = scripted_engine
    ray.get(judge.configure.remote(satisfy=True))
    state, _ = session(engine, ResearchRequest(GOAL, depth="glance"))
    assert state.status == "complete"
    assert frontier_lets_go(engine, state.session_id)
    # what it held was saved first: a later call for the session finds its fetched pages again
    known = ray.get(engine.handles.frontier.known.remote(state.session_id))
    assert {p.url for p in state.pages} <= set(known)


def test_a_compromised_judge_cannot_steer_the_engine(
    scripted_engine: tuple[Engine, Any], testweb: offline_web.TestWeb
) -> None:
    """The judge obeys the attack pages (every link, active markup, invented evidence, a report
    that cites nothing): the guards outside the model hold on their own."""
    engine, judge = scripted_engine
    before = set(testweb.requested)  # the web is the whole run's: other tests may ask it by address
    with questions_that_find_nothing(judge):  # the seed and the links the judge follows are all there is
        ray.get(
            judge.configure.remote(satisfy=False, attack=True, questions=["zzqx vvkk"], queries=["qqzx wwvk"])
        )
        state, _ = session(engine, ResearchRequest(NONSENSE, depth="quick", seeds=("http://attack.test/",)))
    assert state.status == "complete"
    fetched = {p.url for p in state.pages}
    assert "http://attack.test/" in fetched
    assert any(url.startswith("http://attack.test/") and url != "http://attack.test/" for url in fetched)
    # no forbidden address was fetched: none is among the pages, and this machine got no request by address
    forbidden = {url.replace("{port}", str(testweb.port)) for url in FORBIDDEN}
    assert not fetched & forbidden
    assert not any(host == "127.0.0.1" for host, _ in testweb.requested - before)
    # no unverifiable fact was kept: each is verbatim on its page, and none carries markup
    assert state.fact_ledger.facts
    check_facts_cite_their_pages(state)
    for fact in state.fact_ledger.facts:
        assert unfit_for_fact(fact.claim) is None
        assert unfit_for_fact(fact.evidence) is None
        assert "closed source" not in fact.claim
    assert state.fact_ledger.rejected >= 4  # the lies of the first page at least
    # the report renders no active content (markup shows as text), and no sentence that cites nothing real
    page = render_html("report", [state.report_markdown])
    for active in ("<script", "<img", 'href="javascript', 'src="http'):
        assert active not in page
    assert "Vikings" not in page


def test_spawning_sessions_makes_no_new_actor_class_each_time(scripted_engine: tuple[Engine, Any]) -> None:
    """The API replica spawns an actor per session for as long as it serves: each used to make (and
    keep) a new Ray actor class, so the replica grew with every session (the soak found it)."""
    engine, _ = scripted_engine

    def session_classes() -> int:
        gc.collect()
        with warnings.catch_warnings():  # some library's deprecated aliases warn when merely inspected
            warnings.simplefilter("ignore")
            return sum(
                1
                for o in gc.get_objects()
                if isinstance(o, type) and issubclass(o, SessionService) and o is not SessionService
            )

    first = engine.spawn_session(f"c-{uuid.uuid4().hex[:8]}", ResearchRequest(GOAL, depth="glance"))
    before = session_classes()
    actors = [
        engine.spawn_session(f"c-{uuid.uuid4().hex[:8]}", ResearchRequest(GOAL, depth="glance"))
        for _ in range(4)
    ]
    ray.get([a.events_since.remote(0) for a in actors], timeout=120)  # created, as the replica's are
    for actor in [first, *actors]:
        ray.kill(actor)
    del actors, first
    assert session_classes() == before


def test_an_engine_without_its_optional_parts_runs_web_sessions_and_says_what_is_missing(
    tmp_path: Path, offline_network: NetworkMap, ray_session: None
) -> None:
    """What `fathom research` starts for itself: no document store, no task ledger."""
    name = f"scripted-judge-{uuid.uuid4().hex[:8]}"
    judge = ray.remote(ScriptedJudge).options(num_cpus=0, name=name).remote()
    engine = start_engine(
        e2e_settings(tmp_path / "data", offline_network), offline_network, judge=name, without=OPTIONAL_PARTS
    )
    try:
        assert engine.handles.documents is None
        assert engine.handles.ledger is None
        running = {a["name"] for a in ray.util.list_named_actors(all_namespaces=True)}
        assert engine.directory.name("frontier") in running
        assert not {engine.directory.name(part) for part in OPTIONAL_PARTS} & running
        state = run_session_here(
            engine, ResearchRequest(GOAL, depth="glance"), f"o-{uuid.uuid4().hex[:8]}"
        ).state
        assert state.status == "complete"
        assert state.pages_fetched == 1
        on_documents = ResearchRequest(GOAL, depth="glance", sources=("documents",))
        with pytest.raises(SessionError, match="without the document store"):
            run_session_here(engine, on_documents, f"o-{uuid.uuid4().hex[:8]}")
    finally:
        for handle in (engine.handles.browser, engine.handles.memory):
            ray.get(handle.stop.remote(), timeout=60)
        for handle in [*(getattr(engine.handles, f.name) for f in dataclasses.fields(engine.handles)), judge]:
            if handle is not None:
                ray.kill(handle)


def test_only_optional_parts_may_be_left_out(offline_network: NetworkMap, ray_session: None) -> None:
    with pytest.raises(ValueError, match="browser"):
        start_engine(load_settings(), offline_network, without=frozenset({"browser"}))
