"""Questions about several things at once, cut into questions about one thing each.

A question part becomes an ``Expansion``: what it asks (its openings, "When" and "by whom"), the
rest of it with a hole where a subject goes, and its subjects. The shapes:

- a list after a colon: "When were these monuments built: A, B and C?" ("these monuments" is the hole);
- a list inline: "What is the capital of each of France, Spain and Italy?", "Who founded Apple,
  Microsoft and Google?" (three or more names, or two after "each of");
- question words joined: "When and by whom was the Eiffel Tower built?" asks two things of one subject;
- a list given earlier in the goal and referred to ("each", "them", "which of them");
- comparisons (``comparisons``): "Which came first, A or B?" asks each option what decides it.

Every question made carries its subject, so it can be searched and matched on its own. When
the checklist has room, each subject is asked each thing apart; then each subject all things
together; then subjects share a question, so that none is left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HOLE = "\x00"
_WH = r"(?:whom|whose|who|which|what|when|where|why|how)\b"
_PREP = r"(?:on|in|at|for|from|by|of|to|with|since|until|under)"
# "When and by whom", "Where, when and why": question words joined at the start of a question
_JOINED_OPENINGS = re.compile(
    rf"^\s*((?:{_PREP}\s+)?{_WH})((?:\s*,\s*(?:{_PREP}\s+)?{_WH})*)\s*,?\s+(?:and|or)\s+((?:{_PREP}\s+)?{_WH})\s+(?=\S)",
    re.I,
)
_AUX_FIRST = re.compile(r"(?:is|are|was|were|did|does|do|has|have|had|can|could|will|would)\b", re.I)
_OPENING = re.compile(rf"(?:{_PREP}\s+)?{_WH}", re.I)
# "these monuments", "the following", "them": where a list after a colon goes in the question
_PLACEHOLDER = re.compile(
    r"\b(?:(?:these|those|the following|following|the)\s+(?:\w+\s+){0,2}?(?:\w+s|ones|people|places)"
    r"|the following|these|those|them|they)\b",
    re.I,
)
_NAME_WORD = r"[A-Z0-9][\w.'\u2019+#-]*"
_LINK = r"(?:of|de|del|della|di|da|la|le|von|van|der|the|al|el|y)"
_NAME = rf"(?:[Tt]he\s+)?{_NAME_WORD}(?:\s+(?:{_LINK}\s+)*{_NAME_WORD})*"
_INLINE_LIST = re.compile(
    rf"(?<![\w-])({_NAME}(?:\s*,\s*{_NAME}){{1,}}\s*,?\s+(?:and|or)\s+{_NAME})(?=\s*[?.!]?\s*$)"
)
_EACH_OF = re.compile(
    r"\b(?:each|every one|all|both) of\s+(?!them\b|these\b|those\b)(.+?)\s*[?.!]?\s*$", re.I
)
_LEAD = re.compile(r"(?:consider|compare|take|given|among|name|list|describe|of|for)\s+", re.I)
_LAST_JOIN = re.compile(r"\s*,?\s+(?:and|or)\s+(?=\S)")
_REFERENCE = re.compile(
    r"\b(?:each (?:of (?:them|these|those|the \w+)|one)|each|(?:which|what|who) of (?:them|these|those)"
    r"|them|these|those|they)\b",
    re.I,
)
_WHICH_OF = re.compile(r"^\s*(?:which|what|who) of (?:them|these|those)\s+(\w+)\b", re.I)
_PLURAL_AUX = {"were": "was", "are": "is", "have": "has", "do": "does"}
MAX_ITEM_WORDS = 7


@dataclass(frozen=True, slots=True)
class Expansion:
    """A question part as questions about its subjects. ``one`` and ``many`` are the rest of the
    question with ``HOLE`` where one subject, or several, go; no subjects: it is asked as it is."""

    openings: tuple[str, ...]
    one: str
    many: str
    subjects: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        return max(len(self.subjects), 1)

    def apart(self) -> list[str]:
        """Each subject asked each thing on its own."""
        return [question for question, _ in self.apart_about()]

    def apart_about(self) -> list[tuple[str, str]]:
        """Each subject asked each thing on its own, with the subject asked about ("" when none)."""
        subjects = self.subjects or ("",)
        return [(_ask(o, self.one, s), s) for s in subjects for o in self.openings]

    def together(self) -> list[str]:
        """Each subject asked all things in one question."""
        return [_ask(_joined(self.openings), self.one, s) for s in self.subjects or ("",)]

    def packed(self, slots: int) -> list[str]:
        """All subjects in at most ``slots`` questions, neighbours sharing one."""
        groups = _groups(self.subjects, max(slots, 1)) if self.subjects else [()]
        opening = _joined(self.openings)
        return [_ask(opening, self.many if len(g) > 1 else self.one, _list(g)) for g in groups]


def plain(question: str) -> Expansion:
    """A part with one subject of its own and one thing to ask."""
    return Expansion(("",), question, question)


def expand(part: str) -> Expansion | None:
    """``part`` as an expansion when it asks about several things, or several things at once."""
    openings, rest = split_openings(part)
    found = listed(rest)
    if found is None:
        return None if len(openings) == 1 else _one_subject(openings, rest)
    one, many, subjects = found
    return Expansion(openings, one, many, subjects)


def _one_subject(openings: tuple[str, ...], rest: str) -> Expansion:
    """In "was the Eiffel Tower built", the words between the verb's two halves are what is asked about."""
    body = rest.rstrip("?.! ")
    aux = _AUX_FIRST.match(body)
    words = body[aux.end() :].split() if aux else []
    if len(words) < 2:
        return Expansion(openings, rest, rest)
    subject = " ".join(words[:-1])
    many = f"{body[: aux.end() if aux else 0]} {HOLE} {words[-1]}"
    shared = split_items(subject) if _LAST_JOIN.search(subject) else ()  # a packed question: "A and B"
    return Expansion(openings, _agree(many), many, shared if len(shared) > 1 else (subject,))


def split_openings(part: str) -> tuple[tuple[str, ...], str]:
    """("When", "by whom") and "were these monuments built: ..." from "When and by whom were ..."."""
    match = _JOINED_OPENINGS.match(part)
    if match is None or not _AUX_FIRST.match(part[match.end() :]):  # "Who, when and why built it"
        return ("",), part.strip()
    words = _OPENING.findall(match.group(0))
    return tuple(words), part[match.end() :].strip()


def listed(text: str) -> tuple[str, str, tuple[str, ...]] | None:
    """The question with a hole for one subject and for several, and the subjects, when ``text``
    lists two or more after a colon, after "each of", or three or more names inline."""
    body = text.strip().rstrip("?.! ")
    head, colon, tail = body.rpartition(":")
    if colon and (items := split_items(tail)) and len(items) >= 2:
        return _with_hole(head.strip(), items)
    if (each := _EACH_OF.search(body)) and len(items := split_items(each.group(1))) >= 2:
        hole = f"{body[: each.start()].rstrip()} {HOLE}"
        return hole, hole, items
    lead = _LEAD.match(body)  # "Consider A, B and C": the list starts after the verb
    start = lead.end() if lead else 0
    if inline := _INLINE_LIST.search(body, start):
        items = split_items(inline.group(1))
        if len(items) >= 3:
            hole = f"{body[: inline.start()]}{HOLE}"
            return _agree(hole), hole, items
    return None


def split_items(text: str) -> tuple[str, ...]:
    """The items of "A, B and C": ("A", "B", "C"); empty unless every item is a short phrase."""
    pieces = [p.strip() for p in text.split(",")]
    last = _LAST_JOIN.split(pieces[-1]) if pieces else []
    if len(last) > 1:
        pieces = [*pieces[:-1], " and ".join(last[:-1]), last[-1]]
    items = [re.sub(r"^(?:and|or)\s+", "", p, flags=re.I).strip() for p in pieces]
    if any(not i or len(i.split()) > MAX_ITEM_WORDS or "?" in i for i in items):
        return ()
    return tuple(dict.fromkeys(items))


def about_given(part: str, given: tuple[str, ...]) -> Expansion | None:
    """A question about a list given earlier in the goal ("How long is each?", "Which of them
    flows through Egypt?"), asked of each listed thing; None when it does not refer to one."""
    if not given or _REFERENCE.search(part) is None:
        return None
    openings, rest = split_openings(part.strip().rstrip("?.! "))
    which = _WHICH_OF.match(rest)
    if which is not None:
        verb = which.group(1)
        rest_after = rest[which.end() :].strip()
        if verb.lower() in ("is", "was", "are", "were", "has", "have", "can", "did", "does"):
            one = f"{_PLURAL_AUX.get(verb.lower(), verb.lower())} {HOLE} {rest_after}"
        else:
            one = f"does {HOLE} {base_form(verb)} {rest_after}"
        return Expansion(openings, one.strip(), one.strip(), given)
    one = _REFERENCE.sub(HOLE, rest, count=1)
    return Expansion(openings, _agree(one), one, given)


def base_form(verb: str) -> str:
    """The base form of a verb: "flows" -> "flow", "passes" -> "pass", "carries" -> "carry",
    "has" -> "have"."""
    lower = verb.lower()
    if lower == "has":
        return "have"
    if lower.endswith("ies") and len(lower) > 4:
        return lower[:-3] + "y"
    if lower.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
        return lower[:-2]
    return lower[:-1] if lower.endswith("s") and not lower.endswith("ss") else lower


def _with_hole(head: str, items: tuple[str, ...]) -> tuple[str, str, tuple[str, ...]]:
    """The part before the colon with the hole where it names the list, or the list after it."""
    spot = _PLACEHOLDER.search(head)
    if spot is None:
        hole = f"{head}: {HOLE}"
        return hole, hole, items
    many = f"{head[: spot.start()]}{HOLE}{head[spot.end() :]}"
    return _agree(many), many, items


def _agree(question: str) -> str:
    """The verb just before the hole in the singular: "were <hole> built" -> "was <hole> built"."""
    before, hole, after = question.partition(HOLE)
    verb = re.search(r"\b(were|are|have|do)\s+$", before, re.I)
    if not hole or verb is None:
        return question
    singular = _same_case(_PLURAL_AUX[verb.group(1).lower()], verb.group(1))
    return f"{before[: verb.start()]}{singular} {HOLE}{after}"


def _same_case(word: str, like: str) -> str:
    return word.capitalize() if like[:1].isupper() else word


def _joined(openings: tuple[str, ...]) -> str:
    words = [o for o in openings if o]
    if len(words) <= 1:
        return words[0] if words else ""
    return f"{', '.join(words[:-1])} and {words[-1]}"


def _list(items: tuple[str, ...]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def _groups(items: tuple[str, ...], slots: int) -> list[tuple[str, ...]]:
    """``items`` cut into at most ``slots`` neighbouring groups, as even as can be, larger last."""
    count = min(slots, len(items))
    size, extra = divmod(len(items), count)
    groups: list[tuple[str, ...]] = []
    start = 0
    for n in range(count):
        length = size + (1 if n >= count - extra else 0)
        groups.append(items[start : start + length])
        start += length
    return groups


def _ask(opening: str, body: str, subject: str) -> str:
    text = body.replace(HOLE, subject) if HOLE in body else body
    text = " ".join(f"{opening} {text}".split()).rstrip("?.! ")
    return f"{text[:1].upper()}{text[1:]}?" if text else text
