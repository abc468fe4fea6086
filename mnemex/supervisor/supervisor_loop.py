"""The supervisor loop: start children, watch health, restart crashes, stop cleanly.

One ``Supervisor`` owns one child process per ``ServiceSpec``. ``poll_once``
is the whole state machine and is driven by ``wait_ready`` (start-up) and
``run`` (steady state); both sleep on an event that ``request_stop`` (the
signal handlers) sets, so Ctrl-C and SIGTERM act at once.

A full disk never ends supervision (issue 36): a state file, a log line or a
report that cannot be written is skipped, said once, and written again on the
next pass once space returns; a child that cannot be started is retried with
backoff like one that crashed. Children also watch the supervisor through a
pipe (``mnemex.supervisor.child``), so none outlives it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from mnemex.supervisor.backoff import RestartPolicy
from mnemex.supervisor.child import LIFELINE_ENV, PARENT_ENV
from mnemex.supervisor.child_logs import crash_reason, open_log, rotate
from mnemex.supervisor.probes import Prober
from mnemex.supervisor.specs import ServiceSpec
from mnemex.supervisor.state import RunPaths, ServiceState, SupervisorState, describe_exit, now_iso, write_state

Report = Callable[[str], None]
STALE_STATE_RETRY = 2.0  # seconds between attempts to write a state file a full disk refused


def quiet(report: Report) -> Report:
    """``report`` that drops a line it cannot write (its log is on a full disk) instead of raising."""

    def say(message: str) -> None:
        with contextlib.suppress(OSError, ValueError):  # ValueError: the stream was closed
            report(message)

    return say


@dataclass
class Managed:
    """Book-keeping for one supervised child."""

    spec: ServiceSpec
    state: ServiceState
    proc: subprocess.Popen[bytes] | None = None
    streak: int = 0  # consecutive crashes (reset after a long healthy run)
    ever_healthy: bool = False
    healthy_since: float | None = None
    next_start: float | None = None
    next_probe: float = 0.0
    failing_since: float | None = None
    spawned_at: float = 0.0
    exits: list[int] = field(default_factory=list)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


@dataclass(frozen=True)
class Timing:
    tick_starting: float = 0.1  # loop period while something starts or waits to restart
    # Health probe period for healthy services. In steady state the loop sleeps until the next
    # probe is due: an exit wakes it at once (a watcher thread per child), so a crash is still
    # seen immediately; probes only catch a live process that stopped answering (killed after
    # hang_timeout), and an idle stack costs one probe round per period.
    probe_interval: float = 30.0
    hang_timeout: float = 60.0  # failing probes for this long on a live process -> kill it
    startup_crash_limit: int = 3  # crashes before ever being healthy -> give up at start-up
    stop_grace: float = 10.0


class Supervisor:
    def __init__(
        self,
        specs: Sequence[ServiceSpec],
        supervisor_state: SupervisorState,
        paths: RunPaths,
        env: Mapping[str, str],
        *,
        policy: RestartPolicy = RestartPolicy(),
        timing: Timing = Timing(),
        report: Report = lambda message: None,
    ) -> None:
        self.paths = paths
        self.info = supervisor_state
        self.policy = policy
        self.timing = timing
        self._env = dict(env)
        self._report = quiet(report)
        self._prober = Prober()
        self._wake = threading.Event()
        self._stopping = False
        self._state_unwritten: str | None = None  # why the last state file write failed, until one succeeds
        self._lifeline: tuple[int, int] | None = None  # (read, write) pipe ends: the children's watch on us
        self.children = {
            spec.name: Managed(spec, ServiceState(address=spec.address, log=str(paths.log_file(spec.name))))
            for spec in specs
        }

    # -- lifecycle -------------------------------------------------------
    def start(self) -> None:
        with contextlib.suppress(OSError):  # an existing home on a full disk already has both folders
            self.paths.ensure()
        self._lifeline = os.pipe()  # both ends close-on-exec: only the read end is passed, to the children
        for child in self.children.values():
            self._spawn(child)
        self.save()

    def request_stop(self) -> None:
        self._stopping = True
        self._wake.set()

    @property
    def stopping(self) -> bool:
        return self._stopping

    def all_healthy(self) -> bool:
        return all(child.state.status == "healthy" for child in self.children.values())

    def broken(self) -> list[Managed]:
        """Children that will not serve by waiting: failed at start-up, or up but naming a broken store."""
        return [c for c in self.children.values() if c.state.status in ("failed", "unhealthy") and c.state.problem]

    def wait_ready(self, timeout: float) -> str | None:
        """Drive start-up until every child is healthy or known broken (``broken()``).

        None when that happened (the healthy ones serve; the caller reports the broken
        ones), else why not. One service's broken store never keeps the others down.
        """
        deadline = time.monotonic() + timeout
        while not self._stopping:
            self.poll_once()
            broken = self.broken()
            if all(c.state.status == "healthy" or c in broken for c in self.children.values()):
                if len(broken) == len(self.children):
                    return "no service could start: " + "; ".join(describe_broken(c) for c in broken)
                return None
            if time.monotonic() >= deadline:
                waiting = [c.spec.name for c in self.children.values() if c.state.status != "healthy"]
                return f"not healthy after {timeout:.0f} s: {', '.join(waiting)}"
            self._sleep(self.timing.tick_starting)
        return "stopped before the stack was ready"

    def run(self) -> None:
        """Supervise until ``request_stop``.

        An ``OSError`` in one pass (a full disk, a descriptor limit) is reported and the next pass
        runs: the supervisor ends only when asked to, so its children never lose their watch.
        """
        while not self._stopping:
            self._wake.clear()  # before polling: an exit during the poll leaves it set, and is handled next
            try:
                self.poll_once()
            except OSError as exc:
                self._report(f"supervision pass failed ({exc}); trying again")
                self._sleep(STALE_STATE_RETRY)
                continue
            if self._stopping:
                break
            busy = any(c.state.status in ("starting", "backoff") for c in self.children.values())
            pause = self.timing.tick_starting if busy else self._until_due()
            if self._state_unwritten is not None:
                pause = min(pause, STALE_STATE_RETRY)
            self._sleep(pause)

    def _until_due(self) -> float:
        """Seconds until the next probe or restart is due, at most one probe period."""
        now = time.monotonic()
        due = [c.next_probe for c in self.children.values() if c.alive]
        due += [c.next_start for c in self.children.values() if c.next_start is not None]
        return max(0.0, min([now + self.timing.probe_interval, *due]) - now)

    def stop(self) -> None:
        """SIGTERM every child (gateway first), wait, SIGKILL stragglers.

        Nothing here raises on a full disk (``save`` and the reports skip what they cannot write),
        so every child is signalled whatever the disk holds.
        """
        self._stopping = True
        self.info.status = "stopping"
        self.save()
        live = [c for c in reversed(list(self.children.values())) if c.alive]
        for child in live:
            self._signal(child, signal.SIGTERM)
        began = time.monotonic()
        deadline = began + self.timing.stop_grace
        for child in live:
            assert child.proc is not None
            try:
                child.proc.wait(max(0.0, deadline - time.monotonic()))
                if time.monotonic() - began > 2.0:
                    self._report(f"{child.spec.name} took {time.monotonic() - began:.1f} s to stop")
            except subprocess.TimeoutExpired:
                self._report(f"{child.spec.name} did not stop within {self.timing.stop_grace:.0f} s; killing it")
                self._signal(child, signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    child.proc.wait(5)
        for child in self.children.values():
            child.state.status = "stopped"
            child.state.pid = None
        self.info.status = "stopped"
        self.save()
        self._prober.close()
        if self._lifeline is not None:
            for end in self._lifeline:
                with contextlib.suppress(OSError):
                    os.close(end)
            self._lifeline = None

    # -- the state machine ----------------------------------------------
    def poll_once(self) -> None:
        now = time.monotonic()
        changed = False
        for child in self.children.values():
            rotate(child.state.log)  # while it runs, not only at its next start
        for child in self.children.values():
            changed |= self._check_exit(child, now)
            changed |= self._maybe_restart(child, now)
            changed |= self._check_health(child, now)
        if self.all_healthy() and self.info.status in ("starting", "degraded"):
            self.info.status = "running"
            changed = True
        if changed or self._state_unwritten is not None:
            self.save()

    def _check_exit(self, child: Managed, now: float) -> bool:
        if child.proc is None or child.proc.poll() is None or self._stopping:
            return False
        code = int(child.proc.returncode)
        healthy_for = None if child.healthy_since is None else now - child.healthy_since
        child.proc = None
        child.exits.append(code)
        child.streak = self.policy.streak_after_crash(child.streak, healthy_for)
        child.healthy_since = child.failing_since = None
        child.state.update_exit(code)
        child.state.problem = crash_reason(child.state.log) or f"exited ({describe_exit(code)})"
        if not child.ever_healthy and child.streak >= self.timing.startup_crash_limit:
            child.next_start = None
            child.state.status = "failed"
            self._report(f"{child.spec.name} did not start and will not be restarted: {describe_broken(child)}")
            return True
        delay = self.policy.delay(child.streak)
        child.next_start = now + delay
        self._report(f"{child.spec.name} exited ({describe_exit(code)}); restarting in {delay:.1f} s")
        return True

    def _maybe_restart(self, child: Managed, now: float) -> bool:
        if child.proc is not None or child.next_start is None or now < child.next_start or self._stopping:
            return False
        child.state.restarts += 1
        self._spawn(child)
        return True

    def _check_health(self, child: Managed, now: float) -> bool:
        if not child.alive or now < child.next_probe:
            return False
        starting = child.state.status == "starting"
        ok, problem = self._probe(child, starting)
        child.next_probe = now + (self.timing.tick_starting if starting else self.timing.probe_interval)
        if problem is not None:
            # It answers, and names a broken store: restarting will not mend it, so no hang-kill;
            # it stays up to say so (status, the gateway's health), and is probed on.
            child.failing_since = child.healthy_since = None
            changed = child.state.status != "unhealthy" or child.state.problem != problem
            if changed:
                self._report(f"{child.spec.name} is unhealthy: {problem}")
            child.state.status, child.state.problem = "unhealthy", problem
            return changed
        if ok:
            child.state.problem = None
            child.failing_since = None
            if child.healthy_since is None:
                child.healthy_since = now
            if child.healthy_since is not None and now - child.healthy_since >= self.policy.reset_after:
                child.streak = 0
            if child.state.status != "healthy":
                if child.state.status == "starting":
                    child.state.ready_seconds = round(now - child.spawned_at, 2)
                if child.ever_healthy:
                    self._report(f"{child.spec.name} is healthy again (restarts: {child.state.restarts})")
                child.ever_healthy = True
                child.state.status = "healthy"
                return True
            return False
        if starting:
            return False
        child.healthy_since = None
        child.failing_since = child.failing_since or now
        if now - child.failing_since >= self.timing.hang_timeout:
            self._report(f"{child.spec.name} failed health checks for {self.timing.hang_timeout:.0f} s; killing it")
            self._signal(child, signal.SIGKILL)
        if child.state.status != "unhealthy":
            child.state.status = "unhealthy"
            return True
        return False

    def _probe(self, child: Managed, starting: bool) -> tuple[bool, str | None]:
        spec = child.spec
        if starting and spec.kind != "grpc":
            # The gateway is ready only once the backends this supervisor runs serve (it starts
            # faster than the memory service, so "it answers HTTP" alone would race them), and,
            # when it runs them all, once its own channels reach every one: probing the gateway
            # earlier would push those channels into reconnect backoff. A backend known broken
            # is not waited for: the gateway then only has to answer.
            backends = [c for c in self.children.values() if c.spec.kind == "grpc"]
            broken = self.broken()
            if any(c.state.status != "healthy" and c not in broken for c in backends):
                return False, None
            return self._prober.check(spec, timeout=1.0, strict=spec.require_backends and not broken)
        return self._prober.check(spec, timeout=0.3 if starting else 1.0)

    # -- helpers ---------------------------------------------------------
    def _spawn(self, child: Managed) -> None:
        log_path = self.paths.log_file(child.spec.name)
        rotate(log_path)
        env = {**self._env, PARENT_ENV: str(os.getpid())}
        passed: tuple[int, ...] = ()
        if self._lifeline is not None:
            env[LIFELINE_ENV] = str(self._lifeline[0])
            passed = (self._lifeline[0],)
        try:
            with open_log(log_path) as log:
                with contextlib.suppress(OSError):  # a full disk: the header is lost, the child still starts
                    log.write(f"\n--- mnemex supervisor: starting {child.spec.name} at {now_iso()}\n".encode())
                child.proc = subprocess.Popen(
                    child.spec.command(),
                    env=env,
                    cwd=self.paths.home,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    process_group=0,  # Ctrl-C reaches only the supervisor, which stops children in order
                    pass_fds=passed,
                )
        except OSError as exc:  # no process could be made (fork refused, no descriptor left): retry later
            self._spawn_failed(child, exc)
            return
        threading.Thread(
            target=self._wake_on_exit, args=(child.proc,), name=f"exit-{child.spec.name}", daemon=True
        ).start()
        child.next_start = None
        child.next_probe = 0.0
        child.spawned_at = time.monotonic()
        child.state.ready_seconds = None
        child.state.pid = child.proc.pid
        child.state.status = "starting"
        child.state.started_at = now_iso()

    def _spawn_failed(self, child: Managed, exc: OSError) -> None:
        child.proc = None
        child.streak += 1
        delay = self.policy.delay(child.streak)
        child.next_start = time.monotonic() + delay
        child.state.pid = None
        child.state.status = "backoff"
        child.state.problem = f"could not be started: {exc}"
        self._report(f"{child.spec.name} could not be started ({exc}); trying again in {delay:.1f} s")

    def _signal(self, child: Managed, sig: signal.Signals) -> None:
        if child.proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.proc.pid, sig)
            return
        with contextlib.suppress(ProcessLookupError):
            child.proc.send_signal(sig)

    def _wake_on_exit(self, proc: subprocess.Popen[bytes]) -> None:
        """Wake the loop the moment ``proc`` exits (it reaps the child; ``poll`` then sees the code)."""
        with contextlib.suppress(Exception):
            proc.wait()
        self._wake.set()

    def _sleep(self, seconds: float) -> None:
        self._wake.wait(seconds)

    def save(self) -> None:
        """Write the state file; on a full disk, say so once and try again on each pass until it is written."""
        try:
            write_state(self.paths, self.info, {name: c.state for name, c in self.children.items()})
        except OSError as exc:
            if self._state_unwritten is None:
                self._report(
                    f"could not write {self.paths.state_file} ({exc}); `mnemex status` shows old figures "
                    "until it is written again"
                )
            self._state_unwritten = str(exc)
            return
        if self._state_unwritten is not None:
            self._state_unwritten = None
            self._report(f"{self.paths.state_file} is written again")

    @property
    def state_unwritten(self) -> str | None:
        """Why the state file is out of date (the last write's error), or None when it is current."""
        return self._state_unwritten


def describe_broken(child: Managed) -> str:
    """``<problem> (log: <path>)`` for one broken child."""
    return f"{child.state.problem or child.state.status} (log: {child.state.log})"


# A refusal that already says what to do: a store written by a newer mnemex, or one waiting for a migration.
# `mnemex repair` would be the wrong advice for them: it sets a store aside, and neither is damaged.
_OWN_NEXT_STEP = ("upgrade mnemex", "mnemex migrate")


def degraded_advice(problems: list[str]) -> str:
    """The line after the services that did not start: what to run, unless each problem named its own step."""
    if problems and all(any(step in problem for step in _OWN_NEXT_STEP) for problem in problems):
        return "hooks run without what it serves; do what the line above says, then restart with `mnemex up`"
    return "hooks run without what it serves; see `mnemex doctor` and `mnemex repair` to mend a store"
