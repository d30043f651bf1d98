"""A command's own local Ray (``running.start_ray`` without a dashboard) starts lean and works."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import psutil
import pytest

pytestmark = pytest.mark.integration

SCRIPT = """
import json, ray
from fathom_ray.cli.running import start_ray
start_ray(None, None, "lean-test")
node = ray._private.worker._global_node
started = sorted(node.all_processes)
pids = [info.process.pid for infos in node.all_processes.values() for info in infos]

@ray.remote(num_cpus=0)
class Echo:
    def echo(self, text):
        return text

made = Echo.options(name="echo").remote()
ray.get(made.echo.remote("created"))
answer = ray.get(ray.get_actor("echo").echo.remote("still works"))
ray.shutdown()
print(json.dumps({"started": started, "pids": pids, "answer": answer}))
"""


def test_a_commands_own_ray_starts_without_api_server_monitors_and_stops_whole() -> None:
    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120, check=True
    )
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["answer"] == "still works"  # named actors found and called as before
    assert {"gcs_server", "raylet"} <= set(said["started"])
    assert not {"dashboard", "monitor", "log_monitor"} & set(said["started"])
    alive = [
        pid for pid in said["pids"] if psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"
    ]
    assert not alive  # ray.shutdown stopped every process it started
