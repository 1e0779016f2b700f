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
  matches the reference with theta_i (or the angles) rounded to its dtype is that precision cause
  (a buffer cast with the model), never an axes finding: the axes it turns by are the spec's.
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
from ..protocol import Implementation
from ..reference import apply_rope, pair_positions
from ..spec import RopeSpec
from ..tolerance import tolerance
from .model import Check, RunContext, VerifyReport
from .probes import random_x

__all__ = ["AXIS_WORDS", "AxisIdentification", "check_multi_axis", "identify_axes", "text_view"]

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


def _angles(out: np.ndarray, spec: RopeSpec) -> tuple[np.ndarray, np.ndarray]:
    """(probes, pairs) angles of the matrices read from basis-vector outputs ``(1, probes, D, D)``: from each
    pair's first column ``(cos, sin)`` and from its second ``(-sin, cos)``, the same angle for a rotation."""
    a, b = spec.pairs().T
    m = np.swapaxes(out[0], -1, -2)  # column h of each probe's matrix is out[0, k, h, :]
    return np.arctan2(m[:, b, a], m[:, a, a]), np.arctan2(-m[:, a, b], m[:, b, b])


def identify_axes(impl: Implementation, spec: RopeSpec, dtype: str, device: str) -> AxisIdentification:
    """Probe the target with basis vectors: all axes at 0, then position 1 on one axis at a time."""
    assert spec.axes is not None
    n, d = len(spec.axes.axes), spec.head_dim
    probes = n + 1
    x = np.broadcast_to(np.eye(d), (1, probes, d, d)).copy()  # head h holds e_h
    pos = np.zeros((n, 1, probes), dtype=np.int64)
    for k in range(n):
        pos[k, 0, k + 1] = 1
    out = impl.call(x, dtype=dtype, device=device, positions=pos)
    theta = spec.direction * spec.inv_freq()
    ang, ang_b = _angles(np.asarray(out, dtype=np.float64), spec)
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
        out.append(f"{_pairs_words(pairs)} {what}; the spec says {_word(names[e])}")
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
        ident = identify_axes(ctx.impl, spec, dtype, ctx.device)
    except Exception as exc:  # the interface check of the 1-D view reports a raising target
        report.add(Check("multiaxis:pairs", "identification", "skip", f"not run: the target raised {exc!r}", dtype))
        return None
    names = spec.axis_names
    axis_of = spec.axis_of_pair()
    # the zero probe: per axis, the position its pairs turn by when every axis is at 0
    off = np.round(ident.offset).astype(np.int64)
    if np.any(np.abs(ident.offset) > 0.25):
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
    report.add(Check("multiaxis:zero", "identification", "pass", "every axis at position 0 is the identity", dtype))
    got = ident.axis_of_pair
    expected = [int(a) for a in axis_of]
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


def _positions(rng: np.random.Generator, n: int, batch: int, seq: int, top: int) -> np.ndarray:
    return rng.integers(0, top + 1, size=(n, batch, seq))


def check_axes_reference(report: VerifyReport, ctx: RunContext, dtype: str) -> None:
    """Outputs at independent per-axis positions against the fp64 reference (the 1-D error model's bound).

    ``ctx.impl`` is the multi-axis target (positions ``(axes, batch, seq)``).
    """
    impl, spec, device = ctx.impl, ctx.rope, ctx.device
    n = len(spec.axis_names)
    rng = np.random.default_rng(ctx.seed + 11)
    top = min(ctx.top, AXES_MAX_POSITION - 1)
    pos = _positions(rng, n, 2, 16, top)
    x = random_x(rng, (2, 16, 2, spec.head_dim), dtype)
    try:
        out = np.asarray(impl.call(x, dtype=dtype, device=device, positions=pos), dtype=np.float64)
    except Exception as exc:
        report.add(Check("multiaxis:reference", "precision", "skip", f"not run: the target raised {exc!r}", dtype))
        return
    ref = apply_rope(x, pos[..., None], spec, axes_at="first")
    rtol, atol = tolerance(dtype, max_position=top)
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
    """``inv_freq_low_precision`` or ``angles_low_precision`` when the output is, within the dtype's tolerance, the
    reference with theta_i (or each angle) rounded to the low-precision ``dtype``; None otherwise.

    Each pair turns by its own axis's position (the spec's), so a match says the axes are right and only the
    rounding is off: the finding is a precision one, as the 1-D diagnosis names it.
    """
    if dtype not in ("bfloat16", "float16"):
        return None
    per_pair = pair_positions(spec, pos, "first")[:, :, None, :].astype(np.float64)  # (batch, seq, 1 head, pairs)
    theta = spec.inv_freq()  # rotate_by turns by the spec's direction
    models = {
        "inv_freq_low_precision": per_pair * round_to(theta, dtype),
        "angles_low_precision": round_to(round_to(per_pair * theta, "float32"), dtype),
    }
    rtol, atol = tolerance(dtype, max_position=int(pos.max()))
    for cause, angles in models.items():
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
    pos = _positions(rng, n, 1, 8, top // 2)
    q = random_x(rng, (1, 8, 1, spec.head_dim), dtype)
    k = random_x(rng, (1, 8, 1, spec.head_dim), dtype)
    shifts = [(_word(spec.axis_names[a]), np.eye(n, dtype=np.int64)[a]) for a in range(n)]
    shifts.append(("every axis", np.ones(n, dtype=np.int64)))
    rtol, atol = tolerance(dtype, "score", max_position=top, head_dim=spec.head_dim)
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
