"""Theorems 5-8: linear attention, long-term decay, context extension, multi-axis RoPE.

Each builder returns a decided :class:`~ropecheck.symbolic.Proof`. Context extension
contains one *intended* refutation: dynamic NTK with the keys' angles cached at another
length than the query's breaks the relative property, and the counterexample is exact.

Design constraints: symbolic statements use exact constants only; the one numeric part
(the decay curve of theorem 6) is stored as data beside the proof and never decides a step.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from typing import Any

import sympy
from sympy import I, IndexedBase, Matrix, Rational, Sum, Symbol, exp, log

from ._decide import decide_step
from ._proof import Proof, Verdict
from ._rope import dot, positions, rope_matrix, rot, thetas, vec

__all__ = [
    "axial_matrix",
    "context_extension",
    "decay_curve",
    "dynamic_ntk_theta",
    "linear_attention",
    "long_term_decay",
    "mrope_matrix",
    "multi_axis",
]


def _finish(proof: Proof, t0: float) -> Proof:
    proof.seconds = time.perf_counter() - t0
    return proof


def _real(*names: str) -> tuple[Symbol, ...]:
    return tuple(Symbol(n, real=True) for n in names)


# --------------------------------------------------------------------------- theorem 5


def linear_attention(*, keys: int = 3, d: int = 4) -> Proof:
    """The RoPE linear-attention numerator depends on positions only through n - m."""
    t0 = time.perf_counter()
    m, t = positions("m", "t")
    ns = positions(*[f"n_{j}" for j in range(keys)])
    freqs = thetas(d // 2)
    fq = vec("phi_q", d)
    fks = [vec(f"phi_k{j}", d) for j in range(keys)]
    vs = _real(*[f"v_{j}" for j in range(keys)])

    def numerator(mq: Any, nk: Sequence[Any]) -> Any:
        return sum(
            (dot(rope_matrix(freqs, mq) * fq, rope_matrix(freqs, n) * fk) * v for n, fk, v in zip(nk, fks, vs)),
            sympy.S.Zero,
        )

    relative = sum(
        ((fq.T * rope_matrix(freqs, n - m) * fk)[0, 0] * v for n, fk, v in zip(ns, fks, vs)),
        sympy.S.Zero,
    )
    # symbolic number of keys J, one 2-D block per key (the block-diagonal sum is theorem 2)
    j, jn = Symbol("j", integer=True, nonnegative=True), Symbol("J", integer=True, positive=True)
    kb, nb, vb, theta = IndexedBase("k", real=True), IndexedBase("n", integer=True), IndexedBase("v", real=True), Symbol("theta", real=True)
    u = Matrix(_real("u_0", "u_1"))
    kj = Matrix([kb[j, 0], kb[j, 1]])
    p = Proof(
        "linear_attention",
        "linear_attention",
        "Linear attention with RoPE is relative",
        "The RoPE linear-attention numerator sum_n (R_m phi(q))^T (R_n phi(k_n)) v_n equals "
        "sum_n phi(q)^T R_{n-m} phi(k_n) v_n, so it depends on the positions only through n - m.",
    )
    p.notes.append("phi is any feature map (its values are free real symbols); v_n is one value channel, each channel alike.")
    p.steps += [
        decide_step(
            "keys_sum",
            "Any number J of keys (one block each): the numerator is a sum of equal summands "
            "(R(m theta) u)^T (R(n_j theta) k_j) v_j = u^T R((n_j - m) theta) k_j v_j.",
            Sum(dot(rot(m * theta) * u, rot(nb[j] * theta) * kj) * vb[j], (j, 0, jn - 1)),
            Sum((u.T * rot((nb[j] - m) * theta) * kj)[0, 0] * vb[j], (j, 0, jn - 1)),
        ),
        decide_step(
            f"relative_d{d}_keys{keys}",
            f"d={d}, {keys} keys: the numerator equals sum_n phi(q)^T R_(n-m) phi(k_n) v_n.",
            numerator(m, ns),
            relative,
        ),
        decide_step(
            f"translation_d{d}_keys{keys}",
            f"d={d}, {keys} keys: shifting every position by t leaves the numerator unchanged.",
            numerator(m, ns),
            numerator(m + t, [n + t for n in ns]),
        ),
    ]
    return _finish(p, t0)


# --------------------------------------------------------------------------- theorem 6


def decay_curve(*, base: int = 10000, d: int = 128, distances: Sequence[int] | None = None) -> list[tuple[int, float]]:
    """(relative distance r, (1/(d/2)) sum_j |S_j|) with S_j = sum_{k<j} e^{i r theta_k}; fp64."""
    import numpy as np

    h = d // 2
    theta = float(base) ** (-2.0 * np.arange(h) / d)
    rs = list(range(256)) + [int(x) for x in np.unique(np.geomspace(256, 65536, 64).astype(int))] if distances is None else list(distances)
    out = []
    for r in rs:
        s = np.cumsum(np.exp(1j * r * theta))
        out.append((int(r), float(np.abs(s).sum() / h)))
    return out


def _decay_summary(curve: list[tuple[int, float]]) -> dict[str, Any]:
    bands = [(0, 1), (1, 16), (16, 64), (64, 256), (256, 1024), (1024, 4096), (4096, 65537)]
    means = []
    for lo, hi in bands:
        vals = [v for r, v in curve if lo <= r < hi]
        if vals:
            means.append({"from": lo, "to": hi - 1, "mean": sum(vals) / len(vals)})
    decays = all(a["mean"] > b["mean"] for a, b in itertools.pairwise(means))
    return {"bands": means, "decreasing_band_means": decays}


def long_term_decay(*, small: Sequence[int] = (1, 2, 3, 4)) -> Proof:
    """Abel summation for sum_i h_i e^{i(m-n) theta_i}, and the decay bound's curve."""
    t0 = time.perf_counter()
    p = Proof(
        "long_term_decay",
        "long_term_decay",
        "Long-term decay (Abel summation)",
        "With S_j = sum_{k<j} e^{i(m-n) theta_k} (S_0 = 0) and h_{d/2} = 0: "
        "sum_{i<d/2} h_i e^{i(m-n) theta_i} = -sum_{i<d/2} S_{i+1} (h_{i+1} - h_i), hence "
        "|sum_i h_i e^{i(m-n) theta_i}| <= (max_i |h_{i+1} - h_i|) sum_j |S_j|.",
    )
    m, n = positions("m", "n")
    for big_n in small:
        hs = list(sympy.symbols(f"h_0:{big_n}")) + [sympy.S.Zero]
        th = thetas(big_n)
        e = [exp(I * (m - n) * t) for t in th]
        s = [sum(e[:j], sympy.S.Zero) for j in range(big_n + 1)]
        p.steps.append(
            decide_step(
                f"abel_d{2 * big_n}",
                f"d/2 = {big_n}, symbolic h_i (complex) and theta_i: the Abel-summation identity.",
                sum((hs[i] * e[i] for i in range(big_n)), sympy.S.Zero),
                -sum((s[i + 1] * (hs[i + 1] - hs[i]) for i in range(big_n)), sympy.S.Zero),
            )
        )
    # general d/2 = N: summation by parts, by induction on N
    i, big = Symbol("i", integer=True, nonnegative=True), Symbol("N", integer=True, nonnegative=True)
    hb, sb = IndexedBase("h"), IndexedBase("S")

    def lhs(upper: Any) -> Any:
        return Sum(hb[i] * (sb[i + 1] - sb[i]), (i, 0, upper - 1))

    def rhs(upper: Any) -> Any:
        return hb[upper] * sb[upper] - hb[0] * sb[0] - Sum(sb[i + 1] * (hb[i + 1] - hb[i]), (i, 0, upper - 1))

    k, r = Symbol("k", integer=True, nonnegative=True), Symbol("r", integer=True)
    th = IndexedBase("theta", real=True)

    def partial(upper: Any) -> Any:  # S_j = sum_{k<j} e^{i r theta_k}
        return Sum(exp(I * r * th[k]), (k, 0, upper - 1))

    p.steps += [
        decide_step(
            "partial_sums_start",
            "S_0 = sum_{k<0} e^{i r theta_k} = 0 (r = m - n).",
            partial(sympy.S.Zero),
            sympy.S.Zero,
        ),
        decide_step(
            "partial_sums_increment",
            "S_{N+1} - S_N = e^{i r theta_N} for every N: the summation-by-parts identity below, with "
            "S_{i+1} - S_i in place of e^{i r theta_i}, is the Abel-summation identity.",
            partial(big + 1) - partial(big),
            exp(I * r * th[big]),
        ),
        decide_step(
            "by_parts_base",
            "Summation by parts for every N (N = d/2), base case N = 0: both sides are 0.",
            lhs(sympy.S.Zero),
            rhs(sympy.S.Zero),
        ),
        decide_step(
            "by_parts_step",
            "Inductive step: going from N to N + 1 changes both sides by the same amount, so the identity "
            "for N gives it for N + 1 (hence for every N >= 0).",
            lhs(big + 1) - lhs(big),
            rhs(big + 1) - rhs(big),
        ),
    ]
    p.notes += [
        ("With S_{i+1} - S_i = e^{i(m-n) theta_i} and S_0 = 0 (partial_sums_*) and h_{d/2} = 0, the "
        "summation-by-parts identity (by_parts_*, by induction on N) is exactly the Abel-summation identity above, "
        "for every d."),
        ("The bound follows by the triangle inequality: |sum_i S_{i+1}(h_{i+1} - h_i)| <= "
        "sum_i |S_{i+1}| |h_{i+1} - h_i| <= (max_i |h_{i+1} - h_i|) sum_j |S_j| (an inequality, not a SymPy step)."),
        "The curve (1/(d/2)) sum_j |S_j| below is numeric (fp64) evidence of the decay, not part of the proof.",
    ]
    curve = decay_curve()
    p.data["decay_curve"] = {"base": 10000, "d": 128, "points": curve, **_decay_summary(curve)}
    return _finish(p, t0)


# --------------------------------------------------------------------------- theorem 7


def dynamic_ntk_theta(i: int, length: int, *, r: int = 4, base: int = 10000, factor: int = 2, original: int = 4) -> Any:
    """Exact dynamic-NTK theta_i at current length L: (base (s L/L0 - (s-1))^{r/(r-2)})^{-2i/r}."""
    grow = Rational(factor * max(length, original), original) - (factor - 1)
    return (base * grow ** Rational(r, r - 2)) ** Rational(-2 * i, r)


def context_extension() -> Proof:
    """Which schedules keep the relative property, which break it, and YaRN's factor."""
    t0 = time.perf_counter()
    m, n = positions("m", "n")
    u, v = Matrix(_real("u_0", "u_1")), Matrix(_real("v_0", "v_1"))
    theta = Symbol("theta", positive=True)
    s, b, dd = (Symbol(x, positive=True) for x in ("s", "b", "d"))
    i = Symbol("i", integer=True, nonnegative=True)
    gamma, sigma, lam = Symbol("gamma", real=True), Symbol("sigma", real=True), Symbol("lambda", positive=True)
    schedules = {
        "linear": ("linear / position interpolation: theta_i / s", theta / s),
        "static_ntk": ("static NTK: (b s^{d/(d-2)})^{-2i/d}", (b * s ** (dd / (dd - 2))) ** (-2 * i / dd)),
        "yarn": ("YaRN: theta_i ((1 - gamma_i)/s + gamma_i), ramp gamma_i", theta * ((1 - gamma) / s + gamma)),
        "llama3": ("Llama 3: theta_i ((1 - sigma_i)/s + sigma_i) (sigma_i = 0, 1 or the smooth ramp)", theta * ((1 - sigma) / s + sigma)),
        "longrope": ("LongRoPE, one factor set: theta_i / lambda_i", theta / lam),
        "dynamic_ntk_same_length": ("dynamic NTK, query and keys at the same length L: theta_i(L)", Symbol("theta_L", positive=True)),
    }
    p = Proof(
        "context_extension",
        "context_extension",
        "Context extension: which schedules stay relative",
        "A schedule keeps the relative property exactly when every angle is linear in the position, "
        "phi_i(m) = m theta'_i with theta'_i independent of m. Linear/PI, static NTK, YaRN, Llama 3 and LongRoPE "
        "(within one factor set) do; dynamic NTK with keys cached at another length does not. YaRN's attention "
        "factor multiplies every score by the same constant.",
    )
    for key, (label, tp) in schedules.items():
        p.steps.append(
            decide_step(
                key,
                f"{label}: <R(m theta') u, R(n theta') v> = u^T R((n-m) theta') v.",
                dot(rot(m * tp) * u, rot(n * tp) * v),
                (u.T * rot((n - m) * tp) * v)[0, 0],
            )
        )
    tq, tk = dynamic_ntk_theta(1, 8), dynamic_ntk_theta(1, 4)
    tt = Symbol("t", integer=True)

    def cross(mq: Any, nk: Any) -> Any:
        return dot(rot(mq * tq) * u, rot(nk * tk) * v)

    p.steps.append(
        decide_step(
            "dynamic_ntk_cross_length",
            f"Dynamic NTK (r=4, base 10000, factor 2, L0 = 4): query at length 8 (theta_1 = {tq}), keys cached at "
            f"length 4 (theta_1 = {tk}). Claim: the score is unchanged by shifting both positions by t. "
            "Refuted: the score depends on more than n - m.",
            cross(m, n),
            cross(m + tt, n + tt),
            expect=Verdict.REFUTED,
        )
    )
    a = log(s) / 10 + 1
    p.steps.append(
        decide_step(
            "yarn_attention_factor",
            "YaRN multiplies cos and sin by a = 0.1 ln s + 1 for q and k: every score is scaled by a^2, the same "
            "constant at every (m, n).",
            dot(a * rot(m * theta) * u, a * rot(n * theta) * v),
            a**2 * (u.T * rot((n - m) * theta) * v)[0, 0],
        )
    )
    check = _spec_dynamic_check(tq, tk)
    p.data["dynamic_ntk"] = {"theta_query": str(tq), "theta_key": str(tk), "spec_check": check}
    if not check["agrees"]:
        p.notes.append("RopeSpec's DynamicNTK schedule gives other thetas than the exact ones used here (see the cross-check).")
    return _finish(p, t0)


def _spec_dynamic_check(tq: Any, tk: Any) -> dict[str, Any]:
    """Do the exact thetas above agree with RopeSpec's DynamicNTK schedule (fp64)? Reported, not asserted."""
    from .._spec import DynamicNTK, RopeSpec

    spec = RopeSpec(head_dim=4, base=10000.0, scaling=DynamicNTK(2.0, 4))
    got_q, got_k = float(spec.inv_freq(8)[1]), float(spec.inv_freq(4)[1])
    agrees = math.isclose(got_q, float(tq), rel_tol=1e-14) and math.isclose(got_k, float(tk), rel_tol=1e-14)
    return {"spec_theta_query": got_q, "spec_theta_key": got_k, "agrees": agrees}


# --------------------------------------------------------------------------- theorem 8


def axial_matrix(freqs_x: Sequence[Any], freqs_y: Sequence[Any], px: Any, py: Any) -> Matrix:
    """2-D axial RoPE: the first pairs turn with the x position, the rest with the y position."""
    return sympy.diag(rope_matrix(freqs_x, px), rope_matrix(freqs_y, py))


def mrope_matrix(freqs: Sequence[Any], sections: Sequence[int], pos: Sequence[Any]) -> Matrix:
    """M-RoPE: consecutive frequency sections (in pairs) turn with the (t, h, w) positions."""
    blocks, start = [], 0
    for size, p in zip(sections, pos):
        blocks.append(rope_matrix(freqs[start : start + size], p))
        start += size
    return sympy.diag(*blocks)


def multi_axis() -> Proof:
    """Axial 2-D RoPE and M-RoPE are translation-invariant per axis; M-RoPE reduces to 1-D RoPE."""
    t0 = time.perf_counter()
    a1, b1, a2, b2, tx, ty = positions("a_1", "b_1", "a_2", "b_2", "t_x", "t_y")
    fx, fy = thetas(2, "theta"), thetas(2, "omega")
    q, k = vec("q", 8), vec("k", 8)

    def axial(pq: tuple[Any, Any], pk: tuple[Any, Any]) -> Any:
        return dot(axial_matrix(fx, fy, *pq) * q, axial_matrix(fx, fy, *pk) * k)

    sections = (1, 1, 2)
    freqs = thetas(4)
    tq_, hq, wq, tk_, hk, wk, ta, ha, wa = positions("t_q", "h_q", "w_q", "t_k", "h_k", "w_k", "s_t", "s_h", "s_w")
    m = positions("m")[0]

    def mrope(pq: Sequence[Any], pk: Sequence[Any]) -> Any:
        return dot(mrope_matrix(freqs, sections, pq) * q, mrope_matrix(freqs, sections, pk) * k)

    p = Proof(
        "multi_axis",
        "multi_axis",
        "Multi-axis RoPE: axial 2-D and M-RoPE",
        "2-D axial RoPE and M-RoPE scores are invariant under a translation of each axis separately; "
        "M-RoPE with the same position on every axis is 1-D RoPE.",
    )
    p.notes.append("d = 8: axial uses 2 pairs per axis (theta for x, omega for y); M-RoPE sections (1, 1, 2) pairs for (t, h, w).")
    p.steps += [
        decide_step("axial_x", "Axial 2-D: shifting the x positions of q and k by t_x keeps the score.",
                    axial((a1, b1), (a2, b2)), axial((a1 + tx, b1), (a2 + tx, b2))),
        decide_step("axial_y", "Axial 2-D: shifting the y positions of q and k by t_y keeps the score.",
                    axial((a1, b1), (a2, b2)), axial((a1, b1 + ty), (a2, b2 + ty))),
        decide_step("axial_relative", "Axial 2-D: the score is q^T R_axial(a_2 - a_1, b_2 - b_1) k.",
                    axial((a1, b1), (a2, b2)), (q.T * axial_matrix(fx, fy, a2 - a1, b2 - b1) * k)[0, 0]),
        decide_step("mrope_per_axis", "M-RoPE: shifting each of t, h, w by its own amount keeps the score.",
                    mrope((tq_, hq, wq), (tk_, hk, wk)), mrope((tq_ + ta, hq + ha, wq + wa), (tk_ + ta, hk + ha, wk + wa))),
        decide_step("mrope_reduces", "M-RoPE with t = h = w = m is the 1-D RoPE matrix R_{Theta,m}.",
                    mrope_matrix(freqs, sections, (m, m, m)), rope_matrix(freqs, m)),
    ]
    return _finish(p, t0)
