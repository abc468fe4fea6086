"""The in-process stack outside pytest (for ``python -m tests.reliability.fuzz_api``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.reliability import inproc
from tests.support.loop_thread import LoopThread


@dataclass
class Standalone:
    stack: inproc.InprocStack
    loop_thread: LoopThread
    embedding_stop: Callable[[], None]

    @property
    def gateway(self) -> inproc.Gateway:
        return self.stack.gateway

    def stop(self) -> None:
        self.stack.stop()
        self.embedding_stop()
        self.loop_thread.close()


def start_standalone(home: Path, users: tuple[str, ...] = ("tester",)) -> Standalone:
    from services.embedding.embedding_servicer import create_server
    from services.embedding.model import load_encoder
    from services.embedding.settings import EmbeddingSettings
    from tests.support.loop_thread import LoopThread

    loop_thread = LoopThread()
    encoder = load_encoder()
    settings = EmbeddingSettings(address="127.0.0.1:0", model_path=None, device="cpu", backend="auto")
    embedding = loop_thread.run(create_server(settings, encoder=encoder))

    def stop_embedding() -> None:
        loop_thread.run(embedding.stop(0))

    stack = inproc.start(loop_thread, f"127.0.0.1:{embedding.port}", home, users=users)
    return Standalone(stack, loop_thread, stop_embedding)
