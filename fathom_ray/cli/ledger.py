"""``fathom ledger SWARM_ID``: a swarm's task-tree ledger, read from ``FATHOM_DATA_DIR/ledger``."""

from __future__ import annotations

import json
import time
from typing import Annotated

import typer
from rich.console import Console

from fathom_ray.cli.running import fail, settings_or_exit
from fathom_ray.cli.tables import table
from fathom_ray.errors import FathomError
from fathom_ray.swarm.task_ledger import read

console = Console()
DATA_CHARS = 160  # of each record's data in the table (--json prints it whole)


def ledger_command(
    swarm_id: Annotated[
        str, typer.Argument(help="The swarm's id (w-..., as fathom research --swarm prints it).")
    ],
    agent: Annotated[
        str | None, typer.Option(help="Only this agent's records (coordinator, analyst, ...).")
    ] = None,
    attention: Annotated[
        bool, typer.Option("--attention", help="Only the beacons that wake the coordinator.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON record per line, as stored.")] = False,
) -> None:
    """Print a swarm's ledger: every plan, assignment, budget, completion, failure and beacon, in order."""
    settings = settings_or_exit(console)
    try:
        records = read(settings.data_dir / "ledger", swarm_id)
    except FathomError as e:
        fail(console, e)
    if not records:
        fail(console, FathomError(f"no ledger for swarm {swarm_id!r} in {settings.data_dir / 'ledger'}"))
    chosen = [r for r in records if (agent is None or r.agent == agent) and (r.attention or not attention)]
    if as_json:
        for record in chosen:
            print(record.line())
        return
    rows = []
    for record in chosen:
        data = json.dumps(record.data, ensure_ascii=False)
        kind = f"[bold red]{record.kind.value}[/bold red]" if record.attention else record.kind.value
        rows.append(
            (
                str(record.seq),
                time.strftime("%H:%M:%S", time.localtime(record.at)),
                record.agent,
                kind,
                data if len(data) <= DATA_CHARS else data[: DATA_CHARS - 1] + "…",
            )
        )
    title = f"ledger of {swarm_id}: {len(chosen)} of {len(records)} records"
    console.print(table(("seq", "time", "agent", "kind", "data"), rows, title=title))
