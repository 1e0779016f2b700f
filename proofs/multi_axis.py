"""Theorem 8: multi-axis RoPE -- axial 2-D and M-RoPE are relative per axis.

Run ``python proofs/multi_axis.py``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import sympy
from sympy import Matrix

from ropecheck.symbolic.decide import decide_step
from ropecheck.symbolic.proof import Proof, timed
from ropecheck.symbolic.render import print_family
from ropecheck.symbolic.rope import dot, positions, rope_matrix, thetas, vec

__all__ = [
    "NUMBER",
    "THEOREMS",
    "TITLE",
    "axial_matrix",
    "mrope_matrix",
    "multi_axis",
]

NUMBER = 8
TITLE = "Axial 2-D RoPE and M-RoPE"


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


@timed
def multi_axis() -> Proof:
    """Axial 2-D RoPE and M-RoPE are translation-invariant per axis; M-RoPE reduces to 1-D RoPE."""
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
        formula="\n".join(
            [
                r"s(p_q + t, p_k + t) = s(p_q, p_k)",
                r"\text{(a shift } t \text{ of each axis)}",
                r"\text{M-RoPE}(m, m, m) = R_{\Theta,m}",
            ]
        ),
        assumptions=[
            "\\text{axial: } p = (x, y);\\ \\text{M-RoPE: } p = (t, h, w)",
            "q, k \\in \\mathbb{R}^{8},\\ \\theta_i, \\omega_i \\in \\mathbb{R},\\ \\text{positions} \\in \\mathbb{Z}",
        ],
        scope="d = 8 only",
        every_d=False,
    )
    p.notes.append(
        r"$d = 8$: axial uses 2 pairs per axis ($\theta$ for $x$, $\omega$ for $y$); M-RoPE sections $(1, 1, 2)$ pairs "
        r"for $(t, h, w)$."
    )
    p.steps += [
        decide_step(
            "axial_x",
            "Axial 2-D: shifting the $x$ positions of $q$ and $k$ by $t_x$ keeps the score.",
            axial((a1, b1), (a2, b2)),
            axial((a1 + tx, b1), (a2 + tx, b2)),
        ),
        decide_step(
            "axial_y",
            "Axial 2-D: shifting the $y$ positions of $q$ and $k$ by $t_y$ keeps the score.",
            axial((a1, b1), (a2, b2)),
            axial((a1, b1 + ty), (a2, b2 + ty)),
        ),
        decide_step(
            "axial_relative",
            r"Axial 2-D: the score is $q^{\top} R_{\text{axial}}(a_2 - a_1, b_2 - b_1)\, k$.",
            axial((a1, b1), (a2, b2)),
            (q.T * axial_matrix(fx, fy, a2 - a1, b2 - b1) * k)[0, 0],
        ),
        decide_step(
            "mrope_per_axis",
            "M-RoPE: shifting each of $t, h, w$ by its own amount keeps the score.",
            mrope((tq_, hq, wq), (tk_, hk, wk)),
            mrope((tq_ + ta, hq + ha, wq + wa), (tk_ + ta, hk + ha, wk + wa)),
        ),
        decide_step(
            "mrope_reduces",
            r"M-RoPE with $t = h = w = m$ is the 1-D RoPE matrix $R_{\Theta,m}$.",
            mrope_matrix(freqs, sections, (m, m, m)),
            rope_matrix(freqs, m),
        ),
    ]
    return p


THEOREMS = (multi_axis,)


if __name__ == "__main__":
    sys.exit(print_family(THEOREMS))
