"""Ray actors: thin shells over the core, one module per actor."""
