"""The HTTP API: a FastAPI app builder and its Ray Serve deployment."""
