"""Error messages quote at most 80 characters of a value and stay under 1,000 characters."""

from __future__ import annotations

from kernel.error_detail import MESSAGE_CHARS, bounded, quoted


def test_quoted_keeps_short_values_and_cuts_long_ones_with_their_length() -> None:
    assert quoted("abc") == "'abc'"
    assert quoted("z" * 100) == "'" + "z" * 80 + "'... (100 characters)"


def test_bounded_cuts_every_long_literal_and_keeps_the_rest_of_the_message() -> None:
    message = f"no book titled {'t' * 5_000_000!r} in this project; collection {'c' * 90!r} is unknown"
    shown = bounded(message)
    assert shown == (
        "no book titled '" + "t" * 80 + "'... (5,000,000 characters) in this project; "
        "collection '" + "c" * 80 + "'... (90 characters) is unknown"
    )


def test_bounded_caps_a_long_message_without_quotes() -> None:
    shown = bounded("w" * 50_000)
    assert len(shown) < MESSAGE_CHARS + 60 and shown.endswith("(message cut from 50,000 characters)")
    assert bounded("short 'message'") == "short 'message'"
