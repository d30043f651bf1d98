"""Small network helpers shared by the tests: a free local port, waiting for a server to be healthy,
ending a server as Ctrl+C would."""

from __future__ import annotations

import signal
import socket
import subprocess
import time

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until_healthy(url: str, timeout_s: float, pause_s: float = 0.5) -> None:
    """Poll ``url/health`` until it answers 200 or ``timeout_s`` passes (the test then fails on its own)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(pause_s)


def interrupt(process: subprocess.Popen[str], timeout_s: float = 90.0) -> None:
    """End a server as Ctrl+C does, and kill it if it has not ended within ``timeout_s``."""
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=30)


def wait_for_port(port: int, timeout_s: float, host: str = "127.0.0.1") -> bool:
    """Whether something accepts TCP connections on ``port`` within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=1):
                return True
        except OSError:
            time.sleep(0.2)
    return False
