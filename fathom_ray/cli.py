"""The ``fathom`` command: an outer shell over the engine.

This is the one module of the package that may reach ``actors/`` and
``serve/``; ``import fathom_ray`` never imports it.
"""

from __future__ import annotations

import json
from importlib.metadata import version
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from fathom_ray.errors import FathomError
from fathom_ray.presets import PRESETS
from fathom_ray.settings import load_settings

app = typer.Typer(
    name="fathom",
    help="fathom-ray: autonomous web research in which every claim cites a page that says it.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()


def _show_version(value: bool) -> None:
    if value:
        console.print(f"fathom-ray {version('fathom-ray')}")
        raise typer.Exit


@app.callback()
def root(
    show_version: Annotated[
        bool,
        typer.Option("--version", callback=_show_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """fathom-ray: autonomous web research in which every claim cites a page that says it."""


@app.command()
def presets() -> None:
    """List the depth presets and their budgets."""
    table = Table(title="Depth presets")
    table.add_column("preset", no_wrap=True)
    for column in ("batch", "pages", "checklist", "URL pool", "time", "tokens"):
        table.add_column(column, justify="right", no_wrap=True)
    for preset in PRESETS.values():
        table.add_row(
            preset.name,
            str(preset.batch_size),
            str(preset.max_pages),
            str(preset.checklist_size),
            f"{preset.url_pool:,}",
            f"{preset.time_budget_s / 60:g} min",
            _compact(preset.token_budget),
        )
    console.print(table)


def _compact(count: int) -> str:
    return f"{count / 1e6:g}M" if count >= 1_000_000 else f"{count / 1e3:g}k"


@app.command()
def config() -> None:
    """Print the effective settings (environment applied, secrets masked) as JSON."""
    try:
        settings = load_settings()
    except FathomError as e:
        console.print(f"[red]error:[/red] {e}")
        raise typer.Exit(code=2) from e
    typer.echo(json.dumps(settings.model_dump(mode="json"), indent=2))


def main() -> None:
    """Entry point of the console script."""
    app()
