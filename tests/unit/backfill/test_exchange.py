"""Caps, dates and the stripping of mnemex's own context."""

from __future__ import annotations

from mnemex.backfill.exchange import (
    MAX_TEXT_CHARS,
    MAX_TOOL_RESPONSE_STRING,
    cap_value,
    make_exchange,
    rfc3339,
    strip_injected,
    tool_use,
)


def test_known_context_and_scoring_blocks_are_stripped_even_when_cut_off() -> None:
    text = "before\n═══ KNOWN CONTEXT ═══\nPreamble\n• fact [id:x]\n═══ END CONTEXT ═══\nafter"
    assert strip_injected(text) == "before\nafter"
    assert strip_injected("<mnemex-score-required>\nscore\n</mnemex-score-required>\nreal words") == "real words"
    assert strip_injected("question\n═══ KNOWN CONTEXT ═══\n• fact cut by a cap…") == "question"
    assert strip_injected("a <b>tag</b> that is not ours") == "a <b>tag</b> that is not ours"


def test_fields_are_capped_to_the_gateway_limits() -> None:
    exchange = make_exchange(
        source_id="claude:" + "s" * 300,
        client="claude",
        session_id="s",
        cwd="/srv/app",
        started_at="2026-01-01T00:00:00.000Z",
        user_text="u" * 250_000,
        assistant_text="a" * 250_000,
        tool_uses=[tool_use("Bash", {"command": "make"}, {"stdout": "ok"})] * 80,
    )
    assert exchange is not None
    assert len(exchange["source_id"]) == 200
    assert len(exchange["user_text"]) == len(exchange["assistant_text"]) == MAX_TEXT_CHARS
    assert len(exchange["tool_uses"]) == 50


def test_tool_values_keep_the_head_of_inputs_and_the_tail_of_outputs() -> None:
    used = tool_use("Bash", {"command": "c" * 10_000}, {"stdout": "noise " * 5000 + "12 passed, 1 failed"})
    command = used["tool_input"]["command"]
    assert isinstance(command, str) and len(command) == 2000 and command.startswith("ccc")
    stdout = used["tool_response"]["stdout"]
    assert isinstance(stdout, str)
    assert len(stdout) == MAX_TOOL_RESPONSE_STRING and stdout.endswith("12 passed, 1 failed")
    assert tool_use("Read", "raw", None)["tool_input"] == {"value": "raw"}
    deep: dict[str, object] = {}
    node = deep
    for _ in range(20):
        child: dict[str, object] = {}
        node["k"] = child
        node = child
    assert "k" in str(cap_value(deep, 100))


def test_an_exchange_with_nothing_of_the_users_own_is_dropped() -> None:
    only_context = "═══ KNOWN CONTEXT ═══\n• x\n═══ END CONTEXT ═══"
    assert (
        make_exchange(
            source_id="s",
            client="claude",
            session_id="s",
            cwd="/",
            started_at="2026-01-01T00:00:00.000Z",
            user_text=only_context,
            assistant_text="answer",
            tool_uses=[],
        )
        is None
    )


def test_dates_become_rfc3339_utc() -> None:
    assert rfc3339("2026-11-25T04:01:13.851Z") == "2026-11-25T04:01:13.851Z"
    assert rfc3339("2026-11-25T06:01:13+02:00") == "2026-11-25T04:01:13.000Z"
    assert rfc3339(1795579313283) == "2026-11-25T04:01:53.283Z"
    assert rfc3339("yesterday") is None and rfc3339(None) is None and rfc3339(True) is None
