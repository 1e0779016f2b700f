"""RoPE written in JAX: Penzai's ``pz.nn.ApplyRoPE`` and ``pz.nn.ApplyRoPEToSubset``.

Penzai (google-deepmind/penzai) is a JAX neural-network library whose transformer ports
(Gemma, Llama-like models, GPT-NeoX) insert these layers between the query/key projections and
the dot product. They work on named arrays: the head dimension is the ``"projection"`` axis,
positions are a side input (``token_positions``) whose axes are a subset of the input's, and
the rotation is computed in float32 (``position / max_wavelength ** (2i/d)``) before the result
is cast back to the input dtype.

* ``penzai``: ``ApplyRoPE(max_wavelength=10000)`` as the Llama-like ports build it from
  ``rope_theta``; half-split pairs (``jnp.split`` into halves); head_dim 128.
* ``penzai-gpt-neox``: ``ApplyRoPEToSubset(rope_subset_size=16)`` on a 64-dim head, as the
  GPT-NeoX port builds it from ``rotary_pct=0.25``: the first 16 dims rotate, the rest pass through.

The glue only names the axes of the canonical ``(batch, seq, heads, head_dim)`` array and
unwraps the result in the same order; the arithmetic is Penzai's. JAX and Penzai are an
optional install (``pip install 'ropecheck[jax]'``); without them these adapters skip.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..spec import RopeSpec
from .registry import Adapter, register

__all__ = ["PENZAI_NEOX_SPEC", "PENZAI_SPEC"]

PENZAI_SPEC = RopeSpec(head_dim=128, base=10000.0, layout="half")
PENZAI_NEOX_SPEC = RopeSpec(head_dim=64, rotary_dim=16, base=10000.0, layout="half")

_AXES = ("batch", "seq", "heads", "projection")


def _penzai(layer: Any, name: str) -> Callable[..., Any]:
    from penzai import pz

    def fn(x: Any, positions: Any) -> Any:
        named = pz.nx.wrap(x).tag(*_AXES)
        pos = pz.nx.wrap(positions).tag("batch", "seq")
        return layer(named, token_positions=pos).unwrap(*_AXES)

    fn.rope_convention = "positions"  # type: ignore[attr-defined]
    fn.rope_backend = "jax"  # type: ignore[attr-defined]
    fn.__qualname__ = name
    return fn


def _apply_rope() -> Callable[..., Any]:
    from penzai import pz

    layer = pz.nn.ApplyRoPE(
        embedding_axis="projection", max_wavelength=PENZAI_SPEC.base, positions_input_name="token_positions"
    )
    return _penzai(layer, "penzai")


def _apply_rope_to_subset() -> Callable[..., Any]:
    from penzai import pz

    layer = pz.nn.ApplyRoPEToSubset(
        embedding_axis="projection",
        max_wavelength=PENZAI_NEOX_SPEC.base,
        rope_subset_size=PENZAI_NEOX_SPEC.rotary_dim,
        positions_input_name="token_positions",
    )
    return _penzai(layer, "penzai-gpt-neox")


_INSTALL = "pip install -c c.txt 'ropecheck[jax]' (jax[cpu] and penzai; c.txt holds torch==2.13.0)"

register(
    Adapter(
        "penzai",
        "penzai",
        "penzai",
        PENZAI_SPEC,
        _apply_rope,
        description="penzai pz.nn.ApplyRoPE(max_wavelength=10000) on named axes (JAX), as its Llama-like ports use it",
        install=_INSTALL,
    )
)
register(
    Adapter(
        "penzai-gpt-neox",
        "penzai",
        "penzai",
        PENZAI_NEOX_SPEC,
        _apply_rope_to_subset,
        description="penzai pz.nn.ApplyRoPEToSubset(rope_subset_size=16) on a 64-dim head (JAX), as its GPT-NeoX port",
        install=_INSTALL,
    )
)
