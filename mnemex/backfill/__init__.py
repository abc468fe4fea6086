"""Backfill: import the conversations coding assistants already keep on disk (``mnemex backfill``).

- ``sources``: where Claude Code and OpenCode keep their history; the units read
- ``jsonl``, ``claude_reader``, ``opencode_reader``, ``reading``: streaming, tolerant readers
- ``exchange``: the exchange the gateway's ``POST /api/backfill`` takes, capped and cleaned
- ``plan``: ``--since`` / ``--project`` filters and request batches
- ``checkpoint``: what earlier runs sent, so re-runs skip and interrupted runs resume
- ``backfill_run``, ``report``: one run and its summary
- ``history_count``: the quick count ``mnemex init`` prints

Standard library only; docs/BACKFILL.md describes the formats and choices.
"""
