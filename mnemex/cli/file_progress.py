"""What a CLI command over many files shows while it works: files done, and the file at hand.

``mnemex ingest`` (the current file's chunks, as the memory service stores
them) and ``mnemex backfill`` (the current source's bytes or messages read,
and its exchanges) both draw it. On a terminal (stderr) it is two transient
bars. Without one (piped, ``--json``) it draws nothing; a command whose long
runs must never be silent (backfill in a CI log) passes ``line_every`` and its
``line`` text is printed at most that often.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from mnemex.cli.output import escape

LINE_COLUMNS = 80


def done_of(done: int, total: int | None) -> str:
    """``" 7/120"``: the count padded to the total's width (rich's M-of-N column), ``?`` while the total is unknown."""
    if total is None:
        return f"{done}/?"
    return f"{done:>{len(str(total))}}/{total}"


class FileProgress:
    """Two bars, files done and the file at hand, each with an amount (``" 3/12"``, ``"1.2/2.5 MB"``) and a unit.

    ``files_unit`` is what follows the files count ("files, 0 chunks stored");
    ``bar_width`` None lets the bars take rich's default width.
    """

    def __init__(
        self,
        console: Console,
        files: int,
        *,
        files_unit: str,
        bar_width: int | None = None,
        enabled: bool = True,
        line_every: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console = console
        self.live = enabled and console.is_terminal
        self.line_every = line_every if enabled and not console.is_terminal else None
        self.clock = clock
        self.last_line = 0.0
        self.files_total, self.files_done = files, 0
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(bar_width=bar_width) if bar_width is not None else BarColumn(),
            TextColumn("{task.fields[amount]}"),
            TextColumn("{task.fields[unit]}"),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            disable=not self.live,
        )
        self.files = self.progress.add_task("files", total=max(files, 1), amount=done_of(0, files), unit=files_unit)
        self.current: TaskID = self.progress.add_task("", total=None, amount="", unit="", visible=False)

    def __enter__(self) -> FileProgress:
        self.progress.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.progress.stop()

    def start_file(self, description: str, *, total: int | None, amount: str, unit: str) -> None:
        """Show the current file's bar again, from zero (``total`` None: not known yet)."""
        self.progress.reset(self.current, total=total, description=escape(description))
        self.progress.update(self.current, visible=True, amount=amount, unit=unit)

    def update_file(self, completed: int, *, amount: str, unit: str, total: int | None = None) -> None:
        """Move the current file's bar (``total`` None: keep the one it has)."""
        self.progress.update(self.current, total=total, completed=completed, amount=amount, unit=unit)

    def file_done(self, files_unit: str | None = None) -> None:
        """One more file done; the current file's bar hides until the next ``start_file``."""
        self.files_done += 1
        self.progress.update(self.current, visible=False)
        amount = done_of(self.files_done, self.files_total)
        if files_unit is None:
            self.progress.update(self.files, advance=1, amount=amount)
        else:
            self.progress.update(self.files, advance=1, amount=amount, unit=files_unit)

    def set_files_unit(self, unit: str) -> None:
        self.progress.update(self.files, unit=unit)

    def line(self, text: Callable[[], str]) -> None:
        """Without a terminal, print ``text()`` (cut to 80 columns), at most once every ``line_every`` seconds."""
        if self.line_every is None:
            return
        now = self.clock()
        if now - self.last_line < self.line_every:
            return
        self.last_line = now
        self.console.print(escape(text()[:LINE_COLUMNS]), soft_wrap=True, highlight=False)
