"""The openai backend against a real OpenAI-compatible HTTP server of the tests' own on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic import SecretStr

from fathom_ray.adapters.openai_http import OpenAIBackend
from fathom_ray.judges.llm.judge import Judge
from fathom_ray.settings import LLMSettings, Price

pytestmark = pytest.mark.integration


class ChatServer:
    """Speaks POST /v1/chat/completions; each request takes the next step of ``script``."""

    def __init__(self) -> None:
        self.script: list[tuple[int, str, float]] = []  # status, answer content, seconds to wait
        self.bodies: list[dict[str, Any]] = []
        self.auth: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                server.bodies.append(json.loads(self.rfile.read(length)))
                server.auth.append(self.headers.get("authorization", ""))
                status, content, wait_s = server.script.pop(0)
                time.sleep(wait_s)
                if status != 200:
                    body = b'{"error": {"message": "slow down"}}'
                    self.send_response(status)
                    self.send_header("Retry-After", "0")
                else:
                    body = json.dumps(
                        {
                            "choices": [
                                {
                                    "message": {"role": "assistant", "content": content},
                                    "finish_reason": "stop",
                                }
                            ],
                            "usage": {"prompt_tokens": 120, "completion_tokens": 12},
                        }
                    ).encode()
                    self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # a client that gave up
                    self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


@pytest.fixture
def server() -> Iterator[ChatServer]:
    chat = ChatServer()
    yield chat
    chat.httpd.shutdown()
    chat.httpd.server_close()


def make_judge(server: ChatServer, timeout_s: float = 5.0) -> tuple[Judge, OpenAIBackend]:
    settings = LLMSettings(
        backend="openai",
        base_url=server.url,
        model="served-model",
        api_key=SecretStr("s3cret"),
        timeout_s=timeout_s,
        max_retries=0,
        prices={"served-model": Price(prompt_per_mtok=0.5, completion_per_mtok=1.5)},
    )
    backend = OpenAIBackend(settings, backoff_s=0.01)
    return Judge(backend, settings), backend


def test_429_then_success(server: ChatServer) -> None:
    server.script = [(429, "", 0.0), (200, '{"questions": ["When was WAL added?"]}', 0.0)]
    judge, backend = make_judge(server)

    async def run() -> None:
        judged = await judge.decompose("When did SQLite add WAL?", 3)
        await backend.aclose()
        assert judged.ok
        assert judged.answer is not None
        assert judged.answer.questions == ["When was WAL added?"]
        assert judged.usage.prompt_tokens == 120
        assert judged.usage.cost_usd == pytest.approx((120 * 0.5 + 12 * 1.5) / 1e6)

    asyncio.run(run())
    assert len(server.bodies) == 2
    sent = server.bodies[-1]
    assert sent["model"] == "served-model"
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["schema"]["required"] == ["questions"]
    assert server.auth[-1] == "Bearer s3cret"


def test_a_hung_endpoint_is_a_timeout_failure(server: ChatServer) -> None:
    server.script = [(200, '{"questions": ["late"]}', 2.0)]
    judge, backend = make_judge(server, timeout_s=0.5)

    async def run() -> None:
        judged = await judge.decompose("When did SQLite add WAL?", 3)
        await backend.aclose()
        assert not judged.ok
        assert judged.failure is not None
        assert judged.failure.kind == "timeout"

    asyncio.run(run())


def test_invalid_json_from_the_endpoint_is_a_failure_value(server: ChatServer) -> None:
    server.script = [(200, "I think the answer is 3.7.0", 0.0)]
    judge, backend = make_judge(server)

    async def run() -> None:
        judged = await judge.decompose("When did SQLite add WAL?", 3)
        await backend.aclose()
        assert judged.failure is not None
        assert judged.failure.kind == "invalid_json"

    asyncio.run(run())
