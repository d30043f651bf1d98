"""One engine per machine, through the real CLI: `fathom up` keeps an engine that `fathom research`
attaches to (two at once), `fathom down` stops it, an idle one stops itself, a killed one leaves
nothing locked, and without an engine two commands at once both complete."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from fathom_ray.cli.engine import wait_gone
from fathom_ray.operations.door_frames import read_frame
from fathom_ray.operations.engine_file import read_engine

pytestmark = [pytest.mark.e2e]
FATHOM = str(Path(sys.executable).with_name("fathom"))
GOAL = "Which Python version introduced assignment expressions, and who wrote the PEP?"


def _env(data: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "FATHOM_DATA_DIR": str(data), "FATHOM_FETCH__MIN_HOST_DELAY_S": "0.2", **extra}


def _fathom(env: dict[str, str], *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [FATHOM, *args], env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def _research(env: dict[str, str], out: Path, *extra: str) -> subprocess.Popen[str]:
    command = [FATHOM, "research", GOAL, "--web", "offline", "--depth", "quick", "--out", str(out), *extra]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _finished(runs: list[subprocess.Popen[str]]) -> list[str]:
    said = [run.communicate(timeout=600)[0] for run in runs]
    for run, text in zip(runs, said, strict=True):
        assert run.returncode == 0, text[-3000:]
    return [" ".join(text.split()) for text in said]  # as one line: the console wraps at 80


def _facts(out: Path) -> list[dict[str, object]]:
    result = json.loads((out / "result.json").read_text())
    assert result["status"] == "complete"
    facts: list[dict[str, object]] = result["facts"]
    return facts


def test_commands_attach_to_the_engine_up_keeps_two_at_once_and_down_stops_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = _env(data)
    up = _fathom(env, "up", "--web", "offline")
    assert up.returncode == 0, up.stdout + up.stderr
    assert "engine up:" in up.stdout
    kept = read_engine(data)
    assert kept is not None
    assert kept.web == "offline"
    try:
        again = _fathom(env, "up", "--web", "offline")
        assert again.returncode == 0
        assert "already running" in again.stdout
        assert read_engine(data) == kept  # a no-op: the same engine
        said = _finished([_research(env, tmp_path / "a"), _research(env, tmp_path / "b")])
        for text in said:
            assert "attached to the engine fathom up started" in text
            assert "the session runs in its process" in text  # through its door: no Ray here
            assert "starting an engine of its own" not in text
        for out in (tmp_path / "a", tmp_path / "b"):
            assert any("572" in str(fact["evidence"]) for fact in _facts(out))
        _a_stopped_command_cancels_its_session(env, tmp_path / "c")
        _the_door_refuses_what_is_no_request(kept.door)
        assert not (data / "side").exists()  # nobody met a held store
        _documents_through_the_engine(env, tmp_path)
        assert kept.metrics
        shown = _fathom(env, "metrics")  # the kept engine's endpoint (a port taken moves it)
        assert kept.metrics in " ".join((shown.stdout + shown.stderr).split())
        timed = _fathom(env, "doctor", "--timings", "--web", "offline")
        assert timed.returncode == 0, timed.stdout + timed.stderr
        for part in ("Ray", "browser pool", "judge", "embedder", "every part", "attaching to the kept"):
            assert part in timed.stdout
        rows = json.loads(_fathom(env, "doctor", "--timings", "--web", "offline", "--json").stdout)
        assert [part for part, _ in rows][-1].startswith("attaching to the kept")  # stdout: the rows alone
        assert all(seconds >= 0 for _, seconds in rows)
    finally:
        down = _fathom(env, "down")
    assert down.returncode == 0, down.stdout + down.stderr
    assert "stopped" in down.stdout
    assert wait_gone(kept.pid, 60)
    assert read_engine(data) is None
    assert "stopping" in (data / "engine.log").read_text()  # it shut down in order, not killed
    assert "no engine is running" in _fathom(env, "down").stdout


def _a_stopped_command_cancels_its_session(env: dict[str, str], out: Path) -> None:
    """Ctrl-C on a command whose session runs in the engine: the engine stops it and sends what it
    had, which the command writes, as cancelled."""
    run = _research(env, out)
    assert run.stdout is not None
    said = ""
    while "its process" not in " ".join(said.split()):  # the console wraps at 80
        line = run.stdout.readline()
        assert line, said
        said += line
    run.send_signal(signal.SIGINT)
    text = run.communicate(timeout=300)[0]
    assert run.returncode == 1, text[-3000:]
    result = json.loads((out / "result.json").read_text())
    assert result["status"] == "cancelled"
    assert result["stop_reason"] == "cancelled"


def _the_door_refuses_what_is_no_request(door: str | None) -> None:
    """A line that is no request gets an error frame, and the door serves on."""
    assert door is not None
    for line in (b"not json\n", b'{"request": {}}\n'):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect(door)
            client.sendall(line)
            client.settimeout(60)
            kind, message = read_frame(client)
        assert kind == "error"
        assert "could not read the request" in str(message)


def _documents_through_the_engine(env: dict[str, str], tmp_path: Path) -> None:
    """The engine owns the document store: docs and ask work through its actors (no lock met)."""
    note = tmp_path / "wal.md"
    note.write_text("# Journaling\n\n## WAL\n\nThe write-ahead log lets readers run beside one writer.")
    added = _fathom(env, "docs", "add", str(note))
    assert added.returncode == 0, added.stdout + added.stderr
    assert "attached to the engine" in " ".join(added.stderr.split())
    assert "added" in added.stdout
    listed = _fathom(env, "docs", "ls")
    assert "Journaling" in listed.stdout, listed.stdout + listed.stderr
    document_id = next(
        line.split("│")[1].strip() for line in listed.stdout.splitlines() if "Journaling" in line
    )
    found = _fathom(env, "docs", "search", "readers beside a writer", "--limit", "1")
    assert f"doc://{document_id}#0" in found.stdout, found.stdout + found.stderr
    asked = _fathom(env, "ask", "What does the write-ahead log let readers do?", "--json")
    assert asked.returncode == 0, asked.stdout + asked.stderr
    answer = json.loads(asked.stdout)
    assert "beside one writer" in json.dumps(answer)
    removed = _fathom(env, "docs", "rm", document_id)
    assert f"removed {document_id}" in removed.stdout, removed.stdout + removed.stderr
    assert "Journaling" not in _fathom(env, "docs", "ls").stdout


def test_a_killed_engine_leaves_nothing_locked_and_an_idle_one_stops_itself(tmp_path: Path) -> None:
    data = tmp_path / "data"
    up = _fathom(_env(data), "up", "--web", "offline")
    assert up.returncode == 0, up.stdout + up.stderr
    killed = read_engine(data)
    assert killed is not None
    os.kill(killed.pid, signal.SIGKILL)
    assert wait_gone(killed.pid, 30)
    timed = _fathom(_env(data), "doctor", "--timings", "--web", "offline")  # a cold engine on the same stores
    assert timed.returncode == 0, timed.stdout + timed.stderr
    assert "keeps its own" not in timed.stdout  # nothing was left locked
    for part in (
        "Ray",
        "browser pool",
        "source memory",
        "judge",
        "every part",
        "until a session",
        "model loaded",
    ):
        assert part in timed.stdout
    idle = _env(data, FATHOM_ENGINE__IDLE_TIMEOUT_S="4")
    again = _fathom(idle, "up", "--web", "offline")  # starts cleanly on the same stores
    assert again.returncode == 0, again.stdout + again.stderr
    assert "engine up:" in again.stdout
    kept = read_engine(data)
    assert kept is not None
    assert kept.pid != killed.pid
    assert kept.idle_timeout_s == 4
    assert wait_gone(kept.pid, 90)  # no command came: it stopped itself
    assert read_engine(data) is None
    assert "idle for" in (data / "engine.log").read_text()


def test_without_an_engine_two_commands_at_once_both_complete(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = _env(data)
    said = _finished([_research(env, tmp_path / "a"), _research(env, tmp_path / "b")])
    for out in (tmp_path / "a", tmp_path / "b"):
        assert _facts(out)
    own = [text for text in said if "this command keeps its own in" in text]
    assert len(own) == 1  # the second found the stores held and said where its own are
    assert [p.name for p in (data / "side").iterdir()] == ["1"]  # the first free side folder
