"""A simulated cluster in a process of its own: a head and two worker nodes on this machine, each
with one CPU and a little memory, offering the stand-in resources of a cluster (``judge_gpu`` and
``browser`` on one worker, ``browser`` on the other). The scenarios, in order:

1. job: a batch research job submitted to the head's job server runs on the cluster;
2. placement: the engine's parts land where the plan says, one browser pool per browser node;
3. session: a session completes with pages fetched by the pools of both browser nodes;
4. serve: the API with two replicas, one on each of two nodes, both answering;
5. node loss: a worker (the one holding the session and a browser pool) removed mid-session;
6. doctor: ``fathom doctor --address`` prints the plan.

The last line printed is a JSON report, for tests/e2e/test_cluster.py and scripts/bench_cluster.py.

    .venv/bin/python tests/cluster_run.py DATA_DIR
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

os.environ.setdefault("RAY_AUTH_MODE", "disabled")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
# one HTTP proxy (every node has this machine's address, so one port): let it route to the
# replica on the other node too, not only to its own node's
os.environ["RAY_SERVE_PROXY_PREFER_LOCAL_NODE_ROUTING"] = "0"
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import ray  # noqa: E402
from ray import serve  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402
from ray.job_submission import JobStatus, JobSubmissionClient  # noqa: E402
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy  # noqa: E402
from ray.util.state import list_actors  # noqa: E402

from actors.engine import Engine, run_session, start_engine  # noqa: E402
from actors.session import session_actor  # noqa: E402
from fathom_ray.models import EventType, ResearchRequest  # noqa: E402
from fathom_ray.research.session_state import SessionState  # noqa: E402
from fathom_ray.settings import load_settings  # noqa: E402
from fathom_ray.testweb.server import TestWeb  # noqa: E402
from fathom_ray.web.network import NetworkMap  # noqa: E402
from serve.deployment import api_application  # noqa: E402

GOAL = "Which Python version introduced assignment expressions, and who wrote the PEP?"
LONG_GOAL = "How does SQLite's write-ahead logging compare with PostgreSQL's, and when did each add it?"
OBJECT_STORE = 100 * 2**20  # bytes per node: the nodes share this machine's memory
FAST_HEALTH = {  # a lost node is seen as dead in about 3 s, not the default 30
    "health_check_initial_delay_ms": 0,
    "health_check_period_ms": 1000,
    "health_check_failure_threshold": 3,
}
JOB_LIMIT_S = 300
AGENT_WAIT_S = 120


def say(message: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {message}", file=sys.stderr, flush=True)


def main(data_dir: Path) -> None:
    dashboard_port = _free_port()
    cluster = Cluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": 1,
            "object_store_memory": OBJECT_STORE,
            "include_dashboard": True,
            "dashboard_port": dashboard_port,
            # not Ray's default 52365: another Ray on this machine (the suite's own) may hold it,
            # and the head's job agent then never comes up ("No available agent to submit job")
            "dashboard_agent_listen_port": _free_port(),
            "_system_config": FAST_HEALTH,
        },
    )
    stand_in = {"judge_gpu": 1, "browser": 1}
    judge_node = cluster.add_node(num_cpus=1, resources=stand_in, object_store_memory=OBJECT_STORE)
    browser_node = cluster.add_node(num_cpus=1, resources={"browser": 1}, object_store_memory=OBJECT_STORE)
    cluster.wait_for_nodes()
    head = cluster.head_node
    assert head is not None
    labels = {
        head.node_id: "head",
        judge_node.node_id: "judge_gpu node",
        browser_node.node_id: "browser node",
    }
    report: dict[str, Any] = {}
    try:
        say("cluster up; job")
        report["job"] = job_scenario(f"http://127.0.0.1:{dashboard_port}", data_dir / "job")
        ray.init(address=cluster.address, log_to_driver=False)
        with TestWeb() as web:
            network = NetworkMap.offline(web.port)
            settings = load_settings(
                data_dir=data_dir / "engine",
                fetch={"min_host_delay_s": 0.05, "allow_hosts": list(network.allowed_hosts)},
                search={"backend": "searxng", "searxng_url": "http://search.test", "max_results": 8},
                api={"replicas": 2, "port": _free_port()},
            )
            prefix = f"cluster-{uuid.uuid4().hex[:6]}-"
            engine = start_engine(settings, network, name_prefix=prefix)
            report["placement"] = {
                name.removeprefix(prefix): labels.get(node, "?")
                for name, node in _actor_nodes(cluster.address).items()
                if name.startswith(prefix)
            }
            say("engine up; session")
            report["session"] = session_scenario(engine, labels)
            say("serve")
            report["serve"] = serve_scenario(engine, labels)
            say("node loss")
            report["node_loss"] = node_loss_scenario(engine, cluster, browser_node, labels)
        say("doctor")
        report["doctor"] = doctor_scenario(cluster.address, data_dir)
    finally:
        ray.shutdown()
        cluster.shutdown()
    print(json.dumps(report))


def job_scenario(dashboard_url: str, data_dir: Path) -> dict[str, Any]:
    """``scripts/batch_research.py`` submitted to the head's job server: it starts its own engine
    on the cluster (before the scenarios' engine holds the judge_gpu resource)."""
    data_dir.mkdir(parents=True)
    questions, out = data_dir / "questions.jsonl", data_dir / "results.jsonl"
    questions.write_text(json.dumps({"id": "q1", "question": GOAL}) + "\n")
    client = JobSubmissionClient(dashboard_url)
    agent_deadline = time.monotonic() + AGENT_WAIT_S
    while True:  # the head's job agent comes up a while after the cluster does
        try:
            job = client.submit_job(
                entrypoint=f"{sys.executable} scripts/batch_research.py {questions} --out {out} "
                "--web offline --depth glance",
                runtime_env={
                    "working_dir": str(ROOT),
                    "env_vars": {"FATHOM_DATA_DIR": str(data_dir / "data")},
                },
            )
            break
        except RuntimeError as e:
            if "No available agent" not in str(e) or time.monotonic() > agent_deadline:
                raise
            time.sleep(2)
    deadline = time.monotonic() + JOB_LIMIT_S
    ended = {JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.STOPPED}
    while (status := client.get_job_status(job)) not in ended and time.monotonic() < deadline:
        time.sleep(2)
    if status not in ended:
        client.stop_job(job)
    lines = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return {
        "status": str(status.value),
        "results": [{"id": line["id"], "status": line["status"]} for line in lines],
        "log_tail": client.get_job_logs(job)[-1500:],
    }


def session_scenario(engine: Engine, labels: dict[str, str]) -> dict[str, Any]:
    """A session whose pages the pools of both browser nodes fetch (each session's calls spread)."""
    _, outcome = run_session(engine, ResearchRequest(GOAL, depth="quick"), "cluster-s1")
    state = outcome.state
    return {
        "status": state.status,
        "pages": state.pages_fetched,
        "facts": len(state.fact_ledger.facts),
        "fetched_by": _fetched_by(engine, labels),
    }


def serve_scenario(engine: Engine, labels: dict[str, str]) -> dict[str, Any]:
    """The API with ``replicas: 2`` (Serve spreads them over the nodes), asked until both answered."""
    api = engine.settings.api
    serve.start(http_options={"host": api.host, "port": api.port}, proxy_location="HeadOnly")
    serve.run(api_application(engine), name="fathom", route_prefix="/", blocking=False)
    answered: dict[str, str] = {}
    try:
        for _ in range(40):
            with urllib.request.urlopen(f"http://{api.host}:{api.port}/status", timeout=30) as answer:
                status = json.loads(answer.read())
            answered[status["replica"]] = labels.get(status["node"], "?")
            if len(answered) == api.replicas:
                break
    finally:
        serve.shutdown()  # type: ignore[no-untyped-call]
    return {"replicas": api.replicas, "answered": answered}


def node_loss_scenario(engine: Engine, cluster: Cluster, lost: Any, labels: dict[str, str]) -> dict[str, Any]:
    """A session on the browser-only worker, which also holds the second browser pool: the node is
    removed (its raylet killed, as a crash) after the first round's checkpoint."""
    session_id = "cluster-lost-node"
    # there while it lives (a soft affinity holds only for an actor asking for some resource)
    keep_to = NodeAffinitySchedulingStrategy(lost.node_id, soft=True)
    sliver = {"browser": 0.001}
    actor = session_actor(session_id, scheduling_strategy=keep_to, resources=sliver).remote(
        engine.settings,
        session_id,
        ResearchRequest(LONG_GOAL, depth="focused"),
        engine.directory,
        engine.network,
    )
    done = actor.run.remote()
    before = _after_first_round(engine, session_id, done)
    prefix = engine.directory.prefix
    held = sorted(name for name, node in _actor_nodes(cluster.address).items() if node == lost.node_id)
    if before is not None:
        say(f"removing the node: {held}; {len(before.fact_ledger.facts)} facts kept")
        cluster.remove_node(lost, allow_graceful=False)
    try:
        state = ray.get(done, timeout=600).state
        status, reason = state.status, state.stop_reason
    except ray.exceptions.RayError as e:
        state, status, reason = None, "failed", f"{type(e).__name__}: {e}"[:300]
    final = state or ray.get(engine.handles.memory.load_session.remote(session_id))
    kept_before = {f.claim for f in before.fact_ledger.facts} if before is not None else set()
    kept_after = {f.claim for f in final.fact_ledger.facts} if final is not None else set()
    fetched = [p.url for p in final.pages if p.status == "ok"] if final is not None else []
    after_nodes = _actor_nodes(cluster.address)
    return {
        "removed_mid_session": before is not None,
        "held": [name.removeprefix(prefix) for name in held],
        "moved_to": {
            name.removeprefix(prefix): labels.get(after_nodes.get(name, ""), "gone") for name in held
        },
        "status": status,
        "stop_reason": reason,
        "facts_before": len(kept_before),
        "facts_after": len(kept_after),
        "facts_lost": len(kept_before - kept_after),
        "pages_before": before.pages_fetched if before is not None else 0,
        "pages_after": final.pages_fetched if final is not None else 0,
        "fetched_twice": len(fetched) - len(set(fetched)),
    }


def doctor_scenario(address: str, data_dir: Path) -> dict[str, Any]:
    doctor = subprocess.run(
        [str(Path(sys.executable).with_name("fathom")), "doctor", "--address", address],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "FATHOM_DATA_DIR": str(data_dir / "doctor"), "COLUMNS": "200"},
    )
    return {"rc": doctor.returncode, "out": doctor.stdout[-4000:], "err": doctor.stderr[-2000:]}


def _after_first_round(engine: Engine, session_id: str, done: Any) -> SessionState | None:
    """The session's checkpoint once a round with facts has ended; None when it ended first."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        ready, _ = ray.wait([done], timeout=0.5)
        if ready:
            return None
        events = ray.get(engine.handles.memory.events.remote(session_id))
        if any(e.type == EventType.ROUND_END for e in events):
            state: SessionState | None = ray.get(engine.handles.memory.load_session.remote(session_id))
            if state is not None and state.fact_ledger.facts:
                return state
    return None


def _fetched_by(engine: Engine, labels: dict[str, str]) -> dict[str, int]:
    """Pages fetched per browser node, from each pool's count."""
    nodes = _actor_nodes(ray.get_runtime_context().gcs_address)
    counts: dict[str, int] = {}
    for name in engine.directory.browser_names():
        where = labels.get(nodes.get(name, ""), "?")
        fetched: Any = ray.get(ray.get_actor(name).fetched.remote())
        counts[where] = counts.get(where, 0) + int(fetched)
    return counts


def _actor_nodes(address: str) -> dict[str, str]:
    """Alive named actors: name -> node id."""
    actors = list_actors(address=address, filters=[("state", "=", "ALIVE")], limit=1000)
    return {str(a.name): str(a.node_id) for a in actors if a.name}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


if __name__ == "__main__":
    main(Path(sys.argv[1]))
