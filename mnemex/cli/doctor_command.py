"""``mnemex doctor``: ok/warn/fail per check, each failure with its fix."""

from __future__ import annotations

import os
from dataclasses import asdict
from pathlib import Path

import typer

from kernel.json_values import JSONObject
from mnemex.cli import doctor_checks as checks
from mnemex.cli.gateway_client import GatewayClient
from mnemex.cli.output import CliFailure, escape, out, print_json
from mnemex.cli.settings import load_settings

app = typer.Typer()

MARK = {"ok": "[green]ok  [/]", "warn": "[yellow]warn[/]", "fail": "[red]FAIL[/]", "skip": "[dim]skip[/]"}


def run_checks(user_home: Path, skip_model: bool = False) -> list[checks.Check]:
    from mnemex.supervisor.control import collect_status

    settings = load_settings()
    status = collect_status(settings)
    versions: JSONObject | None = None
    if status["services"]["gateway"]["healthy"]:
        try:
            reply = GatewayClient(settings, timeout=10.0).get("/api/versions")
        except CliFailure:
            reply = None
        versions = reply if isinstance(reply, dict) else None
    found = checks.stack_health(status)
    if skip_model and not versions:
        found.append(checks.Check("embedding model loads offline", "skip", "skipped (--skip-model)"))
    else:
        found.append(checks.embedding_offline(versions))
    found += checks.ports(settings)
    found.append(checks.data_dir(settings.home, user_home))
    found.append(checks.home_privacy(settings.home))
    answering = any(s["healthy"] or s.get("problem") for s in status["services"].values())
    found += checks.stores(settings.home, stack_running=status["running"] or answering)
    found += checks.client_configs(user_home, settings.home)
    found.append(checks.hook_latency(settings, user_home, status["healthy"]))
    found.append(checks.opt_outs(settings.home, os.getcwd()))
    found.append(checks.versions(versions))
    return found


def summary(failed: int, warned: int) -> str:
    """The last line: a warning is advice, not a failure, but never hidden behind "all checks passed"."""
    advice = f"{warned} warning(s) above, each with its fix" if warned else ""
    if failed:
        return f"{failed} problem(s) found" + (f"; {advice}" if advice else "")
    return f"no problems; {advice}" if advice else "all checks passed"


@app.command(epilog="Example: mnemex doctor --json")
def doctor(
    json_output: bool = typer.Option(False, "--json", help="Print the checks as JSON."),
    skip_model: bool = typer.Option(False, "--skip-model", help="Do not load the model when the stack is down."),
) -> None:
    """Check the stack, the offline model, ports, the data dir, client configs, hook latency and versions."""
    found = run_checks(Path.home(), skip_model=skip_model)
    failed = [c for c in found if c.status == "fail"]
    warned = [c for c in found if c.status == "warn"]
    if json_output:
        print_json({"ok": not failed, "warnings": len(warned), "checks": [asdict(c) for c in found]})
    else:
        for check in found:
            out.print(f"{MARK[check.status]} {escape(check.name)}: {escape(check.detail)}")
            if check.fix and check.status in ("fail", "warn"):
                out.print(f"      fix: {escape(check.fix)}")
        out.print(summary(len(failed), len(warned)))
    if failed:
        raise typer.Exit(1)
