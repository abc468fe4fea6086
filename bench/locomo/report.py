"""Tables of the LoCoMo measures, configurations side by side within each category."""

from __future__ import annotations

import json
from collections.abc import Mapping

from bench.locomo.dataset import CATEGORY_NAMES
from bench.locomo.metrics import MEASURES

Summaries = Mapping[str, Mapping[str, Mapping[str, float]]]  # config -> group -> measure -> value


def group_label(group: str) -> str:
    if group == "1-4":
        return "1-4 (all but adversarial)"
    return f"{group} {CATEGORY_NAMES.get(int(group), '?')}" if group.isdigit() else group


def side_by_side(summaries: Summaries) -> str:
    configs = list(summaries)
    if not configs:
        return "(no results)"
    groups = sorted(summaries[configs[0]], key=lambda g: (g != "1-4", g))
    lines = [f"{'category':27s} {'config':9s} {'n':>4s}  " + " ".join(f"{m:>9s}" for m in MEASURES)]
    for group in groups:
        for position, config in enumerate(configs):
            row = summaries[config][group]
            label = group_label(group) if position == 0 else ""
            lines.append(f"{label:27s} {config:9s} {int(row['n']):4d}  " + " ".join(f"{row[m]:9.3f}" for m in MEASURES))
    return "\n".join(lines)


def as_json(summaries: Summaries, extra: Mapping[str, object]) -> str:
    return json.dumps({"summaries": summaries, **extra}, indent=2, sort_keys=True)
