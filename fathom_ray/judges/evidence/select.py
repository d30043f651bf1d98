"""Passage selection for LLM judges: the parts of a page that bear on the open questions.

A model reads at most ``budget`` characters of a page. Rather than the head of
the page, it gets the sentences that score best against the open checklist
questions (BM25 within the page and the answer type, no embedder), each with
the sentence before and after it, in page order, each passage marked with its
character offset in the page. A page that fits the budget is sent whole.
"""

from __future__ import annotations

from collections.abc import Sequence

from fathom_ray.judges.evidence.passages import SentenceIndex, lexical_best, open_questions
from fathom_ray.judges.evidence.sentences import split_sentences
from fathom_ray.models import ChecklistItem

NEIGHBOURS = 1
GAP = "\n…\n"


def select_passages(text: str, title: str, questions: Sequence[ChecklistItem], budget: int) -> str:
    """The page's best passages for ``questions`` within ``budget`` characters, in page order."""
    if len(text) <= budget:
        return text
    index = SentenceIndex(split_sentences(text), title)
    best = lexical_best(index, open_questions(questions))
    if not best:
        return text[:budget]
    chosen: set[int] = set()
    used = 0
    for i in sorted(best, key=lambda i: (-best[i], i)):
        window = [j for j in range(i - NEIGHBOURS, i + NEIGHBOURS + 1) if 0 <= j < len(index.sentences)]
        cost = sum(len(index.sentences[j].text) + 1 for j in window if j not in chosen) + 16
        if used + cost > budget:
            break
        chosen.update(window)
        used += cost
    return _render(text, index, sorted(chosen)) or text[:budget]


def _render(text: str, index: SentenceIndex, chosen: Sequence[int]) -> str:
    passages: list[tuple[int, int]] = []
    for i in chosen:
        sentence = index.sentences[i]
        if passages and i - 1 in chosen and passages[-1][1] <= sentence.start:
            passages[-1] = (passages[-1][0], sentence.end)
        else:
            passages.append((sentence.start, sentence.end))
    return GAP.join(f"[at {start}] {text[start:end]}" for start, end in passages)
