"""Faults, long version: SIGKILL each service again and again while the real hooks keep firing.

    .venv/bin/python -m bench.bench_faults [--rounds 3] [--outage 3] [--services embedding,memory,kg,gateway]

Starts the four real processes on loopback. Per round and service: hook
scripts (prompt, stop, post-tool-use, session-start, realistic Claude Code
JSON) fire back to back; the service is SIGKILLed, left down ``--outage``
seconds while a direct get-context checks the degraded reply, then
restarted on the same port. Measured per service: hooks fired, hook exits
other than 0, slowest hook, malformed hook output, degraded replies that
were invalid, restart time, whether the first get-context right after the
restarted service answers its own health probe already had the project's
context ("first prompt"), how long until context was back, and whether
the hooks' circuit breaker was left open. Exit status 1 when a hook did
not exit 0, overran its bound, printed malformed output, or a degraded reply
was invalid.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from kernel import offline

PROJECT = str(Path(tempfile.gettempdir()) / "mnemex-bench-faults")  # a project id only; nothing is written there
FACT = "The payments service is deployed with Argo CD from the gitops repository"
PROMPT = "how is the payments service deployed?"
HOOK_TIMEOUT = 2.0


def _circuit_open(state: Path) -> bool:
    """True when the hooks' circuit breaker is open now (it skips the gateway)."""
    for path in (state / "run").glob("circuit-*.json"):
        try:
            if float(path.read_text().split()[0]) > time.time():
                return True
        except (OSError, ValueError, IndexError):
            continue
    return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--outage", type=float, default=3.0, help="seconds each service stays down")
    parser.add_argument("--services", default="embedding,memory,kg,gateway")
    args = parser.parse_args()
    offline.apply()
    from kernel.json_values import as_object, str_at, strs_at
    from tests.support.hookrun import HookLoad, hook_env, valid_context_output
    from tests.support.json_read import json_str
    from tests.support.procstack import kill9, post, restart, start_stack

    home = Path(tempfile.mkdtemp(prefix="mnemex-bench-faults-"))
    stack = start_stack(home / "home", MNEMEX_GET_CONTEXT_BUDGET_MS="1500")
    stats: defaultdict[str, defaultdict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    bad = False
    try:
        _, added = post(stack, "/api/memory-bank/add", {"content": FACT, "cwd": PROJECT})
        tag = f"[id:{json_str(added, 'memory', 'id')}]"

        def context_ok() -> bool:
            status, reply = post(
                stack, "/api/hooks/get-context", {"session_id": "bench", "prompt": PROMPT, "cwd": PROJECT}
            )
            return status == 200 and tag in str_at(as_object(reply), "context")

        port = int(stack.gateway_url.rsplit(":", 1)[1])
        for round_number in range(args.rounds):
            for service in args.services.split(","):
                state = home / f"hooks-{service}-{round_number}"
                load = HookLoad(hook_env(state, port, MNEMEX_HOOK_TIMEOUT=str(HOOK_TIMEOUT)), PROJECT, PROMPT)
                load.start()
                load.wait_for(4)
                kill9(stack, service)
                end = time.monotonic() + args.outage
                invalid = 0
                while time.monotonic() < end:
                    if service != "gateway":
                        status, reply = post(
                            stack,
                            "/api/hooks/get-context",
                            {"session_id": "bench-down", "prompt": PROMPT, "cwd": PROJECT},
                        )
                        valid = status == 200 and service in strs_at(as_object(reply), "degraded")
                        invalid += 0 if valid else 1
                    time.sleep(0.2)
                restart_s = restart(stack, service)
                first = context_ok()
                back = time.monotonic()
                while not context_ok():
                    if time.monotonic() - back > 60:
                        raise TimeoutError(f"context not back 60 s after restarting {service}")
                    time.sleep(0.05)
                back_s = 0.0 if first else time.monotonic() - back
                load.stop()
                runs = load.runs
                malformed = sum(1 for _, r in runs if r.stdout and not valid_context_output(r.stdout))
                s = stats[service]
                s["hooks"].append(len(runs))
                s["nonzero"].append(sum(1 for _, r in runs if r.returncode != 0))
                s["slowest"].append(max((r.elapsed for _, r in runs), default=0.0))
                s["malformed"].append(malformed)
                s["invalid_degraded"].append(invalid)
                s["restart_s"].append(restart_s)
                s["first_prompt_ok"].append(first)
                s["context_back_s"].append(back_s)
                s["circuit_open"].append(_circuit_open(state))
                stack.wait_healthy(60)
    finally:
        stack.stop()
        shutil.rmtree(home, ignore_errors=True)
    print(
        f"{'service':10} {'kills':>5} {'hooks':>6} {'exit!=0':>7} {'slowest':>8} {'malformed':>9} "
        f"{'bad-degraded':>12} {'restart':>8} {'1st-prompt':>10} {'ctx-back':>8} {'circuit':>7}"
    )
    for service, s in stats.items():
        kills = len(s["hooks"])
        print(
            f"{service:10} {kills:>5} {sum(s['hooks']):>6} {sum(s['nonzero']):>7} {max(s['slowest']):>7.2f}s "
            f"{sum(s['malformed']):>9} {sum(s['invalid_degraded']):>12} {statistics.median(s['restart_s']):>7.2f}s "
            f"{sum(s['first_prompt_ok']):>4}/{kills:<5} {statistics.median(s['context_back_s']):>7.2f}s "
            f"{sum(s['circuit_open']):>3}/{kills}"
        )
        bad |= bool(
            sum(s["nonzero"])
            or sum(s["malformed"])
            or sum(s["invalid_degraded"])
            or max(s["slowest"]) > HOOK_TIMEOUT + 1.5
            or sum(s["first_prompt_ok"]) < kills
            or sum(s["circuit_open"])
        )
    total = sum(len(s["hooks"]) for s in stats.values())
    print(
        f"faults survived: {total} kills, {sum(sum(s['hooks']) for s in stats.values())} hook runs; "
        f"{'FAIL' if bad else 'ok'} (1st-prompt: the first prompt after the restart had context; "
        f"circuit: the hooks' breaker was left open)"
    )
    raise SystemExit(1 if bad else 0)


if __name__ == "__main__":
    main()
