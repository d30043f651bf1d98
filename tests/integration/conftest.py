from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fathom_ray.network import NetworkMap
from fathom_ray.security import UrlPolicy
from fathom_ray.testweb.server import TestWeb

CACHE = Path(__file__).resolve().parents[2] / ".cache"


@pytest.fixture(scope="session")
def testweb() -> Iterator[TestWeb]:
    with TestWeb(CACHE) as web:
        yield web


@pytest.fixture(scope="session")
def offline_network(testweb: TestWeb) -> NetworkMap:
    return NetworkMap.offline(testweb.port)


@pytest.fixture(scope="session")
def offline_policy(offline_network: NetworkMap) -> UrlPolicy:
    return UrlPolicy.allowing(offline_network.allowed_hosts)
