"""The ports: what the core needs from the outside world, as Protocols.

Adapters in ``fathom_ray/adapters/`` implement them with one technology
each; tests use fakes from ``tests/``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from fathom_ray.documents.models import Chunk, Document, DocumentHit
from fathom_ray.judges.llm import answers
from fathom_ray.models import (
    Candidate,
    ChecklistItem,
    Event,
    ExtractedPage,
    Fact,
    FetchResult,
    Preview,
    SearchResult,
    Usage,
)
from fathom_ray.research.frontier import SessionFrontier
from fathom_ray.research.session_state import SessionState, SessionSummary

if TYPE_CHECKING:  # the swarm's values; the swarm imports these ports
    from fathom_ray.models import JsonValue
    from fathom_ray.swarm.analyst import MergedFact
    from fathom_ray.swarm.coordinator import ResearcherOutcome
    from fathom_ray.swarm.plan import SubGoal
    from fathom_ray.swarm.receipts import Receipt
    from fathom_ray.swarm.task_ledger import Beacon, RecordKind

A = TypeVar("A", bound=answers.Answer)


# -- the judges' vocabulary: what every judge answers with ---------------------------------------


@dataclass(frozen=True, slots=True)
class JudgeInfo:
    """Which judge answers: ``backend`` evidence, vllm, openai (or a test's own), its model, a note."""

    backend: str
    model: str
    note: str = ""

    @property
    def label(self) -> str:
        """How result.json and the live view name the judge: ``evidence (all-MiniLM-L6-v2 + BM25)``."""
        return f"{self.backend} ({self.model})" if self.model else self.backend


@dataclass(frozen=True, slots=True)
class JudgeFailure:
    """Why a judgement has no answer: invalid_json, truncated, timeout or backend_error."""

    kind: str
    detail: str
    attempts: int


@dataclass(frozen=True, slots=True)
class Judged(Generic[A]):
    """An answer or a failure, with what the call cost (all attempts together)."""

    judgement: str
    answer: A | None
    failure: JudgeFailure | None = None
    usage: Usage = field(default_factory=Usage)
    flags: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.answer is not None


class Resolver(Protocol):
    async def resolve(self, host: str) -> list[str]:
        """The IP addresses of ``host``; empty when it does not resolve."""
        ...


class Searcher(Protocol):
    name: str

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        """Ranked results, best first; ``SearchError`` when the backend cannot answer."""
        ...


class Browser(Protocol):
    """A browser as a session uses it: one pool, or a fleet of pools that is itself a Browser."""

    async def fetch(self, url: str) -> FetchResult:
        """The page at ``url``; a failure is a ``FetchResult`` value, never an exception."""
        ...

    async def preview(self, url: str) -> Preview:
        """The head of the page at ``url``, read cheaply; failures are values."""
        ...

    async def crawl_delay(self, url: str) -> float | None:
        """The Crawl-delay its host's robots.txt asks of us, if any."""
        ...


# -- what the research loops call: the engine's actors in production, fakes in tests ------------------


class ExtractorCalls(Protocol):
    async def extract(self, result: FetchResult) -> ExtractedPage: ...


class MemoryCalls(Protocol):
    """Source memory: domains' quality, pages remembered across sessions, sessions' checkpoints."""

    async def domain_qualities(self, domains: Sequence[str]) -> dict[str, float]: ...
    async def suggest(self, vector: Sequence[float], limit: int, exclude: Sequence[str]) -> list[Any]: ...
    async def record_page(
        self, url: str, *, title: str, vector: Sequence[float], signal: float, facts: int
    ) -> None: ...
    async def checkpoint(self, state: SessionState, events: Sequence[Event]) -> None: ...


class FrontierCalls(Protocol):
    """The shared frontier: each session's candidate pool, and politeness per host."""

    async def add(self, session_id: str, candidates: Sequence[Candidate]) -> int: ...
    async def pending(self, session_id: str) -> list[Candidate]: ...
    async def claim(self, session_id: str, urls: Sequence[str]) -> list[str]: ...
    async def known(self, session_id: str) -> list[str]: ...
    async def mark(self, session_id: str, url: str, state: str, reason: str = "") -> None: ...
    async def reserve(self, url: str) -> float: ...
    async def set_crawl_delay(self, url: str, delay_s: float | None) -> None: ...
    async def checkpoint(self, session_id: str) -> None: ...


class SearchCalls(Protocol):
    """Several queries at once, their results merged (``fathom_ray.web.search.search_all``)."""

    async def search(self, queries: Sequence[str], limit: int) -> list[SearchResult]: ...


class AnswerCalls(Protocol):
    """The single-pass baseline's judge: one cited answer from the pages read."""

    async def start(self) -> JudgeInfo: ...

    async def answer(
        self, question: str, pages: Sequence[ExtractedPage]
    ) -> Judged[answers.SinglePassAnswer]: ...


class GraphStore(Protocol):
    """Sessions, their questions, pages and facts, events and frontier state; one per deployment."""

    def save_session(self, state: SessionState) -> None:
        """Keep the session's state (a later save replaces it)."""
        ...

    def load_session(self, session_id: str) -> SessionState | None: ...

    def list_sessions(self) -> list[SessionSummary]:
        """Every session's summary, the last saved first."""
        ...

    def append_events(self, session_id: str, events: Sequence[Event]) -> None: ...

    def events(self, session_id: str, after_seq: int = 0) -> list[Event]: ...

    def save_frontier(self, session_id: str, frontier: SessionFrontier) -> None: ...

    def load_frontier(self, session_id: str) -> SessionFrontier | None: ...

    def record_facts(
        self, session_id: str, questions: Sequence[ChecklistItem], facts: Sequence[Fact]
    ) -> None:
        """The session -> question -> fact -> page graph."""
        ...

    def facts_of_page(self, url: str) -> list[Fact]: ...

    def delete_session(self, session_id: str) -> bool:
        """Forget a session: its state, events, frontier, questions and facts (the pages stay, as
        other sessions read them too); whether it was there."""
        ...

    def close(self) -> None: ...


class Embedder(Protocol):
    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit vector per text, in order."""
        ...


class JudgePort(Protocol):
    """Every judgement the engine makes. Each answers a ``Judged`` value: an answer, or a failure
    the session records; never an exception for a bad answer. ``start`` loads what the judge needs
    (no I/O before it) and says which judge it is (again, cheaply, once started); ``close``
    releases it; ``usage`` is what its calls have cost so far."""

    usage: Usage

    async def start(self) -> JudgeInfo: ...

    async def close(self) -> None: ...

    async def decompose(self, goal: str, count: int) -> Judged[answers.Checklist]: ...

    async def analyse_page(
        self, goal: str, checklist: Sequence[ChecklistItem], facts: Sequence[Fact], page: ExtractedPage
    ) -> Judged[answers.PageAnalysis]: ...

    async def discover_queries(
        self,
        goal: str,
        open_items: Sequence[ChecklistItem],
        done: Sequence[str],
        count: int,
        facts: Sequence[Fact] = (),
    ) -> Judged[answers.Queries]: ...

    async def judge_completeness(
        self, goal: str, checklist: Sequence[ChecklistItem], facts: Sequence[Fact]
    ) -> Judged[answers.Completeness]: ...

    async def compose(
        self, goal: str, checklist: Sequence[ChecklistItem], facts: Sequence[Fact]
    ) -> Judged[answers.Report]: ...

    async def answer(
        self, question: str, pages: Sequence[ExtractedPage]
    ) -> Judged[answers.SinglePassAnswer]: ...

    async def rerank(self, question: str, pages: Sequence[ExtractedPage]) -> Judged[answers.Relevance]: ...

    async def grade(
        self, question: str, gold: str, aliases: Sequence[str], answer_text: str
    ) -> Judged[answers.Verdict]: ...


class DocumentWriter(Protocol):
    """What adding a file needs of the document store: its record by id, and writing it whole."""

    def document(self, document_id: str) -> Document | None: ...
    def put(
        self, document: Document, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]
    ) -> None: ...


class DocumentStore(DocumentWriter, Protocol):
    """The user's documents: records and their chunks, with dense and sparse vectors (sync calls;
    an actor or a thread runs them)."""

    def documents(self) -> list[Document]: ...
    def remove(self, document_id: str) -> bool: ...
    def chunk(self, document_id: str, index: int) -> DocumentHit | None: ...
    def search(
        self, query: str, vector: Sequence[float], limit: int, mode: str = "hybrid"
    ) -> list[DocumentHit]: ...


class DocumentSearch(Protocol):
    """Hybrid search over the documents, as ``fathom ask`` calls it (in process or on an actor)."""

    async def search(
        self, query: str, vector: Sequence[float], limit: int, mode: str = "hybrid"
    ) -> list[DocumentHit]: ...
    async def chunk(self, document_id: str, index: int) -> DocumentHit | None: ...


# -- the swarm's roles: what its coordinator calls, in process or on actors ----------------------


class ResearcherCalls(Protocol):
    async def research(self, sub: SubGoal) -> ResearcherOutcome: ...


class AnalystCalls(Protocol):
    async def merge(self, ledgers: Sequence[tuple[str, Sequence[Fact]]]) -> list[MergedFact]: ...


class VerifierCalls(Protocol):
    async def prefetch(self, urls: Sequence[str]) -> None: ...
    async def check_stored(self, facts: Sequence[Fact], stored: Mapping[str, str]) -> list[Receipt]: ...
    async def check_served(self, facts: Sequence[Fact]) -> list[Receipt]: ...


class PageCalls(Protocol):
    async def page_text(self, url: str, *, rendered: bool = True) -> str | None:
        """The page's text as served now, None if unreachable: as a browser renders it, or (not
        ``rendered``) as its HTML comes over HTTP, which costs a fraction of a browser's work."""
        ...


class LedgerWriter(Protocol):
    """Where a swarm's records go: a ``TaskLedger`` in process, or the ledger actor."""

    def append(
        self,
        agent: str,
        kind: RecordKind,
        data: dict[str, JsonValue] | None = None,
        *,
        beacon: Beacon | None = None,
    ) -> object: ...
