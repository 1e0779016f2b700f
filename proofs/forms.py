"""Theorem 3: the sparse matrix, elementwise ``x*cos + rotate(x)*sin`` and complex forms agree.

Run ``python proofs/forms.py``.
"""

from __future__ import annotations

import sys

import sympy
from sympy import I, IndexedBase, Matrix, exp, im, re

from ropecheck.symbolic.decide import decide_step
from ropecheck.symbolic.proof import Proof, timed
from ropecheck.symbolic.render import print_family
from ropecheck.symbolic.rope import block_symbols, rope_complex, rope_elementwise, rope_matrix, rot, thetas, vec

__all__ = [
    "NUMBER",
    "THEOREMS",
    "TITLE",
    "forms_agree",
]

NUMBER = 3
TITLE = "Matrix, elementwise and complex forms agree"


@timed
def forms_agree(*, d: int = 8) -> Proof:
    """Sparse matrix form = elementwise x*cos + rotate(x)*sin = complex form, both layouts."""
    s = block_symbols()
    xb, th, i, m = IndexedBase("x", real=True), s["theta"], s["i"], s["m"]
    xi = Matrix([xb[2 * i], xb[2 * i + 1]])
    c, sn = sympy.cos(m * th[i]), sympy.sin(m * th[i])
    z = (xb[2 * i] + I * xb[2 * i + 1]) * exp(I * m * th[i])
    p = Proof(
        "forms_agree",
        "forms",
        "The three forms of RoPE agree",
        "The sparse block-diagonal matrix R_{Theta,m} x, the elementwise x*cos + rotate(x)*sin and the "
        "complex form (x_a + i x_b) e^{i m theta_i} give the same vector, for every pair i and in both layouts.",
    )
    p.steps += [
        decide_step(
            "pair_matrix_elementwise",
            "Pair i: B_i(m) x^{(i)} equals (x_a cos - x_b sin, x_b cos + x_a sin), i.e. x*cos + rotate(x)*sin "
            "with rotate(x)^{(i)} = (-x_b, x_a).",
            rot(m * th[i]) * xi,
            Matrix([xb[2 * i] * c + (-xb[2 * i + 1]) * sn, xb[2 * i + 1] * c + xb[2 * i] * sn]),
        ),
        decide_step(
            "pair_complex_matrix",
            "Pair i: (Re, Im) of (x_a + i x_b) e^{i m theta_i} is B_i(m) x^{(i)}.",
            Matrix([re(z), im(z)]),
            rot(m * th[i]) * xi,
        ),
    ]
    x = vec("x", d)
    freqs = thetas(d // 2)
    for layout in ("interleaved", "half"):
        mat = rope_matrix(freqs, m, layout) * x
        p.steps.append(
            decide_step(
                f"{layout}_d{d}_matrix_elementwise",
                f"{layout} layout, d={d}: the sparse matrix form equals the elementwise form.",
                mat,
                rope_elementwise(x, freqs, m, layout),
            )
        )
        p.steps.append(
            decide_step(
                f"{layout}_d{d}_complex_matrix",
                f"{layout} layout, d={d}: the complex form equals the sparse matrix form.",
                rope_complex(x, freqs, m, layout),
                mat,
            )
        )
    return p


THEOREMS = (forms_agree,)


if __name__ == "__main__":
    sys.exit(print_family(THEOREMS))
