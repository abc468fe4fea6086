"""Which clients are on this machine: by their config folder under ``$HOME`` or their binary on ``PATH``.

``mnemex init`` without ``--client`` connects every client found here.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

# client -> (config folder relative to $HOME, binary names)
SIGNS: dict[str, tuple[str, tuple[str, ...]]] = {
    "claude": (".claude", ("claude",)),
    "cursor": (".cursor", ("cursor", "cursor-agent")),
    "opencode": (".config/opencode", ("opencode",)),
}


@dataclass(frozen=True)
class Found:
    client: str
    evidence: str  # what showed the client is here ("" when it was not found)
    hint: str  # where we looked, for a client that was not found


def find_clients(home: Path, environ: Mapping[str, str] | None = None) -> list[Found]:
    """One entry per known client, in a fixed order; ``evidence`` is empty for a client not found."""
    environ = os.environ if environ is None else environ
    path = environ.get("PATH", "")
    found = []
    for client, (folder, binaries) in SIGNS.items():
        evidence = ""
        if (home / folder).is_dir():
            evidence = f"~/{folder}"
        else:
            for binary in binaries:
                located = shutil.which(binary, path=path)
                if located:
                    evidence = f"`{binary}` at {located}"
                    break
        hint = f"no ~/{folder} and no `{binaries[0]}` on PATH"
        found.append(Found(client, evidence, hint))
    return found
