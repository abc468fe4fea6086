"""Pure parts of the supervisor: restart policy, state file, lock, specs and env."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernel.config import Settings
from mnemex.supervisor.backoff import RestartPolicy
from mnemex.supervisor.specs import child_env, stack_specs
from mnemex.supervisor.state import (
    RunPaths,
    ServiceState,
    SupervisorLock,
    SupervisorState,
    describe_exit,
    lock_is_held,
    read_state,
    running_supervisor_pid,
    write_state,
)
from tests.support.json_read import json_at


def test_backoff_doubles_from_half_a_second_to_thirty() -> None:
    policy = RestartPolicy()
    assert [policy.delay(n) for n in range(1, 9)] == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]


def test_crash_streak_resets_after_a_long_healthy_run() -> None:
    policy = RestartPolicy(reset_after=60.0)
    assert policy.streak_after_crash(3, healthy_for=5.0) == 4
    assert policy.streak_after_crash(3, healthy_for=None) == 4
    assert policy.streak_after_crash(6, healthy_for=61.0) == 1


def test_state_file_round_trips_and_records_crashes(tmp_path: Path) -> None:
    paths = RunPaths(tmp_path)
    service = ServiceState(address="127.0.0.1:1", log="x.log", pid=42, status="healthy")
    service.update_exit(-9)
    write_state(paths, SupervisorState(pid=7, home=str(tmp_path), gateway_url="http://h"), {"memory": service})
    data = read_state(paths)
    assert data is not None
    assert json_at(data, "supervisor", "pid") == 7
    assert json_at(data, "services", "memory") == {
        "address": "127.0.0.1:1",
        "log": "x.log",
        "pid": None,
        "status": "backoff",
        "restarts": 0,
        "last_exit": -9,
        "started_at": None,
        "ready_seconds": None,
        "problem": None,
    }
    assert not list(paths.run_dir.glob(".state.*"))  # the temp file was renamed away


def test_exit_descriptions() -> None:
    assert describe_exit(-9) == "killed by SIGKILL"
    assert describe_exit(3) == "exit code 3"


def test_lock_excludes_a_second_supervisor_and_pid_file_follows_it(tmp_path: Path) -> None:
    paths = RunPaths(tmp_path)
    first, second = SupervisorLock(paths), SupervisorLock(paths)
    assert not lock_is_held(paths)
    assert first.acquire()
    assert lock_is_held(paths)
    assert running_supervisor_pid(paths) == os.getpid()
    assert not second.acquire(attempts=2)
    first.release()
    assert not lock_is_held(paths)
    assert running_supervisor_pid(paths) is None
    assert second.acquire()
    second.release()


def test_specs_take_addresses_from_settings_and_reject_unknown_names(tmp_path: Path) -> None:
    settings = Settings.from_env(
        {"MNEMEX_HOME": str(tmp_path), "MNEMEX_KG_ADDR": "127.0.0.1:40003", "MNEMEX_GATEWAY_PORT": "40000"}
    )
    specs = stack_specs(settings)
    assert [(s.name, s.module, s.kind) for s in specs] == [
        ("embedding", "services.embedding", "grpc"),
        ("memory", "services.memory", "grpc"),
        ("kg", "services.kg", "grpc"),
        ("gateway", "gateway", "http"),
    ]
    assert specs[2].address == "127.0.0.1:40003" and specs[3].address == "127.0.0.1:40000"
    assert specs[0].command("py")[:4] == ["py", "-m", "mnemex.supervisor.child", "services.embedding"]
    assert [s.name for s in stack_specs(settings, ["gateway", "embedding"])] == ["embedding", "gateway"]
    with pytest.raises(ValueError, match="unknown service 'db'"):
        stack_specs(settings, ["db"])


def test_child_env_resolves_every_address_and_goes_offline(tmp_path: Path) -> None:
    settings = Settings.from_env({"MNEMEX_HOME": str(tmp_path), "MNEMEX_GATEWAY_PORT": "40000"})
    env = child_env(settings, {"PATH": "/bin", "MNEMEX_GATEWAY_PORT": "40000", "HF_HUB_OFFLINE": "0"})
    assert env["MNEMEX_GATEWAY_ADDR"] == "127.0.0.1:40000" and "MNEMEX_GATEWAY_PORT" not in env
    assert env["MNEMEX_EMBEDDING_ADDR"] == settings.embedding_addr and env["MNEMEX_HOME"] == str(tmp_path)
    assert env["TRANSFORMERS_OFFLINE"] == "1" and env["HF_HUB_OFFLINE"] == "0"  # explicit user choice wins
    assert json.dumps(env)  # plain strings only
    assert child_env(settings, {"MALLOC_PERTURB_": "7"})["MALLOC_PERTURB_"] == "7"  # a user's own value wins


# A buffer holding a secret is freed, and a block of the same size is taken again without being written: what a
# native library does before writing an allocation to disk that it never filled.
STALE_HEAP_PROBE = """
import ctypes
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
first = libc.malloc(4096)
ctypes.memmove(first, b"ghp_SECRET" * 400, 4000)
libc.free(first)
again = libc.malloc(4096)
print(b"ghp_SECRET" in ctypes.string_at(again, 4000))
"""


def test_a_child_never_finds_freed_data_in_new_heap_blocks(tmp_path: Path) -> None:
    settings = Settings.from_env({"MNEMEX_HOME": str(tmp_path)})
    env = child_env(settings, {"PATH": os.environ.get("PATH", "/bin")})

    def stale(environment: dict[str, str]) -> str:
        probe = [sys.executable, "-c", STALE_HEAP_PROBE]
        return subprocess.run(probe, env=environment, capture_output=True, text=True, check=True).stdout.strip()

    assert stale({k: v for k, v in env.items() if k != "MALLOC_PERTURB_"}) == "True"  # the probe sees old data
    assert stale(env) == "False"  # a supervised service does not


def test_non_loopback_binds_are_refused_before_anything_starts(tmp_path: Path) -> None:
    from mnemex.supervisor.launch import bind_refusals

    exposed = Settings.from_env({"MNEMEX_HOME": str(tmp_path), "MNEMEX_GATEWAY_ADDR": "0.0.0.0:40000"})
    refusals = bind_refusals(stack_specs(exposed), token=None)
    assert len(refusals) == 1 and "refusing to bind the gateway to 0.0.0.0" in refusals[0]
    assert "MNEMEX_TOKEN" in refusals[0]
    assert bind_refusals(stack_specs(exposed), token="long-random-secret-Qx7Zp2Lk") == []
    assert bind_refusals(stack_specs(Settings.from_env({"MNEMEX_HOME": str(tmp_path)})), token=None) == []
