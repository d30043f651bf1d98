"""The article-extraction-benchmark's scoring: 4-gram shingle precision, recall and F1.

Per page, shingle multisets of the predicted and true texts give TP, FP and
FN; precision and recall are averaged over pages, and F1 is taken of the
averages (scrapinghub/article-extraction-benchmark's method).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

WORD = re.compile(r"\w+")
SHINGLE = 4


def shingles(text: str, n: int = SHINGLE) -> Counter[tuple[str, ...]]:
    tokens = WORD.findall(text)
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


@dataclass(frozen=True, slots=True)
class PageScore:
    tp: float
    fp: float
    fn: float

    @property
    def precision(self) -> float:
        if self.fp == self.fn == 0:
            return 1.0
        return 0.0 if self.tp + self.fp == 0 else self.tp / (self.tp + self.fp)

    @property
    def recall(self) -> float:
        if self.fp == self.fn == 0:
            return 1.0
        return 0.0 if self.tp + self.fn == 0 else self.tp / (self.tp + self.fn)


def score_page(predicted: str, truth: str) -> PageScore:
    pred, true = shingles(predicted), shingles(truth)
    tp = sum((pred & true).values())
    fp = sum((pred - true).values())
    fn = sum((true - pred).values())
    total = tp + fp + fn
    if total == 0:
        return PageScore(0.0, 0.0, 0.0)
    return PageScore(tp / total, fp / total, fn / total)


@dataclass(frozen=True, slots=True)
class BenchmarkScore:
    precision: float
    recall: float
    pages: int

    @property
    def f1(self) -> float:
        total = self.precision + self.recall
        return 0.0 if total == 0 else 2 * self.precision * self.recall / total


def score_all(pages: Iterable[PageScore]) -> BenchmarkScore:
    scores = list(pages)
    if not scores:
        raise ValueError("no pages to score")
    precision = sum(s.precision for s in scores) / len(scores)
    recall = sum(s.recall for s in scores) / len(scores)
    return BenchmarkScore(precision, recall, len(scores))
