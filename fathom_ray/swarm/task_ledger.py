"""The task-tree ledger of a swarm: one append-only JSONL file per swarm, every decision in it.

The coordinator and its agents write coordination records (the plan, an assignment, a budget, a
completion, a failure) and typed beacons from a child to its parent ("found a contradiction",
"budget exhausted", "blocked"). Attention kinds are marked so the coordinator wakes at once. A row
is capped at ``ROW_CHARS`` characters (a longer record keeps its kind and agent, its data cut and
said to be), the file at ``FILE_BYTES`` bytes: the record that would pass it goes to the next
file, and the full one ends with a pointer to it (``roll``), so a reader follows the chain from
``<swarm_id>.jsonl``. Nothing is rewritten: a crash loses at most the line being written, and a
torn last line is skipped on reading.
"""

from __future__ import annotations

import enum
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from fathom_ray.errors import InvalidRequestError
from fathom_ray.models import JsonValue

ROW_CHARS = 4_000
FILE_BYTES = 2 * 1024 * 1024
_SWARM_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


class RecordKind(enum.StrEnum):
    PLAN = "plan"
    ASSIGNMENT = "assignment"
    BUDGET = "budget"
    COMPLETION = "completion"
    FAILURE = "failure"
    BEACON = "beacon"
    ROLL = "roll"  # the last row of a full file: where the ledger goes on


class Beacon(enum.StrEnum):
    """What a child tells its parent."""

    CONTRADICTION = "found a contradiction"
    BUDGET_EXHAUSTED = "budget exhausted"
    BLOCKED = "blocked"
    PROGRESS = "progress"


ATTENTION = frozenset({Beacon.CONTRADICTION, Beacon.BLOCKED})


@dataclass(frozen=True, slots=True)
class LedgerRecord:
    seq: int
    at: float
    agent: str
    kind: RecordKind
    data: dict[str, JsonValue] = field(default_factory=dict)
    attention: bool = False

    def line(self) -> str:
        row = {
            "seq": self.seq,
            "at": round(self.at, 3),
            "agent": self.agent,
            "kind": self.kind.value,
            "attention": self.attention,
            "data": self.data,
        }
        return json.dumps(row, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def parse(cls, line: str) -> LedgerRecord:
        row = json.loads(line)
        return cls(
            int(row["seq"]),
            float(row["at"]),
            str(row["agent"]),
            RecordKind(row["kind"]),
            dict(row.get("data") or {}),
            bool(row.get("attention")),
        )


def check_swarm_id(swarm_id: str) -> str:
    if not _SWARM_ID.match(swarm_id):
        raise InvalidRequestError("swarm_id", "must be 1-64 letters, digits, '-' or '_'")
    return swarm_id


class TaskLedger:
    """Appends to the ledger of ``swarm_id`` under ``folder``, continuing an existing one."""

    def __init__(
        self, folder: Path, swarm_id: str, *, row_chars: int = ROW_CHARS, file_bytes: int = FILE_BYTES
    ) -> None:
        self.folder, self.swarm_id = folder, check_swarm_id(swarm_id)
        self.row_chars, self.file_bytes = row_chars, file_bytes
        folder.mkdir(parents=True, exist_ok=True)
        chain = _chain(folder, swarm_id)
        self._part = len(chain) - 1 if chain else 0
        self._seq = max((r.seq for path in chain for r in _records(path)), default=0)

    @property
    def path(self) -> Path:
        return file_of(self.folder, self.swarm_id, self._part)

    def append(
        self,
        agent: str,
        kind: RecordKind,
        data: dict[str, JsonValue] | None = None,
        *,
        beacon: Beacon | None = None,
    ) -> LedgerRecord:
        """Write one record; a beacon's kind is ``BEACON`` and its type goes in ``data``."""
        payload: dict[str, JsonValue] = dict(data or {})
        if beacon is not None:
            kind, payload = RecordKind.BEACON, {"beacon": beacon.value, **payload}
        self._seq += 1
        record = LedgerRecord(self._seq, time.time(), agent[:200], kind, payload, beacon in ATTENTION)
        line = record.line()
        if len(line) > self.row_chars:
            record = _cut(record, self.row_chars)
            line = record.line()
        size = self.path.stat().st_size if self.path.exists() else 0
        if size and size + len(line.encode()) + 1 > self.file_bytes:
            self._roll()
        with self.path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")
        return record

    def _roll(self) -> None:
        following = file_of(self.folder, self.swarm_id, self._part + 1)
        self._seq += 1
        pointer = LedgerRecord(self._seq, time.time(), "ledger", RecordKind.ROLL, {"next": following.name})
        with self.path.open("a", encoding="utf-8") as out:
            out.write(pointer.line() + "\n")
        self._part += 1


def _cut(record: LedgerRecord, row_chars: int) -> LedgerRecord:
    """The record with its data replaced by the start of its JSON, said to be cut."""
    text = json.dumps(record.data, ensure_ascii=False)
    bare = LedgerRecord(record.seq, record.at, record.agent, record.kind).line()
    room = max(0, row_chars - len(bare) - 200)
    data: dict[str, JsonValue] = {"truncated": True, "chars": len(text), "head": text[:room]}
    cut = LedgerRecord(record.seq, record.at, record.agent, record.kind, data, record.attention)
    while len(cut.line()) > row_chars and room > 0:  # escapes can lengthen the JSON: shrink until it fits
        room = max(0, room - 200)
        data = {"truncated": True, "chars": len(text), "head": text[:room]}
        cut = LedgerRecord(record.seq, record.at, record.agent, record.kind, data, record.attention)
    return cut


def file_of(folder: Path, swarm_id: str, part: int) -> Path:
    return folder / (f"{swarm_id}.jsonl" if part == 0 else f"{swarm_id}.{part}.jsonl")


def _chain(folder: Path, swarm_id: str) -> list[Path]:
    """The ledger's files in order, following each full file's pointer to the next."""
    files: list[Path] = []
    path = file_of(folder, swarm_id, 0)
    while path.is_file() and path not in files:
        files.append(path)
        following = None
        for record in _records(path):
            if record.kind is RecordKind.ROLL:
                following = folder / str(record.data.get("next", ""))
        if following is None:
            break
        path = following
    return files


def _records(path: Path) -> list[LedgerRecord]:
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(LedgerRecord.parse(line))
        except (ValueError, KeyError, TypeError):
            continue  # a torn last line (a crash mid-write) or a damaged row: the rest still reads
    return records


def read(folder: Path, swarm_id: str) -> list[LedgerRecord]:
    """Every record of the swarm's ledger in order, pointers left out."""
    check_swarm_id(swarm_id)
    return [r for path in _chain(folder, swarm_id) for r in _records(path) if r.kind is not RecordKind.ROLL]


def read_text(folder: Path, swarm_id: str) -> str:
    """The swarm's ledger as one JSONL text, its files joined in order, pointers left out."""
    return "".join(record.line() + "\n" for record in read(folder, swarm_id))
