"""The question sets through `fathom eval`, both methods in one run per set and depth, into the docs.

Runs the dev set (tuned on), the held-out set and the validation set (neither tuned on; validation
is only ever reported) at `quick` and `focused`, each run
with both methods (fathom-ray and the single-pass baseline on the same page budget) and its own
empty stores, so no run learns from another through source memory. Then the README's main command,
timed (the session's own seconds, once Ray, the browser and the judge are up). The judge is whatever
the settings pick (`--llm KEY=VALUE` to choose); the tables say which.

    .venv/bin/python scripts/bench_eval.py [--depth quick --depth focused] [--set dev --set held-out]
    .venv/bin/python scripts/bench_eval.py --from DIR   # the tables of runs already made into DIR
    .venv/bin/python scripts/bench_eval.py --into DIR   # make the runs DIR lacks, then the tables
    .venv/bin/python scripts/bench_eval.py --seed 7 --seed 8 --seed 9   # fathom-ray over 3 seeds

With seeds, the first seed's runs hold both methods (the baseline does not sample) and every further
seed runs fathom-ray alone into DIR/seed-N/; the tables give fathom-ray's mean over the seeds and its
spread (lowest and highest).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_report import table, write_section

from fathom_ray.evaluation.report import PLOTS
from fathom_ray.testweb.sites import SITES

ROOT = Path(__file__).resolve().parents[1]
KEPT = ROOT / "docs" / "eval"  # each run's results.jsonl, summary.json, report.md and plots
SETS = {
    "dev": ROOT / "tests" / "data" / "dev_questions.jsonl",
    "held-out": ROOT / "tests" / "data" / "heldout_questions.jsonl",
    "validation": ROOT / "tests" / "data" / "validation_questions.jsonl",
}
README_GOAL = "Which Python version introduced assignment expressions, and who wrote the PEP?"
METRICS = (
    "evidence_recall",
    "citation_faithfulness",
    "evidence_quote_recall",
    "evidence_fact_share",
    "answer_match",
    "answer_line_match",
    "facts",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="source", type=Path, help="a folder of runs made before")
    parser.add_argument("--into", type=Path, help="make the runs here; a run already there is kept")
    parser.add_argument("--depth", action="append", help="quick, focused (default both)")
    parser.add_argument("--set", dest="sets", action="append", choices=list(SETS))
    parser.add_argument("--llm", action="append", default=[])
    parser.add_argument("--seed", dest="seeds", action="append", type=int, default=[])
    args = parser.parse_args()
    depths, sets = args.depth or ["quick", "focused"], args.sets or list(SETS)
    base = args.source or args.into or Path(tempfile.mkdtemp(prefix="fathom-bench-eval-"))
    runs: dict[tuple[str, str], Path] = {}
    for name in sets:
        for depth in depths:
            out = base / f"{name}-{depth}"
            if args.source is None and not (out / "summary.json").is_file():
                _eval(SETS[name], depth, out, args.llm, seed=next(iter(args.seeds), None), method="both")
            for seed in args.seeds[1:]:
                again = base / f"seed-{seed}" / f"{name}-{depth}"
                if args.source is None and not (again / "summary.json").is_file():
                    _eval(SETS[name], depth, again, args.llm, seed=seed, method="fathom")
            if (out / "summary.json").is_file():  # with --from, a run never made is left out
                runs[name, depth] = out
    readme = base / "readme"
    if args.source is None and not (readme / "result.json").is_file():
        _readme(readme, args.llm)
    for (name, depth), out in runs.items():
        kept = KEPT / f"{name}-{depth}"
        kept.mkdir(parents=True, exist_ok=True)
        for file in ("results.jsonl", "summary.json", "report.md", *PLOTS.values()):
            shutil.copyfile(out / file, kept / file)
    write_section(
        "eval",
        "Evaluation: question sets, fathom-ray beside a single-pass baseline",
        "python scripts/bench_eval.py",
        _body(runs, readme, base, args.seeds),
    )


def _seed_note(seeds: list[int]) -> str:
    if len(seeds) > 1:
        return (
            f"fathom-ray ran with seeds {', '.join(map(str, seeds))} (`FATHOM_RESEARCH__SEED`): its column "
            'is the mean over the seeds, and "over seeds" gives the lowest and highest (and how many '
            "runs); a row without them ran with the first seed alone. The baseline does not sample: "
            "one run."
        )
    seed = str(seeds[0]) if seeds else os.environ.get("FATHOM_RESEARCH__SEED")
    if seed:
        return (
            f"Every session sampled its batches with seed {seed} (`FATHOM_RESEARCH__SEED`), so a run of "
            "the same code repeats; with other seeds runs differ by a few hundredths of evidence recall. "
            "The baseline does not sample."
        )
    return (
        "A session samples its batches with a seed drawn from its session id, new in every run, so two "
        "runs of the same code differ by a few hundredths of evidence recall; the baseline does not sample."
    )


def _eval(questions: Path, depth: str, out: Path, llm: list[str], *, seed: int | None, method: str) -> None:
    command = [str(Path(sys.executable).with_name("fathom")), "eval", str(questions), "--web", "offline"]
    command += ["--depth", depth, "--method", method, "--out", str(out)]
    command += [item for pair in llm for item in ("--llm", pair)]
    env = {**os.environ, "FATHOM_DATA_DIR": str(out / "data")}
    if seed is not None:
        env["FATHOM_RESEARCH__SEED"] = str(seed)
    subprocess.run(command, check=True, env=env)


def _readme(out: Path, llm: list[str]) -> None:
    command = [str(Path(sys.executable).with_name("fathom")), "research", README_GOAL, "--web", "offline"]
    command += ["--depth", "quick", "--out", str(out)]
    env = {**os.environ, "FATHOM_DATA_DIR": str(out / "data")}
    env.update({f"FATHOM_LLM__{k.upper()}": v for k, v in (pair.split("=", 1) for pair in llm)})
    subprocess.run(command, check=True, env=env)


def _seed_runs(base: Path, name: str, depth: str) -> list[dict[str, Any]]:
    """fathom-ray's metrics of every further seed's run of one set and depth."""
    found = sorted(base.glob(f"seed-*/{name}-{depth}/summary.json"))
    return [json.loads(path.read_text())["methods"]["fathom"]["metrics"] for path in found]


def _body(runs: dict[tuple[str, str], Path], readme: Path, base: Path, seeds: list[int]) -> str:
    lines = [
        f"Multi-hop questions over the offline web of {len(SITES)} sites: "
        f"`tests/data/dev_questions.jsonl` ({_count('dev')}, tuned on), "
        f"`tests/data/heldout_questions.jsonl` ({_count('held-out')}, written apart, not tuned on) and "
        f"`tests/data/validation_questions.jsonl` ({_count('validation')}, written apart, only ever "
        "reported). Each set and depth is "
        "one `fathom eval ... --method both` run: fathom-ray and the single-pass baseline (search the "
        "question, fetch the top pages, one answer) on the same page budget, in the same run, each run "
        "with empty stores. Means over the questions (a metric without a value for a question, e.g. "
        "citation faithfulness without facts, is left out of its mean; counts in the run's report). "
        + _seed_note(seeds),
        "",
    ]
    rows = []
    for (name, depth), out in runs.items():
        summary = json.loads((out / "summary.json").read_text())
        results = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines() if x.strip()]
        judge = next((r.get("judge") for r in results if r["method"] == "fathom" and r.get("judge")), "?")
        fathom, single = summary["methods"]["fathom"]["metrics"], summary["methods"]["single-pass"]["metrics"]
        with_facts = [r for r in results if r["method"] == "fathom"]
        share = sum(r["facts"] >= 1 for r in with_facts) / max(1, len(with_facts))
        per_seed = [fathom, *_seed_runs(base, name, depth)]
        for metric in (m for m in METRICS if m in fathom and m in single):
            values = [m[metric]["mean"] for m in per_seed if m.get(metric, {}).get("mean") is not None]
            ours, theirs = (sum(values) / len(values) if values else None), single[metric]["mean"]
            ratio = "-" if not ours or not theirs else f"{ours / theirs:.2f}"
            spread = f"{_num(min(values))}-{_num(max(values))} ({len(values)})" if len(values) > 1 else ""
            rows.append([name, depth, metric, _num(theirs), _num(ours), spread, ratio])
        rows.append([name, depth, "questions with >= 1 fact", "", f"{share:.2f}", "", ""])
        rows.append(
            [
                name,
                depth,
                "pages fetched",
                _num(single["pages_fetched"]["mean"]),
                _num(fathom["pages_fetched"]["mean"]),
                "",
                "",
            ]
        )
        rows.append(
            [
                name,
                depth,
                "wall s per question",
                _num(single["wall_s"]["mean"]),
                _num(fathom["wall_s"]["mean"]),
                "",
                "",
            ]
        )
        lines.append(
            f"- {name}, {depth}: judge {judge}; rows, report and plots in "
            f"[docs/eval/{name}-{depth}/](eval/{name}-{depth}/report.md)"
        )
    lines += [
        "",
        table(
            ["set", "depth", "metric (mean)", "single-pass (baseline)", "fathom-ray", "over seeds", "ratio"],
            rows,
        ),
        "",
    ]
    result = json.loads((readme / "result.json").read_text())
    said = " ".join(f"{f['claim']} {f['evidence']} {f.get('topic', '')}" for f in result["facts"])
    lines.append(
        f'The README\'s main command (`fathom research "{README_GOAL}" --web offline --depth quick`), '
        f"judge {result['usage']['judge']}: {result['status']}, {len(result['facts'])} facts from "
        f'{result["usage"]["pages_fetched"]} pages, stop reason "{result["stop_reason"]}"; the session '
        f"itself took {result['usage']['session_s']:.1f} s once Ray, the browser and the judge were up "
        f"({result['usage']['wall_s']:.1f} s in all); its facts say "
        f'"3.8": {"yes" if "3.8" in said else "no"}, "572": {"yes" if "572" in said else "no"}. '
        f"Its answer lines, printed first: {_answer_lines(result)}."
    )
    return "\n".join(lines)


def _answer_lines(result: dict[str, Any]) -> str:
    """The run's answers as the CLI prints them, one clause each: question, answer, cited facts."""
    lines = []
    for answer in result.get("answers", []):
        cited = f" ({', '.join(answer['fact_ids'])})" if answer.get("fact_ids") else ""
        said = answer["answer"] or f"not found in {answer.get('pages_read', 0)} pages read"
        lines.append(f'"{answer["question"]}" -> "{said}"{cited}')
    return "; ".join(lines) or "none"


def _count(name: str) -> int:
    return sum(1 for line in SETS[name].read_text(encoding="utf-8").splitlines() if line.strip())


def _num(value: Any) -> str:
    return "-" if value is None else f"{float(value):.3f}"


if __name__ == "__main__":
    main()
