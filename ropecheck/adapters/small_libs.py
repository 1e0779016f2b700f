"""Small RoPE libraries: rotary-embedding-torch, x-transformers, fair-esm.

* rotary-embedding-torch: ``RotaryEmbedding(dim).rotate_queries_or_keys(t, seq_dim=-3, offset=...)``
  -- interleaved; positions are ``offset .. offset+seq-1`` (the ``fn(x, offset)`` convention).
* x-transformers: ``RotaryEmbedding(32)`` on a 64-dim head (its default partial rotary),
  ``apply_rotary_pos_emb(t, freqs)`` with t as (batch, heads, seq, dim); interleaved.
* fair-esm: ``esm.rotary_embedding.RotaryEmbedding(dim)(q, k)`` on (batch*heads, seq, dim);
  positions are 0..seq-1 (the ``fn(x)`` convention). ESM runs models cast with ``.half()`` /
  ``.to(dtype)``, which casts the module's ``inv_freq`` buffer too: the adapter does the
  same (one module per dtype), as a real fp16/bf16 ESM would.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..spec import RopeSpec
from .registry import Adapter, register

__all__ = ["ESM_SPEC", "RET_SPEC", "XT_SPEC"]

RET_SPEC = RopeSpec(head_dim=64, base=10000.0, layout="interleaved")
XT_SPEC = RopeSpec(head_dim=64, rotary_dim=32, base=10000.0, layout="interleaved")
ESM_SPEC = RopeSpec(head_dim=64, base=10000.0, layout="half", max_position_embeddings=1026)


def _ret() -> Callable[..., Any]:
    from rotary_embedding_torch import RotaryEmbedding

    m = RotaryEmbedding(dim=RET_SPEC.head_dim, theta=RET_SPEC.base)

    def fn(x: Any, offset: int = 0) -> Any:
        return m.rotate_queries_or_keys(x, seq_dim=-3, offset=offset)

    fn.rope_convention = "offset"  # type: ignore[attr-defined]
    fn.rope_backend = "torch"  # type: ignore[attr-defined]
    fn.__qualname__ = "rotary-embedding-torch"
    return fn


def _xt() -> Callable[..., Any]:
    from x_transformers.x_transformers import RotaryEmbedding, apply_rotary_pos_emb

    m = RotaryEmbedding(XT_SPEC.rotary_dim, base=XT_SPEC.base)

    def fn(x: Any, positions: Any) -> Any:
        freqs, scale = m(positions)
        return apply_rotary_pos_emb(x.transpose(1, 2), freqs, scale).transpose(1, 2)

    fn.rope_convention = "positions"  # type: ignore[attr-defined]
    fn.rope_backend = "torch"  # type: ignore[attr-defined]
    fn.__qualname__ = "x-transformers"
    return fn


def _esm() -> Callable[..., Any]:
    import torch  # heavy: imported when used
    from esm.rotary_embedding import RotaryEmbedding

    modules: dict[Any, Any] = {}

    def fn(x: Any) -> Any:
        m = modules.get(x.dtype)
        if m is None:
            m = modules[x.dtype] = RotaryEmbedding(ESM_SPEC.head_dim).to(device=x.device, dtype=x.dtype)
        b, s, h, d = x.shape
        q = x.permute(0, 2, 1, 3).reshape(b * h, s, d)
        out, _ = m(q, torch.zeros_like(q))
        return out.reshape(b, h, s, d).permute(0, 2, 1, 3)

    fn.rope_convention = "none"  # type: ignore[attr-defined]
    fn.rope_backend = "torch"  # type: ignore[attr-defined]
    fn.__qualname__ = "fair-esm"
    return fn


register(
    Adapter(
        "rotary-embedding-torch",
        "rotary-embedding-torch",
        "rotary_embedding_torch",
        RET_SPEC,
        _ret,
        description="RotaryEmbedding(64).rotate_queries_or_keys(x, seq_dim=-3, offset=...)",
    )
)
register(
    Adapter(
        "x-transformers",
        "x-transformers",
        "x_transformers",
        XT_SPEC,
        _xt,
        description="x_transformers RotaryEmbedding(32) + apply_rotary_pos_emb on a 64-dim head",
    )
)
register(
    Adapter(
        "fair-esm",
        "fair-esm",
        "esm",
        ESM_SPEC,
        _esm,
        description="esm.rotary_embedding.RotaryEmbedding(64), module cast to the input dtype as model.half() does",
    )
)
