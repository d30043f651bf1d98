"""A small Okapi BM25 full-text index (Robertson and Zaragoza, 2009).

Used by the ``local`` search backend and by the offline test web's search
engine. Documents are (url, title, text); titles count twice. The index
keeps a bounded prefix of each text for snippets and saves to JSON.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

TOKEN = re.compile(r"[a-z0-9]+(?:[._][a-z0-9]+)*")
STOPWORDS = frozenset(
    (
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "what",
        "when",
        "which",
        "who",
        "will",
        "with",
        "how",
        "does",
        "did",
        "do",
    )
)
SNIPPET_SOURCE_CHARS = 20_000
FORMAT_VERSION = 1


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens without stop words; dotted names (``sqlite3.connect``) stay whole."""
    return [token for token in TOKEN.findall(text.lower()) if token not in STOPWORDS]


@dataclass(frozen=True, slots=True)
class IndexedDocument:
    url: str
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class Hit:
    url: str
    title: str
    snippet: str
    score: float


@dataclass(slots=True)
class Bm25Index:
    """Inverted index with BM25 scoring; build with ``add`` then ``freeze``, or ``load``."""

    k1: float = 1.2
    b: float = 0.75
    documents: list[IndexedDocument] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    postings: dict[str, dict[int, int]] = field(default_factory=dict)

    def add(self, document: IndexedDocument) -> None:
        doc_id = len(self.documents)
        tokens = tokenize(document.title) * 2 + tokenize(document.text)
        for term, count in Counter(tokens).items():
            self.postings.setdefault(term, {})[doc_id] = count
        self.lengths.append(len(tokens))
        self.documents.append(
            IndexedDocument(document.url, document.title, document.text[:SNIPPET_SOURCE_CHARS])
        )

    def extend(self, documents: Iterable[IndexedDocument]) -> Bm25Index:
        for document in documents:
            self.add(document)
        return self

    def __len__(self) -> int:
        return len(self.documents)

    def search(self, query: str, limit: int = 10) -> list[Hit]:
        """The best ``limit`` documents for ``query``, best first; ties keep index order."""
        terms = set(tokenize(query))
        best = sorted(self.scores(terms).items(), key=lambda item: (-item[1], item[0]))[:limit]
        return [self._hit(doc_id, score, terms) for doc_id, score in best]

    def scores(self, terms: Iterable[str]) -> dict[int, float]:
        """The BM25 score of every document holding one of ``terms`` (tokens), by document index."""
        if not self.documents:
            return {}
        average = sum(self.lengths) / len(self.lengths) or 1.0
        total = len(self.documents)
        scores: dict[int, float] = {}
        for term in set(terms):
            posting = self.postings.get(term)
            if not posting:
                continue
            idf = math.log(1 + (total - len(posting) + 0.5) / (len(posting) + 0.5))
            for doc_id, count in posting.items():
                norm = self.k1 * (1 - self.b + self.b * self.lengths[doc_id] / average)
                scores[doc_id] = scores.get(doc_id, 0.0) + idf * count * (self.k1 + 1) / (count + norm)
        return scores

    def _hit(self, doc_id: int, score: float, terms: set[str]) -> Hit:
        document = self.documents[doc_id]
        return Hit(document.url, document.title, snippet(document.text, terms), round(score, 4))

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "version": FORMAT_VERSION,
            "k1": self.k1,
            "b": self.b,
            "documents": [[d.url, d.title, d.text] for d in self.documents],
            "lengths": self.lengths,
            "postings": {term: list(posting.items()) for term, posting in self.postings.items()},
        }
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps(payload), encoding="utf-8")
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> Bm25Index:
        """Read an index written by ``save``; ``ValueError`` if it is not one."""
        payload = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(payload, dict) or payload.get("version") != FORMAT_VERSION:
            raise ValueError(f"{path} is not a fathom-ray index (format {FORMAT_VERSION})")
        return cls(
            k1=float(payload["k1"]),
            b=float(payload["b"]),
            documents=[IndexedDocument(url, title, text) for url, title, text in payload["documents"]],
            lengths=[int(n) for n in payload["lengths"]],
            postings={term: dict(pairs) for term, pairs in payload["postings"].items()},
        )


def snippet(text: str, terms: set[str], width: int = 240) -> str:
    """A window of ``text`` around the first query term found, else its start."""
    lowered = text.lower()
    positions = [lowered.find(term) for term in terms]
    found = [p for p in positions if p >= 0]
    start = max(0, min(found) - width // 4) if found else 0
    window = " ".join(text[start : start + width].split())
    prefix = "… " if start > 0 else ""
    suffix = " …" if start + width < len(text) else ""
    return f"{prefix}{window}{suffix}"


def match_scores(texts: Sequence[str], queries: Sequence[str]) -> list[list[float]]:
    """Per query, how well each text matches it in [0, 1]: BM25 over ``texts`` as a collection,
    divided by the query's best score (0 everywhere for a query no text matches)."""
    index = Bm25Index().extend(IndexedDocument(str(n), "", text) for n, text in enumerate(texts))
    result: list[list[float]] = []
    for query in queries:
        scores = index.scores(tokenize(query))
        top = max(scores.values(), default=0.0)
        row = [0.0] * len(texts)
        for doc_id, score in scores.items() if top > 0 else ():
            row[doc_id] = score / top
        result.append(row)
    return result
