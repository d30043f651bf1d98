"""report.md: the summary table per method, every question's scores, and PNG plots (matplotlib)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from fathom_ray.research.report import safe_inline

SCORES = (
    "evidence_recall",
    "citation_faithfulness",
    "evidence_quote_recall",
    "answer_match",
    "answer_line_match",
)
PLOTS = {
    "per_question": "plot_per_question.png",
    "pages_vs_recall": "plot_pages_vs_recall.png",
    "stages": "plot_stages.png",
}


def write_report(
    out: Path, rows: Sequence[Mapping[str, Any]], summary: Mapping[str, Any], title: str
) -> Path:
    """Write report.md and its plots into ``out``; returns report.md's path."""
    _plots(out, rows)
    lines = [f"# {safe_inline(title)}", "", "## Summary", ""]
    methods = summary["methods"]
    names = (
        ["questions", "completed", *(m for m in next(iter(methods.values()))["metrics"])] if methods else []
    )
    lines += ["| metric | " + " | ".join(methods) + " |", "|---|" + "---:|" * len(methods)]
    for name in names:
        cells = [_summary_cell(methods[m], name) for m in methods]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "Means over the questions with a value; the count of those is in brackets.", ""]
    for method, data in methods.items():
        if data["llm_verdicts"]:
            verdicts = ", ".join(f"{k}: {v}" for k, v in sorted(data["llm_verdicts"].items()))
            lines.append(f"- {method} LLM verdicts (kept apart from answer_match): {verdicts}")
    lines += ["", "## Per question", ""]
    lines += [
        "| id | method | judge | status | evidence recall | citation faithfulness | quote recall | "
        "answer match | answer line match | facts | pages | judge calls | tokens | wall s | stop reason |",
        "|---|---|---|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['id']} | {r['method']} | {safe_inline(str(r.get('judge', '')))} | {r['status']} | "
            f"{_num(r['evidence_recall'])} | {_num(r['citation_faithfulness'])} | "
            f"{_num(r.get('evidence_quote_recall'))} | {'yes' if r['answer_match'] else 'no'} | "
            f"{_yes(r.get('answer_line_match'))} | "
            f"{r['facts']} | "
            f"{r['pages_fetched']} | {r['llm_calls']} | {r['tokens']} | {_num(r['wall_s'], 1)} | "
            f"{safe_inline(str(r['stop_reason']))} |"
        )
    lines += ["", "## Plots", ""]
    lines += [f"![{name}]({file})" for name, file in PLOTS.items()]
    path = out / "report.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _summary_cell(data: Mapping[str, Any], name: str) -> str:
    if name in ("questions", "completed"):
        return str(data[name])
    metric = data["metrics"][name]
    return f"{_num(metric['mean'])} ({metric['count']})"


def _yes(value: Any) -> str:
    return "-" if value is None else "yes" if value else "no"


def _num(value: Any, digits: int = 3) -> str:
    return "-" if value is None else f"{float(value):.{digits}f}"


def _plots(out: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    import matplotlib  # noqa: PLC0415 (only `fathom eval` pays for loading matplotlib)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    methods = list(dict.fromkeys(str(r["method"]) for r in rows))
    ids = list(dict.fromkeys(str(r["id"]) for r in rows))
    by_key = {(str(r["id"]), str(r["method"])): r for r in rows}

    figure, axes = plt.subplots(len(SCORES), 1, figsize=(max(6.0, 0.5 * len(ids) + 2), 7), sharex=True)
    width = 0.8 / max(1, len(methods))
    for axis, score in zip(axes, SCORES, strict=True):
        for m, method in enumerate(methods):
            values = [_value(by_key.get((i, method), {}).get(score)) for i in ids]
            axis.bar([x + m * width for x in range(len(ids))], values, width, label=method)
        axis.set_ylabel(score.replace("_", " "), fontsize=8)
        axis.set_ylim(0, 1.05)
    axes[-1].set_xticks([x + width * (len(methods) - 1) / 2 for x in range(len(ids))], ids, rotation=90)
    axes[0].legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(out / PLOTS["per_question"], dpi=100)
    plt.close(figure)

    figure, axis = plt.subplots(figsize=(6, 4))
    for method in methods:
        mine = [r for r in rows if r["method"] == method and r.get("evidence_recall") is not None]
        axis.scatter([r["pages_fetched"] for r in mine], [r["evidence_recall"] for r in mine], label=method)
    axis.set_xlabel("pages fetched")
    axis.set_ylabel("evidence recall")
    axis.set_ylim(-0.05, 1.05)
    axis.legend()
    figure.tight_layout()
    figure.savefig(out / PLOTS["pages_vs_recall"], dpi=100)
    plt.close(figure)

    figure, axis = plt.subplots(figsize=(6, 4))
    for m, method in enumerate(methods):
        mine = [r for r in rows if r["method"] == method]
        stages = list(dict.fromkeys(s for r in mine for s in r.get("stages_s", {})))
        bottom = 0.0
        for stage in stages:
            mean = sum(r.get("stages_s", {}).get(stage, 0.0) for r in mine) / max(1, len(mine))
            axis.bar(m, mean, bottom=bottom, label=f"{method}: {stage}")
            bottom += mean
    axis.set_xticks(range(len(methods)), methods)
    axis.set_ylabel("mean seconds per question")
    axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(out / PLOTS["stages"], dpi=100)
    plt.close(figure)


def _value(value: Any) -> float:
    return 0.0 if value is None else float(value)
