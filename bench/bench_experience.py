"""Judging the context mnemex injects: does experience come back when a problem recurs in other words?

    .venv/bin/python -m bench.bench_experience [--seeds 1 2] [--noise 300] [--quick] [--only on|off] [--json]
        [--dump DIR] [--kg-env KEY=VALUE ...]

A real stack as separate processes (embedding, memory, kg, as `mnemex up`
starts them, in a fresh MNEMEX_HOME) and, per seed, two gateways over it: one
with the knowledge graph in get-context, one with MNEMEX_KG_CONTEXT=0. Each
gateway has its own user, so nothing is shared between them or between seeds,
and all of them play at once.
``--kg-env`` adds a variable to the kg service's environment only (repeatable),
e.g. ``--kg-env MNEMEX_KG_ABLATE=rarity,margin`` to switch a mechanism off; the
header prints what was set.

The scenario (bench/experience/): four projects. Three carry eight problems,
two of them traps whose fix differs per project. The fourth, kestrel-api, is
one web backend with thirty known problems in one vocabulary (migrations, the
ORM, the test runner, docker, CI, auth, the cache, workers, dependencies,
settings), several in pairs that differ in the one identifier that matters.
Each problem is first solved in a multi-turn episode (wrong fixes fail with
real-looking tool output and are scored failed, the right fix works and is
scored worked), then recurs in new sessions in another person's words. Around
them: ordinary coding chat, near misses (failure reports of another problem in
the same words), requests in those words, and memory_bank facts that change
(same wording, other wording, another project). Everything goes through
/api/hooks/* and /mcp. The simulated assistant reads only the block's text and
knows a fix by its own words (bench/experience/assistant.py, recognise.py).

It prints each figure with its acceptance target (issue 28; issue 35 for the
kestrel-api rows) and met / NOT met, and the run's wall time.
The exit status is 0 unless the harness itself fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TypedDict

import httpx

from bench.bench_get_context import ROOT, ProcessStack
from bench.common import Check, free_port, wait_until
from bench.experience import driver, metrics, scenario
from bench.experience.problems import BACKEND
from bench.experience.record import Run

SERVICES = {"embedding": "services.embedding", "memory": "services.memory", "kg": "services.kg"}
SPAWNED: list[subprocess.Popen[bytes]] = []  # every gateway started, stopped on the way out whatever happens
ROWS = (
    ("first_right", "first attempt right, all recurrences"),
    ("first_right_same", "  same-project recurrences"),
    ("first_right_cross", "  cross-project traps"),
    ("attempts_same", "mean attempts, same-project"),
    ("attempts_cross", "mean attempts, cross-project"),
    ("worked_shown", "proven fix under 'What worked before'"),
    ("wrong_as_worked", "a fix that fails here under 'What worked before'"),
    ("failed_warned", "failed attempts warned under 'What failed before'"),
    ("failed_warned_with_takeaway", "  problems with a takeaway"),
    ("failed_warned_without_takeaway", "  problems without a takeaway"),
    ("leaks", "cross-project leaks (lines)"),
    ("stale_shown", "stale fact values shown (lines)"),
    ("wrong_scope", "wrong-scope supersessions"),
    ("fix_lines_per_block", "lines repeating the fix per block"),
    ("on_problem_share", "share of recurrence lines on the problem"),
    ("session_echoes", "current-session echoes (lines)"),
    ("tokens_per_block", "tokens per block (chars/4)"),
    ("tokens_per_recurrence_block", "tokens per recurrence block"),
    ("near_miss_lessons", "near-miss failure reports with lessons"),
    ("request_lessons", "requests with lessons"),
    ("foreign_facts", "another project's facts shown (lines)"),
)
BACKEND_ROWS = (
    ("backend_first_right", "first attempt right"),
    ("backend_attempts", "mean attempts"),
    ("backend_worked_shown", "proven fix under 'What worked before'"),
    ("backend_wrong_as_worked", "a fix that fails here under 'What worked before'"),
    ("backend_failed_warned", "failed attempts warned under 'What failed before'"),
    ("backend_near_miss_lessons", "near-miss failure reports with lessons"),
    ("backend_request_lessons", "requests with lessons"),
    ("backend_problems", "distinct problems"),
    ("backend_kg_problems", "known problems in the kg"),
    ("backend_kg_problems_off_by", "  kg minus distinct"),
    ("backend_fix_lines_per_block", "lines naming the right fix per block"),
    ("backend_on_problem_share", "share of recurrence lines on the problem"),
    ("backend_tokens_per_block", "tokens per block (chars/4)"),
    ("backend_tokens_per_recurrence_block", "tokens per recurrence block"),
    ("backend_recurrences", "recurrences"),
)


def parse_env(pairs: list[str]) -> dict[str, str]:
    """KEY=VALUE strings as a dict; a pair without "=" or with an empty key is an error."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise SystemExit(f"--kg-env wants KEY=VALUE, got {pair!r}")
        out[key.strip()] = value
    return out


def start_services(home: Path, kg_env: dict[str, str] | None = None) -> ProcessStack:
    stack = ProcessStack.create(home)
    for name, module in SERVICES.items():
        env = {**stack.env, **(kg_env or {})} if name == "kg" else stack.env
        log = open(home / f"{name}.log", "ab")  # noqa: SIM115 - lives as long as the process
        stack.procs[name] = subprocess.Popen(
            [sys.executable, "-m", module], env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
        )
    return stack


def start_gateway(stack: ProcessStack, user: str, kg: bool) -> tuple[str, subprocess.Popen[bytes]]:
    env = dict(stack.env)
    env.update(MNEMEX_GATEWAY_ADDR=f"127.0.0.1:{free_port()}", MNEMEX_USER=user, MNEMEX_KG_CONTEXT="1" if kg else "0")
    log = open(stack.home / f"gateway-{user}.log", "ab")  # noqa: SIM115 - lives as long as the process
    proc = subprocess.Popen([sys.executable, "-m", "gateway"], env=env, cwd=ROOT, stdout=log, stderr=log)
    SPAWNED.append(proc)
    url = "http://" + env["MNEMEX_GATEWAY_ADDR"]

    def healthy() -> bool:
        return bool(httpx.get(url + "/api/health", timeout=2).json().get("status") == "ok")

    if not wait_until(healthy, timeout=180, interval=0.2):
        proc.terminate()
        raise RuntimeError(f"gateway {user} did not become healthy; see {stack.home / f'gateway-{user}.log'}")
    return url, proc


async def run_all(stack: ProcessStack, work: Path, seeds: list[int], configs: list[bool], noise: int) -> list[Run]:
    """Every seed and configuration at once, each on its own gateway and user: a run waits on its replies
    most of the time, so playing them side by side takes about as long as the longest one."""
    gateways: list[tuple[str, subprocess.Popen[bytes]]] = []
    try:
        plays = []
        runs: list[Run] = []
        for seed in seeds:
            events = scenario.build(seed, noise_turns=noise)
            for kg in configs:
                label = f"s{seed}-{'on' if kg else 'off'}"
                url, proc = start_gateway(stack, f"exp-{label}", kg)
                gateways.append((url, proc))
                runs.append(Run(label, seed, kg))
                plays.append(driver.play(url, work / label, runs[-1], events))
        await asyncio.gather(*plays)
        return runs
    finally:
        for _, proc in gateways:
            proc.terminate()
            proc.wait(15)


class ExperienceResult(TypedDict):
    runs: dict[str, dict[str, float]]  # run label -> figure -> value
    summary: dict[str, dict[str, float]]  # "on"/"off" -> figure -> mean over seeds
    acceptance: dict[str, Check]


def summarise(runs: list[Run]) -> ExperienceResult:
    per_run = {run.label: metrics.figures(run) for run in runs}
    summary: dict[str, dict[str, float]] = {}
    for kg in (True, False):
        chosen = [per_run[r.label] for r in runs if r.kg == kg]
        if not chosen:
            continue
        keys = chosen[0].keys()
        summary["on" if kg else "off"] = {
            k: metrics.mean([c[k] for c in chosen if isinstance(c[k], (int, float)) and not math.isnan(c[k])])
            for k in keys
        }
    checks: dict[str, Check] = {}
    if "on" in summary:
        on = summary["on"]
        for name in metrics.TARGETS:
            checks[name] = {
                "value": on[name],
                "target": " ".join(map(str, metrics.TARGETS[name])),
                "met": metrics.met(name, on[name]),
            }
    if "on" in summary and "off" in summary:
        for name in ("worked_shown", "failed_warned"):
            gap = summary["on"][name] - summary["off"][name]
            checks[f"{name}_gap"] = {"value": gap, "target": ">= 0.30", "met": gap >= 0.3}
        lower = [
            per_run[r.label]["first_right"] < per_run[r.label.replace("-on", "-off")]["first_right"]
            for r in runs
            if r.kg and r.label.replace("-on", "-off") in per_run
        ]
        checks["first_right_never_lower_with_kg"] = {
            "value": sum(lower),
            "target": "0 seeds lower",
            "met": not any(lower),
        }
    return {"runs": per_run, "summary": summary, "acceptance": checks}


def dump(runs: list[Run], folder: Path) -> None:
    """One JSON file per run: every recurrence, probe and near-miss block with what the assistant did."""
    folder.mkdir(parents=True, exist_ok=True)
    for run in runs:
        data = {
            "recurrences": [
                {
                    "problem": r.problem,
                    "project": r.project,
                    "trap": r.trap,
                    "plan": r.order,
                    "first_right": r.first_right,
                    "attempts": r.attempts,
                    "figures": metrics.recurrence_figures(r, run.registry),
                    "block": r.seen.block,
                }
                for r in run.recurrences
            ],
            "probes": [
                {
                    "project": s.project,
                    "stale": list(v),
                    "stale_lines": metrics.stale(s, v),
                    "leaks": metrics.leaks(s, run.registry),
                    "block": s.block,
                }
                for s, v in run.probes
            ],
            "near_misses": [
                {"project": s.project, "like": s.problem, "block": s.block} for s in run.seen if s.kind == "near_miss"
            ],
            "requests": [
                {"project": s.project, "like": s.problem, "block": s.block} for s in run.seen if s.kind == "request"
            ],
            "kg_problems": run.kg_problems,
            "wrong_scope": run.wrong_scope,
            "errors": run.errors,
        }
        (folder / f"{run.label}.json").write_text(json.dumps(data, indent=2), encoding="utf-8")


def fmt(value: float) -> str:
    if isinstance(value, float):
        return "  n/a" if math.isnan(value) else f"{value:5.2f}"
    return f"{value:5}"


def rows(result: ExperienceResult, labels: list[str], table: tuple[tuple[str, str], ...]) -> None:
    print(f"{'figure':<50}" + "".join(f"{label:>10}" for label in labels) + f"{'target':>10}")
    for key, title in table:
        target = " ".join(map(str, metrics.TARGETS[key])) if key in metrics.TARGETS else ""
        values = "".join(f"{fmt(result['runs'][label][key]):>10}" for label in labels)
        print(f"{title:<50}{values}{target:>10}")


def report(result: ExperienceResult, runs: list[Run], described: dict[str, int], kg_env: dict[str, str]) -> None:
    labels = list(result["runs"])
    print(
        "scenario per run: "
        + ", ".join(f"{k} {v}" for k, v in described.items())
        + f"; failed tool calls reach {runs[0].failure_route}"
    )
    print("kg service env: " + (" ".join(f"{k}={v}" for k, v in kg_env.items()) or "(as mnemex up sets it)"))
    rows(result, labels, ROWS)
    for key in (
        "turns",
        "blocks",
        "empty_blocks",
        "recurrences",
        "cross_recurrences",
        "near_misses",
        "requests",
        "seconds",
        "tool_errors",
    ):
        print(f"{key:<50}" + "".join(f"{fmt(result['runs'][label][key]):>10}" for label in labels))
    print(f"\n{BACKEND}: one backend, {described.get('backend_problems', 0)} known problems in one vocabulary")
    rows(result, labels, BACKEND_ROWS)
    print("\nacceptance (kg on, mean over seeds):")
    for name, check in result["acceptance"].items():
        verdict = {True: "met", False: "NOT met", None: "not measured"}[check["met"]]
        print(f"  {name:<40} {fmt(check['value'])}  target {check['target']:<16} {verdict}")
    for run in runs:
        for error in run.errors[:3]:
            print(f"  {run.label}: tool error: {error}")


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--noise", type=int, default=300, help="ordinary chat turns per run (default 300)")
    parser.add_argument("--quick", action="store_true", help="one seed, 60 chat turns")
    parser.add_argument("--only", choices=("on", "off"), help="run one configuration")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--dump", type=Path, help="write every recurrence, probe and near-miss block here")
    parser.add_argument(
        "--kg-env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a variable for the kg service only (repeatable), e.g. MNEMEX_KG_ABLATE=rarity,margin",
    )
    args = parser.parse_args()
    kg_env = parse_env(args.kg_env)
    started = time.perf_counter()
    seeds, noise = ([args.seeds[0]], 60) if args.quick else (args.seeds, args.noise)
    configs = [kg for kg in (True, False) if args.only in (None, "on" if kg else "off")]
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="mnemex-experience-") as tmp:
        home = Path(tmp) / "data"
        home.mkdir()
        stack = start_services(home, kg_env)
        try:
            runs = asyncio.run(run_all(stack, Path(tmp) / "projects", seeds, configs, noise))
        finally:
            for proc in SPAWNED:
                if proc.poll() is None:
                    proc.terminate()
                    proc.wait(15)
            stack.stop()
    result = summarise(runs)
    if args.dump:
        dump(runs, args.dump)
    described = scenario.describe(scenario.build(seeds[0], noise_turns=noise))
    wall = time.perf_counter() - started
    if args.json:
        print(
            json.dumps({"scenario": described, "kg_env": kg_env, "wall_seconds": wall, **result}, indent=2, default=str)
        )
    else:
        report(result, runs, described, kg_env)
        print(f"\nwall time {wall:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
