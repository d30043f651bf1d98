"""One settings tree for the whole engine.

Read once at an entry point (``load_settings``) and passed down as
sub-sections; never read from the environment at import time. Environment
variables use the ``FATHOM_`` prefix and ``__`` between levels, for example
``FATHOM_LLM__MODEL`` or ``FATHOM_API__MAX_SESSIONS``. The tree is frozen and
picklable, so it travels to Ray actors as it is.
"""

from __future__ import annotations

import ipaddress
import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from fathom_ray.documents.sparse import SPARSE_WEIGHT
from fathom_ray.errors import ConfigError
from fathom_ray.research.presets import DEFAULT_DEPTH, PRESETS


class Section(BaseModel):
    """A frozen part of the settings tree that rejects unknown keys."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class ResearchSettings(Section):
    default_depth: str = DEFAULT_DEPTH
    temperature: float = Field(1.0, ge=0.0)
    divergence: float = Field(0.1, ge=0.0, le=1.0)
    seed: int | None = None

    @model_validator(mode="after")
    def _known_depth(self) -> ResearchSettings:
        if self.default_depth not in PRESETS:
            raise ValueError(f"default_depth must be one of {', '.join(PRESETS)}")
        return self


class SwarmSettings(Section):
    replan_rounds: int = Field(2, ge=0, le=5)  # gap-filling rounds after the first fan-out
    ready_s: float = Field(30.0, gt=0)  # a researcher that does not answer by then is killed
    cancel_grace_s: float = Field(15.0, ge=0)  # for a cancelled researcher to hand back its facts
    parallel: int = Field(0, ge=0)  # researchers at work at once (0: all of a round; bench_swarm runs 1)


class BrowserSettings(Section):
    cdp_url: str | None = None
    executable: Path = Path("/usr/bin/chromium")
    pages_per_browser: int = Field(4, ge=1)
    page_timeout_s: float = Field(20.0, gt=0)
    tab_uses: int = Field(20, ge=1)  # pages one tab serves before it is closed; 1 = a fresh tab per page


class FetchSettings(Section):
    user_agent: str = "fathom-ray/0.1 (+https://github.com/fathom-ray/fathom-ray)"
    max_body_bytes: int = Field(5_000_000, gt=0)
    preview_bytes: int = Field(16_384, gt=0)
    timeout_s: float = Field(15.0, gt=0)
    min_host_delay_s: float = Field(1.0, ge=0)
    respect_robots: bool = True
    allow_hosts: tuple[str, ...] = ()


class SearchSettings(Section):
    backend: Literal["ddgs", "searxng", "local"] = "ddgs"
    region: str = "wt-wt"
    safesearch: Literal["on", "moderate", "off"] = "moderate"
    timelimit: Literal["d", "w", "m", "y"] | None = None
    max_results: int = Field(10, ge=1, le=100)
    searxng_url: str | None = None
    local_index: Path | None = None


class Price(Section):
    """USD per million tokens."""

    prompt_per_mtok: float = Field(ge=0)
    completion_per_mtok: float = Field(ge=0)


JudgeBackend = Literal["evidence", "vllm", "openai"]


class LLMSettings(Section):
    """The judge. ``backend`` ``auto`` is the evidence judge unless a model, an endpoint or a GPU is there."""

    backend: Literal["auto", "evidence", "vllm", "openai"] = "auto"
    device: Literal["auto", "cpu", "cuda"] = "auto"  # auto: CUDA when the cluster has a GPU now
    model: str | None = None
    base_url: str | None = None
    api_key: SecretStr | None = None
    max_tokens: int = Field(1024, ge=1)
    timeout_s: float = Field(120.0, gt=0)
    temperature: float = Field(0.0, ge=0.0)
    max_retries: int = Field(2, ge=0)
    max_queue: int = Field(256, ge=1)
    queue_wait_s: float = Field(60.0, gt=0)
    kv_cache_bytes: int = Field(1 << 30, gt=0)
    max_model_len: int = Field(4096, ge=512)
    page_chars: int = Field(6000, ge=500)
    prices: dict[str, Price] = Field(default_factory=dict)

    evidence_threshold: float = Field(0.45, ge=0.0, le=1.0)  # the evidence judge's bar for a fact

    def resolved_backend(self, gpu: bool) -> JudgeBackend:
        """What ``auto`` stands for: an endpoint, then a model or a GPU (vLLM), else the evidence judge."""
        if self.backend != "auto":
            return self.backend
        if self.base_url:
            return "openai"
        if self.model or gpu:
            return "vllm"
        return "evidence"

    def resolved(self, gpu: bool) -> LLMSettings:
        """These settings with ``auto`` replaced by the backend it stands for."""
        return self.model_copy(update={"backend": self.resolved_backend(gpu)})

    @model_validator(mode="after")
    def _endpoint_for_openai(self) -> LLMSettings:
        if self.backend == "openai" and not self.base_url:
            raise ValueError("the openai backend needs base_url (FATHOM_LLM__BASE_URL)")
        return self


class EmbedderSettings(Section):
    model: str = "all-MiniLM-L6-v2"
    # Texts are sorted by length and padded per batch: small batches pad little (bench_evidence.py).
    batch_size: int = Field(8, ge=1)
    # torch's CPU threads per process: one spends the least CPU per text (more lower the latency of
    # one large batch); None leaves torch's default. No effect on a GPU.
    threads: int | None = Field(1, ge=1)
    # bfloat16 on a CPU that computes it natively ("auto"), else float32; the engine's shared
    # embedder keeps float32 (the judge was tuned on it), `fathom docs add` embeds with "auto"
    precision: Literal["float32", "bfloat16", "auto"] = "float32"
    # What runs the model: torch (sentence-transformers), or numpy (fathom_ray.adapters.minilm: the
    # same float32 vectors, loaded in 0.2 s where torch takes 4-5 CPU-s, at about 1.5x the CPU per
    # text). "auto": numpy for a command's own engine on a CPU in float32 (a short life: its start
    # counts), torch for an engine kept for many commands (`fathom up`, `fathom serve`), on a GPU,
    # in bfloat16 and for `fathom docs add` (throughput counts).
    runtime: Literal["auto", "torch", "numpy"] = "auto"

    def resolved(self, *, kept: bool, gpu: bool) -> EmbedderSettings:
        """These settings with ``runtime`` "auto" replaced by the runtime it stands for."""
        if self.runtime != "auto":
            return self
        numpy = not kept and not gpu and self.precision == "float32"
        return self.model_copy(update={"runtime": "numpy" if numpy else "torch"})


class QdrantSettings(Section):
    url: str | None = None
    api_key: SecretStr | None = None
    collection: str = "fathom_sources"


class Neo4jSettings(Section):
    uri: str | None = None
    user: str = "neo4j"
    password: SecretStr | None = None


class GraphSettings(Section):
    backend: Literal["sqlite", "neo4j"] = "sqlite"


class DocsSettings(Section):
    """The user's own documents: limits, chunking, the collection (embedded in ``data_dir/docstore``
    or on the Qdrant server of ``FATHOM_QDRANT__URL``), hybrid search's fusion."""

    max_bytes: int = Field(50_000_000, ge=1)
    chunk_chars: int = Field(900, ge=200)
    overlap_chars: int = Field(150, ge=0)
    contextual_header: bool = True  # embed "title / heading" with each chunk
    collection: str = "fathom_documents"
    sparse_weight: float = Field(SPARSE_WEIGHT, gt=0)  # hybrid search: the BM25 side's weight in RRF
    # ingestion embeds with every core of its machine, in bfloat16 where the CPU computes it natively
    embed_precision: Literal["float32", "bfloat16", "auto"] = "auto"


class RaySettings(Section):
    """The local Ray that `fathom serve` (and `fathom research --dashboard`) starts."""

    dashboard_port: int = Field(8265, ge=1, le=65_535)  # taken: the next free one, said
    metrics_port: int = Field(8266, ge=1, le=65_535)  # Ray's Prometheus endpoint for this node


class EngineSettings(Section):
    """The engine `fathom up` keeps in the background for the commands of a data folder."""

    idle_timeout_s: float = Field(1800.0, gt=0)  # stopped after this long with no command on it


_TOKEN_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")


class ApiSettings(Section):
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65_535)
    token: SecretStr | None = None  # the operator's: every session, every route
    # named tokens, each seeing only the sessions it started: {"alice": "...", "bob": "..."}
    tokens: dict[str, SecretStr] = Field(default_factory=dict)
    max_sessions: int = Field(2, ge=1)  # running at once, per Serve replica
    replicas: int = Field(1, ge=1, le=64)  # Serve replicas of the API, spread over the nodes
    heartbeat_s: float = Field(15.0, gt=0)

    @model_validator(mode="after")
    def _token_off_loopback(self) -> ApiSettings:
        if self.token is None and not self.tokens and not _is_loopback(self.host):
            raise ValueError(
                "binding beyond loopback needs a token (FATHOM_API__TOKEN or FATHOM_API__TOKENS)"
            )
        return self

    @model_validator(mode="after")
    def _tokens_named_and_distinct(self) -> ApiSettings:
        secrets = [t.get_secret_value() for t in self.tokens.values()]
        if self.token is not None:
            secrets.append(self.token.get_secret_value())
        for name in self.tokens:
            if not _TOKEN_NAME.fullmatch(name):
                raise ValueError(f"token name {name!r}: 1-64 letters, digits, '.', '_' or '-'")
        if not all(secrets):
            raise ValueError("an API token cannot be empty")
        if len(set(secrets)) < len(secrets):
            raise ValueError("two API tokens are the same: each must tell its holder apart")
        return self


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _default_data_dir() -> Path:
    return Path.home() / ".local" / "share" / "fathom-ray"


class Settings(BaseSettings):
    """The whole tree; see the module docstring for how the environment maps onto it."""

    model_config = SettingsConfigDict(
        env_prefix="FATHOM_", env_nested_delimiter="__", frozen=True, extra="forbid"
    )

    data_dir: Path = Field(default_factory=_default_data_dir)
    research: ResearchSettings = ResearchSettings()
    swarm: SwarmSettings = SwarmSettings()
    browser: BrowserSettings = BrowserSettings()
    fetch: FetchSettings = FetchSettings()
    search: SearchSettings = SearchSettings()
    llm: LLMSettings = LLMSettings()
    embedder: EmbedderSettings = EmbedderSettings()
    qdrant: QdrantSettings = QdrantSettings()
    docs: DocsSettings = DocsSettings()
    neo4j: Neo4jSettings = Neo4jSettings()
    graph: GraphSettings = GraphSettings()
    api: ApiSettings = ApiSettings()
    ray: RaySettings = RaySettings()
    engine: EngineSettings = EngineSettings()

    @model_validator(mode="after")
    def _neo4j_needs_uri(self) -> Settings:
        if self.graph.backend == "neo4j" and not self.neo4j.uri:
            raise ValueError("graph backend neo4j needs FATHOM_NEO4J__URI")
        return self


def load_settings(**overrides: Any) -> Settings:
    """Settings from the environment, with keyword overrides on top.

    Raises ``ConfigError`` naming every bad field.
    """
    try:
        return Settings(**overrides)
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'settings'}: {err['msg']}" for err in e.errors()
        )
        raise ConfigError(f"invalid settings: {problems}") from e


def ingest_embedder(settings: Settings) -> EmbedderSettings:
    """The embedder a document ingestion runs: the engine's, on every core, in the documents'
    precision (the engine's shared embedder stays on one thread per process, in float32)."""
    update: dict[str, object] = {"threads": os.cpu_count() or 1, "precision": settings.docs.embed_precision}
    if settings.embedder.runtime == "auto":  # a bulk of texts: torch's CPU per text is the lower
        update["runtime"] = "torch"
    elif settings.embedder.runtime == "numpy":  # named by the user: it computes in float32 only
        update["precision"] = "float32"
    return settings.embedder.model_copy(update=update)
