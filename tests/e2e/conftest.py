from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray

from actors.engine import Engine, start_engine
from fathom_ray.settings import Settings, load_settings
from fathom_ray.web.network import NetworkMap
from tests.scripted_judge import ScriptedJudge


def e2e_settings(data_dir: Path, network: NetworkMap) -> Settings:
    return load_settings(
        data_dir=data_dir,
        research={"seed": 7, "divergence": 1.0},
        fetch={"min_host_delay_s": 0.05, "timeout_s": 5, "allow_hosts": list(network.allowed_hosts)},
        browser={"page_timeout_s": 10},
        search={"backend": "searxng", "searxng_url": "http://search.test", "max_results": 8},
    )


@pytest.fixture(scope="module")
def scripted_engine(
    tmp_path_factory: pytest.TempPathFactory, offline_network: NetworkMap, ray_session: None
) -> Iterator[tuple[Engine, Any]]:
    settings = e2e_settings(tmp_path_factory.mktemp("data"), offline_network)
    name = f"scripted-judge-{uuid.uuid4().hex[:8]}"
    judge = ray.remote(ScriptedJudge).options(num_cpus=0, name=name, max_restarts=3).remote()
    engine = start_engine(settings, offline_network, judge=name)
    yield engine, judge
    for handle in (engine.handles.browser, engine.handles.memory):
        ray.get(handle.stop.remote(), timeout=60)
    for field in dataclasses.fields(engine.handles):
        ray.kill(getattr(engine.handles, field.name))


@pytest.fixture(scope="module")
def evidence_engine(
    tmp_path_factory: pytest.TempPathFactory, offline_network: NetworkMap, ray_session: None
) -> Iterator[Engine]:
    """The engine as a laptop starts it: no model configured, so the evidence judge and its embedder."""
    settings = e2e_settings(Path(tmp_path_factory.mktemp("data")), offline_network)
    engine = start_engine(settings, offline_network, gpu=False)
    yield engine
    for handle in (engine.handles.browser, engine.handles.memory):
        ray.get(handle.stop.remote(), timeout=60)
    for field in dataclasses.fields(engine.handles):
        ray.kill(getattr(engine.handles, field.name))
