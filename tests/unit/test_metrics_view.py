"""The engine's figures from a Prometheus exposition, `fathom metrics`, the Grafana dashboard's names,
and the local Ray's ports."""

from __future__ import annotations

import http.server
import json
import re
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fathom_ray.cli import app
from fathom_ray.cli.running import free_port_from
from fathom_ray.operations.metrics_text import ENGINE_METRICS, figures, parse, quantile

ROOT = Path(__file__).resolve().parents[2]
EXPOSITION = """# HELP ray_fathom_pages_total pages by outcome
# TYPE ray_fathom_pages_total counter
ray_fathom_pages_total{Component="core_worker",WorkerId="a",outcome="ok"} 5.0
ray_fathom_pages_total{Component="core_worker",WorkerId="b",outcome="ok"} 2.0
ray_fathom_pages_total{Component="core_worker",WorkerId="b",outcome="http_404"} 1.0
ray_fathom_facts_total{verdict="kept"} 9.0
ray_fathom_facts_total{verdict="rejected"} 1.0
ray_fathom_sessions_active{session="s-1"} 1.0
ray_fathom_sessions_finished_total{status="complete"} 3.0
ray_fathom_judge_calls_total{judgement="analyse_page",outcome="ok"} 8.0
ray_fathom_judge_in_flight 2.0
ray_fathom_judge_latency_seconds_bucket{le="0.1"} 4.0
ray_fathom_judge_latency_seconds_bucket{le="1.0"} 8.0
ray_fathom_judge_latency_seconds_bucket{le="+Inf"} 8.0
ray_fathom_judge_latency_seconds_count 8.0
ray_node_cpu_utilization{instance="x"} 12.5
not a sample line
"""


def test_the_figures_sum_over_ray_s_labels_and_interpolate_percentiles() -> None:
    rows = dict(figures(EXPOSITION))
    assert rows["pages: ok"] == "7"
    assert rows["pages: http_404"] == "1"
    assert rows["facts: kept"] == "9"
    assert rows["sessions running"] == "1"
    assert rows["sessions finished: complete"] == "3"
    assert rows["judge calls: ok"] == "8"
    assert rows["judge calls in flight"] == "2"
    assert rows["judge latency p50"] == "0.10 s"  # the 4th of 8 calls: the first bucket's top
    assert rows["round time p95"] == "-"  # no round yet
    samples = parse(EXPOSITION)
    p95 = quantile(samples, "ray_fathom_judge_latency_seconds", 0.95)
    assert p95 is not None
    assert 0.1 < p95 <= 1.0
    assert figures("ray_node_cpu_utilization 1.0\n") == []


def test_the_engine_exports_what_the_list_says_and_grafana_asks_for_nothing_else() -> None:
    source = (ROOT / "actors" / "metrics.py").read_text()
    assert set(re.findall(r'"(fathom_[a-z_]+)"', source)) == set(ENGINE_METRICS)
    dashboard = json.loads((ROOT / "docs" / "grafana" / "fathom-ray.json").read_text())
    asked = {
        re.sub(r"_(bucket|count|sum)$", "", name)
        for panel in dashboard["panels"]
        for target in panel["targets"]
        for name in re.findall(r"ray_(fathom_[a-z_]+)", target["expr"])
    }
    assert asked == set(ENGINE_METRICS)  # every metric has a panel, and no panel names another


@pytest.fixture
def endpoint() -> Iterator[str]:
    class Metrics(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = EXPOSITION.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return

    server = http.server.HTTPServer(("127.0.0.1", 0), Metrics)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/metrics"
    server.shutdown()
    server.server_close()


def test_fathom_metrics_prints_the_figures_or_says_why_not(endpoint: str) -> None:
    runner = CliRunner()
    shown = runner.invoke(app, ["metrics", "--url", endpoint])
    assert shown.exit_code == 0
    assert "pages: ok" in shown.output
    assert "judge latency p95" in shown.output
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    missing = runner.invoke(app, ["metrics", "--url", f"http://127.0.0.1:{closed}/metrics"])
    assert missing.exit_code == 2
    assert "is `fathom serve` or `fathom up` running?" in missing.output


def test_a_port_in_use_gives_way_to_the_next_free_one() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        chosen = free_port_from(port)
        assert chosen != port
        assert chosen > port
    assert free_port_from(chosen, avoid={chosen}) != chosen
