from __future__ import annotations

import pickle

import pytest
from pydantic import ValidationError

from fathom_ray.errors import ConfigError
from fathom_ray.settings import EmbedderSettings, ingest_embedder, load_settings
from fathom_ray.web.network import NetworkMap, settings_for


def test_environment_maps_onto_nested_sections(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FATHOM_API__MAX_SESSIONS", "5")
    monkeypatch.setenv("FATHOM_LLM__MODEL", "Qwen/Qwen3-8B")
    monkeypatch.setenv("FATHOM_FETCH__ALLOW_HOSTS", '["docs.python.test"]')
    settings = load_settings()
    assert settings.api.max_sessions == 5
    assert settings.llm.model == "Qwen/Qwen3-8B"
    assert settings.fetch.allow_hosts == ("docs.python.test",)


def test_settings_are_frozen_and_pickle_with_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FATHOM_API__TOKEN", "s3cret")
    settings = load_settings()
    with pytest.raises(ValidationError):
        settings.api.max_sessions = 9  # type: ignore[misc]
    copy = pickle.loads(pickle.dumps(settings))
    assert copy == settings
    assert copy.api.token is not None
    assert copy.api.token.get_secret_value() == "s3cret"
    assert "s3cret" not in repr(settings)


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("FATHOM_API__MAX_SESSIONS", "0", "api.max_sessions"),
        ("FATHOM_RESEARCH__DEFAULT_DEPTH", "bottomless", "default_depth"),
        ("FATHOM_LLM__BACKEND", "openai", "base_url"),
        ("FATHOM_API__HOST", "0.0.0.0", "token"),
        ("FATHOM_GRAPH__BACKEND", "neo4j", "NEO4J__URI"),
        ("FATHOM_API__TOKENS", '{"a b": "s3cret-ab"}', "token name"),
        ("FATHOM_API__TOKENS", '{"alice": "same", "bob": "same"}', "the same"),
        ("FATHOM_API__TOKENS", '{"alice": ""}', "empty"),
        ("FATHOM_API__REPLICAS", "0", "replicas"),
    ],
)
def test_bad_settings_name_the_field(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, message: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError, match=message):
        load_settings()


def test_named_tokens_come_from_json_and_let_the_api_off_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FATHOM_API__TOKENS", '{"alice": "alice-token", "bob": "bob-token"}')
    monkeypatch.setenv("FATHOM_API__HOST", "0.0.0.0")
    api = load_settings().api
    assert sorted(api.tokens) == ["alice", "bob"]
    assert api.tokens["bob"].get_secret_value() == "bob-token"
    assert "bob-token" not in repr(api)


def test_overrides_win_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FATHOM_API__PORT", "9000")
    assert load_settings(api={"port": 9100}).api.port == 9100


def test_settings_for_the_offline_web_search_it_and_may_fetch_its_hosts() -> None:
    base = load_settings(fetch={"allow_hosts": ["intranet.example"]})
    offline = settings_for(base, NetworkMap.offline(8123))
    assert offline.search.backend == "searxng"
    assert offline.search.searxng_url == "http://search.test"
    assert offline.fetch.allow_hosts == ("intranet.example", "*.test")
    assert settings_for(base, NetworkMap.offline(8123), "local").search.backend == "local"
    internet = settings_for(base, NetworkMap())
    assert internet.search == base.search
    assert internet.fetch.allow_hosts == ("intranet.example",)


def test_the_embedder_runtime_follows_the_engines_life() -> None:
    """numpy for a command's own engine on a CPU in float32 (its start counts), torch for a kept
    engine, a GPU, bfloat16 and document ingestion (throughput counts); a named runtime stays."""
    auto = EmbedderSettings()
    assert auto.runtime == "auto"
    assert auto.resolved(kept=False, gpu=False).runtime == "numpy"
    assert auto.resolved(kept=True, gpu=False).runtime == "torch"
    assert auto.resolved(kept=False, gpu=True).runtime == "torch"
    assert EmbedderSettings(precision="bfloat16").resolved(kept=False, gpu=False).runtime == "torch"
    assert EmbedderSettings(runtime="numpy").resolved(kept=True, gpu=False).runtime == "numpy"
    assert ingest_embedder(load_settings()).runtime == "torch"
    named = ingest_embedder(load_settings(embedder={"runtime": "numpy"}))
    assert (named.runtime, named.precision) == ("numpy", "float32")  # it ingests, never fails on bfloat16
    with pytest.raises(ValidationError):
        EmbedderSettings(runtime="onnx")
