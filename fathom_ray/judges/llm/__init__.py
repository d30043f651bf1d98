"""The judge: structured LLM calls, prompts that frame sources as data, accounting."""
