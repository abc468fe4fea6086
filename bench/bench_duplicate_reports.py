"""Real duplicate bug reports as recurring problems: does the fix come back when another person reports it?

    .venv/bin/python -m bench.bench_duplicate_reports [--part calibrate|holdout|all] [--seeds 1 2]
        [--near-misses 68] [--env MNEMEX_KG_ABLATE=rarity ...] [--json] [--dump DIR]

Data: ../shared/data/duplicate-reports/seamonkey.json, SeaMonkey reports from the GitBugs dataset
(github.com/av9ash/gitbugs, CC BY 4.0; A. Patil, "GitBugs: Bug Reports for Duplicate Detection, Retrieval
Augmented Generation, Triage, and More", arXiv:2504.09651, 2025). The pairs the tracker linked as duplicates
form connected components: one problem each, first stated by its lowest report id and recurring in the
others' words. Reports in no pair are near-misses. Problems and near-misses go to the calibrate or the
holdout part by the parity of sha256(report id)[0] (bench/duplicate_reports/dataset.py): tune on
calibrate, report holdout (the default).

A real stack as separate processes (embedding, memory, kg, gateway, as `mnemex up` starts them) in a fresh
MNEMEX_HOME; one project, one user per seed. Every problem of both parts is first solved in its own session
through the hook endpoints and MCP: the first report as the prompt, a failed tool call with its error, the
user's "still broken" (scored failed), the fix (scored worked). Then each recurrence of the part, and a
seeded sample of the part's near-misses, is a new session's get-context. The seed changes only the
near-miss sample and the order of the episodes. ``--env`` goes to the kg service only (ablations).

Recognising a lesson: a line under a "What worked before" heading counts for the problem whose fix's
distinctive words (content words of its fix text that no other problem's fix has) it holds most, with a
clear majority: at least two of them, and more than all other problems' distinctive words in the line
together; a line under "What failed before" likewise against each problem's failed command and error.
The driver's strings are never looked up verbatim (bench/duplicate_reports/lessons.py).

Targets (issue 35): own fix under "What worked before" >= 0.8 of recurrences; near-miss prompts with any
lesson section <= 0.05; known problems in the kg == distinct problems. The exit status is 0 unless the
harness fails.
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

from bench.bench_get_context import ROOT, ProcessStack, machine_speed_ms
from bench.common import Check, free_port, wait_until
from bench.duplicate_reports import dataset, figures
from bench.duplicate_reports.client import Record
from bench.duplicate_reports.scenario import play

SERVICES = {"embedding": "services.embedding", "memory": "services.memory", "kg": "services.kg"}
PROJECT = "seamonkey-profile"


def parse_env(pairs: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"--env {pair!r}: use KEY=VALUE")
        env[key] = value
    return env


def start_services(home: Path, kg_env: dict[str, str]) -> ProcessStack:
    stack = ProcessStack.create(home)
    for name, module in SERVICES.items():
        env = {**stack.env, **kg_env} if name == "kg" else stack.env
        log = open(home / f"{name}.log", "ab")  # noqa: SIM115 - lives as long as the process
        stack.procs[name] = subprocess.Popen(
            [sys.executable, "-m", module], env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
        )
    return stack


def start_gateway(stack: ProcessStack, user: str) -> tuple[str, subprocess.Popen[bytes]]:
    env = {**stack.env, "MNEMEX_GATEWAY_ADDR": f"127.0.0.1:{free_port()}", "MNEMEX_USER": user}
    log = open(stack.home / f"gateway-{user}.log", "ab")  # noqa: SIM115 - lives as long as the process
    proc = subprocess.Popen([sys.executable, "-m", "gateway"], env=env, cwd=ROOT, stdout=log, stderr=log)
    url = "http://" + env["MNEMEX_GATEWAY_ADDR"]

    def healthy() -> bool:
        return bool(httpx.get(url + "/api/health", timeout=2).json().get("status") == "ok")

    if not wait_until(healthy, timeout=180, interval=0.2):
        proc.terminate()
        raise RuntimeError(f"gateway {user} did not become healthy; see {stack.home / f'gateway-{user}.log'}")
    return url, proc


def run(args: argparse.Namespace, data: dataset.Dataset, kg_env: dict[str, str]) -> list[Record]:
    records: list[Record] = []
    with tempfile.TemporaryDirectory(prefix="mnemex-dupes-") as tmp:
        home = Path(tmp) / "data"
        home.mkdir()
        stack = start_services(home, kg_env)
        try:
            for seed in args.seeds:
                started = time.perf_counter()
                url, proc = start_gateway(stack, f"dupes-s{seed}")
                try:
                    near = dataset.near_miss_sample(data.near_misses, args.part, args.near_misses, seed)
                    project = Path(tmp) / f"s{seed}" / PROJECT
                    record = asyncio.run(play(url, project, data.problems, args.part, near, seed, f"s{seed}"))
                finally:
                    proc.terminate()
                    proc.wait(15)
                record.seconds["seed_total"] = time.perf_counter() - started
                records.append(record)
        finally:
            stack.stop()
    return records


def fmt(value: float | str) -> str:
    if isinstance(value, float):
        return "  n/a" if math.isnan(value) else f"{value:5.2f}"
    return f"{value:5}"


class DuplicateReportsResult(TypedDict):
    runs: dict[str, dict[str, float]]  # "seed N" -> figure -> value
    mean: dict[str, float]
    acceptance: dict[str, Check]


def summarise(records: list[Record], data: dataset.Dataset) -> DuplicateReportsResult:
    per_run = {f"seed {r.seed}": figures.figures(r, data.problems) for r in records}
    mean = figures.mean_figures(list(per_run.values()))
    acceptance: dict[str, Check] = {
        name: {
            "value": mean[name],
            "target": figures.target_text(name).replace("problems", str(len(data.problems))),
            "met": figures.met(name, mean[name], float(len(data.problems))),
        }
        for name in figures.TARGETS
    }
    return {"runs": per_run, "mean": mean, "acceptance": acceptance}


def report(result: DuplicateReportsResult, records: list[Record], header: dict[str, str]) -> None:
    for key, value in header.items():
        print(f"{key}: {value}")
    labels = list(result["runs"])
    print(f"\n{'figure':<54}" + "".join(f"{label:>10}" for label in labels) + f"{'target':>14}")
    for key, title in figures.ROWS:
        values = "".join(f"{fmt(result['runs'][label][key]):>10}" for label in labels)
        print(f"{title:<54}{values}{figures.target_text(key):>14}")
    for key in result["runs"][labels[0]]:
        if key.startswith("seconds_"):
            print(f"{key:<54}" + "".join(f"{fmt(result['runs'][label][key]):>10}" for label in labels))
    print("\nacceptance (mean over seeds):")
    for name, check in result["acceptance"].items():
        verdict = {True: "met", False: "NOT met", None: "not measured"}[check["met"]]
        print(f"  {name:<24} {fmt(check['value'])}  target {check['target']:<8} {verdict}")
    for record in records:
        for error in record.errors[:5]:
            print(f"  seed {record.seed}: {error}")


def dump(records: list[Record], data: dataset.Dataset, folder: Path) -> None:
    """One JSON file per seed: every probe's block with what was recognised in it."""
    fixes, attempts = figures.registries(data.problems)
    folder.mkdir(parents=True, exist_ok=True)
    for record in records:
        probes = [
            {
                "kind": p.kind,
                "report": p.report,
                "problem": p.problem,
                "figures": figures.recurrence_figures(p, fixes, attempts) if p.kind == "recurrence" else {},
                "block": p.block,
            }
            for p in record.probes
        ]
        out = {"seed": record.seed, "kg_problems": record.kg_problems, "errors": record.errors, "probes": probes}
        (folder / f"seed-{record.seed}.json").write_text(json.dumps(out, indent=2), encoding="utf-8")


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--part", choices=("calibrate", "holdout", "all"), default="holdout")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--near-misses", type=int, default=68, help="near-miss reports per seed (default 68)")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="for the kg service")
    parser.add_argument("--data", type=Path, default=dataset.DATA)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--dump", type=Path, help="write every probe's block here")
    args = parser.parse_args()
    kg_env = parse_env(args.env)
    data = dataset.load(args.data)
    chosen = dataset.in_part(data.problems, args.part)
    started = time.perf_counter()
    records = run(args, data, kg_env)
    wall = time.perf_counter() - started
    result = summarise(records, data)
    if args.dump:
        dump(records, data, args.dump)
    header = {
        "data": f"{args.data.name}: {len(data.problems)} problems, {len(data.near_misses)} near-miss reports "
        "(GitBugs, CC BY 4.0; Patil 2025, arXiv:2504.09651)",
        "part": f"{args.part}: {len(chosen)} problems, {sum(len(p.recurrences) for p in chosen)} recurrences; "
        f"every problem of both parts taught",
        "seeds": " ".join(map(str, args.seeds)),
        "kg env": " ".join(f"{k}={v}" for k, v in kg_env.items()) or "(none)",
        "failed tool calls reach": records[0].failure_route,
        "wall": f"{wall:.1f} s",
        "machine speed": f"in-process fp32 encode of one 20-token prompt p50 {machine_speed_ms():.2f} ms "
        "(about 4.6 quiet)",
    }
    if args.json:
        print(json.dumps({"header": header, **result}, indent=2, default=str))
    else:
        report(result, records, header)
    return 0


if __name__ == "__main__":
    sys.exit(main())
