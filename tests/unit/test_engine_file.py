"""engine.json and the stores' lock: what a command reads to attach, and how a held folder is seen."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from fathom_ray.cli.attach import EngineChoice, choose_engine, engine_network, own_stores
from fathom_ray.cli.engine import start_kept_engine, stop_kept_engine
from fathom_ray.errors import FathomError
from fathom_ray.operations.engine_file import (
    EngineFile,
    door_path,
    engine_path,
    lock_stores,
    pid_alive,
    read_engine,
    remove_engine,
    stores_holder,
    write_engine,
)
from fathom_ray.settings import load_settings


def _engine(pid: int, web: str = "offline") -> EngineFile:
    return EngineFile(pid, "127.0.0.1:6379", "fathom-engine", "k", web, 4321, time.time(), "fathom up", 60.0)


def test_a_live_engine_is_read_back_and_a_dead_ones_file_is_removed(tmp_path: Path) -> None:
    write_engine(tmp_path, _engine(os.getpid()))
    found = read_engine(tmp_path)
    assert found is not None
    assert found.pid == os.getpid()
    assert found.offline_port == 4321
    assert engine_path(tmp_path).stat().st_mode & 0o777 == 0o600
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    write_engine(tmp_path, _engine(int(ended.stdout)))
    assert read_engine(tmp_path) is None
    assert not engine_path(tmp_path).exists()  # stale: the next command starts cleanly


def test_an_unreadable_engine_file_is_no_engine(tmp_path: Path) -> None:
    engine_path(tmp_path).write_text("{half", encoding="utf-8")
    assert read_engine(tmp_path) is None
    assert not engine_path(tmp_path).exists()


def test_an_ended_but_unreaped_process_counts_as_gone() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 30
    while pid_alive(child.pid) and time.monotonic() < deadline:
        time.sleep(0.05)  # ended, not yet waited for: a zombie, which os.kill alone calls alive
    assert not pid_alive(child.pid)
    child.wait()
    assert pid_alive(os.getpid())


def test_remove_engine_leaves_another_engines_file(tmp_path: Path) -> None:
    write_engine(tmp_path, _engine(os.getpid()))
    remove_engine(tmp_path, os.getpid() + 1)
    assert read_engine(tmp_path) is not None
    remove_engine(tmp_path, os.getpid())
    assert read_engine(tmp_path) is None


def test_the_stores_lock_is_held_by_one_process_and_freed_when_it_ends(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from fathom_ray.operations.engine_file import "
            "lock_stores; held = lock_stores(Path(sys.argv[1]), 'fathom research'); print(held is not None, "
            "flush=True); time.sleep(60)",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "True"
        assert lock_stores(tmp_path, "fathom eval") is None
        assert stores_holder(tmp_path) == f"fathom research (pid {holder.pid})"
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    held = lock_stores(tmp_path, "fathom eval")  # killed: the kernel freed it
    assert held is not None
    held.release()


def test_a_command_whose_stores_are_held_keeps_its_own_and_says_where(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path)
    said: list[str] = []
    outer = lock_stores(tmp_path, "fathom serve")
    assert outer is not None
    try:
        with own_stores(settings, "fathom research", said.append) as mine:
            assert mine.data_dir == tmp_path / "side" / "1"
            with own_stores(settings, "fathom ask", said.append) as second:  # two at once: one each
                assert second.data_dir == tmp_path / "side" / "2"
        with own_stores(settings, "fathom research", said.append) as again:  # side/1 taken up again
            assert again.data_dir == tmp_path / "side" / "1"
    finally:
        outer.release()
    assert len(said) == 3
    assert "in use by fathom serve" in said[0]
    assert str(tmp_path / "side" / "1") in said[0]
    assert sorted(p.name for p in (tmp_path / "side").iterdir()) == ["1", "2"]
    with own_stores(settings, "fathom research", said.append) as mine:
        assert mine.data_dir == tmp_path  # free again: the data folder's own stores
    assert len(said) == 3


def test_choose_engine_attaches_on_the_same_web_only(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path)
    assert choose_engine(settings, "offline", None, no_attach=False) == EngineChoice()
    write_engine(tmp_path, _engine(os.getpid(), web="offline"))
    chosen = choose_engine(settings, "offline", None, no_attach=False)
    assert chosen.attach is not None
    assert chosen.attach.pid == os.getpid()
    assert engine_network(chosen.attach).chromium_rules().startswith("MAP *.test 127.0.0.1:4321")
    other = choose_engine(settings, "internet", None, no_attach=False)
    assert other.attach is None
    assert other.note
    assert "researches the internet web" in other.note
    private = choose_engine(settings, "offline", None, no_attach=True)
    assert private.attach is None
    assert private.note
    assert "--no-attach" in private.note
    assert choose_engine(settings, "offline", "ray://cluster:10001", no_attach=False) == EngineChoice()


def test_up_for_another_web_and_down_on_serves_engine_are_clear_errors(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path)
    write_engine(tmp_path, _engine(os.getpid(), web="offline"))
    assert start_kept_engine(settings, "offline", print) == (read_engine(tmp_path), False)  # a no-op
    with pytest.raises(FathomError, match="stop it first to start one for the internet web"):
        start_kept_engine(settings, "internet", print)
    write_engine(tmp_path, replace(_engine(os.getpid()), by="fathom serve"))
    with pytest.raises(FathomError, match="stop it where it runs"):
        stop_kept_engine(settings, print)
    assert read_engine(tmp_path) is not None  # nothing was stopped


def test_the_door_is_in_the_data_folder_unless_its_path_is_too_long_for_a_socket(tmp_path: Path) -> None:
    assert door_path(tmp_path) == tmp_path.resolve() / "engine.sock"
    assert door_path(tmp_path / ("d" * 120)) is None  # commands then attach through Ray
