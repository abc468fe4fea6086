"""Secrets people tell each other (issue 36, round 9): in chat, email, notes, minutes, tickets, onboarding and
handover docs, lists and tables, with typos, hints and corrections. Each family is tried on forms of its own
and on ordinary texts near them that must stay byte for byte; then the released blind11 corpus's forms of these
families. The values are made up."""

from __future__ import annotations

import pytest

from kernel.privacy import redact

# a token a provider's docs print, or a token's prefix with words to fill in: no secret
DOCUMENTED_TOKENS_KEPT = [
    "the docs use AKIAIOSFODNN7EXAMPLE as the access key id",
    "SLACK_BOT_TOKEN=xoxb-your-bot-token-here",
    "set GITHUB_TOKEN to ghp_your_token_here first",
]


@pytest.mark.parametrize("text", DOCUMENTED_TOKENS_KEPT)
def test_a_documented_or_fill_in_token_is_kept(text: str) -> None:
    assert redact(text) == text
