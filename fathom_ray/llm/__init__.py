"""The judge: LLM calls with JSON-schema-constrained answers, prompts that frame sources as data, accounting."""
