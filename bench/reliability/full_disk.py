"""A full disk under the real stack: it degrades, nothing is orphaned, and it recovers (issue 36, item 4).

The real CLI and the four services plus their supervisor run with
``MNEMEX_HOME`` on a 64 MB tmpfs mounted in a private mount namespace
(``unshare --user --map-root-user --mount``); the disk is filled to the last
byte while stops arrive through the hook endpoint. The scenario and what each
phase checks are in ``tests/support/full_disk_scenario.py``; the pytest
form is ``tests/reliability/test_full_disk.py``.

One row per phase: ``tried`` is the expectations checked, ``failed`` those
broken, ``lost`` stops acknowledged (200) on the full disk and not readable
afterwards. Without ``unshare`` or user namespaces the part is one failed row
that says why.
"""

from __future__ import annotations

from pathlib import Path

from bench.reliability import Row

FAMILY = "full disk"
CASES = (
    ("full", "disk filled while stops arrive -> supervisor and every service still up, no orphan"),
    ("freed", "space freed -> stops stored again without restart (memory, kg, state file)"),
    ("down", "`mnemex down` after a full disk stops every process"),
    ("leftover", "a service left with no supervisor or run files -> `mnemex down` stops it, `mnemex up` reclaims it"),
)


def run(workdir: Path) -> list[Row]:
    from tests.support.full_disk_scenario import NamespaceUnavailable, ScenarioResult, run_scenario

    try:
        result: ScenarioResult = run_scenario(workdir)
    except NamespaceUnavailable as exc:
        return [Row(FAMILY, "scenario", 1, 1, 0, str(exc)[:200])]
    rows = []
    for phase, case in CASES:
        facts = result.phase(phase)
        broken = [f for f in facts if not f.ok]
        notes = [f"{f.name}: {f.detail[:120]}" for f in broken[:2]]
        if phase == "full":
            answers = [f.detail.split(" ", 1)[0] for f in facts if f.name.startswith("a stop on the full disk")]
            notes.insert(0, f"stops while full answered {', '.join(sorted(set(answers)))} ({len(answers)} sent)")
        if phase == "freed":
            resumed = next((f for f in facts if f.name == "a stop is stored again once space is freed"), None)
            if resumed is not None:
                notes.insert(0, f"stored again {resumed.detail.split(':', 1)[0]}")
        if phase == "down":
            took = next((f for f in facts if f.name.startswith("`mnemex down` on the full disk")), None)
            if took is not None:
                notes.insert(0, f"down took {took.detail.split(':', 1)[0]}")
        if not facts:
            notes.append("phase did not run")
        rows.append(
            Row(
                FAMILY,
                case,
                max(len(facts), 1),
                len(broken) if facts else 1,
                sum(f.lost for f in facts),
                "; ".join(notes),
            )
        )
    crashed = result.phase("scenario")
    if crashed:
        rows.append(Row(FAMILY, "scenario ran to the end", 1, 1, 0, crashed[0].detail[:200]))
    return rows
