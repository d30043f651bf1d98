"""The judges behind ``JudgePort`` (fathom_ray/ports.py): the evidence judge, which needs no
generative model (evidence/), and the LLM judge over vLLM or an OpenAI-compatible endpoint (llm/,
with its prompt templates in prompts/). A new judge is a package here that implements the port."""
