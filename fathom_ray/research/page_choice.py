"""Which waiting pages a later round reads: a linear score over what the search results say of a page.

A round after the first chooses among the pages every search so far returned. What it knows of a
page without fetching it: where the goal's own search ranked it, where the other queries (the
checklist's parts, the multi-hop queries the facts named) ranked it and how many found it, whether
its site was read already or is one the goal names, whether it is a site's front page or index
(which every query about the site finds, and which rarely states an answer), whether its file name
is a name a kept fact says (the module, command or release a first page names), and its snippets:
how much of an open question's terms the passage a search engine shows for it holds. The weights
are a logistic regression of "the page holds evidence" on those signals, fit on the dev question
set alone (``scripts/fit_page_choice.py``); held-out and validation questions only ever measure it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from fathom_ray.judges.evidence.queries import stated_then_asked
from fathom_ray.judges.evidence.terms import query_terms, terms
from fathom_ray.judges.evidence.vocabulary import is_common
from fathom_ray.web.urls import file_name

FEATURES = (
    "reciprocal rank among the goal's results",
    "among the goal's results",
    "sum of reciprocal ranks in other queries' results",
    "other queries that found it",
    "its site already read",
    "its site named by the goal",
    "the best share of an open question's terms one of its snippets holds",
    "a site's front page or index",
    "the best cosine of its title and a snippet to an open question",
    "that cosine less the best of any waiting page",
    "its file name is a word the kept facts say and the goal does not",
)
# fit by scripts/fit_page_choice.py on the dev set (see docs/benchmarks.md, "Page choice")
WEIGHTS = (1.90, 0.89, 1.04, -0.30, -1.24, 0.52, 3.76, -2.37, 2.48, 2.37, 1.52)
BIAS = -6.04

MIN_NAME = 3  # a shorter file name ("io", "re") is part of too many words to say a fact names it
_SEPARATORS = re.compile(r"[-_]+")


@dataclass(frozen=True, slots=True)
class Signals:
    """What the search results say of one waiting page."""

    goal_rank: int | None  # its rank among the goal's own results, None when the goal did not find it
    other_ranks: tuple[int, ...]  # its rank in each other query's results that found it
    site_read: bool
    named: bool
    snippet_cover: float
    hub: bool = False
    semantic: float = 0.0
    semantic_gap: float = 0.0
    fact_named: bool = False

    def vector(self) -> tuple[float, ...]:
        goal = 1.0 / self.goal_rank if self.goal_rank else 0.0
        return (
            goal,
            1.0 if self.goal_rank else 0.0,
            sum(1.0 / r for r in self.other_ranks),
            float(len(self.other_ranks)),
            float(self.site_read),
            float(self.named),
            self.snippet_cover,
            float(self.hub),
            self.semantic,
            self.semantic_gap,
            float(self.fact_named),
        )


def score(signals: Signals, weights: Sequence[float] = WEIGHTS, bias: float = BIAS) -> float:
    """The page's log-odds of holding evidence for the goal."""
    return bias + sum(w * x for w, x in zip(weights, signals.vector(), strict=True))


def asked_texts(questions: Sequence[str]) -> list[str]:
    """Each question, and the asking sentence of one that states before it asks."""
    texts: list[str] = []
    for question in questions:
        stated = stated_then_asked(question)
        texts += [question, stated[1]] if stated else [question]
    return list(dict.fromkeys(texts))


def asked_terms(questions: Sequence[str]) -> list[frozenset[str]]:
    """Each question's terms (question words aside), for ``snippet_cover``; a question of question
    words alone asks nothing and is left out. A question that states something, then asks ("Flask's
    CLI loads entry points with a standard-library module. When did that module stop being
    provisional?"), also counts its asking sentence alone: the page that answers it says what is
    asked, not what the statement led to the first page."""
    asked = [frozenset(query_terms(text)) for text in asked_texts(questions)]
    return [a for a in dict.fromkeys(asked) if a]


def snippet_cover(snippets: Iterable[str], asked: Sequence[frozenset[str]]) -> float:
    """The best share of one question's terms (``asked_terms``) that one snippet holds."""
    best = 0.0
    for text in snippets:
        held = set(terms(text))
        best = max([best, *(len(a & held) / len(a) for a in asked)])
    return best


def said_by(fact_texts: Iterable[str]) -> str:
    """What the kept facts say, as one text in lower case: ``named_by_facts`` reads it for every
    waiting page of a round, so a round makes it once."""
    return " ".join(fact_texts).lower()


def named_by_facts(url: str, goal: str, said: str) -> bool:
    """Whether the page's file name (``file_name``; "git-fetch" also as "git fetch") is something the
    kept facts say (``said``, from ``said_by``) and the goal does not: the page on the module,
    command or release a fact names ("the user's netrc file" leads to netrc.html), the hop a question
    leaves unnamed. A common word (``is_common``: "changes", "design") is no name: a fact that says it
    says nothing of the page."""
    name = file_name(url)
    if len(name) < MIN_NAME or is_common(name):
        return False
    forms = {name, _SEPARATORS.sub(" ", name)}
    lowered = goal.lower()
    return any(f in said for f in forms) and not any(f in lowered for f in forms)


def choose(signals: dict[str, Signals], n: int) -> list[str]:
    """The ``n`` best pages by score, ties in the order given."""
    order = sorted(signals, key=lambda url: -score(signals[url]))
    return order[:n]
