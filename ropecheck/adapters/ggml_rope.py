"""llama.cpp's RoPE: ggml's ``ggml_rope_ext`` and ``ggml_rope_multi`` ops on ggml's CPU backend, through ggml-python.

* ``ggml-rope-norm``, ``ggml-rope-neox``: ``ggml_rope_ext`` with mode ``GGML_ROPE_TYPE_NORMAL`` (0:
  interleaved pairs, llama.cpp's Llama) and ``GGML_ROPE_TYPE_NEOX`` (2: half-split pairs, its Qwen,
  Phi, GPT-NeoX), ``n_dims`` = head_dim, ``freq_base`` 10000.
* ``ggml-rope-partial``: NEOX with ``n_dims`` 32 of an 80-dim head (Phi-2's shape): ggml rotates the
  first ``n_dims`` and copies the rest.
* ``ggml-rope-linear``: ``freq_scale`` 0.25 (ggml multiplies the angles by it: linear interpolation x4).
* ``ggml-rope-yarn``: YaRN as llama.cpp passes it for Qwen2.5 7B's ``rope_scaling`` (factor 4, original
  context 32768): ``freq_scale`` 1/4, ``ext_factor`` 1, ``attn_factor`` 1, ``beta_fast`` 32,
  ``beta_slow`` 1, ``n_ctx_orig`` 32768. ggml's ramp (``ggml_rope_yarn_corr_dims``: floor/ceil of
  ``n_dims * ln(n_ctx_orig / (2 pi beta)) / (2 ln base)``, clamped to 0 .. n_dims-1; the blend
  ``(i - low) / max(0.001, high - low)`` over pair i) and its magnitude ``1 + 0.1 ln(1/freq_scale)``
  are transformers' YaRN term for term, so the spec is :class:`~ropecheck.schedules.YaRN` (4, 32768).
* ``ggml-rope-mrope``: ``ggml_rope_multi`` with ``GGML_ROPE_TYPE_MROPE`` (8), sections t:16 h:24 w:24
  of a 128-dim head, base 1e6 (Qwen2-VL 7B's text model); positions ``(3, batch, seq)``.
* ``ggml-rope-vision``: ``ggml_rope_multi`` with ``GGML_ROPE_TYPE_VISION`` (24) as llama.cpp's mtmd calls
  it for Qwen2-VL's vision encoder: ``n_dims`` = head_dim/2 = 40 of an 80-dim head and four sections of
  head_dim/4 = 20 pairs, of which the head's 40 pairs reach the first two (rows, then columns, each
  with its own frequency index from 0); patch positions ``(2, batch, seq)`` (row, column).

Each call builds one ggml context holding the input ``a`` (ggml's order is reversed: ne0 = head_dim,
ne1 = heads, ne2 = tokens, so batch and sequence are flattened into tokens), the int32 positions
``b`` (one per token; four per token for ``ggml_rope_multi``, axis-major, the axes past the spec's
given zeros: no section the head reaches reads them), the op, a graph, and computes it with
``ggml_graph_compute_with_ctx`` on one thread. The glue only copies bytes in and out; the angles, the
rotation and the rounding are ggml's.

Backward: a ``torch.autograd.Function`` whose backward runs ggml's own ``ggml_rope_ext_back`` /
``ggml_rope_multi_back`` (what ggml's autodiff uses for a ROPE node) on the incoming gradient, so the
verifier's backward checks judge ggml's backward op. ggml defines no gradient for that op, so the
backward is ``once_differentiable`` and the double backward is SKIP with torch's reason.

Dtypes: ggml's CPU rope kernel takes F32 and F16 only; a BF16 graph aborts the process
(``GGML_ABORT``: "ggml-cpu/ops.cpp:6005: fatal error", the default case of ``ggml_compute_forward_rope``'s
switch on the type), measured with ggml-python 0.0.45. So bfloat16 is not judged, and the glue refuses a
bfloat16 tensor before it reaches ggml.
Install with ``pip install -c .ci/constraints.txt -e ".[runtimes]"``; without ggml these adapters skip.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UsageError
from ..schedules import Linear, YaRN
from ..spec import RopeSpec
from .registry import Adapter, axes_fn, positions_fn, register

__all__ = [
    "GGML_DTYPES",
    "GGML_LINEAR_SPEC",
    "GGML_MROPE_SPEC",
    "GGML_PARTIAL_SPEC",
    "GGML_SPEC",
    "GGML_VISION_SPEC",
    "GGML_YARN_SPEC",
    "MODE_MROPE",
    "MODE_NEOX",
    "MODE_NORMAL",
    "MODE_VISION",
    "GgmlRope",
    "ggml_function",
    "run_ggml_rope",
    "yarn_params",
]

#: ggml's rope modes (ggml.h ``GGML_ROPE_TYPE_*``)
MODE_NORMAL, MODE_NEOX, MODE_MROPE, MODE_VISION = 0, 2, 8, 24

# ggml computes its angles per call (no table): the default valid range, up to 131071
GGML_SPEC = RopeSpec(head_dim=128, base=10000.0, layout="interleaved")
# Phi-2: 32 rotated dims of an 80-dim head, context 2048
GGML_PARTIAL_SPEC = RopeSpec(head_dim=80, rotary_dim=32, base=10000.0, layout="half", max_position_embeddings=2048)
GGML_LINEAR_SPEC = RopeSpec(head_dim=128, base=10000.0, scaling=Linear(4.0), max_position_embeddings=16384)
# Qwen2.5 7B's YaRN (the hf-llama-yarn adapter's config)
GGML_YARN_SPEC = RopeSpec.from_hf_config(
    {
        "model_type": "qwen2",
        "hidden_size": 3584,
        "num_attention_heads": 28,
        "max_position_embeddings": 131072,
        "rope_theta": 1000000.0,
        "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
    }
)
# Qwen2-VL 7B's text model (the hf-qwen2-vl adapter's config) and vision encoder (hf-qwen2-vl-vision's)
GGML_MROPE_SPEC = RopeSpec.from_hf_config(
    {
        "model_type": "qwen2_vl",
        "hidden_size": 3584,
        "num_attention_heads": 28,
        "max_position_embeddings": 32768,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
        "rope_theta": 1000000.0,
    }
)
GGML_VISION_SPEC = RopeSpec.from_hf_config(
    {
        "model_type": "qwen2_vl_vision",
        "vision_config": {"model_type": "qwen2_vl_vision", "embed_dim": 1280, "num_heads": 16, "hidden_size": 1536},
    },
    config_key="vision_config",
)

GGML_DTYPES = ("float32", "float16")
_DTYPE_NOTE = (
    "ggml's CPU rope kernel takes F32 and F16 only: a BF16 graph aborts the process (GGML_ABORT in "
    "ggml-cpu/ops.cpp, 'fatal error'; ggml-python 0.0.45), so a bfloat16 verdict would have nothing of ggml's to judge"
)
_INSTALL = 'pip install -c .ci/constraints.txt -e ".[runtimes]" (ggml-python, which compiles ggml; torch kept)'
_SLACK = 1 << 20  # the compute plan's work buffer (a cos/sin cache of head_dim floats per thread) and alignment


@dataclass(frozen=True)
class GgmlRope:
    """The arguments of one ggml rope op, as llama.cpp passes them.

    Attributes:
        n_dims: the rotated dims (the first ``n_dims`` of the head; for VISION, head_dim / 2).
        mode: ``MODE_NORMAL``, ``MODE_NEOX`` (``ggml_rope_ext``) or ``MODE_MROPE``, ``MODE_VISION``
            (``ggml_rope_multi``).
        freq_base, freq_scale: the base; the factor ggml multiplies the angles by (1 / linear factor).
        ext_factor, attn_factor, beta_fast, beta_slow, n_ctx_orig: YaRN (ext_factor 0 turns it off).
        sections: ``ggml_rope_multi``'s four section sizes in pairs (None for ``ggml_rope_ext``).
    """

    n_dims: int
    mode: int
    freq_base: float
    freq_scale: float = 1.0
    ext_factor: float = 0.0
    attn_factor: float = 1.0
    beta_fast: float = 0.0
    beta_slow: float = 0.0
    n_ctx_orig: int = 0
    sections: tuple[int, int, int, int] | None = None

    @property
    def multi(self) -> bool:
        return self.sections is not None

    def check(self, head_dim: int) -> None:
        """A UsageError for arguments ggml would abort the process on (GGML_ASSERT), before ggml sees them."""
        if self.mode not in (MODE_NORMAL, MODE_NEOX, MODE_MROPE, MODE_VISION):
            raise UsageError(f"mode must be 0 (NORMAL), 2 (NEOX), 8 (MROPE) or 24 (VISION), got {self.mode}")
        if self.n_dims % 2 or not 0 < self.n_dims <= head_dim:
            raise UsageError(f"n_dims must be even and in 2..{head_dim}, got {self.n_dims}")
        if self.mode == MODE_VISION and self.n_dims * 2 != head_dim:
            raise UsageError(f"VISION mode needs n_dims = head_dim / 2 = {head_dim // 2}, got {self.n_dims}")
        if self.multi != (self.mode in (MODE_MROPE, MODE_VISION)):
            raise UsageError(f"mode {self.mode} {'needs' if not self.multi else 'takes no'} sections")
        s = self.sections
        if s is not None and not (min(s) >= 0 and max(s[:3]) > 0 and sum(s) <= head_dim):
            raise UsageError(f"sections must be >= 0, one of the first three > 0, sum <= {head_dim}; got {s}")


_TYPES = {"float32": "GGML_TYPE_F32", "float16": "GGML_TYPE_F16", "bfloat16": "GGML_TYPE_BF16"}


def _op(ggml: Any, params: GgmlRope, ctx: Any, a: Any, b: Any, *, backward: bool) -> Any:
    p = params
    tail = (p.n_ctx_orig, p.freq_base, p.freq_scale, p.ext_factor, p.attn_factor, p.beta_fast, p.beta_slow)
    if p.sections is None:
        op = ggml.ggml_rope_ext_back if backward else ggml.ggml_rope_ext
        return op(ctx, a, b, None, p.n_dims, p.mode, *tail)
    op = ggml.ggml_rope_multi_back if backward else ggml.ggml_rope_multi
    return op(ctx, a, b, None, p.n_dims, (ctypes.c_int * 4)(*p.sections), p.mode, *tail)


def run_ggml_rope(
    params: GgmlRope, x: np.ndarray, positions: np.ndarray, *, dtype: str, backward: bool = False
) -> np.ndarray:
    """ggml's rope (or its backward) on ``x`` (tokens, heads, head_dim), computed on ggml's CPU backend.

    ``x`` holds ``dtype``'s bytes (float32, float16; bfloat16 as uint16 bits), C-contiguous;
    ``positions`` is int32, one per token (four per token, axis-major, for ``ggml_rope_multi``).
    Returns an array of x's shape and type. ggml aborts the process on what it does not support
    (a bfloat16 rope, for one): callers check first (:meth:`GgmlRope.check`).

    Example:
        >>> y = run_ggml_rope(GgmlRope(8, MODE_NEOX, 10000.0), np.ones((3, 1, 8), np.float32),
        ...                   np.arange(3, dtype=np.int32), dtype="float32")  # doctest: +SKIP
        >>> y.shape  # doctest: +SKIP
        (3, 1, 8)
    """
    import ggml  # optional: the runtimes extra

    tokens, heads, dim = x.shape
    x = np.ascontiguousarray(x)
    positions = np.ascontiguousarray(positions, dtype=np.int32)
    if positions.shape != ((4 * tokens,) if params.multi else (tokens,)):
        raise UsageError(f"positions of shape {positions.shape} for {tokens} tokens (mode {params.mode})")
    size = 2 * x.nbytes + positions.nbytes + 4 * ggml.ggml_tensor_overhead() + ggml.ggml_graph_overhead() + _SLACK
    ctx = ggml.ggml_init(ggml.ggml_init_params(mem_size=size, mem_buffer=None, no_alloc=False))
    if not ctx:
        raise MemoryError(f"ggml_init could not allocate {size} bytes")
    try:
        a = ggml.ggml_new_tensor_3d(ctx, getattr(ggml, _TYPES[dtype]), dim, heads, tokens)
        b = ggml.ggml_new_tensor_1d(ctx, ggml.GGML_TYPE_I32, positions.size)
        ctypes.memmove(ggml.ggml_get_data(a), x.ctypes.data, x.nbytes)
        ctypes.memmove(ggml.ggml_get_data(b), positions.ctypes.data, positions.nbytes)
        out = _op(ggml, params, ctx, a, b, backward=backward)
        graph = ggml.ggml_new_graph(ctx)
        ggml.ggml_build_forward_expand(graph, out)
        status = ggml.ggml_graph_compute_with_ctx(ctx, graph, 1)
        if status != 0:
            raise RuntimeError(f"ggml_graph_compute_with_ctx returned status {status}")
        result = np.empty_like(x)
        ctypes.memmove(result.ctypes.data, ggml.ggml_get_data(out), result.nbytes)
        return result
    finally:
        ggml.ggml_free(ctx)


def _dtype_name(x: Any) -> str:
    return str(x.dtype).replace("torch.", "")


def _token_positions(params: GgmlRope, positions: Any, batch: int, seq: int) -> np.ndarray:
    """The canonical positions as ggml's int32 ``b``: (batch, seq) -> tokens; (axes, batch, seq) -> 4 x tokens."""
    p = positions.detach().cpu().numpy().astype(np.int64)
    if np.any(p < np.iinfo(np.int32).min) or np.any(p > np.iinfo(np.int32).max):
        raise UsageError("ggml takes int32 positions: a position is out of int32's range")
    if not params.multi:
        return p.reshape(batch * seq).astype(np.int32)
    axes = p.reshape(-1, batch * seq)
    if len(axes) > 4:
        raise UsageError(f"ggml_rope_multi takes at most 4 position axes, got {len(axes)}")
    padded = np.zeros((4, batch * seq), np.int32)  # the axes ggml's sections leave unused
    padded[: len(axes)] = axes
    return padded.reshape(-1)


def _rope_call(params: GgmlRope, x: Any, positions: Any, *, backward: bool) -> Any:
    """x (batch, seq, heads, head_dim) through ggml and back, in x's dtype and device."""
    import torch  # heavy: imported when used

    dtype = _dtype_name(x)
    if dtype not in GGML_DTYPES:
        raise TypeError(f"ggml's CPU rope takes float32 and float16 only, got {dtype} ({_DTYPE_NOTE})")
    if x.dim() != 4:
        raise ValueError(f"x must be (batch, seq, heads, head_dim), got shape {tuple(x.shape)}")
    batch, seq, heads, dim = x.shape
    params.check(int(dim))
    data = x.detach().cpu().contiguous().reshape(batch * seq, heads, dim).numpy()
    b = _token_positions(params, positions, int(batch), int(seq))
    out = run_ggml_rope(params, data, b, dtype=dtype, backward=backward)
    return torch.from_numpy(out).reshape(x.shape).to(x.device)


def ggml_function(name: str, params: GgmlRope, *, backward_op: bool = True) -> Callable[..., Any]:
    """The canonical ``fn(x, positions)`` running ggml's rope op (``--positions axes`` for ``ggml_rope_multi``).

    Differentiable through torch: the backward runs ggml's rope backward op on the incoming gradient
    (``backward_op=False``: ggml's forward op instead, a planted bug for the tests). The gradient's
    own derivative is not ggml's to give, so the backward is ``once_differentiable``.
    """
    import torch  # heavy: imported when used
    from torch.autograd.function import once_differentiable

    class GgmlRopeOp(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, positions: Any) -> Any:
            ctx.save_for_backward(positions)
            return _rope_call(params, x, positions, backward=False)

        @staticmethod
        @once_differentiable
        def backward(ctx: Any, grad: Any) -> Any:
            (positions,) = ctx.saved_tensors
            return _rope_call(params, grad, positions, backward=backward_op), None

    def fn(x: Any, positions: Any) -> Any:
        return GgmlRopeOp.apply(x, positions)

    return (axes_fn if params.multi else positions_fn)(fn, name)


def _factory(name: str, params: GgmlRope) -> Callable[[], Callable[..., Any]]:
    def make() -> Callable[..., Any]:
        return ggml_function(name, params)

    return make


def yarn_params(spec: RopeSpec, mode: int) -> GgmlRope:
    """What llama.cpp passes ggml for a YaRN ``rope_scaling`` (attn_factor 1: ggml applies 1 + 0.1 ln(factor))."""
    s = spec.scaling
    if not isinstance(s, YaRN):
        raise UsageError(f"YaRN arguments need a spec with YaRN scaling, got {spec.rope_type!r}")
    return GgmlRope(spec.rotary_dim, mode, spec.base, 1.0 / s.factor, 1.0, 1.0, s.beta_fast, s.beta_slow,
                    s.original_max_position_embeddings)  # fmt: skip


# ----------------------------------------------------------------------------------- the adapters

_ADAPTERS: dict[str, tuple[RopeSpec, GgmlRope, str]] = {
    "ggml-rope-norm": (
        GGML_SPEC,
        GgmlRope(128, MODE_NORMAL, 10000.0),
        "ggml_rope_ext, mode NORMAL (0: interleaved pairs)",
    ),
    "ggml-rope-neox": (
        GGML_SPEC.with_(layout="half"),
        GgmlRope(128, MODE_NEOX, 10000.0),
        "ggml_rope_ext, mode NEOX (2: half-split pairs)",
    ),
    "ggml-rope-partial": (
        GGML_PARTIAL_SPEC,
        GgmlRope(32, MODE_NEOX, 10000.0),
        "ggml_rope_ext, mode NEOX, n_dims 32 of an 80-dim head (the rest copied)",
    ),
    "ggml-rope-linear": (
        GGML_LINEAR_SPEC,
        GgmlRope(128, MODE_NEOX, 10000.0, freq_scale=0.25),
        "ggml_rope_ext, mode NEOX, freq_scale 0.25 (linear interpolation x4)",
    ),
    "ggml-rope-yarn": (
        GGML_YARN_SPEC,
        yarn_params(GGML_YARN_SPEC, MODE_NEOX),
        "ggml_rope_ext, mode NEOX, YaRN (freq_scale 1/4, ext_factor 1, attn_factor 1, beta_fast 32, beta_slow 1, "
        "n_ctx_orig 32768)",
    ),
    "ggml-rope-mrope": (
        GGML_MROPE_SPEC,
        GgmlRope(128, MODE_MROPE, 1000000.0, sections=(16, 24, 24, 0)),
        "ggml_rope_multi, mode MROPE (8), sections t:16 h:24 w:24, positions (3, batch, seq)",
    ),
    "ggml-rope-vision": (
        GGML_VISION_SPEC,
        GgmlRope(40, MODE_VISION, 10000.0, sections=(20, 20, 20, 20)),
        "ggml_rope_multi, mode VISION (24), n_dims 40 of an 80-dim head, sections 20 x 4 (rows and columns "
        "take the 40 pairs), patch positions (2, batch, seq)",
    ),
}
for _name, (_spec, _params, _desc) in _ADAPTERS.items():
    register(
        Adapter(
            _name,
            "ggml-python",
            "ggml",
            _spec,
            _factory(_name, _params),
            description=f"ggml (llama.cpp's tensor library) on the CPU, {_desc}; backward through ggml's rope "
            "backward op",
            install=_INSTALL,
            dtypes=GGML_DTYPES,
            dtype_note=_DTYPE_NOTE,
        )
    )
