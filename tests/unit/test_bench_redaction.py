"""bench_redaction runs both sides and reports each source's time per text (a smoke test: no figure is judged)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from kernel.json_values import as_object, float_at

REPO = Path(__file__).resolve().parents[2]


def test_the_bench_times_every_source_on_both_sides() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.bench_redaction",
            "--per-source",
            "5",
            "--rounds",
            "1",
            "--json",
            "--b-root",
            ".",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = as_object(json.loads(done.stdout))
    assert {"python code", "secret forms"} <= set(report)
    for source in report:
        row = as_object(report[source])
        assert float_at(row, "texts") == 5
        assert float_at(row, "A_us_per_text") > 0 and float_at(row, "B_us_per_text") > 0
        assert float_at(row, "b_over_a") > 0
