"""Theorem 4: the half-split ("rotate_half") layout is the interleaved one conjugated by a permutation, every d.

For a head of d = 2h dims (symbolic h) the even-first permutation P takes the interleaved
order to the half-split one: (P x)_i = x_{2i} and (P x)_{i+h} = x_{2i+1} for i < h. The
proof works coordinate by coordinate with symbolic i, h, m and theta_i: R_half(m) P x and
P R_interleaved(m) x agree at coordinates i and i + h, and those coordinates cover the 2h
coordinates exactly once (a regrouping decided for symbolic h), so the vectors are equal --
R_half(m) = P R_interleaved(m) P^T -- for every even d. P preserves inner products (it only
reorders coordinates), so permuting q and k alike gives the same attention scores in both
layouts.

Run ``python proofs/layouts.py``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import sympy
from sympy import IndexedBase, Sum, Symbol

from ropecheck.proofs.forms import EvenFirst, elementwise
from ropecheck.symbolic.engine.decide import decide_step
from ropecheck.symbolic.engine.proof import Proof, timed
from ropecheck.symbolic.engine.rope import block_symbols
from ropecheck.symbolic.pages.render import print_family

__all__ = [
    "EVEN_FIRST",
    "NUMBER",
    "THEOREMS",
    "TITLE",
    "layouts_agree",
]

NUMBER = 4
TITLE = "Half-split = P (interleaved) P^T"

#: A coordinate map: pair index i -> (k, parity), the interleaved coordinate 2k + parity.
CoordinateMap = Callable[[Any], tuple[Any, int]]
#: The even-first permutation: (P x)_i = x_{2i}, (P x)_{i+h} = x_{2i+1}.
EVEN_FIRST: tuple[CoordinateMap, CoordinateMap] = (lambda i: (i, 0), lambda i: (i, 1))


def _interleaved(v: Any, k: Any, parity: int, th: Any, m: Any) -> Any:
    """Coordinate 2k + parity of R_interleaved(m) v: pair k = (v_{2k}, v_{2k+1}) turns by m theta_k."""
    c, s = sympy.cos(m * th[k]), sympy.sin(m * th[k])
    if parity == 0:
        return v[2 * k] * c - v[2 * k + 1] * s
    return v[2 * k + 1] * c + v[2 * k] * s


def _half(first: Any, second: Any, i: Any, th: Any, m: Any) -> tuple[Any, Any]:
    """Coordinates i and i + h of R_half(m) u, where u_i = ``first`` and u_{i+h} = ``second``."""
    c, s = sympy.cos(m * th[i]), sympy.sin(m * th[i])
    return first * c - second * s, second * c + first * s


def _permuted(v: Any, i: Any, perm: tuple[CoordinateMap, CoordinateMap]) -> tuple[Any, Any]:
    """(P v)_i and (P v)_{i+h}."""
    (k0, p0), (k1, p1) = perm[0](i), perm[1](i)
    return v[2 * k0 + p0], v[2 * k1 + p1]


@timed
def layouts_agree(*, permutation: tuple[CoordinateMap, CoordinateMap] = EVEN_FIRST) -> Proof:
    """R_half(m) = P R_interleaved(m) P^T for the even-first P, every even d, symbolic positions.

    Args:
        permutation: the coordinate map of P, ``(i -> (k, parity) for coordinate i, the same for
            coordinate i + h)``; the negative twin passes a wrong one (odd-first).
    """
    s = block_symbols()
    th, i, h, m, n = s["theta"], s["i"], s["h"], s["m"], s["n"]
    x, q, k = IndexedBase("x", real=True), IndexedBase("q", real=True), IndexedBase("k", real=True)
    j = Symbol("j", integer=True, nonnegative=True)
    u, y = IndexedBase("u", real=True), IndexedBase("y", real=True)
    p = Proof(
        "layouts_agree",
        "layouts",
        "Half-split and interleaved layouts agree under the even-first permutation",
        r"For every even $d = 2h$, the even-first permutation $P$ (with $(P x)_i = x_{2i}$, "
        r"$(P x)_{i+h} = x_{2i+1}$), integer $m$ and real $\theta_0, \dots, \theta_{h-1}$: "
        r"$R^{\text{half}}_{\Theta,m} = P\, R^{\text{int}}_{\Theta,m}\, P^{\top}$; hence "
        r"$(R^{\text{half}}_{\Theta,m} P q)^{\top} (R^{\text{half}}_{\Theta,n} P k)$ equals "
        r"$(R^{\text{int}}_{\Theta,m}\, q)^{\top} (R^{\text{int}}_{\Theta,n}\, k)$.",
        formula="\n".join(
            [
                r"R^{\text{half}}_{\Theta,m} = P\, R^{\text{int}}_{\Theta,m}\, P^{\top}",
                r"\big(R^{\text{half}}_{\Theta,m} P q\big)^{\top} R^{\text{half}}_{\Theta,n} P k",
                r"= \big(R^{\text{int}}_{\Theta,m} q\big)^{\top} R^{\text{int}}_{\Theta,n} k",
            ]
        ),
        assumptions=[
            "d = 2h \\text{ (every even } d),\\ \\theta_i \\in \\mathbb{R},\\ m, n \\in \\mathbb{Z}",
            "(P x)_i = x_{2i},\\ (P x)_{i+h} = x_{2i+1} \\ (i < h)",
        ],
        scope="every even d",
        every_d=True,
    )
    p.notes.append(
        r"Proof outline. (1) At coordinates $i$ and $i + h$ (symbolic $i < h$) $R^{\text{half}}_{\Theta,m} P x$ and "
        r"$P R^{\text{int}}_{\Theta,m}\, x$ are the same numbers (`conjugate_*`). (2) Coordinates $i$ and $i + h$, "
        r"$i < h$, cover the $2h$ coordinates exactly once (`cover_half`, for symbolic $h$), so the two vectors are "
        r"equal: $R^{\text{half}}_{\Theta,m} P = P R^{\text{int}}_{\Theta,m}$ for every $h$, and $P^{\top} P = I$ (3) "
        r"makes it $R^{\text{half}}_{\Theta,m} = P R^{\text{int}}_{\Theta,m} P^{\top}$. (3) $P$ only reorders "
        r"coordinates: $\sum_j (Pa)_j (Pb)_j = \sum_j a_j b_j$ (`permutation_*`), by the two regroupings of the "
        r"coordinate sum. (4) Hence the scores agree (`scores`)."
    )
    (k0, p0), (k1, p1) = permutation[0](i), permutation[1](i)
    if k0 != i or k1 != i:
        raise ValueError("the permutation must send coordinates i and i + h to pair i (parities 0/1)")
    px = EvenFirst(x, h, p0, p1)  # P x on the whole vector
    p.steps += [
        decide_step(
            "conjugate_first",
            r"Coordinate $i$, with both layouts' RoPE in code's elementwise form on the whole vector "
            r"(Theorem 3): $(R^{\text{half}}_{\Theta,m} P x)_i$, that is $P x \odot \cos(m\,\operatorname{cat}(\theta, "
            r"\theta)) + \operatorname{rotate\_half}(P x) \odot \sin(m\,\operatorname{cat}(\theta, \theta))$ at $i$, "
            r"equals $(P R^{\text{int}}_{\Theta,m}\, x)_i = (R^{\text{int}}_{\Theta,m}\, x)_{2i}$, the interleaved "
            r"form at $2i$.",
            elementwise("half", px, th, h, m, i),
            elementwise("interleaved", x, th, h, m, 2 * k0 + p0),
        ),
        decide_step(
            "conjugate_second",
            r"Coordinate $h + i$: $(R^{\text{half}}_{\Theta,m} P x)_{h+i} = (P R^{\text{int}}_{\Theta,m}\, x)_{h+i}"
            r" = (R^{\text{int}}_{\Theta,m}\, x)_{2i+1}$.",
            elementwise("half", px, th, h, m, h + i),
            elementwise("interleaved", x, th, h, m, 2 * k1 + p1),
        ),
        decide_step(
            "cover_half",
            r"Coordinates $i$ and $i + h$ ($i < h$) cover the $2h$ coordinates once: "
            r"$\sum_{j < 2h} y_j = \sum_{i < h} (y_i + y_{i+h})$ for every sequence $y$ and every $h$, so two vectors "
            r"equal at $i$ and $i + h$ for all $i$ are equal.",
            Sum(y[j], (j, 0, 2 * h - 1)),
            Sum(y[i] + y[i + h], (i, 0, h - 1)),
        ),
    ]
    # (3) P preserves inner products: sum over coordinates i, i+h of (Pa)(Pb) = sum over interleaved pairs of a b
    a, b = IndexedBase("a", real=True), IndexedBase("b", real=True)
    pa, pb = _permuted(a, i, permutation), _permuted(b, i, permutation)
    pairs = Sum(a[2 * i] * b[2 * i] + a[2 * i + 1] * b[2 * i + 1], (i, 0, h - 1))
    coordinates = Sum(u[j], (j, 0, 2 * h - 1))
    p.steps += [
        decide_step(
            "permutation_pairs",
            r"By $(P a)_i = a_{2i}$, $(P a)_{i+h} = a_{2i+1}$: "
            r"$\sum_{i < h} ((Pa)_i (Pb)_i + (Pa)_{i+h} (Pb)_{i+h})$ is the sum over the interleaved pairs "
            r"of $a_j b_j$.",
            Sum(pa[0] * pb[0] + pa[1] * pb[1], (i, 0, h - 1)),
            pairs,
        ),
        decide_step(
            "permutation_regroup_base",
            "The interleaved pairs cover the coordinates, $h = 1$: $a_0 b_0 + a_1 b_1$.",
            coordinates.subs(h, 1),
            Sum(u[2 * i] + u[2 * i + 1], (i, 0, 0)),
        ),
        decide_step(
            "permutation_regroup_step",
            r"From $h$ to $h + 1$ (induction): both sides gain $u_{2h} + u_{2h+1}$; with $u_j = a_j b_j$, the sum "
            r"over the interleaved pairs is $\sum_j a_j b_j$, so $\sum_j (Pa)_j (Pb)_j = \sum_j a_j b_j$: "
            r"$P^{\top} P = I$.",
            coordinates.subs(h, h + 1) - coordinates,
            Sum(u[2 * i] + u[2 * i + 1], (i, 0, h)) - Sum(u[2 * i] + u[2 * i + 1], (i, 0, h - 1)),
        ),
    ]
    # (4) the scores: pair i of the half layout on P q, P k against interleaved pair i on q, k
    hq = _half(*_permuted(q, i, permutation), i, th, m)
    hk = _half(*_permuted(k, i, permutation), i, th, n)
    iq = (_interleaved(q, i, 0, th, m), _interleaved(q, i, 1, th, m))
    ik = (_interleaved(k, i, 0, th, n), _interleaved(k, i, 1, th, n))
    p.steps.append(
        decide_step(
            "scores",
            r"The score regrouped by pairs (`cover_half` on the left, the interleaved regrouping on the right): "
            r"$(R^{\text{half}}_{\Theta,m} P q)^{\top} (R^{\text{half}}_{\Theta,n} P k)$ equals "
            r"$(R^{\text{int}}_{\Theta,m}\, q)^{\top} (R^{\text{int}}_{\Theta,n}\, k)$, equal summands for every $h$.",
            Sum(hq[0] * hk[0] + hq[1] * hk[1], (i, 0, h - 1)),
            Sum(iq[0] * ik[0] + iq[1] * ik[1], (i, 0, h - 1)),
        )
    )
    return p


THEOREMS = (layouts_agree,)


if __name__ == "__main__":
    sys.exit(print_family(THEOREMS))
