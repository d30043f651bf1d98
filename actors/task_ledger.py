"""TaskLedgerActor: every swarm's task-tree ledger behind one actor.

The coordinator and each of its agents append through this actor, so one writer owns each file and
the records of one caller land in the order it sent them. A coordinator that ``watch``es its swarm
is woken at once (its ``wake`` method is called) by every record of an attention kind ("found a
contradiction", "blocked"), whoever wrote it.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from pathlib import Path
from typing import Any

from actors.actor_class import actor_class
from fathom_ray.models import Event, JsonValue
from fathom_ray.research.session_state import SessionState
from fathom_ray.swarm.beacons import BeaconWatch, at_end
from fathom_ray.swarm.task_ledger import Beacon, LedgerRecord, RecordKind, TaskLedger, read

logger = logging.getLogger(__name__)
OPEN_LEDGERS = 64  # ledgers kept open at once; an older one is opened again where its file ends


class TaskLedgerService:
    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._open: OrderedDict[str, TaskLedger] = OrderedDict()
        self._watchers: dict[str, Any] = {}

    def _ledger(self, swarm_id: str) -> TaskLedger:
        ledger = self._open.pop(swarm_id, None) or TaskLedger(self._folder, swarm_id)
        self._open[swarm_id] = ledger
        while len(self._open) > OPEN_LEDGERS:
            self._open.popitem(last=False)
        return ledger

    def append(
        self,
        swarm_id: str,
        agent: str,
        kind: RecordKind,
        data: dict[str, JsonValue] | None = None,
        beacon: Beacon | None = None,
    ) -> LedgerRecord:
        record = self._ledger(swarm_id).append(agent, kind, data, beacon=beacon)
        watcher = self._watchers.get(swarm_id)
        if record.attention and watcher is not None:
            watcher.wake.remote(record)
        return record

    def watch(self, swarm_id: str, coordinator: Any) -> None:
        """Call ``coordinator.wake(record)`` for every attention record of ``swarm_id`` from now on."""
        self._watchers[swarm_id] = coordinator

    def close(self, swarm_id: str) -> None:
        """The swarm has ended: forget its watcher and its open file."""
        self._watchers.pop(swarm_id, None)
        self._open.pop(swarm_id, None)

    def flush(self, swarm_id: str) -> None:
        """Nothing to do: answered once every record a caller sent before it is written (an actor
        runs one caller's calls in order, and each append writes its line before it answers)."""

    def read(self, swarm_id: str) -> list[LedgerRecord]:
        return read(self._folder, swarm_id)


def task_ledger_actor(name: str | None = None, **placement: Any) -> Any:
    """I/O-bound: it asks for no CPU; restarted, it goes on where each file ends."""
    return actor_class(TaskLedgerService).options(
        num_cpus=0, max_restarts=3, max_task_retries=3, name=name, **placement
    )


class AgentReports:
    """A swarm researcher's own records, sent to the ledger actor as its session goes (in order)."""

    def __init__(self, ledger: Any, swarm_id: str, agent: str) -> None:
        self._ledger, self._swarm_id, self._agent = ledger, swarm_id, agent
        self._watch = BeaconWatch()

    def observe(self, event: Event) -> None:
        raised = self._watch.observe(event)
        if raised is not None:
            beacon, data = raised
            self._ledger.append.remote(self._swarm_id, self._agent, RecordKind.BEACON, data, beacon)

    async def finish(self, state: SessionState) -> None:
        """Its completion, and the budget beacon when a budget stopped it; answered once written."""
        data: dict[str, JsonValue] = {
            "facts": len(state.fact_ledger.facts),
            "pages": state.pages_fetched,
            "stop_reason": state.stop_reason,
        }
        self._ledger.append.remote(self._swarm_id, self._agent, RecordKind.COMPLETION, data)
        raised = at_end(state.stop_reason)
        if raised is not None:
            beacon, why = raised
            self._ledger.append.remote(self._swarm_id, self._agent, RecordKind.BEACON, why, beacon)
        await self._ledger.flush.remote(self._swarm_id)
