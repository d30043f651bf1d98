"""`fathom eval` over Ray: one engine, sessions (or single-pass baselines) concurrently up to the cap."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from fathom_ray.cli.attach import EngineChoice
from fathom_ray.cli.running import running_engine
from fathom_ray.errors import ConfigError
from fathom_ray.evaluation.questions import EvalQuestion
from fathom_ray.evaluation.run import evaluate
from fathom_ray.models import EventType, ResearchRequest
from fathom_ray.research.results import ResearchResult
from fathom_ray.research.session_state import new_session_id
from fathom_ray.settings import LLMSettings, Settings
from fathom_ray.web.network import NetworkMap


def with_llm(settings: Settings, pairs: Sequence[str]) -> Settings:
    """``settings`` with ``--llm KEY=VALUE`` overrides of the llm section (checked like the environment)."""
    update: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--llm takes KEY=VALUE, got {pair!r}")
        update[key.strip()] = value
    try:
        llm = LLMSettings.model_validate({**settings.llm.model_dump(), **update})
    except ValidationError as e:
        problems = "; ".join(f"llm.{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors())
        raise ConfigError(f"invalid --llm: {problems}") from e
    return settings.model_copy(update={"llm": llm})


def run_eval(
    settings: Settings,
    network: NetworkMap,
    questions: Sequence[EvalQuestion],
    methods: Sequence[str],
    *,
    depth: str,
    out: Path,
    concurrency: int,
    verdict: bool,
    address: str | None,
    report: Callable[[str], None],
    agents: int = 3,
    choice: EngineChoice | None = None,
) -> dict[str, Any]:
    with running_engine(
        settings, network, address, "the evaluation", report, choice=choice, wait_embedder=False, kept=True
    ) as engine:
        return evaluate(
            questions,
            methods,
            out,
            lambda question, method: run_one(engine, question, method, depth, agents),
            grade=(lambda question, text: grade_one(engine, question, text)) if verdict else None,
            concurrency=concurrency,
            report=report,
        )


def run_one(
    engine: Any, question: EvalQuestion, method: str, depth: str, agents: int = 3
) -> tuple[dict[str, Any], dict[str, float]]:
    """One session (or baseline, or swarm of ``agents``) for ``question``: its result.json document
    and seconds per stage (a swarm's in all)."""
    from actors.coordinator import run_swarm  # noqa: PLC0415
    from actors.engine import run_session  # noqa: PLC0415

    if method == "swarm":
        started = time.monotonic()
        swarm = run_swarm(engine, ResearchRequest(question.question, depth), new_session_id("w"), agents)
        return swarm.research.to_json(), {"swarm": time.monotonic() - started}

    timeline: list[tuple[float, EventType]] = []
    started = time.monotonic()
    _, outcome = run_session(
        engine,
        ResearchRequest(question.question, depth),
        new_session_id("e"),
        lambda events: timeline.extend((time.monotonic(), e.type) for e in events),
        method=method,
    )
    ended = time.monotonic()
    stages = dict(outcome.stages_s) or session_stages(timeline, started, ended)
    return ResearchResult.from_session(outcome.state, ended - started).to_json(), stages


def grade_one(engine: Any, question: EvalQuestion, answer_text: str) -> str | None:
    import ray  # noqa: PLC0415

    judged = ray.get(
        engine.handles.judge.grade.remote(
            question.question, question.answer, question.answer_aliases, answer_text
        )
    )
    return judged.answer.verdict if judged.answer is not None else None


def session_stages(
    timeline: Sequence[tuple[float, EventType]], started: float, ended: float
) -> dict[str, float]:
    """A session's time split at its first fetch and at composing: plan and search, rounds, compose."""
    first_fetch = next((t for t, kind in timeline if kind is EventType.FETCHING), None)
    composing = next((t for t, kind in timeline if kind is EventType.COMPOSING), ended)
    rounds_from = first_fetch if first_fetch is not None else composing
    return {
        "plan and search": max(0.0, rounds_from - started),
        "rounds": max(0.0, composing - rounds_from),
        "compose": max(0.0, ended - composing),
    }
