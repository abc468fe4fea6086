#!/usr/bin/env bash
# Create .venv at the repository root and install mnemex into it (idempotent).
#   scripts/install.sh          runtime only
#   scripts/install.sh --dev    plus test/codegen tools
# torch is installed first at a pinned version so a CPU machine never pulls a
# CUDA build (several GB) through sentence-transformers' loose torch>=2.2.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
extra=""
[ "${1:-}" = "--dev" ] && extra="[dev]"
stamp=".venv/.mnemex-installed${extra:+-dev}"
if [ -f "$stamp" ] && [ "$stamp" -nt pyproject.toml ]; then
  exit 0
fi
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
export PIP_DISABLE_PIP_VERSION_CHECK=1
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q "torch==2.13.0"
.venv/bin/python -m pip install -q -e ".${extra}"
# Export the embedding model to ONNX once (cached under ~/.cache/mnemex/onnx),
# so the first `mnemex up` starts the fast backend without torch.
.venv/bin/python -m services.embedding.onnx_export || echo "mnemex: ONNX export failed; the embedding service will use torch" >&2
touch "$stamp"
