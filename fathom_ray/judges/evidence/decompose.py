"""Decomposition without a model: a multi-part goal split into standalone sub-questions.

The goal is cut into sentences, then at clause boundaries where a new question
starts (", and which ...", "; who ...", ", when ..."); question words joined at
the start of a question ("When and by whom ...") stay together. Statements among
the parts are context, not questions, and a list they give ("Three rivers: the
Nile, the Amazon and the Yangtze.") is what a later "each" or "which of them" is
about. A part about several things (a list, a comparison, joined question words:
``enumerations``, ``comparisons``) becomes a question per thing. A part that
refers back ("it", "that other engine", "the PEP") or says too little on its own
carries its subject along: the keywords of the part before it (and of the context
statements; of the part after it when nothing comes before) are added in
parentheses, so the part can be searched and matched by itself; a bare "and
when?" after "Who built X" asks "When was X built?"; a part that names a new thing as
known ("who wrote the PEP" after "Which version introduced X") first asks which one ("Which
PEP introduced X?"), the bridge of the two hops; statements that describe what the one question
then points back at ("that toolkit") are items of their own, the first hop. The goal itself is
always the first item, and every sub-question names its subject.
"""

from __future__ import annotations

import re

from fathom_ray.judges.evidence.comparisons import compare, comparison
from fathom_ray.judges.evidence.enumerations import (
    HOLE,
    Expansion,
    about_given,
    expand,
    listed,
    plain,
    split_openings,
)
from fathom_ray.judges.evidence.terms import keywords, query_terms

_SENTENCE_END = re.compile(r"(?<=[.?!])\s+(?=[A-Z])")
_WH = r"(?:who|whom|whose|which|what|when|where|why|how|since when|since which|in which|from which)"
_AUX = r"(?:is|are|was|were|does|do|did|can|has|have)"
_PREPOSITION = r"(?:(?:on|in|at|for|from|by|of|to|with|since|until)\s+)?"
_CLAUSE = re.compile(
    rf"(?:,\s*(?:and|or|but)?|;\s*(?:and|or)?|\s+and(?:\s+also)?)\s+"
    rf"(?={_PREPOSITION}{_WH}\b|{_AUX}\s+(?:it|they|this|that|these|those|the)\b)",
    re.I,
)
_QUESTION_START = re.compile(
    rf"^\s*(?:(?:\w+\s+){{0,2}}{_WH}|{_AUX}|name|list|describe|explain|compare)\b", re.I
)
_BACK_REFERENCE = re.compile(
    r"\b(it|its|they|them|their|this|that|these|those|such|the same|the other|said|former|latter|"
    r"the (?!following\b)[a-z]+)\b",
    re.I,
)
_BARE_WH = re.compile(rf"^\s*{_PREPOSITION}(?:when|where|why|how|whom|who)\s*\??\s*$", re.I)
_DONE_BY = re.compile(r"^\s*(?:who|what)\s+(\w+)\s+(.+?)\s*\??\s*$", re.I)
_PAST_PARTICIPLES = {
    "wrote": "written",
    "began": "begun",
    "drew": "drawn",
    "took": "taken",
    "gave": "given",
    "sang": "sung",
    "ran": "run",
    "chose": "chosen",
    "broke": "broken",
    "spoke": "spoken",
    "threw": "thrown",
    "grew": "grown",
    "flew": "flown",
    "saw": "seen",
    "did": "done",
    **{
        w: w
        for w in [
            "built",
            "made",
            "found",
            "led",
            "held",
            "won",
            "sold",
            "told",
            "sent",
            "spent",
            "lit",
            "set",
            "put",
            "cut",
        ]
    },
}
_NEW_THING = re.compile(r"\bthe ([A-Za-z][\w-]*)\s*(?:[?.!]?\s*$|,)")
_NOT_A_THING = frozenset(
    (
        *("same", "other", "first", "last", "following", "latest", "current", "former", "latter", "next"),
        *("previous", "original", "new", "old", "default", "whole", "answer", "result", "one", "ones"),
        *("end", "time", "way", "case", "world", "rest", "most", "least", "best", "worst", "name"),
    )
)
_WHICH_DONE = re.compile(r"^\s*(?:which|what)\s+(?:[\w'-]+\s+){0,3}?(\w+ed\b.*?)\s*[?.!]?\s*$", re.I)
_WHICH_OF_FIRST = re.compile(r"^\s*(?:which|who) of (?:them|these|those)\b(.*)$", re.I)
MIN_OWN_TERMS = 3
# "that toolkit's", "such a column": a demonstrative before a noun (never "that is", a relative clause)
_POINTS_BACK = re.compile(
    r"\b(?:that|this|those|these|such)\s+(?!(?:is|was|are|were|has|does|did|can)\b)[a-z]", re.I
)
MAX_CONTEXT_WORDS = 6
MAX_ASKED_APART = 24


def decompose(goal: str, count: int) -> list[str]:
    """The goal, then its sub-questions made standalone; at most ``count`` items, none repeated."""
    goal = " ".join(goal.split())
    parts = _parts(goal)
    questions = [p for p in parts if _is_question(p)]
    statements = [p for p in parts if not _is_question(p)]
    given = next((found[2] for s in statements if (found := listed(s)) is not None), ())
    expansions = [_expansion(p, n, questions, statements, given) for n, p in enumerate(questions)]
    for n in reversed(range(1, len(questions))):  # "..., and who wrote the PEP?": which PEP, first
        if (bridge := bridge_question(questions[n], [*statements, *questions[:n]])) is not None:
            expansions.insert(n, plain(bridge))
    if len(questions) == 1:
        expansions[:0] = [plain(s) for s in described(goal, questions[0], statements)]
    expansions = [e for e in expansions if e.subjects or query_terms(e.one)]  # never a bare "When?"
    asked = allot(expansions, max(count - 1, 0))
    if len(asked) <= 1:
        return [goal][: max(count, 1)]
    return list(dict.fromkeys([goal, *asked]))[: max(count, 1)]


def described(goal: str, question: str, statements: list[str]) -> list[str]:
    """The goal's statements as items of their own when its one question points back at what they
    describe ("Flask 2.2.0 raised the minimum version of the WSGI toolkit it is built on. On
    what date was that toolkit's release published?"): the page a statement describes says the name
    it leaves unsaid ("Werkzeug"), and a statement item gets facts for it, chosen against its own
    words, where against the whole goal the asking sentence's words drown them. Whole sentences
    only: "According to that manual" before ", which command ..." is no statement of its own."""
    if not _POINTS_BACK.search(question):
        return []
    sentences = question_sentences(goal)
    return [standalone(s, []) for s in statements if s in sentences]


def is_described(goal: str, item: str) -> bool:
    """Whether a checklist item is one of the goal's statements made an item (``described``): the
    same sentence made standalone, so one that starts in lower case ("pytest's guide ...") is one."""
    sentences = question_sentences(" ".join(goal.split()))[:-1]
    return item in {standalone(s, []) for s in sentences}


def question_sentences(text: str) -> list[str]:
    """The sentences of a goal or item (a statement, then the question it leads to)."""
    return [s for s in _SENTENCE_END.split(text) if s.strip()] or [text]


def _parts(goal: str) -> list[str]:
    """Sentences cut at the clauses that start a new question; joined question words stay whole."""
    parts: list[str] = []
    for sentence in _SENTENCE_END.split(goal):
        openings, rest = split_openings(sentence)
        head = sentence[: len(sentence) - len(rest)] if len(openings) > 1 else ""
        clauses = _CLAUSE.split(rest if head else sentence)
        clauses[0] = f"{head}{clauses[0]}"
        parts += [p.strip(" ,;") for p in clauses if p.strip(" ,;")]
    return parts


def _expansion(
    part: str, n: int, questions: list[str], statements: list[str], given: tuple[str, ...]
) -> Expansion:
    """The part's questions: per thing it asks about, or the part made standalone."""
    found = comparison(part) or expand(part) or _about_given(part, given)
    if found is not None:
        return found
    if _BARE_WH.match(part) and n > 0 and (asked := follow_up(part, questions[n - 1])):
        return plain(asked)
    before = [*statements, *questions[:n]]
    if not before and not query_terms(part):  # a first part with no subject: the one after it
        before = questions[n + 1 :]
    return plain(standalone(part, before))


def _about_given(part: str, given: tuple[str, ...]) -> Expansion | None:
    """A question about the goal's own list; "which of them was built first" compares its items."""
    which = _WHICH_OF_FIRST.match(part)
    if which is not None and given and comparison(f"Which{which.group(1)}, x or y") is not None:
        return compare(f"Which{which.group(1)}".rstrip("?.! "), given)
    return about_given(part, given)


def asked_apart(question: str) -> list[tuple[str, str]]:
    """What one checklist item asks, one question per thing and subject, each with its subject
    ("When and by whom were A and B built?": when was A built, about A; by whom was A built, about
    A; ...); the item itself, about no subject in particular, when it asks one thing. A sentence
    that answers any of them answers the item in part."""
    found = comparison(question) or expand(question)
    if found is None:
        return [(question, "")]
    apart = found.apart_about()
    if len(apart) > MAX_ASKED_APART:
        apart = [(q, s) for q, s in zip(found.together(), found.subjects, strict=False)]
    return apart[:MAX_ASKED_APART] if len(apart) > 1 else [(question, "")]


def subject_named(question: str, subjects: list[str]) -> str:
    """The one of the goal's listed ``subjects`` that ``question`` names ("By whom was Bran Castle
    built?" of Bran Castle, Himeji Castle, ...); "" when it names none, or several."""
    own = set(query_terms(question))
    named = {s for s in subjects if (words := query_terms(s)) and set(words) <= own}
    return named.pop() if len(named) == 1 else ""


def allot(expansions: list[Expansion], slots: int) -> list[str]:
    """The questions of every part within ``slots``: each thing asked apart when they fit, else
    each subject asked everything at once, else subjects sharing questions (none left out)."""
    for level in (Expansion.apart, Expansion.together):
        asked = [q for e in expansions for q in level(e)]
        if len(asked) <= slots:
            return asked
    lists = [e for e in expansions if e.subjects]
    spare = max(slots - (len(expansions) - len(lists)), len(lists))
    total = sum(e.size for e in lists)
    asked = []
    for e in expansions:
        share = max(1, spare * e.size // total) if e.subjects else 1
        asked += e.packed(share)
    return asked


def follow_up(part: str, previous: str) -> str | None:
    """A bare "and when?" after "Who built the bridge": "When was the bridge built?"; None when
    the question before does not read as something done to a subject."""
    done = _DONE_BY.match(previous)
    if done is None:
        return None
    verb, subject = done.group(1).lower(), done.group(2)
    participle = verb if verb.endswith("ed") else _PAST_PARTICIPLES.get(verb)
    if participle is None:
        return None
    opening = part.strip(" ?").lower()
    return f"{opening[:1].upper()}{opening[1:]} was {subject} {participle}?".replace(HOLE, "")


def bridge_question(part: str, before: list[str]) -> str | None:
    """The question a part leaves unasked when it names a new thing as known: "who wrote the PEP"
    after "Which Python version introduced assignment expressions" asks first "Which PEP introduced
    assignment expressions?" (the bridge of a multi-hop question); None when the thing was named
    before, the part names none, or the part before is not a "which ... <did>" question."""
    found = _NEW_THING.search(part)
    if found is None or not before:
        return None
    thing = found.group(1)
    earlier = {w.lower().rstrip("s") for w in re.findall(r"[\w-]+", " ".join(before))}
    if thing.lower() in _NOT_A_THING or thing.lower().rstrip("s") in earlier:
        return None
    asked = _WHICH_DONE.match(before[-1])  # only after "which X did ...": "which <thing> did ..."
    return None if asked is None else f"Which {thing} {asked.group(1)}?"


def _is_question(part: str) -> bool:
    return part.endswith("?") or bool(_QUESTION_START.search(part))


def standalone(part: str, before: list[str]) -> str:
    """``part`` as a question, with the subject of what came before when it leans on it."""
    question = part if part.endswith("?") else f"{part.rstrip('.')}?"
    question = question[0].upper() + question[1:]
    leans = _BACK_REFERENCE.search(part) is not None or len(query_terms(part)) < MIN_OWN_TERMS
    if not leans:
        return question
    own = {w.lower() for w in keywords(part)}
    context = [w for w in keywords(" ".join(before)) if w.lower() not in own]
    if not context:
        return question
    return f"{question[:-1]} ({' '.join(context[:MAX_CONTEXT_WORDS])})?"
