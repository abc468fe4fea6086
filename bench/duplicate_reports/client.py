"""Plays the duplicate-reports scenario against one gateway as a client would: hook endpoints and /mcp.

Every conversation is a new session (session-start), each prompt goes through get-context, each tool call
through post-tool-use (a failed one through the failure route when the gateway has one), each answer
through stop, and scores through the MCP tool score_response whenever the scoring prompt asks for them.

An episode (``solve``): the first report as the prompt; a failed attempt (a tool call with an error
output), the assistant's answer; the user's "still broken" turn (which scores the failed turn
``failed``); the fix applied and its answer; the user's thanks (which scores the fix ``worked``).
A probe (``probe``): a new session whose only turn is get-context with a report's text; nothing is
stored or scored, so the probes do not depend on each other's order.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from bench.duplicate_reports.dataset import Problem, Report
from bench.duplicate_reports.lessons import failed_attempt, fix_text
from kernel.json_values import JSONObject, parse_object, strs_at

FIX_CHECK = "seamonkey -P bench --selftest"
FIX_OUTPUT = "Running profile checks...\nselftest: all checks passed"
MAX_ERRORS_KEPT = 20
STILL_BROKEN = (
    "Still broken, same thing happens.",
    "No luck, it behaves exactly the same way.",
    "That didn't change anything.",
    "Nope, still the same problem after the restart.",
)
THANKS = ("That did it, thanks!", "Works now, thank you.", "Great, fixed.", "Perfect, that solved it.")
SCORE_ENTRY = re.compile(r'"([A-Za-z0-9_.:-]+)"\s*:\s*"\?"')


def failure_route(paths: Sequence[str]) -> str:
    """The hook route for failed tool calls, if this gateway has one."""
    return next((p for p in sorted(paths) if p.startswith("/api/hooks/") and "failure" in p), "")


def score_ids(context: str, fallback: Sequence[str] = ()) -> list[str]:
    """The ids the scoring prompt asks about, read from its text (the reply's list if the text has none)."""
    return SCORE_ENTRY.findall(context) or list(fallback)


@dataclass(frozen=True)
class Probe:
    """One get-context of a report the project has not seen in this session."""

    kind: str  # recurrence | near_miss
    report: str  # report id
    problem: str  # the problem's key ('' for a near-miss)
    block: str


@dataclass
class Record:
    """What one run saw and how it went."""

    label: str
    seed: int
    failure_route: str = ""
    episodes: int = 0
    probes: list[Probe] = field(default_factory=list)
    kg_problems: int = -1  # known problems in the kg's episode book for the project at the end (-1: unread)
    http_errors: int = 0
    tool_errors: int = 0
    errors: list[str] = field(default_factory=list)  # the first few of either, for the report
    seconds: dict[str, float] = field(default_factory=dict)  # phase -> wall seconds

    def error(self, text: str) -> None:
        if len(self.errors) < MAX_ERRORS_KEPT:
            self.errors.append(text)


class HookClient:
    """One project (``cwd``) on one gateway: HTTP for the hooks, one MCP session for the tools."""

    def __init__(self, url: str, cwd: Path, record: Record) -> None:
        self.url = url
        self.cwd = str(cwd)
        self.record = record
        self.sessions = 0

    async def __aenter__(self) -> HookClient:
        (Path(self.cwd) / ".git").mkdir(parents=True, exist_ok=True)
        self.stack = contextlib.AsyncExitStack()
        self.http = await self.stack.enter_async_context(httpx.AsyncClient(base_url=self.url, timeout=120))
        mcp_http = await self.stack.enter_async_context(
            httpx2.AsyncClient(headers={"X-Mnemex-Cwd": self.cwd}, timeout=120)
        )
        client = Client(streamable_http_client(f"{self.url}/mcp", http_client=mcp_http), read_timeout_seconds=120)
        self.mcp = await self.stack.enter_async_context(client)
        spec = (await self.http.get("/openapi.json")).json()
        self.failure_path = failure_route(list(spec.get("paths", {})))
        self.record.failure_route = self.failure_path or "(none: failures go through post-tool-use)"
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stack.aclose()

    async def post(self, path: str, body: Mapping[str, object]) -> JSONObject:
        """The reply's JSON; a status other than 200 is counted and answers {} (the run goes on)."""
        reply = await self.http.post(path, json=body)
        if reply.status_code != 200:
            self.record.http_errors += 1
            self.record.error(f"{path}: HTTP {reply.status_code}: {reply.text[:200]}")
            return {}
        return parse_object(reply.content)

    async def tool(self, name: str, arguments: Mapping[str, object]) -> None:
        result = await self.mcp.call_tool(name, dict(arguments))
        if result.is_error:
            self.record.tool_errors += 1
            self.record.error(f"{name}: " + " ".join(getattr(c, "text", "") for c in result.content)[:200])

    # -- turns ---------------------------------------------------------------------------
    async def new_session(self) -> str:
        self.sessions += 1
        session = f"{self.record.label}-s{self.sessions:04d}"
        await self.post("/api/hooks/session-start", {"session_id": session, "cwd": self.cwd})
        return session

    async def prompt(self, session: str, text: str, reaction: str = "unknown") -> str:
        """get-context; when the scoring prompt asks, the previous turn is scored by the user's ``reaction``.

        The simulated assistant follows a script and uses no memory it was shown, so each listed memory
        is scored ``unknown``, as the tool description asks for memories not used."""
        reply = await self.post("/api/hooks/get-context", {"session_id": session, "prompt": text, "cwd": self.cwd})
        context = str(reply.get("context") or "")
        ids = score_ids(context, strs_at(reply, "scoring_ids"))
        if ids or reply.get("scoring_required"):
            await self.tool("score_response", {"outcome": reaction, "memory_scores": dict.fromkeys(ids, "unknown")})
        return str(reply.get("known_context") or context)

    async def stop(self, session: str, answer: str) -> None:
        await self.post("/api/hooks/stop", {"session_id": session, "cwd": self.cwd, "assistant_text": answer})

    async def tool_call(self, session: str, command: str, output: str, failed: bool) -> None:
        tool_input = {"command": command, "description": "Apply the change and rerun the failing check"}
        base = {"session_id": session, "cwd": self.cwd, "tool_name": "Bash", "tool_input": tool_input}
        if failed and self.failure_path:
            await self.post(self.failure_path, {**base, "error": output})
            return
        response = {
            "stdout": "" if failed else output,
            "stderr": output if failed else "",
            "interrupted": False,
            "exit_code": 1 if failed else 0,
        }
        await self.post("/api/hooks/post-tool-use", {**base, "tool_response": response})

    # -- the scenario's two kinds of conversation ----------------------------------------
    async def solve(self, problem: Problem, turn: int) -> None:
        """An episode: the first report, a failed attempt scored failed, the fix scored worked."""
        session = await self.new_session()
        await self.prompt(session, problem.first.text)
        attempt = failed_attempt(problem.index)
        await self.tool_call(session, attempt.command, attempt.output, failed=True)
        await self.stop(session, f"I ran `{attempt.command}`, but the check failed again: {attempt.error}")
        await self.prompt(session, STILL_BROKEN[turn % len(STILL_BROKEN)], reaction="failed")
        await self.tool_call(session, FIX_CHECK, FIX_OUTPUT, failed=False)
        await self.stop(session, fix_text(problem.index))
        await self.prompt(session, THANKS[turn % len(THANKS)], reaction="worked")
        await self.stop(session, "Glad it works.")
        self.record.episodes += 1

    async def probe(self, kind: str, report: Report, problem: str = "") -> Probe:
        session = await self.new_session()
        probe = Probe(kind, report.id, problem, await self.prompt(session, report.text))
        self.record.probes.append(probe)
        return probe

    async def kg_problems(self) -> int:
        """Known problems of this project in the kg's episode book, read from the user's export."""
        reply = await self.http.post("/api/export")
        if reply.status_code != 200:
            self.record.http_errors += 1
            self.record.error(f"/api/export: HTTP {reply.status_code}: {reply.text[:200]}")
            return -1
        total = 0
        for raw in reply.text.splitlines():
            line = json.loads(raw) if raw.strip() else {}
            if line.get("type") == "kg":
                total += len(((line.get("graph") or {}).get("episodes") or {}).get("problems") or [])
        return total
