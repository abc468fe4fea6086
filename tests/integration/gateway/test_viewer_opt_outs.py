"""The viewer's overview shows this machine's opt-outs (issue 29: "doctor and the viewer show both")."""

from __future__ import annotations

from pathlib import Path

from kernel import optout
from tests.integration.gateway.live_stack import LiveStack


def test_the_overview_lists_excluded_folders_and_pauses_and_says_how_to_undo_them(
    live: LiveStack, tmp_path: Path
) -> None:
    path = optout.optout_path(live.home)
    before = path.read_bytes() if path.exists() else None
    try:
        optout.save(live.home, optout.OptOut())
        empty = live.client.get("/ui")
        assert empty.status_code == 200, empty.text[-300:]
        assert 'data-testid="opt-outs"' in empty.text and "Nothing is kept out" in empty.text

        private = tmp_path / "client-<secret>-work"
        optout.save(live.home, optout.OptOut(excluded=[str(private)], paused=True, paused_sessions=["s-42"]))
        page = live.client.get("/ui")
        assert page.status_code == 200
        assert "Nothing is kept out" not in page.text
        assert 'data-testid="paused-all"' in page.text and "mnemex resume" in page.text
        assert "s-42" in page.text and "mnemex projects --include DIR" in page.text
        assert "client-&lt;secret&gt;-work" in page.text and "client-<secret>-work" not in page.text  # escaped
    finally:
        if before is None:
            path.unlink(missing_ok=True)
        else:
            path.write_bytes(before)
