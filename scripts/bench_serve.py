"""Time to first event and events per second through Ray Serve, beside the Session actor called directly.

Both paths run the same glance sessions on the offline web with the same engine (the CPU default
model), in one run; the ratio is Serve's overhead.

    .venv/bin/python scripts/bench_serve.py [--sessions 3]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("RAY_AUTH_MODE", "disabled")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import httpx
import ray
from bench_report import table, write_section

from actors.engine import Engine, run_session, start_engine
from fathom_ray.models import Event, ResearchRequest
from fathom_ray.settings import load_settings
from fathom_ray.testweb.server import TestWeb
from fathom_ray.web.network import NetworkMap
from serve.deployment import run_api, shutdown

GOALS = [
    "Which Python version introduced assignment expressions?",
    "When did SQLite add write-ahead logging?",
    "Which PostgreSQL version is documented under docs/15?",
]


def direct(engine: Engine, goal: str, index: int) -> tuple[float, int, float]:
    """(seconds to first event, events, seconds in all) calling the Session actor directly."""
    start = time.perf_counter()
    first: list[float] = []
    count = 0

    def seen(events: list[Event]) -> None:
        nonlocal count
        if not first:
            first.append(time.perf_counter() - start)
        count += len(events)

    run_session(
        engine, ResearchRequest(goal, "glance"), f"direct-{index}-{time.time_ns()}", seen, poll_s=0.05
    )
    return first[0], count, time.perf_counter() - start


def through_serve(url: str, goal: str) -> tuple[float, int, float]:
    start = time.perf_counter()
    first = 0.0
    count = 0
    body = {"goal": goal, "depth": "glance"}
    with httpx.stream(
        "POST", f"{url}/research", json=body, headers={"Accept": "text/event-stream"}, timeout=600
    ) as r:
        for line in r.iter_lines():
            if line.startswith("event: "):
                count += 1
                first = first or time.perf_counter() - start
    return first, count, time.perf_counter() - start


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=3)
    args = parser.parse_args()
    with TestWeb() as web, tempfile.TemporaryDirectory(prefix="fathom-bench-serve-") as data_dir:
        network = NetworkMap.offline(web.port)
        port = free_port()
        settings = load_settings(
            data_dir=Path(data_dir),
            fetch={"allow_hosts": list(network.allowed_hosts), "min_host_delay_s": 0.1},
            search={"backend": "searxng", "searxng_url": "http://search.test"},
            api={"port": port},
        )
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            engine = start_engine(settings, network)
            direct(engine, GOALS[0], -1)  # warm-up: engine caches, worker pool
            goals = [GOALS[i % len(GOALS)] for i in range(args.sessions)]
            measured_direct = [direct(engine, g, i) for i, g in enumerate(goals)]
            run_api(engine)
            url = f"http://127.0.0.1:{port}"
            while httpx.get(f"{url}/health", timeout=5).status_code != 200:
                time.sleep(0.5)
            measured_serve = [through_serve(url, g) for g in goals]
        finally:
            shutdown()
            ray.shutdown()
    rows = []
    for name, runs in (
        ("Session actor directly (baseline)", measured_direct),
        ("through Ray Serve (SSE)", measured_serve),
    ):
        first = sum(r[0] for r in runs) / len(runs)
        rate = sum(r[1] for r in runs) / sum(r[2] for r in runs)
        rows.append([name, f"{first:.2f}", f"{rate:.2f}"])
    base_first, base_rate = float(rows[0][1]), float(rows[0][2])
    rows[0] += ["1.00", "1.00"]
    rows[1] += [f"{float(rows[1][1]) / base_first:.2f}", f"{float(rows[1][2]) / base_rate:.2f}"]
    body = (
        f"{args.sessions} glance sessions per path on the offline web, the CPU default model as judge, "
        "one local Ray with 2 CPUs.\n\n"
        + table(("path", "first event (s)", "events/s", "first-event ratio", "events/s ratio"), rows)
    )
    write_section("serve", "Serve overhead", "python scripts/bench_serve.py", body)
    print(json.dumps({"direct": measured_direct, "serve": measured_serve}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
