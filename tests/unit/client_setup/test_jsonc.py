"""JSONC: comments and trailing commas outside strings go; strings stay as written."""

from __future__ import annotations

import json

from mnemex.client_setup.jsonc import strip_jsonc


def test_comments_and_trailing_commas_are_removed_outside_strings() -> None:
    text = '{\n // a\n "a": "//not a comment", /* b,\n c */ "b": [1, 2,],\n "c": "\\" /* no */",\n}'
    plain, comments = strip_jsonc(text)
    assert comments
    assert json.loads(plain) == {"a": "//not a comment", "b": [1, 2], "c": '" /* no */'}
    assert plain.count("\n") == text.count("\n")


def test_plain_json_is_unchanged_and_has_no_comments() -> None:
    text = '{"a": [1, {"b": ",]"}]}'
    assert strip_jsonc(text) == (text, False)
    assert strip_jsonc('{"a": 1,}')[1] is False
