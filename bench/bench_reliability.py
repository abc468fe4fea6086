"""The reliability suite: every attack and fault family in one run, one table.

    .venv/bin/python -m bench.bench_reliability            # all parts
    .venv/bin/python -m bench.bench_reliability --only web  # parts whose name contains 'web'
    .venv/bin/python -m bench.bench_reliability --json

Each part lives in ``bench/reliability/<name>.py`` and exposes
``run(workdir) -> list[Row]``. The table's columns: tried, failed (expectation
broken) and lost (acknowledged writes lost, or secrets stored or shown). The
exit status is 1 when any row failed or lost anything.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
import tempfile
import time
from pathlib import Path

import bench.reliability as parts
from bench.reliability import Row
from kernel import offline


def part_names() -> list[str]:
    return sorted(info.name for info in pkgutil.iter_modules(parts.__path__) if not info.name.startswith("_"))


def run_part(name: str, root: Path) -> tuple[list[Row], float]:
    module = importlib.import_module(f"bench.reliability.{name}")
    workdir = root / name
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        rows = list(module.run(workdir))
    except Exception as exc:  # a part that crashes is a failed row, not a crashed suite
        rows = [Row(name, "part crashed", 1, 1, 0, f"{type(exc).__name__}: {exc}"[:200])]
    return rows, time.monotonic() - started


def table(rows: list[Row]) -> str:
    head = "| family | case | tried | failed | lost | note |\n|---|---|---|---|---|---|"
    lines = [f"| {r.family} | {r.case} | {r.tried} | {r.failed} | {r.lost} | {r.note} |" for r in rows]
    total = Row("all", "total", sum(r.tried for r in rows), sum(r.failed for r in rows), sum(r.lost for r in rows))
    lines.append(
        f"| **{total.family}** | **{total.case}** | **{total.tried}** | **{total.failed}** | **{total.lost}** | |"
    )
    return "\n".join([head, *lines])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", default=[], help="run only parts whose name contains this")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    offline.apply()
    names = [n for n in part_names() if not args.only or any(o in n for o in args.only)]
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="mnemex-reliability-") as tmp:
        for name in names:
            part_rows, seconds = run_part(name, Path(tmp))
            rows.extend(part_rows)
            if not args.json:
                print(f"# {name}: {len(part_rows)} rows in {seconds:.1f} s", file=sys.stderr)
    if args.json:
        print(json.dumps([r.as_dict() for r in rows], indent=2))
    else:
        print(table(rows))
    return 1 if any(r.failed or r.lost for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
