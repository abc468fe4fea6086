"""What each client needs, as entries for ``jsondoc`` (pure: no I/O).

Every path derives from one ``home`` (``$HOME``), so tests run against a
temporary home. The commands use absolute paths, so clients do not depend on
their own ``PATH``: the MCP server runs ``<python> -m mnemex.cli mcp`` with
the interpreter mnemex is installed in; the hooks run
``<base python> -S <mnemex home>/client/hooks/<script> --client <name>``,
copies made by ``init`` (see ``hook_install``), so they survive a deleted
checkout or virtual environment.

Which stack: every MCP entry carries ``MNEMEX_CONNECTION_FILE`` (the
connection file ``init`` wrote, never a secret), and the hooks read the same
file beside their folder, so both reach the stack ``init`` was run for
whatever environment the client starts them with.

Cursor double firing: Cursor also runs the Claude Code hooks in
``~/.claude/settings.json``. Every hook command therefore names its client
(``--client claude`` / ``--client cursor``); the hook adapter drops a
``--client claude`` call whose payload comes from Cursor (Cursor adds
``cursor_version`` / ``conversation_id`` / ``workspace_roots``), so only the
Cursor-native hooks act inside Cursor.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from kernel.connection import FILE_NAME, FILE_VARIABLE
from kernel.json_values import JSONObject
from mnemex.client_setup.hook_install import HOOKS_DIR
from mnemex.client_setup.jsondoc import Entry

SERVER_NAME = "mnemex"

# The MCP tools mnemex serves (kept in step with gateway.mcp.tool_specs by a test).
TOOL_NAMES = (
    "search_memory",
    "add_to_memory_bank",
    "update_memory",
    "archive_memory",
    "get_context_insights",
    "score_response",
    "record_response",
    "query_kg",
    "find_consolidation_candidates",
    "consolidate_memories",
    "list_problems",
    "merge_problems",
    "unmerge_problems",
)

# Claude Code event -> (hook script in <mnemex home>/client/hooks/, timeout seconds, matcher).
# The scripts enforce their own hard deadline (about 2 s); the client timeout
# is only a backstop so a stuck interpreter can never hold a prompt.
CLAUDE_HOOKS: dict[str, tuple[str, int, str | None]] = {
    "SessionStart": ("session_start.py", 5, None),
    "UserPromptSubmit": ("user_prompt_submit.py", 5, None),
    "PostToolUse": ("post_tool_use.py", 5, "Edit|MultiEdit|Write|NotebookEdit|Bash"),
    # A failed tool call fires this instead of PostToolUse; the same script reads either payload.
    "PostToolUseFailure": ("post_tool_use.py", 5, "Edit|MultiEdit|Write|NotebookEdit|Bash|WebFetch"),
    "PreCompact": ("pre_compact.py", 5, None),
    "Stop": ("stop.py", 5, None),
}

# Cursor event -> (script, timeout seconds). beforeSubmitPrompt cannot add
# context in Cursor (context arrives with sessionStart), but it carries the
# prompt; afterAgentResponse carries the answer and stop ends the turn (both
# feed scoring); the rest feed the compaction reminder and tool observations.
CURSOR_HOOKS: dict[str, tuple[str, int]] = {
    "sessionStart": ("session_start.py", 5),
    "beforeSubmitPrompt": ("user_prompt_submit.py", 5),
    "afterAgentResponse": ("stop.py", 5),
    "stop": ("stop.py", 5),
    "preCompact": ("pre_compact.py", 5),
    "afterFileEdit": ("post_tool_use.py", 5),
    "afterShellExecution": ("post_tool_use.py", 5),
    "postToolUseFailure": ("post_tool_use.py", 5),
}


@dataclass(frozen=True)
class Launch:
    """How clients start mnemex pieces on this machine."""

    home: Path  # the user's $HOME, where the client configs live
    python: str  # the interpreter mnemex is installed in: runs `mnemex mcp`
    hook_python: str  # a plain python3 (no site-packages needed): runs the hooks
    client_dir: Path  # <mnemex home>/client: the hook copies and the connection file
    gateway_url: str

    @property
    def mcp_command(self) -> list[str]:
        return [self.python, "-m", "mnemex.cli", "mcp"]

    @property
    def connection_file(self) -> Path:
        return self.client_dir / FILE_NAME

    @property
    def mcp_env(self) -> dict[str, str]:
        return {FILE_VARIABLE: str(self.connection_file)}

    def hook_script(self, script: str) -> Path:
        return self.client_dir / HOOKS_DIR / script

    def hook_command(self, script: str, client: str) -> str:
        # -S: the hooks are stdlib-only, skipping site-packages saves start-up time.
        return shlex.join([self.hook_python, "-S", str(self.hook_script(script)), "--client", client])


@dataclass(frozen=True)
class JsonTarget:
    client: str
    label: str
    path: Path
    entries: tuple[Entry, ...]
    jsonc: bool = False  # comments and trailing commas allowed (OpenCode)


@dataclass(frozen=True)
class FileTarget:
    client: str
    label: str
    path: Path
    content: str


Target = JsonTarget | FileTarget


def claude_targets(launch: Launch) -> list[Target]:
    hook_entries = []
    for event, (script, timeout, matcher) in CLAUDE_HOOKS.items():
        group: JSONObject = {}
        if matcher:
            group["matcher"] = matcher
        group["hooks"] = [{"type": "command", "command": launch.hook_command(script, "claude"), "timeout": timeout}]
        hook_entries.append(Entry("item", ("hooks", event), group))
    allow = [Entry("item", ("permissions", "allow"), f"mcp__{SERVER_NAME}__{tool}") for tool in TOOL_NAMES]
    server: JSONObject = {
        "type": "stdio",
        "command": launch.python,
        "args": [*launch.mcp_command[1:]],
        "env": {**launch.mcp_env},
    }
    return [
        JsonTarget(
            "claude",
            "Claude Code settings (hooks, tool permissions)",
            launch.home / ".claude" / "settings.json",
            (*hook_entries, *allow),
        ),
        JsonTarget(
            "claude",
            "Claude Code MCP servers",
            launch.home / ".claude.json",
            (Entry("key", ("mcpServers", SERVER_NAME), server),),
        ),
    ]


def cursor_targets(launch: Launch) -> list[Target]:
    # Cursor may start MCP servers outside the workspace; it expands ${workspaceFolder} in env.
    server: JSONObject = {
        "command": launch.python,
        "args": [*launch.mcp_command[1:]],
        "env": {**launch.mcp_env, "MNEMEX_PROJECT_DIR": "${workspaceFolder}"},
    }
    hooks = [
        Entry("item", ("hooks", event), {"command": launch.hook_command(script, "cursor"), "timeout": timeout})
        for event, (script, timeout) in CURSOR_HOOKS.items()
    ]
    return [
        JsonTarget(
            "cursor",
            "Cursor MCP servers",
            launch.home / ".cursor" / "mcp.json",
            (Entry("key", ("mcpServers", SERVER_NAME), server),),
        ),
        JsonTarget(
            "cursor",
            "Cursor hooks",
            launch.home / ".cursor" / "hooks.json",
            (Entry("default", ("version",), 1), *hooks),
        ),
    ]


def _js_string_body(text: str) -> str:
    """``text`` escaped for the inside of a double-quoted JS string literal."""
    return json.dumps(text)[1:-1]


def opencode_plugin_source(gateway_url: str, connection_file: Path | None = None) -> str:
    template = resources.files("mnemex.client_setup").joinpath("mnemex.ts").read_text(encoding="utf-8")
    text = template.replace("__MNEMEX_GATEWAY_URL__", _js_string_body(gateway_url))
    if connection_file is not None:
        text = text.replace("__MNEMEX_CONNECTION_FILE__", _js_string_body(str(connection_file)))
    return text


def opencode_config_path(config_dir: Path) -> Path:
    """``opencode.json``; ``opencode.jsonc`` when only that one exists (OpenCode reads either)."""
    plain, commented = config_dir / "opencode.json", config_dir / "opencode.jsonc"
    return commented if commented.exists() and not plain.exists() else plain


def opencode_plugin_path(config_dir: Path) -> Path:
    return config_dir / "plugins" / "mnemex.ts"


def opencode_targets(launch: Launch) -> list[Target]:
    config_dir = launch.home / ".config" / "opencode"
    server: JSONObject = {
        "type": "local",
        "command": [*launch.mcp_command],
        "enabled": True,
        "environment": {**launch.mcp_env},
    }
    return [
        FileTarget(
            "opencode",
            "OpenCode plugin",
            opencode_plugin_path(config_dir),
            opencode_plugin_source(launch.gateway_url, launch.connection_file),
        ),
        JsonTarget(
            "opencode",
            "OpenCode MCP servers",
            opencode_config_path(config_dir),
            (Entry("key", ("mcp", SERVER_NAME), server),),
            jsonc=True,
        ),
    ]


BUILDERS = {"claude": claude_targets, "cursor": cursor_targets, "opencode": opencode_targets}
CLIENTS = tuple(BUILDERS)


def check_clients(clients: tuple[str, ...]) -> tuple[str, ...]:
    """``clients`` in canonical order, without repeats; ValueError naming the valid ones for an unknown name."""
    unknown = [c for c in clients if c not in BUILDERS]
    if unknown:
        raise ValueError(f"unknown client {', '.join(map(repr, unknown))}; choose from {', '.join(CLIENTS)}")
    return tuple(c for c in CLIENTS if c in clients)


def targets_for(launch: Launch, clients: tuple[str, ...]) -> list[Target]:
    found: list[Target] = []
    for client in clients:
        found.extend(BUILDERS[client](launch))
    return found
