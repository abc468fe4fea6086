"""``kernel.service_main``: the one start-to-exit path of every gRPC service (``python -m services.<name>``)."""

from __future__ import annotations

import asyncio
import os
import signal
from dataclasses import dataclass

import pytest

from kernel import logs, offline, service_main
from kernel.config import ConfigError
from kernel.grpc_hosting import RunningService, start_service


@dataclass(frozen=True)
class Settings:
    address: str
    token: str | None = None


class Core:
    closed = False

    def close(self) -> None:
        self.closed = True


def test_a_bad_setting_exits_2_before_the_server_is_created(monkeypatch: pytest.MonkeyPatch) -> None:
    created: list[Settings] = []

    def broken() -> Settings:
        raise ConfigError("MNEMEX_X_ADDR='nowhere': use host:port")

    async def create(settings: Settings) -> RunningService[Core]:
        created.append(settings)
        raise AssertionError("not reached")

    monkeypatch.setattr(logs, "configure", lambda: None)
    with pytest.raises(SystemExit) as exited:
        service_main.run_service(broken, create, lambda s, r: None, env_name="MNEMEX_X_ADDR", what="x service")
    assert exited.value.code == 2 and created == []


def test_the_service_starts_reports_and_stops_cleanly_on_sigterm(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in offline.OFFLINE_ENV:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setattr(logs, "configure", lambda: None)
    started: list[int] = []
    core = Core()

    async def create(settings: Settings) -> RunningService[Core]:
        return await start_service(settings, core, register=lambda server: None, service_names=[], errors={}, what="x")

    def on_started(settings: Settings, running: RunningService[Core]) -> None:
        started.append(running.port)
        asyncio.get_running_loop().call_soon(os.kill, os.getpid(), signal.SIGTERM)

    service_main.run_service(
        lambda: Settings("127.0.0.1:0"), create, on_started, env_name="MNEMEX_X_ADDR", what="x service"
    )
    assert len(started) == 1 and started[0] > 0
    assert core.closed  # stopped gracefully: the composition object was closed
    assert all(os.environ[key] == value for key, value in offline.OFFLINE_ENV.items())


def test_one_blas_thread_unless_the_user_chose_a_number(monkeypatch: pytest.MonkeyPatch) -> None:
    limits: list[int] = []
    monkeypatch.setattr("threadpoolctl.threadpool_limits", lambda n, user_api: limits.append(n))
    monkeypatch.delenv(service_main.BLAS_THREADS_ENV, raising=False)
    service_main.limit_blas_threads()
    assert os.environ[service_main.BLAS_THREADS_ENV] == "1" and limits == [1]

    monkeypatch.setenv(service_main.BLAS_THREADS_ENV, "4")
    service_main.limit_blas_threads()
    assert os.environ[service_main.BLAS_THREADS_ENV] == "4" and limits == [1]
