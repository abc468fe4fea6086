"""Environment every mnemex process sets before importing ML or vector-store code.

Nothing may download at run time, and nothing may phone home. Call
``apply()`` first thing in each entrypoint; it only sets defaults, so an
explicit user setting wins.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "ANONYMIZED_TELEMETRY": "False",
    "ORT_DISABLE_TELEMETRY": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


def apply(environ: MutableMapping[str, str] | None = None) -> None:
    env = os.environ if environ is None else environ
    for key, value in OFFLINE_ENV.items():
        env.setdefault(key, value)
