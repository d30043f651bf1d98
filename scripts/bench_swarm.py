"""A swarm of researchers beside one session on multi-part questions, same depth and page budget.

The multi-part questions (those the evidence judge's decomposition splits into two or more parts)
of the dev, held-out and validation sets go through `fathom eval` twice into one folder: one session
per question (`--method fathom`), then a swarm of ``--agents`` researchers per question
(`--method swarm`), each at ``--depth`` (the swarm splits the same page budget among its
researchers), one run at a time so wall times compare, with the seed of `FATHOM_RESEARCH__SEED`
when set. The table gives evidence recall, quote recall, facts, pages and wall time per method,
and the swarm's ratio to the single session, and how busy the machine's cores were during each
method's run (Linux's /proc/stat): a swarm is faster only where the single session leaves cores idle.

The projection to more cores: the first ``--critical-path`` questions run once more as swarms whose
researchers work one at a time (``FATHOM_SWARM__PARALLEL=1``), so each researcher's seconds are its
own, not shared with the others'. A swarm's critical path is then its ledger's span less, in each
round, every researcher's seconds but the longest's (what would overlap given a core each). On p
cores a method's wall is projected as max(critical path, research CPU-seconds / p), the lower bound
of Brent's law. A session is one chain of rounds, its fetches overlapping already: its critical path
is taken as its wall on this machine.

    .venv/bin/python scripts/bench_swarm.py [--depth standard] [--agents 3] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_report import busy_seconds, busy_share, cpu_times, table, write_section

from fathom_ray.evaluation.questions import parse_questions
from fathom_ray.evaluation.run import finish
from fathom_ray.judges.evidence.decompose import decompose

ROOT = Path(__file__).resolve().parents[1]
SETS = {
    "dev": ROOT / "tests" / "data" / "dev_questions.jsonl",
    "held-out": ROOT / "tests" / "data" / "heldout_questions.jsonl",
    "validation": ROOT / "tests" / "data" / "validation_questions.jsonl",
}
METRICS = ("evidence_recall", "evidence_quote_recall", "citation_faithfulness", "facts", "pages_fetched")


def multi_part(limit: int | None) -> list[tuple[str, str]]:
    """(set, JSONL line) of the questions that decompose into two or more parts, the dev set first."""
    lines = [
        (name, line)
        for name, path in SETS.items()
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    chosen = [(name, line) for name, line in lines if len(decompose(json.loads(line)["question"], 10)) > 1]
    return chosen[:limit] if limit else chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", default="standard")
    parser.add_argument("--agents", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None, help="only the first N multi-part questions")
    parser.add_argument("--out", type=Path, default=None, help="a folder to keep the runs (resumable)")
    parser.add_argument(
        "--critical-path",
        type=int,
        default=8,
        help="questions run again as swarms with researchers one at a time, for the projection (0: none)",
    )
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="fathom-bench-swarm-"))
    out.mkdir(parents=True, exist_ok=True)
    questions_file = out / "questions.jsonl"
    chosen = multi_part(args.limit)
    questions_file.write_text("\n".join(line for _, line in chosen) + "\n", encoding="utf-8")
    per_set = ", ".join(f"{sum(n == name for n, _ in chosen)} {name}" for name in SETS)
    busy: dict[str, float] = {}
    cpu: dict[str, float] = {}  # CPU-seconds of the whole machine while the method ran, set-up included
    setup: dict[str, float] = {}  # the same for a run with nothing left to do: start-up and summary
    for method in ("fathom", "swarm"):
        command = _eval_command(questions_file, method, args, out)
        env = {**os.environ, "FATHOM_DATA_DIR": str(out / f"data-{method}")}
        before = cpu_times()
        subprocess.run(command, check=True, env=env)
        after = cpu_times()
        busy[method], cpu[method] = busy_share(before, after), busy_seconds(before, after)
        subprocess.run(command, check=True, env=env)  # every run done: the engine's set-up alone
        setup[method] = busy_seconds(after, cpu_times())
    questions, _ = parse_questions(questions_file.read_text(encoding="utf-8").splitlines())
    summary = finish(out, questions, ["fathom", "swarm"])
    single, swarm = (summary["methods"][m]["metrics"] for m in ("fathom", "swarm"))
    rows = []
    for metric in (*METRICS, "wall_s"):
        ours, theirs = swarm[metric]["mean"], single[metric]["mean"]
        ratio = f"{ours / theirs:.2f}" if ours is not None and theirs else "-"
        rows.append([metric, _num(theirs), _num(ours), ratio])
    rows += _recall_by_set(out, chosen)
    rows.append(["cores busy (share of all)", f"{busy['fathom']:.2f}", f"{busy['swarm']:.2f}", "-"])
    research = {m: (cpu[m] - setup[m]) / len(questions) for m in cpu}
    for label, figures in (
        ("CPU-s, set-up included (all questions)", cpu),
        ("CPU-s, set-up alone", setup),
        ("CPU-s of research per question", research),
    ):
        ratio = f"{figures['swarm'] / figures['fathom']:.2f}" if figures["fathom"] else "-"
        rows.append([label, f"{figures['fathom']:.1f}", f"{figures['swarm']:.1f}", ratio])
    if args.critical_path:
        rows += _projection(out, chosen[: args.critical_path], args, research)
    seed = os.environ.get("FATHOM_RESEARCH__SEED")
    body = "\n".join(
        [
            f"{len(questions)} multi-part questions ({per_set}) at `{args.depth}`, one run "
            f"at a time on the offline web with the evidence judge: one session per question beside a "
            f"swarm of {args.agents} researchers on the same page budget (the coordinator's plan, its "
            "gap-filling rounds, the analyst and the verifier included in the swarm's wall time)"
            + (f"; sessions sampled with seed {seed}." if seed else ".")
            + f" Cores busy: the share of the {os.cpu_count()} cores' time not idle while each method ran."
            " CPU-s: the machine's busy CPU-seconds (/proc/stat, every process) while each method's"
            " `fathom eval` ran, set-up included; set-up alone is the same command run again with"
            " every question done (start the engine, write the summary, stop); research per"
            " question is the difference over the questions.",
            "",
            table(["metric (mean)", "one session (baseline)", f"swarm of {args.agents}", "ratio"], rows),
        ]
    )
    write_section(
        "swarm",
        "Swarm: researchers beside one session on multi-part questions",
        "python scripts/bench_swarm.py",
        body,
    )


def _recall_by_set(out: Path, chosen: list[tuple[str, str]]) -> list[list[str]]:
    """Evidence recall per question set and method, from the runs' rows (results.jsonl)."""
    set_of = {json.loads(line)["id"]: name for name, line in chosen}
    recall: dict[tuple[str, str], list[float]] = {}
    for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line) if line.strip() else {}
        if row.get("id") in set_of and row.get("evidence_recall") is not None:
            recall.setdefault((set_of[row["id"]], row["method"]), []).append(float(row["evidence_recall"]))
    rows = []
    for name in SETS:
        single, swarm = (recall.get((name, m), []) for m in ("fathom", "swarm"))
        if single and swarm:
            a, b = sum(single) / len(single), sum(swarm) / len(swarm)
            ratio = f"{b / a:.2f}" if a else "-"
            rows.append([f"evidence_recall, {name} ({len(single)})", f"{a:.3f}", f"{b:.3f}", ratio])
    return rows


def _projection(
    out: Path, chosen: list[tuple[str, str]], args: argparse.Namespace, research: dict[str, float]
) -> list[list[str]]:
    """Critical paths (the swarm's with researchers one at a time) and the walls they project."""
    serial = out / "one-at-a-time"
    serial.mkdir(exist_ok=True)
    questions_file = serial / "questions.jsonl"
    questions_file.write_text("\n".join(line for _, line in chosen) + "\n", encoding="utf-8")
    env = {**os.environ, "FATHOM_DATA_DIR": str(serial / "data"), "FATHOM_SWARM__PARALLEL": "1"}
    subprocess.run(_eval_command(questions_file, "swarm", args, serial), check=True, env=env)
    paths = [critical_path(f) for f in sorted((serial / "data" / "ledger").glob("*.jsonl"))]
    ids = {json.loads(line)["id"] for _, line in chosen}
    walls = [
        float(row["wall_s"])
        for row in map(json.loads, (out / "results.jsonl").read_text(encoding="utf-8").splitlines())
        if row.get("id") in ids and row.get("method") == "fathom" and row.get("wall_s") is not None
    ]
    path = {"fathom": sum(walls) / len(walls), "swarm": sum(paths) / len(paths)}
    rows = [[f"critical path s per question ({len(paths)} questions)", *_pair(path)]]
    for cores in (2, 4, 8, 16):
        projected = {m: max(path[m], research[m] / cores) for m in path}
        rows.append([f"projected wall s on {cores} cores", *_pair(projected)])
    return rows


def critical_path(ledger: Path) -> float:
    """The critical path of a swarm whose researchers worked one at a time (its ledger): its span
    less, per round, every researcher's seconds but the longest's."""
    records = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines() if line.strip()]
    span = float(records[-1]["at"]) - float(records[0]["at"])
    rounds: dict[str, list[float]] = {}
    for record in records:  # a researcher's seconds: in its completion, or the coordinator's collecting it
        data = record.get("data") or {}
        if record["kind"] != "completion" or "seconds" not in data:
            continue
        agent = str(data.get("collected") or record["agent"])  # "r2-researcher-1": round r2
        if agent.startswith("r"):
            rounds.setdefault(agent.split("-", 1)[0], []).append(float(data["seconds"]))
    return span - sum(sum(seconds) - max(seconds) for seconds in rounds.values())


def _eval_command(questions_file: Path, method: str, args: argparse.Namespace, out: Path) -> list[str]:
    """`fathom eval` of ``questions_file`` by ``method`` on the offline web, one question at a time."""
    command = [str(Path(sys.executable).with_name("fathom")), "eval", str(questions_file), "--web", "offline"]
    command += ["--depth", args.depth, "--method", method, "--agents", str(args.agents)]
    return [*command, "--out", str(out), "--concurrency", "1", "--no-verdict"]


def _pair(figures: dict[str, float]) -> list[str]:
    ratio = figures["swarm"] / figures["fathom"]
    return [f"{figures['fathom']:.1f}", f"{figures['swarm']:.1f}", f"{ratio:.2f}"]


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


if __name__ == "__main__":
    main()
