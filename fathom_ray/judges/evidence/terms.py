"""Terms for matching questions to sentences: BM25's tokens, lightly stemmed, and a question's keywords."""

from __future__ import annotations

import re

from fathom_ray.text.term_match import STOPWORDS, tokenize

# Words that shape a question but say nothing about its subject.
QUESTION_WORDS = frozenset(
    [
        "who",
        "whom",
        "whose",
        "which",
        "what",
        "when",
        "where",
        "why",
        "how",
        "since",
        "much",
        "many",
        "does",
        "did",
        "do",
        "can",
        "could",
        "should",
        "would",
        "also",
        "about",
        "there",
        "their",
        "them",
        "they",
        "its",
        "it",
        "into",
        "than",
        "then",
        "these",
        "those",
        "such",
        "same",
        "other",
        "another",
        "one",
        "first",
        "take",
        "takes",
        "give",
        "gives",
        "tell",
        "say",
        "says",
        "according",
        # a contraction's stem ("isn't" is read as "isn"): a search engine takes it for a word
        "isn",
        "aren",
        "wasn",
        "weren",
        "don",
        "doesn",
        "didn",
        "won",
        "hasn",
        "haven",
        "hadn",
        "couldn",
        "shouldn",
        "wouldn",
    ]
)
_WORD = re.compile(r"[A-Za-z0-9][\w.+#-]*[\w+#]|[A-Za-z0-9]")
_SUFFIXES = ("ing", "ed", "es", "s")
_SITE_SUFFIX = re.compile(r"\s+(?:\u2014|\u2013|\||-|::)\s+")


def stem(token: str) -> str:
    """Drop one common English suffix from a long plain word; names with digits or dots stay whole."""
    if len(token) <= 4 or not token.isalpha():
        return token
    for suffix in _SUFFIXES:
        if token.endswith(suffix) and len(token) - len(suffix) >= 4:
            return token[: -len(suffix)]
    return token


def terms(text: str) -> list[str]:
    """Stemmed lower-case tokens without stop words, in order."""
    return [stem(t) for t in tokenize(text)]


def query_terms(question: str) -> list[str]:
    """A question's terms without its question words, each once."""
    return list(dict.fromkeys(t for t in terms(question) if t not in QUESTION_WORDS))


def keywords(text: str) -> list[str]:
    """Content words as written (case kept), each once: what a search query is made of."""
    seen: set[str] = set()
    words: list[str] = []
    for word in _WORD.findall(text):
        key = word.lower().rstrip(".")
        if key in STOPWORDS or key in QUESTION_WORDS or key in seen or (len(key) < 2 and not key.isdigit()):
            continue
        seen.add(key)
        words.append(word.rstrip("."))
    return words


def title_match(title: str, query: str) -> float:
    """Share of a title's terms that the query holds: 1.0 for a page named after what the query
    asks ("MERGE" for "MERGE PostgreSQL SQL", "5.3. Generated Columns" for "generated columns
    PostgreSQL"), low for a page on something else that mentions it. Numbers are not terms here,
    nor the site's name after the title's separator ("Index — Python 3.11.2 documentation")."""
    own = _SITE_SUFFIX.split(title, maxsplit=1)[0]  # "Index — Python 3.11.2 documentation": "Index"
    words = {t for t in terms(own) if not t.replace(".", "").isdigit()}
    if not words:
        return 0.0
    return len(words & set(terms(query))) / len(words)
