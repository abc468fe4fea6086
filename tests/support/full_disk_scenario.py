"""A full disk under the real stack, end to end (issue 36, item 4): the scenario and its launcher.

``run_scenario(workdir)`` starts ``python -m tests.support.full_disk_scenario DIR``
inside ``unshare --user --map-root-user --mount`` after mounting a small tmpfs
on ``DIR``, so the disk that fills is the stack's alone and nothing on the
machine runs short. Inside, ``main`` runs the real CLI and stack (``mnemex up
--detach``: supervisor, embedding, memory, kg, gateway) with ``MNEMEX_HOME`` on
that tmpfs and records one ``Fact`` per expectation, in four phases:

``full``
    the disk is filled to the last byte while stops arrive through the hook
    endpoint (each must answer 200 or 507, never another error), and the kg
    service is killed so the supervisor must log, record and restart on a
    full disk; some seconds later the supervisor and every service still run,
    each service a child of that supervisor (no orphan).
``freed``
    the filler is deleted: without any restart (same supervisor, same memory
    and gateway processes) stops are stored again and read back, a kg write
    lands, and the state file is current again.
``down``
    the disk is filled again and kg killed (the state file goes stale);
    ``mnemex down`` stops every process of the home and frees every port.
``leftover``
    space freed, a memory process is left on its port with no supervisor (what
    the reported defect left): ``mnemex down`` finds it and stops it; left
    again, ``mnemex up`` reclaims it and starts; then, with ``run/state.json``
    and the pid file deleted, ``mnemex down`` still stops the whole stack.

The facts come back as JSON lines on stdout (``FACT <json>``).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from kernel.json_values import JSONValue, objects_at, parse_value

ROOT = Path(__file__).resolve().parents[2]
DISK_MB = 64
FACT_PREFIX = "FACT "
STOPS_WHILE_FULL = 8
UP_TIMEOUT = "180"
# One topic per stop: two stops on one topic are near-duplicates, and the second refreshes the first's memory.
TOPICS = (
    "rotate the staging signing key with scripts/rotate_key.sh before the nightly deploy.",
    "the flaky checkout test waits on a mocked clock; pin the timezone to UTC in conftest.",
    "Postgres vacuum stalls because a replication slot is idle; drop slot analytics_old.",
    "the iOS build needs Xcode 15.2; the CI image still ships 15.0, so bump the runner label.",
    "webpack chunk names collide after the rename; set output.chunkFilename with a content hash.",
    "the Helm chart's readiness probe hits /healthz before migrations finish; add an initContainer.",
    "Kafka consumer lag spikes at midnight when the compaction job runs; move it to 03:00.",
    "the Rust crate fails on musl because openssl-sys wants pkg-config; enable the vendored feature.",
    "Terraform plans drift on the S3 bucket ACL; import the ownership controls resource first.",
    "the Go race detector flags the metrics map; guard it with a sync.RWMutex in recorder.go.",
    "Gradle daemon runs out of metaspace on the monorepo; raise org.gradle.jvmargs to 4g.",
    "the React form loses focus on each keystroke because the input key changes; use a stable id.",
    "nginx returns 413 for large uploads; set client_max_body_size 50m in the api server block.",
    "the Celery beat schedule double-fires after deploys; run a single beat with a redis lock.",
    "Django migrations deadlock on the orders table; split the index creation into its own step.",
    "the Redis cache evicts session keys first; switch maxmemory-policy to volatile-lru.",
    "Python wheels for arm64 are missing; add aarch64 to the cibuildwheel archs in pyproject.",
    "the Elasticsearch heap is too small for the reindex; give the data nodes 8 GB and retry.",
    "GitHub Actions cache misses because the key hashes the lockfile path; hash its content.",
    "the cron job uses local time and skips the DST hour; schedule it in UTC instead.",
)


@dataclass(frozen=True)
class Fact:
    phase: str
    name: str
    ok: bool
    detail: str = ""
    lost: int = 0  # acknowledged writes not found afterwards


@dataclass
class ScenarioResult:
    facts: list[Fact] = field(default_factory=list)
    returncode: int = 0
    output: str = ""

    def phase(self, name: str) -> list[Fact]:
        return [f for f in self.facts if f.phase == name]

    def failures(self) -> list[Fact]:
        return [f for f in self.facts if not f.ok or f.lost]


# -- outside: the namespace and the small disk --------------------------------------------------------------------
class NamespaceUnavailable(RuntimeError):
    """``unshare`` or a tmpfs mount in a user namespace is not available here; the message says which."""


def run_scenario(workdir: Path, disk_mb: int = DISK_MB, timeout: float = 900.0) -> ScenarioResult:
    """Run the scenario on a ``disk_mb`` tmpfs mounted on ``workdir/disk`` in a private mount namespace."""
    unshare = shutil.which("unshare")
    if unshare is None:
        raise NamespaceUnavailable("`unshare` (util-linux) is not installed: the full-disk scenario needs it")
    disk = workdir / "disk"
    disk.mkdir(parents=True, exist_ok=True)
    script = (
        f'mount -t tmpfs -o size={disk_mb}m,mode=0700 tmpfs "$1" || exit 97; '
        f'exec "$2" -m tests.support.full_disk_scenario "$1"'
    )
    done = subprocess.run(
        [unshare, "--user", "--map-root-user", "--mount", "sh", "-c", script, "sh", str(disk), sys.executable],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    output = done.stdout + done.stderr
    if done.returncode == 97 or (done.returncode and "unshare:" in done.stderr):
        raise NamespaceUnavailable(f"could not mount a tmpfs in a user namespace: {output.strip()[-500:]}")
    facts = [
        Fact(**json.loads(line[len(FACT_PREFIX) :]))
        for line in done.stdout.splitlines()
        if line.startswith(FACT_PREFIX)
    ]
    return ScenarioResult(facts, done.returncode, output)


# -- inside: the scenario -----------------------------------------------------------------------------------------
def fill(disk: Path) -> Path:
    """Write a filler file until the disk refuses even one byte; returns it."""
    filler = disk / "filler"
    with open(filler, "ab", buffering=0) as handle:
        for chunk in (1 << 20, 65536, 4096, 512, 1):
            with contextlib.suppress(OSError):
                while True:
                    handle.write(b"\0" * chunk)
    return filler


class Scenario:
    def __init__(self, disk: Path) -> None:
        from tests.support.supervisor import stack_env

        self.disk = disk
        self.home = disk / "home"
        self.env = stack_env(self.home)
        self.env.pop("MNEMEX_SUPERVISOR_PID", None)
        self.gateway = "http://" + self.env["MNEMEX_GATEWAY_ADDR"]
        self.cwd = "/srv/full-disk"
        self.serial = 0
        self.acknowledged_stops: list[tuple[str, str]] = []  # (exchange id, answer): 200s before the refill

    # -- recording --------------------------------------------------------------------------------------------
    def fact(self, phase: str, name: str, ok: bool, detail: str = "", lost: int = 0) -> bool:
        line = json.dumps(asdict(Fact(phase, name, bool(ok), detail[:600], lost)))
        print(FACT_PREFIX + line, flush=True)
        return bool(ok)

    # -- the stack from outside -------------------------------------------------------------------------------
    def cli(self, *args: str, timeout: float = 240.0) -> subprocess.CompletedProcess[str]:
        from tests.support.supervisor import cli

        return cli(self.env, *args, timeout=timeout)

    def supervisor_pid(self) -> int | None:
        return self.processes().get("supervisor", (None, 0))[0]

    def processes(self) -> dict[str, tuple[int, int]]:
        """Module ("supervisor", "services.memory", "gateway"...) -> (pid, parent pid) for every live
        process of the home, found by its environment (read here, not through the code under test)."""
        found = {}
        wanted = f"MNEMEX_HOME={self.home}".encode()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
                environ = (entry / "environ").read_bytes().split(b"\0")
                state, parent = (entry / "stat").read_text().rsplit(") ", 1)[1].split()[:2]
            except (OSError, ValueError):
                continue
            if wanted not in environ or state in ("Z", "X") or b"-m" not in argv:
                continue
            module = argv[argv.index(b"-m") + 1 :]
            if module[:1] == [b"mnemex.supervisor"]:
                found["supervisor"] = (int(entry.name), int(parent))
            elif module[:1] == [b"mnemex.supervisor.child"] and len(module) > 1:
                found[module[1].decode()] = (int(entry.name), int(parent))
        return found

    def post(self, path: str, body: Mapping[str, object], timeout: float = 30.0) -> tuple[int, JSONValue]:
        request = urllib.request.Request(
            self.gateway + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as reply:
                status, raw = reply.status, reply.read()
        except urllib.error.HTTPError as exc:
            status, raw = exc.code, exc.read()
        except OSError as exc:
            return 0, f"{type(exc).__name__}: {exc}"
        try:
            return status, parse_value(raw)
        except ValueError:
            return status, raw.decode("utf-8", "replace")

    def stop(self) -> tuple[int, JSONValue, str]:
        """One Stop hook call with a new answer: (status, reply, the answer sent)."""
        self.serial += 1
        topic = TOPICS[(self.serial - 1) % len(TOPICS)]
        answer = f"Answer {self.serial} ({uuid.uuid4().hex[:10]}): {topic}"
        body = {
            "session_id": f"full-disk-{self.serial}",
            "cwd": self.cwd,
            "user_text": f"how do I rotate key {self.serial}?",
            "assistant_text": answer,
        }
        status, reply = self.post("/api/hooks/stop", body)
        return status, reply, answer

    def readable(self, memory_id: str, answer: str) -> bool:
        return self.read_back(memory_id, answer)[0]

    def read_back(self, memory_id: str, answer: str) -> tuple[bool, str]:
        """Whether the memory ``memory_id`` holds ``answer``, and what the search by id answered."""
        status, reply = self.post("/api/search", {"id": memory_id, "cwd": self.cwd})
        memories = list(objects_at(reply, "memories")) if status == 200 and isinstance(reply, dict) else []
        found = any(answer in str(m.get("content", "")) for m in memories)
        return found, f"{status} {str(reply)[:300]}"

    def kg_write(self, number: int) -> tuple[str, int]:
        """One kg RecordAction straight to the service: (status code name, the action's stored total)."""
        import grpc

        from protos.mnemex.common.v1 import common_pb2 as common_pb
        from protos.mnemex.kg.v1 import kg_service_pb2 as pb
        from protos.mnemex.kg.v1 import kg_service_pb2_grpc as pb_grpc
        from tests.support.grpc_token import home_channel

        request = pb.RecordActionRequest(
            scope=common_pb.Scope(user="tester", project="full-disk"),
            context_type="coding",
            action="search_memory",
            collection="patterns",
            outcome=common_pb.OUTCOME_WORKED,
            doc_id=f"full-disk-{number}",
        )
        with home_channel(self.env["MNEMEX_KG_ADDR"], self.home) as channel:
            try:
                reply = pb_grpc.KnowledgeGraphServiceStub(channel).RecordAction(request, timeout=10)
            except grpc.RpcError as exc:
                return exc.code().name, -1
        return "OK", int(reply.total)

    def up(self, phase: str, what: str) -> bool:
        started = time.monotonic()
        done = self.cli("up", "--detach", "--ready-timeout", UP_TIMEOUT, timeout=float(UP_TIMEOUT) + 60)
        said = " ".join((done.stdout + done.stderr).split())
        return self.fact(phase, what, done.returncode == 0, f"{time.monotonic() - started:.0f} s: {said[-400:]}")

    def nothing_left(self, phase: str, what: str) -> bool:
        from mnemex.supervisor.probes import port_accepts

        left = self.processes()
        ports = [
            name
            for name in ("embedding", "memory", "kg", "gateway")
            if port_accepts(self.env[f"MNEMEX_{name.upper()}_ADDR"])
        ]
        return self.fact(phase, what, not left and not ports, f"processes left: {left}; ports still open: {ports}")

    # -- the phases -------------------------------------------------------------------------------------------
    def full(self) -> dict[str, int] | None:
        """Phase ``full``; returns the pids of supervisor and services that ``freed`` must find unchanged."""
        phase = "full"
        if not self.up(phase, "the stack starts on the small disk"):
            return None
        status, reply, answer = self.stop()
        self.fact(phase, "a stop is stored before the disk fills", status == 200, f"{status} {reply}")
        acknowledged: list[tuple[str, str]] = []
        if status == 200 and isinstance(reply, dict):
            acknowledged.append((str(reply.get("exchange_id")), answer))
        before = self.processes()
        supervisor = self.supervisor_pid()
        fill(self.disk)
        for _ in range(STOPS_WHILE_FULL):
            status, reply, answer = self.stop()
            if status == 200 and isinstance(reply, dict):
                acknowledged.append((str(reply.get("exchange_id")), answer))
            ok = status in (200, 507)
            self.fact(phase, "a stop on the full disk answers 200 or 507", ok, f"{status} {str(reply)[:300]}")
        kg_code, _ = self.kg_write(0)
        self.fact(phase, "a kg write on the full disk says the disk is full", kg_code == "RESOURCE_EXHAUSTED", kg_code)
        kg_pid = before.get("services.kg", (0, 0))[0]
        kill(kg_pid)  # the supervisor must now log, record and restart it on a full disk
        time.sleep(8.0)
        after = self.processes()
        self.fact(
            phase,
            "the supervisor still runs seconds later",
            supervisor is not None and after.get("supervisor", (0, 0))[0] == supervisor,
            f"supervisor {supervisor}; found {after}",
        )
        for name in ("services.embedding", "services.memory", "services.kg", "gateway"):
            pid, parent = after.get(name, (0, 0))
            self.fact(
                phase,
                f"{name} runs as the supervisor's child (no orphan)",
                pid > 0 and parent == supervisor,
                f"pid {pid}, parent {parent}, supervisor {supervisor}",
            )
        self.fact(phase, "the killed kg service was restarted", after.get("services.kg", (kg_pid, 0))[0] != kg_pid, "")
        done = self.cli("status", "--json", timeout=60)
        try:
            report = json.loads(done.stdout)
        except ValueError:
            report = {}
        running = report.get("running") and (report.get("supervisor") or {}).get("pid") == supervisor
        self.fact(
            phase, "`mnemex status` on the full disk names the running supervisor", bool(running), done.stdout[-300:]
        )
        self.acknowledged_stops = acknowledged
        return {name: pid for name, (pid, _) in after.items()}

    def freed(self, pids: dict[str, int]) -> None:
        phase = "freed"
        (self.disk / "filler").unlink()
        freed_at = time.monotonic()
        deadline = freed_at + 60
        status, reply, answer = self.stop()
        while status != 200 and time.monotonic() < deadline:
            time.sleep(0.5)
            status, reply, answer = self.stop()
        stored = status == 200 and isinstance(reply, dict)
        after = f"{time.monotonic() - freed_at:.1f} s after the space was freed"
        self.fact(phase, "a stop is stored again once space is freed", stored, f"{after}: {status} {str(reply)[:300]}")
        if stored and isinstance(reply, dict):
            self.fact(phase, "the stored answer reads back", self.readable(str(reply["exchange_id"]), answer), answer)
        for _ in range(3):
            status, reply, answer = self.stop()
            ok = status == 200 and isinstance(reply, dict) and self.readable(str(reply["exchange_id"]), answer)
            self.fact(phase, "the next stops are stored and read back", ok, f"{status} {str(reply)[:200]}")
        reads = {memory_id: self.read_back(memory_id, text) for memory_id, text in self.acknowledged_stops}
        lost = [f"{memory_id} ({why})" for memory_id, (found, why) in reads.items() if not found]
        self.fact(
            phase,
            "every stop acknowledged before and on the full disk is readable",
            not lost,
            f"{len(self.acknowledged_stops)} acknowledged; not found: {lost}",
            lost=len(lost),
        )
        deadline = time.monotonic() + 30
        code, total = self.kg_write(1)
        while code != "OK" and time.monotonic() < deadline:
            time.sleep(1.0)
            code, total = self.kg_write(1)
        self.fact(phase, "a kg write lands again", code == "OK" and total >= 1, f"{code}, total {total}")
        now = self.processes()
        for name in ("supervisor", "services.memory", "services.embedding", "gateway"):
            same = now.get(name, (0, 0))[0] == pids.get(name)
            self.fact(phase, f"{name} was not restarted", same, f"before {pids.get(name)}, now {now.get(name)}")
        supervisor = pids.get("supervisor")
        kg_now = now.get("services.kg", (0, 0))[0]

        def state_current() -> bool:
            from kernel.json_values import object_at
            from tests.support.supervisor import state

            recorded = state(self.home)
            kg = object_at(object_at(recorded, "services"), "kg")
            return object_at(recorded, "supervisor").get("pid") == supervisor and kg.get("pid") == kg_now

        deadline = time.monotonic() + 15
        while not state_current() and time.monotonic() < deadline:
            time.sleep(0.5)
        self.fact(phase, "the state file is current again", state_current(), f"kg pid {kg_now}")

    def down_after_full(self) -> None:
        phase = "down"
        fill(self.disk)
        kg_pid = self.processes().get("services.kg", (0, 0))[0]
        kill(kg_pid)
        time.sleep(2.0)
        started = time.monotonic()
        done = self.cli("down", timeout=120)
        said = f"{time.monotonic() - started:.1f} s: " + " ".join((done.stdout + done.stderr).split())
        self.fact(phase, "`mnemex down` on the full disk succeeds", done.returncode == 0, said[-400:])
        self.nothing_left(phase, "no process of the home and no port left after `mnemex down`")
        (self.disk / "filler").unlink()

    def leave_memory_behind(self) -> int:
        """A memory process of this home on its port with no supervisor, as a supervisor that died leaves it.

        Started the way the supervisor starts one (``mnemex.supervisor.child``), in its own session and
        without the supervisor's pid or lifeline, so nothing stops it. Returns its pid once it serves.
        """
        from mnemex.supervisor.probes import port_accepts
        from mnemex.supervisor.specs import child_env

        env = {**self.env, "MNEMEX_SUPERVISOR_PID": "", "MNEMEX_SUPERVISOR_LIFELINE": ""}
        from kernel.config import Settings

        env = child_env(Settings.from_env(env), env)
        stray = subprocess.Popen(
            [sys.executable, "-m", "mnemex.supervisor.child", "services.memory"],
            env=env,
            cwd=self.home,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while not port_accepts(self.env["MNEMEX_MEMORY_ADDR"]) and time.monotonic() < deadline:
            time.sleep(0.2)
        return stray.pid

    def leftover(self) -> None:
        phase = "leftover"
        memory = self.leave_memory_behind()
        self.fact(phase, "a memory process is left on its port with no supervisor", alive(memory), f"pid {memory}")
        done = self.cli("down", timeout=120)
        said = " ".join((done.stdout + done.stderr).split())
        named = done.returncode == 0 and "services.memory" in said and str(memory) in said
        self.fact(phase, "`mnemex down` names and stops the left-behind process", named, said)
        self.nothing_left(phase, "no process of the home and no port left")

        memory = self.leave_memory_behind()
        if self.up(phase, "`mnemex up` with a memory process left behind reclaims it and starts"):
            self.fact(phase, "the left-behind memory process is gone", not alive(memory), f"pid {memory}")
            for name in ("state.json", "supervisor.pid"):
                with contextlib.suppress(FileNotFoundError):
                    (self.home / "run" / name).unlink()
            done = self.cli("down", timeout=120)
            said = " ".join((done.stdout + done.stderr).split())
            self.fact(phase, "`mnemex down` with run/state.json and the pid file gone", done.returncode == 0, said)
            self.nothing_left(phase, "no process of the home and no port left after it")

    def cleanup(self) -> None:
        """SIGKILL whatever of the home is still running (a failed run must not leave a stack behind)."""
        for pid, _ in self.processes().values():
            kill(pid)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    scenario = Scenario(Path(args[0]))
    try:
        pids = scenario.full()
        if pids is not None:
            scenario.freed(pids)
            scenario.down_after_full()
            scenario.leftover()
    except Exception as exc:  # a scenario that breaks is a failed fact, with what broke it
        scenario.fact("scenario", "the scenario ran to the end", False, f"{type(exc).__name__}: {exc}")
        raise
    finally:
        tails = log_tails(scenario.home)
        scenario.cleanup()
        print(tails, file=sys.stderr)
    return 0


def kill(pid: int) -> None:
    """SIGKILL one process; a pid not found (0) is skipped, never sent to (0 would be our own group)."""
    if pid > 1:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1][:1]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def log_tails(home: Path, chars: int = 1500) -> str:
    parts = []
    for log in sorted((home / "logs").glob("*.log")):
        with contextlib.suppress(OSError):
            parts.append(f"--- {log.name}\n{log.read_text(errors='replace')[-chars:]}")
    return "\n".join(parts)


if __name__ == "__main__":
    sys.exit(main())
