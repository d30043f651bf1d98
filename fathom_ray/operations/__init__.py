"""Running the engine: where each actor kind goes on a cluster (placement), the engine's figures
read from Ray's metrics endpoint (metrics_text), and where an engine kept for other commands says it
is (engine_file: engine.json and the stores' lock of a data folder)."""
