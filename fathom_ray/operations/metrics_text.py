"""The engine's figures read from Ray's Prometheus endpoint (the text exposition format).

Ray exports each ``ray.util.metrics`` metric with a ``ray_`` prefix and its own labels beside ours
(node, worker, session); the figures sum over those. Percentiles come from a histogram's
cumulative buckets, interpolated within the bucket that holds them, as Prometheus does.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

PREFIX = "ray_"
ENGINE_METRICS = (
    "fathom_sessions_active",
    "fathom_sessions_finished_total",
    "fathom_pages_total",
    "fathom_facts_total",
    "fathom_round_seconds",
    "fathom_judge_calls_total",
    "fathom_judge_tokens_total",
    "fathom_judge_latency_seconds",
    "fathom_judge_in_flight",
)
_LINE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


@dataclass(frozen=True, slots=True)
class Sample:
    name: str
    labels: dict[str, str]
    value: float


def parse(text: str) -> list[Sample]:
    """The samples of an exposition; comments and lines it cannot read are skipped."""
    samples = []
    for line in text.splitlines():
        match = _LINE.match(line.strip())
        if not match or line.startswith("#"):
            continue
        try:
            value = float(match.group(3))
        except ValueError:
            continue
        samples.append(Sample(match.group(1), dict(_LABEL.findall(match.group(2) or "")), value))
    return samples


def total(samples: Iterable[Sample], name: str, **labels: str) -> float:
    """The sum of ``name`` over every sample whose labels hold ``labels``."""
    return sum(
        s.value for s in samples if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())
    )


def by_label(samples: Sequence[Sample], name: str, label: str) -> dict[str, float]:
    """``name`` summed per value of ``label``."""
    sums: dict[str, float] = {}
    for s in samples:
        if s.name == name and label in s.labels:
            sums[s.labels[label]] = sums.get(s.labels[label], 0.0) + s.value
    return sums


def quantile(samples: Sequence[Sample], histogram: str, q: float) -> float | None:
    """The ``q`` quantile of ``histogram`` (its ``_bucket`` samples summed over label sets)."""
    buckets: dict[float, float] = {}
    for s in samples:
        if s.name == f"{histogram}_bucket" and "le" in s.labels:
            bound = math.inf if s.labels["le"] in ("+Inf", "inf") else float(s.labels["le"])
            buckets[bound] = buckets.get(bound, 0.0) + s.value
    if not buckets or buckets.get(math.inf, max(buckets.values())) <= 0:
        return None
    ordered = sorted(buckets.items())
    count = ordered[-1][1]
    rank = q * count
    lower, below = 0.0, 0.0
    for bound, cumulative in ordered:
        if cumulative >= rank:
            if math.isinf(bound):
                return lower
            share = (rank - below) / (cumulative - below) if cumulative > below else 1.0
            return lower + (bound - lower) * share
        lower, below = bound, cumulative
    return lower


def figures(text: str) -> list[tuple[str, str]]:
    """What an operator reads first, as (figure, value) rows; empty when no engine metric is there."""
    samples = [s for s in parse(text) if s.name.startswith(PREFIX + "fathom_")]
    if not samples:
        return []
    name = {metric: PREFIX + metric for metric in ENGINE_METRICS}
    rows = [("sessions running", _n(total(samples, name["fathom_sessions_active"])))]
    rows += _split(samples, name["fathom_sessions_finished_total"], "status", "sessions finished")
    rows += _split(samples, name["fathom_pages_total"], "outcome", "pages")
    rows += _split(samples, name["fathom_facts_total"], "verdict", "facts")
    rows += _split(samples, name["fathom_judge_calls_total"], "outcome", "judge calls")
    rows.append(("judge calls in flight", _n(total(samples, name["fathom_judge_in_flight"]))))
    for label, histogram in (
        ("judge latency", "fathom_judge_latency_seconds"),
        ("round time", "fathom_round_seconds"),
    ):
        for q in (0.5, 0.95):
            value = quantile(samples, name[histogram], q)
            rows.append((f"{label} p{round(q * 100)}", "-" if value is None else f"{value:.2f} s"))
    return rows


def _split(samples: Sequence[Sample], name: str, label: str, title: str) -> list[tuple[str, str]]:
    parts = by_label(samples, name, label)
    return [(f"{title}: {key}", _n(value)) for key, value in sorted(parts.items())] or [(title, "0")]


def _n(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:.2f}"
