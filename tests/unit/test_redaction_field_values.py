"""A text that is one name, tag or id stays whole (issue 36): the kg redacts every string of its journal ops and the
memory service every tag and title, so a rule about a token alone on a chat line must not take a field's value
for a password told in a conversation. Found by the kg's kill -9 durability test, whose entity names
(``Service100x``) came back redacted."""

from __future__ import annotations

import pytest

from kernel.privacy import redact, redact_json

FIELD_VALUES = [
    "Service100x",
    "all-MiniLM-L6-v2",
    "app-XYZ12345",
    "python3",
    "web01",
    "release-2024",
    "feature/login2",
    "x86_64",
    "gpt4o",
]


@pytest.mark.parametrize("value", FIELD_VALUES)
def test_a_field_value_alone_stays(value: str) -> None:
    assert redact(value) == value
    assert redact_json({"name": value, "tags": [value]}) == {"name": value, "tags": [value]}


def test_a_generated_token_alone_on_a_chat_line_is_still_redacted() -> None:
    told = "login for the staging box is ops\ndupSWYiWCf9wRH\nthanks!"
    assert "dupSWYiWCf9wRH" not in redact(told)
