"""The BM25 index fathom-ray wrote itself before tantivy took its place: a baseline for the benches.

Okapi BM25 (Robertson and Zaragoza, 2009) over (url, title, text), titles counted twice, saved to
JSON. scripts/bench_index.py measures tantivy and bm25s beside it, scripts/bench_docs.py searches
chunks with it. No product code imports it.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from fathom_ray.text.term_match import snippet, tokenize
from fathom_ray.text.text_index import Hit, IndexedDocument

SNIPPET_SOURCE_CHARS = 20_000
FORMAT_VERSION = 1


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
