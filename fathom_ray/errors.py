"""Errors raised by fathom-ray.

Expected per-item outcomes (a page that failed to load, a judge answer that
never became valid JSON) are values, not exceptions. An exception stops a
unit of work: a request, a session, a command. Every one of ours derives from
``FathomError`` and carries the fields a caller needs to act on it::

    FathomError
    ├── ConfigError              settings that cannot work together
    ├── InvalidRequestError      bad input from a caller (field, reason)
    │   └── UnknownPresetError   a depth name that is not a preset
    ├── InvalidURLError          a URL that cannot be canonicalised (url, reason)
    ├── SearchError              a search backend that cannot answer (backend, reason)
    ├── JudgeError               the LLM backend is unusable (backend, reason)
    │   └── JudgeTimeoutError    the backend did not answer in time
    ├── StoreError               a vector or graph store failed (store, reason)
    ├── DocumentError            a file that cannot be read as a document (path, reason)
    └── SessionError             a research session cannot go on (session_id, reason)
        └── SessionNotFoundError no session has that id
"""

from __future__ import annotations

from typing import Any


class FathomError(Exception):
    """Base of every error fathom-ray raises on purpose.

    Picklable whatever a subclass's ``__init__`` takes (Ray sends errors between processes): it is
    rebuilt from its message and fields, not by calling ``__init__`` again.
    """

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), str(self), dict(self.__dict__)))


def _rebuild(cls: type[FathomError], message: str, fields: dict[str, Any]) -> FathomError:
    error = cls.__new__(cls)
    Exception.__init__(error, message)
    error.__dict__.update(fields)
    return error


class ConfigError(FathomError):
    """Settings that cannot work together."""


class InvalidRequestError(FathomError):
    """A caller's input broke a rule; ``field`` names where."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


class UnknownPresetError(InvalidRequestError):
    """A depth name that is not one of the presets."""

    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        super().__init__("depth", f"unknown preset {name!r}; choose one of {', '.join(known)}")
        self.name = name
        self.known = known


class InvalidURLError(FathomError):
    """A URL that cannot be canonicalised or is not http(s)."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"{url!r}: {reason}")
        self.url = url
        self.reason = reason


class SearchError(FathomError):
    """A search backend that cannot be reached or refuses to answer."""

    def __init__(self, backend: str, reason: str) -> None:
        super().__init__(f"search backend {backend}: {reason}")
        self.backend = backend
        self.reason = reason


class JudgeError(FathomError):
    """The LLM backend cannot serve calls."""

    def __init__(self, backend: str, reason: str) -> None:
        super().__init__(f"judge backend {backend}: {reason}")
        self.backend = backend
        self.reason = reason


class JudgeTimeoutError(JudgeError):
    """The backend did not answer in time."""


class StoreError(FathomError):
    """A vector or graph store failed."""

    def __init__(self, store: str, reason: str) -> None:
        super().__init__(f"store {store}: {reason}")
        self.store = store
        self.reason = reason


class DocumentError(FathomError):
    """A file that cannot become a document: unreadable, empty, too large, unsupported, no text."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class SessionError(FathomError):
    """A research session cannot go on."""

    def __init__(self, session_id: str, reason: str) -> None:
        super().__init__(f"session {session_id}: {reason}")
        self.session_id = session_id
        self.reason = reason


class SessionNotFoundError(SessionError):
    """No session has that id."""

    def __init__(self, session_id: str) -> None:
        super().__init__(session_id, "no such session")
