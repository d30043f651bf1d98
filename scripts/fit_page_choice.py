"""Fit the page-choice weights (fathom_ray/research/page_choice.py) on the dev question set.

Runs every dev question at quick and focused through the in-process loop (scripts/sim_research.py),
records each later round's choice: every waiting page's signals and whether it is one of the
question's evidence pages, and fits a logistic regression (L2, C = 1, the bias not penalised) of
"evidence" on the signals. The pages a round chooses among depend on the weights in use, so a fit
may be run again on its own result. Held-out and validation questions never enter a fit.

    .venv/bin/python scripts/fit_page_choice.py [--seed 7] [--write]

The weights in use and the new fit go into docs/benchmarks.md ("Page choice"); ``--write`` also
puts the new fit into page_choice.py.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from bench_report import table, write_section  # noqa: E402
from sim_research import load, offline_web, one  # noqa: E402

from fathom_ray.models import Candidate  # noqa: E402
from fathom_ray.research import page_choice  # noqa: E402
from fathom_ray.research.session_loop import ResearchSession  # noqa: E402

Decision = tuple[list[tuple[float, ...]], list[bool], int]
MODULE = ROOT / "fathom_ray" / "research" / "page_choice.py"


def recording(decisions: list[Decision], evidence: set[str]) -> type[ResearchSession]:
    """A session that records every page choice it makes, each page labelled by ``evidence``."""

    class Recording(ResearchSession):
        async def _page_signals(self, pending: Sequence[Candidate]) -> dict[str, page_choice.Signals]:
            signals = await super()._page_signals(pending)
            n = min(self._preset.pages_per_round, self._pages_left())
            decisions.append(([s.vector() for s in signals.values()], [u in evidence for u in signals], n))
            return signals

    return Recording


def fit(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], c: float = 1.0) -> npt.NDArray[np.float64]:
    """Logistic regression by Newton's method: weights, then the bias last (not penalised)."""
    rows = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(rows.shape[1])
    penalty = np.eye(rows.shape[1]) / c
    penalty[-1, -1] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-rows @ w))
        gradient = rows.T @ (p - y) + penalty @ w
        hessian = rows.T @ (rows * (p * (1 - p))[:, None]) + penalty
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def evidence_taken(decisions: Sequence[Decision], w: npt.NDArray[np.float64]) -> tuple[int, int, int]:
    """Evidence pages among each decision's ``n`` best by ``w``, by the goal's order, and at best."""
    by_model = by_goal = best = 0
    for vectors, labels, n in decisions:
        scores = np.array(vectors) @ w[:-1] + w[-1]
        order = np.argsort(-scores, kind="stable")[:n]
        by_model += sum(labels[i] for i in order)
        goal = sorted(range(len(vectors)), key=lambda i: -vectors[i][0] if vectors[i][1] else 1.0)
        by_goal += sum(labels[i] for i in goal[:n])
        best += min(n, sum(labels))
    return by_model, by_goal, best


async def collect(seed: int) -> list[Decision]:
    decisions: list[Decision] = []
    async with offline_web() as web:
        for depth in ("quick", "focused"):
            for question in load("dev"):
                kind = recording(decisions, set(question["evidence_urls"]))
                await one(web, question, depth, seed, kind)
    return decisions


def write(w: npt.NDArray[np.float64]) -> None:
    text = MODULE.read_text()
    weights = ", ".join(f"{v:.2f}" for v in w[:-1])
    text = re.sub(r"^WEIGHTS = \(.*\)$", f"WEIGHTS = ({weights})", text, count=1, flags=re.M)
    text = re.sub(r"^BIAS = .*$", f"BIAS = {w[-1]:.2f}", text, count=1, flags=re.M)
    MODULE.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    decisions = asyncio.run(collect(args.seed))
    x = np.array([v for vectors, _, _ in decisions for v in vectors], dtype=np.float64)
    y = np.array([label for _, labels, _ in decisions for label in labels], dtype=np.float64)
    w = fit(x, y)
    for name, value in zip(page_choice.FEATURES, w[:-1], strict=True):
        print(f"{value:+.2f}  {name}")
    print(f"{w[-1]:+.2f}  bias")
    current = np.array([*page_choice.WEIGHTS, page_choice.BIAS])
    taken = {
        label: evidence_taken(decisions, weights) for label, weights in (("in use", current), ("fit", w))
    }
    for label, (model, goal, best) in taken.items():
        print(f"{label}: {len(decisions)} choices take {model} evidence pages", end=" ")
        print(f"(the goal's order {goal}, at best {best})")
    if args.write:
        write(w)
        print(f"written to {MODULE.relative_to(ROOT)}")
    command = "python scripts/fit_page_choice.py" + (" --write" if args.write else "")
    body = _body(current, w, taken, args.seed, len(decisions), questions=len(load("dev")), written=args.write)
    write_section("page-choice", "Page choice: the later rounds' weights, fit on dev", command, body)


def _body(
    current: npt.NDArray[np.float64],
    w: npt.NDArray[np.float64],
    taken: dict[str, tuple[int, int, int]],
    seed: int,
    choices: int,
    *,
    questions: int,
    written: bool,
) -> str:
    names = [*page_choice.FEATURES, "bias"]
    rows = [(name, f"{a:+.2f}", f"{b:+.2f}") for name, a, b in zip(names, current, w, strict=True)]
    used, goal, best = taken["in use"]
    fitted, _, _ = taken["fit"]
    now = "now in use (`--write` put it there)" if written else "not written"
    return "\n\n".join(
        [
            "A round after the first reads, while the goal's own results last, the waiting pages with "
            'the best score (`research/page_choice.py`): a logistic regression of "the page is one of '
            "the question's evidence pages\" on what the searches say of it. Fit on the dev set alone "
            f"({questions} questions at quick and focused, seed {seed}), from every such choice the loop "
            "made in `scripts/sim_research.py` with the weights in use; held-out and validation "
            "questions never enter it (their figures: Evaluation).",
            table(("signal", "weight in use", f"this fit ({now})"), rows),
            f"Of the evidence pages in reach of those {choices} choices (each choice's best "
            f"{best} in all, had it known which pages hold evidence), the weights in use took {used}, "
            f"this fit would take {fitted}, and the goal's next results {goal}.",
        ]
    )


if __name__ == "__main__":
    main()
