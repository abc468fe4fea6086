"""What the client scenarios share: the conversation they run, waiting for its exchanges, a gateway that never answers.

Plain helpers for the e2e test modules (test modules do not import one another).
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager

from tests.support.e2e_user import User

FACT = "The shop service deploys with helm upgrade --atomic into the blue cluster"
PROMPTS = (
    "How do we deploy the shop service?",
    "Thanks, that worked. Any rollback advice?",
    "And the staging cluster?",
)


def wait_for_exchange(user: User, prompt: str, timeout: float = 15.0) -> None:
    """The Stop hook stores the exchange; the next turn's scoring prompt needs it stored first."""
    deadline = time.monotonic() + timeout
    while not any(prompt in e.content for e in user.exchanges()):
        assert time.monotonic() < deadline, f"the exchange of {prompt!r} was never stored"
        time.sleep(0.2)


@contextmanager
def hanging_port() -> Iterator[int]:
    """A port whose connections the kernel accepts and nobody ever reads or answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        yield int(sock.getsockname()[1])
