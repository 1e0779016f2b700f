"""Runtimes outside PyTorch: ONNX Runtime's ``RotaryEmbedding`` ops, a transformers rotary exported to ONNX, MLX.

* ``ort-rotary``, ``ort-rotary-interleaved``, ``ort-rotary-partial``: ONNX Runtime's contrib op
  ``com.microsoft.RotaryEmbedding`` (the one exported LLM graphs use), ``interleaved`` 0 / 1, and
  ``rotary_embedding_dim`` 32 of an 80-dim head (Phi-2's shape; ``num_heads`` given, as the op
  requires with it). Inputs: input, position_ids ``(batch, seq)``, cos_cache, sin_cache.
* ``onnx-rotary``, ``onnx-rotary-interleaved``: the standard ``ai.onnx`` op of opset 23 (inputs X,
  cos_cache, sin_cache, position_ids), run by ONNX Runtime's own CPU kernel.
* ``ort-hf-llama``: transformers ``LlamaRotaryEmbedding`` + ``apply_rotary_pos_emb`` in a small
  module exported by ``torch.onnx.export`` (the TorchScript exporter, ``dynamo=False``: the dynamo
  exporter needs onnxscript) and run in ONNX Runtime: what an exported Llama graph computes.
* ``mlx-rope``, ``mlx-rope-traditional``, ``mlx-rope-linear``, ``mlx-rope-llama3``: MLX's
  ``mx.fast.rope`` with ``traditional=False`` (half-split) / ``True`` (interleaved), ``scale=0.25``
  (linear position interpolation x4: MLX scales the positions) and ``freqs`` (Llama 3 scaling:
  MLX's ``freqs`` are periods, ``angle = position / freqs``, built in MLX float32 as mlx-lm's
  ``Llama3RoPE`` builds them). mx.fast.rope takes one start ``offset`` for the sequence axis, so
  these are ``fn(x, offset)`` targets.

The ONNX graphs are built with ``onnx.helper`` and run with ``onnxruntime.InferenceSession`` on
``CPUExecutionProvider`` (one thread, as the CLI runs torch). The cos/sin caches are computed
inside the graph the way exporters lay them out -- ``inv_freq`` (a float32 initializer) times
``Range(0, max_position_embeddings)`` cast to float32, then ``Cos``/``Sin``, cast to the input's
type -- so the arithmetic is the runtime's; only ``inv_freq`` (what an exporter stores) is
computed here, in float64 and rounded once to float32. The glue only moves the canonical
``(batch, seq, heads, head_dim)`` tensor into the runtime's layout, ``(batch, heads, seq,
head_dim)``, and back.

The contrib op's ``scale`` attribute is not judged: ONNX Runtime's CPU kernel reads it only where
the op would fill its own cache (not implemented there), and the output with ``scale=0.5`` is the
output without it.

Dtypes are the ones the runtime's CPU kernels implement, measured: ONNX Runtime 1.32 registers
both RotaryEmbedding ops on the CPU for float32 and float16 only (a bfloat16 graph fails to load
with NOT_IMPLEMENTED, as does the exported Llama graph's bfloat16 Mul), so bfloat16 is not
judged there; MLX's CPU backend runs all three. Neither runtime is differentiable through torch:
a call with ``x.requires_grad`` raises saying so, and the verifier's backward checks are SKIP with
that reason (no gradient is made up). Install with
``pip install -c .ci/constraints.txt -e ".[runtimes]"``; without the libraries these adapters skip.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import UsageError
from ..schedules import Linear, Llama3
from ..spec import RopeSpec
from .registry import Adapter, positions_fn, register

__all__ = [
    "MLX_LINEAR_SPEC",
    "MLX_LLAMA3_SPEC",
    "MLX_SPEC",
    "ONNX_OPSET",
    "ORT_HF_LLAMA_CONFIG",
    "ORT_PARTIAL_SPEC",
    "ORT_SPEC",
    "export_hf_llama_onnx",
    "mlx_rope",
    "onnx_rotary_model",
    "ort_function",
    "ort_session",
]

#: the opset of the standard RotaryEmbedding op (new in opset 23)
ONNX_OPSET = 23

# Llama 2 7B's head at an 8192-token cache (the cache is the valid range: ONNX Runtime refuses larger position ids)
ORT_SPEC = RopeSpec(head_dim=128, base=10000.0, layout="half", max_position_embeddings=8192)
# Phi-2: partial_rotary_factor 0.4 of an 80-dim head, context 2048
ORT_PARTIAL_SPEC = RopeSpec(head_dim=80, rotary_dim=32, base=10000.0, layout="half", max_position_embeddings=2048)
ORT_HF_LLAMA_CONFIG: dict[str, Any] = {
    "model_type": "llama",
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "max_position_embeddings": 4096,
    "rope_theta": 10000.0,
}
# mx.fast.rope computes its angles per call (no table): the default valid range, up to 131071
MLX_SPEC = RopeSpec(head_dim=128, base=10000.0, layout="half")
MLX_LINEAR_SPEC = RopeSpec(head_dim=128, base=10000.0, scaling=Linear(4.0), max_position_embeddings=16384)
MLX_LLAMA3_SPEC = RopeSpec(
    head_dim=128, base=500000.0, scaling=Llama3(8.0, 1.0, 4.0, 8192), max_position_embeddings=131072
)

_ORT_DTYPES = ("float32", "float16")
_ORT_DTYPE_NOTE = (
    "ONNX Runtime 1.32's CPU kernels implement float32 and float16 only (a bfloat16 graph fails to load: "
    "NOT_IMPLEMENTED), so a bfloat16 verdict would have nothing of the runtime's to judge"
)
_ORT_INSTALL = 'pip install -c .ci/constraints.txt -e ".[runtimes]" (onnx and onnxruntime; torch kept)'
_MLX_INSTALL = 'pip install -c .ci/constraints.txt -e ".[runtimes]" (mlx, with mlx-cpu on Linux; torch kept)'


def _refuse_autograd(x: Any, name: str, runtime: str) -> None:
    """The runtime computes outside torch autograd: say so rather than return an output with no gradient."""
    if getattr(x, "requires_grad", False):
        raise RuntimeError(f"{name} runs in {runtime}, outside torch autograd: it has no backward to judge")


# ----------------------------------------------------------------------------------- ONNX Runtime

_ONNX_TYPES = {"float32": 1, "float16": 10, "bfloat16": 16}  # onnx.TensorProto.FLOAT, FLOAT16, BFLOAT16


def _cache_nodes(spec: RopeSpec, elem_type: int) -> tuple[list[Any], list[Any]]:
    """Nodes and initializers that compute ``cos``/``sin`` (max_position_embeddings, rotary_dim/2) in the graph."""
    from onnx import helper, numpy_helper  # optional: the runtimes extra

    inv_freq = np.asarray(spec.inv_freq(), dtype=np.float64).astype(np.float32)
    length = int(spec.max_position_embeddings or 8192)
    inits = [
        numpy_helper.from_array(inv_freq, "inv_freq"),
        numpy_helper.from_array(np.array(0, np.int64), "start"),
        numpy_helper.from_array(np.array(length, np.int64), "limit"),
        numpy_helper.from_array(np.array(1, np.int64), "delta"),
        numpy_helper.from_array(np.array([1], np.int64), "axis1"),
    ]
    nodes = [
        helper.make_node("Range", ["start", "limit", "delta"], ["t_int"]),
        helper.make_node("Cast", ["t_int"], ["t"], to=_ONNX_TYPES["float32"]),
        helper.make_node("Unsqueeze", ["t", "axis1"], ["t_col"]),
        helper.make_node("Mul", ["t_col", "inv_freq"], ["freqs"]),  # (length, rotary_dim/2), float32
        helper.make_node("Cos", ["freqs"], ["cos32"]),
        helper.make_node("Sin", ["freqs"], ["sin32"]),
        helper.make_node("Cast", ["cos32"], ["cos_cache"], to=elem_type),
        helper.make_node("Cast", ["sin32"], ["sin_cache"], to=elem_type),
    ]
    return nodes, inits


def onnx_rotary_model(op: str, spec: RopeSpec, dtype: str, heads: int, *, interleaved: bool) -> Any:
    """A one-node-plus-cache ONNX model: ``op`` (``"com.microsoft"`` or ``"ai.onnx"``) RotaryEmbedding.

    Inputs ``input`` (batch, heads, seq, head_dim) in ``dtype`` and ``position_ids`` int64 (batch,
    seq); output ``output``. ``rotary_embedding_dim`` and ``num_heads`` are set for partial rotary.

    Example:
        >>> m = onnx_rotary_model("ai.onnx", RopeSpec(head_dim=8, max_position_embeddings=16), "float32", 2,
        ...                       interleaved=False)  # doctest: +SKIP
        >>> [n.op_type for n in m.graph.node][-1]  # doctest: +SKIP
        'RotaryEmbedding'
    """
    from onnx import helper  # optional: the runtimes extra

    if op not in ("com.microsoft", "ai.onnx"):
        raise UsageError(f"op must be 'com.microsoft' or 'ai.onnx', got {op!r}")
    elem = _ONNX_TYPES[dtype]
    nodes, inits = _cache_nodes(spec, elem)
    attrs: dict[str, Any] = {"interleaved": int(interleaved)}
    if spec.rotary_dim != spec.head_dim:  # both ops take num_heads with a partial rotary_embedding_dim
        attrs.update(rotary_embedding_dim=spec.rotary_dim, num_heads=heads)
    imports = [helper.make_opsetid("", ONNX_OPSET)]
    if op == "com.microsoft":
        inputs = ["input", "position_ids", "cos_cache", "sin_cache"]
        nodes.append(helper.make_node("RotaryEmbedding", inputs, ["output"], domain=op, **attrs))
        imports.append(helper.make_opsetid(op, 1))
    else:
        inputs = ["input", "cos_cache", "sin_cache", "position_ids"]
        nodes.append(helper.make_node("RotaryEmbedding", inputs, ["output"], **attrs))
    shape: list[str | int] = ["batch", heads, "seq", spec.head_dim]
    graph = helper.make_graph(
        nodes,
        "rotary",
        [
            helper.make_tensor_value_info("input", elem, shape),
            helper.make_tensor_value_info("position_ids", 7, ["batch", "seq"]),  # TensorProto.INT64
        ],
        [helper.make_tensor_value_info("output", elem, shape)],
        inits,
    )
    return helper.make_model(graph, opset_imports=imports)


def ort_session(model: Any) -> Any:
    """An ONNX Runtime CPU session for ``model`` (a ModelProto or its bytes): one thread, errors only as exceptions."""
    import onnxruntime as ort  # optional: the runtimes extra

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 4  # errors come back as the raised exception's text, not also on stderr
    data = model if isinstance(model, bytes) else model.SerializeToString()
    return ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])


def _dtype_name(x: Any) -> str:
    return str(x.dtype).replace("torch.", "")


def _to_numpy(x: Any) -> np.ndarray:
    """A CPU tensor as numpy (bfloat16 through ml_dtypes, which onnx depends on)."""
    import torch  # heavy: imported when used

    x = x.detach().cpu().contiguous()
    if x.dtype == torch.bfloat16:
        import ml_dtypes  # optional: onnx's dependency

        return x.view(torch.int16).numpy().view(ml_dtypes.bfloat16)  # type: ignore[no-any-return]
    return x.numpy()  # type: ignore[no-any-return]


def ort_function(model_for: Callable[[str, int], Any], name: str) -> Callable[..., Any]:
    """The canonical ``fn(x, positions)`` running ``model_for(dtype, heads)`` in ONNX Runtime (CPU).

    One session per (dtype, heads), built on first use; the model takes ``input`` (batch, heads, seq,
    head_dim) and ``position_ids`` (batch, seq) and returns ``output`` of the input's shape.
    """
    import torch  # heavy: imported when used

    sessions: dict[tuple[str, int], Any] = {}

    def fn(x: Any, positions: Any) -> Any:
        _refuse_autograd(x, name, "ONNX Runtime")
        key = (_dtype_name(x), int(x.shape[2]))
        if key not in sessions:
            sessions[key] = ort_session(model_for(*key))
        feeds = {"input": _to_numpy(x.transpose(1, 2)), "position_ids": _to_numpy(positions.to(torch.int64))}
        (out,) = sessions[key].run(["output"], feeds)
        return torch.from_numpy(np.ascontiguousarray(out)).transpose(1, 2).to(x.device)

    return positions_fn(fn, name)


def _ort_op(op: str, spec: RopeSpec, interleaved: bool, name: str) -> Callable[[], Callable[..., Any]]:
    def make() -> Callable[..., Any]:
        return ort_function(lambda dtype, heads: onnx_rotary_model(op, spec, dtype, heads, interleaved=interleaved),
                            name)  # fmt: skip

    return make


def export_hf_llama_onnx(dtype: str) -> bytes:
    """transformers' Llama rotary (LlamaRotaryEmbedding + apply_rotary_pos_emb) exported to ONNX for ``dtype``."""
    import tempfile
    import warnings
    from pathlib import Path

    import torch  # heavy: imported when used
    from transformers import LlamaConfig  # optional: the exported library
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

    c = ORT_HF_LLAMA_CONFIG
    config = LlamaConfig(
        hidden_size=c["hidden_size"],
        num_attention_heads=c["num_attention_heads"],
        max_position_embeddings=c["max_position_embeddings"],
        rope_parameters={"rope_type": "default", "rope_theta": c["rope_theta"]},
    )

    class Rotary(torch.nn.Module):  # q as the model's attention applies it, (batch, heads, seq, head_dim)
        def __init__(self) -> None:
            super().__init__()
            self.rotary_emb = LlamaRotaryEmbedding(config)

        def forward(self, x: Any, position_ids: Any) -> Any:
            cos, sin = self.rotary_emb(x, position_ids)
            q, _ = apply_rotary_pos_emb(x, x, cos, sin)
            return q

    d = c["hidden_size"] // c["num_attention_heads"]
    x, positions = torch.zeros(2, 3, 5, d, dtype=getattr(torch, dtype)), torch.arange(5).expand(2, 5)
    axes = {0: "batch", 1: "heads", 2: "seq"}
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice and tracer warnings
        path = Path(folder) / "rotary.onnx"
        torch.onnx.export(
            Rotary().eval(),
            (x, positions),
            path,
            dynamo=False,
            opset_version=18,
            input_names=["input", "position_ids"],
            output_names=["output"],
            dynamic_axes={"input": axes, "position_ids": {0: "batch", 1: "seq"}, "output": axes},
        )
        return path.read_bytes()


def _ort_hf_llama() -> Callable[..., Any]:
    models: dict[str, bytes] = {}

    def model_for(dtype: str, heads: int) -> bytes:
        if dtype not in models:
            models[dtype] = export_hf_llama_onnx(dtype)
        return models[dtype]

    return ort_function(model_for, "ort-hf-llama")


# ----------------------------------------------------------------------------------- MLX


def _mx() -> Any:
    try:
        import mlx.core as mx  # optional: the runtimes extra
    except ImportError as exc:  # mlx without a backend (Linux needs mlx-cpu)
        raise UsageError(f"mlx cannot be imported ({exc}); install it with {_MLX_INSTALL}") from exc
    return mx


def mlx_rope(
    name: str,
    dims: int,
    *,
    traditional: bool,
    base: float | None,
    scale: float = 1.0,
    freqs: Callable[[], Any] | None = None,
) -> Callable[..., Any]:
    """The canonical ``fn(x, offset)`` running ``mx.fast.rope(x, dims, ..., offset=offset)`` on MLX's CPU.

    ``freqs`` builds MLX's ``freqs`` argument (an ``mx.array`` of periods) when ``base`` is None.
    x moves to MLX in its own dtype (bfloat16 through float32, exactly) and comes back the same way.
    """
    mx = _mx()
    periods = freqs() if freqs is not None else None

    def rope(a: Any, offset: int) -> Any:
        return mx.fast.rope(a, dims, traditional=traditional, base=base, scale=scale, offset=offset, freqs=periods)

    return _through_mlx(name, rope)


def _through_mlx(name: str, rope: Callable[[Any, int], Any]) -> Callable[..., Any]:
    """The canonical ``fn(x, offset)`` calling ``rope(a, offset)`` on x as an MLX array ``(batch, heads, seq, dim)``
    (MLX's sequence axis is the second to last): x moves to MLX in its own dtype (bfloat16 through float32,
    exactly) and the result comes back the same way."""
    import torch  # heavy: imported when used

    mx = _mx()

    def fn(x: Any, offset: int = 0) -> Any:
        _refuse_autograd(x, name, "MLX")
        a = mx.array(x.detach().cpu().transpose(1, 2).float().numpy()).astype(getattr(mx, _dtype_name(x)))
        out = np.array(rope(a, int(offset)).astype(mx.float32))  # exact for float16 and bfloat16 values
        return torch.from_numpy(out).transpose(1, 2).to(device=x.device, dtype=x.dtype)

    fn.rope_convention = "offset"  # type: ignore[attr-defined]
    fn.rope_backend = "torch"  # type: ignore[attr-defined]
    fn.__qualname__ = fn.__name__ = name
    return fn


def _llama3_periods(spec: RopeSpec) -> Callable[[], Any]:
    """MLX ``freqs`` (periods) for Llama 3 scaling, computed in MLX float32 as mlx-lm's Llama3RoPE computes them."""
    s = spec.scaling
    if not isinstance(s, Llama3):
        raise UsageError(f"Llama 3 periods need a spec with Llama 3 scaling, got {spec.rope_type!r}")

    def periods() -> Any:
        mx = _mx()
        d = spec.rotary_dim
        freqs = spec.base ** (mx.arange(0, d, 2, dtype=mx.float32) / d)
        wavelens = 2 * np.pi * freqs
        low_wavelen = s.original_max_position_embeddings / s.low_freq_factor
        high_wavelen = s.original_max_position_embeddings / s.high_freq_factor
        freqs = mx.where(wavelens > low_wavelen, freqs * s.factor, freqs)
        medium = (wavelens > high_wavelen) & (wavelens < low_wavelen)
        smooth = (s.original_max_position_embeddings / wavelens - s.low_freq_factor) / (
            s.high_freq_factor - s.low_freq_factor
        )
        return mx.where(medium, freqs / ((1 - smooth) / s.factor + smooth), freqs)

    return periods


def _mlx(name: str, spec: RopeSpec, **kwargs: Any) -> Callable[[], Callable[..., Any]]:
    def make() -> Callable[..., Any]:
        return mlx_rope(name, spec.rotary_dim, **kwargs)

    return make


# ----------------------------------------------------------------------------------- the adapters

_ORT_OPS = {
    "ort-rotary": ("com.microsoft", ORT_SPEC, False),
    "ort-rotary-interleaved": ("com.microsoft", ORT_SPEC.with_(layout="interleaved"), True),
    "ort-rotary-partial": ("com.microsoft", ORT_PARTIAL_SPEC, False),
    "onnx-rotary": ("ai.onnx", ORT_SPEC, False),
    "onnx-rotary-interleaved": ("ai.onnx", ORT_SPEC.with_(layout="interleaved"), True),
}
for _name, (_op, _spec, _inter) in _ORT_OPS.items():
    _what = (
        "com.microsoft RotaryEmbedding (contrib)" if _op == "com.microsoft" else "ai.onnx RotaryEmbedding (opset 23)"
    )
    _partial = (
        f", rotary_embedding_dim={_spec.rotary_dim} of {_spec.head_dim}" if _spec.rotary_dim != _spec.head_dim else ""
    )
    register(
        Adapter(
            _name,
            "onnxruntime",
            "onnxruntime",
            _spec,
            _ort_op(_op, _spec, _inter, _name),
            description=f"ONNX Runtime CPU, {_what}, interleaved={int(_inter)}{_partial}; cos/sin cache computed in "
            f"the graph (Range x float32 inv_freq, Cos, Sin, Cast) for {_spec.max_position_embeddings} positions",
            install=_ORT_INSTALL,
            requires=("onnx",),
            dtypes=_ORT_DTYPES,
            dtype_note=_ORT_DTYPE_NOTE,
        )
    )

register(
    Adapter(
        "ort-hf-llama",
        "onnxruntime",
        "onnxruntime",
        RopeSpec.from_hf_config(ORT_HF_LLAMA_CONFIG),
        _ort_hf_llama,
        description="transformers LlamaRotaryEmbedding + apply_rotary_pos_emb exported by torch.onnx.export "
        "(TorchScript exporter, opset 18), run in ONNX Runtime CPU",
        install='pip install -c .ci/constraints.txt -e ".[runtimes,adapters]" (onnx, onnxruntime, transformers; '
        "torch kept)",
        requires=("onnx", "transformers"),
        dtypes=_ORT_DTYPES,
        dtype_note="ONNX Runtime 1.32's CPU Mul has no bfloat16 kernel, so the exported bfloat16 graph fails to load "
        "(NOT_IMPLEMENTED)",
    )
)

_MLX_ADAPTERS: dict[str, tuple[RopeSpec, dict[str, Any], str]] = {
    "mlx-rope": (MLX_SPEC, {"traditional": False, "base": MLX_SPEC.base}, "traditional=False (half-split)"),
    "mlx-rope-traditional": (
        MLX_SPEC.with_(layout="interleaved"),
        {"traditional": True, "base": MLX_SPEC.base},
        "traditional=True (interleaved)",
    ),
    "mlx-rope-linear": (
        MLX_LINEAR_SPEC,
        {"traditional": False, "base": MLX_LINEAR_SPEC.base, "scale": 0.25},
        "scale=0.25: positions scaled by 1/4 (linear interpolation x4)",
    ),
    "mlx-rope-llama3": (
        MLX_LLAMA3_SPEC,
        {"traditional": False, "base": None, "freqs": _llama3_periods(MLX_LLAMA3_SPEC)},
        "freqs=Llama 3 periods (base 500000, factor 8), built in MLX as mlx-lm's Llama3RoPE",
    ),
}
for _name, (_spec, _kwargs, _desc) in _MLX_ADAPTERS.items():
    register(
        Adapter(
            _name,
            "mlx",
            "mlx.core",
            _spec,
            _mlx(_name, _spec, **_kwargs),
            description=f"MLX mx.fast.rope on the CPU, {_desc}, offset = the call's first position",
            install=_MLX_INSTALL,
        )
    )


# ----------------------------------------------------------------------------------- mlx-lm

#: mlx-lm's rope for the schedules transformers' Llama adapters cover: the same configs, so the same specs
_MLX_LM_FROM = ("hf-llama", "hf-llama-linear", "hf-llama-dynamic", "hf-llama-yarn", "hf-llama3", "hf-llama-longrope")
_MLX_LM_INSTALL = 'pip install -c .ci/constraints.txt -e ".[runtimes]" mlx-lm (torch kept)'


def mlx_lm_rope(name: str, config: dict[str, Any]) -> Callable[..., Any]:
    """The canonical ``fn(x, offset)`` running mlx-lm's ``initialize_rope(...)`` module as its attention calls it:
    ``rope(x, offset=offset)`` with x ``(batch, heads, seq, head_dim)`` in MLX, on the CPU."""
    _mx()  # MLX's backend checked first, with the install hint
    from mlx_lm.models.rope_utils import initialize_rope

    head_dim = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
    scaling = dict(config["rope_scaling"]) if config.get("rope_scaling") else None
    if scaling is not None and "original_max_position_embeddings" in config:
        # Phi-3's configs keep it at the top level; mlx-lm's model code hands it to the rope with the scaling
        scaling.setdefault("original_max_position_embeddings", config["original_max_position_embeddings"])
    rope = initialize_rope(
        head_dim,
        config["rope_theta"],
        False,  # mlx-lm's Llama: traditional=False (half-split)
        scaling,
        config["max_position_embeddings"],
    )

    return _through_mlx(name, lambda a, offset: rope(a, offset=offset))


def _mlx_lm(name: str, config: dict[str, Any]) -> Callable[[], Callable[..., Any]]:
    def make() -> Callable[..., Any]:
        return mlx_lm_rope(name, config)

    return make


def _register_mlx_lm() -> None:
    from .hf_transformers import LLAMA_CONFIGS

    for source in _MLX_LM_FROM:
        config, what = LLAMA_CONFIGS[source]
        name = {"hf-llama3": "mlx-lm-llama3"}.get(source, "mlx-lm" + source[len("hf-llama") :])
        register(
            Adapter(
                name,
                "mlx-lm",
                "mlx_lm",
                RopeSpec.from_hf_config(config),
                _mlx_lm(name, config),
                description=f"mlx-lm initialize_rope(...) module as its Llama attention calls it, rope(x, offset); "
                f"the {source} config ({what})",
                install=_MLX_LM_INSTALL,
                requires=("mlx.core",),
            )
        )


_register_mlx_lm()
