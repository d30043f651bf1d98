"""The app builder that serve_config.yaml names deploys the API on its own (real engine, no offline web)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import ray
import yaml
from ray import serve

from actors.directory import ENGINE_PARTS
from serve.deployment import ACTOR_PREFIX, app_builder, shutdown
from tests.net import free_port, wait_until_healthy

pytestmark = [pytest.mark.e2e]
CONFIG = Path(__file__).resolve().parents[2] / "serve_config.yaml"


@pytest.fixture
def deployed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ray_session: None) -> Iterator[str]:
    port = free_port()
    monkeypatch.setenv("FATHOM_DATA_DIR", str(tmp_path))
    config = yaml.safe_load(CONFIG.read_text())
    application = config["applications"][0]
    assert application["import_path"] == "serve.deployment:app_builder"
    serve.start(http_options={"host": "127.0.0.1", "port": port})
    serve.run(app_builder(application["args"]), name="fathom-config", route_prefix="/", blocking=False)
    url = f"http://127.0.0.1:{port}"
    wait_until_healthy(url, timeout_s=180, pause_s=1)
    yield url
    shutdown()
    for part in ENGINE_PARTS:  # the builder's engine outlives the app; end it with the test
        ray.kill(ray.get_actor(f"{ACTOR_PREFIX}{part}"))


def test_the_configured_app_answers(deployed: str) -> None:
    health = httpx.get(f"{deployed}/health", timeout=10).json()
    assert health == {"status": "ok", "dashboard_url": None, "web": "internet"}
    assert httpx.get(f"{deployed}/research", timeout=30).status_code == 200
    assert httpx.post(f"{deployed}/research", json={"goal": "hi"}, timeout=30).status_code == 422
    assert (
        "/research/{session_id}/stream" in httpx.get(f"{deployed}/openapi.json", timeout=30).json()["paths"]
    )
