"""Theorem 6: long-term decay -- the score as Re sum_i h_i e^{i(m-n) theta_i}, Abel summation, the bound.

What is proved (SymPy, every d = 2N): with q, k in R^d paired into complex numbers
q_[i] = q_{2i} + i q_{2i+1} (the complex form of theorem 3) and h_i = q_[i] conj(k_[i]), the RoPE
score <R_m q, R_n k> equals Re sum_i h_i e^{i(m-n) theta_i}; that sum equals
-sum_i S_{i+1} (h_{i+1} - h_i) (Abel summation, h_N = 0); and |score| is at most
(max_i |h_{i+1} - h_i|) sum_j |S_j|, each inequality a step decided as an inequality.

What is measured, not proved: how the curve (1/(d/2)) sum_j |S_j| behaves with the relative
distance. It is computed in fp64 at every integer distance (``dense_decay``), reduced to a
min/max envelope per plot bin (``decay_envelope``) so the plot hides no excursion, and its
figures (steps that go up, the maximum past a distance) are stored beside the proof for the
page to print; they never decide a step. Run ``python proofs/long_term_decay.py``.
"""

from __future__ import annotations

import functools
import itertools
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import sympy
from sympy import I, IndexedBase, Matrix, Sum, Symbol, conjugate, exp, re

from ropecheck.symbolic.engine.decide import decide_le_step, decide_step
from ropecheck.symbolic.engine.proof import Proof, Step, timed
from ropecheck.symbolic.engine.rope import block_symbols, dot, positions, rope_matrix, rot, thetas, vec
from ropecheck.symbolic.pages.render import print_family

__all__ = [
    "DISTANCES",
    "ENVELOPE_BINS",
    "FAR",
    "NUMBER",
    "THEOREMS",
    "TITLE",
    "decay_curve",
    "decay_envelope",
    "decay_figures",
    "decay_summary",
    "dense_decay",
    "long_term_decay",
    "score_pairing",
]

NUMBER = 6
TITLE = "Abel summation and the decay bound"

#: The curve is measured at every integer relative distance 0 .. DISTANCES - 1.
DISTANCES = 65536
#: Log-spaced plot bins over 1 .. DISTANCES - 1 (fewer after merging bins narrower than one
#: integer): several per horizontal pixel of the ~360 px wide axes, so a bin's min/max is
#: at least as fine as what a pixel column can show.
ENVELOPE_BINS = 1024
#: "Far": the distance past which the page reports the curve's largest value.
FAR = 1000

#: h_i from the pair q_[i] = q_{2i} + i q_{2i+1} and k_[i] (complex form, theorem 3).
Pairing = Callable[[Any, Any], Any]


def score_pairing(zq: Any, zk: Any) -> Any:
    """h_i = q_[i] conj(k_[i]): the pairing for which Re(h_i e^{i(m-n) theta_i}) is pair i's score."""
    return zq * conjugate(zk)


def dense_decay(*, base: int = 10000, d: int = 128, count: int = DISTANCES) -> np.ndarray:
    """(1/(d/2)) sum_{j=1}^{d/2} |S_j| at every r = 0 .. count - 1, S_j = sum_{k<j} e^{i r theta_k}; fp64.

    Computed once per (base, d, count) and returned read-only (the proof and its curve share it)."""
    return _dense_decay(base, d, count)


@functools.cache
def _dense_decay(base: int, d: int, count: int) -> np.ndarray:
    h = d // 2
    theta = float(base) ** (-2.0 * np.arange(h) / d)
    out = np.empty(count)
    for start in range(0, count, 4096):  # 4096 x h complex values at a time
        r = np.arange(start, min(start + 4096, count), dtype=float)
        s = np.cumsum(np.exp(1j * np.outer(r, theta)), axis=1)
        out[start : start + len(r)] = np.abs(s).sum(axis=1) / h
    out.setflags(write=False)
    return out


def decay_curve(*, base: int = 10000, d: int = 128, distances: Sequence[int] | None = None) -> list[tuple[int, float]]:
    """(relative distance r, (1/(d/2)) sum_j |S_j|) at the given distances (default: powers of 2 and 65535)."""
    rs = [0, *(2**e for e in range(16)), DISTANCES - 1] if distances is None else list(distances)
    values = dense_decay(base=base, d=d, count=max(rs) + 1)
    return [(int(r), float(values[r])) for r in rs]


def decay_envelope(values: np.ndarray, *, bins: int = ENVELOPE_BINS) -> list[tuple[int, int, float, float]]:
    """``(first r, last r, min, max)`` of ``values[r]`` per log-spaced bin covering r = 1 .. len - 1 exactly once."""
    edges = np.unique(np.floor(np.geomspace(1, len(values), bins + 1)).astype(int))
    edges[-1] = len(values)
    return [
        (int(a), int(b) - 1, float(values[a:b].min()), float(values[a:b].max()))
        for a, b in itertools.pairwise(edges.tolist())
    ]


def decay_figures(values: np.ndarray, *, far: int = FAR) -> dict[str, Any]:
    """Measured figures of the dense curve: steps r -> r + 1 that go up, the largest value past ``far``."""
    steps = np.diff(values)
    rise = int(np.argmax(steps > 0)) if (steps > 0).any() else None
    tail = values[far:]
    return {
        "distances": len(values),
        "steps": len(steps),
        "steps_up": int((steps > 0).sum()),
        "first_rise": rise,  # the first r with value(r + 1) > value(r)
        "far": far,
        "max_past_far": float(tail.max()),
        "argmax_past_far": far + int(tail.argmax()),
        "min_past_far": float(tail.min()),
        "argmin_past_far": far + int(tail.argmin()),
        "value_at_far": float(values[far]),
    }


def decay_summary(curve: list[tuple[int, float]]) -> dict[str, Any]:
    """Means over bands of relative distance (powers of 4), and whether each band's mean is below the previous."""
    bands = [(0, 1), *((4**e, 4 ** (e + 1)) for e in range(8))]
    means = []
    for lo, hi in bands:
        vals = [v for r, v in curve if lo <= r < hi]
        if vals:
            means.append({"from": lo, "to": hi - 1, "mean": sum(vals) / len(vals)})
    decays = all(a["mean"] > b["mean"] for a, b in itertools.pairwise(means))
    return {"bands": means, "decreasing_band_means": decays}


def _score_steps(pairing: Pairing, small: Sequence[int]) -> list[Step]:
    """The RoPE score as Re sum_i h_i e^{i(m-n) theta_i}: pair i, the sum over pairs (every d), Re of a sum."""
    s = block_symbols()
    q, k, th, i, m, n = s["q"], s["k"], s["theta"], s["i"], s["m"], s["n"]
    big = Symbol("N", integer=True, nonnegative=True)
    zq, zk = q[2 * i] + I * q[2 * i + 1], k[2 * i] + I * k[2 * i + 1]
    h_i = pairing(zq, zk)
    hb = IndexedBase("h")
    name_h = hb[i]
    qi, ki = Matrix([q[2 * i], q[2 * i + 1]]), Matrix([k[2 * i], k[2 * i + 1]])
    pair_score = dot(rot(m * th[i]) * qi, rot(n * th[i]) * ki)
    term = re(h_i * exp(I * (m - n) * th[i]), evaluate=False)  # kept as Re(.) so the page reads as the claim
    term_shown = re(name_h * exp(I * (m - n) * th[i]), evaluate=False)
    # h_i shown from the complex pairs q_[i], k_[i]: the unfolded coordinates would make Re(.) too wide to
    # set on a phone, and a line never breaks inside a function's argument
    term_paired = re(pairing(Symbol("q_{[i]}"), Symbol("k_{[i]}")) * exp(I * (m - n) * th[i]), evaluate=False)
    j = Symbol("j", integer=True, nonnegative=True)
    x, y = IndexedBase("x", real=True), IndexedBase("y", real=True)
    w = IndexedBase("w")

    def coordinates(hh: Any) -> Any:
        return Sum(x[j] * y[j], (j, 0, 2 * hh - 1))

    def pairwise(hh: Any) -> Any:
        return Sum(x[2 * i] * y[2 * i] + x[2 * i + 1] * y[2 * i + 1], (i, 0, hh - 1))

    steps = [
        decide_step(
            "score_pair",
            r"Pair $i$ (symbolic $i$, $q, k, \theta_i$ real, $m, n$ integers): with $q_{[i]} = q_{2i} + i\, q_{2i+1}$, "
            r"$k_{[i]} = k_{2i} + i\, k_{2i+1}$ and $h_i = q_{[i]}\, \overline{k_{[i]}}$, pair $i$'s share of the "
            r"score, $\langle R(m\theta_i)\, q^{(i)}, R(n\theta_i)\, k^{(i)} \rangle$, equals "
            r"$\operatorname{Re}\big(h_i\, e^{i(m-n)\theta_i}\big)$.",
            pair_score,
            term,
            shown={term: term_paired},
        ),
        decide_step(
            "score_regroup_base",
            r"Regrouping (as in theorem 2), base case $N = 1$: $\sum_{j < 2} x_j y_j$ equals "
            r"$\sum_{i < 1} (x_{2i} y_{2i} + x_{2i+1} y_{2i+1})$.",
            coordinates(sympy.S.One),
            pairwise(sympy.S.One),
        ),
        decide_step(
            "score_regroup_step",
            r"Regrouping, inductive step: from $N$ to $N + 1$ both sides gain $x_{2N} y_{2N} + x_{2N+1} y_{2N+1}$; so "
            r"for every $d = 2N$ the inner product over the $d$ coordinates is the sum over the $N$ pairs, and "
            r"$\langle R_{\Theta,m}\, q, R_{\Theta,n}\, k \rangle$ is the sum of the pairs' shares.",
            coordinates(big + 1) - coordinates(big),
            pairwise(big + 1) - pairwise(big),
        ),
        decide_step(
            "score_sum",
            r"The sum over the pairs $i < N$ ($N = d/2$ symbolic): equal summands (`score_pair`) give equal sums, so "
            r"$\langle R_{\Theta,m}\, q, R_{\Theta,n}\, k \rangle = \sum_{i < N} \operatorname{Re}\big(h_i\, "
            r"e^{i(m-n)\theta_i}\big)$ for every $d$.",
            Sum(pair_score, (i, 0, big - 1)),
            Sum(term, (i, 0, big - 1)),
            shown={term: term_shown},
        ),
        decide_step(
            "real_part_sum_base",
            r"The real part of a sum is the sum of the real parts, by induction on $N$: for $N = 0$ both are $0$ "
            r"($w_i \in \mathbb{C}$).",
            Matrix([re(Sum(w[i], (i, 0, -1))), Sum(re(w[i]), (i, 0, -1))]),
            Matrix([0, 0]),
        ),
        decide_step(
            "real_part_sum_step",
            r"Inductive step: from $N$ to $N + 1$, $\operatorname{Re} \sum_{i<N} w_i$ and $\sum_{i<N} "
            r"\operatorname{Re} w_i$ change by the same amount, so with $w_i = h_i\, e^{i(m-n)\theta_i}$: "
            r"$\langle R_{\Theta,m}\, q, R_{\Theta,n}\, k \rangle = \operatorname{Re} \sum_{i<N} h_i\, "
            r"e^{i(m-n)\theta_i}$.",
            re(Sum(w[i], (i, 0, big))) - re(Sum(w[i], (i, 0, big - 1))),
            Sum(re(w[i]), (i, 0, big)) - Sum(re(w[i]), (i, 0, big - 1)),
        ),
    ]
    m_, n_ = positions("m", "n")
    for half in small:  # the same from the matrix definition, for concrete d: an independent check
        d, th_ = 2 * half, thetas(half)
        qv, kv = vec("q", d), vec("k", d)
        hs = [pairing(qv[2 * a] + I * qv[2 * a + 1], kv[2 * a] + I * kv[2 * a + 1]) for a in range(half)]
        score = dot(rope_matrix(th_, m_) * qv, rope_matrix(th_, n_) * kv)
        claim = re(sum((hs[a] * exp(I * (m_ - n_) * th_[a]) for a in range(half)), sympy.S.Zero), evaluate=False)
        # shown as the sum it is, Re sum_{i<d/2} h_i e^{i(m-n) theta_i}: written out term by term it is one
        # function argument too wide for a phone, which a line never breaks inside
        named = re(Sum(hb[i] * exp(I * (m_ - n_) * th[i]), (i, 0, half - 1)), evaluate=False)
        steps.append(
            decide_step(
                f"score_d{d}",
                rf"$d = {d}$, from the matrix definition of $R_{{\Theta,m}}$ (symbolic $q, k, \theta_i, m, n$): "
                rf"$\langle R_{{\Theta,m}}\, q, R_{{\Theta,n}}\, k \rangle = \operatorname{{Re}} \sum_{{i<{half}}} "
                r"h_i\, e^{i(m-n)\theta_i}$.",
                score,
                claim,
                shown={score: Symbol(rf"\langle R_{{\Theta,m}} q, R_{{\Theta,n}} k\rangle_{{d={d}}}"), claim: named},
            )
        )
    return steps


def _real_part_steps() -> list[Step]:
    """|Re z| <= |z| for z = x + i y, decided as an inequality (identity, then a manifestly nonnegative slack)."""
    x, y = Symbol("x", real=True), Symbol("y", real=True)
    mod = sympy.sqrt(x**2 + y**2)  # |z|
    return [
        decide_step(
            "real_part_identity",
            r"For $z = x + i y$ ($x, y$ real), $|z| = \sqrt{x^2 + y^2}$ and $|\operatorname{Re} z| = |x|$: "
            r"$(|z| - |x|)(|z| + |x|) = y^2$.",
            (mod - sympy.Abs(x)) * (mod + sympy.Abs(x)),
            y**2,
        ),
        decide_le_step(
            "real_part_bound",
            r"$|\operatorname{Re} z| \le |z|$ ($z \ne 0$; for $z = 0$ both are $0$): the slack $|z| - |x|$ equals "
            r"the quotient of `real_part_identity` by $|z| + |x| > 0$, which is manifestly $\ge 0$.",
            sympy.S.Zero,
            y**2 / (mod + sympy.Abs(x)),
        ),
    ]


def _bound_steps() -> list[Step]:
    """The inequality of the decay bound, decided step by step for every number of terms N."""
    u1, u2, v1, v2 = (Symbol(n, real=True) for n in ("u_1", "u_2", "v_1", "v_2"))
    nu, nv = sympy.sqrt(u1**2 + u2**2), sympy.sqrt(v1**2 + v2**2)  # |u|, |v|
    nuv = sympy.sqrt((u1 + v1) ** 2 + (u2 + v2) ** 2)  # |u + v|
    prod, dot, cross = nu * nv, u1 * v1 + u2 * v2, u1 * v2 - u2 * v1
    i = Symbol("i", integer=True, nonnegative=True)
    big = Symbol("N", integer=True, nonnegative=True)
    a, s_, d_ = IndexedBase("a"), IndexedBase("S"), IndexedBase("D", nonnegative=True)
    bound = Symbol("M", nonnegative=True)
    return [
        decide_step(
            "triangle_lagrange",
            "Two complex numbers $u = u_1 + i u_2$, $v = v_1 + i v_2$ (Lagrange's identity): "
            "$|u|^2 |v|^2 = (u_1 v_1 + u_2 v_2)^2 + (u_1 v_2 - u_2 v_1)^2$.",
            prod**2,
            dot**2 + cross**2,
        ),
        decide_step(
            "triangle_identity",
            r"The product of $|u| + |v| - |u + v|$, $|u|\, |v|$ and $|u| + |v| + |u + v|$ equals the sum of "
            r"squares $(u_1 v_2 - u_2 v_1)^2$ $+ (|u|\, |v| - u_1 v_1 - u_2 v_2)^2$: for $u, v \ne 0$, "
            r"$|u| + |v| - |u + v|$ is this sum of squares over a positive product.",
            (nu + nv - nuv) * prod * (nu + nv + nuv),
            cross**2 + (prod - dot) ** 2,
        ),
        decide_le_step(
            "triangle",
            r"The triangle inequality $|u + v| \le |u| + |v|$ ($u, v \ne 0$; with $u = 0$ or $v = 0$ it is an "
            r"equality): the slack $|u| + |v| - |u + v|$ equals the quotient of `triangle_identity`, which is "
            r"manifestly $\ge 0$.",
            sympy.S.Zero,
            (cross**2 + (prod - dot) ** 2) / (prod * (nu + nv + nuv)),
        ),
        decide_step(
            "triangle_sum_base",
            r"For $N$ terms, by induction: $N = 0$, $|\sum_{i < 0} a_i| = 0 = \sum_{i < 0} |a_i|$.",
            sympy.Abs(Sum(a[i], (i, 0, -1))),
            Sum(sympy.Abs(a[i]), (i, 0, -1)),
        ),
        decide_step(
            "triangle_sum_step",
            r"From $N$ to $N + 1$ both sums gain the term $a_N$: with $u = \sum_{i < N} a_i$ and $v = a_N$, "
            r"`triangle` gives $|\sum_{i < N+1} a_i| \le |\sum_{i < N} a_i| + |a_N|$, which is at most "
            r"$\sum_{i < N} |a_i| + |a_N| = \sum_{i < N+1} |a_i|$.",
            sympy.Matrix(
                [
                    Sum(a[i], (i, 0, big)) - Sum(a[i], (i, 0, big - 1)),
                    Sum(sympy.Abs(a[i]), (i, 0, big)) - Sum(sympy.Abs(a[i]), (i, 0, big - 1)),
                ]
            ),
            sympy.Matrix([a[big], sympy.Abs(a[big])]),
        ),
        decide_le_step(
            "bound_max",
            r"With $c_i = h_{i+1} - h_i$, $M = \max_i |c_i|$ and $D_i = M - |c_i| \ge 0$ (the definition of $M$): "
            r"$\sum_i |S_{i+1}|\, |c_i| \le M \sum_i |S_{i+1}|$, for every $N$.",
            Sum(sympy.Abs(s_[i + 1]) * (bound - d_[i]), (i, 0, big - 1)),
            bound * Sum(sympy.Abs(s_[i + 1]), (i, 0, big - 1)),
        ),
    ]


@timed
def long_term_decay(*, small: Sequence[int] = (1, 2, 3, 4), pairing: Pairing = score_pairing) -> Proof:
    """The score as Re sum_i h_i e^{i(m-n) theta_i}, Abel summation and the bound; the bound's measured curve.

    Args:
        small: the d/2 of the concrete checks (``score_d*``, ``abel_d*``); the structural steps cover every d.
        pairing: h_i from (q_[i], k_[i]) (default q_[i] conj(k_[i])); a negative twin passes another one.
    """
    p = Proof(
        "long_term_decay",
        "long_term_decay",
        "Long-term decay (Abel summation)",
        r"For $q, k \in \mathbb{R}^d$, $d = 2N$, with $h_i = q_{[i]}\, \overline{k_{[i]}}$ "
        r"($q_{[i]} = q_{2i} + i\, q_{2i+1}$, $k_{[i]}$ alike) and $h_N = 0$: the score "
        r"$\langle R_{\Theta,m}\, q, R_{\Theta,n}\, k \rangle$ equals "
        r"$\operatorname{Re} \sum_{i < N} h_i\, e^{i(m-n)\theta_i}$; with $S_j = \sum_{k < j} e^{i(m-n)\theta_k}$ that "
        r"sum equals $-\sum_{i < N} S_{i+1} (h_{i+1} - h_i)$ (Abel summation); hence the absolute value of the score "
        r"is at most $(\max_i |h_{i+1} - h_i|) \sum_{j=1}^{N} |S_j|$.",
        formula="\n".join(
            [
                r"\langle R_{\Theta,m}\, q, R_{\Theta,n}\, k \rangle",
                r"= \operatorname{Re} \sum_{i<N} h_i\, e^{i(m-n)\theta_i}",
                r"h_i = q_{[i]}\, \overline{k_{[i]}},\quad h_N = 0",
                r"\big|\langle R_{\Theta,m}\, q, R_{\Theta,n}\, k \rangle\big|",
                r"\le \Big(\max_{i} |h_{i+1} - h_i|\Big) \sum_{j=1}^{N} |S_j|",
                r"S_j = \sum_{k<j} e^{i(m-n)\theta_k}",
            ]
        ),
        assumptions=[
            "N = d/2 \\text{ (every } N),\\ q, k \\in \\mathbb{R}^{d}",
            "q_{[i]} = q_{2i} + i\\, q_{2i+1},\\ k_{[i]} = k_{2i} + i\\, k_{2i+1},\\ h_N = 0",
            "\\theta_k \\in \\mathbb{R},\\ m, n \\in \\mathbb{Z}",
        ],
        scope="every N = d/2",
        every_d=True,
    )
    p.steps += _score_steps(pairing, small)
    p.steps += _abel_steps(small)
    p.steps += _real_part_steps()
    p.steps += _bound_steps()
    p.notes += _NOTES
    values = dense_decay()
    p.data["decay_curve"] = {
        "base": 10000,
        "d": 128,
        "points": decay_curve(),
        "envelope": decay_envelope(values),
        "measured": decay_figures(values),
        **decay_summary(list(enumerate(values.tolist()))),
    }
    return p


def _abel_steps(small: Sequence[int]) -> list[Step]:
    """Abel summation: concrete d/2, then summation by parts for every N by induction."""
    steps: list[Step] = []
    m, n = positions("m", "n")
    for big_n in small:
        hs = list(sympy.symbols(f"h_0:{big_n}")) + [sympy.S.Zero]
        th = thetas(big_n)
        e = [exp(I * (m - n) * t) for t in th]
        s = [sum(e[:j], sympy.S.Zero) for j in range(big_n + 1)]
        steps.append(
            decide_step(
                f"abel_d{2 * big_n}",
                rf"$d/2 = {big_n}$, symbolic $h_i$ (complex) and $\theta_i$: the Abel-summation identity.",
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

    return steps + [
        decide_step(
            "partial_sums_start",
            r"$S_0 = \sum_{k < 0} e^{i r \theta_k} = 0$ ($r = m - n$).",
            partial(sympy.S.Zero),
            sympy.S.Zero,
        ),
        decide_step(
            "partial_sums_increment",
            r"$S_{N+1} - S_N = e^{i r \theta_N}$ for every $N$: the summation-by-parts identity below, with "
            r"$S_{i+1} - S_i$ in place of $e^{i r \theta_i}$, is the Abel-summation identity.",
            partial(big + 1) - partial(big),
            exp(I * r * th[big]),
        ),
        decide_step(
            "by_parts_base",
            "Summation by parts for every $N$ ($N = d/2$), base case $N = 0$: both sides are $0$.",
            lhs(sympy.S.Zero),
            rhs(sympy.S.Zero),
        ),
        decide_step(
            "by_parts_step",
            r"Inductive step: going from $N$ to $N + 1$ changes both sides by the same amount, so the identity "
            r"for $N$ gives it for $N + 1$ (hence for every $N \ge 0$).",
            lhs(big + 1) - lhs(big),
            rhs(big + 1) - rhs(big),
        ),
    ]


_NOTES = [
    (
        r"The score, for every $d$: pair $i$'s share is $\operatorname{Re}(h_i\, e^{i(m-n)\theta_i})$ "
        r"(`score_pair`); the inner product is the sum of the pairs' shares (`score_regroup_*`, by induction on $N$), "
        r"so it is $\sum_i \operatorname{Re}(h_i\, e^{i(m-n)\theta_i})$ (`score_sum`), which is "
        r"$\operatorname{Re} \sum_i h_i\, e^{i(m-n)\theta_i}$ (`real_part_sum_*`). The conjugate sits on $k$: "
        r"$R_{\Theta,m}$ turns $q_{[i]}$ into $q_{[i]}\, e^{im\theta_i}$ (theorem 3), and "
        r"$\langle a, b \rangle = \operatorname{Re}(a\, \overline{b})$ for pairs read as complex numbers. "
        r"`score_d*` check the same from the matrix definition for those $d$."
    ),
    (
        r"With $S_{i+1} - S_i = e^{i(m-n)\theta_i}$ and $S_0 = 0$ (`partial_sums_*`) and $h_{d/2} = 0$, the "
        r"summation-by-parts identity (`by_parts_*`, by induction on $N$) is exactly the Abel-summation identity "
        r"above, for every $d$."
    ),
    (
        r"The bound, for every $N$, as a chain of inequalities, each with the steps that decide it "
        r"($c_i = h_{i+1} - h_i$, $M = \max_i |c_i|$, $w = \sum_{i<N} h_i\, e^{i(m-n)\theta_i}$):"
        "\n$$\n"
        r"\big|\langle R_{\Theta,m}\, q, R_{\Theta,n}\, k \rangle\big| = |\operatorname{Re} w| \le |w| "
        r"= \Big|\sum_{i<N} S_{i+1}\, c_i\Big| \le \sum_{i<N} |S_{i+1}|\, |c_i| \le M \sum_{j=1}^{N} |S_j|"
        "\n$$\n"
        r"The equality by `score_*` and `real_part_sum_*`; $|\operatorname{Re} w| \le |w|$ by `real_part_*`; the "
        r"next equality by the Abel-summation identity and $|-x| = |x|$; the triangle inequality for two complex "
        r"numbers by `triangle_*` ($|u| + |v| - |u + v|$ is a manifestly nonnegative quotient) and for $N$ terms "
        r"by induction (`triangle_sum_*`); the last by `bound_max` ($D_i = M - |c_i| \ge 0$ is the definition of "
        r"$M$)."
    ),
    (
        r"What is not proved: that the right side $M \sum_j |S_j|$ decays with $|m - n|$. Its curve "
        r"$\frac{1}{d/2} \sum_j |S_j|$ below is measured in fp64, at every integer distance; it is evidence about "
        r"the bound, not a step of the proof; the figures measured on it are printed with it."
    ),
]


THEOREMS = (long_term_decay,)


if __name__ == "__main__":
    sys.exit(print_family(THEOREMS))
