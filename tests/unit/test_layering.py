"""The core stays pure: no heavy framework is imported by fathom_ray outside its adapters."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("ray", "fastapi", "playwright", "qdrant_client", "neo4j", "vllm", "torch", "starlette")
PACKAGE = Path(__file__).resolve().parents[2] / "fathom_ray"
OUTER = ("actors", "serve")
SHELLS = (
    "cli.py",
    "web_commands.py",
    "ray_commands.py",
    "eval_commands.py",
)  # outer shells that live in the package for the console script


def _core_modules() -> list[Path]:
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if "adapters" not in path.relative_to(PACKAGE).parts and path.name not in SHELLS
    ]


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
    tree = ast.parse(path.read_text(), filename=str(path))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imported.add(node.module.split(".")[0])
    assert not imported & set(HEAVY + OUTER)


def test_the_package_import_does_not_pull_in_the_cli() -> None:
    code = "import fathom_ray, sys; print('fathom_ray.cli' in sys.modules, 'typer' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
