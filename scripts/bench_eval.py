"""The dev question set through `fathom eval`, both methods in one run, into docs/benchmarks.md.

The single-pass baseline is measured in the same run on the same budget; the table gives each
metric for both methods and fathom-ray's ratio to the baseline.

    .venv/bin/python scripts/bench_eval.py [--depth quick] [--llm KEY=VALUE ...]
    .venv/bin/python scripts/bench_eval.py --from DIR   # the tables of an eval already run into DIR
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_report import table, write_section

from fathom_ray.evaluation.report import PLOTS

ROOT = Path(__file__).resolve().parents[1]
KEPT = ROOT / "docs" / "eval"  # the run's results.jsonl, summary.json, report.md and plots
DEV = ROOT / "tests" / "data" / "dev_questions.jsonl"
CAVEAT = (
    "With the CPU default model (SmolLM2-135M, a plumbing check) these numbers say that the harness "
    "works, not how well fathom-ray researches: a 135M model rarely quotes evidence verbatim, so few "
    "facts survive the ledger, and its answers and LLM verdicts are close to noise (it grades even "
    "an empty answer 'correct' - which is why the verdict is kept apart from answer_match). Quality "
    "is measured with the same command and `--llm` pointing at a real model, e.g. "
    "`--llm backend=openai --llm base_url=http://gpu-box:8000/v1 --llm model=Qwen/Qwen3-8B`."
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="source", type=Path, help="an eval output folder to report on")
    parser.add_argument("--depth", default="quick")
    parser.add_argument("--llm", action="append", default=[])
    args = parser.parse_args()
    out = args.source
    if out is None:
        out = Path(tempfile.mkdtemp(prefix="fathom-bench-eval-"))
        command = [str(Path(sys.executable).with_name("fathom")), "eval", str(DEV), "--web", "offline"]
        command += ["--depth", args.depth, "--method", "both", "--out", str(out)]
        command += [item for pair in args.llm for item in ("--llm", pair)]
        subprocess.run(command, check=True)
    summary = json.loads((out / "summary.json").read_text())
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]
    first_run = next((out / "runs" / "fathom").glob("*.json"))
    depth = json.loads(first_run.read_text()).get("depth", args.depth)
    KEPT.mkdir(parents=True, exist_ok=True)
    for name in ("results.jsonl", "summary.json", "report.md", *PLOTS.values()):
        shutil.copyfile(out / name, KEPT / name)
    write_section(
        "eval",
        "Evaluation: the dev question set, fathom-ray beside a single-pass baseline",
        "python scripts/bench_eval.py",
        _body(summary, rows, depth),
    )


def _body(summary: dict[str, Any], rows: list[dict[str, Any]], depth: str) -> str:
    fathom, single = summary["methods"]["fathom"], summary["methods"]["single-pass"]
    lines = []
    for name in fathom["metrics"]:
        ours, base = fathom["metrics"][name], single["metrics"][name]
        ratio = "-" if not ours["mean"] or not base["mean"] else f"{ours['mean'] / base['mean']:.2f}"
        lines.append([name, _cell(base), _cell(ours), ratio])
    walls = {m: sum(r["wall_s"] for r in rows if r["method"] == m) for m in ("fathom", "single-pass")}
    verdicts = {m: summary["methods"][m]["llm_verdicts"] for m in ("fathom", "single-pass")}
    return "\n".join(
        [
            f"{summary['questions']} multi-hop questions of `tests/data/dev_questions.jsonl` over the "
            f"offline web, depth {depth}, both methods with the same page budget, in one run "
            f"(`fathom eval tests/data/dev_questions.jsonl --web offline --depth {depth} --method both`). "
            "The run's rows, summary, report and plots are in [docs/eval/](eval/report.md).",
            "",
            table(
                ["metric (mean, count)", "single-pass (baseline)", "fathom-ray", "ratio to baseline"], lines
            ),
            "",
            f"Completed runs: fathom-ray {fathom['completed']}/{fathom['questions']}, single-pass "
            f"{single['completed']}/{single['questions']}. Stop reasons: fathom-ray "
            f"{fathom['stop_reasons']}; single-pass {_short(single['stop_reasons'])}. "
            f"LLM verdicts: {verdicts}. Summed run time: "
            f"fathom-ray {walls['fathom']:.0f} s, single-pass {walls['single-pass']:.0f} s.",
            "",
            *_recall_note(fathom, single),
            CAVEAT,
        ]
    )


def _recall_note(fathom: dict[str, Any], single: dict[str, Any]) -> list[str]:
    ours, base = fathom["metrics"]["evidence_recall"]["mean"], single["metrics"]["evidence_recall"]["mean"]
    if ours is None or base is None or ours >= base:
        return []
    return [
        "fathom-ray fetched fewer evidence pages than the baseline. The checklists in the runs' "
        "result.json (`DIR/runs/fathom/`) say why: the 135M model writes checklist questions such as "
        "'1.1.1.1...', those are searched too, and their results join the pool beside the question's "
        "own (their first results rank as high by source rank, and similarity counts the nearest of "
        "the goal and the checklist), so the quick budget of 3 pages goes partly to them; the baseline "
        "fetches the search engine's top pages for the question itself. The ranking alone, without a "
        "model, is measured in the ranking section. A model that writes real checklists is the "
        "precondition for the rounds to help.",
        "",
    ]


def _cell(metric: dict[str, Any]) -> str:
    return "-" if metric["mean"] is None else f"{metric['mean']:.3f} ({metric['count']})"


def _short(reasons: dict[str, int]) -> dict[str, int]:
    short: dict[str, int] = {}
    for reason, count in reasons.items():
        key = reason.split(" (")[0]
        short[key] = short.get(key, 0) + count
    return short


if __name__ == "__main__":
    main()
