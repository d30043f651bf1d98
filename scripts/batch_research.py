"""Batch research as a Ray job:

    ray job submit --working-dir . -- /path/to/fathom-ray/.venv/bin/python scripts/batch_research.py \
        QUESTIONS.jsonl --out RESULTS.jsonl [--web offline] [--depth quick] [--swarm N]

(the entrypoint names the project venv's python: the job's own `python` is the system one)

Runs one session per question, concurrently up to FATHOM_API__MAX_SESSIONS (or --concurrency), skips ids
already in the output (so a stopped job resumes), prints progress to the job log, and writes one line per
question with the fields of `fathom research`'s result.json plus its id. A question with "agents": N (or every
question, with --swarm N) runs as a swarm of N researchers; its report bundle stays in DATA_DIR/bundles.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

os.environ.setdefault("RAY_AUTH_MODE", "disabled")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import ray

from actors.batch import read_questions, run_batch
from actors.engine import start_engine
from fathom_ray.settings import load_settings
from fathom_ray.testweb.server import TestWeb
from fathom_ray.web.network import NetworkMap, settings_for


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--depth", default="quick")
    parser.add_argument("--web", choices=("internet", "offline"), default="internet")
    parser.add_argument("--concurrency", type=int, default=None)
    parser.add_argument(
        "--swarm", type=int, default=None, help="run each question as a swarm of N researchers"
    )
    args = parser.parse_args()
    settings = load_settings()
    questions = list(read_questions(args.questions, args.depth, lambda m: print(m, flush=True), args.swarm))
    with contextlib.ExitStack() as stack:
        network = NetworkMap()
        if args.web == "offline":
            web = stack.enter_context(TestWeb())
            network = NetworkMap.offline(web.port)
        settings = settings_for(settings, network)
        ray.init(log_to_driver=False) if os.environ.get("RAY_ADDRESS") else ray.init(include_dashboard=False)
        try:
            engine = start_engine(settings, network, kept=True)  # many sessions
            run_batch(engine, questions, args.out, args.concurrency or settings.api.max_sessions)
        finally:
            ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
