"""The modules of one package that a call passes through, in order.

``CallTrace`` installs a profile function (``sys.setprofile``) on the thread that
runs the traced coroutine and records every Python function entered in the
package: which module, which function, and which module of the package called it
(the nearest frame of the package up the stack, skipping library and asyncio
frames). A coroutine resumed by the event loop counts as entered again, as it
does for the interpreter.

From the entries: the modules touched, how many times the call came back to a
module it had already left (``revisits``), which modules each module called
(``calls``), and every call that went from a lower layer to a higher one
(``layer_violations``, a plain function of the entries, so a test can feed it a
made-up trace and see it fail).
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TextIO, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Entry:
    module: str  # path relative to the package, e.g. "usecases/prepare_context.py"
    function: str
    caller: str | None  # the calling module of the package, None for an entry from outside


@dataclass
class CallTrace:
    package: Path
    entries: list[Entry] = field(default_factory=list)

    def _relative(self, filename: str) -> str | None:
        try:
            return Path(filename).resolve().relative_to(self.package).as_posix()
        except ValueError:
            return None

    def _profile(self, frame: FrameType, event: str, _arg: object) -> None:
        if event != "call":
            return
        module = self._relative(frame.f_code.co_filename)
        if module is None:
            return
        caller_frame = frame.f_back
        caller = None
        while caller_frame is not None:
            caller = self._relative(caller_frame.f_code.co_filename)
            if caller is not None:
                break
            caller_frame = caller_frame.f_back
        self.entries.append(Entry(module, frame.f_code.co_name, caller))

    async def run(self, call: Callable[[], Awaitable[T]]) -> T:
        """Await ``call()`` with the profile function installed on this (the event loop's) thread."""
        self.package = self.package.resolve()
        previous = sys.getprofile()
        sys.setprofile(self._profile)
        try:
            return await call()
        finally:
            sys.setprofile(previous)

    # -- what the entries say ---------------------------------------------------------------
    def modules(self) -> list[str]:
        """Every module entered, in order of first entry."""
        return list(dict.fromkeys(e.module for e in self.entries))

    def revisits(self, part_of: Callable[[str], str] = lambda module: module) -> int:
        """Entries into a module (or, with ``part_of``, a layer) the call had already left for another one."""
        seen: set[str] = set()
        count = 0
        previous = None
        for entry in self.entries:
            part = part_of(entry.module)
            if part != previous and part in seen:
                count += 1
            seen.add(part)
            previous = part
        return count

    def layer_walk(self, layer_of: Callable[[str], str]) -> list[str]:
        """The layers entered, consecutive repeats collapsed."""
        walk: list[str] = []
        for entry in self.entries:
            layer = layer_of(entry.module)
            if not walk or walk[-1] != layer:
                walk.append(layer)
        return walk

    def upward_calls(self, rank: Callable[[str], int]) -> list[Entry]:
        """Entries whose caller sits in a lower layer than the callee (``rank``: higher is upper)."""
        return upward_calls(self.entries, rank)

    def calls(self) -> dict[str, list[str]]:
        """Each calling module (in order of its first call) -> the other modules it called, in order."""
        found: dict[str, dict[str, None]] = {}
        for entry in self.entries:
            if entry.caller is not None and entry.caller != entry.module:
                found.setdefault(entry.caller, {})[entry.module] = None
        return {caller: list(callees) for caller, callees in found.items()}


def upward_calls(entries: Iterable[Entry], rank: Callable[[str], int]) -> list[Entry]:
    """Entries whose caller sits in a lower layer than the callee (``rank``: higher is upper)."""
    return [e for e in entries if e.caller is not None and rank(e.caller) < rank(e.module)]


def layer_violations(entries: Iterable[Entry], rank: Callable[[str], int]) -> list[str]:
    """``caller -> module:function`` for every call up the layers: storage into retrieval, use cases or
    transport; retrieval into use cases or transport; domain into anything above it; and so on."""
    return [f"{e.caller} -> {e.module}:{e.function}" for e in upward_calls(entries, rank)]


def first_component(module: str) -> str:
    return module.split("/", 1)[0] if "/" in module else module


def print_summary(trace: CallTrace, title: str = "trace", out: TextIO = sys.stdout) -> None:
    """The counts, then each module and the modules it called."""
    print(
        f"{title}: {len(trace.modules())} modules, {len(trace.entries)} function entries, "
        f"{trace.revisits()} returns into a module already left, "
        f"{trace.revisits(first_component)} into a layer already left",
        file=out,
    )
    calls = trace.calls()
    for module in trace.modules():
        callees = calls.get(module, [])
        print(f"  {module}" + (f" -> {', '.join(callees)}" if callees else ""), file=out)
