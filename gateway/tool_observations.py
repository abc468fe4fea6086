"""Deterministic one-line observations of tool use (PostToolUse). No LLM.

``observe(tool_name, tool_input, tool_response, cwd)`` returns text such as
"Edited gateway/app.py", "Ran pytest: 12 passed, 1 failed" or None for
tools not worth remembering (reads, searches, our own memory tools).
Plain module.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

from kernel.error_signature import error_line

MAX_OBSERVATION_CHARS = 300

_PYTEST = re.compile(
    r"(\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed)"
    r"(?:, \d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected))*)"
)
_JEST = re.compile(r"Tests:\s+([^\n]*total)")
_GO = re.compile(r"^(ok|FAIL)\s+\S+", re.MULTILINE)
_CARGO = re.compile(r"test result: (\w+)\. (\d+ passed; \d+ failed)")
_QUIET_TOOLS = {"Read", "Glob", "Grep", "LS", "TodoWrite", "TodoRead", "NotebookRead", "ExitPlanMode", "Task"}
_WRAPPERS = {"sudo", "time", "env", "uv", "poetry", "npx", "pnpm", "yarn", "bunx", "python", "python3", "-m"}


@dataclass(frozen=True)
class Observation:
    text: str
    kind: str
    files: tuple[str, ...] = ()


def _relative(path: str, cwd: str | None) -> str:
    if not path:
        return "a file"
    if cwd:
        try:
            rel = os.path.relpath(path, cwd)
            if not rel.startswith(".."):
                return rel
        except ValueError:
            pass
    return path


def _response_text(response: object) -> str:
    if isinstance(response, str):
        return response
    if isinstance(response, dict):
        parts = [str(response.get(k) or "") for k in ("stdout", "stderr", "output", "result", "error")]
        return "\n".join(p for p in parts if p)
    return ""


def _is_wrapper(word: str) -> bool:
    base = os.path.basename(word)
    return base in _WRAPPERS or base in ("run", "exec") or re.fullmatch(r"python[\d.]*", base) is not None


def primary_command(command: str) -> str:
    """'cd x && uv run pytest -q tests' -> 'pytest'; 'git commit -m ..' -> 'git commit'."""
    last = re.split(r"&&|\|\||;|\|", command)
    for segment in reversed(last):
        try:
            words = shlex.split(segment, posix=True)
        except ValueError:
            words = segment.split()
        words = [w for w in words if "=" not in w.split("/")[0] or w.startswith("-")]
        stripped = ""
        while words and _is_wrapper(words[0]):
            stripped, words = os.path.basename(words[0]), words[1:]
        if words and words[0].startswith("-") and stripped:  # "python3 -c '...'": the interpreter ran it
            return stripped
        if not words or words[0] in ("cd", "echo", "export", "source", "."):
            continue
        name = os.path.basename(words[0])
        if name in ("git", "npm", "cargo", "go", "docker", "kubectl", "make", "pip") and len(words) > 1:
            return f"{name} {words[1]}"
        return name
    return ""


def run_summary(output: str) -> str:
    """The test runner's final tally: cargo, jest, pytest, go (checked in that order)."""
    cargo = _CARGO.findall(output)
    if cargo:
        return f"{cargo[-1][0]}, {cargo[-1][1]}"
    jest = _JEST.search(output)
    if jest:
        return jest.group(1).strip()
    pytest_tallies = _PYTEST.findall(output)
    if pytest_tallies:
        return str(pytest_tallies[-1])
    go = _GO.findall(output)
    if go:
        return "FAIL" if "FAIL" in go else "ok"
    return ""


def _failed(response: object) -> bool:
    """The tool reported a failure: a failure event (PostToolUseFailure) or a non-zero exit code."""
    if not isinstance(response, dict):
        return False
    code = response.get("exit_code")
    return bool(response.get("failed")) or (isinstance(code, int) and not isinstance(code, bool) and code != 0)


def observe(tool_name: str, tool_input: object, tool_response: object, cwd: str | None) -> Observation | None:
    if not tool_name or tool_name in _QUIET_TOOLS or tool_name.startswith("mcp__mnemex"):
        return None
    data = tool_input if isinstance(tool_input, dict) else {}
    path = str(data.get("file_path") or data.get("notebook_path") or data.get("path") or "")
    rel = _relative(path, cwd)
    if tool_name in ("Edit", "MultiEdit"):
        edits = data.get("edits")
        count = len(edits) if isinstance(edits, list) else 1
        suffix = f" ({count} edits)" if count > 1 else ""
        return Observation(f"Edited {rel}{suffix}", "change", (rel,))
    if tool_name == "Write":
        lines = data.get("content_lines") or str(data.get("content") or "").count("\n") + 1
        return Observation(f"Wrote {rel} ({lines} lines)", "change", (rel,))
    if tool_name == "NotebookEdit":
        return Observation(f"Edited notebook {rel}", "change", (rel,))
    if tool_name == "Bash":
        command = str(data.get("command") or "")
        name = primary_command(command) or "a command"
        summary = run_summary(_response_text(tool_response)[-4000:])
        interrupted = isinstance(tool_response, dict) and tool_response.get("interrupted")
        if summary:
            text = f"Ran {name}: {summary}"
        else:
            description = str(data.get("description") or "").strip()
            text = f"Ran {name}" + (f" ({description})" if description else "")
        if interrupted:
            text += " [interrupted]"
        elif _failed(tool_response):
            error = error_line(_response_text(tool_response)[-4000:])
            text += f" [failed: {error}]" if error else " [failed]"
        return Observation(text[:MAX_OBSERVATION_CHARS], "command")
    if tool_name == "WebFetch":
        url = str(data.get("url") or "")
        host = re.sub(r"^[a-z]+://", "", url).split("/")[0]
        return Observation(f"Fetched {host or 'a page'}", "discovery")
    if tool_name == "WebSearch":
        return Observation(f"Searched the web for {str(data.get('query') or '')[:120]!r}", "discovery")
    return Observation(f"Used {tool_name[:80]}", "other")
