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

A head that comes back reordered (M(0) a permutation, not the identity) is recognised and the
permutation factored out, so a rotated slice moved to the other end still identifies as a
rotation. :mod:`.compare` turns the differences from a :class:`~ropecheck.RopeSpec` into words.

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
from ..schedules import DynamicNTK, LongRoPE
from ..spec import RopeSpec
from ..tolerance import UNIT_ROUNDOFF, dtype_name

__all__ = [
    "Identification",
    "NONE_MAX_ELEMENTS",
    "analyse",
    "apparent_position",
    "dim_ranges",
    "expected_seq_len",
    "identify",
    "IDENTIFY_COPIES",
    "own_memory_bytes",
    "position_cap",
    "probe_matrices",
    "probe_positions",
]

# fn(x) targets: one call of (1, L, d, d) elements reaches position L-1; keep it bounded (L = 256 at d = 128:
# the precision check reaches further with one call of (1, L, 2, d)).
NONE_MAX_ELEMENTS = 1 << 22
#: How many (P, d, d) float64 arrays identification holds at its peak: the basis-vector input, the target's
#: output read back, the matrices, and the analysis' working copy (|M| with the diagonal cleared).
IDENTIFY_COPIES = 4


def own_memory_bytes(head_dim: int, positions: int) -> int:
    """Bytes ropecheck itself needs to identify a target: ``positions`` probe matrices of ``head_dim`` squared.

    An upper bound for :func:`probe_matrices` and :func:`analyse`: :data:`IDENTIFY_COPIES` float64
    arrays of shape (P, d, d), plus the d x d identity the probes are cut from.

    Example:
        >>> own_memory_bytes(128, 40) >> 20
        20
    """
    d, p = int(head_dim), max(int(positions), 1)
    return 8 * d * d * (IDENTIFY_COPIES * p + 1)


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
    #: per pair, the sign of its angle per position (+1, -1; 0 where it barely turns)
    turn_signs: tuple[int, ...] = ()
    inv_freq: tuple[float, ...] = ()
    phase0: tuple[float, ...] = ()
    base: float | None = None
    exponent: float | None = None
    index_shift: float | None = None
    geometric: bool = False
    linear_up_to: int | None = None
    nonlinear_at: int | None = None
    notes: list[str] = field(default_factory=list)
    permutation: tuple[int, ...] | None = None

    @property
    def rotary_dim(self) -> int:
        return len(self.rotated_dims)

    @property
    def rotary_prefix(self) -> bool:
        return self.rotated_dims == tuple(range(self.rotary_dim))

    @property
    def analysed_matrices(self) -> np.ndarray:
        """The matrices with a reordering of the head factored out (M(p) P^T), what the pairs refer to."""
        if self.permutation is None:
            return self.matrices
        return self.matrices[:, :, list(self.permutation)]

    @property
    def rotary_suffix(self) -> bool:
        """The rotated dims are the last ones (DeepSeek MLA's ``cat(q_nope, q_pe)``), and not the whole head."""
        d, r = self.head_dim, self.rotary_dim
        return 0 < r < d and self.rotated_dims == tuple(range(d - r, d))

    def describe(self) -> str:
        """One sentence: what the target is."""
        if not self.is_rotation:
            return f"not a RoPE: {self.rotation_problem}"
        if not self.pairs:
            return "no dimension is rotated at any probed position (the identity)"
        layout = {"half": "half-split", "interleaved": "interleaved"}.get(self.layout, "unusual-pairing")
        parts = [
            f"{'an' if layout[0] in 'aeiou' else 'a'} {layout} RoPE",
            f"rotary_dim {self.rotary_dim}"
            + ("" if self.rotary_prefix else " (the last dims)" if self.rotary_suffix else " (not the leading dims)"),
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
        if self.permutation is not None:
            parts.append("the head comes back with its dims reordered")
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
            "permutation": None if self.permutation is None else list(self.permutation),
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
    perm = _permutation(mats, positions, zt)
    if perm is not None:  # the head comes back reordered: analyse M(p) P^T, the rotation in output order
        ident.permutation = tuple(int(j) for j in perm)
        mats = mats[:, :, perm]  # (M P^T)[:, i] = M[:, perm[i]]: column i of the unpermuted map
    pairs, mixing = _find_pairs(mats, zt)
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
    if not pairs:
        ident.layout = "none"
        return ident
    ident.layout = _layout(pairs, rotated)
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


def _find_pairs(mats: np.ndarray, zt: float) -> tuple[list[tuple[int, int]], list[str]]:
    """The dim pairs the matrices rotate (each dim linked to exactly one other), and up to three dims that mix
    with several."""
    d = mats.shape[1]
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
    return pairs, mixing


def _layout(pairs: list[tuple[int, int]], rotated: list[int]) -> str:
    """'interleaved', 'half' or 'other' for the pairs found (the rotated dims sorted)."""
    r = len(rotated)
    r0 = rotated[0]
    if pairs == [(r0 + 2 * i, r0 + 2 * i + 1) for i in range(r // 2)]:
        return "interleaved"
    if pairs == [(rotated[i], rotated[i + r // 2]) for i in range(r // 2)] and rotated == list(range(r0, r0 + r)):
        return "half"
    return "other"


def _permutation(mats: np.ndarray, positions: list[int], zt: float) -> np.ndarray | None:
    """perm with M(0)[i, perm[i]] = 1 when M(0) is a permutation matrix other than the identity, else None."""
    if 0 not in positions:
        return None
    m0 = mats[positions.index(0)]
    d = m0.shape[0]
    big = m0 > 1 - 64 * zt
    if np.abs(m0[~big]).max(initial=0.0) > zt or np.abs(m0[big] - 1).max(initial=0.0) > 64 * zt:
        return None
    if not (big.sum(axis=0) == 1).all() or not (big.sum(axis=1) == 1).all():
        return None
    perm = np.argmax(big, axis=1)  # output dim i holds input dim perm[i]
    if np.array_equal(perm, np.arange(d)):
        return None
    return perm


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
    ident.turn_signs = tuple(int(np.sign(t)) if k else 0 for t, k in zip(theta, sig))
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


def dim_ranges(dims: list[int]) -> str:
    """'0–31, 64–95' for a sorted list of dims."""
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
    mats = ident.analysed_matrices[k]
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
