"""The task ledger actor on a local Ray: one writer per swarm file, callers' order kept, and an
attention record waking the coordinator that watches the swarm at once."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import ray

from actors.task_ledger import task_ledger_actor
from fathom_ray.swarm.task_ledger import Beacon, LedgerRecord, RecordKind, read

pytestmark = [pytest.mark.actors, pytest.mark.usefixtures("ray_session")]


@ray.remote(num_cpus=0)
class Watcher:
    def __init__(self) -> None:
        self.woken: list[LedgerRecord] = []

    def wake(self, record: LedgerRecord) -> None:
        self.woken.append(record)

    def seen(self) -> list[LedgerRecord]:
        return self.woken


def test_records_keep_their_order_and_attention_wakes_the_watcher(tmp_path: Path) -> None:
    ledger = task_ledger_actor().remote(tmp_path)
    watcher = Watcher.remote()  # type: ignore[attr-defined]
    ray.get(ledger.watch.remote("w-1", watcher))
    for n in range(20):  # sent without waiting: they land in the order sent
        ledger.append.remote("w-1", "coordinator", RecordKind.ASSIGNMENT, {"n": n})
    ledger.append.remote("w-1", "r1-researcher-1", RecordKind.BEACON, {"why": "x"}, Beacon.PROGRESS)
    ledger.append.remote("w-1", "r1-researcher-2", RecordKind.BEACON, {"why": "no page"}, Beacon.BLOCKED)
    ledger.append.remote("w-2", "coordinator", RecordKind.PLAN, {})  # another swarm, unwatched
    ray.get(ledger.flush.remote("w-1"))  # answered once every record sent before it is on disk
    records = read(tmp_path, "w-1")
    assert records == ray.get(ledger.read.remote("w-1"))
    assert [r.data.get("n") for r in records[:20]] == list(range(20))
    assert [r.seq for r in records] == list(range(1, 23))
    deadline = time.monotonic() + 30
    while not ray.get(watcher.seen.remote()) and time.monotonic() < deadline:
        time.sleep(0.05)
    woken = ray.get(watcher.seen.remote())
    assert [(r.agent, r.data["beacon"]) for r in woken] == [("r1-researcher-2", "blocked")]
    ray.get(ledger.close.remote("w-1"))
    ray.kill(ledger)  # a new writer goes on where the file ends
    again = task_ledger_actor().remote(tmp_path)
    record = ray.get(again.append.remote("w-1", "coordinator", RecordKind.COMPLETION, {}))
    assert record.seq == 23
    assert len(read(tmp_path, "w-1")) == 23
    assert len(read(tmp_path, "w-2")) == 1
