"""Typed answer spans: the part of a fact's evidence that answers a question, copied verbatim.

The span is what a reader wants on the answer line: the version ("3.8"), the date, the person
("Emily Morehouse"), the number, the name ("PEP 572"; where the sentence names none after the
question's head, a name in code's form: "--branch", "requests.exceptions.JSONDecodeError",
"OVERRIDING SYSTEM VALUE"), or, for a definition, a description ("what ability") or a yes/no
question, the sentence's first clause. It is found by the question's answer type (``answer_types``) and
surface features of the evidence, as in classic question answering, and is always a substring of
the evidence, so the answer line says nothing its fact does not.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from fathom_ray.judges.evidence.answer_types import HISTORIC_DATE, MAKING, AnswerType
from fathom_ray.judges.evidence.decompose import question_sentences

MAX_CLAUSE_CHARS = 160
_VERSION = r"v?\d+\.\d+(?:\.\d+){0,2}(?![\w.]*\d)"
_VERSION_AFTER_WORD = re.compile(
    r"\b(?:version|release|released in|since|new in|added in|introduced in|changed in|python)"
    rf"\s+({_VERSION})",
    re.I,
)
_VERSION_NUMBER = re.compile(rf"(?<![\w.]){_VERSION}")
_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z]*[a-z][A-Za-z]*\b")
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_FULL_DATE = re.compile(
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b(?:{_MONTHS})\s+\d{{1,2}},?\s+\d{{4}}\b|\b\d{{1,2}}\s+(?:{_MONTHS})\s+\d{{4}}\b",
    re.I,
)
_YEAR = re.compile(r"\b(?:19[5-9]\d|20[0-4]\d)\b")
_NAME_WORD = r"[A-Z][\w\u00c0-\u017f'\u2019-]*\.?"
_ONE_PERSON = rf"{_NAME_WORD}(?:\s+(?:van|von|de|der|da|le)?\s*{_NAME_WORD})*"
_BY_PERSON = re.compile(
    r"\b(?i:contributed|written|authored|created|designed|developed|proposed|implemented|maintained|invented)"
    rf"\s+(?i:by)\s+({_ONE_PERSON}(?:(?:,\s*|,?\s+and\s+){_ONE_PERSON})*)"
)
_PERSON_NAME = re.compile(
    r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z\u00c0-\u017f]+(?:\s+[A-Z]\.)?\s+[A-Z][a-z\u00c0-\u017f]+"
)
_MAKER = re.compile(
    rf"(?:\b{MAKING}\b[^.;]{{0,60}}?\b(?:by|under|for(?=\s+the\b))"
    r"|\b(?:attributed to|designs? by|the work of))"
    rf"\s+(?:the\s+)?((?:[a-z]+\s+){{0,2}}{_NAME_WORD}(?:\s+(?:[a-z]+\s+){{0,2}}{_NAME_WORD})*)"
)
_AUTHOR_WORD = re.compile(r"\bauthors?\b|\bcreator\b", re.I)
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w.]*\d)")
_TIME_UNITS = r"(?:second|minute|hour|day|week|month|year)"
_HOW_MANY = re.compile(r"\bhow (?:many|much|long|large|big|often|far)\s+([a-z]+)", re.I)
_WHICH = re.compile(r"\b(?:which|what)\s+((?:[\w-]+\s+){0,3}[\w-]+)", re.I)
_STOP_HEAD = frozenset(
    (
        *("is", "are", "was", "were", "does", "do", "did", "can", "could", "has", "have", "had", "will"),
        *("should", "the", "a", "an", "of", "in", "on", "to", "for", "by", "with", "and", "or", "that"),
        *("this", "these", "those", "it", "its", "first"),
    )
)
# after the head: a number, a capitalised word or a name in code's form ("clean.requireForce",
# "xpg_echo"); never a closing full stop
_IDENTIFIER_AFTER = r"\s+((?:[\w.-]*\d[\w.-]*|[A-Z][\w.-]*|[a-z]\w*[._]\w[\w.]*|[a-z]+[A-Z]\w*)(?<![.-]))"
_CODE_BEFORE = r"([A-Za-z_][\w.]*)\s+"
# a word that names rather than describes: capitals past its first letter, a digit, "_" or "."
_NAME_LIKE = re.compile(r"^[A-Z]{2,}|.[A-Z]|[\d_.]")
_CODE_NAME = re.compile(
    r"(?<![\w-])--?[A-Za-z][\w-]*(?:=[\w.:-]+)?"  # an option
    r"|\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?"  # a dotted name
    r"|\b[A-Za-z_]\w*\(\)"  # a called name
    r"|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b"  # snake_case, SCREAMING_CASE
    r"|\b[A-Z]{2,}(?:[ \t]+[A-Z]{2,})+\b"  # a keyword phrase in capitals
    r"|\b[A-Z][a-z]+(?:[A-Z][a-z\d]+)+\b"  # CamelCase: a class
    r"|\b[a-z_][a-z\d_]*=[\w.]+"  # a keyword argument: strict=True
    r"|(?<=[\"'])\.[a-z][a-z\d_]*(?=[\"'])"  # a dot-command in quotes: ".tables"
)
_DESCRIBED = frozenset(  # heads whose answer is a description ("what ability"), not a name
    (
        *("ability", "change", "feature", "difference", "reason", "purpose", "benefit", "advantage"),
        *("problem", "effect", "behaviour", "behavior", "improvement", "way", "role", "kind", "sort"),
        *("type", "use"),
    )
)
_ABBREVIATION = re.compile(r"[A-Za-z](?:\.[A-Za-z])+")  # "e.g", "i.e": a dotted name of letters alone
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+|\bwww\.\S+", re.I)
_CODE_KINDS = (
    (re.compile(r"\b(?:exception|error|warning)s?\b"), re.compile(r"(?:Error|Exception|Warning)$")),
    (re.compile(r"\b(?:option|flag|switch)s?\b"), re.compile(r"^-")),
    (re.compile(r"\b(?:function|method|call)s?\b"), re.compile(r"\(\)$")),
)
MAX_TERM_WORDS = 4
_BULLET = re.compile(r"^[-\u2022*]\s+")
_ARGUMENT = re.compile(r"\s+<[^<>]*>$")
_CODE_WORD = re.compile(r"^-{1,2}\w|[A-Za-z0-9]_[A-Za-z]|[a-z]\.[A-Za-z]|\w\(\)|^<|^\[")
_CLAUSE_END = re.compile(r"[.;:!?](?=\s|$)|,\s|\s[\u2013\u2014-]\s")


def typed_span(evidence: str, question: str, kind: AnswerType) -> str | None:
    """The span of ``evidence`` that answers ``question`` as an answer of ``kind``; None when the
    evidence holds no answer of that kind. Definitions, yes/no and untyped questions get a short
    clause of the evidence (never None for non-empty evidence)."""
    if kind in _TYPED:
        return _TYPED[kind](evidence, question)
    if kind is AnswerType.NAME:
        return (
            named_after(evidence, question)
            or term_span(evidence, question)
            or _named_before(evidence, question)
            or code_span(evidence, question)
            or short_clause(evidence)
        )
    return short_clause(evidence)


def defined_term(line: str) -> bool:
    """Whether ``line`` is the term a description under it defines, as reference pages list options,
    variables and settings ("inherit_errexit", "- --branch <name>", "BASH_COMPAT ¶"): a few words,
    no sentence, one of them in code's form. A sentence describing it leaves it unsaid ("If set,
    command substitution inherits ..."), so a fact holds both."""
    words = _term(line).split()
    if not 0 < len(words) <= MAX_TERM_WORDS or line.rstrip()[-1] in ".!?:;,":
        return False
    return any(_CODE_WORD.search(w) for w in words)


def term_span(evidence: str, question: str) -> str | None:
    """The term the evidence's description defines (its first line, when that is a defined term the
    question does not say): what "which shopt option ..." asks of "inherit_errexit / If set, ..."."""
    first, newline, rest = evidence.strip().partition("\n")
    if not newline or not rest.strip() or not defined_term(first.strip()) or _asks_description(question):
        return None
    term = _term(first)
    return None if term.casefold() in question.casefold() else term


def _term(line: str) -> str:
    """The term of a term line, without its bullet, permalink mark and argument ("--branch <name>")."""
    return _ARGUMENT.sub("", _BULLET.sub("", line.strip()).rstrip("\u00b6 "))


def short_clause(evidence: str) -> str | None:
    """The evidence's first clause, at most ``MAX_CLAUSE_CHARS`` characters, cut at a boundary."""
    text = evidence.strip()
    if not text:
        return None
    head = text[: MAX_CLAUSE_CHARS + 1]
    ends = [m.start() for m in _CLAUSE_END.finditer(head) if m.start() >= 20]
    if ends:
        return head[: ends[0]].strip()
    if len(text) <= MAX_CLAUSE_CHARS:
        return text
    return head[: head.rfind(" ")].strip() if " " in head else head[:MAX_CLAUSE_CHARS]


def _version(evidence: str, question: str) -> str | None:
    """A version after the name of what the question asks about ("SQLite 3.37.0" for "which SQLite
    version", before another version the sentence names), after a word that says "version", or
    the first."""
    names = sorted({w for w in _CAPITALISED.findall(question) if w.lower() != "which"}, key=len, reverse=True)
    named = re.search(rf"\b(?:{'|'.join(map(re.escape, names))})\s+({_VERSION})", evidence) if names else None
    found = named or _VERSION_AFTER_WORD.search(evidence) or _VERSION_NUMBER.search(evidence)
    return None if found is None else found.group(found.lastindex or 0)


def _date(evidence: str, question: str) -> str | None:
    found = _FULL_DATE.search(evidence)
    if found is not None:
        return found.group(0)
    years = [m for m in (_YEAR.search(evidence), HISTORIC_DATE.search(evidence)) if m is not None]
    if not years:
        return None
    first = min(years, key=lambda m: m.start()).group(0)
    return re.sub(r"^(?:in|around|about|circa|c\.|from|between|until|before|after)\s+", "", first)


def _person(evidence: str, question: str) -> str | None:
    by = _BY_PERSON.search(evidence)
    if by is not None:
        return by.group(1).rstrip(".")
    maker = _MAKER.search(evidence)
    if maker is not None:
        return maker.group(1).rstrip(".")
    named = _PERSON_NAME.search(evidence) if _AUTHOR_WORD.search(evidence) else None
    return None if named is None else named.group(0)


def _number(evidence: str, question: str) -> str | None:
    unit = _HOW_MANY.search(question)
    if unit is not None:
        asked = unit.group(1).lower().rstrip("s")
        stem = _TIME_UNITS if unit.group(0).lower().startswith("how long") else re.escape(asked)
        counted = re.search(rf"(?<![\w.])\d[\d,]*(?:\.\d+)?\s+{stem}\w*", evidence, re.I)
        if counted is not None:
            return counted.group(0)
    found = _NUMBER.search(evidence)
    return None if found is None else found.group(0)


def named_after(evidence: str, question: str) -> str | None:
    """The name the evidence says right after the question's head ("PEP 572", "environment variable
    WERKZEUG_DEBUG_PIN"): it answers before the term a description defines, which may be another
    (an option's description that names the setting the question asks for)."""
    for head in _heads(question):
        after = re.search(rf"\b(?i:{re.escape(head)}){_IDENTIFIER_AFTER}", evidence)
        if after is not None:
            return after.group(0)
    return None


def name_span(evidence: str, question: str) -> str | None:
    """What the question's head noun names: "which PEP" -> "PEP 572", "which environment variable"
    -> "PYTHONWARNINGS environment variable", "which time zone database" -> "IANA time zone
    database". A name before the head looks like one (capitals past its first letter, a digit, "_"
    or ".") and is not the question's own word: "debugging environment" or "Click runner" (of a
    question about Click) is no name."""
    return named_after(evidence, question) or _named_before(evidence, question)


def _named_before(evidence: str, question: str) -> str | None:
    """A name the evidence says right before the question's head ("PYTHONWARNINGS environment
    variable"), when it looks like one and the question does not say it (``name_span``)."""
    asked = set(re.findall(r"[\w.]+", question.casefold()))
    for head in _heads(question):
        for before in re.finditer(rf"{_CODE_BEFORE}(?i:{re.escape(head)})\b", evidence):
            if _NAME_LIKE.search(before.group(1)) and before.group(1).casefold() not in asked:
                return before.group(0)
    return None


def code_span(evidence: str, question: str) -> str | None:
    """The first name in code's form that the evidence says and the question does not: an option
    ("--branch", "--date=rfc2822"), a dotted or called name ("requests.exceptions.JSONDecodeError",
    "breakpoint()"), a snake_case or SCREAMING_CASE name ("inherit_errexit", "BASH_COMPAT") or a
    keyword phrase in capitals ("OVERRIDING SYSTEM VALUE"). Such a name answers "which option",
    "which exception" or "what must the statement specify" where the sentence around it does not;
    one whose kind the question's head names ("exception": a name ending in Error) comes first."""
    if _asks_description(question):
        return None
    heads = _heads(question)
    asked = question.casefold()
    plain = _URL.sub(lambda m: " " * len(m.group(0)), evidence)  # a URL's host is no dotted name
    found = [m.group(0) for m in _CODE_NAME.finditer(plain)]
    fresh = [n for n in dict.fromkeys(found) if n.casefold() not in asked and not _ABBREVIATION.fullmatch(n)]
    if not fresh:
        return None
    head = " ".join(heads[:1]).lower()
    for kind, shape in _CODE_KINDS:
        if kind.search(head):
            return next((name for name in fresh if shape.search(name)), fresh[0])
    return fresh[0]


def _asks_description(question: str) -> bool:
    """Whether the question's head asks for a description ("what ability", "which change"), which
    no name answers."""
    heads = _heads(question)
    return bool(heads) and heads[-1].lower().rstrip("s") in _DESCRIBED


def _heads(question: str) -> list[str]:
    """The phrases a "which/what X" question names its answer by, longest first."""
    asking = question_sentences(question.split(" (", 1)[0])[-1]  # not "in which" of a statement before
    found = _WHICH.search(asking) or _WHICH.search(question)
    if found is None:
        return []
    words: list[str] = []
    for word in found.group(1).split():
        if word.lower() in _STOP_HEAD:
            break
        words.append(word)
    return [" ".join(words[:n]) for n in range(len(words), 0, -1)]


_TYPED: dict[AnswerType, Callable[[str, str], str | None]] = {
    AnswerType.VERSION: _version,
    AnswerType.DATE: _date,
    AnswerType.PERSON: _person,
    AnswerType.NUMBER: _number,
}
