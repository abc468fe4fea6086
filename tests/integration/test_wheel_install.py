"""An install that survives: `mnemex init` from a built wheel writes hooks that need neither checkout nor venv.

Builds the wheel offline from a copy of the sources (the checkout is not
touched), installs it with ``--no-deps`` into a fresh venv whose dependencies
come from this dev venv's site-packages through a plain ``.pth`` path line
(which does not run the dev venv's editable-install hook, so the wheel's own
``mnemex`` is the one imported), runs that venv's ``mnemex init`` and then
the hook command it wrote against a stand-in gateway.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.integration.client_setup.fake_gateway import FAKE_CONTEXT, fake_gateway

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("kernel", "mnemex", "services", "gateway", "hooks", "protos")
DEV_VENV = Path(sys.prefix)


def clean_env(**extra: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("MNEMEX_", "XDG_", "PYTHON", "VIRTUAL_ENV"))}
    return {**keep, **extra}


def run(args: list[str], cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, env=clean_env(**extra), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{args}\n{done.stdout}\n{done.stderr}"
    return done


def build_wheel(tmp_path: Path) -> Path:
    source = tmp_path / "src"
    source.mkdir()
    for name in PACKAGES:
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    out = tmp_path / "dist"
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            "-w",
            str(out),
            ".",
        ],
        cwd=source,
    )
    (wheel,) = out.glob("mnemex-*.whl")
    return wheel


def test_init_from_a_wheel_writes_hooks_that_outlive_checkout_and_venvs(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path)
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"mnemex/client_setup/mnemex.ts", "hooks/hook_main.py", "hooks/user_prompt_submit.py"} <= names

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp_path)
    python = venv / "bin" / "python"
    run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel)],
        cwd=tmp_path,
    )
    purelib = Path(
        run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=tmp_path
        ).stdout.strip()
    )
    (purelib / "zz_dev_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    where = run(
        [str(python), "-c", "import mnemex, hooks; print(mnemex.__file__); print(hooks.__file__)"], cwd=tmp_path
    )
    for line in where.stdout.split():
        assert Path(line).is_relative_to(venv), where.stdout

    home = tmp_path / "home"
    home.mkdir()
    with fake_gateway() as gateway:
        run(
            [str(venv / "bin" / "mnemex"), "init", "--client", "claude"],
            cwd=home,
            HOME=str(home),
            MNEMEX_GATEWAY_PORT=str(gateway.port),
            MNEMEX_TOKEN="wheel-token",
        )
        settings = json.loads((home / ".claude" / "settings.json").read_text())
        command = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
        for place in (ROOT, DEV_VENV, venv):
            assert str(place) not in command, (place, command)
        argv = shlex.split(command)
        assert argv[1] == "-S" and Path(argv[2]).is_relative_to(home), command  # the default mnemex home under HOME
        connection = json.loads((Path(argv[2]).parent.parent / "connection.json").read_text())
        assert connection["start_command"] == [str(venv / "bin" / "mnemex"), "up", "--detach"]
        payload = {
            "session_id": "wheel-1",
            "transcript_path": "",
            "cwd": str(home),
            "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit",
            "prompt": "what runs at night?",
        }
        hook = subprocess.run(
            argv,
            input=json.dumps(payload),
            env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
            cwd=home,
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert hook.returncode == 0, hook.stderr
    assert FAKE_CONTEXT in hook.stdout
    (request,) = gateway.requests
    assert request.path == "/api/hooks/get-context"
    assert request.headers.get("Authorization") == "Bearer wheel-token"
