"""Running the engine: where each actor kind goes on a cluster (placement) and the engine's
figures read from Ray's metrics endpoint (metrics_text)."""
