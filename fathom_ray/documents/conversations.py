"""Conversations for ``ask``: the last turns of each, kept as JSON files under one folder.

A follow-up question that leans on an earlier turn ("and when was it released?") is asked with
that turn's subject carried in (the decomposition's rule for parts that refer back). A
conversation keeps its last ``MAX_TURNS`` turns; its id is the caller's, checked.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from fathom_ray.errors import InvalidRequestError

MAX_TURNS = 6
_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True, slots=True)
class Turn:
    question: str
    answer: str


def check_conversation_id(conversation_id: str) -> str:
    if not _ID.match(conversation_id):
        raise InvalidRequestError("conversation_id", "1-64 letters, digits, '_' or '-'")
    return conversation_id


class Conversations:
    def __init__(self, folder: Path) -> None:
        self._folder = folder

    def turns(self, conversation_id: str) -> list[Turn]:
        path = self._path(conversation_id)
        if not path.is_file():
            return []
        try:
            return [Turn(str(t["question"]), str(t["answer"])) for t in json.loads(path.read_text())]
        except (ValueError, KeyError, TypeError):
            return []  # a damaged file is a conversation started afresh, never an error

    def add(self, conversation_id: str, turn: Turn) -> list[Turn]:
        turns = [*self.turns(conversation_id), turn][-MAX_TURNS:]
        path = self._path(conversation_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.partial")
        partial.write_text(json.dumps([asdict(t) for t in turns]))
        partial.replace(path)
        return turns

    def _path(self, conversation_id: str) -> Path:
        return self._folder / f"{check_conversation_id(conversation_id)}.json"
