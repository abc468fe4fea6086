"""Build the ONNX graph of a BERT sentence encoder from its safetensors weights, without torch.

    model = build_bert_graph(model_dir)      # an onnx.ModelProto, opset 17

The graph is what sentence-transformers computes for a Transformer + mean Pooling
(+ Normalize) model whose transformer is a BERT encoder (``config.json``:
``model_type`` "bert", absolute positions, GELU), written node by node with
``onnx.helper`` from the weights ``safetensors`` reads as numpy arrays:

- embeddings: word + token type + position (0..tokens-1) rows, LayerNorm;
- each layer: query/key/value projections (MatMul with the transposed weight as an
  initializer, then Add bias, the same shape a torch trace writes, so onnxruntime's
  dynamic quantization finds the same 6 weight MatMuls per layer), scaled dot-product
  attention with the padding masked out, output projection, residual + LayerNorm,
  the GELU (erf) feed-forward, residual + LayerNorm;
- mean pooling over the real tokens (``attention_mask``), then L2 normalisation.

Inputs ``input_ids``, ``attention_mask``, ``token_type_ids`` (int64, [batch, tokens]);
output ``embedding`` (float32, [batch, hidden]). A run that replaces torch's trace
must match sentence-transformers: tests/integration/test_onnx_backend.py compares the
two over a few hundred texts (cosine >= 0.9999).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from onnx import ModelProto, NodeProto, TensorProto

OPSET = 17
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT = "embedding"
Weights = dict[str, npt.NDArray[np.float32]]
MASKED_SCORE = float(np.finfo(np.float32).min)  # what transformers adds to a padded position's score
POOLING_EPS = 1e-9  # sentence-transformers clamps the token count at this
NORMALIZE_EPS = 1e-12  # torch.nn.functional.normalize's default


class GraphUnsupported(ValueError):
    """The model is not a BERT encoder this builder writes (the caller says which part)."""


@dataclass(frozen=True)
class BertShape:
    hidden: int
    heads: int
    layers: int
    layer_norm_eps: float

    @property
    def head_size(self) -> int:
        return self.hidden // self.heads


def read_bert_shape(model_dir: Path) -> BertShape:
    """The sizes the graph needs, from ``config.json``; refuses what this builder does not write."""
    config = json.loads((model_dir / "config.json").read_text())
    kind = config.get("model_type")
    if kind != "bert":
        raise GraphUnsupported(f"model_type {kind!r}: only BERT encoders are built without torch")
    if config.get("position_embedding_type", "absolute") != "absolute":
        raise GraphUnsupported(f"position_embedding_type {config['position_embedding_type']!r}: only absolute")
    if config.get("hidden_act", "gelu") != "gelu":
        raise GraphUnsupported(f"hidden_act {config['hidden_act']!r}: only gelu (erf)")
    shape = BertShape(
        hidden=int(config["hidden_size"]),
        heads=int(config["num_attention_heads"]),
        layers=int(config["num_hidden_layers"]),
        layer_norm_eps=float(config.get("layer_norm_eps", 1e-12)),
    )
    if shape.hidden % shape.heads:
        raise GraphUnsupported(f"hidden_size {shape.hidden} is not a multiple of {shape.heads} heads")
    return shape


def read_weights(model_dir: Path) -> Weights:
    """The encoder's float32 tensors by their BERT names (a ``bert.`` prefix, if any, removed)."""
    from safetensors.numpy import load_file

    path = model_dir / "model.safetensors"
    if not path.exists():
        raise GraphUnsupported(f"no model.safetensors in {model_dir} (a torch .bin checkpoint needs mnemex[torch])")
    weights = load_file(str(path))
    return {
        name.removeprefix("bert."): np.ascontiguousarray(value, dtype=np.float32)
        for name, value in weights.items()
        if value.dtype.kind == "f"
    }


AttributeValue = int | float | Sequence[int]


def make_node(op_type: str, inputs: list[str], outputs: list[str], name: str, **attrs: AttributeValue) -> NodeProto:
    """``onnx.helper.make_node`` with typed attributes (its ``**kwargs`` would also take its own keywords)."""
    from onnx import helper

    node = helper.make_node(op_type, inputs, outputs, name=name)
    node.attribute.extend(helper.make_attribute(key, value) for key, value in sorted(attrs.items()))
    return node


class _GraphWriter:
    """Collects nodes and initializers; every name it hands out is unique."""

    def __init__(self, weights: Weights) -> None:
        self.weights = weights
        self.nodes: list[NodeProto] = []
        self.initializers: list[TensorProto] = []
        self._constants: dict[tuple[str, bytes], str] = {}
        self._count = 0

    def weight(self, name: str, transpose: bool = False) -> str:
        """The initializer of the model tensor ``name`` (transposed: a Linear weight for MatMul)."""
        if name not in self.weights:
            raise GraphUnsupported(f"the weights have no tensor {name!r}")
        from onnx import numpy_helper

        value = self.weights[name]
        init_name = f"{name}.T" if transpose else name
        self.initializers.append(
            numpy_helper.from_array(np.ascontiguousarray(value.T if transpose else value), init_name)
        )
        return init_name

    def const(self, value: npt.NDArray[np.float32 | np.int64]) -> str:
        from onnx import numpy_helper

        key = (str(value.dtype) + str(value.shape), value.tobytes())
        if key not in self._constants:
            name = f"const/{len(self._constants)}"
            self.initializers.append(numpy_helper.from_array(value, name))
            self._constants[key] = name
        return self._constants[key]

    def f32(self, value: float) -> str:
        return self.const(np.array(value, dtype=np.float32))

    def i64(self, *values: int) -> str:
        return self.const(np.array(values, dtype=np.int64))

    def op(self, op_type: str, inputs: list[str], scope: str, **attrs: AttributeValue) -> str:
        self._count += 1
        out = f"{scope}/{op_type}_{self._count}"
        self.nodes.append(make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    def linear(self, x: str, prefix: str) -> str:
        """``b + x @ W.T`` for the Linear layer ``prefix`` (MatMul on an initializer, then Add).

        The bias comes first, as in torch's trace. With ``MatMul + bias`` the other way round, the int8
        graph onnxruntime optimises no longer gives a text the vector the per-sequence rewrite
        (``row_quantization``) gives it (up to 0.011 apart, measured); bias first, they agree bit for bit."""
        product = self.op("MatMul", [x, self.weight(f"{prefix}.weight", transpose=True)], prefix)
        return self.op("Add", [self.weight(f"{prefix}.bias"), product], prefix)

    def layer_norm(self, x: str, prefix: str, eps: float) -> str:
        return self.op(
            "LayerNormalization",
            [x, self.weight(f"{prefix}.weight"), self.weight(f"{prefix}.bias")],
            prefix,
            axis=-1,
            epsilon=eps,
        )


def _embeddings(g: _GraphWriter, shape: BertShape) -> str:
    scope = "embeddings"
    words = g.op("Gather", [g.weight("embeddings.word_embeddings.weight"), "input_ids"], scope)
    types = g.op("Gather", [g.weight("embeddings.token_type_embeddings.weight"), "token_type_ids"], scope)
    tokens = g.op("Gather", [g.op("Shape", ["input_ids"], scope), g.i64(1)], scope, axis=0)
    zero, one = g.const(np.array(0, dtype=np.int64)), g.const(np.array(1, dtype=np.int64))
    positions = g.op("Range", [zero, g.op("Squeeze", [tokens], scope), one], scope)
    placed = g.op("Gather", [g.weight("embeddings.position_embeddings.weight"), positions], scope)
    summed = g.op("Add", [g.op("Add", [words, types], scope), placed], scope)
    return g.layer_norm(summed, "embeddings.LayerNorm", shape.layer_norm_eps)


def _split_heads(g: _GraphWriter, x: str, shape: BertShape, scope: str, perm: list[int]) -> str:
    """[batch, tokens, hidden] -> [batch, heads, tokens, head] (or the ``perm`` given)."""
    split = g.op("Reshape", [x, g.i64(0, 0, shape.heads, shape.head_size)], scope)
    return g.op("Transpose", [split], scope, perm=perm)


def _layer(g: _GraphWriter, x: str, mask_bias: str, shape: BertShape, index: int) -> str:
    p = f"encoder.layer.{index}"
    scope = f"{p}.attention.self"
    query = _split_heads(g, g.linear(x, f"{scope}.query"), shape, scope, [0, 2, 1, 3])
    key_t = _split_heads(g, g.linear(x, f"{scope}.key"), shape, scope, [0, 2, 3, 1])
    value = _split_heads(g, g.linear(x, f"{scope}.value"), shape, scope, [0, 2, 1, 3])
    scores = g.op("Div", [g.op("MatMul", [query, key_t], scope), g.f32(math.sqrt(shape.head_size))], scope)
    weights = g.op("Softmax", [g.op("Add", [scores, mask_bias], scope)], scope, axis=-1)
    context = g.op("Transpose", [g.op("MatMul", [weights, value], scope)], scope, perm=[0, 2, 1, 3])
    merged = g.op("Reshape", [context, g.i64(0, 0, shape.hidden)], scope)
    attended = g.linear(merged, f"{p}.attention.output.dense")
    x = g.layer_norm(g.op("Add", [attended, x], p), f"{p}.attention.output.LayerNorm", shape.layer_norm_eps)
    inner = g.linear(x, f"{p}.intermediate.dense")
    erf = g.op("Erf", [g.op("Div", [inner, g.f32(math.sqrt(2.0))], p)], p)
    gelu = g.op("Mul", [g.op("Mul", [inner, g.op("Add", [erf, g.f32(1.0)], p)], p), g.f32(0.5)], p)
    out = g.linear(gelu, f"{p}.output.dense")
    return g.layer_norm(g.op("Add", [out, x], p), f"{p}.output.LayerNorm", shape.layer_norm_eps)


def _mean_pooled_unit(g: _GraphWriter, hidden: str) -> str:
    scope = "pooling"
    from onnx import TensorProto

    mask = g.op("Cast", [g.op("Unsqueeze", ["attention_mask", g.i64(-1)], scope)], scope, to=TensorProto.FLOAT)
    total = g.op("ReduceSum", [g.op("Mul", [hidden, mask], scope), g.i64(1)], scope, keepdims=0)
    count = g.op("Clip", [g.op("ReduceSum", [mask, g.i64(1)], scope, keepdims=0), g.f32(POOLING_EPS)], scope)
    mean = g.op("Div", [total, count], scope)
    norm = g.op("Clip", [g.op("ReduceL2", [mean], scope, axes=[1], keepdims=1), g.f32(NORMALIZE_EPS)], scope)
    g.nodes.append(make_node("Div", [mean, norm], [OUTPUT], name="normalize"))
    return OUTPUT


def build_bert_graph(model_dir: Path, weights: Weights | None = None) -> ModelProto:
    """The fp32 ONNX model (mean-pooled, normalised) of the BERT sentence encoder in ``model_dir``."""
    import onnx
    from onnx import TensorProto

    shape = read_bert_shape(model_dir)
    g = _GraphWriter(read_weights(model_dir) if weights is None else weights)
    # Padding: 0 added to a real token's score, float32's lowest to a padded one's, as transformers does.
    keep = g.op("Cast", ["attention_mask"], "mask", to=TensorProto.FLOAT)
    bias = g.op("Mul", [g.op("Sub", [g.f32(1.0), keep], "mask"), g.f32(MASKED_SCORE)], "mask")
    mask_bias = g.op("Unsqueeze", [bias, g.i64(1, 2)], "mask")  # [batch, 1, 1, tokens]
    hidden = _embeddings(g, shape)
    for index in range(shape.layers):
        hidden = _layer(g, hidden, mask_bias, shape, index)
    _mean_pooled_unit(g, hidden)
    inputs = [onnx.helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"]) for name in INPUTS]
    output = onnx.helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, ["batch", shape.hidden])
    graph = onnx.helper.make_graph(g.nodes, "mean_pooled_bert", inputs, [output], initializer=g.initializers)
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", OPSET)], producer_name="mnemex")
    model.ir_version = 8  # what onnxruntime reads for opset 17 (the torch export wrote the same)
    onnx.checker.check_model(model)
    return model
