"""What ``mnemex ingest`` shows while it works: files done, and the current file's chunks.

The chunk bar's total comes from the gateway's first progress line for a
file and advances as the memory service embeds and stores each batch. The
display draws only on a terminal (stderr); piped or ``--json`` runs print
nothing but their results.
"""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from mnemex.cli.output import escape


class IngestProgress:
    def __init__(self, console: Console, files: int) -> None:
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[unit]}"),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            disable=not console.is_terminal,
        )
        self.files = self.progress.add_task("files", total=max(files, 1), unit="files, 0 chunks stored")
        self.chunks: TaskID = self.progress.add_task("", total=None, unit="chunks", visible=False)

    def __enter__(self) -> IngestProgress:
        self.progress.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.progress.stop()

    def start_file(self, name: str) -> None:
        self.progress.reset(self.chunks, total=None, description=escape(name[:40]), visible=True)

    def on_chunks(self, total: int, done: int) -> None:
        """One progress line from the gateway: ``done`` of ``total`` chunks embedded and stored."""
        self.progress.update(self.chunks, total=max(total, 1), completed=done)

    def file_done(self, chunks_stored: int) -> None:
        self.progress.update(self.chunks, visible=False)
        self.progress.update(self.files, advance=1, unit=f"files, {chunks_stored} chunks stored")
