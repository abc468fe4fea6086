"""The shared body of every hook script: read, adapt, POST, print, exit 0.

    python -S hooks/user_prompt_submit.py              # Claude Code
    python -S hooks/session_start.py --client cursor   # Cursor (hooks.json)

Whatever happens (stack down, malformed stdin, a bug here) the process
exits 0 within ``MNEMEX_HOOK_TIMEOUT`` seconds (default 1.8, so 2 s from spawn), because a
memory hook must never block or hang the user's prompt. A SIGALRM timer
is the hard backstop behind the socket timeouts.
"""

from __future__ import annotations

import os
import sys
import time

import hook_client
import hook_events
import hook_json
from hook_events import HookEvent

try:  # the C module: ``signal`` itself imports enum (~2 ms)
    import _signal as signals
except ImportError:  # pragma: no cover
    import signal as signals

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hook_json import JSONObject, JSONValue

MAX_STDIN_BYTES = 4 * 1024 * 1024
MAX_OUTPUT_CHARS = 10_000
DEFAULT_TIMEOUT = 1.8  # seconds in-process; with interpreter start the hook ends within 2 s
TRANSCRIPT_TAIL_BYTES = 256 * 1024

PATHS = {
    "prompt": "/api/hooks/get-context",
    "turn_start": "/api/hooks/turn-start",
    "stop": "/api/hooks/stop",
    "session_start": "/api/hooks/session-start",
    "pre_compact": "/api/hooks/pre-compact",
    "post_tool_use": "/api/hooks/post-tool-use",
}


class HardTimeout(BaseException):
    pass


def _on_alarm(signum: int, frame: object) -> None:
    raise HardTimeout()


def last_assistant_text(transcript_path: str) -> str:
    """Best effort: the last assistant text in a JSONL transcript (Claude Code or Cursor)."""
    try:
        with open(transcript_path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - TRANSCRIPT_TAIL_BYTES))
            tail = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    for line in reversed(tail.splitlines()):
        try:
            entry: JSONValue = hook_json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict):
            continue
        message = entry.get("message", entry)
        if not isinstance(message, dict):
            continue
        # Claude Code: {"type": "assistant", "message": {"role": "assistant", ...}};
        # Cursor: {"role": "assistant", "message": {"content": [...]}} (the role outside).
        role = message.get("role") or entry.get("role") or entry.get("type")
        if role != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            texts = [
                text
                for c in content
                if isinstance(c, dict) and c.get("type") == "text" and isinstance(text := c.get("text"), str)
            ]
            if any(texts):
                return "\n".join(texts)
    return ""


def endpoint(event: HookEvent) -> str:
    """The gateway path for this event."""
    if event.event == "prompt" and event.client == "cursor":
        return PATHS["turn_start"]
    return PATHS[event.event]


def _transcript_answer(event: HookEvent) -> str:
    return last_assistant_text(event.transcript_path) if event.transcript_path else ""


def _stop_body(event: HookEvent, base: JSONObject) -> JSONObject | None:
    if event.stop_hook_active or not event.completed:
        return None  # a continuation we already recorded, or an aborted turn
    if event.client != "cursor":
        text = event.assistant_text or _transcript_answer(event)
        return {**base, "assistant_text": text[: hook_events.MAX_ASSISTANT_CHARS]}
    # Cursor reports one answer twice: afterAgentResponse carries its text, and stop
    # (text-less) ends the loop. Both send the generation id as the turn key, and the
    # memory service stores only the first report of a key, whichever comes first; stop
    # reads the transcript, so the answer is kept even where afterAgentResponse did not run.
    if event.native == "stop":
        if not event.turn_key:
            return None  # without a key a second report could not be told apart
        text = event.assistant_text or _transcript_answer(event)
    else:
        text = event.assistant_text
    if not text.strip():
        return None
    return {**base, "assistant_text": text[: hook_events.MAX_ASSISTANT_CHARS], "turn_key": event.turn_key}


def request_body(event: HookEvent) -> JSONObject | None:
    """What to send (to ``endpoint(event)``) for this event; None means nothing to do.

    The turn's requests (prompt, stop, session start) name the client, so the viewer can
    show which one wrote or read a memory; a gateway that predates the field ignores it."""
    base: JSONObject = {"session_id": event.session_id, "cwd": event.cwd}
    if event.event in ("prompt", "stop", "session_start"):
        base["client"] = event.client
    if event.event == "prompt":
        if event.client == "cursor" and not event.prompt.strip():
            return None
        # Cursor's beforeSubmitPrompt cannot add context: it only opens the turn with its
        # prompt (turn-start), so the answer is stored with it. Nothing is injected.
        return {**base, "prompt": event.prompt}
    if event.event == "stop":
        return _stop_body(event, base)
    if event.event == "session_start":
        return {**base, "source": event.source or "startup"}
    if event.event == "pre_compact":
        return {**base, "trigger": event.trigger}
    if event.event == "post_tool_use":
        if not event.tool_name:
            return None
        return {
            **base,
            "tool_name": event.tool_name,
            "tool_input": event.tool_input,
            "tool_response": event.tool_response,
        }
    return None


def _reply_text(reply: JSONValue, key: str) -> str:
    text = reply.get(key, "") if isinstance(reply, dict) else ""
    text = text if isinstance(text, str) else ""
    if len(text) > MAX_OUTPUT_CHARS:
        text = text[: MAX_OUTPUT_CHARS - 1] + "…"
    return text


def render(event: HookEvent, reply: JSONValue) -> str:
    """Text to print: plain context for Claude Code, JSON for Cursor.

    Only what reaches the model is printed. Claude Code discards PreCompact output
    (its reminder comes with SessionStart "compact" instead). Cursor's preCompact can
    only show a ``user_message`` to the user, and Cursor runs no sessionStart after
    compaction, so there the reminder reaches the user, not the model.
    """
    if event.client == "cursor":
        if event.event == "session_start":
            text = _reply_text(reply, "context")
            return hook_json.dumps({"additional_context": text}) if text else ""
        if event.event == "pre_compact":
            notice = _reply_text(reply, "user_message")
            return hook_json.dumps({"user_message": notice}) if notice else ""
        return ""
    if event.event in ("prompt", "session_start"):
        return _reply_text(reply, "context")
    return ""


def write_stdout(output: str) -> None:
    """UTF-8 bytes to fd 1 whatever the locale's encoding (latin-1, a Windows code page)."""
    data = output.encode("utf-8", errors="replace")
    while data:
        data = data[os.write(1, data) :]


def run(
    event_name: str,
    client: str,
    raw: bytes,
    env: dict[str, str] | os._Environ[str] = os.environ,
    deadline: float | None = None,
) -> str:
    event = hook_events.parse(raw, event_name, client)
    if event is None:
        return ""
    if hook_client.opted_out(event.cwd, event.session_id, env):
        return ""  # an excluded project or a paused session: nothing is sent, nothing injected
    body = request_body(event)
    if body is None:
        return ""
    timeout = float(env.get("MNEMEX_HOOK_TIMEOUT") or DEFAULT_TIMEOUT)
    directory = hook_client.state_dir(env)
    hook_client.notice_missing_install(directory, hook_client.start_command(env))
    host, port, _scheme = hook_client.gateway_address(env)
    circuit = hook_client.Circuit(
        os.path.join(directory, f"circuit-{port}.json"),
        threshold=int(env.get("MNEMEX_HOOK_FAILURES") or 3),
        cooldown=float(env.get("MNEMEX_HOOK_COOLDOWN") or 30),
    )
    if circuit.is_open():
        return ""
    if deadline is None:
        deadline = time.monotonic() + timeout
    try:
        status, reply = hook_client.post_json(
            host, port, endpoint(event), body, deadline, token=env.get("MNEMEX_TOKEN", "")
        )
    except hook_client.GatewayDown as exc:
        if exc.refused:
            # A refusal costs about a millisecond, so it never trips the breaker: the
            # prompt after a restart must reach the gateway again at once.
            hook_client.maybe_start_stack(directory, env)
        else:
            circuit.record_failure()
        return ""
    circuit.record_success()
    return render(event, reply) if status == 200 else ""


def main(event_name: str, argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    client = "cursor" if "cursor" in args or "--cursor" in args else "claude"
    started = time.monotonic()
    try:
        timeout = float(os.environ.get("MNEMEX_HOOK_TIMEOUT") or DEFAULT_TIMEOUT)
        if hasattr(signals, "setitimer"):
            signals.signal(signals.SIGALRM, _on_alarm)
            signals.setitimer(signals.ITIMER_REAL, timeout)
        raw = sys.stdin.buffer.read(MAX_STDIN_BYTES + 1)
        if len(raw) > MAX_STDIN_BYTES:
            raw = b""
        output = run(event_name, client, raw, deadline=started + max(timeout - 0.1, 0.05))
        if hasattr(signals, "setitimer"):
            signals.setitimer(signals.ITIMER_REAL, 0)
        if output:
            write_stdout(output)
    except BaseException:
        pass
    os._exit(0)
