"""Theorem 4: the half-split ("rotate_half") layout is the interleaved one conjugated by a permutation.

Run ``python proofs/layouts.py``.
"""

from __future__ import annotations

import sys

from sympy import Matrix, eye

from ropecheck.symbolic.decide import decide_step
from ropecheck.symbolic.proof import Proof, timed
from ropecheck.symbolic.render import print_family
from ropecheck.symbolic.rope import dot, even_first_permutation, positions, rope_matrix, thetas, vec

__all__ = [
    "NUMBER",
    "THEOREMS",
    "TITLE",
    "layouts_agree",
]

NUMBER = 4
TITLE = "Half-split = P (interleaved) P^T"


@timed
def layouts_agree(*, dims: tuple[int, ...] = (2, 4, 8, 16), permutation: Matrix | None = None) -> Proof:
    """R_half(m) = P R_interleaved(m) P^T for the even-first P, symbolic positions.

    Args:
        dims: the head dimensions checked entrywise.
        permutation: override P (the negative twin passes a wrong one); its size fixes one d.
    """
    m, n = positions("m", "n")
    p = Proof(
        "layouts_agree",
        "layouts",
        "Half-split and interleaved layouts agree under the even-first permutation",
        "For the even-first permutation P (x_half = P x_interleaved): R_half(m) = P R_interleaved(m) P^T for every "
        "integer m and symbolic theta_i; hence (R_half(m) P q)^T (R_half(n) P k) = (R_int(m) q)^T (R_int(n) k).",
    )
    p.notes.append(
        "P moves interleaved pair (2i, 2i+1) to half pair (i, i+d/2) and both turn at theta_i, so the identity "
        "holds entry by entry for every even d; it is decided here entrywise for each listed d."
    )
    for d in dims if permutation is None else (permutation.rows,):
        perm = even_first_permutation(d) if permutation is None else permutation
        freqs = thetas(d // 2)
        p.steps.append(
            decide_step(
                f"conjugate_d{d}",
                f"d={d}: R_half(m) = P R_interleaved(m) P^T.",
                rope_matrix(freqs, m, "half"),
                perm * rope_matrix(freqs, m, "interleaved") * perm.T,
            )
        )
    d = 8 if permutation is None else permutation.rows
    perm = even_first_permutation(d) if permutation is None else permutation
    freqs = thetas(d // 2)
    q, k = vec("q", d), vec("k", d)
    p.steps += [
        decide_step(f"orthogonal_d{d}", f"d={d}: P^T P = I.", perm.T * perm, eye(d)),
        decide_step(
            f"scores_d{d}",
            f"d={d}: permuting q and k alike gives identical attention scores in the two layouts.",
            dot(rope_matrix(freqs, m, "half") * (perm * q), rope_matrix(freqs, n, "half") * (perm * k)),
            dot(rope_matrix(freqs, m, "interleaved") * q, rope_matrix(freqs, n, "interleaved") * k),
        ),
    ]
    return p


THEOREMS = (layouts_agree,)


if __name__ == "__main__":
    sys.exit(print_family(THEOREMS))
