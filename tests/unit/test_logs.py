"""kernel.logs: what a process's log may hold (issue 27, defect 7: tracebacks copied request bodies into the log)."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway.safe_json import decode_json
from kernel import logs

Captured = tuple[logging.Logger, io.StringIO]
BODY = '{"prompt": "the deploy password is hunter2-SECRET-MARKER"}'


@pytest.fixture
def captured() -> Iterator[Captured]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.SafeFormatter(logs.FORMAT))
    logger = logging.getLogger("test-kernel-logs")
    logger.addHandler(handler)
    logger.propagate = False
    yield logger, stream
    logger.removeHandler(handler)


def _handle(body: str) -> None:
    value = json.loads(body)
    raise ValueError(f"cannot use {value!r}")


def test_a_traceback_keeps_its_frames_but_not_the_request_it_quotes(captured: Captured) -> None:
    logger, stream = captured
    try:
        try:
            _handle(BODY)
        except ValueError as exc:
            raise RuntimeError(f"request failed: {BODY}") from exc
    except RuntimeError:
        logger.exception("request failed")
    text = stream.getvalue()
    assert "SECRET-MARKER" not in text
    assert "in _handle" in text and "ValueError" in text and "RuntimeError" in text  # still says where and what
    assert text.index("ValueError") < text.index("RuntimeError")  # causes first, as Python prints them


def test_a_recursion_error_on_deep_json_logs_a_bounded_traceback(captured: Captured) -> None:
    logger, stream = captured
    deep = '{"a": ' * 5000 + '"SECRET-MARKER"' + "}" * 5000
    try:
        json.loads(deep)
        decode_json(deep)
    except (RecursionError, ValueError):
        logger.exception("parse failed")
    text = stream.getvalue()
    assert "SECRET-MARKER" not in text and len(text) < 10_000


def test_machine_errors_keep_their_message_and_long_messages_are_cut(captured: Captured, tmp_path: Path) -> None:
    logger, stream = captured
    try:
        (tmp_path / "missing" / "file").read_text()
    except OSError:
        logger.exception("reading failed")
    logger.warning("got %s", "x" * 50_000)
    text = stream.getvalue()
    assert "No such file or directory" in text
    assert len(text) < 5_000 and "characters left out" in text
