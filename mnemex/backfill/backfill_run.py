"""A backfill run: read every source, filter, send in batches, checkpoint after each request.

The runner knows nothing of HTTP or terminals: it takes ``post`` (one batch
to the gateway, its JSON answer back) and a ``Display`` to report progress
to, so the CLI and the tests drive it alike. ``post`` may raise
``BatchTooLarge``; the batch is then split in halves and each sent alone.
Any other exception from ``post`` ends the run; what was sent before it is
in the checkpoint, so the next run resumes there.

An unchanged source is skipped without being read, except one per run: the
first unchanged source whose exchanges were sent before is read again and its
exchanges are sent with ``dry_run`` (nothing is written). The gateway answers
which of them it would store, i.e. which are no longer in memory (expired,
deleted, or a store that was replaced); the source's result then says how many
are missing and that ``--rescan`` stores them again. A loss is reported, never
hidden behind "unchanged", and never silently undone (an expiry by the normal
lifecycle rules stays an expiry).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Protocol

from mnemex.backfill.checkpoint import Checkpoint
from mnemex.backfill.exchange import Exchange
from mnemex.backfill.plan import Batch, Filters, encoded_size
from mnemex.backfill.reading import Reading, open_reading
from mnemex.backfill.report import FAILED, READ, SKIPPED, UNCHANGED, Report, SourceResult
from mnemex.backfill.sources import Discovery, Source

Post = Callable[[list[Exchange], bool], object]  # the gateway's answer, as JSON (Report.add_reply reads it)


class BatchTooLarge(Exception):
    """The gateway refused a request as too large."""


class Display(Protocol):
    def start_source(self, source: Source) -> None: ...
    def advance(self, done: int, total: int, exchanges: int) -> None: ...
    def source_done(self) -> None: ...
    def batch_sent(self, sent_total: int) -> None: ...


@dataclass
class _Reading:
    source: Source
    exchanges: int  # exchanges read in all (resumed ones included)
    finished: bool


class Backfill:
    def __init__(
        self, post: Post, display: Display, filters: Filters, checkpoint: Checkpoint | None, dry_run: bool
    ) -> None:
        self.post, self.display, self.filters = post, display, filters
        self.checkpoint = None if dry_run else checkpoint
        self.report = Report(dry_run=dry_run)
        self.batch = Batch()
        self.readings: dict[str, _Reading] = {}
        self.signature = filters.signature()
        self.unsaved = False
        self.saved_at = time.monotonic()
        self.rechecked_one = False  # one unchanged source per run is re-checked (see the module doc)

    def run(self, discovery: Discovery) -> Report:
        for unreadable in discovery.unreadable:
            self.report.sources.append(
                SourceResult(unreadable.client, unreadable.path, unreadable.path, SKIPPED, detail=unreadable.reason)
            )
        for source in discovery.sources:
            self._read(source)
        self._flush()
        self._save(force=True)
        return self.report

    # -- per source ------------------------------------------------------
    def _read(self, source: Source) -> None:
        if self.checkpoint and self.checkpoint.is_done(source.key, source.fingerprint, self.signature):
            result = SourceResult(source.client, str(source.path), source.label, UNCHANGED)
            self.report.sources.append(result)
            sent_before = self.checkpoint.resume_at(source.key, source.size, self.signature)
            if not self.rechecked_one and sent_before > 0:
                self.rechecked_one = True
                self._recheck(source, sent_before, result)
            return
        skip = self.checkpoint.resume_at(source.key, source.size, self.signature) if self.checkpoint else 0
        result = SourceResult(source.client, str(source.path), source.label, READ)
        self.report.sources.append(result)
        reading = self.readings[source.key] = _Reading(source, skip, False)
        self.display.start_source(source)
        opened = open_reading(source)
        with contextlib.closing(opened.exchanges):
            self._read_source(source, opened, result, reading, skip)

    def _read_source(self, source: Source, opened: Reading, result: SourceResult, reading: _Reading, skip: int) -> None:
        exchanges = opened.exchanges
        index = 0
        while True:
            try:
                exchange = next(exchanges)
            except StopIteration:
                break
            except Exception as exc:  # an unreadable store or a reader bug ends this source, not the run
                result.status, result.detail = FAILED, f"stopped reading after {index} exchanges: {exc}"
                self.readings.pop(source.key, None)
                self.display.source_done()
                return
            index += 1
            self.display.advance(opened.done(), source.size, index)
            if index <= skip:
                continue
            result.exchanges += 1
            reading.exchanges = index
            if not self.filters.accepts(exchange):
                self.report.filtered_out += 1
                continue
            self.report.found += 1
            result.sent += 1
            self._add(exchange, source.key, index)
        result.skipped_lines = opened.skipped_lines()
        if opened.entries() == 0 and result.skipped_lines:
            result.status = SKIPPED
            result.detail = f"no readable entry ({result.skipped_lines} unreadable lines): not a transcript?"
        elif result.skipped_lines:
            result.detail = f"{result.skipped_lines} unreadable lines skipped"
        reading.finished = True
        self._settle()
        self.display.source_done()

    # -- re-checking an unchanged source ---------------------------------
    def _recheck(self, source: Source, sent_before: int, result: SourceResult) -> None:
        """Ask the gateway (dry run) which of the source's earlier sent exchanges it no longer holds."""
        with contextlib.closing(open_reading(source).exchanges) as exchanges:
            self._recheck_exchanges(source, exchanges, sent_before, result)

    def _recheck_exchanges(
        self, source: Source, exchanges: Generator[Exchange, None, None], sent_before: int, result: SourceResult
    ) -> None:
        batch, checked, missing = Batch(), 0, 0
        for index in range(1, sent_before + 1):
            try:
                exchange = next(exchanges)
            except StopIteration:
                break
            except Exception as exc:  # a source that became unreadable: say so, keep the run going
                result.detail = f"could not re-check the exchanges sent earlier: {exc}"
                return
            if not self.filters.accepts(exchange):
                continue
            size = encoded_size(exchange)
            if not batch.fits(size):
                missing += self._missing(batch.exchanges)
                batch = Batch()
            batch.add(exchange, source.key, index, size)
            checked += 1
        if batch.exchanges:
            missing += self._missing(batch.exchanges)
        self.report.rechecked += checked
        self.report.missing += missing
        if missing:
            result.detail = (
                f"{missing} of {checked} exchanges imported earlier are no longer in memory (expired or deleted); "
                "`mnemex backfill --rescan` stores them again"
            )

    def _missing(self, exchanges: list[Exchange]) -> int:
        """How many of ``exchanges`` the gateway would store, i.e. does not hold (a dry run: writes nothing)."""
        try:
            reply = self.post(exchanges, True)
        except BatchTooLarge:
            if len(exchanges) == 1:
                raise
            half = len(exchanges) // 2
            return self._missing(exchanges[:half]) + self._missing(exchanges[half:])
        body = reply if isinstance(reply, dict) else {}
        return int(body.get("stored") or 0)

    # -- batches -----------------------------------------------------------
    def _add(self, exchange: Exchange, key: str, index: int) -> None:
        size = encoded_size(exchange)
        if not self.batch.fits(size):
            self._flush()
        self.batch.add(exchange, key, index, size)
        if self.batch.full:
            self._flush()

    def _flush(self) -> None:
        batch, self.batch = self.batch, Batch()
        if batch.exchanges:
            self._send(batch.exchanges)
            sent: dict[str, int] = {}
            for key, index in batch.origins:
                sent[key] = max(sent.get(key, 0), index)
            for key, upto in sent.items():
                reading = self.readings.get(key)
                if reading is not None and not reading.finished:
                    self._record(reading.source, upto, complete=False)
            self._settle()
            self._save(force=True)
        else:
            self._settle()

    def _send(self, exchanges: list[Exchange]) -> None:
        try:
            reply = self.post(exchanges, self.report.dry_run)
        except BatchTooLarge:
            if len(exchanges) == 1:
                raise
            half = len(exchanges) // 2
            self._send(exchanges[:half])
            self._send(exchanges[half:])
            return
        self.report.add_reply(reply, len(exchanges))
        self.display.batch_sent(self.report.sent)

    def _settle(self) -> None:
        """Mark complete every finished source with nothing left in the unsent batch; save."""
        waiting = self.batch.keys()
        for key, reading in list(self.readings.items()):
            if reading.finished and key not in waiting:
                self._record(reading.source, reading.exchanges, complete=True)
                del self.readings[key]
        self._save()

    def _save(self, force: bool = False) -> None:
        """Write the checkpoint after a request, and at most every 2 s while only reading."""
        if self.checkpoint is None or not self.unsaved:
            return
        if force or time.monotonic() - self.saved_at >= 2.0:
            self.checkpoint.save()
            self.unsaved, self.saved_at = False, time.monotonic()

    def _record(self, source: Source, sent: int, *, complete: bool) -> None:
        if self.checkpoint is not None:
            self.unsaved = True
            self.checkpoint.record(
                source.key,
                fingerprint=source.fingerprint,
                size=source.size,
                filters=self.signature,
                sent=sent,
                complete=complete,
            )
