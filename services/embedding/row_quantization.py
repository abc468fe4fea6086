"""Rewrite a dynamically quantized graph so each sequence of a batch is quantized on its own.

onnxruntime's dynamic quantization (``DynamicQuantizeLinear``) takes one scale
and zero point over the whole activation tensor, padding included: a text
encoded in a batch gets other scales than the same text alone, and its vector
moves with its batch-mates (cosine down to 0.98). This rewrite replaces every
``DynamicQuantizeLinear`` on a ``[batch, tokens, features]`` activation with the
same arithmetic taken per sequence, over that sequence's real tokens only
(``attention_mask``), and adapts the ``MatMulInteger`` nodes that read it:

- min and max over (tokens, features) of the unmasked positions, each widened
  to include 0, exactly as ``DynamicQuantizeLinear`` does;
- ``scale = (max - min) / 255``, ``zero_point = round(clip(-min / scale, 0, 255))``;
- ``QuantizeLinear`` with those per-sequence scales (axis 0), so values are
  rounded by the same kernel as before;
- ``MatMulInteger(q, W) - zero_point * colsum(W)``: the integer product with the
  per-sequence zero point taken out (``MatMulInteger`` itself accepts only one
  zero point for A); the weights are symmetric (zero point 0);
- the float rescale multiplies by ``scale_a * scale_w``, per sequence.

Padded positions are zeroed before the statistics (zeros cannot move a range
that already includes 0) and are masked out of attention and pooling anyway.
Measured on all-MiniLM-L6-v2 (tests/integration/test_onnx_backend.py): a text
alone gets bit-for-bit the vector of the original int8 graph; in a sorted,
padded batch its vector is within 2e-7 (max abs) of the text alone. The
rewritten graph is slower for one text (2.5 ms against 1.9), so the encoder
uses it for batches only. Pure ``onnx`` protobuf editing; no torch, no
onnxruntime. ``python -m services.embedding.row_quantization --src A --out B``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from services.embedding.onnx_graph import AttributeValue, make_node

if TYPE_CHECKING:
    from onnx import ModelProto, NodeProto, TensorProto

MASK_INPUT = "attention_mask"
UINT8_MAX = 255.0


class RewriteError(ValueError):
    """The graph is not the dynamic-int8 shape this rewrite knows."""


def _node(op: str, inputs: list[str], outputs: list[str], name: str, **attrs: AttributeValue) -> NodeProto:
    return make_node(op, inputs, outputs, name=name, **attrs)


def _const(name: str, value: npt.NDArray[np.float32 | np.int32 | np.int64]) -> TensorProto:
    from onnx import numpy_helper

    return numpy_helper.from_array(value, name=name)


def rewrite_per_sequence(model: ModelProto) -> ModelProto:
    """``model`` (an ``onnx.ModelProto`` from ``quantize_dynamic``) with per-sequence activation scales."""
    from onnx import TensorProto

    graph = model.graph
    if MASK_INPUT not in {i.name for i in graph.input}:
        raise RewriteError(f"the graph has no {MASK_INPUT!r} input")
    initializers = {init.name: init for init in graph.initializer}
    consumers: dict[str, list[NodeProto]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)

    shared = [
        _const("rowq/zero", np.array(0.0, dtype=np.float32)),
        _const("rowq/qmax", np.array(UINT8_MAX, dtype=np.float32)),
        _const("rowq/axis2", np.array([2], dtype=np.int64)),
        _const("rowq/flat", np.array([-1], dtype=np.int64)),
    ]
    prologue = [
        _node("Cast", [MASK_INPUT], ["rowq/mask_float"], "rowq/mask_cast", to=TensorProto.FLOAT),
        _node("Unsqueeze", ["rowq/mask_float", "rowq/axis2"], ["rowq/mask3"], "rowq/mask_unsqueeze"),
    ]
    new_nodes: list[NodeProto] = []
    replaced: dict[str, list[NodeProto]] = {}  # name of a node to drop -> nodes to put in its place
    rewritten = 0
    for node in graph.node:
        if node.op_type != "DynamicQuantizeLinear":
            continue
        x = node.input[0]
        q, a_scale, a_zp = node.output
        p = f"rowq/{rewritten}"
        sub = [
            _node("Mul", [x, "rowq/mask3"], [f"{p}/masked"], f"{p}/masked"),
            _node("ReduceMin", [f"{p}/masked"], [f"{p}/rmin"], f"{p}/rmin", axes=[1, 2], keepdims=1),
            _node("ReduceMax", [f"{p}/masked"], [f"{p}/rmax"], f"{p}/rmax", axes=[1, 2], keepdims=1),
            _node("Min", [f"{p}/rmin", "rowq/zero"], [f"{p}/lo"], f"{p}/lo"),
            _node("Max", [f"{p}/rmax", "rowq/zero"], [f"{p}/hi"], f"{p}/hi"),
            _node("Sub", [f"{p}/hi", f"{p}/lo"], [f"{p}/range"], f"{p}/range"),
            _node("Div", [f"{p}/range", "rowq/qmax"], [a_scale], f"{p}/scale"),
            _node("Div", [f"{p}/lo", a_scale], [f"{p}/lo_q"], f"{p}/lo_q"),
            _node("Sub", ["rowq/zero", f"{p}/lo_q"], [f"{p}/zp_raw"], f"{p}/zp_raw"),
            _node("Clip", [f"{p}/zp_raw", "rowq/zero", "rowq/qmax"], [f"{p}/zp_clip"], f"{p}/zp_clip"),
            _node("Round", [f"{p}/zp_clip"], [f"{p}/zp_float"], f"{p}/zp_round"),
            _node("Cast", [f"{p}/zp_float"], [a_zp], f"{p}/zp_u8", to=TensorProto.UINT8),
            _node("Cast", [f"{p}/zp_float"], [f"{p}/zp_i32"], f"{p}/zp_i32", to=TensorProto.INT32),
            _node("Reshape", [a_scale, "rowq/flat"], [f"{p}/scale_1d"], f"{p}/scale_1d"),
            _node("Reshape", [a_zp, "rowq/flat"], [f"{p}/zp_1d"], f"{p}/zp_1d"),
            _node("QuantizeLinear", [f"{p}/masked", f"{p}/scale_1d", f"{p}/zp_1d"], [q], f"{p}/quantize", axis=0),
        ]
        replaced[node.name] = sub
        for matmul in consumers.get(q, []):
            if matmul.op_type != "MatMulInteger":
                continue
            replaced[matmul.name] = _matmul_with_row_zero_point(
                matmul, initializers, zp_i32=f"{p}/zp_i32", prefix=f"{p}/{matmul.name}"
            )
            shared.append(_colsum(matmul, initializers))
        rewritten += 1
    if not rewritten:
        raise RewriteError("no DynamicQuantizeLinear node: is this the dynamic int8 graph?")
    for node in graph.node:
        new_nodes.extend(replaced.get(node.name, [node]))
    del graph.node[:]
    graph.node.extend(prologue + new_nodes)
    graph.initializer.extend(shared)
    return model


def _colsum_name(matmul: NodeProto) -> str:
    return f"rowq/colsum/{matmul.input[1]}"


def _colsum(matmul: NodeProto, initializers: dict[str, TensorProto]) -> TensorProto:
    from onnx import numpy_helper

    weight = numpy_helper.to_array(initializers[matmul.input[1]]).astype(np.int64)
    return _const(_colsum_name(matmul), weight.sum(axis=0).astype(np.int32))


def _matmul_with_row_zero_point(
    matmul: NodeProto, initializers: dict[str, TensorProto], *, zp_i32: str, prefix: str
) -> list[NodeProto]:
    """``MatMulInteger(q, W, zp_a, zp_w)`` as ``MatMulInteger(q, W) - zp_a * colsum(W)``, in int32 (exact).

    ``MatMulInteger`` accepts one zero point for A only; the weights are symmetric (zero point 0).
    """
    from onnx import numpy_helper

    if len(matmul.input) > 3 and matmul.input[3]:
        w_zp = numpy_helper.to_array(initializers[matmul.input[3]])
        if np.any(w_zp != 0):
            raise RewriteError(f"{matmul.name}: weight zero point is not 0 (asymmetric weights)")
    q, weight, out = matmul.input[0], matmul.input[1], matmul.output[0]
    return [
        _node("MatMulInteger", [q, weight], [f"{prefix}/raw"], f"{prefix}/raw"),
        _node("Mul", [zp_i32, _colsum_name(matmul)], [f"{prefix}/offset"], f"{prefix}/offset"),
        _node("Sub", [f"{prefix}/raw", f"{prefix}/offset"], [out], f"{prefix}/centred"),
    ]


def write_per_sequence(src: Path, out: Path) -> Path:
    """Rewrite the int8 graph ``src`` into ``out`` atomically (temporary name, then rename)."""
    import onnx

    model = rewrite_per_sequence(onnx.load(str(src)))
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        onnx.save(model, str(tmp))
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Per-sequence activation scales for a dynamic int8 ONNX graph.")
    parser.add_argument("--src", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    try:
        write_per_sequence(Path(args.src), Path(args.out))
    except (RewriteError, OSError, ValueError) as exc:
        print(f"mnemex: cannot rewrite {args.src}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
