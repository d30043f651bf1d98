"""Swarm mode on a real engine with the scripted judge: the coordinator actor, its researchers as
Researcher actors it owns (each handed sub-goals one after another), the ledger, and what killing
the coordinator leaves behind (nothing)."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import ray

from actors.coordinator import coordinator_actor, run_swarm
from actors.engine import Engine
from actors.swarm_roles import ServedPages
from fathom_ray.models import ResearchRequest
from fathom_ray.settings import Settings, SwarmSettings
from fathom_ray.swarm.receipts import CheckKind, Verdict, served_in
from fathom_ray.swarm.task_ledger import RecordKind, read
from tests.pdf import pdf_pages
from tests.ray_state import alive, ever

pytestmark = [pytest.mark.e2e]
GOAL = "Which Python version introduced assignment expressions, and who wrote the PEP?"
PARTS = ["Which Python version introduced assignment expressions?", "Who wrote the PEP?"]


def wait_until(check: Callable[[], object], timeout_s: float, pause_s: float = 0.2) -> None:
    """Poll ``check`` until it holds or ``timeout_s`` passes (the caller asserts it then)."""
    deadline = time.monotonic() + timeout_s
    while not check() and time.monotonic() < deadline:
        time.sleep(pause_s)


def started(
    scripted_engine: tuple[Engine, Any], request: ResearchRequest, swarm: SwarmSettings | None = None
) -> tuple[str, Any, Settings]:
    """A coordinator actor of a fresh swarm of 2 on ``request`` (not yet run): its id, handle, settings."""
    engine, judge = scripted_engine
    ray.get(judge.configure.remote(questions=[GOAL, *PARTS]))
    settings = engine.settings if swarm is None else engine.settings.model_copy(update={"swarm": swarm})
    swarm_id = f"w-{uuid.uuid4().hex[:8]}"
    coordinator = coordinator_actor().remote(settings, swarm_id, request, 2, engine.directory, engine.network)
    return swarm_id, coordinator, settings


def test_a_swarm_runs_its_researchers_and_writes_its_ledger(scripted_engine: tuple[Engine, Any]) -> None:
    engine, judge = scripted_engine
    ray.get(judge.configure.remote(questions=[GOAL, *PARTS]))
    swarm_id = f"w-{uuid.uuid4().hex[:8]}"
    report = run_swarm(engine, ResearchRequest(GOAL, depth="quick", max_pages=3), swarm_id, 2)
    result = report.result
    complete = {a["agent"] for a in result.agents if a["status"] == "complete"}
    assert {"r1-researcher-1", "r1-researcher-2"} <= complete
    assert result.facts
    assert result.receipts
    assert any(r.kind is CheckKind.SERVED and r.verdict is Verdict.PASS for r in result.receipts)
    records = read(engine.settings.data_dir / "ledger", swarm_id)
    assert records[0].kind is RecordKind.PLAN
    assert records[-1].kind is RecordKind.COMPLETION
    own = {r.agent for r in records if r.kind is RecordKind.COMPLETION and "stop_reason" in r.data}
    assert {"r1-researcher-1", "r1-researcher-2"} <= own  # each researcher wrote its own completion
    collected = {r.data.get("collected") for r in records if r.agent == "coordinator"}
    assert {"r1-researcher-1", "r1-researcher-2"} <= collected
    wait_until(lambda: not alive(swarm_id), 30, 0.2)
    assert not alive(swarm_id)  # the researchers, analyst and verifier ended with their coordinator
    assert report.research.status == "complete"
    # two researchers, made once and handed every sub-goal of every round: no process per sub-goal
    assert ever(f"{swarm_id}-researcher-") == [f"{swarm_id}-researcher-1", f"{swarm_id}-researcher-2"]
    assert result.rounds > 1
    assert len(result.agents) > 2
    assert report.research.usage.calls > 0  # the researchers' and the coordinator's judge calls
    assert json.loads(report.files["result.json"])["usage"]["llm_calls"] == report.research.usage.calls
    assert_bundle(report.files, report.pdf, engine.settings.data_dir / "bundles" / swarm_id)


def assert_bundle(files: dict[str, str], pdf: bytes | None, kept: Path) -> None:
    """The bundle's files, the links of index.md to them, the same files kept on disk, and a PDF
    that opens and renders (pypdf reads its text, pdftoppm draws its first page)."""
    for name in ("index.md", "summary.md", "sources.md", "ledger.jsonl", "result.json", "report.html"):
        assert files[name], name
    findings = [name for name in files if name.startswith("findings/")]
    assert findings
    links = re.findall(r"\]\(([^)]+)\)", files["index.md"])
    assert set(findings) <= set(links)
    assert {n for n in links if n != "report.pdf"} <= set(files)
    assert "report.pdf" in links
    assert sorted(p.relative_to(kept).as_posix() for p in kept.rglob("*") if p.is_file()) == sorted(
        [*files, "report.pdf"]
    )
    assert pdf is not None
    pages = pdf_pages(pdf)
    assert len(pages) >= 2  # the summary, then each researcher's findings on a page of its own
    assert "assignment expressions" in pages[0]
    pdftoppm = shutil.which("pdftoppm")
    assert pdftoppm, "poppler-utils (scripts/setup installs it)"
    (kept / "report.pdf").write_bytes(pdf)
    subprocess.run(
        [pdftoppm, "-png", "-r", "40", "-singlefile", str(kept / "report.pdf"), str(kept.parent / "page")],
        capture_output=True,
        check=True,
    )
    png = (kept.parent / "page.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    assert len(png) > 1000


def test_killing_the_coordinator_leaves_no_actor_of_the_swarm(scripted_engine: tuple[Engine, Any]) -> None:
    swarm_id, coordinator, _ = started(scripted_engine, ResearchRequest(GOAL, depth="focused", max_pages=8))
    done = coordinator.run.remote()
    wait_until(lambda: alive(swarm_id), 120)
    assert alive(swarm_id)  # its researchers run, by name
    roles = {f"{swarm_id}-analyst", f"{swarm_id}-verifier"}
    wait_until(lambda: roles <= set(alive(swarm_id)), 120)
    assert roles <= set(alive(swarm_id))  # and the analyst and the verifier, actors of their own
    ray.kill(coordinator, no_restart=True)
    with pytest.raises(ray.exceptions.RayActorError):
        ray.get(done, timeout=60)
    wait_until(lambda: not alive(swarm_id), 60, 0.5)
    assert not alive(swarm_id)


def test_cancelling_a_swarm_ends_its_researchers_and_ships_what_it_has(
    scripted_engine: tuple[Engine, Any],
) -> None:
    swarm_id, coordinator, settings = started(
        scripted_engine, ResearchRequest(GOAL, depth="focused", max_pages=8)
    )
    done = coordinator.run.remote()
    wait_until(lambda: alive(swarm_id), 120)
    assert alive(swarm_id)
    ray.get(coordinator.cancel.remote(), timeout=60)
    report = ray.get(done, timeout=120)
    ray.kill(coordinator, no_restart=True)
    assert report.result.stop_reason == "cancelled"
    assert report.research.status == "cancelled"
    assert not any(a["agent"].endswith("-again") for a in report.result.agents)  # no re-assignment
    assert not alive(swarm_id)
    assert report.files["index.md"].startswith("# ")
    records = read(settings.data_dir / "ledger", swarm_id)
    assert any(r.data.get("error") == "cancelled" for r in records)


def test_killing_one_researcher_reassigns_its_sub_goal_and_the_bundle_still_ships(
    scripted_engine: tuple[Engine, Any],
) -> None:
    request = ResearchRequest(GOAL, depth="focused", max_pages=8)
    swarm_id, coordinator, settings = started(scripted_engine, request, SwarmSettings(replan_rounds=0))
    done = coordinator.run.remote()
    victim = f"{swarm_id}-researcher-1"  # the researcher its first sub-goal went to
    wait_until(lambda: victim in alive(victim), 120, 0.1)
    assert victim in alive(victim)
    ray.kill(ray.get_actor(victim), no_restart=True)
    report = ray.get(done, timeout=300)
    ray.kill(coordinator, no_restart=True)
    statuses = {a["agent"]: a["status"] for a in report.result.agents}
    assert statuses["r1-researcher-1"] == "failed"
    assert statuses["r1-researcher-1-again"] == "complete"  # its sub-goal, given once more
    assert statuses["r1-researcher-2"] == "complete"
    failure = next(r for r in read(settings.data_dir / "ledger", swarm_id) if r.kind is RecordKind.FAILURE)
    assert failure.agent == "r1-researcher-1"
    assert report.files["index.md"]
    assert report.pdf is not None


def test_a_researcher_not_ready_in_time_is_killed_and_recorded(scripted_engine: tuple[Engine, Any]) -> None:
    request = ResearchRequest(GOAL, depth="quick", max_pages=3)
    swarm = SwarmSettings(replan_rounds=0, ready_s=0.001)
    swarm_id, coordinator, settings = started(scripted_engine, request, swarm)
    report = ray.get(coordinator.run.remote(), timeout=300)
    ray.kill(coordinator, no_restart=True)
    assert {a["status"] for a in report.result.agents} == {"failed"}
    assert len(report.result.agents) == 4  # two researchers, each given twice
    failures = [r for r in read(settings.data_dir / "ledger", swarm_id) if r.kind is RecordKind.FAILURE]
    assert all("not ready within 0.001 s" in str(r.data["error"]) for r in failures)
    assert not report.result.facts
    assert "no findings" in report.files["summary.md"]
    wait_until(lambda: not alive(f"{swarm_id}-"), 60, 0.5)
    assert not alive(f"{swarm_id}-")


def test_the_verifiers_served_look_is_http_first_and_the_browser_where_a_script_writes_the_text(
    scripted_engine: tuple[Engine, Any],
) -> None:
    engine, _ = scripted_engine
    pages = ServedPages(engine.directory.browsers(), engine.handles.browser, engine.handles.extractor)

    async def look(url: str, rendered: bool) -> str | None:
        return await pages.page_text(url, rendered=rendered)

    plain = asyncio.run(look("http://js.test/", False))
    assert plain is not None
    assert "forty-two" not in plain  # over HTTP only the script's placeholder
    rendered = asyncio.run(look("http://js.test/", True))
    assert rendered is not None
    assert "forty-two" in rendered
    static = asyncio.run(look("http://www.sqlite.test/wal.html", False))
    assert static is not None
    assert served_in("implements atomic commit and rollback is a rollback journal", static)  # as rendered
    assert asyncio.run(look("http://robots.test/private/page", False)) is None  # robots.txt holds
