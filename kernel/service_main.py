"""The entry point every mnemex gRPC service shares: ``python -m services.<name>`` → ``run_service``.

A service's ``main()`` names its settings loader, its ``create_server`` and
the line it logs once it listens; ``run_service`` does the rest, the same way
for each:

    def main() -> None:
        run_service(
            KgSettings.from_env, create_server, log_started,
            env_name="MNEMEX_KG_ADDR", what="kg service", one_blas_thread=True,
        )

1. the offline defaults (``kernel.offline``: nothing downloads, nothing phones home);
2. numpy's BLAS on one thread, for a service that asks (``one_blas_thread``);
3. mnemex's log format (``kernel.logs``);
4. the settings, checked before any heavy start-up work (a bad one exits 2 with one line);
5. ``create_server``, the started line, then serve until SIGTERM/SIGINT and stop gracefully
   (``kernel.grpc_hosting.serve_until_signal``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import TypeVar

from kernel import logs, offline
from kernel.config import service_settings_or_exit
from kernel.grpc_hosting import Closeable, RunningService, ServiceSettings, serve_until_signal

BLAS_THREADS_ENV = "OPENBLAS_NUM_THREADS"

S = TypeVar("S", bound=ServiceSettings)
C = TypeVar("C", bound=Closeable)


def limit_blas_threads() -> None:
    """One BLAS thread in this process, unless ``OPENBLAS_NUM_THREADS`` says otherwise.

    A service's numpy work is small matrix-vector products (the known-problem
    match, the search mirrors), one per request; a pool of BLAS threads only
    slows them down on a busy machine, and the service gets its parallelism
    from concurrent requests. The variable is set for what loads BLAS later
    (child processes); ``threadpoolctl`` applies it to the BLAS numpy already
    loaded.
    """
    if BLAS_THREADS_ENV in os.environ:
        return
    os.environ[BLAS_THREADS_ENV] = "1"
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")


async def serve(
    settings: S,
    create_server: Callable[[S], Awaitable[RunningService[C]]],
    on_started: Callable[[S, RunningService[C]], None],
) -> None:
    """Start the service, report it, and serve until SIGTERM/SIGINT; then stop gracefully."""
    running = await create_server(settings)
    on_started(settings, running)
    await serve_until_signal(running)


def run_service(
    load_settings: Callable[[], S],
    create_server: Callable[[S], Awaitable[RunningService[C]]],
    on_started: Callable[[S, RunningService[C]], None],
    *,
    env_name: str,
    what: str,
    one_blas_thread: bool = False,
) -> None:
    """A service process from start to exit (the numbered steps in this module's docstring).

    ``env_name`` is the variable that sets the bind address and ``what`` names
    the service in a configuration error ("mnemex kg service: ...").
    """
    offline.apply()
    if one_blas_thread:
        limit_blas_threads()
    logs.configure()
    settings = service_settings_or_exit(load_settings, lambda s: s.address, env_name, what)
    asyncio.run(serve(settings, create_server, on_started))
