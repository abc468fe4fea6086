"""Logging for every mnemex process: one line a record, and nothing a client sent.

    from kernel import logs
    logs.configure()            # at a process's entry point, instead of logging.basicConfig

The gateway and the services receive memories, prompts and tokens; a log
must not become a second copy of them. So the formatter

- cuts each message to ``MAX_MESSAGE_CHARS`` (a message that formats a
  request value in cannot grow the log by the request's size);
- writes a traceback as its frames only (file, line, function, source line;
  repeated frames folded, at most ``MAX_FRAMES``): exception messages often
  quote the input that caused them (``ValueError(f"bad {value}")``, a
  validation error's ``input_value``), so only the exception's type is kept,
  except for the kinds whose messages describe the machine, not the request
  (``OSError``: "No space left on device", ``MemoryError``, ``RecursionError``...),
  and those whose class sets ``safe_to_log = True``.

The supervisor writes each process's stderr to ``logs/<service>.log`` and
rotates those files by size while they run (``mnemex.supervisor.child_logs.rotate``).
"""

from __future__ import annotations

import logging
import sys
import traceback
from types import TracebackType

from kernel.privacy import redact

FORMAT = "%(asctime)s %(name)s %(levelname)s %(message)s"
MAX_MESSAGE_CHARS = 2000
MAX_FRAMES = 30
# Exceptions whose text describes the machine (errno, resource), never a request's content.
MESSAGE_KEPT = (OSError, MemoryError, RecursionError, ImportError, TimeoutError)

ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]


def shorten(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]} ... ({len(text) - limit:,} characters left out)"


def exception_line(exc: BaseException) -> str:
    name = type(exc).__qualname__
    if isinstance(exc, MESSAGE_KEPT) or getattr(exc, "safe_to_log", False):
        return shorten(f"{name}: {exc}", 300)
    return f"{name} (message left out of the log: it may quote request data)"


def frames_only(exc: BaseException) -> str:
    """``exc``'s traceback, causes first as Python prints them, with no message but those of ``MESSAGE_KEPT``."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain and len(chain) < 5:
        chain.append(current)
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)
    blocks = []
    for link in reversed(chain):
        summary = traceback.extract_tb(link.__traceback__)
        if len(summary) > MAX_FRAMES:
            summary = traceback.StackSummary.from_list(summary[-MAX_FRAMES:])
        blocks.append("Traceback (most recent call last):\n" + "".join(summary.format()) + exception_line(link))
    return "\n\nThe above exception led to another:\n\n".join(blocks)


class SafeFormatter(logging.Formatter):
    """``logging.Formatter`` with the limits of the module doc."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = shorten(redact(record.message))  # kernel.privacy: no credential in a log line
        return super().formatMessage(record)

    def formatException(self, ei: ExcInfo | tuple[None, None, None]) -> str:
        return frames_only(ei[1]) if ei[1] is not None else ""

    def formatStack(self, stack_info: str) -> str:
        return shorten(stack_info, 20_000)


def configure(level: int | str = logging.INFO, fmt: str = FORMAT) -> None:
    """Log to stderr through ``SafeFormatter`` (replaces any handlers set before)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(SafeFormatter(fmt))
    logging.basicConfig(level=level, handlers=[handler], force=True)
