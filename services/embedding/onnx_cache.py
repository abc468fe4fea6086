"""The ONNX files the embedding service serves: built once into the cache, and nothing else kept.

    served = ensure_served(model_dir, precision="int8")   # built in a child process if missing
    freed = prune(model_dir, "int8")                       # other variants and older exports

The cache (``MNEMEX_MODEL_CACHE``, else ``$XDG_CACHE_HOME/mnemex/onnx``, else
``~/.cache/mnemex/onnx``) holds, for the default ``int8`` precision (about 70 MB):

- ``<model>-<digest>-int8-mapped.onnx``: the graph ``quantize_dynamic`` writes, for one text a call;
- ``<model>-<digest>-int8-rows-mapped.onnx``: its per-sequence rewrite, for batches (``row_quantization``);
- ``<model>-<digest>-int8.weights``: the tensors over 1 MB, which both graphs share (the 47 MB
  word-embedding table), mapped by onnxruntime from disk (``onnx_mapped``).

For ``fp32``: ``<model>-<digest>-mapped.onnx`` and ``<model>-<digest>.weights`` (about 90 MB).

The fp32 export, and the int8 graphs with their weights inside from which the served
ones derive, are written in a staging folder inside the cache and removed once the
served files are renamed into place (the weights first, then the graphs that name them),
so concurrent builders cannot leave a graph pointing at a torn file. The build runs in a
child process (``python -m services.embedding.onnx_cache``), so ``onnx`` never stays
resident in the service.

``prune`` removes the files of this model name that the current settings do not serve:
the other precision's, and those of older exports (another digest, which an upgrade of
mnemex or of the model brings). ``mnemex up`` calls it before starting the service.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from services.embedding.onnx_export import (
    PRECISIONS,
    ROWS,
    OnnxUnsupported,
    cached_model_path,
    check_supported,
)

MAPPED = "-mapped"
WEIGHTS = ".weights"
CACHED_SUFFIXES = (".onnx", ".onnx.data", WEIGHTS, ".tmp")  # every kind of file this cache ever held


@dataclass(frozen=True)
class Served:
    """The files the service opens: ``single`` (one text a call), ``rows`` (int8 batches), ``weights``."""

    single: Path
    rows: Path | None
    weights: Path

    def files(self) -> list[Path]:
        return [self.weights, self.single, *([self.rows] if self.rows else [])]

    def exists(self) -> bool:
        return all(path.is_file() for path in self.files())

    def drop(self) -> None:
        for path in self.files():
            path.unlink(missing_ok=True)


def _mapped(graph: Path) -> Path:
    return graph.with_name(f"{graph.stem}{MAPPED}{graph.suffix}")


def served_files(model_dir: Path, precision: str, root: Path | None = None) -> Served:
    """Where the files served at ``precision`` are (or will be) in the cache."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision {precision!r}: choose one of {', '.join(PRECISIONS)}")
    graph = cached_model_path(model_dir, root, precision)
    rows = _mapped(cached_model_path(model_dir, root, ROWS)) if precision == "int8" else None
    return Served(single=_mapped(graph), rows=rows, weights=graph.with_suffix(WEIGHTS))


def build_served(model_dir: Path, precision: str, root: Path | None = None) -> Served:
    """Write the served files of ``precision`` (no other file stays behind). Imports onnx."""
    from services.embedding.onnx_export import export, quantize
    from services.embedding.onnx_mapped import write_mapped
    from services.embedding.row_quantization import write_per_sequence

    served = served_files(model_dir, precision, root)
    folder = served.single.parent
    folder.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{served.weights.stem}.", dir=folder))
    try:
        fp32 = export(model_dir, staging / "fp32.onnx")
        if served.rows is None:
            sources = [(fp32, served.single)]
        else:
            int8 = quantize(fp32, staging / "int8.onnx")
            sources = [(int8, served.single), (write_per_sequence(int8, staging / "int8-rows.onnx"), served.rows)]
        staged = [(src, staging / out.name) for src, out in sources]
        write_mapped(staged, staging / served.weights.name)
        os.replace(staging / served.weights.name, served.weights)
        for (_, out), (_, final) in zip(staged, sources, strict=True):
            os.replace(out, final)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return served


def ensure_served(model_dir: Path, root: Path | None = None, precision: str = "int8", timeout: float = 300.0) -> Served:
    """The served files of ``precision``, built in a child process if any is missing."""
    served = served_files(model_dir, precision, root)
    if served.exists():
        return served
    check_supported(model_dir)
    cmd = [sys.executable, "-m", "services.embedding.onnx_cache", "--model", str(model_dir), "--precision", precision]
    cmd += ["--root", str(served.single.parent)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0 or not served.exists():
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise OnnxUnsupported(f"ONNX graphs ({precision}) of {model_dir} failed: {tail[0]}")
    return served


def prune(model_dir: Path, precision: str, root: Path | None = None) -> list[tuple[Path, int]]:
    """Remove this model name's cached files that ``precision`` does not serve; (path, bytes) of each.

    Staging folders (a build in progress) are left alone."""
    served = served_files(model_dir, precision, root)
    keep = set(served.files())
    folder = served.single.parent
    freed: list[tuple[Path, int]] = []
    if not folder.is_dir():
        return freed
    for path in sorted(folder.iterdir()):
        named = path.name.startswith(f"{model_dir.name}-") or path.name.startswith(f".{model_dir.name}-")
        if path in keep or not named or not path.name.endswith(CACHED_SUFFIXES) or not path.is_file():
            continue
        try:
            size = path.stat().st_size
            path.unlink()
        except OSError:
            continue
        freed.append((path, size))
    return freed


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Build the ONNX files the embedding service serves.")
    parser.add_argument("--model", required=True, help="sentence-transformers directory")
    parser.add_argument("--precision", choices=PRECISIONS, default="int8")
    parser.add_argument("--root", default=None, help="the cache folder (default: MNEMEX_MODEL_CACHE, else ~/.cache)")
    args = parser.parse_args(argv)
    try:
        served = build_served(Path(args.model), args.precision, Path(args.root) if args.root else None)
    except (OnnxUnsupported, OSError, ImportError, ValueError, RuntimeError) as exc:
        print(f"mnemex: cannot build the ONNX graphs of {args.model} ({args.precision}): {exc}", file=sys.stderr)
        return 1
    print(served.single)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
