"""The frames of the engine's door (``actors.engine_door``, ``fathom_ray.cli.door``): from the engine,
a 4-byte length and a pickle of ``(kind, value)``; from a command, one JSON request line, then
``CANCEL`` to stop its session. The door is the engine's, in a folder only its owner can reach, and
its reader is a command of the same owner."""

from __future__ import annotations

import pickle
import socket
import struct

from fathom_ray.errors import FathomError

CANCEL = b"cancel\n"
HEADER = struct.Struct(">I")


def frame(kind: str, value: object) -> bytes:
    body = pickle.dumps((kind, value), protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(body)) + body


def read_frame(door: socket.socket) -> tuple[str, object]:
    (size,) = HEADER.unpack(_exactly(door, HEADER.size))
    kind, value = pickle.loads(_exactly(door, size))  # noqa: S301 (the engine's own socket, its owner's alone)
    return str(kind), value


def _exactly(door: socket.socket, size: int) -> bytes:
    chunks: list[bytes] = []
    left = size
    while left:
        chunk = door.recv(min(left, 1 << 20))
        if not chunk:
            raise FathomError("the engine went away during the session (its log says why)")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
