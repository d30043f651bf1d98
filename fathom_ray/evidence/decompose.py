"""Decomposition without a model: a multi-part goal split into standalone sub-questions.

The goal is cut into sentences, then at clause boundaries where a new question
starts (", and which ...", "; who ...", ", when ..."). Statements among the
parts are context, not questions. A part that refers back ("it", "that other
engine", "the PEP") or says too little on its own carries its subject along:
the keywords of the part before it (and of the context statements) are added
in parentheses, so the part can be searched and matched by itself. The goal
itself is always the first item.
"""

from __future__ import annotations

import re

from fathom_ray.evidence.terms import keywords, query_terms

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
MIN_OWN_TERMS = 3
MAX_CONTEXT_WORDS = 6


def decompose(goal: str, count: int) -> list[str]:
    """The goal, then its sub-questions made standalone; at most ``count`` items, none repeated."""
    goal = " ".join(goal.split())
    parts = [p.strip(" ,;") for s in _SENTENCE_END.split(goal) for p in _CLAUSE.split(s) if p.strip(" ,;")]
    questions = [p for p in parts if _is_question(p)]
    if len(questions) <= 1:
        return [goal][: max(count, 1)]
    statements = [p for p in parts if not _is_question(p)]
    items = [goal]
    before = list(statements)
    for part in questions:
        items.append(standalone(part, before))
        before.append(part)
    return list(dict.fromkeys(items))[: max(count, 1)]


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
