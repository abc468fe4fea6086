"""What each client needs, as entries for ``jsondoc`` (pure: no I/O).

Every path derives from one ``home`` (``$HOME``), so tests run against a
temporary home. The commands use absolute paths (the interpreter that runs
``mnemex init`` and this checkout's ``hooks/``), so clients do not depend
on their own ``PATH``.

Cursor double firing: Cursor also runs the Claude Code hooks in
``~/.claude/settings.json``. Every hook command therefore names its client
(``--client claude`` / ``--client cursor``); the hook adapter drops a
``--client claude`` call whose payload comes from Cursor (Cursor adds
``cursor_version`` / ``conversation_id`` / ``workspace_roots``), so only the
Cursor-native ``sessionStart``/``stop`` hooks act inside Cursor.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

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
)

# Claude Code event -> (hook script in <repo>/hooks/, timeout seconds, matcher).
# The scripts enforce their own hard deadline (about 2 s); the client timeout
# is only a backstop so a stuck interpreter can never hold a prompt.
CLAUDE_HOOKS: dict[str, tuple[str, int, str | None]] = {
    "SessionStart": ("session_start.py", 5, None),
    "UserPromptSubmit": ("user_prompt_submit.py", 5, None),
    "PostToolUse": ("post_tool_use.py", 5, "Edit|MultiEdit|Write|NotebookEdit|Bash"),
    "PreCompact": ("pre_compact.py", 5, None),
    "Stop": ("stop.py", 5, None),
}

# Cursor event -> (script, timeout seconds). beforeSubmitPrompt cannot add
# context in Cursor, so context arrives with sessionStart; the other events
# feed scoring (stop), the compaction reminder and tool observations.
CURSOR_HOOKS: dict[str, tuple[str, int]] = {
    "sessionStart": ("session_start.py", 5),
    "stop": ("stop.py", 5),
    "preCompact": ("pre_compact.py", 5),
    "afterFileEdit": ("post_tool_use.py", 5),
    "afterShellExecution": ("post_tool_use.py", 5),
}


@dataclass(frozen=True)
class Launch:
    """How clients start mnemex pieces on this machine."""

    home: Path
    python: str
    repo: Path
    gateway_url: str

    @property
    def mcp_command(self) -> list[str]:
        return [self.python, "-m", "mnemex.cli", "mcp"]

    def hook_script(self, script: str) -> Path:
        return self.repo / "hooks" / script

    def hook_command(self, script: str, client: str) -> str:
        # -S: the hooks are stdlib-only, skipping site-packages saves start-up time.
        return shlex.join([self.python, "-S", str(self.hook_script(script)), "--client", client])


@dataclass(frozen=True)
class JsonTarget:
    client: str
    label: str
    path: Path
    entries: tuple[Entry, ...]


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
        group: dict[str, object] = {}
        if matcher:
            group["matcher"] = matcher
        group["hooks"] = [{"type": "command", "command": launch.hook_command(script, "claude"), "timeout": timeout}]
        hook_entries.append(Entry("item", ("hooks", event), group))
    allow = [Entry("item", ("permissions", "allow"), f"mcp__{SERVER_NAME}__{tool}") for tool in TOOL_NAMES]
    server = {"type": "stdio", "command": launch.python, "args": launch.mcp_command[1:], "env": {}}
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
    server = {
        "command": launch.python,
        "args": launch.mcp_command[1:],
        "env": {"MNEMEX_PROJECT_DIR": "${workspaceFolder}"},
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


def opencode_plugin_source(gateway_url: str) -> str:
    template = resources.files("mnemex.client_setup").joinpath("mnemex.ts").read_text(encoding="utf-8")
    return template.replace("__MNEMEX_GATEWAY_URL__", gateway_url)


def opencode_targets(launch: Launch) -> list[Target]:
    config_dir = launch.home / ".config" / "opencode"
    server = {"type": "local", "command": launch.mcp_command, "enabled": True}
    return [
        FileTarget(
            "opencode",
            "OpenCode plugin",
            config_dir / "plugins" / "mnemex.ts",
            opencode_plugin_source(launch.gateway_url),
        ),
        JsonTarget(
            "opencode",
            "OpenCode MCP servers",
            config_dir / "opencode.json",
            (Entry("key", ("mcp", SERVER_NAME), server),),
        ),
    ]


BUILDERS = {"claude": claude_targets, "cursor": cursor_targets, "opencode": opencode_targets}
CLIENTS = tuple(BUILDERS)


def targets_for(launch: Launch, clients: tuple[str, ...]) -> list[Target]:
    found: list[Target] = []
    for client in clients:
        found.extend(BUILDERS[client](launch))
    return found


def missing_hook_scripts(launch: Launch, clients: tuple[str, ...]) -> list[Path]:
    scripts = set()
    if "claude" in clients:
        scripts |= {script for script, _, _ in CLAUDE_HOOKS.values()}
    if "cursor" in clients:
        scripts |= {script for script, _ in CURSOR_HOOKS.values()}
    return [launch.hook_script(s) for s in sorted(scripts) if not launch.hook_script(s).exists()]
