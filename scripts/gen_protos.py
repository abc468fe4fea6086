"""Regenerate the committed gRPC stubs from protos/**/*.proto.

    .venv/bin/python scripts/gen_protos.py            # write stubs in place
    .venv/bin/python scripts/gen_protos.py --out DIR  # write elsewhere (the drift test)

Protos are compiled with the repository root as include path, so the stubs
import each other as ``protos.mnemex.<svc>.v1`` while the wire package stays
``mnemex.<svc>.v1``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def proto_files() -> list[Path]:
    return sorted((ROOT / "protos").rglob("*.proto"))


def generate(out_dir: Path) -> None:
    import grpc_tools
    from grpc_tools import protoc  # dev dependency, pinned equal to grpcio

    include = str(Path(grpc_tools.__file__).parent / "_proto")
    # Type stubs of the gRPC stubs and servicers (mypy-protobuf, a dev dependency), so a call's reply type is
    # known: the plugin sits beside this interpreter, which need not be on PATH.
    mypy_grpc = Path(sys.executable).parent / "protoc-gen-mypy_grpc"
    out_dir.mkdir(parents=True, exist_ok=True)
    for proto in proto_files():
        rel = proto.relative_to(ROOT)
        args = [
            "protoc",
            f"-I{ROOT}",
            f"-I{include}",
            f"--python_out={out_dir}",
            f"--pyi_out={out_dir}",
            f"--grpc_python_out={out_dir}",
            f"--plugin=protoc-gen-mypy_grpc={mypy_grpc}",
            f"--mypy_grpc_out={out_dir}",
            str(rel),
        ]
        code = protoc.main(args)
        if code != 0:
            raise SystemExit(f"protoc failed on {rel} (exit {code})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT, help="output root (default: repo root)")
    args = parser.parse_args(argv)
    import os

    os.chdir(ROOT)
    generate(args.out.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
