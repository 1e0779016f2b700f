"""torchtune: ``RotaryPositionalEmbeddings`` (interleaved, the Llama 2 reference form) and ``Llama3ScaledRoPE``.

Both modules take x as ``[b, s, n_h, h_d]`` and ``input_pos`` as ``[b, s]`` -- the canonical
protocol already -- so the glue is only ``module(x, input_pos=positions)``. Their cos/sin
caches hold ``max_seq_len`` positions; the adapters size them to the spec's context.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..schedules import Llama3
from ..spec import RopeSpec
from .registry import Adapter, positions_fn, register

__all__ = ["TT_INSTALL", "TT_SPEC"]

# torchao's newest releases need a newer torch; 0.15.0 imports with torch 2.13 (its C++ kernels unused)
TT_INSTALL = "pip install -c c.txt torchtune torchao==0.15.0; c.txt holds torch==2.13.0"
TT_SPEC = RopeSpec(head_dim=128, base=10000.0, layout="interleaved", max_position_embeddings=8192)
TT_LLAMA3_SPEC = RopeSpec(
    head_dim=128,
    base=500000.0,
    layout="interleaved",
    scaling=Llama3(8.0, 1.0, 4.0, 8192),
    max_position_embeddings=131072,
)


def _rope() -> Callable[..., Any]:
    from torchtune.modules import RotaryPositionalEmbeddings

    m = RotaryPositionalEmbeddings(
        dim=TT_SPEC.head_dim, max_seq_len=TT_SPEC.max_position_embeddings, base=int(TT_SPEC.base)
    )

    def fn(x: Any, positions: Any) -> Any:
        return m(x, input_pos=positions)

    return positions_fn(fn, "torchtune")


def _llama3() -> Callable[..., Any]:
    from torchtune.models.llama3_1 import Llama3ScaledRoPE

    s = TT_LLAMA3_SPEC
    m = Llama3ScaledRoPE(
        dim=s.head_dim,
        max_seq_len=s.max_position_embeddings,
        base=int(s.base),
        scale_factor=8,
        low_freq_factor=1,
        high_freq_factor=4,
        old_context_len=8192,
    )

    def fn(x: Any, positions: Any) -> Any:
        return m(x, input_pos=positions)

    return positions_fn(fn, "torchtune-llama3")


register(
    Adapter(
        "torchtune",
        "torchtune",
        "torchtune",
        TT_SPEC,
        _rope,
        description="torchtune.modules.RotaryPositionalEmbeddings(dim=128, max_seq_len=8192)",
        install=TT_INSTALL,
    )
)
register(
    Adapter(
        "torchtune-llama3",
        "torchtune",
        "torchtune",
        TT_LLAMA3_SPEC,
        _llama3,
        description="torchtune.models.llama3_1.Llama3ScaledRoPE (Llama 3.1 scaling, 131072 positions)",
        install=TT_INSTALL,
    )
)
