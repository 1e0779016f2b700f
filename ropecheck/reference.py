"""The fp64 reference RoPE, in its three equivalent forms.

* ``form="matrix"``: the block-diagonal matrix R_{Theta,m} (2x2 rotation blocks on the
  spec's pairs, identity on the pass-through dims) applied as a matrix-vector product.
* ``form="elementwise"``: ``x * cos + rotate(x) * sin`` with cos/sin tables expanded to the
  layout (``rotate_half`` for the half layout, ``rotate_every_two`` for interleaved).
* ``form="complex"``: each pair read as a complex number z = x_a + i x_b, multiplied by
  e^{i m theta}.

Design constraints:

* Plain numpy in float64; x has any leading shape and ``positions`` broadcasts against
  ``x.shape[:-1]`` (so per-row, per-head or per-token positions all work).
* The phase m*theta_i is computed exactly and reduced modulo 2*pi before cos/sin: theta_i
  is taken from the spec's 50-digit (mpmath) value as a 128-bit binary fraction of a turn,
  and m*theta_i/(2*pi) mod 1 is formed in exact 32-bit-limb integer arithmetic. The phase
  therefore stays correct to ~1e-15 rad at every position below 2^32, where a plain fp64
  product m*theta would already be off by ~1e-7 rad at m = 2^30.
* The attention factor (YaRN, LongRoPE) multiplies the output, as real implementations
  multiply cos and sin by it; pass ``scaled=False`` for the pure rotation. A spec whose model
  applies it to the softmax scale (``attention_factor_in="softmax"``) has factor 1 here.
* The spec's conventions are honoured by every form: ``direction=-1`` turns each pair by
  -m*theta_i (the phase of -m, reduced exactly), ``rotary_dims="last"`` rotates the trailing
  ``rotary_dim`` dims.
* Multi-axis RoPE (``spec.axes``: M-RoPE, 2-D axial) takes one position per axis: with
  ``axes_at="first"`` positions are ``(axes, ...)`` (transformers' M-RoPE ``(3, batch, seq)``),
  with ``axes_at="last"`` ``(..., axes)`` (2-D patch coordinates ``(batch, seq, 2)``); pair ``i``
  turns by its axis's position, exactly as a 1-D pair does. Without ``axes_at`` a multi-axis spec
  takes one position for every axis (a text token).
* An axis with a position map (:class:`~ropecheck.axes.Axis` ``scale``, ``offset``) turns its pairs by
  ``(scale * p + offset) * theta_i``: the slope's ``scale * theta_i`` takes theta_i's place in the exact
  product, and the angle at position 0, ``offset * theta_i``, is reduced exactly once and added modulo a
  turn, so the phase stays exact at every integer position; ``scale`` 0 leaves the pair at that angle.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Literal

import mpmath
import numpy as np

from .errors import UsageError
from .spec import RopeSpec

__all__ = [
    "FORMS",
    "apply_rope",
    "rope_matrix",
    "phases",
    "cos_sin",
    "angles",
    "rotate",
    "layout_permutation",
    "effective_seq_len",
    "MAX_EXACT_POSITION",
    "AXES_AT",
    "pair_positions",
    "angle_extent",
]

Form = Literal["matrix", "elementwise", "complex"]
AxesAt = Literal["first", "last"]
#: Where a multi-axis position array holds its axes: its first dimension or its last one.
AXES_AT: tuple[AxesAt, ...] = ("first", "last")
FORMS: tuple[Form, ...] = ("matrix", "elementwise", "complex")
MAX_EXACT_POSITION = 2**32 - 1
_M32 = np.uint64(0xFFFFFFFF)


def layout_permutation(rotary_dim: int, head_dim: int | None = None, *, start: int = 0) -> np.ndarray:
    """The even-first permutation P from the interleaved to the half layout.

    ``x_half = x_interleaved[..., perm]`` puts the even dims first and the odd dims after,
    so the interleaved pair (2i, 2i+1) lands on the half-split pair (i, i + r/2). Dims outside
    the rotated block ``start .. start + rotary_dim - 1`` are left in place.
    ``np.argsort(perm)`` is the inverse (half to interleaved).
    """
    head_dim = rotary_dim if head_dim is None else head_dim
    if rotary_dim % 2 or rotary_dim < 0 or start < 0 or start + rotary_dim > head_dim:
        raise UsageError(f"rotary_dim must be even and <= head_dim, got {rotary_dim} and {head_dim}")
    block = start + np.concatenate([np.arange(0, rotary_dim, 2), np.arange(1, rotary_dim, 2)])
    return np.concatenate([np.arange(0, start), block, np.arange(start + rotary_dim, head_dim)])


def effective_seq_len(spec: RopeSpec, positions: np.ndarray, seq_len: int | None = None) -> int | None:
    """The length the schedule sees: ``seq_len`` if given, else max(position)+1 for length-dependent schedules."""
    if seq_len is not None or not spec.depends_on_length:
        return seq_len
    positions = np.asarray(positions)
    return int(positions.max()) + 1 if positions.size else None


def _as_int_positions(positions: np.ndarray | int) -> np.ndarray:
    p = np.asarray(positions)
    if p.dtype.kind == "f":
        if not np.all(np.isfinite(p)) or not np.all(p == np.round(p)):
            raise UsageError("positions must be integers (got non-integral floats)")
        p = p.astype(np.int64)
    elif p.dtype.kind not in "iu":
        raise UsageError(f"positions must be an integer array, got dtype {p.dtype}")
    p = p.astype(np.int64)
    if p.size and np.abs(p).max() > MAX_EXACT_POSITION:
        raise UsageError(f"positions must satisfy |p| <= 2^32-1, got {int(np.abs(p).max())}")
    return p


def _turn_fraction(angle: mpmath.mpf) -> int:
    """``angle / (2 pi) mod 1`` as a 128-bit binary fraction of a turn (an integer below 2^128)."""
    turns = angle / (2 * mpmath.pi)
    frac = turns - mpmath.floor(turns)
    return int(mpmath.nint(frac * mpmath.mpf(2) ** 128)) % (1 << 128)


@functools.lru_cache(maxsize=1024)
def _turn_limbs(spec: RopeSpec, seq_len: int | None) -> tuple[np.ndarray, ...]:
    """scale_i * theta_i / (2 pi) as a 128-bit binary fraction of a turn, in four 32-bit limbs (low first).

    scale_i is the pair's position map's slope (1 for integer positions: theta_i itself)."""
    scales = (1.0,) * spec.half if spec.axes is None else tuple(s for s, _ in spec.axes.position_map())
    with mpmath.workprec(320):
        fixed = [_turn_fraction(mpmath.mpf(theta) * s) for theta, s in zip(spec.inv_freq_mp(seq_len), scales)]
    limbs = tuple(np.array([(f >> (32 * k)) & 0xFFFFFFFF for f in fixed], dtype=np.uint64) for k in range(4))
    for limb in limbs:
        limb.setflags(write=False)
    return limbs


@functools.lru_cache(maxsize=1024)
def _offset_turns(spec: RopeSpec, seq_len: int | None) -> np.ndarray | None:
    """direction * offset_i * theta_i / (2 pi) mod 1, the top 64 bits of its 128-bit fraction of a turn, per pair
    (the angle every pair has at position 0); None when every offset is 0."""
    if spec.integer_positions:
        return None
    offsets = tuple(o for _, o in spec.axes.position_map())  # type: ignore[union-attr]
    if not any(offsets):
        return None
    with mpmath.workprec(320):
        fixed = [
            _turn_fraction(mpmath.mpf(theta) * o * spec.direction)
            for theta, o in zip(spec.inv_freq_mp(seq_len), offsets)
        ]
    top = np.array([f >> 64 for f in fixed], dtype=np.uint64)
    top.setflags(write=False)
    return top


def pair_positions(spec: RopeSpec, positions: np.ndarray | int, axes_at: AxesAt | None = None) -> np.ndarray:
    """The position each rotated pair turns by: shape ``(..., r/2)``, or ``(..., 1)`` for one position on every pair.

    ``axes_at`` says where multi-axis positions hold their axes (``"first"``: ``(axes, ...)``;
    ``"last"``: ``(..., axes)``); None gives every pair the same position (1-D RoPE, text tokens).

    Example:
        >>> from ropecheck.axes import mrope
        >>> spec = RopeSpec(head_dim=8, axes=mrope((2, 1, 1), 8))
        >>> pair_positions(spec, np.array([5, 6, 7]), "last").tolist()
        [5, 5, 6, 7]
    """
    p = _as_int_positions(positions)
    if axes_at is None:
        return p[..., None]
    if axes_at not in AXES_AT:
        raise UsageError(f"axes_at must be 'first' or 'last', got {axes_at!r}")
    if spec.axes is None:
        raise UsageError("per-axis positions need a multi-axis spec (spec.axes); this spec is 1-D")
    n = len(spec.axes.axes)
    if p.ndim == 0 or p.shape[0 if axes_at == "first" else -1] != n:
        where = "first" if axes_at == "first" else "last"
        raise UsageError(
            f"per-axis positions need {n} axes ({', '.join(spec.axis_names)}) in their {where} dimension, "
            f"got shape {p.shape}"
        )
    if axes_at == "first":
        p = np.moveaxis(p, 0, -1)
    return p[..., spec.axis_of_pair()]


def phases(
    spec: RopeSpec, positions: np.ndarray | int, *, seq_len: int | None = None, axes_at: AxesAt | None = None
) -> np.ndarray:
    """The exact phase m*theta_i (times the spec's direction) reduced to [0, 2*pi), shape ``positions.shape + (r/2,)``.

    Exact to about 1e-15 rad for every integer |m| < 2^32 (see the module docstring). With
    ``axes_at`` (multi-axis specs) the axes dimension of ``positions`` is replaced by the pairs'.
    """
    return _phases(spec, pair_positions(spec, positions, axes_at), seq_len)


def _phases(spec: RopeSpec, pp: np.ndarray, seq_len: int | None) -> np.ndarray:
    """:func:`phases` of per-pair positions ``pp`` (``(..., r/2)`` or ``(..., 1)``)."""
    p = pp
    seq_len = effective_seq_len(spec, p, seq_len)
    if spec.direction < 0:  # -m*theta_i: the phase of -m, reduced as exactly
        p = -p
    f0, f1, f2, f3 = _turn_limbs(spec, seq_len)
    m = np.abs(p).astype(np.uint64)
    with np.errstate(over="ignore"):
        t0, t1, t2, t3 = m * f0, m * f1, m * f2, m * f3  # each < 2^64: m < 2^32, limb < 2^32
        low = t0 + ((t1 & _M32) << np.uint64(32))  # bits 0..63 of m*F (mod 2^64)
        carry = (low < t0).astype(np.uint64)
        top = t2 + (t1 >> np.uint64(32)) + carry + ((t3 & _M32) << np.uint64(32))  # bits 64..127
        neg = np.broadcast_to(p < 0, top.shape)
        # -(top*2^64 + low) mod 2^128, top half: ~top, plus one when the low half is zero
        top = np.where(neg, ~top + (low == 0).astype(np.uint64), top)
        offset = _offset_turns(spec, seq_len)
        if offset is not None:  # the affine map's angle at position 0, added modulo one turn
            top = top + offset
    frac = (top >> np.uint64(11)).astype(np.float64) * 2.0**-53 + (top & np.uint64(0x7FF)).astype(np.float64) * 2.0**-64
    return (2 * np.pi) * frac


def cos_sin(
    spec: RopeSpec, positions: np.ndarray | int, *, seq_len: int | None = None, axes_at: AxesAt | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of the exact phases, each of shape ``positions.shape + (r/2,)`` (see :func:`phases`)."""
    ph = phases(spec, positions, seq_len=seq_len, axes_at=axes_at)
    return np.cos(ph), np.sin(ph)


def angles(
    spec: RopeSpec, positions: np.ndarray | int, *, seq_len: int | None = None, axes_at: AxesAt | None = None
) -> np.ndarray:
    """The unreduced angles m*theta_i (times the direction) as one fp64 product, as careful fp64 code forms it."""
    p = pair_positions(spec, positions, axes_at)
    seq_len = effective_seq_len(spec, p, seq_len)
    if not spec.integer_positions:  # the axes' position maps: (scale_i * p + offset_i) * theta_i
        scale, offset = spec.position_map()
        return float(spec.direction) * (scale * p.astype(np.float64) + offset) * spec.inv_freq(seq_len)
    return float(spec.direction) * p.astype(np.float64) * spec.inv_freq(seq_len)


def angle_extent(spec: RopeSpec, max_position: int) -> int:
    """The ``max_position`` a tolerance (:func:`ropecheck.tolerance.tolerance`) needs for positions up to
    ``max_position``: the position itself for integer positions (its angle bound takes theta_max = 1); for axes
    with a position map or an own table, the largest ``(|scale_i| P + |offset_i|) theta_i`` in radians, times 5/3:
    a careful affine angle carries two roundings more than ``p * theta`` (the product ``scale * p`` and the sum with
    the offset, each relative to ``|scale p| + |offset|``), five in all where the bound counts three.

    Example:
        >>> angle_extent(RopeSpec(head_dim=8), 100)
        100
    """
    own = spec.axes is not None and any(a.freqs is not None for a in spec.axes.axes)
    if spec.integer_positions and not own:
        return int(max_position)
    scale, offset = spec.position_map()
    extent = float(np.max((np.abs(scale) * abs(max_position) + np.abs(offset)) * spec.inv_freq()))
    factor = 5 / 3 if not spec.integer_positions else 1.0
    return max(int(np.ceil(extent * factor)), 1)


def rotate(x: np.ndarray, layout: str) -> np.ndarray:
    """The "rotate" partner of the elementwise form: (-x_b, x_a) placed on each pair (a, b)."""
    x = np.asarray(x)
    if layout == "half":
        h = x.shape[-1] // 2
        return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)
    if layout == "interleaved":
        out = np.empty_like(x)
        out[..., 0::2] = -x[..., 1::2]
        out[..., 1::2] = x[..., 0::2]
        return out
    raise UsageError(f"layout must be 'interleaved' or 'half', got {layout!r}")


def _expand(table: np.ndarray, layout: str) -> np.ndarray:
    """(..., r/2) per-pair values to (..., r) per-dim values in the given layout."""
    if layout == "half":
        return np.concatenate([table, table], axis=-1)
    return np.repeat(table, 2, axis=-1)


def rope_matrix(
    spec: RopeSpec, position: int | Sequence[int], *, seq_len: int | None = None, scaled: bool = True
) -> np.ndarray:
    """The block-diagonal matrix R_{Theta,m} (head_dim x head_dim) at one position.

    Block i acts on the pair (a, b) = ``spec.pairs()[i]`` as [[cos, -sin], [sin, cos]] of
    m*theta_i; dims past ``rotary_dim`` get 1 on the diagonal. With ``scaled`` (default) the
    rotary block is multiplied by the attention factor, as the other forms are. A multi-axis
    spec takes one position per axis (a sequence), or one int for all of them.
    """
    p = np.asarray(position)
    pp = pair_positions(spec, p[None, :], "last") if p.ndim == 1 else pair_positions(spec, p[None])
    return _matrix(spec, pp[0], seq_len, scaled)


def _matrix(spec: RopeSpec, pp: np.ndarray, seq_len: int | None, scaled: bool) -> np.ndarray:
    """:func:`rope_matrix` at the per-pair positions ``pp`` (``(r/2,)`` or ``(1,)``)."""
    ph = _phases(spec, pp, seq_len)
    c, s = np.broadcast_to(np.cos(ph), (spec.half,)), np.broadcast_to(np.sin(ph), (spec.half,))
    scale = spec.attention_factor if scaled else 1.0
    m = np.eye(spec.head_dim)
    a, b = spec.pairs().T
    m[a, a] = scale * c
    m[a, b] = -scale * s
    m[b, a] = scale * s
    m[b, b] = scale * c
    return m


def apply_rope(
    x: np.ndarray,
    positions: np.ndarray | int,
    spec: RopeSpec,
    *,
    form: Form = "elementwise",
    seq_len: int | None = None,
    scaled: bool = True,
    axes_at: AxesAt | None = None,
) -> np.ndarray:
    """Rotate ``x`` (last axis ``head_dim``) by the positions, in fp64.

    Args:
        x: array ``(..., head_dim)``.
        positions: integers broadcastable to ``x.shape[:-1]``; for a multi-axis spec with
            ``axes_at``, one such array per axis, stacked first or last.
        spec: what RoPE to apply.
        form: ``"matrix"``, ``"elementwise"`` or ``"complex"``; all three agree to ~1e-15.
        seq_len: the current length for length-dependent schedules (default max(positions)+1).
        scaled: multiply by the spec's attention factor (as real implementations do).
        axes_at: where per-axis positions hold their axes (``"first"``: ``(axes, ...)``,
            ``"last"``: ``(..., axes)``); None gives every axis the same position.

    Example:
        >>> import numpy as np
        >>> spec = RopeSpec(head_dim=2)
        >>> apply_rope(np.array([1.0, 0.0]), 1, spec).round(4).tolist()
        [0.5403, 0.8415]
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim < 1 or x.shape[-1] != spec.head_dim:
        raise UsageError(f"x must have last dimension head_dim={spec.head_dim}, got shape {x.shape}")
    order = spec.output_order()
    if order is not None:  # the rotation in the spec's order, each dim then stored where output_layout puts it
        rotated = apply_rope(
            x, positions, spec.with_(output_layout=None), form=form, seq_len=seq_len, scaled=scaled, axes_at=axes_at
        )
        stored = np.empty_like(rotated)
        stored[..., order] = rotated
        return stored
    pp = pair_positions(spec, positions, axes_at)
    try:
        pp = np.broadcast_to(pp, x.shape[:-1] + pp.shape[-1:])
    except ValueError:
        shape = pp.shape[:-1] if axes_at is None else np.asarray(positions).shape
        raise UsageError(f"positions of shape {shape} do not broadcast to x.shape[:-1] = {x.shape[:-1]}") from None
    seq_len = effective_seq_len(spec, pp, seq_len)
    scale = spec.attention_factor if scaled else 1.0
    r, r0 = spec.rotary_dim, spec.rotary_start
    if form == "matrix":
        out = np.empty_like(x)
        flat_p = pp.reshape(-1, pp.shape[-1])
        flat_x, flat_out = x.reshape(-1, spec.head_dim), out.reshape(-1, spec.head_dim)
        for pos in np.unique(flat_p, axis=0):
            rows = (flat_p == pos).all(axis=-1)
            mat = _matrix(spec, pos, seq_len, scaled)
            flat_out[rows] = flat_x[rows] @ mat.T
        return out
    ph = _phases(spec, pp, seq_len)
    c, s = np.cos(ph), np.sin(ph)
    out = x.copy()
    if form == "elementwise":
        xr = x[..., r0 : r0 + r]
        out[..., r0 : r0 + r] = scale * (
            xr * _expand(c, spec.layout) + rotate(xr, spec.layout) * _expand(s, spec.layout)
        )
        return out
    if form == "complex":
        a, b = spec.pairs().T
        z = (x[..., a] + 1j * x[..., b]) * (scale * (c + 1j * s))
        out[..., a] = z.real
        out[..., b] = z.imag
        return out
    raise UsageError(f"form must be one of {', '.join(FORMS)}, got {form!r}")
