"""The assistant clients a turn can come from, as hooks and the OpenCode plugin name them.

Pure module. A request may say which client sent it; the name is checked here
(empty means not said: older hooks send none) and kept with the turn, so the
viewer can tell which client wrote or read a memory.
"""

from __future__ import annotations

from services.memory.domain.memory_errors import InvalidRequest

# The names the hooks send (``hooks/hook_events.py``) and backfill uses.
KNOWN_CLIENTS = ("claude", "cursor", "opencode")
MAX_CLIENT_CHARS = 32


def check_client(name: str) -> str:
    """``name`` stripped and lower-cased, or "" when none was given; an unknown name is refused."""
    name = name[: MAX_CLIENT_CHARS + 1].strip().lower()
    if name and name not in KNOWN_CLIENTS:
        raise InvalidRequest(f"client={name[:MAX_CLIENT_CHARS]!r} is unknown: use one of {', '.join(KNOWN_CLIENTS)}")
    return name
