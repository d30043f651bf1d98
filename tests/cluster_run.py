"""A simulated cluster in a process of its own: a head and two worker nodes on this machine, each
with one CPU and a little memory, the workers offering the stand-in resources of a cluster
(``judge_gpu`` on one, ``browser`` on the other). The engine starts on it placed by those
resources, one session runs, and ``fathom doctor --address`` reads the plan; the last line printed
is a JSON report for tests/e2e/test_cluster.py.

    .venv/bin/python tests/cluster_run.py DATA_DIR
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

os.environ.setdefault("RAY_AUTH_MODE", "disabled")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402
from ray.util.state import list_actors  # noqa: E402

from actors.engine import run_session, start_engine  # noqa: E402
from fathom_ray.models import ResearchRequest  # noqa: E402
from fathom_ray.network import NetworkMap  # noqa: E402
from fathom_ray.settings import load_settings  # noqa: E402
from fathom_ray.testweb.server import TestWeb  # noqa: E402

GOAL = "Which Python version introduced assignment expressions, and who wrote the PEP?"
OBJECT_STORE = 100 * 2**20  # bytes per node: the nodes share this machine's memory


def main(data_dir: Path) -> None:
    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "object_store_memory": OBJECT_STORE}
    )
    judge_node = cluster.add_node(num_cpus=1, resources={"judge_gpu": 1}, object_store_memory=OBJECT_STORE)
    browser_node = cluster.add_node(num_cpus=1, resources={"browser": 1}, object_store_memory=OBJECT_STORE)
    cluster.wait_for_nodes()
    head = cluster.head_node
    assert head is not None
    labels = {
        head.node_id: "head",
        judge_node.node_id: "judge_gpu node",
        browser_node.node_id: "browser node",
    }
    ray.init(address=cluster.address, log_to_driver=False)
    report: dict[str, object] = {}
    try:
        with TestWeb(ROOT / ".cache") as web:
            network = NetworkMap.offline(web.port)
            settings = load_settings(
                data_dir=data_dir,
                fetch={"min_host_delay_s": 0.05, "allow_hosts": list(network.allowed_hosts)},
                search={"backend": "searxng", "searxng_url": "http://search.test", "max_results": 8},
            )
            prefix = f"cluster-{uuid.uuid4().hex[:6]}-"
            engine = start_engine(settings, network, name_prefix=prefix)
            _, outcome = run_session(
                engine, ResearchRequest(GOAL, depth="glance"), "cluster-s1", lambda _: None
            )
            state = outcome.state
            report["session"] = {
                "status": state.status,
                "pages": state.pages_fetched,
                "facts": len(state.ledger.facts),
            }
            actors = list_actors(address=cluster.address, filters=[("state", "=", "ALIVE")], limit=1000)
            report["placement"] = {
                str(a.name).removeprefix(prefix): labels.get(str(a.node_id), "?")
                for a in actors
                if str(a.name or "").startswith(prefix)
            }
        doctor = subprocess.run(
            [str(Path(sys.executable).with_name("fathom")), "doctor", "--address", cluster.address],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env={**os.environ, "FATHOM_DATA_DIR": str(data_dir), "COLUMNS": "200"},
        )
        report["doctor"] = {
            "rc": doctor.returncode,
            "out": doctor.stdout[-4000:],
            "err": doctor.stderr[-2000:],
        }
    finally:
        ray.shutdown()
        cluster.shutdown()
    print(json.dumps(report))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
