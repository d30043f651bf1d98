"""Expected answer types, as in classic question answering: what kind of answer a question wants,
and how well a sentence offers one.

A "which version" question wants a version string, a "who" question a name or a
"Contributed by" / "written by" phrase, a "when" question a date, a "how many"
question a number, a "what is" question a definition. The match of a sentence is
a score in [0, 1] from surface features; a question with no recognisable type
has no opinion (``None``), and the fusion weighs it out.
"""

from __future__ import annotations

import enum
import re


class AnswerType(enum.StrEnum):
    VERSION = "version"
    DATE = "date"
    PERSON = "person"
    NUMBER = "number"
    NAME = "name"
    YES_NO = "yes/no"
    DEFINITION = "definition"
    NONE = "none"


_QUESTION_TYPES: tuple[tuple[AnswerType, re.Pattern[str]], ...] = (
    (
        AnswerType.VERSION,
        re.compile(
            r"\b(which|what)\s+(?:[\w'-]+\s+){0,2}(version|release)s?\b"
            r"|\bsince (which|what)\b",
            re.I,
        ),
    ),
    (
        AnswerType.DATE,
        re.compile(r"^\s*when\b|\b(what|which)\s+(year|date|day|month)\b|\bsince when\b|,\s*when\b", re.I),
    ),
    (
        AnswerType.PERSON,
        re.compile(
            r"^\s*(?:(?:by|from|with|for|to)\s+)?(who|whom|whose)\b|\b(and|,)\s+(who|whom)\b"
            r"|\bwhich (person|author|people)\b",
            re.I,
        ),
    ),
    (
        AnswerType.NUMBER,
        re.compile(
            r"\bhow (many|much|long|large|big|often|far)\b|\bwhat (number|percentage|size|limit)\b", re.I
        ),
    ),
    (
        AnswerType.DEFINITION,
        re.compile(
            r"^\s*(what|how)\s+(is|are|does|do)\b.{0,60}\b(mean|defined?|do)\b|^\s*define\b"
            r"|^\s*what (is|are) (an?|the)?\s*\w+(\s+\w+)?\s*\??$|\bhow does\b.{0,60}\bdefine\b",
            re.I,
        ),
    ),
    (AnswerType.YES_NO, re.compile(r"^\s*(is|are|does|do|can|could|was|were|has|have|will|should)\b", re.I)),
    (AnswerType.NAME, re.compile(r"\b(which|what)\s+\w+", re.I)),
)

# Words that name an answer type in a question rather than its subject.
TYPE_WORDS = frozenset(
    ["version", "release", "year", "date", "day", "month", "person", "author", "name", "kind", "number"]
)
_VERSION_WORD = re.compile(
    r"\b(version|release|released|since|new in|added in|introduced in|changed in)\b", re.I
)
_VERSION_NUMBER = re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+){0,2}(?![\w.]*\d)")
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_FULL_DATE = re.compile(
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b({_MONTHS})\s+\d{{1,2}},?\s+\d{{4}}\b|\b\d{{1,2}}\s+({_MONTHS})\s+\d{{4}}\b",
    re.I,
)
_YEAR = re.compile(r"\b(19[5-9]\d|20[0-4]\d)\b")
# A year of any age as history writes it: "80 AD", "3000 BC", "the 12th century", "in 1173"
HISTORIC_DATE = re.compile(
    r"\b\d{1,4}\s?(?:BC|BCE|AD|CE)\b|\b(?:AD|CE)\s?\d{1,4}\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)(?:\s+and\s+\d{1,2}(?:st|nd|rd|th))?\s+centur(?:y|ies)\b(?:\s+(?:BC|BCE|AD|CE)\b)?"
    r"|\b(?:in|around|about|circa|c\.|from|between|until|before|after)\s+1\d{3}\b(?!\s?(?:BC|BCE|AD|CE)\b)"
)
_BY_PERSON = re.compile(
    r"\b(contributed|written|authored|created|designed|developed|proposed|implemented|maintained|invented)"
    r"\s+by\s+[A-Z]|\bauthors?\b|\bcreator\b",
    re.I,
)
# Who made a thing: "built ... by the Khmer king", "completed in 80 AD under Emperor Titus"
MAKING = (
    r"(?i:built|constructed|completed|commissioned|founded|erected|raised|carved|begun|started|designed"
    r"|planned|painted|composed|discovered|made|written|laid out|joined|rebuilt|restored)"
)
MADE_BY = re.compile(
    rf"\b{MAKING}\b[^.;]{{0,60}}?\b(?:(?:by|under)\s+(?:the\s+)?|for\s+the\s+)(?:[a-z]+\s+){{0,2}}[A-Z][a-z\u00c0-\u017f]"
    r"|\b(?:attributed to|designs? by|the work of)\s+(?:the\s+)?(?:[a-z]+\s+){0,2}[A-Z][a-z\u00c0-\u017f]"
)
_PERSON_NAME = re.compile(
    r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z\u00c0-\u017f]+(?:\s+[A-Z]\.)?\s+[A-Z][a-z\u00c0-\u017f]+"
)
_NUMBER = re.compile(r"\b\d[\d,.]*\b")
_DEFINITION = re.compile(
    r"\b(is|are)\s+(an?|the)\s+\w+|\brefers? to\b|\bmeans?\b|\bperforms?\b|\bis defined as\b"
    r"|\bspecif(y|ies)\b|\bextracts?\b|\breturns?\b|\bprovides?\b",
    re.I,
)
_PROPER = re.compile(r"(?<!^)\b[A-Z][A-Za-z0-9]*[A-Z0-9][A-Za-z0-9]*\b|(?<!^)(?<![.!?]\s)\b[A-Z][a-z]+\b")


def expected_type(question: str) -> AnswerType:
    """The answer type a question asks for, the first rule that holds; ``NONE`` when none does."""
    return next((kind for kind, pattern in _QUESTION_TYPES if pattern.search(question)), AnswerType.NONE)


def type_match(sentence: str, kind: AnswerType) -> float | None:
    """How well ``sentence`` offers an answer of ``kind``: 1 a clear one, 0.5 a weak sign, 0 none."""
    if kind in (AnswerType.NONE, AnswerType.YES_NO):
        return None
    return _MATCHERS[kind](sentence)


def _version(sentence: str) -> float:
    if not _VERSION_NUMBER.search(sentence):
        return 0.0
    return 1.0 if _VERSION_WORD.search(sentence) else 0.5


def _date(sentence: str) -> float:
    if _FULL_DATE.search(sentence):
        return 1.0
    return 0.5 if _YEAR.search(sentence) or HISTORIC_DATE.search(sentence) else 0.0


def _person(sentence: str) -> float:
    if _BY_PERSON.search(sentence) or MADE_BY.search(sentence):
        return 1.0
    return 0.5 if _PERSON_NAME.search(sentence) else 0.0


def _number(sentence: str) -> float:
    return 1.0 if _NUMBER.search(sentence) else 0.0


def _definition(sentence: str) -> float:
    return 1.0 if _DEFINITION.search(sentence) else 0.0


def _name(sentence: str) -> float:
    found = len(_PROPER.findall(sentence))
    return 1.0 if found >= 2 else 0.5 if found == 1 else 0.0


_MATCHERS = {
    AnswerType.VERSION: _version,
    AnswerType.DATE: _date,
    AnswerType.PERSON: _person,
    AnswerType.NUMBER: _number,
    AnswerType.DEFINITION: _definition,
    AnswerType.NAME: _name,
}
