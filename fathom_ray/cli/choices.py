"""The command line's fixed choices, as enums typer checks (a bad value exits 2 naming the option)."""

from __future__ import annotations

import enum

from fathom_ray.research.presets import PRESETS

DEPTHS = ", ".join(PRESETS)  # the depth presets, for help texts; ResearchRequest checks the value


class Web(enum.StrEnum):
    INTERNET = "internet"
    OFFLINE = "offline"  # the offline test web, started for the length of the command


class Method(enum.StrEnum):
    FATHOM = "fathom"
    SINGLE_PASS = "single-pass"  # noqa: S105 (a method name, not a password)
    BOTH = "both"
    SWARM = "swarm"  # a swarm of --agents researchers on each question


class Transport(enum.StrEnum):
    STDIO = "stdio"
    STREAMABLE_HTTP = "streamable-http"


class Search(enum.StrEnum):
    DDGS = "ddgs"
    SEARXNG = "searxng"
    LOCAL = "local"
