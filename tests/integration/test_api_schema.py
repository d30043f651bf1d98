"""Schemathesis against the API's own OpenAPI schema: no input makes it answer 5xx."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from fathom_ray.settings import ApiSettings
from serve.app import build_app
from tests.fake_sessions import FakeSessions

pytestmark = pytest.mark.integration
APP = build_app(FakeSessions(max_sessions=1000, step_s=0.0), ApiSettings(heartbeat_s=0.5), poll_s=0.01)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_makes_the_api_fail(case: schemathesis.Case[Any]) -> None:
    response = case.call()
    assert response.status_code < 500, response.text
