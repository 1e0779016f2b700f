"""Verifying multi-axis RoPE (M-RoPE, 2-D axial) under ``--positions axes``.

The protocol: ``fn(x, positions)`` with x ``(batch, seq, heads, head_dim)`` and positions int64
``(axes, batch, seq)`` -- one position per axis, in the spec's axis order (``t, h, w`` for
M-RoPE, ``h, w`` for image patches). The checks, in this order:

* **zero probe** -- every axis at position 0 must be the identity. A pair that turns there
  turns by a position the caller did not give; when the offsets differ between axes, text
  tokens (one position on every axis) get different positions per axis.
* **pair -> axis identification** -- basis vectors at position 1 on one axis at a time (0 on
  the others) show which axis turns each of the spec's pairs, and at what frequency. The
  assignment recovered is compared with the spec's and a difference is said in words ("pairs
  16-39 rotate by the width position; the spec says height") and named: axes swapped, section
  sizes off, interleaved read as chunked (or the reverse), an axis ignored.
* **1-D view** -- the target called with one position on every axis (text tokens; patches on
  the diagonal) is verified by the 1-D verifier (layout, direction, frequencies, precision,
  properties), since M-RoPE reduces to 1-D RoPE there.
* **per-axis reference** (per dtype) -- outputs at independent per-axis positions against the
  fp64 reference, with the 1-D error model's bound. A bfloat16/float16 output that misses it but
  matches the reference with theta_i, the angles, or the (mapped) positions rounded to its dtype is
  that precision cause (a buffer cast with the model), never an axes finding: the axes it turns by
  are the spec's.
* **per-axis relative position** -- scores unchanged when one axis (each in turn), or all of
  them, shift for q and k alike.

Design constraints: small calls (a few hundred tokens); structural findings are in the
``identification`` category, so the root cause comes first and what it breaks folds under it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..axes import MultiAxis, progressions
from ..axis_properties import axis_scores
from ..diagnosis import sentence
from ..diagnosis.output import rotate_by, round_to
from ..errors import UsageError
from ..protocol import Implementation
from ..reference import angle_extent, apply_rope, pair_positions, phases
from ..spec import RopeSpec
from ..tolerance import UNIT_ROUNDOFF, tolerance
from .model import Check, RunContext, VerifyReport
from .probes import random_x

__all__ = [
    "AXIS_WORDS",
    "AxisIdentification",
    "check_mapped_range",
    "check_multi_axis",
    "identify_axes",
    "plain_positions",
    "text_view",
]

#: How findings name the axes the configs call t, h, w.
AXIS_WORDS: dict[str, str] = {"t": "temporal", "h": "height", "w": "width"}
#: Positions drawn for the per-axis checks (each axis independently below this).
AXES_MAX_POSITION = 4096


def _word(name: str) -> str:
    return AXIS_WORDS.get(name, name)


def text_view(impl: Implementation, axes: int) -> Implementation:
    """The target as a 1-D RoPE: ``(batch, seq)`` positions given on every one of ``axes`` axes
    (a callable made where the target lives, :mod:`ropecheck.host`)."""
    return impl.derive("axes", axes=int(axes))


class AxisIdentification:
    """What the probes show: per pair, the axis that turns it (None: none; -1: several; -2: its two halves turn by
    two different axes, so it is no rotation) and the angles.

    Attributes:
        axis_of_pair: per spec pair, the index of the axis turning it, None, -1 or -2.
        ratio: ``(axes, pairs)``: the angle at position 1 on each axis over the spec's theta_i.
        offset: per pair, the angle at position 0 on every axis over theta_i (0 when right).
    """

    def __init__(
        self,
        axis_of_pair: list[int | None],
        ratio: np.ndarray,
        offset: np.ndarray,
        split: dict[int, tuple[int, int]] | None = None,
    ) -> None:
        self.axis_of_pair = axis_of_pair
        self.ratio = ratio
        self.offset = offset
        #: per pair marked -2: (the axis its cos half turns by, the axis its sin half turns by)
        self.split = split or {}
        #: pairs of an inert axis (scale 0) that turn by its own position, where the spec holds them still
        self.inert_turning: list[int] = []
        #: mapped axes: how far each step (``ratio``'s shape) and each angle at position 0 may be off the spec's
        self.slack = np.full(np.shape(ratio), MAPPED_ANGLE_SLACK)
        self.offset_slack = np.full(np.shape(offset), MAPPED_ANGLE_SLACK)


def _angles(out: np.ndarray, spec: RopeSpec) -> tuple[np.ndarray, np.ndarray]:
    """(probes, pairs) angles of the matrices read from basis-vector outputs ``(1, probes, D, D)``: from each
    pair's first column ``(cos, sin)`` and from its second ``(-sin, cos)``, the same angle for a rotation."""
    a, b = spec.pairs().T
    m = np.swapaxes(out[0], -1, -2)  # column h of each probe's matrix is out[0, k, h, :]
    return np.arctan2(m[:, b, a], m[:, a, a]), np.arctan2(-m[:, a, b], m[:, b, b])


def _pair_heads(spec: RopeSpec, probes: int) -> np.ndarray:
    """``(1, probes, 2, d)``: head 0 holds every pair's first dim, head 1 every pair's second. A rotation acts on
    each pair alone, so head 0's output holds each pair's first column ``(cos, sin)`` and head 1's its second:
    two heads where the basis needs ``d`` (LTX 2's 4096-dim inner dim)."""
    x = np.zeros((1, probes, 2, spec.head_dim))
    a, b = spec.pairs().T
    x[:, :, 0, a] = 1.0
    x[:, :, 1, b] = 1.0
    return x


def _pair_columns(out: Any, spec: RopeSpec) -> tuple[np.ndarray, np.ndarray]:
    """(probes, pairs) angles from :func:`_pair_heads`'s outputs: each pair's first column, and its second."""
    o = np.asarray(out, dtype=np.float64)[0]
    a, b = spec.pairs().T
    return np.arctan2(o[:, 0, b], o[:, 0, a]), np.arctan2(-o[:, 1, a], o[:, 1, b])


def identify_axes(impl: Implementation, spec: RopeSpec, dtype: str, device: str, top: int = 1) -> AxisIdentification:
    """Probe the target with basis vectors: all axes at 0, then position 1 on one axis at a time.

    Axes with position maps are probed at ``top`` too (the largest position of the range): a slope as small as
    LTX's ``2 / 2048`` turns its slow pairs by ~1e-3 rad a position, too little to see at position 1."""
    assert spec.axes is not None
    n, d = len(spec.axes.axes), spec.head_dim
    steps = (1,) if plain_positions(spec) or top <= 1 else (1, int(top))
    probes = n * len(steps) + 1
    pos = np.zeros((n, 1, probes), dtype=np.int64)
    for k in range(n):
        for m, q in enumerate(steps):
            pos[k, 0, k * len(steps) + m + 1] = q
    if not plain_positions(spec):
        ang, ang_b = _pair_columns(impl.call(_pair_heads(spec, probes), dtype=dtype, device=device, positions=pos),
                                   spec)  # fmt: skip
        return _identify_mapped(spec, pos, ang, ang_b, len(steps), dtype)
    x = np.broadcast_to(np.eye(d), (1, probes, d, d)).copy()  # head h holds e_h
    out = impl.call(x, dtype=dtype, device=device, positions=pos)
    ang, ang_b = _angles(np.asarray(out, dtype=np.float64), spec)
    theta = spec.direction * spec.inv_freq()
    offset = ang[0] / theta
    ratio = (ang[1:] - ang[0]) / theta
    ratio_b = (ang_b[1:] - ang_b[0]) / theta
    axis_of: list[int | None] = []
    split: dict[int, tuple[int, int]] = {}
    for i in range(spec.half):
        turned = np.flatnonzero(np.abs(ratio[:, i]) > 0.5)
        turned_b = np.flatnonzero(np.abs(ratio_b[:, i]) > 0.5)
        if turned.size == 1 and turned_b.size == 1 and turned[0] != turned_b[0]:
            # column a reads (cos of the first half's axis, sin of the second's); column b the other way round
            axis_of.append(-2)
            split[i] = (int(turned_b[0]), int(turned[0]))
            continue
        axis_of.append(None if turned.size == 0 else int(turned[0]) if turned.size == 1 else -1)
    return AxisIdentification(axis_of, ratio, offset, split)


#: How far (radians, modulo a turn) a probed angle may be from the spec's before a pair counts as turned otherwise, at
#: least: far above float32's error at the angles LTX reaches in its range (~3e-2 rad at 8e4 rad), far below a turn.
MAPPED_ANGLE_SLACK = 0.25
#: Float32 ulps of its size a probed angle may carry besides: ``(|scale| q + |offset|) theta_i`` formed with a rounded
#: position, product, sum and table (LTX's exponent rounded to float32: ~7 ulps measured). Where that reaches a
#: half turn, the probe says nothing about the pair (its slack passes every angle), never a false difference.
MAPPED_ANGLE_ULPS = 16


def _mapped_slack(spec: RopeSpec, pos: np.ndarray, dtype: str = "float32") -> np.ndarray:
    """(probes, pairs): how far each probed angle may be off the spec's -- :data:`MAPPED_ANGLE_SLACK`, or the
    float32 error :data:`MAPPED_ANGLE_ULPS` allows at the angle's size, if more; in bfloat16/float16, theta_i
    rounded to the dtype too (a buffer cast with the model: a precision finding the reference check names, never
    a structural one here)."""
    scale, offset = spec.position_map()
    per_pair = np.moveaxis(pos[:, 0, :], 0, -1)[:, spec.axis_of_pair()].astype(np.float64)  # (probes, pairs)
    size = (np.abs(scale) * np.abs(per_pair) + np.abs(offset)) * spec.inv_freq()
    relative = MAPPED_ANGLE_ULPS * 2.0**-24 + (UNIT_ROUNDOFF[dtype] if dtype in ("bfloat16", "float16") else 0.0)
    return np.maximum(MAPPED_ANGLE_SLACK, relative * size)


def plain_positions(spec: RopeSpec) -> bool:
    """True when every pair turns by its axis's integer position on a ``base ** (-2j / D)`` table: the 1-D view and
    the probes at position 1 read the angles directly. False for axes with a position map or an own table, whose
    angles at position 0 and 1 may be large (LTX: 1.6e4 rad) and are compared with the spec's modulo a turn."""
    return spec.integer_positions and not (spec.axes is not None and spec.axes.own_tables)


def _wrap(angle: np.ndarray) -> np.ndarray:
    """Angles reduced to (-pi, pi]."""
    return np.angle(np.exp(1j * angle))


def _identify_mapped(
    spec: RopeSpec, pos: np.ndarray, ang: np.ndarray, ang_b: np.ndarray, per_axis: int, dtype: str
) -> AxisIdentification:
    """:func:`identify_axes` for axes with position maps or own tables: each probe's angles against the exact
    reference's (:func:`~ropecheck.reference.phases`) modulo a turn, and, for a pair that differs, the axes whose
    steps from position 0 (``per_axis`` probes an axis) turn it. ``offset`` holds, per pair, the angle at position 0
    less the spec's, and ``ratio`` each probe's step less the spec's (in radians, wrapped)."""
    want = phases(spec, pos, axes_at="first")[0]  # (probes, pairs)
    expected = [int(a) for a in spec.axis_of_pair()]
    offset = _wrap(ang[0] - want[0])
    ratio = _wrap((ang[1:] - ang[0]) - (want[1:] - want[0]))
    ratio_b = _wrap((ang_b[1:] - ang_b[0]) - (want[1:] - want[0]))
    step, step_b = _wrap(ang[1:] - ang[0]), _wrap(ang_b[1:] - ang_b[0])
    slack = _mapped_slack(spec, pos, dtype)
    within = slack[1:] + slack[0]  # a step carries the errors of both its angles
    axis_of: list[int | None] = []
    split: dict[int, tuple[int, int]] = {}
    for i in range(spec.half):
        if np.all(np.abs(ratio[:, i]) < within[:, i]) and np.all(np.abs(ratio_b[:, i]) < within[:, i]):
            axis_of.append(expected[i])  # every step is the spec's (an inert or a full-turn step included)
            continue
        turned = np.flatnonzero((np.abs(step[:, i]) >= within[:, i]).reshape(-1, per_axis).any(axis=1))
        turned_b = np.flatnonzero((np.abs(step_b[:, i]) >= within[:, i]).reshape(-1, per_axis).any(axis=1))
        if turned.size == 1 and turned_b.size == 1 and turned[0] != turned_b[0]:
            axis_of.append(-2)
            split[i] = (int(turned_b[0]), int(turned[0]))
            continue
        axis_of.append(None if turned.size == 0 else int(turned[0]) if turned.size == 1 else -1)
    ident = AxisIdentification(axis_of, ratio, offset, split)
    ident.slack, ident.offset_slack = within, slack[0]
    inert = [a.scale == 0 for a in spec.axes.axes]  # type: ignore[union-attr]
    ident.inert_turning = [i for i, g in enumerate(axis_of) if g == expected[i] and inert[expected[i]]
                           and not np.all(np.abs(ratio[:, i]) < within[:, i])]  # fmt: skip
    return ident


def _runs_by(values: list[Any]) -> list[tuple[int, int, Any]]:
    out: list[tuple[int, int, Any]] = []
    for i, v in enumerate(values):
        if out and out[-1][2] == v and out[-1][1] == i - 1:
            out[-1] = (out[-1][0], i, v)
        else:
            out.append((i, i, v))
    return out


def _pairs_words(pairs: list[int]) -> str:
    text = progressions(pairs).replace("-", "\u2013")
    return f"pair {text}" if len(pairs) == 1 else f"pairs {text}"


def describe_mismatch(
    got: list[int | None], expected: list[int], axes: MultiAxis, split: dict[int, tuple[int, int]] | None = None
) -> list[str]:
    """Sentences, one per (got, expected) group: "pairs 16–39 rotate by the width position; the spec says height"."""
    names = axes.names
    split = split or {}
    groups: dict[tuple[Any, int], list[int]] = {}
    for i, (g, e) in enumerate(zip(got, expected)):
        if g != e:
            groups.setdefault((split.get(i, g), e), []).append(i)
    out = []
    for (g, e), pairs in groups.items():
        s = "s" if len(pairs) == 1 else ""
        if g is None:
            what = f"turn{s} by no position axis"
        elif g == -1:
            what = f"turn{s} by several position axes at once"
        elif isinstance(g, tuple):
            what = (
                f"turn{s} by the {_word(names[g[0]])} position in the first half and the {_word(names[g[1]])} "
                "position in the second (no rotation)"
            )
        else:
            what = f"rotate{s} by the {_word(names[g])} position"
        held = " (an inert axis: it never turns them)" if axes.axes[e].scale == 0 else ""
        out.append(f"{_pairs_words(pairs)} {what}; the spec says {_word(names[e])}{held}")
    return out


def _mrope_rule(sections: tuple[int, ...], pairs: int, *, interleaved: bool) -> list[int]:
    """transformers' recomposition as a pair -> axis list (interleaved: even where the counts do not fit)."""
    if not interleaved:
        return [a for a, size in enumerate(sections) for _ in range(size)][:pairs]
    n = len(sections)
    return [a if (a := i % n) > 0 and i < n * sections[a] else 0 for i in range(pairs)]


def _cause(got: list[int | None], expected: list[int], axes: MultiAxis) -> tuple[str, str]:
    """(cause, its words) for a wrong pair -> axis assignment."""
    n = len(axes.axes)
    names = axes.names
    if -2 in got:
        return "pair_axes_split", "the two halves of a pair turn by different position axes: no pair is a rotation"
    if -1 in got:
        return "axes_wrong", "positions are combined across axes: pairs turn by several axes at once"
    ignored = [a for a in range(n) if a not in got]
    if ignored and all(e not in ignored or g is not None for g, e in zip(got, expected)):
        a = ignored[0]
        return "axis_ignored", f"the {_word(names[a])} position is ignored: no pair turns by it"
    if ignored:
        a = ignored[0]
        return "axis_ignored", f"the {_word(names[a])} position is ignored: its pairs turn by no axis"
    mapping: dict[int, int] = {}
    if all(g is not None and g >= 0 for g in got) and all(mapping.setdefault(e, g) == g for g, e in zip(got, expected)):  # type: ignore[arg-type]
        if sorted(mapping.values()) == list(range(n)):
            moved = [f"{_word(names[e])}\u2194{_word(names[g])}" for e, g in mapping.items() if e < g]
            return "axes_swapped", f"the position axes are swapped ({', '.join(moved)})"
    if axes.scheme in ("mrope", "mrope-interleaved") and axes.sections is not None:
        other = _mrope_rule(axes.sections, axes.pair_count, interleaved=axes.scheme == "mrope")
        if list(got) == other:
            if axes.scheme == "mrope-interleaved":
                return "mrope_interleaved_as_chunked", "interleaved M-RoPE sections applied as consecutive chunks"
            return "mrope_chunked_as_interleaved", "chunked M-RoPE sections applied interleaved"
        counts = [got.count(a) for a in range(n)]
        if axes.scheme == "mrope" and all(g is not None for g in got) and sorted(got) == list(got):  # type: ignore[type-var]
            return "sections_wrong", f"section sizes {counts}; the spec's mrope_section is {list(axes.sections)}"
    return "axes_wrong", "the pairs turn by other position axes than the spec's"


def check_multi_axis(report: VerifyReport, ctx: RunContext, dtype: str) -> AxisIdentification | None:
    """Record the zero probe and the pair -> axis identification; the identification, or None when it failed.

    ``ctx.impl`` is the multi-axis target (positions ``(axes, batch, seq)``).
    """
    spec = ctx.rope
    assert spec.axes is not None
    try:
        ident = identify_axes(ctx.impl, spec, dtype, ctx.device, min(ctx.top, AXES_MAX_POSITION - 1))
    except Exception as exc:  # the interface check of the 1-D view reports a raising target
        report.add(Check("multiaxis:pairs", "identification", "skip", f"not run: the target raised {exc!r}", dtype))
        return None
    names = spec.axis_names
    axis_of = spec.axis_of_pair()
    if not plain_positions(spec) and _mapped_zero_fails(report, spec, ident, dtype):
        return None
    # the zero probe: per axis, the position its pairs turn by when every axis is at 0
    off = np.round(ident.offset).astype(np.int64)
    if plain_positions(spec) and np.any(np.abs(ident.offset) > 0.25):
        per_axis = {}
        for a in range(len(names)):
            vals = sorted(set(off[axis_of == a].tolist()))
            per_axis[names[a]] = vals[0] if len(vals) == 1 else vals
        text = ", ".join(
            f"{_word(n)} at {v:+d}" if isinstance(v, int) else f"{_word(n)} at {v}" for n, v in per_axis.items()
        )
        distinct = len({str(v) for v in per_axis.values()}) > 1
        report.add(
            Check(
                "multiaxis:zero",
                "identification",
                "fail",
                f"with every axis at position 0 the pairs still turn: {text} "
                + (
                    "(text tokens, one position on every axis, are rotated at different positions per axis)"
                    if distinct
                    else ""
                ),
                dtype,
                "give a text token its 1-D position on every axis, unshifted (look for a per-axis offset or delta)",
                "axes" if distinct else "positions",
                {"offsets": {k: v for k, v in per_axis.items()}},
                "text_positions_differ" if distinct else "positions_shifted",
            )
        )
        return None
    if plain_positions(spec):
        report.add(Check("multiaxis:zero", "identification", "pass", "every axis at position 0 is the identity", dtype))
    got = ident.axis_of_pair
    expected = [int(a) for a in axis_of]
    if got == expected and ident.inert_turning:
        _inert_turning(report, spec, ident.inert_turning, dtype)
        return None
    if got != expected:
        cause, words = _cause(got, expected, spec.axes)
        sentences = describe_mismatch(got, expected, spec.axes, ident.split)
        if len(sentences) > 3:  # the first groups show the pattern; the table holds the rest
            sentences = [*sentences[:2], f"and {len(sentences) - 2} more groups of pairs"]
        if spec.axes.scheme.startswith("axial"):
            fix = (
                f"rotate the pairs by the axes of the spec ({spec.axes.describe()}): check which patch coordinate "
                "(row or column) each part of the pairs reads, and the order the (h, w) positions are built in"
            )
        else:
            fix = (
                f"rotate the pairs by the axes of the spec ({spec.axes.describe()}): check mrope_section, "
                "mrope_interleaved and which position axis each section reads"
            )
        report.add(
            Check(
                "multiaxis:pairs",
                "identification",
                "fail",
                f"{words}: " + "; ".join(sentences),
                dtype,
                fix,
                "axes",
                {"axis_of_pair": [None if g is None else int(g) for g in got], "expected": expected},
                cause,
            ),
            f"{words}: " + "; ".join(sentences),
        )
        return None
    report.add(
        Check(
            "multiaxis:pairs",
            "identification",
            "pass",
            f"every pair turns by the spec's axis ({spec.axes.describe()})",
            dtype,
        )
    )
    return ident


def _inert_turning(report: VerifyReport, spec: RopeSpec, pairs: list[int], dtype: str) -> None:
    """Record the pairs of an inert axis (scale 0) that turn by its position: the spec holds them still."""
    names = sorted({spec.axis_names[int(spec.axis_of_pair()[i])] for i in pairs})
    text = (
        f"an inert axis turns its pairs: {_pairs_words(pairs)} turn{'s' if len(pairs) == 1 else ''} by the "
        f"{', '.join(_word(n) for n in names)} "
        "position; the spec holds them still (scale 0)"
    )
    report.add(Check("multiaxis:pairs", "identification", "fail", text, dtype,
                     "keep the inert axis's pairs at their fixed angle (its position multiplied by 0), or state the "
                     "axis's scale in the spec", "axes", {"pairs": pairs}, "axes_wrong"), text)  # fmt: skip


def _mapped_zero_fails(report: VerifyReport, spec: RopeSpec, ident: AxisIdentification, dtype: str) -> bool:
    """The zero probe of axes with position maps: at position 0 on every axis each pair must stand at its axis's
    ``offset * theta_i`` (the identity where every offset is 0). Records the check; True when it failed."""
    assert spec.axes is not None
    axis_of = spec.axis_of_pair()
    off = np.abs(ident.offset) >= ident.offset_slack
    if not off.any():
        report.add(Check("multiaxis:zero", "identification", "pass", "every axis at position 0 turns its pairs by "
                         "the spec's offset angles (offset * theta_i)", dtype))  # fmt: skip
        return False
    wrong = {spec.axes.axes[a].name for a in axis_of[off].tolist()}
    words = ", ".join(
        f"{_word(n)} ({spec.axes.axes[spec.axis_names.index(n)].position_words()})" for n in sorted(wrong)
    )
    text = (
        f"with every axis at position 0, {_pairs_words(np.flatnonzero(off).tolist())} stand at other angles than the "
        f"spec's offsets (by up to {float(np.abs(ident.offset).max()):.3g} rad modulo a turn), on the axes {words}"
    )
    steps = np.abs(ident.ratio) >= ident.slack  # (probes, pairs): a step from 0 other than the spec's
    if steps.any():  # the steps differ too: the frequencies (or the axes) are not the spec's, not only the offset
        moved = _pairs_words(np.flatnonzero(steps.any(axis=0)).tolist())
        text += f"; their steps from position 0 differ from the spec's too ({moved})"
        fix = "compare each axis's frequencies and position map with the spec's (a reversed or rescaled table)"
        report.add(Check("multiaxis:zero", "identification", "fail", text, dtype, fix, "axes",
                         {"pairs": np.flatnonzero(off).tolist()}, "axes_wrong"))  # fmt: skip
        return True
    report.add(Check("multiaxis:zero", "identification", "fail", text, dtype,
                     "check each axis's position map at 0: its offset (the sign of `2 p / L - 1`, a centring, a "
                     "position counted from 1)", "positions", {"pairs": np.flatnonzero(off).tolist()},
                     "positions_shifted"))  # fmt: skip
    return True


def _positions(rng: np.random.Generator, n: int, batch: int, seq: int, top: int) -> np.ndarray:
    return rng.integers(0, top + 1, size=(n, batch, seq))


#: The most a comparison's bound may allow for the angles' own error (radians, unit data) before the comparison
#: says nothing: beyond it a wrong angle of that size passes, so the check is a SKIP, never a PASS.
MAX_ANGLE_ALLOWANCE = 0.1


def _too_wide(spec: RopeSpec, top: int, dtype: str) -> str | None:
    """Why a comparison at positions up to ``top`` cannot judge mapped axes (their angles so large that float32's
    error allowance passes wrong angles), or None; always None for integer positions (their bounds unchanged)."""
    if plain_positions(spec):
        return None
    allowance = tolerance(dtype, max_position=angle_extent(spec, top))[1] - tolerance(dtype)[1]
    if allowance <= MAX_ANGLE_ALLOWANCE:
        return None
    return (
        f"not run: the mapped angles reach ~{angle_extent(spec, top) * 0.6:.3g} rad at positions up to {top}, where "
        f"the bound allows {allowance:.3g} rad of angle error: a wrong angle that small would pass; lower max_position"
    )


def check_mapped_range(spec: RopeSpec, top: int) -> None:
    """A :class:`~ropecheck.errors.UsageError` when mapped axes' angles at positions up to ``top`` are too large
    for any comparison to judge them (:func:`_too_wide` in float32), naming the largest range that can be judged:
    a run there would be skips alone, and no verdict."""
    top = min(top, AXES_MAX_POSITION - 1)
    if _too_wide(spec, top, "float32") is None:
        return
    lo, hi = 0, top  # the largest judged top: _too_wide grows with top
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if _too_wide(spec, mid, "float32") is None else (lo, mid - 1)
    raise UsageError(
        f"positions up to {top} turn these mapped axes ({spec.axes.maps_in_words() if spec.axes else ''}) so far "
        f"that float32's angle error passes wrong angles; give max_position {lo + 1} or less"
    )


def check_axes_reference(report: VerifyReport, ctx: RunContext, dtype: str) -> None:
    """Outputs at independent per-axis positions against the fp64 reference (the 1-D error model's bound).

    ``ctx.impl`` is the multi-axis target (positions ``(axes, batch, seq)``).
    """
    impl, spec, device = ctx.impl, ctx.rope, ctx.device
    n = len(spec.axis_names)
    rng = np.random.default_rng(ctx.seed + 11)
    top = min(ctx.top, AXES_MAX_POSITION - 1)
    wide = _too_wide(spec, top, dtype)
    if wide is not None:
        report.add(Check("multiaxis:reference", "precision", "skip", wide, dtype))
        return
    pos = _positions(rng, n, 2, 16, top)
    x = random_x(rng, (2, 16, 2, spec.head_dim), dtype)
    try:
        out = np.asarray(impl.call(x, dtype=dtype, device=device, positions=pos), dtype=np.float64)
    except Exception as exc:
        report.add(Check("multiaxis:reference", "precision", "skip", f"not run: the target raised {exc!r}", dtype))
        return
    ref = apply_rope(x, pos[..., None], spec, axes_at="first")
    rtol, atol = tolerance(dtype, max_position=angle_extent(spec, top))
    err = np.abs(out - ref)
    bad = err > atol + rtol * np.abs(ref)
    if bad.any():
        idx = np.unravel_index(int(np.argmax(err - atol - rtol * np.abs(ref))), err.shape)
        where = ", ".join(f"{_word(spec.axis_names[a])} {int(pos[a, idx[0], idx[1]])}" for a in range(n))
        differ = (
            f"{int(bad.sum())} of {bad.size} elements differ from the reference at per-axis positions "
            f"(greatest {float(err.max()):.3g} at {where}, dim {int(idx[3])})"
        )
        low = _low_precision_cause(out, x, pos, spec, dtype)
        if low is not None:
            words, hint = sentence(low, dtype=dtype)
            report.add(
                Check(
                    "multiaxis:reference",
                    "precision",
                    "fail",
                    f"{words}: {differ}",
                    dtype,
                    hint,
                    "precision",
                    cause=low,
                )
            )
            return
        report.add(
            Check(
                "multiaxis:reference",
                "precision",
                "fail",
                differ,
                dtype,
                "compare the angles per axis with the spec's",
                "axes",
                cause="axes_wrong",
            )
        )
    else:
        report.add(
            Check(
                "multiaxis:reference",
                "precision",
                "pass",
                f"matches the reference at independent positions per axis (up to {top})",
                dtype,
            )
        )


def _low_precision_cause(out: np.ndarray, x: np.ndarray, pos: np.ndarray, spec: RopeSpec, dtype: str) -> str | None:
    """``inv_freq_low_precision``, ``angles_low_precision`` or ``positions_low_precision`` when the output is,
    within the dtype's tolerance, the reference with theta_i, each angle, or each pair's (mapped) position rounded
    to the low-precision ``dtype`` (a float position buffer cast with the model, theta_i with it or not); None
    otherwise.

    Each pair turns by its own axis's position (the spec's), so a match says the axes are right and only the
    rounding is off: the finding is a precision one, as the 1-D diagnosis names it.
    """
    if dtype not in ("bfloat16", "float16"):
        return None
    per_pair = pair_positions(spec, pos, "first")[:, :, None, :].astype(np.float64)  # (batch, seq, 1 head, pairs)
    if not spec.integer_positions:  # each pair's mapped position, scale * p + offset
        scale, offset = spec.position_map()
        per_pair = scale * per_pair + offset
    theta = spec.inv_freq()  # rotate_by turns by the spec's direction
    stored = round_to(round_to(per_pair, "float32"), dtype)  # mapped positions held in a buffer of the dtype
    models = (
        ("inv_freq_low_precision", per_pair * round_to(theta, dtype)),
        ("angles_low_precision", round_to(round_to(per_pair * theta, "float32"), dtype)),
        # the angles formed in the dtype from a cast table (the 1-D diagnosis's first angles model): a grid built in
        # the buffer's dtype, as EfficientLoFTR's compute_embeddings builds its cells in inv_freq's
        ("angles_low_precision", round_to(round_to(per_pair, dtype) * round_to(theta, dtype), dtype)),
        ("positions_low_precision", stored * theta),
        ("positions_low_precision", stored * round_to(theta, dtype)),
    )
    rtol, atol = tolerance(dtype, max_position=angle_extent(spec, int(pos.max())))
    for cause, angles in models:
        ref = rotate_by(x, spec, angles)
        if not np.any(np.abs(out - ref) > atol + rtol * np.abs(ref)):
            return cause
    return None


def check_axes_relative(report: VerifyReport, ctx: RunContext, dtype: str) -> None:
    """Scores unchanged when one axis, or all of them, shift for q and k alike (per-axis relative position).

    ``ctx.impl`` is the multi-axis target (positions ``(axes, batch, seq)``).
    """
    impl, spec, device = ctx.impl, ctx.rope, ctx.device
    n = len(spec.axis_names)
    rng = np.random.default_rng(ctx.seed + 13)
    top = min(ctx.top, AXES_MAX_POSITION - 1)
    wide = _too_wide(spec, top, dtype)
    if wide is not None:
        report.add(Check("property:axis_relative_position", "behaviour", "skip", wide, dtype))
        return
    pos = _positions(rng, n, 1, 8, top // 2)
    q = random_x(rng, (1, 8, 1, spec.head_dim), dtype)
    k = random_x(rng, (1, 8, 1, spec.head_dim), dtype)
    shifts = [(_word(spec.axis_names[a]), np.eye(n, dtype=np.int64)[a]) for a in range(n)]
    shifts.append(("every axis", np.ones(n, dtype=np.int64)))
    rtol, atol = tolerance(dtype, "score", max_position=angle_extent(spec, top), head_dim=spec.head_dim)
    try:
        base = axis_scores(impl, q, k, pos, dtype=dtype, device=device)
        for label, shift in shifts:
            t = int(rng.integers(1, top // 2 + 1))
            moved = axis_scores(impl, q, k, pos + t * shift[:, None, None], dtype=dtype, device=device)
            diff = float(np.abs(moved - base).max())
            if diff > atol + rtol:
                report.add(
                    Check(
                        "property:axis_relative_position",
                        "behaviour",
                        "fail",
                        f"scores change by {diff:.3g} when the {label} position shifts by {t} for q and k alike",
                        dtype,
                        "each axis must rotate q and k by its own position only",
                        "relative_position",
                    )
                )
                return
    except Exception as exc:
        report.add(Check("property:axis_relative_position", "behaviour", "skip", f"not run: {exc!r}", dtype))
        return
    report.add(
        Check(
            "property:axis_relative_position",
            "behaviour",
            "pass",
            "scores depend only on each axis's position difference (each axis, and all, shifted)",
            dtype,
        )
    )
