"""Side-by-side tables of the LoCoMo measures for each retrieval mode."""

from __future__ import annotations

import json
from collections.abc import Mapping

from bench.locomo.dataset import CATEGORY_NAMES
from bench.locomo.metrics import MEASURES


def group_label(group: str) -> str:
    if group == "1-4":
        return "1-4 (all but adversarial)"
    return f"{group} {CATEGORY_NAMES.get(int(group), '?')}" if group.isdigit() else group


def side_by_side(summaries: Mapping[str, Mapping[str, Mapping[str, float]]]) -> str:
    """``summaries[mode][group][measure]`` -> one text table, modes next to each other."""
    modes = list(summaries)
    groups = list(next(iter(summaries.values())).keys()) if summaries else []
    header = f"{'category':28s} {'n':>4s}  " + "  ".join(
        f"{m:>{8 * len(modes) + 1}s}" for m in MEASURES
    )
    sub = f"{'':28s} {'':>4s}  " + "  ".join(" ".join(f"{mode[:7]:>7s}" for mode in modes) + " " for _ in MEASURES)
    lines = [header, sub]
    for group in groups:
        n = int(summaries[modes[0]][group]["n"])
        cells = "  ".join(" ".join(f"{summaries[mode][group][m]:7.3f}" for mode in modes) + " " for m in MEASURES)
        lines.append(f"{group_label(group):28s} {n:4d}  {cells}")
    return "\n".join(lines)


def as_json(summaries: Mapping[str, object], extra: Mapping[str, object]) -> str:
    return json.dumps({"summaries": summaries, **extra}, indent=2, sort_keys=True)
