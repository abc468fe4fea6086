"""JSONC read with positions and edited in place: comments, trailing commas and layout survive a round trip."""

from __future__ import annotations

import pytest

from kernel.json_values import JSONObject
from mnemex.client_setup.jsonc import JsoncError, blank_comments, parse_document
from mnemex.client_setup.jsonc_edit import patch

SERVER: JSONObject = {"type": "local", "command": ["python", "-m", "mnemex.cli", "mcp"], "enabled": True}

COMMENTED = """{
  // OpenCode settings, kept by hand
  "$schema": "https://opencode.ai/config.json",
  "theme": "dark", /* "not": a key */
  "url": "http://example.com//not-a-comment",
  "mcp": {
    // my own server
    "other": {"type": "remote", "url": "https://x"}, // theirs
  },
  "plugin": ["x",],
}
"""


def document(text: str) -> JSONObject:
    value = parse_document(text).value
    assert isinstance(value, dict)
    return value


def with_server(data: JSONObject) -> JSONObject:
    current = data.get("mcp") or {}
    assert isinstance(current, dict)
    mcp = dict(current)
    return {**data, "mcp": {**mcp, "mnemex": SERVER}}


def test_blanking_comments_keeps_every_offset() -> None:
    blank = blank_comments(COMMENTED)
    assert len(blank) == len(COMMENTED) and blank.count("\n") == COMMENTED.count("\n")
    assert "//not-a-comment" in blank, "a string is never taken for a comment"
    assert "kept by hand" not in blank and "theirs" not in blank and '"not": a key' not in blank


@pytest.mark.parametrize(
    "text",
    [COMMENTED, "{}", '{"theme": "dark",}', '{\n\t"a": 1 // note\n}\n', '{\n  "mcp": {\n    // none yet\n  }\n}\n'],
)
def test_adding_then_removing_mnemexs_server_gives_back_the_text_byte_for_byte(text: str) -> None:
    original = document(text)
    added = patch(text, with_server(original))
    assert document(added) == with_server(original)
    for comment in ("// OpenCode settings", '/* "not": a key */', "// my own server", "// theirs", "// note"):
        assert (comment in added) == (comment in text)
    assert patch(added, original) == text


def test_a_changed_value_is_replaced_where_it_stands() -> None:
    text = '{\n  // keep\n  "mcp": {"mnemex": {"command": ["old"]}}, // mine\n  "theme": "dark"\n}\n'
    edited = patch(text, {"mcp": {"mnemex": {"command": ["new"]}}, "theme": "dark"})
    assert edited == text.replace('["old"]', '[\n    "new"\n  ]')


def test_items_are_appended_and_removed_in_a_list() -> None:
    text = '{"allow": ["a", "x", "b"]}'
    assert patch(text, {"allow": ["x"]}) == '{"allow": ["x"]}'
    assert patch(text, {"allow": ["a", "x", "b", "c"]}) == '{"allow": ["a", "x", "b", "c"]}'
    assert patch(text, {"allow": ["x", "y"]}) == '{"allow": ["x", "y"]}'


def test_a_syntax_error_names_its_line_and_column() -> None:
    with pytest.raises(JsoncError) as caught:
        parse_document('{\n  // mine\n  "theme": "dark"\n  "url": "x"\n}')
    assert (caught.value.line, caught.value.column) == (4, 3)
    assert "expected ','" in caught.value.message
    with pytest.raises(JsoncError) as unclosed:
        parse_document('{\n  "a": /* never closed */ 1,')
    assert unclosed.value.line == 2
