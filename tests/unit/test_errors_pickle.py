"""Every error of ours crosses a process boundary whole (Ray pickles what an actor raises)."""

from __future__ import annotations

import pickle

import pytest

from fathom_ray.errors import (
    FathomError,
    InvalidRequestError,
    InvalidURLError,
    SessionNotFoundError,
    StoreError,
    UnknownPresetError,
)


@pytest.mark.parametrize(
    "error",
    [
        StoreError("qdrant", "OperationalError: unable to open database file"),
        InvalidRequestError("goal", "too short"),
        UnknownPresetError("bottomless", ("glance", "quick")),
        InvalidURLError("ftp://x", "not http(s)"),
        SessionNotFoundError("s-123"),
    ],
)
def test_errors_pickle_with_their_message_and_fields(error: FathomError) -> None:
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error)
    assert str(copy) == str(error)
    assert copy.__dict__ == error.__dict__
