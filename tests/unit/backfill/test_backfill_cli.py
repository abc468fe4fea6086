"""`mnemex backfill` against a fake gateway that implements the backfill contract."""

from __future__ import annotations

import gc
import json
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from mnemex.backfill import plan
from mnemex.backfill.report import ReportJson
from mnemex.cli import app
from tests.support.backfill_homes import CLAUDE_SESSION, install_claude
from tests.unit.backfill.fake_backfill_gateway import FakeBackfillGateway, fake_backfill_gateway


@pytest.fixture
def gateway() -> Iterator[FakeBackfillGateway]:
    with fake_backfill_gateway() as running:
        yield running


def invoke(home: Path, gateway_addr: str, *args: str) -> Result:
    env = {"HOME": str(home), "MNEMEX_HOME": str(home / ".mnemex"), "MNEMEX_GATEWAY_ADDR": gateway_addr}
    env |= {"CLAUDE_CONFIG_DIR": "", "XDG_DATA_HOME": ""}
    return CliRunner().invoke(app, ["backfill", *args], env=env)


def summary(home: Path, gateway: FakeBackfillGateway, *args: str) -> ReportJson:
    result = invoke(home, gateway.addr, "--json", *args)
    assert result.exit_code == 0, result.output
    report: ReportJson = json.loads(result.stdout)  # the --json summary is Report.to_json
    return report


def test_json_summary_counts_files_exchanges_and_projects(home: Path, gateway: FakeBackfillGateway) -> None:
    report = summary(home, gateway)
    assert report["files"] == {"read": 2, "unchanged": 0, "skipped": 0, "failed": 0}
    assert report["exchanges"] == {
        "found": 4,
        "filtered_out": 0,
        "sent": 4,
        "stored": 4,
        "existing": 0,
        "rechecked": 0,
        "missing": 0,
    }
    assert report["projects"] == {"shop": {"stored": 4, "existing": 0}}
    assert {s["client"] for s in report["sources"]} == {"claude", "opencode"}
    assert len(gateway.requests) == 1  # one batch for both clients
    assert {e["client"] for e in gateway.stored.values()} == {"claude", "opencode"}


def test_a_second_run_skips_unchanged_files_and_stores_nothing(home: Path, gateway: FakeBackfillGateway) -> None:
    summary(home, gateway)
    again = summary(home, gateway)
    assert again["files"]["unchanged"] == 2 and again["exchanges"]["sent"] == 0
    rescanned = summary(home, gateway, "--rescan")
    assert rescanned["exchanges"]["stored"] == 0 and rescanned["exchanges"]["existing"] == 4


def test_a_grown_transcript_sends_only_its_new_exchanges(home: Path, gateway: FakeBackfillGateway) -> None:
    summary(home, gateway, "--client", "claude")
    transcript = next((home / ".claude" / "projects").glob("*/*.jsonl"))
    with transcript.open("a") as handle:
        for entry in (
            {
                "type": "user",
                "uuid": "u9",
                "timestamp": "2026-11-26T09:00:00Z",
                "cwd": "/srv/home/code/shop",
                "sessionId": CLAUDE_SESSION,
                "message": {"role": "user", "content": "One more thing"},
            },
            {
                "type": "assistant",
                "uuid": "a9",
                "timestamp": "2026-11-26T09:00:03Z",
                "sessionId": CLAUDE_SESSION,
                "message": {
                    "id": "m9",
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Sure."}],
                    "stop_reason": "end_turn",
                },
            },
        ):
            handle.write(json.dumps(entry) + "\n")
    report = summary(home, gateway, "--client", "claude")
    assert report["exchanges"]["sent"] == 1 and report["exchanges"]["stored"] == 1
    assert gateway.requests[-1].exchanges[0]["user_text"] == "One more thing"


def test_dry_run_stores_nothing_and_reports_what_would_be_stored(home: Path, gateway: FakeBackfillGateway) -> None:
    summary(home, gateway, "--client", "opencode")
    report = summary(home, gateway, "--dry-run")
    assert report["dry_run"] is True
    assert report["projects"] == {"shop": {"stored": 2, "existing": 2}}  # the OpenCode ones are in already
    assert all(r.dry_run is True for r in gateway.requests[1:])
    assert len(gateway.stored) == 2
    assert summary(home, gateway)["exchanges"]["stored"] == 2  # the dry run left no checkpoint behind


def test_human_output_names_projects_and_counts(home: Path, gateway: FakeBackfillGateway) -> None:
    result = invoke(home, gateway.addr, "--dry-run")
    assert result.exit_code == 0, result.output
    assert "shop" in result.stdout and "would be stored" in result.stdout
    assert "4 found" in result.stdout and "mnemex backfill" in result.stdout


def test_since_keeps_exchanges_from_that_day_on(home: Path, gateway: FakeBackfillGateway) -> None:
    assert summary(home, gateway, "--since", "2026-11-26")["exchanges"]["sent"] == 0
    report = summary(home, gateway, "--since", "2026-11-25")
    assert report["exchanges"]["sent"] == 4
    assert all(e["started_at"] >= "2026-11-25" for e in gateway.stored.values())


def test_project_keeps_exchanges_recorded_inside_it(home: Path, gateway: FakeBackfillGateway) -> None:
    elsewhere = summary(home, gateway, "--project", "/srv/home/code/other")
    assert elsewhere["exchanges"] == {
        "found": 0,
        "filtered_out": 4,
        "sent": 0,
        "stored": 0,
        "existing": 0,
        "rechecked": 0,
        "missing": 0,
    }
    inside = summary(home, gateway, "--project", "/srv/home/code")
    assert inside["exchanges"]["stored"] == 4
    # progress under a filter is not taken for progress without it
    assert summary(home, gateway)["exchanges"]["existing"] == 4


def test_an_interrupted_run_resumes_where_it_stopped(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plan, "MAX_BATCH_EXCHANGES", 1)
    with fake_backfill_gateway(fail_after=2) as failing:
        result = invoke(home, failing.addr, "--json")
        assert result.exit_code == 1 and "backend service is down" in result.output
        assert len(failing.stored) == 2
        del result  # its exception's frames hold the run's state
    # The run left its readers mid-session: they were closed in the thread that read them. Left to the garbage
    # collector, an OpenCode reader's SQLite connection would be closed by whichever thread collects, and raise.
    collector = threading.Thread(target=gc.collect)
    collector.start()
    collector.join()
    with fake_backfill_gateway() as fresh:
        report = summary(home, fresh)
        assert report["exchanges"]["sent"] == 2  # only the two the first run did not send
        assert not set(fresh.stored) & {"x"} and len(fresh.stored) == 2
    checkpoint = json.loads((home / ".mnemex" / "backfill" / "checkpoint.json").read_text())
    assert all(entry["complete"] for entry in checkpoint["sources"].values())


def test_a_batch_too_large_for_the_gateway_is_split(home: Path) -> None:
    with fake_backfill_gateway(max_body=1200) as small:  # all four together are about 2.5 KB
        report = summary(home, small)
    sizes = [len(r.exchanges) for r in small.requests]
    assert report["exchanges"]["stored"] == 4 and len(sizes) > 1 and sum(sizes) == 4


def test_broken_files_are_reported_and_the_rest_imported(home: Path, gateway: FakeBackfillGateway) -> None:
    broken = install_claude(home, name="broken")
    broken.write_bytes(os.urandom(4096).replace(b"\n", b" ") + b"\n" + b"\x00" * 100)
    report = summary(home, gateway)
    [skipped] = [s for s in report["sources"] if s["status"] == "skipped"]
    assert skipped["path"] == str(broken) and "unreadable lines" in skipped["detail"]
    assert report["exchanges"]["stored"] == 4


def test_no_history_is_said_plainly(tmp_path: Path, gateway: FakeBackfillGateway) -> None:
    result = invoke(tmp_path, gateway.addr)
    assert result.exit_code == 0 and "no Claude Code, OpenCode or Cursor history found" in result.stdout


def test_a_stopped_stack_says_how_to_start_it(home: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = invoke(home, f"127.0.0.1:{port}")
    assert result.exit_code == 1
    assert "not running" in result.output and "mnemex up --detach" in result.output


def test_a_gateway_without_the_endpoint_says_to_restart_it(home: Path) -> None:
    with fake_backfill_gateway() as old:
        old.answer = lambda body: (404, {"detail": "Not Found"})  # type: ignore[method-assign]
        result = invoke(home, old.addr)
    assert result.exit_code == 1 and "mnemex down && mnemex up --detach" in result.output


@pytest.mark.parametrize("args", [["--client", "vim"], ["--since", "last week"]])
def test_usage_errors_exit_2(home: Path, gateway: FakeBackfillGateway, args: list[str]) -> None:
    assert invoke(home, gateway.addr, *args).exit_code == 2


def test_the_progress_display_follows_files_and_exchanges_on_a_terminal(home: Path) -> None:
    import io

    from rich.console import Console

    from mnemex.backfill.backfill_run import Backfill
    from mnemex.backfill.exchange import Exchange
    from mnemex.backfill.plan import Filters
    from mnemex.backfill.sources import discover
    from mnemex.cli.backfill_command import BackfillDisplay

    found = discover(home, ("claude", "opencode"))
    screen = io.StringIO()
    display = BackfillDisplay(Console(file=screen, force_terminal=True, width=120), len(found.sources))
    sent: list[int] = []

    def post(batch: list[Exchange], dry_run: bool) -> dict[str, int]:
        sent.append(len(batch))
        return {"stored": len(batch)}

    with display:
        report = Backfill(post, display, Filters(), None, False).run(found)
        files = display.progress.progress.tasks[display.progress.files]
        assert (files.completed, files.total) == (2, 2)
        assert "4 exchanges sent" in str(files.fields["unit"])
    assert sent == [4] and report.sent == report.stored == 4
