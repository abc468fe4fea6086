"""Per-client init/uninit, OpenCode's JSONC config, and Cursor's hook events (real files, no mocks)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from kernel.json_values import as_object, object_at, str_at
from mnemex.client_setup import SetupError, init, uninit
from mnemex.client_setup.client_entries import CURSOR_HOOKS
from mnemex.client_setup.jsonc import parse_document

GATEWAY = "http://127.0.0.1:27399"
CLAUDE_FILES = (".claude/settings.json", ".claude.json")
OPENCODE_FILES = (".config/opencode/opencode.json", ".config/opencode/plugins/mnemex.ts")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    return h


def snapshot(home: Path, files: tuple[str, ...]) -> dict[str, bytes | None]:
    return {f: (home / f).read_bytes() if (home / f).exists() else None for f in files}


def test_uninit_of_one_client_leaves_the_others_byte_identical(home: Path) -> None:
    init(home, clients=("claude", "cursor", "opencode"), gateway_url=GATEWAY)
    others = snapshot(home, CLAUDE_FILES + OPENCODE_FILES)
    assert all(others.values())
    uninit(home, clients=("cursor",))
    assert not (home / ".cursor").exists()
    assert snapshot(home, CLAUDE_FILES + OPENCODE_FILES) == others


def test_init_of_opencode_touches_no_claude_file(home: Path) -> None:
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{"model": "opus"}')
    before = snapshot(home, CLAUDE_FILES)
    result = init(home, clients=("opencode",), gateway_url=GATEWAY)
    assert {c.client for c in result.changes} == {"opencode"}
    assert snapshot(home, CLAUDE_FILES) == before and not (home / ".cursor").exists()
    assert (home / ".config" / "opencode" / "plugins" / "mnemex.ts").exists()


def test_unknown_client_is_refused_before_anything_is_read(home: Path) -> None:
    with pytest.raises(ValueError, match="claude, cursor, opencode"):
        init(home, clients=("claude", "vscode"), gateway_url=GATEWAY)
    assert list(home.iterdir()) == []


def test_cursor_hook_events_map_to_the_scripts(home: Path) -> None:
    assert {event: script for event, (script, _) in CURSOR_HOOKS.items()} == {
        "sessionStart": "session_start.py",
        "beforeSubmitPrompt": "user_prompt_submit.py",
        "afterAgentResponse": "stop.py",
        "stop": "stop.py",
        "preCompact": "pre_compact.py",
        "afterFileEdit": "post_tool_use.py",
        "afterShellExecution": "post_tool_use.py",
        "postToolUseFailure": "post_tool_use.py",
    }
    init(home, clients=("cursor",), gateway_url=GATEWAY)
    hooks = json.loads((home / ".cursor" / "hooks.json").read_text())["hooks"]
    for event, (script, _) in CURSOR_HOOKS.items():
        (entry,) = hooks[event]
        argv = shlex.split(entry["command"])
        assert argv[1] == "-S" and Path(argv[2]).name == script and Path(argv[2]).exists()
        assert argv[-2:] == ["--client", "cursor"]


def test_opencode_config_with_trailing_commas_is_merged_and_restored_exactly(home: Path) -> None:
    config = home / ".config" / "opencode" / "opencode.json"
    config.parent.mkdir(parents=True)
    original = '{\n  "theme": "dark",\n  "url": "http://example.com/a,}",\n  "plugin": ["x",],\n}\n'
    config.write_text(original)
    init(home, clients=("opencode",), gateway_url=GATEWAY)
    data = as_object(parse_document(config.read_text()).value)
    assert data["theme"] == "dark" and data["url"] == "http://example.com/a,}" and data["plugin"] == ["x"]
    assert "mnemex" in object_at(data, "mcp")
    uninit(home, clients=("opencode",))
    assert config.read_text() == original


def test_opencode_config_with_comments_keeps_them_through_init_and_uninit(home: Path) -> None:
    config = home / ".config" / "opencode" / "opencode.jsonc"
    config.parent.mkdir(parents=True)
    commented = (
        '{\n  // my theme\n  "theme": "dark", /* keep "this" */\n  "url": "http://x//y",\n'
        '  "mcp": {\n    // a server of mine\n    "other": {"type": "remote", "url": "https://x"},\n  },\n}\n'
    )
    config.write_text(commented)
    result = init(home, clients=("claude", "opencode"), gateway_url=GATEWAY)
    assert result.skipped == {}
    text = config.read_text()
    for comment in ("// my theme", '/* keep "this" */', "// a server of mine"):
        assert comment in text
    servers = object_at(as_object(parse_document(text).value), "mcp")
    assert str_at(object_at(servers, "mnemex"), "type") == "local"
    assert str_at(object_at(servers, "other"), "type") == "remote"
    assert text.startswith(commented[: commented.index('    "other"')]), "only mnemex's entry was added"
    assert init(home, clients=("opencode",), gateway_url=GATEWAY).changed is False
    uninit(home, clients=("opencode",))
    assert config.read_text() == commented


def test_an_unparseable_opencode_config_names_line_and_column_and_a_way_on(home: Path) -> None:
    config = home / ".config" / "opencode" / "opencode.jsonc"
    config.parent.mkdir(parents=True)
    config.write_text('{\n  // mine\n  "theme": "dark"\n  "url": "x"\n}\n')
    with pytest.raises(SetupError) as caught:
        init(home, clients=("claude", "opencode"), gateway_url=GATEWAY)
    message = str(caught.value)
    assert str(config) in message and "line 4, column 3" in message
    assert "mnemex init --client claude" in message
    assert not (home / ".claude").exists(), "nothing is written when one file cannot be read"


def test_opencode_jsonc_is_used_when_it_is_the_only_config(home: Path) -> None:
    config_dir = home / ".config" / "opencode"
    config_dir.mkdir(parents=True)
    (config_dir / "opencode.jsonc").write_text('{"theme": "dark",}')
    init(home, clients=("opencode",), gateway_url=GATEWAY)
    assert not (config_dir / "opencode.json").exists()
    assert "mnemex" in object_at(as_object(parse_document((config_dir / "opencode.jsonc").read_text()).value), "mcp")
    uninit(home, clients=("opencode",))
    assert (config_dir / "opencode.jsonc").read_text() == '{"theme": "dark",}'
