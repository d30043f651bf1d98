"""Fixtures shared by every tier: the offline web and the one session-scoped local Ray."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from fathom_ray.testweb.server import TestWeb
from fathom_ray.web.network import NetworkMap
from fathom_ray.web.security import UrlPolicy
from tests.net import free_port


@pytest.fixture(scope="session")
def testweb() -> Iterator[TestWeb]:
    with TestWeb() as web:
        yield web


@pytest.fixture(scope="session")
def offline_network(testweb: TestWeb) -> NetworkMap:
    return NetworkMap.offline(testweb.port)


@pytest.fixture(scope="session")
def offline_policy(offline_network: NetworkMap) -> UrlPolicy:
    return UrlPolicy.allowing(offline_network.allowed_hosts)


METRICS_PORT = free_port()
DASHBOARD_PORT = free_port()


@pytest.fixture(scope="session")
def ray_session() -> Iterator[None]:
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray  # noqa: PLC0415 (only the tiers that use Ray pay for importing it)

    ray.init(
        num_cpus=2,
        include_dashboard=True,  # its job server takes `ray job submit` in test_job_submit
        dashboard_port=DASHBOARD_PORT,
        log_to_driver=False,
        _metrics_export_port=METRICS_PORT,
    )
    yield
    ray.shutdown()


@pytest.fixture(scope="session")
def dashboard_url(ray_session: None) -> str:
    return f"http://127.0.0.1:{DASHBOARD_PORT}"


@pytest.fixture(scope="session")
def metrics_url(ray_session: None) -> str:
    """Ray's metrics agent endpoint (Prometheus text), as the dashboard scrapes it."""
    return f"http://127.0.0.1:{METRICS_PORT}/metrics"
