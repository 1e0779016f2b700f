"""Theorem 6: long-term decay -- Abel summation for every d, and the decay bound's curve.

The symbolic part is the summation-by-parts identity (by induction on N = d/2); the curve
(1/(d/2)) sum_j |S_j| is numeric (fp64) evidence stored beside the proof and never decides a
step. Run ``python proofs/long_term_decay.py``.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy
from sympy import I, IndexedBase, Sum, Symbol, exp

from ropecheck.symbolic.decide import decide_le_step, decide_step
from ropecheck.symbolic.proof import Proof, Step, timed
from ropecheck.symbolic.render import print_family
from ropecheck.symbolic.rope import positions, thetas

__all__ = [
    "NUMBER",
    "THEOREMS",
    "TITLE",
    "decay_curve",
    "decay_summary",
    "long_term_decay",
]

NUMBER = 6
TITLE = "Abel summation and the decay bound"


def decay_curve(*, base: int = 10000, d: int = 128, distances: Sequence[int] | None = None) -> list[tuple[int, float]]:
    """(relative distance r, (1/(d/2)) sum_j |S_j|) with S_j = sum_{k<j} e^{i r theta_k}; fp64."""
    h = d // 2
    theta = float(base) ** (-2.0 * np.arange(h) / d)
    rs = (
        list(range(256)) + [int(x) for x in np.unique(np.geomspace(256, 65536, 64).astype(int))]
        if distances is None
        else list(distances)
    )
    out = []
    for r in rs:
        s = np.cumsum(np.exp(1j * r * theta))
        out.append((int(r), float(np.abs(s).sum() / h)))
    return out


def decay_summary(curve: list[tuple[int, float]]) -> dict[str, Any]:
    bands = [(0, 1), (1, 16), (16, 64), (64, 256), (256, 1024), (1024, 4096), (4096, 65537)]
    means = []
    for lo, hi in bands:
        vals = [v for r, v in curve if lo <= r < hi]
        if vals:
            means.append({"from": lo, "to": hi - 1, "mean": sum(vals) / len(vals)})
    decays = all(a["mean"] > b["mean"] for a, b in itertools.pairwise(means))
    return {"bands": means, "decreasing_band_means": decays}


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
def long_term_decay(*, small: Sequence[int] = (1, 2, 3, 4)) -> Proof:
    """Abel summation for sum_i h_i e^{i(m-n) theta_i}, and the decay bound's curve."""
    p = Proof(
        "long_term_decay",
        "long_term_decay",
        "Long-term decay (Abel summation)",
        r"With $S_j = \sum_{k < j} e^{i(m-n)\theta_k}$ ($S_0 = 0$) and $h_{d/2} = 0$: "
        r"$\sum_{i < d/2} h_i\, e^{i(m-n)\theta_i}$ equals $-\sum_{i < d/2} S_{i+1} (h_{i+1} - h_i)$, hence "
        r"$|\sum_i h_i\, e^{i(m-n)\theta_i}|$ is at most $(\max_i |h_{i+1} - h_i|) \sum_j |S_j|$.",
        formula="\n".join(
            [
                r"\Big|\sum_{i<N} h_i\, e^{i(m-n)\theta_i}\Big|",
                r"\le \Big(\max_{i} |h_{i+1} - h_i|\Big) \sum_{j=1}^{N} |S_j|",
                r"S_j = \sum_{k<j} e^{i(m-n)\theta_k}",
            ]
        ),
        assumptions=[
            "N = d/2 \\text{ (every } N),\\ h_i \\in \\mathbb{C},\\ h_N = 0",
            "\\theta_k \\in \\mathbb{R},\\ m, n \\in \\mathbb{Z}",
        ],
        scope="every N = d/2",
        every_d=True,
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

    p.steps += [
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
    p.steps += _bound_steps()
    p.notes += [
        (
            r"With $S_{i+1} - S_i = e^{i(m-n)\theta_i}$ and $S_0 = 0$ (`partial_sums_*`) and $h_{d/2} = 0$, the "
            r"summation-by-parts identity (`by_parts_*`, by induction on $N$) is exactly the Abel-summation identity "
            r"above, for every $d$."
        ),
        (
            r"The bound, for every $N$: $|\sum_i S_{i+1} c_i| \le \sum_i |S_{i+1}|\, |c_i|$ (the triangle "
            r"inequality: for two complex numbers $u, v$ by `triangle_*` -- $|u| + |v| - |u + v|$ is a manifestly "
            r"nonnegative quotient -- and for $N$ terms by induction, `triangle_sum_*`), and "
            r"$\sum_i |S_{i+1}|\, |c_i| \le M \sum_i |S_{i+1}|$ with $M = \max_i |c_i|$ (`bound_max`). Here "
            r"$c_i = h_{i+1} - h_i$; $D_i = M - |c_i| \ge 0$ is the definition of $M$."
        ),
        r"The curve $\frac{1}{d/2} \sum_j |S_j|$ below is numeric (fp64) evidence of the decay, not part of the proof.",
    ]
    curve = decay_curve()
    p.data["decay_curve"] = {"base": 10000, "d": 128, "points": curve, **decay_summary(curve)}
    return p


THEOREMS = (long_term_decay,)


if __name__ == "__main__":
    sys.exit(print_family(THEOREMS))
