"""Words and how well short texts match them: the tokens every BM25 here shares, and BM25 over a handful
of texts at once (Robertson and Zaragoza, 2009), which ranking uses for titles, URLs and snippets.

Indexes of whole sites and folders live in ``text_index`` (tantivy).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

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


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens without stop words; dotted names (``sqlite3.connect``) stay whole."""
    return [token for token in TOKEN.findall(text.lower()) if token not in STOPWORDS]


def snippet(text: str, terms: set[str], width: int = 240) -> str:
    """The window of ``text`` that holds the most distinct query terms (the earliest such), as a web
    search engine's snippet shows the passage that matches; the start of ``text`` when none is found.
    ``terms`` are ``tokenize``'s words."""
    lowered = text.lower()
    hits = [(m.start(), m.group(0)) for m in TOKEN.finditer(lowered) if m.group(0) in terms]
    start = 0
    if hits:
        best, first, held = 0, 0, Counter[str]()
        for position, term in hits:
            held[term] += 1
            while position - hits[first][0] > width * 3 // 4:  # room for the words around them
                held[hits[first][1]] -= 1
                if not held[hits[first][1]]:
                    del held[hits[first][1]]
                first += 1
            if len(held) > best:
                best, start = len(held), hits[first][0]
        start = max(0, start - width // 8)
    window = " ".join(text[start : start + width].split())
    prefix = "… " if start > 0 else ""
    suffix = " …" if start + width < len(text) else ""
    return f"{prefix}{window}{suffix}"


K1 = 1.2
B = 0.75


def match_scores(texts: Sequence[str], queries: Sequence[str]) -> list[list[float]]:
    """Per query, how well each text matches it in [0, 1]: BM25 over ``texts`` as a collection,
    divided by the query's best score (0 everywhere for a query no text matches)."""
    counts = [Counter(tokenize(text)) for text in texts]
    lengths = [sum(c.values()) for c in counts]
    average = (sum(lengths) / len(lengths) if lengths else 0.0) or 1.0
    holding: Counter[str] = Counter(term for c in counts for term in c)
    result: list[list[float]] = []
    for query in queries:
        row = [0.0] * len(texts)
        for term in set(tokenize(query)):
            if not holding[term]:
                continue
            idf = math.log(1 + (len(texts) - holding[term] + 0.5) / (holding[term] + 0.5))
            for n, count in enumerate(counts):
                if tf := count[term]:
                    norm = K1 * (1 - B + B * lengths[n] / average)
                    row[n] += idf * tf * (K1 + 1) / (tf + norm)
        top = max(row, default=0.0)
        result.append([score / top for score in row] if top > 0 else row)
    return result
