"""Identification: recover what a black-box RoPE really does, and say how it differs from a spec.

RoPE is linear in x for fixed positions, so feeding the basis vectors e_0..e_{d-1} at a
position p returns the columns of the matrix M(p) the target applies there. One call with
``heads = head_dim`` (head h holds e_h) and one token per probe position gives every M(p).
From those matrices:

* is each M(p) a (scaled) rotation -- M^T M = c^2 I on the rotated dims?
* which dims pair up (the off-diagonal pattern): interleaved, half-split, or neither;
* the rotation direction (the sign of the angle growing with the position);
* the angle per pair phi_i(p) = atan2; its slope in p is the frequency theta_i (refined by
  unwrapping along a geometric chain of positions), its value at 0 the phase at position 0;
* rotary_dim (the dims that are rotated at all) and any scale;
* a fit log theta_i = alpha + beta i: the base, the exponent, an index shift.

:func:`compare` turns the differences from a :class:`~ropecheck.RopeSpec` into
:class:`Discrepancy` objects, each with a stable ``code`` and a sentence in words.

Design constraints: probing is one call per dtype for ``fn(x, positions)`` targets (one per
position for ``fn(x, offset)``; ``fn(x)`` targets are probed up to the position a single
call of bounded size reaches); thresholds scale with the unit roundoff of the dtype probed,
so a careful float32 implementation identifies exactly. Pure numpy after the calls.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..protocol import Implementation
from ..reference import rope_matrix
from ..schedules import DynamicNTK, Linear, LongRoPE
from ..spec import RopeSpec
from ..tolerance import UNIT_ROUNDOFF, dtype_name, tolerance

__all__ = [
    "Identification",
    "Discrepancy",
    "probe_positions",
    "probe_matrices",
    "identify",
    "compare",
    "NONE_MAX_ELEMENTS",
]

# fn(x) targets: one call of (1, L, d, d) elements reaches position L-1; keep it bounded.
NONE_MAX_ELEMENTS = 1 << 24


@dataclass(frozen=True)
class Discrepancy:
    """One way the identified RoPE differs from the spec: a stable code and a sentence."""

    code: str
    message: str
    hint: str = ""


@dataclass
class Identification:
    """What the target does, recovered from its matrices (see the module docstring)."""

    head_dim: int
    dtype: str
    positions: tuple[int, ...]
    matrices: np.ndarray = field(repr=False)
    is_rotation: bool = True
    rotation_error: float = 0.0
    rotation_problem: str = ""
    scale: float | None = None
    rotated_dims: tuple[int, ...] = ()
    pairs: tuple[tuple[int, int], ...] = ()
    layout: str = "none"
    mixing: str = ""
    direction: str = "unknown"
    inv_freq: tuple[float, ...] = ()
    phase0: tuple[float, ...] = ()
    base: float | None = None
    exponent: float | None = None
    index_shift: float | None = None
    geometric: bool = False
    linear_up_to: int | None = None
    nonlinear_at: int | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def rotary_dim(self) -> int:
        return len(self.rotated_dims)

    @property
    def rotary_prefix(self) -> bool:
        return self.rotated_dims == tuple(range(self.rotary_dim))

    def describe(self) -> str:
        """One sentence: what the target is."""
        if not self.is_rotation:
            return f"not a RoPE: {self.rotation_problem}"
        if not self.pairs:
            return "no dimension is rotated at any probed position (the identity)"
        layout = {"half": "half-split", "interleaved": "interleaved"}.get(self.layout, "unusual-pairing")
        parts = [
            f"{'an' if layout[0] in 'aeiou' else 'a'} {layout} RoPE",
            f"rotary_dim {self.rotary_dim}" + ("" if self.rotary_prefix else " (not the leading dims)"),
        ]
        if self.geometric and self.base is not None:
            sched = f"base {_fmt(self.base)}"
            if self.exponent is not None and abs(self.exponent - 2.0) > 1e-3:
                sched += f", theta_i = base^(-{_fmt(self.exponent)}i/{self.rotary_dim})"
            if self.index_shift:
                sched += f", frequency index starting at {_fmt(self.index_shift)}"
            elif self.index_shift is None and self.inv_freq:
                sched += f", theta_0 = {self.inv_freq[0]:.6g}"
            parts.append(sched)
        else:
            parts.append("a non-geometric frequency schedule (scaled)")
        if self.direction == "reversed":
            parts.append("rotating in the reverse direction")
        if self.scale is not None and abs(self.scale - 1.0) > 1e-3:
            parts.append(f"scaled by {self.scale:.6g}")
        if self.phase0 and max(abs(v) for v in self.phase0) > 1e-3:
            parts.append("a nonzero phase at position 0")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "description": self.describe(),
            "dtype": self.dtype,
            "probe_positions": list(self.positions),
            "is_rotation": self.is_rotation,
            "rotation_error": self.rotation_error,
            "rotation_problem": self.rotation_problem or None,
            "scale": self.scale,
            "layout": self.layout,
            "pairs": [list(p) for p in self.pairs],
            "rotary_dim": self.rotary_dim,
            "rotated_dims": list(self.rotated_dims),
            "direction": self.direction,
            "base": self.base,
            "exponent": self.exponent,
            "index_shift": self.index_shift,
            "geometric": self.geometric,
            "inv_freq": list(self.inv_freq),
            "phase0_max": max((abs(v) for v in self.phase0), default=0.0),
            "linear_up_to": self.linear_up_to,
            "nonlinear_at": self.nonlinear_at,
            "mixing": self.mixing or None,
            "notes": list(self.notes),
        }


def _fmt(v: float) -> str:
    if v == 0:
        return "0"
    if abs(v - round(v)) < 1e-3 * max(1.0, abs(v)):
        return str(int(round(v)))
    return f"{v:.4g}"


def _wrap(a: np.ndarray | float) -> Any:
    return (np.asarray(a) + np.pi) % (2 * np.pi) - np.pi


# --------------------------------------------------------------------------- probing


def probe_positions(max_position: int, *, cap: int | None = None) -> list[int]:
    """0..8, then 2^k - 1 and 2^k up to ``max_position``, and ``max_position`` itself.

    Example:
        >>> probe_positions(40)
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 15, 16, 31, 32, 40]
    """
    top = int(max_position if cap is None else min(max_position, cap))
    out = set(range(0, min(top, 8) + 1))
    k = 4
    while (1 << k) - 1 <= top:
        out.add((1 << k) - 1)
        if (1 << k) <= top:
            out.add(1 << k)
        k += 1
    for extra in (100, 1000, 3000):
        if extra <= top:
            out.add(extra)
    out.add(top)
    return sorted(out)


def probe_matrices(
    impl: Implementation, head_dim: int, positions: list[int], *, dtype: str, device: str
) -> tuple[np.ndarray, list[int]]:
    """M(p) for each probed position, shape (P, d, d) with column j = M(p) e_j; and the positions reached.

    Raises :class:`~ropecheck.errors.TargetError` if the target raises or returns the wrong shape.
    """
    d = head_dim
    eye = np.eye(d)
    if impl.convention == "none":
        length = max(1, min(max(positions) + 1, NONE_MAX_ELEMENTS // (d * d)))
        reached = [p for p in positions if p < length]
        x = np.broadcast_to(eye, (1, length, d, d)).copy()
        out = impl.call(x, dtype=dtype, device=device)  # (1, L, d, d): out[0, s, h] = M(s) e_h
        return np.transpose(out[0, reached], (0, 2, 1)), reached
    x = np.broadcast_to(eye, (1, len(positions), d, d)).copy()
    pos = np.asarray(positions, dtype=np.int64)[None, :]
    out = impl.run(x, pos, dtype=dtype, device=device)
    return np.transpose(out[0], (0, 2, 1)), list(positions)


# --------------------------------------------------------------------------- analysis


def identify(
    impl: Implementation,
    head_dim: int,
    *,
    max_position: int,
    dtype: Any = "float32",
    device: str = "cpu",
    cap: int | None = None,
) -> Identification:
    """Probe ``impl`` and identify its RoPE (see the module docstring)."""
    dtype = dtype_name(dtype)
    mats, reached = probe_matrices(impl, head_dim, probe_positions(max_position, cap=cap), dtype=dtype, device=device)
    return analyse(mats, reached, dtype=dtype)


def analyse(mats: np.ndarray, positions: list[int], *, dtype: str = "float32") -> Identification:
    """Identify from matrices ``mats`` (P, d, d) at ``positions`` (pure; see :func:`identify`)."""
    P, d, _ = mats.shape
    u = UNIT_ROUNDOFF[dtype]
    zt = max(32 * u, 1e-9)  # an entry above this is not rounding noise
    ident = Identification(head_dim=d, dtype=dtype, positions=tuple(positions), matrices=mats)
    if not np.all(np.isfinite(mats)):
        ident.is_rotation = False
        bad = int(np.argmax(~np.all(np.isfinite(mats), axis=(1, 2))))
        ident.rotation_problem = f"the output holds NaN/inf (first at position {positions[bad]})"
        return ident
    off = np.abs(mats).copy()
    off[:, np.arange(d), np.arange(d)] = 0.0
    offmax = off.max(axis=0)
    sym = np.maximum(offmax, offmax.T)
    links = sym > zt
    # a slow pair may stay below the dtype's noise level at every probe (e.g. bf16 probes of theta ~ 1e-7):
    # a dim with no strong link pairs with its strongest weak partner when that is mutual
    weak = 1e-6
    partner = np.argmax(sym, axis=1)
    pairs: list[tuple[int, int]] = []
    mixing: list[str] = []
    for a in range(d):
        nb = np.nonzero(links[a])[0]
        if len(nb) == 1 and a < nb[0] and np.count_nonzero(links[nb[0]]) == 1:
            pairs.append((a, int(nb[0])))
        elif (
            len(nb) == 0
            and sym[a, partner[a]] > weak
            and partner[partner[a]] == a
            and a < partner[a]
            and np.count_nonzero(links[partner[a]]) == 0
        ):
            pairs.append((a, int(partner[a])))
        elif len(nb) > 1 and len(mixing) < 3:
            mixing.append(
                f"dim {a} mixes with dims {', '.join(str(int(b)) for b in nb[:6])}{' ...' if len(nb) > 6 else ''}"
            )
    rotated = sorted({i for p in pairs for i in p})
    ident.pairs, ident.rotated_dims = tuple(pairs), tuple(rotated)
    if mixing:
        ident.is_rotation, ident.mixing = False, "; ".join(mixing)
        ident.rotation_problem = f"dims are not rotated in pairs ({ident.mixing})"
        ident.layout = "other"
        return ident
    # pass-through dims: diagonal must be 1 (or a common scale on rotated dims)
    rest = [j for j in range(d) if j not in set(rotated)]
    if rest:
        diag = mats[:, rest, rest]
        worst = float(np.abs(diag - 1.0).max())
        if worst > zt:
            j = rest[int(np.argmax(np.abs(diag - 1.0).max(axis=0)))]
            ident.notes.append(
                f"dim {j} is neither rotated nor passed through unchanged (scaled by {mats[-1, j, j]:.6g})"
            )
            ident.is_rotation = False
            ident.rotation_problem = f"dim {j} is not rotated but multiplied by {mats[-1, j, j]:.6g}"
    r = len(rotated)
    if not pairs:
        ident.layout = "none"
        return ident
    if pairs == [(2 * i, 2 * i + 1) for i in range(r // 2)]:
        ident.layout = "interleaved"
    elif pairs == [(rotated[i], rotated[i + r // 2]) for i in range(r // 2)] and rotated == list(
        range(rotated[0], rotated[0] + r)
    ):
        ident.layout = "half"
    else:
        ident.layout = "other"
    a_idx = np.array([p[0] for p in pairs])
    b_idx = np.array([p[1] for p in pairs])
    maa, mbb = mats[:, a_idx, a_idx], mats[:, b_idx, b_idx]
    mab, mba = mats[:, a_idx, b_idx], mats[:, b_idx, a_idx]
    c, s = (maa + mbb) / 2, (mba - mab) / 2
    resid = np.abs(maa - mbb) + np.abs(mba + mab)
    scale = np.hypot(c, s)
    # rotation: same cos on the diagonal, antisymmetric sin, constant scale
    scale_ref = float(np.median(scale))
    ident.scale = scale_ref
    tol_rot = 16 * u * max(1.0, scale_ref) + zt
    worst_resid = float(resid.max())
    worst_scale = float(np.abs(scale - scale_ref).max())
    ident.rotation_error = max(worst_resid, worst_scale)
    if ident.is_rotation and worst_resid > tol_rot:
        p_i, k = np.unravel_index(int(np.argmax(resid)), resid.shape)
        ident.is_rotation = False
        ident.rotation_problem = (
            f"the 2x2 block of pair ({pairs[k][0]}, {pairs[k][1]}) at position {positions[p_i]} is not "
            f"a rotation [[c, -s], [s, c]] (off by {worst_resid:.3g})"
        )
    elif ident.is_rotation and worst_scale > tol_rot:
        p_i, k = np.unravel_index(int(np.argmax(np.abs(scale - scale_ref))), scale.shape)
        ident.is_rotation = False
        ident.rotation_problem = (
            f"the norm is not preserved uniformly: pair ({pairs[k][0]}, {pairs[k][1]}) is scaled by "
            f"{scale[p_i, k]:.6g} at position {positions[p_i]} but by {scale_ref:.6g} elsewhere "
            "(cos and sin applied twice, or of different angles?)"
        )
    phi = np.arctan2(s, c)  # (P, n)
    _frequencies(ident, phi, positions, u)
    return ident


def _frequencies(ident: Identification, phi: np.ndarray, positions: list[int], u: float) -> None:
    pos = list(positions)
    if 0 not in pos or 1 not in pos:
        ident.notes.append("positions 0 and 1 not both probed: frequencies not identified")
        return
    i0, i1 = pos.index(0), pos.index(1)
    phase0 = phi[i0]
    theta = _wrap(phi[i1] - phase0)
    # refine by unwrapping along the probes while the angle stays linear in the position
    noise = 8 * max(u, 2.0**-24)
    linear_up_to = 1
    nonlinear_at = None
    for k, p in enumerate(pos):
        if p <= 1:
            continue
        pred = phase0 + theta * p
        res = _wrap(phi[k] - pred)
        allowed = 0.05 + 4 * p * noise
        if np.abs(res).max() > allowed:
            nonlinear_at = p
            break
        theta = theta + res / p
        linear_up_to = p
    ident.linear_up_to, ident.nonlinear_at = linear_up_to, nonlinear_at
    sig = np.abs(theta) > 4 * noise
    if sig.any():
        signs = np.sign(theta[sig])
        ident.direction = "standard" if np.all(signs > 0) else "reversed" if np.all(signs < 0) else "mixed"
    ident.inv_freq = tuple(float(abs(t)) for t in theta)
    ident.phase0 = tuple(float(v) for v in phase0)
    th = np.abs(theta)
    n = len(th)
    r = 2 * n
    if n >= 2 and np.all(th > 0):
        i = np.arange(n, dtype=np.float64)
        beta, alpha = np.polyfit(i, np.log(th), 1)
        fit = alpha + beta * i
        err = float(np.abs(np.log(th) - fit).max())
        ident.geometric = err < 1e-3
        if ident.geometric and beta < 0:
            # theta_i = base^(-e (i + k)/r): fix e = 2 when the data allow an integer index shift k
            fitted_base = math.exp(-beta * r / 2)
            shift = -alpha / beta if beta else 0.0
            ident.base, ident.exponent = fitted_base, 2.0
            if abs(shift - round(shift)) < 0.05:
                ident.index_shift = float(round(shift))
            else:
                ident.notes.append(f"theta_0 = {th[0]:.6g} (1 for the default schedule)")
    elif n == 1:
        ident.geometric = True


# --------------------------------------------------------------------------- comparison with a spec


def _ranges(dims: list[int]) -> str:
    if not dims:
        return "none"
    out, start, prev = [], dims[0], dims[0]
    for d in dims[1:] + [None]:  # type: ignore[list-item]
        if d is not None and d == prev + 1:
            prev = d
            continue
        out.append(f"{start}\u2013{prev}" if prev != start else f"{start}")
        if d is not None:
            start = prev = d
    return ", ".join(out)


def expected_seq_len(spec: RopeSpec, positions: list[int]) -> int | None:
    return max(positions) + 1 if spec.depends_on_length and positions else None


def compare(ident: Identification, spec: RopeSpec) -> list[Discrepancy]:
    """How the identified RoPE differs from ``spec``, in words (empty when it conforms structurally)."""
    out: list[Discrepancy] = []
    low = _low_precision_entries(ident)
    if low is not None:
        out.append(
            Discrepancy(
                "precision",
                f"the matrix entries (cos and sin) are exact {low} values even for "
                f"{ident.dtype} input: the cos/sin cache is stored in {low}",
                "keep the cos/sin cache in float32 and cast to the input dtype per call",
            )
        )
        return out
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
    r_spec = spec.rotary_dim
    want_dims = list(range(r_spec))
    got_dims = list(ident.rotated_dims)
    if got_dims != want_dims:
        if len(got_dims) == r_spec:
            msg = (
                f"dims {_ranges(got_dims)} are rotated and dims {_ranges(want_dims)} expected: "
                "partial rotary applied to the wrong dims"
            )
        elif len(got_dims) > r_spec:
            msg = (
                f"dims {_ranges(got_dims)} are rotated: rotary_dim {len(got_dims)}, expected {r_spec} "
                f"(dims {_ranges(list(range(r_spec, spec.head_dim)))} should pass through; partial rotary ignored)"
            )
        else:
            unrot = [j for j in range(spec.head_dim) if j not in set(got_dims)]
            msg = f"dims {_ranges(unrot)} are not rotated: rotary_dim {len(got_dims)}, expected {r_spec}"
        out.append(
            Discrepancy(
                "rotary_dim", msg, f"rotate exactly the first rotary_dim={r_spec} dims and pass the rest through"
            )
        )
    names = {"half": "half-split", "interleaved": "interleaved"}
    if ident.layout != spec.layout and ident.pairs:
        if ident.layout in names:
            shown = ", ".join(f"({a}, {b})" for a, b in ident.pairs[:2])
            want = "(i, i+r/2)" if spec.layout == "half" else "(2i, 2i+1)"
            got = "(i, i+r/2)" if ident.layout == "half" else "(2i, 2i+1)"
            msg = f"pairs {got} [{shown}, ...]: {names[ident.layout]}, expected {names[spec.layout]} {want}"
        else:
            shown = ", ".join(f"({a}, {b})" for a, b in ident.pairs[:4])
            msg = f"pairs {shown}, ...: neither interleaved nor half-split, expected {names[spec.layout]}"
        out.append(
            Discrepancy(
                "layout",
                msg,
                "use the spec's pairing: 'interleaved' rotates (x_2i, x_2i+1), "
                "'half' rotates (x_i, x_i+r/2) (rotate_half)",
            )
        )
    ph0_all = np.array(ident.phase0) if ident.phase0 else np.zeros(0)
    swapped = ident.direction == "reversed" and ph0_all.size and np.abs(ph0_all - np.pi / 2).max() < 1e-2
    if swapped:
        out.append(
            Discrepancy(
                "phase",
                "cos and sin are swapped: each pair is rotated by pi/2 - m*theta_i (x*sin + "
                "rotate(x)*cos), so position 0 is not the identity",
                "unpack the cache in the right order: y = x*cos + rotate(x)*sin",
            )
        )
        return out
    if ident.direction == "reversed":
        out.append(
            Discrepancy(
                "direction",
                "the rotation is reversed (angle -m*theta_i): sin has the wrong sign",
                "y_a = x_a cos - x_b sin, y_b = x_a sin + x_b cos (rotate_half is cat(-x2, x1))",
            )
        )
    elif ident.direction == "mixed":
        out.append(
            Discrepancy(
                "direction", "some pairs rotate one way and some the other", "use one sign of sin for every pair"
            )
        )
    if ident.scale is not None and ident.is_rotation and ident.pairs:
        factor = spec.attention_factor
        if abs(ident.scale - factor) > 1e-3 * max(1.0, factor) + 64 * UNIT_ROUNDOFF[ident.dtype]:
            if abs(factor - 1.0) < 1e-12:
                msg = (
                    f"the rotated dims are scaled by {ident.scale:.6g}: cos and sin carry a factor, "
                    "expected none (a pure rotation)"
                )
            elif abs(ident.scale - 1.0) < 1e-6:
                msg = f"the attention factor is not applied: scale 1, expected {factor:.6g}"
            else:
                msg = f"the attention factor is {ident.scale:.6g}, expected {factor:.6g}"
            out.append(
                Discrepancy(
                    "scale", msg, "multiply cos and sin by the spec's attention factor (1 except YaRN/LongRoPE)"
                )
            )
    if not ident.inv_freq or len(ident.inv_freq) != spec.half:
        return out
    seq_len = expected_seq_len(spec, list(ident.positions))
    want_t = spec.inv_freq(seq_len)
    got_t = np.array(ident.inv_freq)
    # the phase at position 0: an offset of k positions shows as phi_i(0) = k theta_i
    ph0 = np.array(ident.phase0)
    if np.abs(ph0).max() > 1e-3:
        k_est = ph0 / np.where(got_t > 0, got_t, 1.0)
        usable = got_t > 1e-2
        if usable.any() and np.ptp(k_est[usable]) < 0.05 and abs(np.round(k_est[usable][0]) - k_est[usable][0]) < 0.05:
            k = int(round(float(k_est[usable][0])))
            out.append(
                Discrepancy(
                    "positions",
                    f"positions are off by {k:+d}: position 0 is rotated as position {k}",
                    "use the positions as given (no +1 from 1-based indexing or cache offsets)",
                )
            )
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
        out.append(
            Discrepancy(
                "frequencies",
                _frequency_words(got_t, want_t, spec, ident),
                "theta_i = base^(-2i/rotary_dim), computed in float32 or better, then the spec's scaling",
            )
        )
    return out


def _low_precision_entries(ident: Identification) -> str | None:
    """'bfloat16'/'float16' when every rotated entry is a value of that dtype (for float32/float64 probes)."""
    if ident.dtype not in ("float32", "float64") or not ident.rotated_dims:
        return None
    import torch  # heavy: imported when used

    dims = list(ident.rotated_dims)
    block = ident.matrices[:, dims][:, :, dims]
    if np.count_nonzero(block) == 0:
        return None
    t = torch.from_numpy(np.ascontiguousarray(block))
    for name in ("bfloat16", "float16"):
        if torch.equal(t.to(getattr(torch, name)).double(), t):
            return name
    return None


def _frequency_words(got: np.ndarray, want: np.ndarray, spec: RopeSpec, ident: Identification) -> str:
    n, r = len(got), spec.rotary_dim
    ratio = got / want
    i = np.arange(n)
    if np.ptp(ratio) < 1e-3 * abs(ratio.mean()):
        k = float(ratio.mean())
        shift = -math.log(k) / math.log(spec.base) * r / 2 if spec.rope_type == "default" else 0.0
        if abs(shift) > 0.5 and abs(shift - round(shift)) < 0.02:
            j = int(round(shift))
            return (
                f"frequencies follow base^(-2(i{j:+d})/{r}): the frequency index starts at {j}, expected 0 "
                f"(theta_0 = {got[0]:.6g}, expected 1)"
            )

        if isinstance(spec.scaling, Linear):
            return (
                f"every frequency is {k:.6g}x the spec's: positions are divided by {spec.scaling.factor / k:.6g}, "
                f"expected the linear factor {spec.scaling.factor:g}"
            )
        if abs(k - 2) < 1e-3:
            return "every angle is twice the expected (2*m*theta_i): cos/sin applied twice"
        return f"every frequency is {k:.6g}x the spec's (a position scale of {1 / k:.6g}, expected 1)"
    rel = np.abs(ratio - 1)
    for name, tname in (("bfloat16", "bf16"), ("float16", "fp16")):
        import torch  # heavy: imported when used

        rounded = torch.tensor(want).to(getattr(torch, name)).double().numpy()
        if rel.max() <= 2 * UNIT_ROUNDOFF[name] and np.allclose(got, rounded, rtol=2e-4, atol=0):
            return (
                f"theta_i deviate by up to {100 * rel.max():.3g}%, exactly the {name} rounding of the spec's: "
                f"inv_freq stored or computed in {tname}"
            )
    base_default = RopeSpec(head_dim=spec.head_dim, rotary_dim=spec.rotary_dim, base=spec.base).inv_freq()
    if spec.rope_type != "default" and np.allclose(got, base_default, rtol=1e-5):
        return (
            f"the frequencies are unscaled (default schedule, base {_fmt(spec.base)}): "
            f"the spec's {spec.rope_type} scaling is not applied"
        )
    if ident.geometric and ident.base is not None and n >= 2:
        beta_got = np.polyfit(i, np.log(got), 1)[0]
        beta_want = -2 * math.log(spec.base) / r
        if spec.rope_type == "default":
            e = beta_got / beta_want * 2
            if abs(e - 2) > 0.02 and abs(e - round(e)) < 0.02:
                div = "" if round(e) == 1 else f"{int(round(e))}"
                return f"frequencies follow base^(-{div}i/{r}), expected base^(-2i/{r}) (wrong exponent)"
            if abs(e - 2) <= 0.02:
                k = -math.log(got[0]) / math.log(spec.base) * r / 2
                if abs(k) > 0.02 and abs(k - round(k)) < 0.05:
                    kk = int(round(k))
                    return f"frequencies follow base^(-2(i+{kk})/{r}): the frequency index starts at {kk}, expected 0"
            rd = -2 * math.log(spec.base) / beta_got
            if (
                abs(got[0] - 1) < 1e-3
                and abs(rd - round(rd)) < 0.05
                and round(rd) != r
                and round(rd) % 2 == 0
                and 2 <= round(rd) <= 4 * spec.head_dim
            ):
                return (
                    f"frequencies follow base^(-2i/{int(round(rd))}), expected base^(-2i/{r}): the wrong dimension "
                    "in the exponent" + (" (head_dim instead of rotary_dim)" if round(rd) == spec.head_dim else "")
                )
            if abs(ident.base / spec.base - 1) > 1e-3 and abs(got[0] - 1) < 1e-3:
                return (
                    f"the frequencies fit base {_fmt(ident.base)} (theta_1 = base^(-2/{r})), "
                    f"expected base {_fmt(spec.base)}"
                )
    j = int(np.argmax(rel))
    return (
        f"theta_i differ from the spec at {int((rel > 1e-5).sum())} of {n} pairs; worst pair {j}: "
        f"{got[j]:.6g}, expected {want[j]:.6g} (ratio {ratio[j]:.6g})"
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


def position_cap(spec: RopeSpec | None, max_position: int) -> int:
    """Length-dependent schedules are probed below their original context (their frequencies are fixed there)."""
    if spec is not None and isinstance(spec.scaling, (DynamicNTK, LongRoPE)):
        return min(max_position, spec.scaling.original_max_position_embeddings - 1)
    return max_position


def apparent_position(ident: Identification, k: int) -> float | None:
    """The position whose rotation the target applied at probe ``k`` (None if not a clean rotation).

    Unwraps from the slowest pair (unambiguous) to the fastest: q = (phi_i + 2 pi n_i) / theta_i.
    """
    if not ident.is_rotation or not ident.inv_freq or not ident.pairs:
        return None
    mats = ident.matrices[k]
    a = np.array([p[0] for p in ident.pairs])
    b = np.array([p[1] for p in ident.pairs])
    c = (mats[a, a] + mats[b, b]) / 2
    s = (mats[b, a] - mats[a, b]) / 2
    sign = -1.0 if ident.direction == "reversed" else 1.0
    phi = sign * np.arctan2(s, c) - sign * np.array(ident.phase0)
    theta = np.array(ident.inv_freq)
    order = np.argsort(theta)
    i0 = order[0]
    if theta[i0] <= 0:
        return None
    q = float(phi[i0] / theta[i0])
    for i in order[1:]:
        if theta[i] * abs(q) * 1e-6 > 0.5:  # fp noise on q would make n_i ambiguous
            break
        n = np.round((q * theta[i] - phi[i]) / (2 * np.pi))
        q = float((phi[i] + 2 * np.pi * n) / theta[i])
    return q


def describe_deviation(ident: Identification, first_bad: int) -> Discrepancy:
    """Words for angles that stop matching the spec from probed position ``first_bad`` on."""
    pos = list(ident.positions)
    bad = [k for k, p in enumerate(pos) if p >= first_bad]
    seen = [(pos[k], apparent_position(ident, k)) for k in bad]
    seen = [(p, q) for p, q in seen if q is not None]
    if seen:
        qs = np.array([q for _, q in seen])
        ps = np.array([p for p, _ in seen])
        if np.ptp(qs) < 0.5:
            q = int(round(float(qs[0])))
            return Discrepancy(
                "positions",
                f"positions {first_bad} and above are rotated as position {q}: "
                f"the cos/sin cache is too short or positions are clamped at {q}",
                "size the cos/sin cache for every position used (or compute the angles on the fly)",
            )
        idx = np.array([pos.index(int(p)) for p in ps])
        if np.allclose(qs, idx, atol=0.5):
            return Discrepancy(
                "positions",
                f"the positions given are ignored: the token at position {int(ps[0])} is rotated "
                f"as position {int(round(qs[0]))}, its index in the call",
                "use the positions passed in, not arange(seq_len)",
            )
        j = 0
        return Discrepancy(
            "positions",
            f"from position {first_bad} on the angles deviate from the spec: position "
            f"{int(ps[j])} is rotated as position {qs[j]:.6g}",
            "the angle must be exactly position * theta_i for every position up to the maximum",
        )
    return Discrepancy(
        "positions",
        f"from position {first_bad} on the target's matrices deviate from the spec",
        "the angle must be exactly position * theta_i for every position up to the maximum",
    )
