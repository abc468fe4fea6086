"""How the benchmark writes one LoCoMo dialog turn as a mnemex memory.

Content: ``[<session date>] <speaker>: <text>``, then, when the turn answers
another one, ``(in reply to <speaker>: <text>)``. The date lets temporal
questions ("what did Maria do on 16 June, 2023?") meet the turn by keyword
(the lexical index also turns dates into canonical ``2023-06-16`` terms). The
replied-to turn is there for the same reason mnemex stores an exchange as
prompt + answer: "We explored nature and went on a hike" means little until
you know it answers "What did you do while camping?". Only the previous turn
is used, never a later one: a live assistant cannot know the future when it
writes a memory.

``baseline_content`` is the README's dense baseline document, kept so one run
can show the baseline next to the final configuration.

Metadata: ``dia_id``, ``session``, ``session_date``, ``speaker``, ``source``.
"""

from __future__ import annotations

import json

from bench.locomo.dataset import Turn

MAX_REPLY_CONTEXT_CHARS = 600


def baseline_content(turn: Turn, previous: Turn | None = None) -> str:
    """The README baseline's document: ``<speaker>: <text>`` (no date, no image caption, no context)."""
    return f"{turn.speaker}: {turn.raw_text}"


def turn_content(turn: Turn, previous: Turn | None) -> str:
    text = f"[{turn.session_date}] {turn.speaker}: {turn.text}" if turn.session_date else f"{turn.speaker}: {turn.text}"
    if previous is not None and previous.session == turn.session and previous.speaker != turn.speaker:
        text += f"\n(in reply to {previous.speaker}: {previous.text[:MAX_REPLY_CONTEXT_CHARS]})"
    return text


def turn_metadata(turn: Turn, created_at: str = "") -> str:
    """The turn's metadata; ``created_at`` (ISO-8601), when given, is its creation time."""
    return json.dumps(
        {
            **({"created_at": created_at} if created_at else {}),
            "dia_id": turn.dia_id,
            "session": turn.session,
            "session_date": turn.session_date,
            "speaker": turn.speaker,
            "source": "locomo",
        }
    )
