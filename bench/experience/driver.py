"""Plays a scenario against one gateway the way a client would: hook endpoints over HTTP, tools over /mcp.

One MCP session per project (its X-Mnemex-Cwd header selects the project);
every new conversation opens with session-start; each prompt goes through
get-context, each tool call through post-tool-use (a failing one through the
post-tool-use-failure route when the gateway has it), each answer through
stop. Scores go through the MCP score_response tool whenever a scoring prompt
asks for them, as the tool descriptions say. On a recurrence the assistant
plans its attempts from the first block of the session and keeps to that plan.

An answer says what the assistant did in its own words (``Fix.said``, in one
of a few framings that vary from answer to answer), never the command or the
words the assistant recognises a fix by. At the end the run asks the gateway
for its export and counts the known problems the kg holds per project.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Mapping
from pathlib import Path

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from bench.experience import assistant, block
from bench.experience.catalogue import PROBLEMS, PROJECTS
from bench.experience.problems import Fix, Problem
from bench.experience.record import Entry, Recurrence, Run, Seen
from bench.experience.scenario import FACTS_LATER, STILL_BROKEN, THANKS, Event
from kernel.json_values import JSONObject, JSONValue, as_object, list_at, parse_object, strs_at

# how an answer reports a fix: "I <Fix.said>" and the outcome, in words that vary from answer to answer
WORKED_ANSWERS = (
    "I {said}; it passes now: {result}",
    "I {said}. That fixed it: {result}",
    "Done: I {said}, and the error is gone ({result}).",
)
FAILED_ANSWERS = (
    "I {said}, but it still fails: {error}",
    "I {said}. No luck, same error: {error}",
    "I {said}; that did not help: {error}",
)
_TEST_MARK = re.compile(r"^E\s+")


def answer_for(fix: Fix, works: bool, variant: int) -> str:
    if works:
        return WORKED_ANSWERS[variant % len(WORKED_ANSWERS)].format(said=fix.said, result=fix.success.splitlines()[-1])
    error = fix.failure.splitlines()[0][:160]
    return FAILED_ANSWERS[variant % len(FAILED_ANSWERS)].format(said=fix.said, error=error)


def output_lines(output: str) -> list[str]:
    """A tool's output as the lines a block may show (a test runner's "E   " mark dropped)."""
    return [_TEST_MARK.sub("", line.strip()) for line in output.splitlines() if line.strip()]


def other_fixes(problem: Problem, project: str) -> list[str]:
    """The problem's fixes that fail here but are right elsewhere: in another project, or for another
    problem of this project (the pairs that share most of their words)."""
    right = problem.right[project]
    elsewhere = {k for p, k in problem.right.items() if p != project}
    elsewhere |= {q.right[project] for q in PROBLEMS if q.key != problem.key and project in q.right}
    return [f.key for f in problem.fixes if f.key != right and f.key in elsewhere]


def known_problems(export: str) -> dict[str, int]:
    """Project -> the kg's known problems, from the JSONL export (a graph line per project)."""
    out: dict[str, int] = {}
    for raw in export.splitlines():
        item = json.loads(raw) if raw.strip() else {}
        if item.get("type") != "kg":
            continue
        project = str(item.get("scope", {}).get("project") or "")
        owner = next((name for name in PROJECTS if project.startswith(name)), project)
        problems = (item.get("graph", {}).get("episodes") or {}).get("problems") or []
        out[owner] = out.get(owner, 0) + len(problems)
    return out


def failure_route(paths: list[str]) -> str:
    """The hook route for failed tool calls, if this gateway has one."""
    for path in sorted(paths):
        if path.startswith("/api/hooks/") and "failure" in path:
            return path
    return ""


def structured(result: CallToolResult) -> JSONObject:
    return as_object(result.structured_content)


def first_id(data: JSONValue) -> str:
    """The first "id" in a tool's structured result (the stored memory)."""
    if isinstance(data, dict):
        found_id = data.get("id")
        if isinstance(found_id, str) and found_id:
            return found_id
        for value in data.values():
            found = first_id(value)
            if found:
                return found
    if isinstance(data, list):
        for value in data:
            found = first_id(value)
            if found:
                return found
    return ""


class Player:
    def __init__(self, url: str, root: Path, run: Run) -> None:
        self.url = url
        self.root = root
        self.run = run
        self.http = httpx.AsyncClient(base_url=url, timeout=120)
        self.mcp: dict[str, Client] = {}
        self.failure_path = ""
        self.sessions = 0
        self.current_session = ""
        # per session: the last block's lines, the fix last applied and whether it worked
        self.last_lines: list[block.Line] = []
        self.last_fix: str | None = None
        self.last_ok = False
        self.last_problem: Problem | None = None
        self.fact_ids: dict[tuple[str, str], str] = {}  # (attribute, project) -> memory id
        self.failed_before: dict[tuple[str, str], list[str]] = {}  # (problem, project) -> keys of fixes that failed
        self.answers = 0

    def cwd(self, project: str) -> str:
        return str(self.root / project)

    async def __aenter__(self) -> Player:
        self.stack = contextlib.AsyncExitStack()
        for project in PROJECTS:
            (self.root / project / ".git").mkdir(parents=True, exist_ok=True)
            http = await self.stack.enter_async_context(
                httpx2.AsyncClient(headers={"X-Mnemex-Cwd": self.cwd(project)}, timeout=120)
            )
            client = Client(streamable_http_client(f"{self.url}/mcp", http_client=http), read_timeout_seconds=120)
            self.mcp[project] = await self.stack.enter_async_context(client)
        spec = (await self.http.get("/openapi.json")).json()
        self.failure_path = failure_route(list(spec.get("paths", {})))
        self.run.failure_route = self.failure_path or "(none: failures go through post-tool-use)"
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stack.aclose()
        await self.http.aclose()

    async def post(self, path: str, body: Mapping[str, object]) -> JSONObject:
        reply = await self.http.post(path, json=body)
        if reply.status_code != 200:
            raise RuntimeError(f"{path}: HTTP {reply.status_code}: {reply.text[:300]}")
        return parse_object(reply.content)

    async def tool(self, project: str, name: str, arguments: Mapping[str, object]) -> CallToolResult:
        result = await self.mcp[project].call_tool(name, dict(arguments))
        if result.is_error:
            text = " ".join(getattr(c, "text", "") for c in result.content)
            self.run.errors.append(f"{name}: {text[:200]}")
        return result

    # -- one conversation turn --------------------------------------------------------------
    async def new_session(self, project: str) -> str:
        self.sessions += 1
        session = f"{self.run.label}-s{self.sessions:04d}"
        reply = await self.http.post("/api/hooks/session-start", json={"session_id": session, "cwd": self.cwd(project)})
        if reply.status_code not in (200, 404):  # a gateway without the route is tolerated, a failing one is not
            raise RuntimeError(f"/api/hooks/session-start: HTTP {reply.status_code}: {reply.text[:300]}")
        self.last_lines, self.last_fix, self.last_ok, self.last_problem = [], None, False, None
        return session

    async def prompt(
        self, project: str, session: str, text: str, *, kind: str, problem: str = "", first: bool = False
    ) -> Seen:
        """get-context, then the scores the scoring prompt asks for (the user's new prompt is the reaction)."""
        self.run.turns += 1
        reply = await self.post(
            "/api/hooks/get-context", {"session_id": session, "prompt": text, "cwd": self.cwd(project)}
        )
        self.run.registry.add(text, Entry(project, session, problem, "prompt"))
        context = str(reply.get("context") or "")
        known = str(reply.get("known_context") or context)
        ids = assistant.score_ids(context, strs_at(reply, "scoring_ids"))
        if ids or reply.get("scoring_required"):
            outcome = "failed" if text in STILL_BROKEN or text.startswith(STILL_BROKEN) else "worked"
            scores = assistant.memory_scores(ids, self.last_lines, self.last_fix, self.last_ok, self.last_problem)
            await self.tool(project, "score_response", {"outcome": outcome, "memory_scores": scores})
        sources: dict[str, tuple[str, str]] = {}
        for memory in [*list_at(reply, "memories"), *list_at(reply, "lessons")]:
            if isinstance(memory, dict) and memory.get("id"):
                meta = memory.get("metadata")
                meta = meta if isinstance(meta, dict) else {}
                sources[str(memory["id"])] = (str(meta.get("session_id") or ""), str(memory.get("project") or ""))
        seen = Seen(kind, project, session, problem, known, sources, first)
        self.run.seen.append(seen)
        self.last_lines = block.lines(known)
        self.last_fix, self.last_ok = None, False
        return seen

    async def stop(self, project: str, session: str, answer: str) -> None:
        await self.post("/api/hooks/stop", {"session_id": session, "cwd": self.cwd(project), "assistant_text": answer})

    async def attempt(self, project: str, session: str, problem: Problem, key: str) -> bool:
        """Apply one fix: its tool call and outcome through the hooks, then the answer through stop."""
        fix = problem.fix(key)
        works = problem.right.get(project) == key
        cwd = self.cwd(project)
        tool_input = {"command": fix.command, "description": "Try it"}
        if works:
            response = {"stdout": fix.success, "stderr": "", "interrupted": False, "exit_code": 0}
            await self.post(
                "/api/hooks/post-tool-use",
                {
                    "session_id": session,
                    "cwd": cwd,
                    "tool_name": "Bash",
                    "tool_input": tool_input,
                    "tool_response": response,
                },
            )
        else:
            if self.failure_path:
                await self.post(
                    self.failure_path,
                    {
                        "session_id": session,
                        "cwd": cwd,
                        "tool_name": "Bash",
                        "tool_input": tool_input,
                        "error": fix.failure,
                    },
                )
            else:
                response = {"stdout": "", "stderr": fix.failure, "interrupted": False, "exit_code": 1}
                await self.post(
                    "/api/hooks/post-tool-use",
                    {
                        "session_id": session,
                        "cwd": cwd,
                        "tool_name": "Bash",
                        "tool_input": tool_input,
                        "tool_response": response,
                    },
                )
            failed = self.failed_before.setdefault((problem.key, project), [])
            if fix.key not in failed:
                failed.append(fix.key)
            for line in output_lines(fix.failure):
                self.run.registry.add(line, Entry(project, session, problem.key, "output"))
        self.answers += 1
        said = answer_for(fix, works, self.answers)
        self.run.registry.add(said, Entry(project, session, problem.key, "answer"))
        await self.stop(project, session, said)
        self.last_fix, self.last_ok, self.last_problem = key, works, problem
        return works

    # -- the kinds of event -------------------------------------------------------------------
    async def chat(self, event: Event) -> None:
        session = await self.new_session(event.project)
        for i, (text, answer) in enumerate(event.prompts):
            await self.prompt(event.project, session, text, kind="chat", first=i == 0)
            if i % 3 == 1:
                await self.post(
                    "/api/hooks/post-tool-use",
                    {
                        "session_id": session,
                        "cwd": self.cwd(event.project),
                        "tool_name": "Edit",
                        "tool_input": {"file_path": "src/module.py", "old_string": "a", "new_string": "b"},
                        "tool_response": {"success": True},
                    },
                )
            await self.stop(event.project, session, answer)

    async def solve(self, event: Event, order: list[str], kind: str, rng_index: int) -> tuple[int, bool]:
        """Try fixes in ``order`` until one works; every failure gets the user's "still broken" turn."""
        assert event.problem is not None
        problem, project = event.problem, event.project
        session = self.current_session
        attempts = 0
        for key in order:
            attempts += 1
            if await self.attempt(project, session, problem, key):
                closing = THANKS[rng_index % len(THANKS)]
                if kind == "episode" and project in problem.takeaway:
                    await self.tool(project, "record_response", {"key_takeaway": problem.takeaway[project]})
                    self.run.registry.add(problem.takeaway[project], Entry(project, session, problem.key, "takeaway"))
                await self.prompt(project, session, closing, kind="closing", problem=problem.key)
                await self.stop(project, session, "Glad it works.")
                return attempts, True
            again = STILL_BROKEN[(rng_index + attempts) % len(STILL_BROKEN)]
            await self.prompt(project, session, again, kind=kind, problem=problem.key)
        return attempts, False

    async def episode(self, event: Event, index: int) -> None:
        assert event.problem is not None
        problem = event.problem
        self.current_session = await self.new_session(event.project)
        await self.prompt(
            event.project,
            self.current_session,
            problem.statement[event.project],
            kind="episode",
            problem=problem.key,
            first=True,
        )
        order = [*problem.episode_wrong[event.project], problem.right[event.project]]
        await self.solve(event, order, "episode", index)

    async def recurrence(self, event: Event, index: int) -> None:
        assert event.problem is not None
        problem, project = event.problem, event.project
        self.current_session = await self.new_session(project)
        text = event.prompts[0][0]
        seen = await self.prompt(
            project, self.current_session, text, kind="recurrence", problem=problem.key, first=True
        )
        reading = assistant.read(seen.block, problem, project, PROJECTS)
        order = assistant.plan(reading, problem)
        right = problem.right[project]
        failed_before = list(self.failed_before.get((problem.key, project), []))
        attempts, _ = await self.solve(event, order, "recurrence", index)
        self.run.recurrences.append(
            Recurrence(
                problem.key,
                project,
                event.trap,
                attempts,
                order[0] == right,
                right,
                failed_before,
                project in problem.takeaway,
                other_fixes(problem, project),
                seen,
                order,
            )
        )

    async def near_miss(self, event: Event) -> None:
        """A near miss or a request: one prompt in a problem's words that is not that problem."""
        session = await self.new_session(event.project)
        text, reply = event.prompts[0]
        problem = event.problem.key if event.problem else ""
        await self.prompt(event.project, session, text, kind=event.kind, problem=problem, first=True)
        await self.stop(event.project, session, reply)

    async def count_known_problems(self) -> None:
        reply = await self.http.post("/api/export")
        if reply.status_code != 200:
            self.run.errors.append(f"/api/export: HTTP {reply.status_code}")
            return
        self.run.kg_problems = known_problems(reply.text)

    async def fact(self, event: Event) -> None:
        assert event.fact is not None
        fact = event.fact
        session = await self.new_session(event.project)
        await self.prompt(event.project, session, f"FYI for later: {fact.content}", kind="fact", first=True)
        result = await self.tool(event.project, "add_to_memory_bank", {"content": fact.content, "tags": ["project"]})
        self.run.registry.add(fact.content, Entry(event.project, session, "", "fact", fact.attribute))
        self.fact_ids[(fact.attribute, event.project)] = first_id(structured(result))
        await self.stop(event.project, session, "Noted, I stored that in memory.")
        if fact.role == "other-project":
            for (attribute, project), memory_id in self.fact_ids.items():
                if attribute == fact.attribute and project != event.project and memory_id:
                    self.run.wrong_scope.append(not await self.active(project, memory_id))

    async def active(self, project: str, memory_id: str) -> bool:
        """Is the fact still active in its own project (REST lookup by id)?"""
        reply = await self.http.post("/api/search", json={"id": memory_id, "cwd": self.cwd(project)})
        if reply.status_code != 200:
            return False
        memories = reply.json().get("memories") or []
        return bool(memories) and not any(m.get("archived") for m in memories)

    async def probe(self, event: Event) -> None:
        session = await self.new_session(event.project)
        text = event.prompts[0][0]
        seen = await self.prompt(event.project, session, text, kind="probe", first=True)
        stale = tuple(v for fact in FACTS_LATER if fact.attribute == event.attribute for v in fact.stale)
        self.run.probes.append((seen, stale))
        await self.stop(event.project, session, "Let me check the config to be sure.")

    async def play(self, events: list[Event]) -> None:
        started = time.perf_counter()
        for index, event in enumerate(events):
            if event.kind == "chat":
                await self.chat(event)
            elif event.kind == "episode":
                await self.episode(event, index)
            elif event.kind == "recurrence":
                await self.recurrence(event, index)
            elif event.kind in ("near_miss", "request"):
                await self.near_miss(event)
            elif event.kind == "fact":
                await self.fact(event)
            elif event.kind == "probe":
                await self.probe(event)
        self.run.seconds = time.perf_counter() - started
        await self.count_known_problems()


async def play(url: str, root: Path, run: Run, events: list[Event]) -> Run:
    async with Player(url, root, run) as player:
        await player.play(events)
    return run
