"""The ports: what the core needs from the outside world, as Protocols.

Adapters in ``fathom_ray/adapters/`` implement them with one technology
each; tests use fakes from ``tests/``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from fathom_ray.documents.models import Chunk, Document, DocumentHit
from fathom_ray.frontier import SessionFrontier
from fathom_ray.llm import answers
from fathom_ray.llm.judge import Judged, JudgeInfo
from fathom_ray.models import (
    ChecklistItem,
    Event,
    ExtractedPage,
    Fact,
    FetchResult,
    Preview,
    SearchResult,
    Usage,
)
from fathom_ray.session_state import SessionState, SessionSummary


class Resolver(Protocol):
    async def resolve(self, host: str) -> list[str]:
        """The IP addresses of ``host``; empty when it does not resolve."""
        ...


class Searcher(Protocol):
    name: str

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        """Ranked results, best first; ``SearchError`` when the backend cannot answer."""
        ...


class Fetcher(Protocol):
    async def fetch(self, url: str) -> FetchResult:
        """The page at ``url``; a failure is a ``FetchResult`` value, never an exception."""
        ...


class Previewer(Protocol):
    async def preview(self, url: str) -> Preview:
        """The head of the page at ``url``, read cheaply; failures are values."""
        ...


class Extractor(Protocol):
    def extract(self, html: str, url: str) -> ExtractedPage: ...


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
