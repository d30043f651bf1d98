"""Text compared as people read it: case, quotes, spacing and articles set aside.

The evidence judge checks an answer against a gold text with it, and `fathom eval` scores runs
with it, so both read a match the same way.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_QUOTES = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"}
)
_NOT_WORD = re.compile(r"[^\w]+")
_ARTICLES = {"a", "an", "the"}


def normalise_text(text: str) -> str:
    """Unicode-composed, case-folded, straight quotes, single spaces."""
    return " ".join(unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold().split())


def normalise_answer(text: str) -> str:
    """Words only: punctuation becomes space, articles go (SQuAD-style answer normalisation)."""
    words = _NOT_WORD.sub(" ", normalise_text(text).replace("_", " ")).split()
    return " ".join(w for w in words if w not in _ARTICLES)


def answer_match(text: str, answer: str, aliases: Iterable[str] = ()) -> bool:
    """Whether the gold answer or an alias occurs in ``text`` as whole words, after normalisation."""
    haystack = f" {normalise_answer(text)} "
    return any((needle := normalise_answer(a)) and f" {needle} " in haystack for a in (answer, *aliases))
