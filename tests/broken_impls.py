"""Deliberately broken RoPE implementations: the fixtures that prove the properties have teeth.

Each factory takes a :class:`~ropecheck.RopeSpec` and returns a torch callable under the
canonical protocol ``fn(x, positions)`` that is right except for one classic bug.
``BROKEN`` maps a bug name to ``(factory, spec the bug shows on, exactly the properties that
fail)`` -- the property x bug matrix -- and ``STEPS`` names a bug for each step of the
multi-step properties; ``tests/test_properties_broken.py`` asserts both, and that no bug
survives all properties.

Design constraints: one small configurable rotation (:func:`_rope`) so each bug is a
one-knob change and every fixture stays obviously wrong in exactly one way; torch only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from ropecheck import DynamicNTK, RopeSpec
from ropecheck.reference import layout_permutation

Fn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def _inv_freq(spec: RopeSpec, *, exponent: float = 2.0, index_shift: int = 0, seq_len: int | None = None) -> torch.Tensor:
    r = spec.rotary_dim
    if exponent == 2.0 and index_shift == 0:
        return torch.tensor(spec.inv_freq(seq_len), dtype=torch.float32)
    i = torch.arange(r // 2, dtype=torch.float64) + index_shift
    return (spec.base ** (-exponent * i / r)).to(torch.float32)


def _rotate(x: torch.Tensor, angles: torch.Tensor, layout: str, *, sign: float = 1.0, scale: float = 1.0,
            square: bool = False, leak: bool = False) -> torch.Tensor:
    """Rotate the last axis of x (even size) by angles (..., size/2) in the given layout."""
    half = x.shape[-1] // 2
    cos, sin = angles.cos() * scale, sign * angles.sin() * scale
    if square:
        cos, sin = cos * cos, sin * sin
    if layout == "half":
        cos, sin = torch.cat([cos, cos], -1), torch.cat([sin, sin], -1)
        rot = torch.cat([-x[..., half:], x[..., :half]], -1)
    else:
        cos, sin = cos.repeat_interleave(2, -1), sin.repeat_interleave(2, -1)
        rot = torch.stack([-x[..., 1::2], x[..., 0::2]], -1).flatten(-2)
    if leak:  # the partner is read from the previous token (wrapping round), an off-by-one in a flat index
        rot = rot.roll(1, dims=1)
    return x * cos.to(x.dtype) + rot * sin.to(x.dtype)


def _rope(spec: RopeSpec, **bug: Any) -> Fn:
    """A plain RoPE for ``spec`` (float32 angles) with one bug switched on by keyword."""
    layout = bug.get("layout", spec.layout)

    def rope(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        batch, seq, heads, d = x.shape
        pos = positions
        if bug.get("ignore_positions"):
            pos = torch.arange(seq).expand(batch, seq)
        if bug.get("bf16_positions"):
            pos = pos.to(torch.bfloat16).to(torch.float32)
        if bug.get("row0_positions"):
            pos = positions[:1].expand(batch, seq)
        pos = pos + bug.get("position_shift", 0)
        if "clamp" in bug:
            pos = pos.clamp(max=bug["clamp"])
        seq_len = seq if bug.get("length_from_call") else None
        freq_spec = bug.get("freq_spec", spec)
        inv = _inv_freq(freq_spec, exponent=bug.get("exponent", 2.0), index_shift=bug.get("index_shift", 0),
                        seq_len=seq_len)
        if "state" in bug:  # a cache that only grows, as a dynamic-NTK cache without a reset
            state = bug["state"]
            state["max"] = max(state.get("max", 0), seq)
            inv = _inv_freq(freq_spec, seq_len=state["max"])
        angles = pos.to(torch.float32)[..., None] * inv * bug.get("angle_factor", 1.0)  # (batch, seq, r/2)
        r = freq_spec.rotary_dim
        xx = x.reshape(batch, heads, seq, d) if bug.get("heads_as_seq") else x
        if bug.get("permute_input"):  # into the other layout's order, never permuted back
            xx = xx[..., torch.as_tensor(bug["permute_input"])]
        ang = angles[:, None] if bug.get("heads_as_seq") else angles[:, :, None]
        lo, hi = (d - r, d) if bug.get("rotate_last") else (0, r)
        rotated = _rotate(xx[..., lo:hi], ang, layout, sign=bug.get("sign", 1.0), scale=bug.get("scale", 1.0),
                          square=bug.get("square", False), leak=bug.get("leak", False))
        out = torch.cat([xx[..., :lo], rotated, xx[..., hi:]], -1)
        return out.reshape(x.shape)

    return rope


def wrong_sign(spec: RopeSpec) -> Fn:
    """Rotates the wrong way: sin negated (R_{-m})."""
    return _rope(spec, sign=-1.0)


def swapped_layout(spec: RopeSpec) -> Fn:
    """Pairs dims in the other layout (rotate_half where interleaved is meant, or the reverse)."""
    return _rope(spec, layout="interleaved" if spec.layout == "half" else "half")


def wrong_exponent(spec: RopeSpec) -> Fn:
    """theta_i = base^(-i/r) instead of base^(-2i/r)."""
    return _rope(spec, exponent=1.0)


def freq_index_off_by_one(spec: RopeSpec) -> Fn:
    """theta_i = base^(-2(i+1)/r): the frequency index starts at 1."""
    return _rope(spec, index_shift=1)


def ignored_positions(spec: RopeSpec) -> Fn:
    """Uses 0..seq-1 whatever positions are given."""
    return _rope(spec, ignore_positions=True)


def positions_off_by_one(spec: RopeSpec) -> Fn:
    """Rotates by position + 1."""
    return _rope(spec, position_shift=1)


def row0_positions(spec: RopeSpec) -> Fn:
    """Uses batch row 0's positions for every row."""
    return _rope(spec, row0_positions=True)


def heads_mixed_with_seq(spec: RopeSpec) -> Fn:
    """Reads x as (batch, heads, seq, head_dim): heads and sequence mixed up."""
    return _rope(spec, heads_as_seq=True)


def rotates_all_dims(spec: RopeSpec) -> Fn:
    """Partial rotary ignored: every dim is rotated (frequencies over head_dim)."""
    return _rope(spec, freq_spec=spec.with_(rotary_dim=spec.head_dim))


def rotates_last_dims(spec: RopeSpec) -> Fn:
    """Partial rotary applied to the last rotary_dim dims; the first ones pass through."""
    return _rope(spec, rotate_last=True)


def dynamic_ntk_by_length(spec: RopeSpec) -> Fn:
    """Dynamic NTK from the call's length (seq > 4 grows the base), though the spec is static."""
    return _rope(spec, length_from_call=True, freq_spec=spec.with_(scaling=DynamicNTK(4.0, 4)))


def dynamic_ntk_cache(spec: RopeSpec) -> Fn:
    """A dynamic-NTK cache that grows with the longest call seen and is never reset."""
    return _rope(spec, state={}, freq_spec=spec.with_(scaling=DynamicNTK(4.0, 64)))


def scaled(spec: RopeSpec) -> Fn:
    """cos and sin multiplied by 1.1: the norm changes."""
    return _rope(spec, scale=1.1)


def rotated_twice(spec: RopeSpec) -> Fn:
    """cos/sin applied twice: the rotation is by 2 m theta."""
    return _rope(spec, angle_factor=2.0)


def cos_sin_squared(spec: RopeSpec) -> Fn:
    """x cos^2 + rotate(x) sin^2: cos and sin each applied twice elementwise."""
    return _rope(spec, square=True)


def unpermuted_output(spec: RopeSpec) -> Fn:
    """Permutes x into the other layout, rotates there, and forgets to permute the result back.

    The output is Q R_m x for a fixed permutation Q: every score q.k is right, the vectors are not.
    """
    other = "interleaved" if spec.layout == "half" else "half"
    perm = layout_permutation(spec.rotary_dim, spec.head_dim)  # interleaved order -> half order
    to_other = perm if other == "half" else np.argsort(perm)
    return _rope(spec, layout=other, permute_input=to_other.tolist())


def neighbour_leak(spec: RopeSpec) -> Fn:
    """The rotated partner (rotate_half / the pair's other dim) is read from the previous token."""
    return _rope(spec, leak=True)


def positions_in_bf16(spec: RopeSpec) -> Fn:
    """Positions cast to bfloat16 before the angle: exact to 256, then rounded to 2, 4, 8, ..."""
    return _rope(spec, bf16_positions=True)


def cache_too_short(spec: RopeSpec) -> Fn:
    """A cos/sin cache of 64 positions; later positions read the last entry."""
    return _rope(spec, clamp=63)


HALF = RopeSpec(head_dim=8)
INTERLEAVED = RopeSpec(head_dim=8, layout="interleaved")
PARTIAL = RopeSpec(head_dim=8, rotary_dim=4)

_REF = {"matches_reference", "layout_equivalence"}
_ORIGIN = {"relative_position", "identity_at_zero", "composition"}
_SHIFT = {"translation_invariance", "translation_invariance_attention", "relative_position", "composition"}

# bug -> (factory, spec it is shown on, exactly the properties that fail on the seeded samples).
# The property x bug matrix: tests/test_properties_broken.py asserts these sets with equality, so
# the table says both what catches each bug and what does not. A different frequency schedule or
# rotation direction (wrong_sign, wrong_exponent, freq_index_off_by_one, rotated_twice) is still
# a rotation by a linear angle: only the reference-based properties can see it.
BROKEN: dict[str, tuple[Callable[[RopeSpec], Fn], RopeSpec, set[str]]] = {
    "wrong_sign": (wrong_sign, HALF, _REF),
    "swapped_layout": (swapped_layout, INTERLEAVED, _REF),
    "wrong_exponent": (wrong_exponent, HALF, _REF),
    "freq_index_off_by_one": (freq_index_off_by_one, HALF, _REF),
    "rotated_twice": (rotated_twice, HALF, _REF),
    "ignored_positions": (ignored_positions, HALF, _REF | _ORIGIN | {"consistency"}),
    "positions_off_by_one": (positions_off_by_one, HALF, _REF | _ORIGIN),
    "row0_positions": (row0_positions, HALF, _REF | {"head_batch_independence", "consistency"}),
    "heads_mixed_with_seq": (heads_mixed_with_seq, HALF, _REF | {"head_batch_independence", "consistency"}),
    "rotates_all_dims": (rotates_all_dims, PARTIAL, _REF | {"passthrough"}),
    "rotates_last_dims": (rotates_last_dims, PARTIAL, _REF | {"passthrough"}),
    "dynamic_ntk_by_length": (dynamic_ntk_by_length, HALF, _REF | {"consistency"}),
    "dynamic_ntk_cache": (dynamic_ntk_cache, HALF, {"consistency"}),
    "scaled": (scaled, HALF, _REF | {"norm_preservation", "identity_at_zero", "composition", "inverse",
                                     "relative_position"}),
    "cos_sin_squared": (cos_sin_squared, HALF, _REF | _SHIFT | {"norm_preservation", "inverse"}),
    "cache_too_short": (cache_too_short, HALF, _REF | _SHIFT),
    "positions_in_bf16": (positions_in_bf16, HALF, _REF | _SHIFT),
    "unpermuted_output": (unpermuted_output, INTERLEAVED, _REF | _ORIGIN),
    "neighbour_leak": (neighbour_leak, HALF, _REF | _SHIFT | {"norm_preservation", "consistency"}),
}

# (property, step reported in result.context["check"]) -> a bug that fails that step first:
# every step of the multi-step properties can fail on its own.
STEPS: dict[tuple[str, str], str] = {
    ("layout_equivalence", "scores"): "wrong_sign",
    ("layout_equivalence", "elementwise"): "unpermuted_output",
    ("consistency", "other tokens"): "neighbour_leak",
    ("consistency", "length"): "ignored_positions",
    ("consistency", "state"): "dynamic_ntk_cache",
}
