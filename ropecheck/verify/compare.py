"""Comparing an identified RoPE with a spec, in words: each difference a family code, a cause and a sentence.

:func:`compare` turns what :mod:`.identify` recovered from the target's matrices into
:class:`Discrepancy` objects (the layout, the rotated dims, the direction, the phase at 0,
the attention factor, the frequencies -- which are named when they fit another base, the
unscaled schedule, LongRoPE's other factors, a dtype's rounding, ...); :func:`matrix_deviation`
and :func:`describe_deviation` compare the matrices position by position with the spec's and
say where and how they stop agreeing (clamped, wrapped or ignored positions). The sentences
are :mod:`ropecheck.diagnosis`'s, the same the properties use.

Design constraints: pure numpy after identification (torch only to round to a dtype); the
spec's conventions (direction, rotated dims at the end, the attention factor in the softmax)
are what the target is compared with, so a declared convention is never a difference.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..diagnosis import CAUSES, COMMON_BASES, round_to, sentence
from ..reference import rope_matrix
from ..schedules import DynamicNTK, Linear, LongRoPE
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


def _d(cause: str, **words: object) -> Discrepancy:
    msg, hint = sentence(cause, **words)
    family = CAUSES[cause][0] if cause in CAUSES else cause
    return Discrepancy(family, msg, hint, cause if cause in CAUSES else None)


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


def compare(ident: Identification, spec: RopeSpec) -> list[Discrepancy]:
    """How the identified RoPE differs from ``spec``, in words (empty when it conforms structurally)."""
    out: list[Discrepancy] = []
    low = _low_precision_entries(ident)
    if low is not None:
        out.append(
            _d(
                "cache_low_precision",
                text=f"the matrix entries (cos and sin) are exact {low} values even for {ident.dtype} input: the "
                f"cos/sin cache is stored in {low}",
            )
        )
        return out
    if ident.permutation is not None:
        moved = describe_permutation(ident.permutation, ident.rotated_dims)
        out.append(
            _d(
                "rotary_dims_misplaced",
                text=f"the head comes back reordered: {moved} -- the rotated slice is taken from one end of the head "
                "and put back at another",
            )
        )
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
    elif rel_direction == "mixed":
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
    # the phase at position 0: an offset of k positions shows as phi_i(0) = k theta_i
    ph0 = np.array(ident.phase0) * (1.0 if spec.direction > 0 else -1.0)
    if np.abs(ph0).max() > 1e-3:
        k_est = ph0 / np.where(got_t > 0, got_t, 1.0)
        usable = got_t > 1e-2
        if usable.any() and np.ptp(k_est[usable]) < 0.05 and abs(np.round(k_est[usable][0]) - k_est[usable][0]) < 0.05:
            out.append(_d("positions_shifted", k=int(round(float(k_est[usable][0])))))
        else:
            i = int(np.argmax(np.abs(ph0)))
            out.append(
                Discrepancy(
                    "phase",
                    f"a nonzero phase at position 0: pair {i} starts at {ph0[i]:.4g} rad",
                    "position 0 must be the identity: the angle is m*theta_i, with no constant added",
                )
            )
    rel = np.abs(got_t - want_t) / want_t
    p_ref = max(ident.linear_up_to or 1, 1)
    tol = 4e-6 + 16 * max(UNIT_ROUNDOFF[ident.dtype], 2.0**-24) / (p_ref * want_t)
    if np.any(rel > np.maximum(tol, 1e-6)):
        out.append(_frequency_words(got_t, want_t, spec, ident, seq_len, tol))
    return out


def _rotated_dims(ident: Identification, spec: RopeSpec) -> list[Discrepancy]:
    want_dims = spec.rotated_dims().tolist()
    got_dims = list(ident.rotated_dims)
    r_spec = spec.rotary_dim
    if got_dims == want_dims or got_dims == spec.turning_dims().tolist() or not got_dims:
        return []
    if len(got_dims) == r_spec:
        msg = (
            f"dims {dim_ranges(got_dims)} are rotated and dims {dim_ranges(want_dims)} expected: partial rotary "
            "applied to the wrong dims"
        )
        d = spec.head_dim
        if got_dims == list(range(d - r_spec, d)) and spec.rotary_dims == "first":
            msg += " (the last dims: pass --rotary-dims last if the model puts them there, as DeepSeek MLA does)"
        elif got_dims == list(range(r_spec)) and spec.rotary_dims == "last":
            msg += " (the first dims: --rotary-dims last was declared)"
        return [_d("rotary_dims_misplaced", text=msg)]
    if len(got_dims) > r_spec and len(got_dims) == spec.head_dim:
        return [
            _d(
                "partial_rotary_ignored",
                rotated=dim_ranges(got_dims),
                rotary_dim=r_spec,
                passthrough=dim_ranges([j for j in range(spec.head_dim) if j not in set(want_dims)]),
            )
        ]
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
    factor, got = spec.attention_factor, ident.scale
    close = 1e-3 * max(1.0, factor) + 64 * UNIT_ROUNDOFF[ident.dtype]
    if abs(got - factor) <= close:
        return []
    if abs(factor - 1.0) > 1e-9 and abs(got - 1.0) < 1e-6:
        return [_d("attention_factor_missing", expected=factor)]
    if abs(factor - 1.0) > 1e-9 and abs(got - factor * factor) <= close * factor:
        return [_d("attention_factor_twice", got=got, expected=factor)]
    return [_d("attention_factor_wrong", got=got, expected=factor)]


def _low_precision_entries(ident: Identification) -> str | None:
    """'bfloat16'/'float16' when every rotated entry is a value of that dtype (for float32/float64 probes)."""
    if ident.dtype not in ("float32", "float64") or not ident.rotated_dims:
        return None
    dims = list(ident.rotated_dims)
    block = ident.analysed_matrices[:, dims][:, :, dims]
    if np.count_nonzero(block) == 0:
        return None
    for name in ("bfloat16", "float16"):
        if np.array_equal(round_to(block, name), block):
            return name
    return None


def _matches(got: np.ndarray, want: np.ndarray, tol: np.ndarray) -> bool:
    want = want[: len(got)]  # proportional RoPE: only the pairs that turn were identified
    return bool(np.all(np.abs(got - want) / want <= np.maximum(tol, 1e-6)))


def _frequency_words(
    got: np.ndarray, want: np.ndarray, spec: RopeSpec, ident: Identification, seq_len: int | None, tol: np.ndarray
) -> Discrepancy:
    """The frequencies' difference in words: the first explanation that fits the identified theta_i."""
    n, r = len(got), spec.rotary_dim
    ratio = got / want
    i = np.arange(n)
    # LongRoPE: the other factor set; dynamic NTK: another length
    if isinstance(spec.scaling, LongRoPE):
        l0 = spec.scaling.original_max_position_embeddings
        if (seq_len or 0) <= l0 and _matches(got, spec.inv_freq(l0 + 1), tol):
            top = max(ident.positions)
            return _d("longrope_long_factors_early", l0=l0, seen=f" (probed up to position {top})")
        if (seq_len or 0) > l0 and _matches(got, spec.inv_freq(l0), tol):
            return _d("longrope_short_factors_late", l0=l0, position=max(ident.positions))
    if isinstance(spec.scaling, DynamicNTK):
        length = _ntk_length(got, spec)
        if length is not None:
            expected = seq_len or spec.scaling.original_max_position_embeddings
            return _d("ntk_length_wrong", length=length, expected=expected)
    # another base under the same schedule (Gemma 3's global layers left at 10000, TE's default rotary_base)
    for b in COMMON_BASES:
        if abs(b / spec.base - 1) > 1e-6 and _matches(got, spec.with_(base=b).inv_freq(seq_len), tol):
            return _d("base_wrong", got=b, want=spec.base)
    if spec.rope_type != "default":
        plain = RopeSpec(head_dim=spec.head_dim, rotary_dim=spec.rotary_dim, base=spec.base).inv_freq()[:n]
        if np.allclose(got, plain, rtol=1e-5):
            return _d("scaling_missing", rope_type=spec.rope_type, base=spec.base)
    for name in ("bfloat16", "float16"):
        rounded = round_to(want, name)
        if np.allclose(got, rounded, rtol=2e-4, atol=0) and np.abs(ratio - 1).max() <= 2 * UNIT_ROUNDOFF[name]:
            return Discrepancy(
                "frequencies",
                f"theta_i deviate by up to {100 * np.abs(ratio - 1).max():.3g}%, exactly the {name} rounding of the "
                f"spec's: inv_freq is stored or computed in {name} even for {ident.dtype} input",
                sentence("inv_freq_low_precision", dtype=name)[1],
                "inv_freq_low_precision",
            )
    if np.ptp(ratio) < 1e-3 * abs(ratio.mean()):
        k = float(ratio.mean())
        shift = -math.log(k) / math.log(spec.base) * r / 2 if spec.rope_type == "default" else 0.0
        if abs(shift) > 0.5 and abs(shift - round(shift)) < 0.02:
            j = int(round(shift))
            return _d(
                "index_shifted",
                text=f"frequencies follow base^(-2(i{j:+d})/{r}): the frequency index starts at {j}, expected 0 "
                f"(theta_0 = {got[0]:.6g}, expected 1)",
            )
        if isinstance(spec.scaling, Linear):
            return _d(
                "angle_scaled",
                text=f"every frequency is {k:.6g}x the spec's: positions are divided by {spec.scaling.factor / k:.6g}, "
                f"expected the linear factor {spec.scaling.factor:g}",
            )
        if abs(k - 2) < 1e-3:
            return _d("angle_scaled", text="every angle is twice the expected (2*m*theta_i): cos/sin applied twice")
        return _d(
            "angle_scaled", text=f"every frequency is {k:.6g}x the spec's (a position scale of {1 / k:.6g}, expected 1)"
        )
    if ident.geometric and ident.base is not None and n >= 2 and spec.rope_type == "default":
        beta_got = np.polyfit(i, np.log(got), 1)[0]
        beta_want = -2 * math.log(spec.base) / r
        e = beta_got / beta_want * 2
        if abs(e - 2) > 0.02 and abs(e - round(e)) < 0.02:
            div = "" if round(e) == 1 else f"{int(round(e))}"
            text = f"frequencies follow base^(-{div}i/{r}), expected base^(-2i/{r}) (wrong exponent)"
            return _d("exponent_wrong", text=text)
        if abs(e - 2) <= 0.02:
            kk = -math.log(got[0]) / math.log(spec.base) * r / 2
            if abs(kk) > 0.02 and abs(kk - round(kk)) < 0.05:
                j = int(round(kk))
                return _d(
                    "index_shifted",
                    text=f"frequencies follow base^(-2(i+{j})/{r}): the frequency index starts at {j}, expected 0",
                )
        rd = -2 * math.log(spec.base) / beta_got
        if (
            abs(got[0] - 1) < 1e-3
            and abs(rd - round(rd)) < 0.05
            and round(rd) != r
            and round(rd) % 2 == 0
            and 2 <= round(rd) <= 4 * spec.head_dim
        ):
            return _d(
                "exponent_wrong",
                text=f"frequencies follow base^(-2i/{int(round(rd))}), expected base^(-2i/{r}): the wrong dimension "
                "in the exponent" + (" (head_dim instead of rotary_dim)" if round(rd) == spec.head_dim else ""),
            )
        if abs(ident.base / spec.base - 1) > 1e-3 and abs(got[0] - 1) < 1e-3:
            return _d("base_wrong", got=ident.base, want=spec.base)
    for b in _candidate_bases(spec, ident):  # the base the target's frequencies imply, under the spec's schedule
        if _matches(got, spec.with_(base=b).inv_freq(seq_len), tol):
            return _d("base_wrong", got=b, want=spec.base)
    j = int(np.argmax(np.abs(ratio - 1)))
    return Discrepancy(
        "frequencies",
        f"theta_i differ from the spec at {int((np.abs(ratio - 1) > 1e-5).sum())} of {n} pairs; worst pair {j}: "
        f"{got[j]:.6g}, expected {want[j]:.6g} (ratio {ratio[j]:.6g})",
        "theta_i = base^(-2i/rotary_dim), computed in float32 or better, then the spec's scaling",
    )


def _candidate_bases(spec: RopeSpec, ident: Identification) -> list[float]:
    """The base the target's frequencies imply, when it is not one of the common ones (tried before)."""
    out: list[float] = []
    if ident.base is not None:
        for nice in COMMON_BASES:
            if abs(ident.base / nice - 1) < 1e-3:
                break
        else:
            if abs(ident.base / spec.base - 1) > 1e-3:
                out.append(float(ident.base))
    return out


def _ntk_length(got: np.ndarray, spec: RopeSpec) -> int | None:
    """The length whose dynamic-NTK frequencies the target's are (None if none fits)."""
    assert isinstance(spec.scaling, DynamicNTK)
    l0 = spec.scaling.original_max_position_embeddings
    r = spec.rotary_dim
    if r <= 2 or got[-1] <= 0:
        return None
    # theta_last = base'^(-(r-2)/r): solve for base', then grow = (base'/base)^((r-2)/r) = s L/L0 - (s-1)
    base_eff = got[-1] ** (-r / (r - 2))
    grow = (base_eff / spec.base) ** ((r - 2) / r)
    s = spec.scaling.factor
    length = int(round((grow + s - 1) * l0 / s))
    if length <= l0 or abs(length - l0) < 1:
        return None
    if np.allclose(got, spec.inv_freq(length)[: len(got)], rtol=1e-4):
        return length
    return None


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
        if np.ptp(qs) < 0.5 and len(seen) > 1:
            return _d("positions_clamped", first=first_bad, q=int(round(float(qs[0]))))
        idx = np.array([pos.index(int(p)) for p in ps])
        if np.allclose(qs, idx, atol=0.5):
            return _d("positions_ignored", position=int(ps[0]), index=int(round(qs[0])))
        size = int(round(ps[0] - qs[0]))
        if size > 0 and np.all(np.abs(qs - ps % size) < 0.5):
            return _d("positions_wrapped", first=first_bad, q=int(round(qs[0])), size=size)
        if np.ptp(qs) < 0.5:
            return _d("positions_clamped", first=first_bad, q=int(round(float(qs[0]))))
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
