"""What a process pays to hold an actor handle: Ray loads the actor's module wherever its handle is
deserialized (a Session actor resolves eight of them, an attached command the keeper's), so an actor
module imports its store client, its PDF reader and its extractor only where that part starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# each of these took a tenth to a third of a second to import; none is needed to call the part
LOADED_WHERE_USED = ("qdrant_client", "neo4j", "pypdf", "trafilatura", "torch", "sentence_transformers")


def test_the_actor_modules_load_no_store_client_reader_or_model() -> None:
    modules = sorted(f"actors.{p.stem}" for p in (ROOT / "actors").glob("*.py") if p.stem != "__init__")
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        f"print(','.join(m for m in {LOADED_WHERE_USED!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == ""


def test_the_swarms_analyst_and_verifier_processes_load_no_research_loop() -> None:
    # each swarm starts an analyst and a verifier: importing the session loop, the judges' answers
    # (pydantic, jsonschema) and numpy there was about a quarter of a second of CPU each
    code = (
        "import sys, actors.swarm_roles, actors.directory\n"
        "heavy = ('actors.session', 'fathom_ray.research.session_loop', 'fathom_ray.judges.llm.answers',"
        " 'fathom_ray.ports', 'numpy')\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == ""
