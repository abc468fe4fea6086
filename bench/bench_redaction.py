"""How long ``kernel.privacy.redact`` takes on real text, and against another checkout's.

    .venv/bin/python -m bench.bench_redaction                          # this checkout alone
    .venv/bin/python -m bench.bench_redaction --b-root ../old-checkout  # side by side, rounds alternating
    .venv/bin/python -m bench.bench_redaction --json

Redaction runs before every write of the memory service and on every log line, so its cost is paid on
the store path and by each service. The texts are the ones redaction meets: SeaMonkey bug reports and
LoCoMo turns (``shared/data``), 40-line chunks of this repository's Python code, and the secret forms of
the tuning corpora (texts that hold a secret, so every rule gets to work). Each side runs in its own
process (``python -c`` with the checkout as its working directory, so an old checkout needs nothing of
this module); a round redacts every text of a source once, and rounds go A, B, A, B..., so a slow minute
on a shared machine hits both alike. The figures are the median round per text (µs) and, side by side,
B's median over A's.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.reliability.secret_false_alarms import sources as real_sources

_REPO = Path(__file__).resolve().parents[1]
_TUNING_CORPORA = [
    ("tests.support.secrets_blind4", "BLIND4_SECRETS"),
    ("tests.support.secrets_blind5", "BLIND5_SECRETS"),
    ("tests.support.secrets_blind6", "BLIND6_SECRETS"),
    ("tests.support.secrets_blind7", "BLIND7_SECRETS"),
]
# A side: reads the texts, then for each line "source" on stdin redacts that source's texts once and
# answers the seconds it took.
_SIDE = """
import json, sys, time
from kernel.privacy import redact
texts = json.load(open(sys.argv[1], encoding="utf-8"))
for text in texts["__warm__"]:
    redact(text)
print("ready", flush=True)
for line in sys.stdin:
    batch = texts[line.strip()]
    started = time.perf_counter()
    for text in batch:
        redact(text)
    print(time.perf_counter() - started, flush=True)
"""


def _code_chunks(limit: int) -> list[str]:
    listed = subprocess.run(["git", "ls-files", "*.py"], cwd=_REPO, capture_output=True, text=True, check=True)
    chunks: list[str] = []
    for name in sorted(listed.stdout.split()):
        if "secret" in name or "privacy" in name:
            continue
        lines = (_REPO / name).read_text(encoding="utf-8").splitlines()
        chunks += ["\n".join(lines[i : i + 40]) for i in range(0, len(lines), 40)]
    return chunks[:: max(1, len(chunks) // limit)][:limit]


def _secret_forms() -> list[str]:
    forms: list[str] = []
    for module, name in _TUNING_CORPORA:
        forms += [secret.text for secret in getattr(importlib.import_module(module), name)]
    return forms


def texts(per_source: int) -> dict[str, list[str]]:
    real = real_sources()
    out = {
        "bug reports": real.get("seamonkey bug reports", [])[:per_source],
        "chat turns": real.get("locomo turns", [])[:per_source],
        "python code": _code_chunks(per_source),
        "secret forms": _secret_forms()[:per_source],
    }
    return {name: batch for name, batch in out.items() if batch}


class Side:
    def __init__(self, root: Path, texts_file: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", _SIDE, str(texts_file)],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        if self.process.stdout.readline().strip() != "ready":
            raise SystemExit(f"the side at {root} did not start: is it a mnemex checkout?")

    def round(self, source: str) -> float:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(source + "\n")
        self.process.stdin.flush()
        return float(self.process.stdout.readline())

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--b-root", type=Path, help="another checkout, run side by side with this one")
    parser.add_argument("--per-source", type=int, default=400, help="texts per source (default 400)")
    parser.add_argument("--rounds", type=int, default=15, help="rounds per side and source (default 15)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    args = parser.parse_args()
    batches = texts(args.per_source)
    with tempfile.TemporaryDirectory() as scratch:
        texts_file = Path(scratch) / "texts.json"
        warm = [text for batch in batches.values() for text in batch[:20]]
        texts_file.write_text(json.dumps({**batches, "__warm__": warm}), encoding="utf-8")
        sides = {"A": Side(_REPO, texts_file)}
        if args.b_root is not None:
            sides["B"] = Side(args.b_root.resolve(), texts_file)
        report: dict[str, dict[str, float]] = {}
        for source, batch in batches.items():
            times: dict[str, list[float]] = {name: [] for name in sides}
            for _ in range(args.rounds):
                for name, side in sides.items():
                    times[name].append(side.round(source))
            row = {
                "texts": float(len(batch)),
                "kb": sum(len(t.encode()) for t in batch) / 1024,
            }
            for name in sides:
                row[f"{name}_us_per_text"] = statistics.median(times[name]) / len(batch) * 1e6
            if "B" in sides:
                row["b_over_a"] = row["B_us_per_text"] / row["A_us_per_text"]
            report[source] = row
        for side in sides.values():
            side.close()
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for source, row in report.items():
        line = f"{source:13s} {int(row['texts']):4d} texts ({row['kb']:.0f} KB): A {row['A_us_per_text']:8.1f} µs/text"
        if "B" in sides:
            line += f"   B {row['B_us_per_text']:8.1f} µs/text   B/A {row['b_over_a']:.2f}"
        print(line)


if __name__ == "__main__":
    main()
