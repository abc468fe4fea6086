"""The OpenCode plugin: type-checks against @opencode-ai/plugin, and runs under node.

The runtime test compiles the installed plugin with tsc, loads it in node
with a stand-in OpenCode client, and points it at a recording HTTP server
standing in for the gateway (the seam; the plugin is what is under test).
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from kernel.json_values import JSONObject, as_object, parse_value
from mnemex.client_setup import init
from tests.integration.mcp.node_tools import PLUGIN_TYPES, ensure_packages, require_node
from tests.support.json_read import json_int, json_str, json_strs, parse_json_object
from tests.support.mcp_stack import McpStack

pytestmark = pytest.mark.slow

TSC_FLAGS = [
    "--ignoreConfig",
    "--target",
    "ES2022",
    "--module",
    "ESNext",
    "--moduleResolution",
    "Bundler",
    "--strict",
    "--skipLibCheck",
    "--types",
    "node",
]

DRIVER = """
import { MnemexPlugin } from "./mnemex.js"
const user = { info: { id: "msg_u1", role: "user", sessionID: "s1" }, parts: [{ id: "prt_u1", type: "text", text: "how do I deploy?" }] }
const assistant = { info: { id: "msg_a1", role: "assistant", sessionID: "s1" },
                    parts: [{ type: "text", text: "Use helm upgrade." }, { type: "text", text: "(synthetic)", synthetic: true }] }
const client = { session: { messages: async () => ({ data: [user, assistant] }) } }
const hooks = await MnemexPlugin({ client, directory: process.env.PROJECT_DIR })
const attached = (message) => message.parts.filter((p) => p.synthetic).map((p) => p.text)
const started = Date.now()
await hooks["chat.message"]({ sessionID: "s1", messageID: "msg_u1" },
                            { message: { id: "msg_u1" }, parts: [{ type: "text", text: "how do I deploy?" }] })
const first = { messages: [structuredClone(user)] }
await hooks["experimental.chat.messages.transform"]({}, first)
await hooks.event({ event: { type: "session.idle", properties: { sessionID: "s1" } } })
const again = { messages: [structuredClone(first.messages[0])] }  // the next model call of the same turn
await hooks["experimental.chat.messages.transform"]({}, again)
const next = { info: { id: "msg_u2", role: "user", sessionID: "s1" }, parts: [{ id: "prt_u2", type: "text", text: "thanks" }] }
const later = { messages: [next] }  // a message the plugin never got context for
await hooks["experimental.chat.messages.transform"]({}, later)
console.log(JSON.stringify({
  attached: attached(first.messages[0]), again: attached(again.messages[0]), other: attached(later.messages[0]),
  ms: Date.now() - started,
}))
"""


class Recorder(BaseHTTPRequestHandler):
    # What the plugin posted (a body that is not an object reads as {}) and what the fake gateway answers.
    calls: ClassVar[list[tuple[str, JSONObject]]] = []
    reply: ClassVar[JSONObject] = {}

    def do_POST(self) -> None:
        body = as_object(parse_value(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}"))
        type(self).calls.append((self.path, body))
        payload = json.dumps(type(self).reply if self.path.endswith("get-context") else {"exchange_id": "x"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def toolchain() -> Path:
    return ensure_packages(PLUGIN_TYPES, "@opencode-ai/plugin/package.json")


@pytest.fixture
def gateway() -> Iterator[str]:
    Recorder.calls = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def installed_plugin(home: Path, gateway_url: str) -> Path:
    init(home, opencode=True, gateway_url=gateway_url)
    return home / ".config" / "opencode" / "plugins" / "mnemex.ts"


def compile_plugin(toolchain: Path, plugin: Path, out: Path, *, emit: bool) -> subprocess.CompletedProcess[str]:
    source = toolchain / "mnemex.ts"  # inside the toolchain dir so "@opencode-ai/plugin" resolves
    source.write_text(plugin.read_text())
    flags = ["--outDir", str(out)] if emit else ["--noEmit"]
    return subprocess.run(
        [str(toolchain / "node_modules" / ".bin" / "tsc"), *TSC_FLAGS, *flags, str(source)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=toolchain,
    )


def test_installed_plugin_type_checks_against_opencode_types(toolchain: Path, tmp_path: Path) -> None:
    plugin = installed_plugin(tmp_path / "home", "http://127.0.0.1:27300")
    proc = compile_plugin(toolchain, plugin, tmp_path, emit=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def run_driver(toolchain: Path, plugin: Path, tmp_path: Path, project: Path | None = None) -> JSONObject:
    node, _ = require_node()
    out = tmp_path / "js"
    proc = compile_plugin(toolchain, plugin, out, emit=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (out / "package.json").write_text('{"type": "module"}')
    (out / "driver.mjs").write_text(DRIVER)
    run = subprocess.run(
        [node, "driver.mjs"],
        cwd=out,
        capture_output=True,
        text=True,
        timeout=60,
        env={
            "PATH": "/usr/bin:/bin",
            "PROJECT_DIR": str(project or tmp_path),
            "MNEMEX_HOOK_TIMEOUT_MS": "15000" if project else "800",
        },
    )
    assert run.returncode == 0, run.stderr
    return parse_json_object(run.stdout.strip().splitlines()[-1])


def test_plugin_attaches_context_to_the_users_message_and_reports_stop(
    toolchain: Path, gateway: str, tmp_path: Path
) -> None:
    Recorder.reply = {
        "context": "KNOWN CONTEXT: deploy with helm [id:patterns_1]",
        "scoring_prompt": "<mnemex-score-required>score [id:working_2]</mnemex-score-required>",
    }
    result = run_driver(toolchain, installed_plugin(tmp_path / "home", gateway), tmp_path)
    (block,) = json_strs(result, "attached")
    assert "[id:patterns_1]" in block and block.index("mnemex-score-required") < block.index("KNOWN CONTEXT")
    assert result["again"] == [block], "later model calls of the turn see the same block, once"
    assert result["other"] == [], "context belongs to the message it was fetched for"
    paths = [path for path, _ in Recorder.calls]
    assert paths == ["/api/hooks/get-context", "/api/hooks/stop"]
    context_body, stop_body = Recorder.calls[0][1], Recorder.calls[1][1]
    assert context_body["session_id"] == "s1" and context_body["prompt"] == "how do I deploy?"
    assert context_body["cwd"] == str(tmp_path)
    assert context_body["client"] == "opencode" and stop_body["client"] == "opencode"
    assert stop_body["assistant_text"] == "Use helm upgrade." and stop_body["user_text"] == "how do I deploy?"


def test_plugin_fails_open_when_the_gateway_is_down(toolchain: Path, tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}"
    started = time.monotonic()
    result = run_driver(toolchain, installed_plugin(tmp_path / "home", dead), tmp_path)
    assert result["attached"] == [] and result["other"] == []
    assert json_int(result, "ms") < 3_000 and time.monotonic() - started < 60


def test_plugin_against_the_real_gateway(toolchain: Path, mcp_stack: McpStack, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    added = mcp_stack.post(
        "/api/memory-bank/add", {"content": "The user deploys with helm upgrade --atomic", "cwd": str(project)}
    )
    fact = json_str(added, "memory", "id")
    result = run_driver(toolchain, installed_plugin(tmp_path / "home", mcp_stack.gateway_url), tmp_path, project)
    (block,) = json_strs(result, "attached")
    assert "KNOWN CONTEXT" in block and f"[id:{fact}]" in block
    # the stop the plugin sent on session.idle completed the turn: the next prompt asks for scoring
    follow_up = mcp_stack.post("/api/hooks/get-context", {"session_id": "s1", "prompt": "thanks", "cwd": str(project)})
    assert follow_up["scoring_required"] is True and fact in json_strs(follow_up, "scoring_ids")
