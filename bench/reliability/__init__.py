"""The reliability suite's parts: each module replays one family of attacks or faults.

Every part exposes ``run(workdir: Path) -> list[Row]``; ``bench.bench_reliability``
runs them all and prints one table (tried / failed / lost) for RELIABILITY.md.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Row:
    """One case family's result.

    ``tried``: attempts made; ``failed``: attempts whose expectation was broken
    (a 5xx, an accepted cross-site write, a corruption not named...);
    ``lost``: acknowledged writes lost or secrets stored/shown (0 is the only good value).
    """

    family: str
    case: str
    tried: int
    failed: int
    lost: int = 0
    note: str = ""

    def as_dict(self) -> dict[str, str | int]:
        return asdict(self)
