"""The layers: core < actors < serve < cli. The core (fathom_ray outside its adapters and its cli)
loads no heavy framework and imports no outer layer; each layer imports only those below it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = (
    "ray",
    "fastapi",
    "playwright",
    "qdrant_client",
    "qdrant_edge",
    "neo4j",
    "vllm",
    "torch",
    "starlette",
)
ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "fathom_ray"
CLI = "fathom_ray.cli"
# Each layer and the modules it may not import (the layers above it).
ABOVE = {
    "actors": ("serve", CLI),
    "serve": (CLI,),
}


def _core_modules() -> list[Path]:
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if not {"adapters", "cli"} & set(path.relative_to(PACKAGE).parts)
    ]


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside functions, as written (absolute only)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imported.add(node.module)
    return imported


def _within(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(f"{p}.") for p in packages)


def test_importing_the_core_loads_no_heavy_framework() -> None:
    modules = [
        "fathom_ray" + "".join(f".{p}" for p in path.relative_to(PACKAGE).with_suffix("").parts)
        for path in _core_modules()
    ]
    names = [m.removesuffix(".__init__") for m in modules]
    code = (
        "import importlib, sys\n"
        f"for name in {names!r}: importlib.import_module(name)\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


@pytest.mark.parametrize("path", _core_modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_core_module_imports_nothing_heavy_or_outer(path: Path) -> None:
    outer = (*HEAVY, "actors", "serve", CLI)
    assert not {name for name in _imports(path) if _within(name, outer)}


@pytest.mark.parametrize("path", sorted((PACKAGE / "adapters").rglob("*.py")), ids=lambda p: p.name)
def test_adapters_import_no_outer_layer(path: Path) -> None:
    assert not {name for name in _imports(path) if _within(name, ("actors", "serve", CLI))}


@pytest.mark.parametrize(
    "path",
    [p for layer in ABOVE for p in sorted((ROOT / layer).rglob("*.py"))],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_each_outer_layer_imports_only_the_layers_below(path: Path) -> None:
    above = ABOVE[path.relative_to(ROOT).parts[0]]
    assert not {name for name in _imports(path) if _within(name, above)}


def test_the_package_import_does_not_pull_in_the_cli() -> None:
    code = "import fathom_ray, sys; print('fathom_ray.cli' in sys.modules, 'typer' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


@pytest.mark.parametrize(
    "path",
    [
        p
        for root in (PACKAGE, ROOT / "actors", ROOT / "serve")
        for p in sorted(root.rglob("*.py"))
        if not {"evaluation", "cli"} & set(p.relative_to(root).parts)
    ],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_only_the_cli_scripts_and_tests_import_the_evaluation(path: Path) -> None:
    """`fathom eval` scores runs from outside: no part of the engine reads its scores."""
    assert not {name for name in _imports(path) if _within(name, ("fathom_ray.evaluation",))}


# Inside the core: each package and the core packages it may not import. Text tools sit below
# everything; the judges and the web plane below research; nothing in the core imports the
# evaluation (checked above), the swarm imports research and never the other way.
CORE_BELOW = {
    "fathom_ray.text": ("fathom_ray.research", "fathom_ray.web", "fathom_ray.judges", "fathom_ray.swarm"),
    "fathom_ray.judges": (
        "fathom_ray.research",
        "fathom_ray.web",
        "fathom_ray.swarm",
        "fathom_ray.documents",
    ),
    "fathom_ray.web": (
        "fathom_ray.research",
        "fathom_ray.judges",
        "fathom_ray.swarm",
        "fathom_ray.documents",
    ),
    "fathom_ray.research": ("fathom_ray.swarm",),
}


def _package_of(path: Path) -> str:
    return "fathom_ray." + path.relative_to(PACKAGE).parts[0]


@pytest.mark.parametrize(
    "path",
    [p for package in CORE_BELOW for p in sorted((ROOT / package.replace(".", "/")).rglob("*.py"))],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_core_packages_import_only_what_sits_below_them(path: Path) -> None:
    assert not {name for name in _imports(path) if _within(name, CORE_BELOW[_package_of(path)])}


def test_the_core_has_no_loose_modules_but_its_shared_vocabulary() -> None:
    """A newcomer finds a part by its package: at the top only the values, ports, errors, settings
    and the API client every package shares."""
    loose = {p.name for p in PACKAGE.glob("*.py")}
    assert loose == {"__init__.py", "models.py", "ports.py", "errors.py", "settings.py", "client.py"}
