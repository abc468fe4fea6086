"""Once the embedding service answers: record its model for the stored vectors, or name a switch.

A home that does not say which model made its vectors (a fresh one, or one from before the
record) takes the model the embedding service reports. A home that names another model
gets one error in the log with the command that fixes it (``kernel.vector_model``); the
service keeps serving, since the memories are still there and text search still finds them.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Protocol, runtime_checkable

from kernel import vector_model
from kernel.vector_model import VectorModel

log = logging.getLogger("mnemex.memory")
ASK_EVERY_S = 2.0
ASK_TIMES = 90  # the embedding service may still be loading its model


class ServedModel(Protocol):
    """What the watch reads of the embedding service's ``InfoResponse``."""

    @property
    def model_id(self) -> str: ...

    @property
    def dimension(self) -> int: ...


@runtime_checkable
class ModelInfo(Protocol):
    async def info(self, timeout: float | None = None) -> ServedModel:
        """The model the embedding service serves (its InfoResponse)."""


async def watch_vector_model(
    home: Path, info: ModelInfo, *, times: int = ASK_TIMES, every_s: float = ASK_EVERY_S
) -> str | None:
    """The switch problem, or None (recorded, the same model, or no answer at all)."""
    for attempt in range(times):
        try:
            reply = await info.info(timeout=5.0)
            break
        except Exception:
            if attempt + 1 < times:
                await asyncio.sleep(every_s)
    else:
        log.warning("the embedding service never answered; the model of the stored vectors is not checked")
        return None
    serving = VectorModel(str(reply.model_id), int(reply.dimension))
    record = await asyncio.to_thread(vector_model.read_record, home)
    if record is None or record.model is None:
        await asyncio.to_thread(vector_model.write_record, home, serving)
        log.info("recorded %s as the model of the stored vectors", serving)
        return None
    problem = vector_model.switch_problem(home, record.model, serving)
    if problem is not None:
        log.error("%s", problem)
    return problem
