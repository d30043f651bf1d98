"""The `fathom` command: the outermost shell (core < actors < serve < cli).

``import fathom_ray`` does not load it; the console script imports ``fathom_ray.cli:main``.
"""

from fathom_ray.cli.app import app, main

__all__ = ["app", "main"]
