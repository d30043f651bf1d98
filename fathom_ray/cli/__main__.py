"""``python -m fathom_ray.cli``: the ``fathom`` command (how `fathom up` starts its engine's process)."""

from fathom_ray.cli.app import main

main()
