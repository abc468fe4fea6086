"""The modules of one package that a call passes through, in order.

``CallTrace`` installs a profile function (``sys.setprofile``) on the thread that
runs the traced coroutine and records every Python function entered in the
package: which module, which function, and which module of the package called it
(the nearest frame of the package up the stack, skipping library and asyncio
frames). A coroutine resumed by the event loop counts as entered again, as it
does for the interpreter.

From the entries: the modules touched, how many times the call came back to a
module it had already left (``revisits``), and every call that went from a lower
layer to a higher one (``upward_calls``).
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Entry:
    module: str  # path relative to the package, e.g. "api/prepare_context.py"
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

    def _profile(self, frame: FrameType, event: str, _arg: Any) -> None:
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

    def revisits(self) -> int:
        """Entries into a module the call had already left for another one."""
        seen: set[str] = set()
        count = 0
        previous = None
        for entry in self.entries:
            if entry.module != previous and entry.module in seen:
                count += 1
            seen.add(entry.module)
            previous = entry.module
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
        return [e for e in self.entries if e.caller is not None and rank(e.caller) < rank(e.module)]


def first_component(module: str) -> str:
    return module.split("/", 1)[0] if "/" in module else module


def print_summary(trace: CallTrace, out: Any = sys.stdout) -> None:
    print(f"{len(trace.modules())} modules, {trace.revisits()} revisits, {len(trace.entries)} entries", file=out)
    for module in trace.modules():
        print(f"  {module}", file=out)
