"""The CLI's tables: one shape for every listing the commands print."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.table import Table


def table(
    columns: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    title: str | None = None,
    right: Sequence[str] = (),
) -> Table:
    """``rows`` under ``columns``: long cells fold onto more lines; the ``right`` columns (figures)
    align right and never wrap."""
    made = Table(title=title)
    for column in columns:
        if column in right:
            made.add_column(column, justify="right", no_wrap=True)
        else:
            made.add_column(column, overflow="fold")
    for row in rows:
        made.add_row(*row)
    return made
