"""summary.json: per method, the mean and count of every metric over results.jsonl's rows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

METRICS = (
    "evidence_recall",
    "citation_faithfulness",
    "evidence_quote_recall",
    "evidence_fact_share",
    "answer_match",
    "answer_line_match",
    "answer_faithfulness",
    "facts",
    "pages_fetched",
    "llm_calls",
    "tokens",
    "cost_usd",
    "wall_s",
)


def summarise(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Means skip missing values (no evidence URLs, no facts); each count says how many values made it."""
    methods: dict[str, Any] = {}
    for method in dict.fromkeys(str(r["method"]) for r in rows):
        mine = [r for r in rows if r["method"] == method]
        metrics = {}
        for name in METRICS:
            values = [float(r[name]) for r in mine if r.get(name) is not None]
            metrics[name] = {
                "mean": round(sum(values) / len(values), 4) if values else None,
                "count": len(values),
            }
        methods[method] = {
            "questions": len(mine),
            "completed": sum(r.get("status") == "complete" for r in mine),
            "metrics": metrics,
            "llm_verdicts": dict(Counter(str(r["llm_verdict"]) for r in mine if r.get("llm_verdict"))),
            "stop_reasons": dict(Counter(str(r.get("stop_reason", "")) for r in mine)),
        }
    return {"questions": len({r["id"] for r in rows}), "methods": methods}
