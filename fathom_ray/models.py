"""The values the engine passes around, between core functions and actors.

All are frozen, slotted dataclasses: cheap, hashable where they can be, and
picklable across Ray. Pydantic models live only at trust boundaries
(settings, HTTP bodies, LLM answers).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

from fathom_ray.errors import InvalidRequestError, InvalidURLError
from fathom_ray.research.presets import DEFAULT_DEPTH, PRESETS, Budget, Preset, budget_of, get_preset
from fathom_ray.web.urls import canonicalize

JsonValue: TypeAlias = "str | int | float | bool | list[JsonValue] | dict[str, JsonValue] | None"

GOAL_MIN_CHARS = 5
GOAL_MAX_CHARS = 2_000
MAX_SEEDS = 20
MAX_PAGES = max(preset.max_pages for preset in PRESETS.values())  # the most any request may fetch
SOURCES = ("web", "documents")


@dataclass(frozen=True, slots=True)
class ResearchRequest:
    """What a caller asks for; checked on construction."""

    goal: str
    depth: str = DEFAULT_DEPTH
    seeds: tuple[str, ...] = ()
    max_pages: int | None = None
    time_budget_s: float | None = None
    token_budget: int | None = None
    sources: tuple[str, ...] = ("web",)  # where pages come from: the web, the user's documents, both
    owner: str = ""  # the API token's name that started it, where tokens are isolated (FATHOM_API__TOKENS)
    # resolved once, on construction, from the preset and the limits above
    preset: Preset = field(init=False, repr=False, compare=False)
    budget: Budget = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        goal = self.goal.strip()
        if not GOAL_MIN_CHARS <= len(goal) <= GOAL_MAX_CHARS:
            raise InvalidRequestError(
                "goal", f"must be {GOAL_MIN_CHARS}-{GOAL_MAX_CHARS} characters, got {len(goal)}"
            )
        object.__setattr__(self, "goal", goal)
        object.__setattr__(self, "preset", get_preset(self.depth))
        if len(self.seeds) > MAX_SEEDS:
            raise InvalidRequestError("seeds", f"at most {MAX_SEEDS}, got {len(self.seeds)}")
        try:
            object.__setattr__(self, "seeds", tuple(canonicalize(url) for url in self.seeds))
        except InvalidURLError as e:
            raise InvalidRequestError("seeds", f"{e.url!r}: {e.reason}") from e
        sources = tuple(dict.fromkeys(self.sources))
        if not sources or not set(sources) <= set(SOURCES):
            raise InvalidRequestError(
                "sources", f"one or more of {', '.join(SOURCES)}, got {list(self.sources)}"
            )
        object.__setattr__(self, "sources", sources)
        for name in ("max_pages", "time_budget_s", "token_budget"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise InvalidRequestError(name, f"must be >= 1, got {value}")
        if self.max_pages is not None and self.max_pages > MAX_PAGES:
            raise InvalidRequestError("max_pages", f"at most {MAX_PAGES}, got {self.max_pages}")
        budget = budget_of(self.preset, self.max_pages, self.time_budget_s, self.token_budget)
        object.__setattr__(self, "budget", budget)

    def to_json(self) -> dict[str, JsonValue]:
        """What the request was made with, as JSON (the stores' checkpoints, the engine's door)."""
        return {
            "goal": self.goal,
            "depth": self.depth,
            "seeds": list(self.seeds),
            "max_pages": self.max_pages,
            "time_budget_s": self.time_budget_s,
            "token_budget": self.token_budget,
            "sources": list(self.sources),
            "owner": self.owner,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> ResearchRequest:
        """A request from ``to_json``'s JSON (one stored before budgets and sources were kept too);
        a missing goal is a KeyError, a field of the wrong kind a TypeError or ValueError."""

        def number(key: str) -> int | float | None:
            value = data.get(key)
            if value is not None and not isinstance(value, int | float):
                raise TypeError(f"{key}: a number, not {value!r}")
            return value

        def strings(key: str, default: Sequence[str] = ()) -> tuple[str, ...]:
            value = data.get(key, list(default))
            if not isinstance(value, list):
                raise TypeError(f"{key}: a list, not {value!r}")
            return tuple(str(v) for v in value)

        max_pages, tokens = number("max_pages"), number("token_budget")
        return cls(
            str(data["goal"]),
            str(data.get("depth", DEFAULT_DEPTH)),
            strings("seeds"),
            None if max_pages is None else int(max_pages),
            time_budget_s=number("time_budget_s"),
            token_budget=None if tokens is None else int(tokens),
            sources=strings("sources", ("web",)),
            owner=str(data.get("owner", "")),
        )


@dataclass(frozen=True, slots=True)
class ChecklistItem:
    """One question the research must answer."""

    id: str
    question: str
    satisfied: bool = False
    fact_ids: tuple[str, ...] = ()


class CandidateOrigin(enum.StrEnum):
    """Where a candidate URL came from."""

    SEED = "seed"
    SEARCH = "search"
    LINK = "link"
    MEMORY = "memory"
    DOCUMENT = "document"  # a chunk of the user's documents (doc://ID#chunk)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A URL the frontier may fetch, with what is known of it before fetching."""

    url: str
    origin: CandidateOrigin
    title: str = ""
    snippet: str = ""
    query: str = ""
    rank: int = 0  # its rank, from 1, in the list that proposed it (search results, links, ...); 0 unknown
    support: float = 0.0  # sum of 1 / (60 + rank) over every list that proposed it (the frontier keeps it)


class FetchStatus(enum.StrEnum):
    """How a fetch ended; every value but ``OK`` is a failure reason."""

    OK = "ok"
    HTTP_ERROR = "http_error"
    TIMEOUT = "timeout"
    NETWORK_ERROR = "network_error"
    BLOCKED = "blocked"
    ROBOTS = "robots"
    UNSUPPORTED_TYPE = "unsupported_type"
    TOO_LARGE = "too_large"
    TOO_MANY_REDIRECTS = "too_many_redirects"
    BROWSER_CRASHED = "browser_crashed"


@dataclass(frozen=True, slots=True)
class FetchResult:
    """What a fetcher brought back; a failure is a value, never an exception."""

    url: str
    status: FetchStatus
    final_url: str = ""
    http_status: int | None = None
    content_type: str = ""
    body: str = ""
    data: bytes = b""
    elapsed_s: float = 0.0
    error: str = ""
    redirects: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status is FetchStatus.OK


@dataclass(frozen=True, slots=True)
class Preview:
    """The head of a page, read cheaply before paying for a browser fetch."""

    url: str
    status: FetchStatus
    final_url: str = ""
    http_status: int | None = None
    content_type: str = ""
    title: str = ""
    text_chars: int = 0
    error: str = ""

    @property
    def usable(self) -> bool:
        """Fetched fine and shows some text (the mechanical gate of a preview-first batch)."""
        return self.status is FetchStatus.OK and self.text_chars > 0


@dataclass(frozen=True, slots=True)
class SearchResult:
    """One result of a search backend, ``rank`` counted from 1 per query."""

    title: str
    url: str
    snippet: str
    rank: int
    backend: str
    query: str = ""


@dataclass(frozen=True, slots=True)
class Link:
    """A link found on a page: absolute canonical URL, anchor text and the text around it."""

    url: str
    text: str = ""
    context: str = ""


@dataclass(frozen=True, slots=True)
class PageMetadata:
    """What a page says about itself, where it says it."""

    date: str | None = None
    author: str | None = None
    site_name: str | None = None
    language: str | None = None


@dataclass(frozen=True, slots=True)
class ExtractedPage:
    """The main text of a fetched page, its links and metadata, and the method that produced it."""

    url: str
    title: str
    text: str
    links: tuple[Link, ...] = ()
    metadata: PageMetadata = PageMetadata()
    method: str = ""


@dataclass(frozen=True, slots=True)
class Fact:
    """A claim with the verbatim quote that supports it and the page it came from."""

    id: str
    claim: str
    evidence: str
    source_url: str
    checklist_ids: tuple[str, ...] = ()
    confidence: float = 0.0
    topic: str = ""
    confirms: tuple[str, ...] = ()
    contradicts: tuple[str, ...] = ()


class EventType(enum.StrEnum):
    """Event types: the reference design's, then ours."""

    DECOMPOSE = "decompose"
    MEMORY_SOURCES = "memory_sources"
    SEARCHING = "searching"
    RANKED = "ranked"
    FETCHING = "fetching"
    ANALYZED = "analyzed"
    FACTS = "facts"
    ROUND_END = "round_end"
    COMPLETE = "complete"
    ERROR = "error"
    FETCH_FAILED = "fetch_failed"
    CHECKLIST_PROGRESS = "checklist_progress"
    COMPOSING = "composing"
    AGENT = "agent"  # a swarm's agent assigned, complete, failed or cancelled (its id in ``agent``)

    @property
    def is_terminal(self) -> bool:
        return self in (EventType.COMPLETE, EventType.ERROR)


@dataclass(frozen=True, slots=True)
class Event:
    """One progress event of a session; ``seq`` counts from 1 per session."""

    session_id: str
    seq: int
    type: EventType
    data: Mapping[str, JsonValue] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Usage:
    """What LLM calls cost; ``cost_usd`` is None when the model has no price."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    cost_usd: float | None = None

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        costs = [c for c in (self.cost_usd, other.cost_usd) if c is not None]
        return Usage(
            calls=self.calls + other.calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            latency_s=self.latency_s + other.latency_s,
            cost_usd=sum(costs) if costs else None,
        )
