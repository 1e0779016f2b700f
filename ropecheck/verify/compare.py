"""Comparing an identified RoPE with a spec, in words: each difference a family code, a cause and a sentence.

:func:`compare` turns what :mod:`.identify` recovered from the target's matrices into
:class:`Discrepancy` objects (the layout, the rotated dims, the direction, the phase at 0,
the attention factor, the frequencies -- which are named when they fit another base, the
unscaled schedule, LongRoPE's other factors, a dtype's rounding, ...); :func:`matrix_deviation`
and :func:`describe_deviation` compare the matrices position by position with the spec's and
say where and how they stop agreeing (clamped, wrapped or ignored positions). Which cause the
frequencies, the scale or the deviating positions show is recognised by the tests registered
with each cause's recogniser in :mod:`ropecheck.diagnosis` (tried in their precedence order);
the sentences are the diagnosis's, the same the properties use.

Design constraints: pure numpy after identification (torch only to round to a dtype); the
spec's conventions (direction, rotated dims at the end, the attention factor in the softmax)
are what the target is compared with, so a declared convention is never a difference.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..diagnosis import Diagnosis, Dims, Frequencies, Positions, found, recognise
from ..reference import rope_matrix
from ..spec import RopeSpec
from ..tolerance import UNIT_ROUNDOFF, tolerance
from .identify import Identification, apparent_position, dim_ranges, expected_seq_len

__all__ = ["Discrepancy", "compare", "describe_deviation", "describe_permutation", "matrix_deviation"]


@dataclass(frozen=True)
class Discrepancy:
    """One way the identified RoPE differs from the spec: a family code, a cause, a sentence, a fix."""

    code: str
    message: str
    hint: str = ""
    cause: str | None = None


def _from(diag: Diagnosis) -> Discrepancy:
    return Discrepancy(diag.code, diag.message, diag.hint, diag.cause)


def _d(cause: str, **words: object) -> Discrepancy:
    return _from(found(cause, **words))


def describe_permutation(perm: tuple[int, ...], rotated: tuple[int, ...]) -> str:
    """'output dims 0-63 hold input dims 192-255 (rotated), ...' for the moved segments of a permutation."""
    rot = set(rotated)
    parts: list[str] = []
    i, d = 0, len(perm)
    while i < d:
        j = i
        while j + 1 < d and perm[j + 1] == perm[j] + 1 and ((j + 1) in rot) == (i in rot):
            j += 1
        if perm[i] != i or perm[j] != j:
            tag = " (rotated)" if i in rot else ""
            parts.append(f"output dims {i}\u2013{j} hold input dims {perm[i]}\u2013{perm[j]}{tag}")
        i = j + 1
    return "; ".join(parts)


def _written_layout(perm: tuple[int, ...], spec: RopeSpec) -> str | None:
    """The layout whose places the head's rotated pairs were written back in, when the permutation ``perm`` (output
    ``i`` holds input ``perm[i]``) is exactly that of the spec's pairs stored in the other layout; else None."""
    if spec.output_layout is not None or len(perm) != spec.head_dim:
        return None
    other = "interleaved" if spec.layout == "half" else "half"
    order = spec.with_(output_layout=other).output_order()
    assert order is not None
    return other if all(perm[int(order[j])] == j for j in range(spec.head_dim)) else None


def compare(ident: Identification, spec: RopeSpec) -> list[Discrepancy]:
    """How the identified RoPE differs from ``spec``, in words (empty when it conforms structurally)."""
    out: list[Discrepancy] = []
    cache = _low_precision_entries(ident)
    if cache is not None:
        return [_from(cache)]
    if ident.permutation is not None:
        written = _written_layout(ident.permutation, spec)
        if written is not None:  # the pairs are the spec's, stored in the other layout's places: that alone
            pairs = spec.with_(layout=written, output_layout=None).pairs()
            shown = ", ".join(f"({a}, {b})" for a, b in pairs[:2])
            names = {"half": "half-split", "interleaved": "interleaved"}
            hint = (
                f"if this order is intended (keras-hub's Gemma and DeepSeek's *_interleave functions write pairs back "
                f"this way on purpose), declare it: --output-layout {written} (RopeSpec(output_layout='{written}')); "
                "otherwise write each rotated pair back where it was read"
            )
            return [_d("output_layout", read=names[spec.layout], written=names[written], shown=shown, hint=hint)]
        reordered = recognise("permutation", describe_permutation(ident.permutation, ident.rotated_dims))
        if reordered is not None:
            out.append(_from(reordered))
    if not ident.is_rotation:
        code = "nonfinite" if "NaN" in ident.rotation_problem else "not_rotation"
        out.append(
            Discrepancy(
                code,
                f"not a rotation: {ident.rotation_problem}",
                "RoPE must apply [[cos, -sin], [sin, cos]] of the same angle to each pair, nothing else",
            )
        )
        if ident.mixing:
            return out
    out += _rotated_dims(ident, spec)
    if not ident.is_rotation:  # the pairs are known; angles, direction and frequencies of a non-rotation are not
        if ident.layout != spec.layout and ident.layout in ("half", "interleaved"):
            shown = ", ".join(f"({a}, {b})" for a, b in ident.pairs[:2])
            out.append(_d("layout", got=ident.layout, want=spec.layout, shown=shown))
        return out
    turning = [tuple(int(j) for j in pair) for pair in spec.pairs()[: spec.turning_pairs()]]
    if ident.layout != spec.layout and ident.pairs and [tuple(p) for p in ident.pairs] != turning:
        if ident.layout in ("half", "interleaved"):
            shown = ", ".join(f"({a}, {b})" for a, b in ident.pairs[:2])
            out.append(_d("layout", got=ident.layout, want=spec.layout, shown=shown))
        else:
            shown = ", ".join(f"({a}, {b})" for a, b in ident.pairs[:4])
            out.append(_d("layout", got="other", want=spec.layout, shown=shown))
    rel_direction = ident.direction
    if spec.direction < 0 and ident.direction in ("standard", "reversed"):  # compared with the declared -theta
        rel_direction = "reversed" if ident.direction == "standard" else "standard"
    ph0_all = np.array(ident.phase0) if ident.phase0 else np.zeros(0)
    swapped = rel_direction == "reversed" and ph0_all.size and np.abs(ph0_all - np.pi / 2).max() < 1e-2
    if swapped:
        out.append(_d("phase"))
        return out
    if rel_direction == "reversed":
        if spec.direction < 0:
            out.append(
                Discrepancy(
                    "direction",
                    "the target rotates by +m*theta_i, but --direction -1 (rotation by -m*theta_i) was declared",
                    "drop --direction -1 if the model was trained with the usual direction",
                )
            )
        else:
            out.append(_d("direction"))
    elif rel_direction == "mixed" and not _aliased(ident, spec):
        out.append(
            Discrepancy(
                "direction", "some pairs rotate one way and some the other", "use one sign of sin for every pair"
            )
        )
    out += _scale(ident, spec)
    if not ident.inv_freq or len(ident.inv_freq) not in {spec.half, spec.turning_pairs()}:
        return out
    seq_len = expected_seq_len(spec, list(ident.positions))
    want_t = spec.inv_freq(seq_len)[: len(ident.inv_freq)]  # proportional RoPE: the pairs that turn
    got_t = np.array(ident.inv_freq)
    out += _phase0(ident, spec, got_t)
    rel = np.abs(got_t - want_t) / want_t
    p_ref = max(ident.linear_up_to or 1, 1)
    tol = 4e-6 + 16 * max(UNIT_ROUNDOFF[ident.dtype], 2.0**-24) / (p_ref * want_t)
    if np.any(rel > np.maximum(tol, 1e-6)):
        out.append(_frequency_words(got_t, want_t, spec, ident, seq_len, tol))
    return out


def _aliased(ident: Identification, spec: RopeSpec) -> bool:
    """Whether pairs turning "the other way" are only the fastest ones, while the pairs that turn the spec's way
    are off in frequency themselves: angles scaled past pi per position alias to negative ones (a factor of 16 on
    theta_0 = 1 reads as -2.85 rad), which is a frequency bug, not a direction bug."""
    signs = np.array(ident.turn_signs[: spec.half])
    if signs.size != len(ident.inv_freq) or signs.size > spec.half or not signs.size:
        return False
    order = np.argsort(-spec.inv_freq()[: signs.size])  # fastest first
    ranked = signs[order]
    ranked = ranked[ranked != 0]
    negatives = int((ranked < 0).sum())
    if not 0 < negatives < ranked.size or not np.all(ranked[:negatives] < 0):  # not a prefix of the fastest
        return False
    keep = order[signs[order] > 0]
    want = spec.inv_freq()[: signs.size][keep]
    got = np.array(ident.inv_freq)[keep]
    return bool(np.any(np.abs(got - want) / want > 1e-3))  # the pairs that turn the right way disagree too


def _phase0(ident: Identification, spec: RopeSpec, theta: np.ndarray) -> list[Discrepancy]:
    """The phase at position 0: an offset of k positions shows as phi_i(0) = k theta_i."""
    ph0 = np.array(ident.phase0) * (1.0 if spec.direction > 0 else -1.0)
    if not np.abs(ph0).max() > 1e-3:
        return []
    shifted = recognise("phase0", ph0, theta)
    if shifted is not None:
        return [_from(shifted)]
    i = int(np.argmax(np.abs(ph0)))
    return [
        Discrepancy(
            "phase",
            f"a nonzero phase at position 0: pair {i} starts at {ph0[i]:.4g} rad",
            "position 0 must be the identity: the angle is m*theta_i, with no constant added",
        )
    ]


def _rotated_dims(ident: Identification, spec: RopeSpec) -> list[Discrepancy]:
    want_dims = spec.rotated_dims().tolist()
    got_dims = list(ident.rotated_dims)
    r_spec = spec.rotary_dim
    if got_dims == want_dims or got_dims == spec.turning_dims().tolist() or not got_dims:
        return []
    moved = recognise("dims", Dims(got_dims, spec, dim_ranges))
    if moved is not None:
        return [_from(moved)]
    if len(got_dims) > r_spec:
        msg = (
            f"dims {dim_ranges(got_dims)} are rotated: rotary_dim {len(got_dims)}, expected {r_spec} "
            f"(dims {dim_ranges([j for j in range(spec.head_dim) if j not in set(want_dims)])} should pass through)"
        )
    else:
        unrot = [j for j in want_dims if j not in set(got_dims)]
        msg = f"dims {dim_ranges(unrot)} are not rotated: rotary_dim {len(got_dims)}, expected {r_spec}"
    return [
        Discrepancy("rotary_dim", msg, f"rotate exactly the spec's rotary_dim={r_spec} dims and pass the rest through")
    ]


def _scale(ident: Identification, spec: RopeSpec) -> list[Discrepancy]:
    if ident.scale is None or not ident.is_rotation or not ident.pairs:
        return []
    diag = recognise("scale", ident.scale, spec.attention_factor, ident.dtype)
    return [] if diag is None else [_from(diag)]


def _low_precision_entries(ident: Identification) -> Diagnosis | None:
    """The cos/sin cache rounded to bfloat16/float16, from the rotated block of the matrices (None if not)."""
    if not ident.rotated_dims:
        return None
    dims = list(ident.rotated_dims)
    return recognise("entries", ident.analysed_matrices[:, dims][:, :, dims], ident.dtype)


def _frequency_words(
    got: np.ndarray, want: np.ndarray, spec: RopeSpec, ident: Identification, seq_len: int | None, tol: np.ndarray
) -> Discrepancy:
    """The frequencies' difference in words: the first cause whose test fits the identified theta_i."""
    ev = Frequencies(got, want, spec, tol, seq_len, ident.dtype, max(ident.positions), ident.geometric, ident.base)
    diag = recognise("frequencies", ev)
    if diag is not None:
        return _from(diag)
    ratio, n = got / want, len(got)
    j = int(np.argmax(np.abs(ratio - 1)))
    return Discrepancy(
        "frequencies",
        f"theta_i differ from the spec at {int((np.abs(ratio - 1) > 1e-5).sum())} of {n} pairs; worst pair {j}: "
        f"{got[j]:.6g}, expected {want[j]:.6g} (ratio {ratio[j]:.6g})",
        "theta_i = base^(-2i/rotary_dim), computed in float32 or better, then the spec's scaling",
    )


def matrix_deviation(ident: Identification, spec: RopeSpec) -> tuple[int | None, list[tuple[int, float, float]]]:
    """Per probed position, the largest |M(p) - M_spec(p)| and its tolerance; the first position over it."""
    seq_len = expected_seq_len(spec, list(ident.positions))
    rows = []
    first = None
    for k, p in enumerate(ident.positions):
        want = rope_matrix(spec, int(p), seq_len=seq_len)
        err = float(np.abs(ident.matrices[k] - want).max())
        rtol, atol = tolerance(ident.dtype, "rotation", max_position=int(p))
        bound = atol * max(1.0, spec.attention_factor) + rtol
        rows.append((int(p), err, bound))
        if first is None and not err <= bound:
            first = int(p)
    return first, rows


def _pairs_split(ident: Identification, k: int, p: int, spec: RopeSpec | None) -> str | None:
    """When some pairs turn by position ``p`` at probe ``k`` and the others all by one other position, say which.

    Each pair's apparent position is the one nearest ``p`` that its angle allows (phi_i + 2 pi n) / theta_i; the
    pairs are named by axis when the spec has axes (a clamped column table turns only the column pairs wrong).
    """
    if not ident.is_rotation or not ident.inv_freq or not ident.pairs or spec is None:
        return None
    mats = ident.analysed_matrices[k]
    a = np.array([q[0] for q in ident.pairs])
    b = np.array([q[1] for q in ident.pairs])
    sign = -1.0 if ident.direction == "reversed" else 1.0
    phi = sign * np.arctan2((mats[b, a] - mats[a, b]) / 2, (mats[a, a] + mats[b, b]) / 2) - sign * np.array(
        ident.phase0
    )
    theta = np.array(ident.inv_freq)
    if (theta <= 0).any():
        return None
    n = np.round((p * theta - phi) / (2 * np.pi))
    q = (phi + 2 * np.pi * n) / theta
    exact = np.abs(q - p) < 0.5
    if exact.all() or not exact.any():
        return None
    wrong = q[~exact]
    if np.ptp(wrong) >= 0.5:
        return None
    other = int(round(float(wrong.mean())))
    index = {tuple(int(v) for v in pair): i for i, pair in enumerate(spec.pairs())}
    idx = [index.get((int(x), int(y))) for x, y in ident.pairs]
    bad = [i for i, ok in zip(idx, exact, strict=True) if not ok and i is not None]
    where = f"{len(bad)} of {len(idx)} pairs"
    if spec.axes is not None and len(bad) == (~exact).sum():
        axis_of = spec.axes.axis_of_pair()
        names = sorted({spec.axes.names[axis_of[i]] for i in bad})
        good = sorted({spec.axes.names[axis_of[i]] for i, ok in zip(idx, exact, strict=True) if ok and i is not None})
        if not set(names) & set(good):  # whole axes wrong, whole axes right
            where = f"on the {', '.join(names)} pairs ({where}); the {', '.join(good)} pairs turn by {p}"
            return f"{other} {where}"
    return f"{other} on {where}, by {p} on the others"


def describe_deviation(ident: Identification, first_bad: int, spec: RopeSpec | None = None) -> Discrepancy:
    """Words for angles that stop matching the spec from probed position ``first_bad`` on."""
    pos = list(ident.positions)
    bad = [k for k, p in enumerate(pos) if p >= first_bad]
    seen = [(pos[k], apparent_position(ident, k)) for k in bad]
    seen = [(p, q) for p, q in seen if q is not None]
    if seen:
        qs = np.array([q for _, q in seen])
        ps = np.array([p for p, _ in seen])
        idx = np.array([pos.index(int(p)) for p in ps])
        diag = recognise("deviation", Positions(first_bad, ps, qs, idx))
        if diag is not None:
            return _from(diag)
        split = _pairs_split(ident, pos.index(int(ps[0])), int(ps[0]), spec)
        if split is not None:
            return Discrepancy(
                "positions",
                f"from position {first_bad} on the angles deviate from the spec: position {int(ps[0])} is rotated "
                f"as position {split}",
                "the angle must be exactly position * theta_i for every position in the range, on every pair",
            )
        return Discrepancy(
            "positions",
            f"from position {first_bad} on the angles deviate from the spec: position {int(ps[0])} is rotated as "
            f"position {qs[0]:.6g}",
            "the angle must be exactly position * theta_i for every position in the range",
        )
    return Discrepancy(
        "positions",
        f"from position {first_bad} on the target's matrices deviate from the spec",
        "the angle must be exactly position * theta_i for every position in the range",
    )
