"""``run_stack``: the body of ``mnemex up`` (foreground) and of the detached supervisor.

Order: make the home private and its internal gRPC credential
(``kernel/internal_token.py``, which every child reads), take the per-home
lock (a second supervisor says so and exits 0), stop services of this home
that a dead supervisor left behind, refuse ports that something else already
holds, start the children, wait until every one is healthy, report, supervise
until SIGTERM/SIGINT, stop. Whatever ends it, the children are stopped on the
way out, and a report a full disk cannot take is dropped, never raised."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from kernel.config import ConfigError, Settings, require_token_for, split_host_port
from kernel.home_safety import protect_home
from kernel.internal_token import ensure_token
from mnemex.supervisor.backoff import RestartPolicy
from mnemex.supervisor.home_processes import HomeProcess, home_processes, stop_processes, unsupervised
from mnemex.supervisor.probes import port_accepts
from mnemex.supervisor.specs import ServiceSpec, child_env, stack_specs
from mnemex.supervisor.state import RunPaths, SupervisorLock, SupervisorState, now_iso, read_pid
from mnemex.supervisor.supervisor_loop import Report, Supervisor, Timing, degraded_advice, describe_broken, quiet

DEFAULT_READY_TIMEOUT = 120.0
EXIT_OK, EXIT_FAILED = 0, 1


@dataclass(frozen=True)
class StackOptions:
    only: Sequence[str] = ()
    detached: bool = False
    ready_timeout: float = DEFAULT_READY_TIMEOUT
    policy: RestartPolicy = field(default_factory=RestartPolicy)
    timing: Timing = field(default_factory=Timing)


def stack_arguments(prog: str, description: str | None, argv: list[str] | None) -> tuple[tuple[str, ...], float]:
    """The options both ways of running the supervisor take: ``--only`` (repeatable) and ``--ready-timeout``."""
    import argparse

    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--only", action="append", default=[], help="start only this service (repeatable)")
    parser.add_argument("--ready-timeout", type=float, default=DEFAULT_READY_TIMEOUT)
    args = parser.parse_args(argv)
    return tuple(args.only), args.ready_timeout


def bind_refusals(specs: Sequence[ServiceSpec], token: str | None) -> list[str]:
    """What the services would refuse at start-up anyway (a non-loopback bind without a token)."""
    problems = []
    for spec in specs:
        if spec.address.startswith(("dns:", "ipv4:", "unix:")):
            continue
        try:
            host, _ = split_host_port(spec.address, spec.name)
            require_token_for(host, token, f"the {spec.name}")
        except ConfigError as exc:
            problems.append(str(exc))
    return problems


def busy_ports(specs: Sequence[ServiceSpec]) -> list[ServiceSpec]:
    """Specs whose address already accepts connections (before we start anything)."""
    return [spec for spec in specs if port_accepts(spec.address, timeout=0.2)]


def address_variable(name: str, environ: Mapping[str, str] | None = None) -> str:
    """The setting that chose a service's address, as the user wrote it: ``MNEMEX_GATEWAY_PORT`` when that
    set the gateway's port, else the service's ``_ADDR`` (the gateway's port, when nothing was set)."""
    env = os.environ if environ is None else environ
    if name == "gateway" and (env.get("MNEMEX_GATEWAY_PORT") or not env.get("MNEMEX_GATEWAY_ADDR")):
        return "MNEMEX_GATEWAY_PORT"
    return f"MNEMEX_{name.upper()}_ADDR"


def port_conflict_message(spec: ServiceSpec, environ: Mapping[str, str] | None = None) -> str:
    variable = address_variable(spec.name, environ)
    free = "a free port" if variable.endswith("_PORT") else "a free address"
    return (
        f"{spec.address} ({spec.name}) is already in use by another process. Stop that process "
        f"(a mnemex service started by hand, or another program), or set {variable} to {free}."
    )


def log_tail(path: str, lines: int = 15) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - 8192))
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def reclaim_leftovers(settings: Settings) -> list[HomeProcess]:
    """Stop this home's services that no live supervisor of the home runs (a dead one left them behind)."""
    orphans = unsupervised(home_processes(settings.home))
    return stop_processes(orphans, grace=5.0) if orphans else []


def run_stack(
    settings: Settings,
    options: StackOptions = StackOptions(),
    *,
    report: Report = print,
    on_ready: Callable[[Supervisor], None] = lambda supervisor: None,
) -> int:
    """Run the stack until a signal. Returns the process exit code."""
    report = quiet(report)
    try:
        protect_home(settings.home)  # umask 077 for every file the supervisor and its children create
        if not settings.token:  # every child reads this credential from the home: no gRPC call without it
            ensure_token(settings.home)
    except ConfigError as exc:
        report(f"mnemex cannot start: {exc}")
        return EXIT_FAILED
    paths = RunPaths(settings.home)
    lock = SupervisorLock(paths)
    if not lock.acquire():
        pid = read_pid(paths)
        report(f"mnemex is already running for {settings.home} (supervisor pid {pid}); nothing to do.")
        return EXIT_OK
    try:
        leftovers = reclaim_leftovers(settings)
        if leftovers:
            report(
                f"stopped {len(leftovers)} process(es) of {settings.home} left running by a supervisor that "
                f"ended without stopping them: {', '.join(p.describe() for p in leftovers)}"
            )
        specs = stack_specs(settings, options.only)
        refusals = bind_refusals(specs, settings.token)
        if refusals:
            for message in refusals:
                report(message)
            return EXIT_FAILED
        conflicts = busy_ports(specs)
        if conflicts:
            for spec in conflicts:
                report(port_conflict_message(spec))
            return EXIT_FAILED
        info = SupervisorState(
            pid=os.getpid(), home=str(settings.home), gateway_url=settings.gateway_url, detached=options.detached
        )
        supervisor = Supervisor(
            specs, info, paths, child_env(settings), policy=options.policy, timing=options.timing, report=report
        )
        return _supervise(supervisor, options, report, on_ready)
    finally:
        lock.release()


def _supervise(
    supervisor: Supervisor, options: StackOptions, report: Report, on_ready: Callable[[Supervisor], None]
) -> int:
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
    for sig in previous:
        signal.signal(sig, lambda signum, frame: supervisor.request_stop())
    if options.detached:
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    started = time.monotonic()
    try:
        supervisor.start()
        problem = supervisor.wait_ready(options.ready_timeout)
        if problem is not None:
            if supervisor.stopping:
                report("stopping before the stack was ready")
                return EXIT_OK
            report(f"mnemex did not start: {problem}")
            for child in supervisor.children.values():
                if child.state.status != "healthy":
                    report(f"--- last lines of {child.state.log}:\n{log_tail(child.state.log)}")
            return EXIT_FAILED
        supervisor.info.startup_seconds = round(time.monotonic() - started, 2)
        supervisor.info.ready_at = now_iso()
        broken = supervisor.broken()
        if broken:
            supervisor.info.status = "degraded"
            for child in broken:
                report(f"mnemex started without {child.spec.name}: {describe_broken(child)}")
            report(degraded_advice([child.state.problem or "" for child in broken]))
        supervisor.save()
        with contextlib.suppress(OSError):  # the ready table on a full disk's log: supervise anyway
            on_ready(supervisor)
        supervisor.run()
        report("stopping mnemex ...")
        return EXIT_OK
    finally:
        supervisor.stop()
        for sig, handler in previous.items():
            with contextlib.suppress(TypeError, ValueError):
                signal.signal(sig, handler)
