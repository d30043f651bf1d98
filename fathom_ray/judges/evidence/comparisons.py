"""Comparisons: a question that compares options asks each option what decides it.

"Which came first, the telephone or the light bulb?" is settled by when each appeared; "Which
river is longer, the Nile or the Amazon?" by how long each is; "Who was born first, Curie or
Einstein?" by when each was born. The options follow the comparison after a comma or a colon
("A or B", "A, B or C") or stand in "between A and B". A comparison whose deciding question
cannot be read from its words asks each option the comparison itself ("Which has more users: A?").
"""

from __future__ import annotations

import re

from fathom_ray.judges.evidence.enumerations import HOLE, Expansion, split_items

_FRAME_AND_OPTIONS = re.compile(
    r"^\s*(?P<frame>(?:which|who|what)\b[^,:]*?)\s*[,:]\s*(?P<options>[^,:]+(?:,[^,:]+)*\bor\b[^,:]+?)\s*[?.!]?\s*$",
    re.I,
)
_BETWEEN = re.compile(r"^\s*(?P<frame>.+?)\s*,?\s+between\s+(?P<options>.+?\s+and\s+.+?)\s*[?.!]?\s*$", re.I)
_COMPARES = re.compile(
    r"\b(first|earlier|earliest|sooner|before|last|later|latest|newer|newest|most recent|more|less"
    r"|\w{2,}er)\b",
    re.I,
)
_TEMPORAL = re.compile(
    r"\b(first|earlier|earliest|sooner|before|last|later|latest|newer|newest|most recent)\b", re.I
)
_IRREGULAR_PARTICIPLES = frozenset(
    [
        "born",
        "built",
        "made",
        "written",
        "begun",
        "held",
        "found",
        "won",
        "sung",
        "run",
        "set",
        "put",
        "led",
        "sold",
        "told",
        "sent",
        "spent",
        "lit",
        "drawn",
        "taken",
        "given",
        "chosen",
        "broken",
        "spoken",
        "shown",
        "known",
        "seen",
        "done",
        "thrown",
        "grown",
        "flown",
        "founded",
    ]
)
_PARTICIPLE = re.compile(r"\b(?:was|were|is|are|got)\s+(?:first\s+)?(\w+)\b", re.I)
_ADJECTIVE = re.compile(r"\b(is|are|was|were)\s+(?:the\s+)?(?:(?:more|less)\s+(\w+)|(\w{2,}?)er)\b", re.I)
_IRREGULAR_ADJECTIVES = {"bett": "good", "wors": "bad", "furth": "far", "farth": "far"}
_E_STEMS = frozenset(
    [
        "larg",
        "wid",
        "saf",
        "clos",
        "lat",
        "rar",
        "fin",
        "pur",
        "wis",
        "brav",
        "strang",
        "nic",
        "loos",
        "cut",
        "whit",
        "tam",
    ]
)
_SINGULAR = {"are": "is", "were": "was"}
# words in -er that are no comparative
_NOT_COMPARATIVE = frozenset(
    ["other", "another", "whether", "never", "ever", "over", "under", "either", "neither", "number"]
)


def comparison(part: str) -> Expansion | None:
    """``part`` asked of each option it compares; None when it compares nothing."""
    match = _FRAME_AND_OPTIONS.match(part) or _BETWEEN.match(part)
    if match is None:
        return None
    frame = match.group("frame")
    options = split_items(match.group("options"))
    if len(options) < 2 or not _compares(frame):
        return None
    return compare(frame, options)


def compare(frame: str, options: tuple[str, ...]) -> Expansion:
    """The question that decides ``frame`` ("Which came first"), asked of each option."""
    asked = _deciding_question(frame)
    return Expansion(("",), asked, asked, options)


def _compares(frame: str) -> bool:
    words = [m.group(1).lower() for m in _COMPARES.finditer(frame)]
    return any(w not in _NOT_COMPARATIVE for w in words)


def _deciding_question(frame: str) -> str:
    if _TEMPORAL.search(frame):
        participle = _participle(frame)
        return f"When was {HOLE} {participle}" if participle else f"When did {HOLE} first appear"
    adjective = _ADJECTIVE.search(frame)
    if adjective is not None:
        verb = adjective.group(1).lower()
        word = adjective.group(2) or _base_adjective(adjective.group(3))
        if word.lower() not in _NOT_COMPARATIVE and f"{word}er".lower() not in _NOT_COMPARATIVE:
            return f"How {word} {_SINGULAR.get(verb, verb)} {HOLE}"
    return f"{frame.rstrip()}: {HOLE}"


def _participle(frame: str) -> str | None:
    for match in _PARTICIPLE.finditer(frame):
        word = match.group(1).lower()
        if word.endswith("ed") or word in _IRREGULAR_PARTICIPLES:
            return word
    return None


def _base_adjective(stem: str) -> str:
    """The adjective of a comparative's stem: "tall", "bigg" -> "big", "heavi" -> "heavy",
    "larg" -> "large"."""
    lower = stem.lower()
    if lower in _IRREGULAR_ADJECTIVES:
        return _IRREGULAR_ADJECTIVES[lower]
    if lower.endswith("i"):
        return f"{lower[:-1]}y"
    if len(lower) >= 3 and lower[-1] == lower[-2] and lower[-1] not in "ls":
        return lower[:-1]
    if lower in _E_STEMS or lower.endswith(("bl", "pl", "tl")):
        return f"{lower}e"
    return lower
