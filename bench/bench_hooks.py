"""Hook process cost and prompt sizes.

    .venv/bin/python -m bench.bench_hooks [--runs 40] [--memories 1000]

Measures, with real processes (`python -S hooks/<script>.py`, spawn to exit,
stdout captured):
  * UserPromptSubmit against a warm stack (services as processes, N memories) target p50 <= 60 ms
  * circuit open (tripped by 3 timeouts; refusals never trip it)             target <= 50 ms
  * stack down, connection refused (every prompt while the stack is down)     target <= 50 ms
  * stack hanging (accepts, never answers), first failure                     target <= 2 s
  * bare `python -S -c pass`, for reference
and, in cl100k tokens (bpe-openai, offline): the scoring prompt from a real
turn (real memory ids) and with short ids, and the KNOWN CONTEXT overhead
beyond the memory contents.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from bench.bench_get_context import ProcessStack, populate, temporary_stack
from bench.common import free_port, percentile

ROOT = Path(__file__).resolve().parents[1]
HOOK = ROOT / "hooks" / "user_prompt_submit.py"


def payload(session: str, cwd: str, prompt: str) -> bytes:
    return json.dumps(
        {
            "session_id": session,
            "transcript_path": f"/tmp/{session}.jsonl",
            "cwd": cwd,
            "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
        }
    ).encode()


def spawn(args: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    result = subprocess.run(args, input=stdin, env=env, capture_output=True, timeout=30)
    elapsed = time.perf_counter() - started
    assert result.returncode == 0, result
    return elapsed, result.stdout.decode()


def line(name: str, samples: list[float], target: str) -> None:
    ms = [s * 1000 for s in samples]
    print(
        f"{name:<44} p50 {statistics.median(ms):8.1f} ms  p95 {percentile(ms, 95):8.1f} ms  "
        f"max {max(ms):8.1f} ms   {target}"
    )


def tokens(text: str) -> int:
    import bpe_openai

    return len(bpe_openai.get_encoding("cl100k_base").encode(text))


def silent_server() -> tuple[int, threading.Event]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    stop = threading.Event()
    held: list[socket.socket] = []

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue
        for conn in held:
            conn.close()
        server.close()

    threading.Thread(target=accept, daemon=True).start()
    return int(server.getsockname()[1]), stop


def down_benchmarks(runs: int, base_env: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**base_env, "MNEMEX_HOME": tmp, "MNEMEX_GATEWAY_PORT": str(free_port()), "MNEMEX_HOOK_AUTOSTART": "0"}
        args = [sys.executable, "-S", str(HOOK)]
        first = []
        for i in range(runs):
            run_env = {**env, "MNEMEX_HOME": os.path.join(tmp, f"fresh-{i}")}  # circuit closed each time
            first.append(spawn(args, payload("down", tmp, "hi"), run_env)[0])
        port, stop = silent_server()
        hang_env = {**env, "MNEMEX_GATEWAY_PORT": str(port)}
        trip_env = {**hang_env, "MNEMEX_HOOK_TIMEOUT": "0.2"}
        for _ in range(3):  # timeouts open the circuit (refusals do not)
            spawn(args, payload("down", tmp, "hi"), trip_env)
        opened = [spawn(args, payload("down", tmp, "hi"), trip_env)[0] for _ in range(runs)]
        hanging = []
        for i in range(min(runs, 5)):
            hanging.append(
                spawn(args, payload("hang", tmp, "hi"), {**hang_env, "MNEMEX_HOME": os.path.join(tmp, f"hang-{i}")})[0]
            )
        stop.set()
    line("circuit open (after 3 timeouts)", opened, "target <= 50 ms")
    line("stack down, connection refused", first, "target <= 50 ms")
    line("gateway hanging, first failure (2 s timeout)", hanging, "target <= 2000 ms")


def warm_benchmarks(runs: int, memories: int, base_env: dict[str, str]) -> None:
    with temporary_stack("mnemex-bench-hooks-") as (stack, project):
        home = project.parent
        asyncio.run(populate(stack, str(project), memories))
        env = {
            **base_env,
            "MNEMEX_HOME": str(home / "hooks"),
            "MNEMEX_GATEWAY_URL": stack.url,
            "MNEMEX_HOOK_AUTOSTART": "0",
        }
        args = [sys.executable, "-S", str(HOOK)]
        for i in range(5):
            spawn(args, payload(f"warm-{i}", str(project), "how did we fix the docker build cache?"), env)
        samples, outputs = [], []
        for i in range(runs):
            elapsed, out = spawn(
                args, payload(f"hook-{i}", str(project), f"how did we handle grpc deadlines, case {i}?"), env
            )
            samples.append(elapsed)
            outputs.append(out)
        with_context = sum("[id:" in out for out in outputs)
        line(f"UserPromptSubmit, warm stack ({memories} memories)", samples, "target p50 <= 60 ms")
        print(f"{'':<44} context printed in {with_context}/{len(outputs)} runs (the rest failed open)")
        token_report(stack, str(project), env)


def token_report(stack: ProcessStack, cwd: str, env: dict[str, str]) -> None:
    from gateway.formatting import known_context, scoring_prompt

    args = [sys.executable, "-S", str(HOOK)]
    session = "tokens"
    _, first = spawn(args, payload(session, cwd, "how did we debug the flaky pytest fixtures?"), env)
    with httpx.Client(base_url=stack.url, timeout=10) as client:
        client.post(
            "/api/hooks/stop",
            json={"session_id": session, "cwd": cwd, "assistant_text": "We pinned the fixture scope."},
        )
        reply = client.post(
            "/api/hooks/get-context", json={"session_id": session, "cwd": cwd, "prompt": "thanks, fixed"}
        ).json()
    real_ids = reply["scoring_ids"]
    short_ids = [f"{i.rsplit('_', 1)[0]}_{int(i.rsplit('_', 1)[1][:12], 16) % 10**15:015d}" for i in real_ids]
    print(
        f"{'scoring prompt, real ids':<44} {tokens(reply['scoring_prompt']):>5} tokens "
        f"({len(real_ids)} ids)   target <= 120"
    )
    print(
        f"{'scoring prompt, same ids as 15-digit uids':<44} {tokens(scoring_prompt(short_ids)):>5} tokens "
        f"({len(short_ids)} ids)"
    )
    print(f"{'scoring prompt, no ids':<44} {tokens(scoring_prompt([])):>5} tokens")
    memories = reply["memories"]
    block = known_context(memories)
    content = sum(tokens(m["content"]) for m in memories)
    overhead = tokens(block) - content
    id_tokens = sum(tokens(f" [id:{m['id']}]") for m in memories)
    print(
        f"{'KNOWN CONTEXT overhead beyond contents':<44} {overhead:>5} tokens for {len(memories)} memories "
        f"({tokens(block)} total; ids {id_tokens}; preamble+delimiters {tokens(block.split(chr(10) + '• ')[0])})"
    )
    assert re.search(r"\[id:", first)


def main() -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so `finally` stops the child services
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--memories", type=int, default=1000)
    args = parser.parse_args()
    base_env = {"PATH": os.environ.get("PATH", "")}
    bare = [spawn([sys.executable, "-S", "-c", "pass"], b"", base_env)[0] for _ in range(args.runs)]
    line("bare `python -S -c pass` (reference)", bare, "")
    down_benchmarks(args.runs, base_env)
    warm_benchmarks(args.runs, args.memories, base_env)


if __name__ == "__main__":
    main()
