#!/usr/bin/env bash
# Check mnemex's MCP server with the official MCP Inspector CLI (a third-party MCP client).
#
#   scripts/mcp_inspector_check.sh                              # stdio: runs `mnemex mcp` (starts the stack if needed)
#   scripts/mcp_inspector_check.sh http://127.0.0.1:27300/mcp   # the gateway's streamable-HTTP endpoint
#
# Installs @modelcontextprotocol/inspector (pinned) into build/node-tools (git-ignored; override with
# MNEMEX_NODE_TOOLS), lists the tools, then calls get_context_insights. The Inspector keeps its own state
# in a throw-away HOME; the server still gets your real HOME and MNEMEX_* settings. Exits non-zero on failure.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${MNEMEX_PYTHON:-$ROOT/.venv/bin/python}"
TOOLS="${MNEMEX_NODE_TOOLS:-$ROOT/build/node-tools}"
PACKAGE="@modelcontextprotocol/inspector"
VERSION="2.12.0"
EXPECTED="search_memory add_to_memory_bank update_memory archive_memory get_context_insights score_response record_response query_kg"

command -v npx >/dev/null || { echo "npx not found: install Node.js 20+ (with npm) first" >&2; exit 1; }
[ -x "$PYTHON" ] || PYTHON="$(command -v python3)"
if [ ! -f "$TOOLS/node_modules/$PACKAGE/package.json" ]; then
  echo "installing $PACKAGE@$VERSION into $TOOLS" >&2
  mkdir -p "$TOOLS"
  HOME="$TOOLS" npm_config_update_notifier=false npm install --no-audit --no-fund --prefix "$TOOLS" "$PACKAGE@$VERSION" >&2
fi

INSPECTOR_HOME="$(mktemp -d)"
trap 'rm -rf "$INSPECTOR_HOME"' EXIT

# Options that pick the server go first; the server itself (URL or command) goes last, after "--",
# so that no variadic option (--tool-arg, --header) swallows it.
if [ $# -ge 1 ]; then
  options=(--header "X-Mnemex-Cwd: $PWD")
  [ -n "${MNEMEX_TOKEN:-}" ] && options+=(--header "Authorization: Bearer $MNEMEX_TOKEN")
  server=(-- "$1")
else
  options=(-e "HOME=$HOME" -e "PATH=$PATH" --cwd "$PWD")
  while IFS='=' read -r name value; do
    options+=(-e "$name=$value")
  done < <(env | grep '^MNEMEX_' || true)
  server=(-- "$PYTHON" -m mnemex.cli mcp)
fi

inspect() {
  (cd "$TOOLS" && HOME="$INSPECTOR_HOME" npm_config_update_notifier=false \
    npx --no-install "$PACKAGE" --cli "${options[@]}" "$@" "${server[@]}")
}

listing="$(inspect --method tools/list)"
names="$(printf '%s' "$listing" | "$PYTHON" -c 'import json,sys; print(" ".join(sorted(t["name"] for t in json.load(sys.stdin)["tools"])))')"
want="$(printf '%s\n' $EXPECTED | sort | tr '\n' ' ' | sed 's/ $//')"
if [ "$names" != "$want" ]; then
  echo "FAIL tools/list: got [$names], expected [$want]" >&2
  exit 1
fi
echo "ok   tools/list: $names"

reply="$(inspect --method tools/call --tool-name get_context_insights --tool-arg "query=mnemex inspector check" || true)"
printf '%s' "$reply" | "$PYTHON" -c 'import json,sys; r=json.load(sys.stdin); sys.exit(1 if r.get("isError") else 0)' || {
  echo "FAIL tools/call get_context_insights: $reply" >&2
  exit 1
}
echo "ok   tools/call get_context_insights"
