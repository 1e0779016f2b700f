"""Theorem 3: the sparse matrix, elementwise ``x*cos + rotate(x)*sin`` and complex forms agree, for every even d.

The three forms are defined pair by pair, with symbolic h = d/2 and pair index i < h:
the block-diagonal matrix R_{Theta,m} applies B_i(m) = R(m theta_i) to pair i; the
elementwise form sets coordinate j to x_j cos(m theta) + rotate(x)_j sin(m theta) with
rotate(x) = (-x_b, x_a) on each pair; the complex form multiplies x_a + i x_b by
e^{i m theta_i}. Pair i is (x_{2i}, x_{2i+1}) in the interleaved layout and (x_i, x_{i+h})
in the half-split one. The proof shows the forms agree on pair i (symbolic i, h, m,
theta_i), that the pairs of each layout cover the 2h coordinates exactly once (a regrouping
of the sum over the coordinates, decided for symbolic h), and concludes that the squared
distance between any two forms, regrouped by pairs, is a sum of zeros: the vectors are equal
for every even d. No step depends on a particular d.

Run ``python proofs/forms.py``.
"""

from __future__ import annotations

import sys
from typing import Any

import sympy
from sympy import I, IndexedBase, Matrix, Sum, Symbol, exp, im, re

from ropecheck.symbolic.decide import decide_step
from ropecheck.symbolic.proof import Proof, timed
from ropecheck.symbolic.render import print_family
from ropecheck.symbolic.rope import block_symbols, rot

__all__ = [
    "NUMBER",
    "THEOREMS",
    "TITLE",
    "forms_agree",
    "layout_pair",
]

NUMBER = 3
TITLE = "Matrix, elementwise and complex forms agree"


def layout_pair(layout: str, i: Any, h: Any) -> tuple[Any, Any]:
    """The coordinates (a, b) of pair i of a head of 2h dims: (2i, 2i+1) interleaved, (i, i+h) half-split."""
    return (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + h)


def _pair_forms(x: Any, th: Any, i: Any, h: Any, m: Any, layout: str) -> tuple[Matrix, Matrix, Matrix]:
    """Pair i of the matrix, elementwise and complex forms, from their definitions."""
    a, b = layout_pair(layout, i, h)
    c, s = sympy.cos(m * th[i]), sympy.sin(m * th[i])
    matrix = rot(m * th[i]) * Matrix([x[a], x[b]])
    rotate = Matrix([-x[b], x[a]])  # rotate(x) on pair i: (-x_b, x_a), rotate_half's sign pattern
    elementwise = Matrix([x[a] * c + rotate[0] * s, x[b] * c + rotate[1] * s])
    z = (x[a] + I * x[b]) * exp(I * m * th[i])
    return matrix, elementwise, Matrix([re(z), im(z)])


@timed
def forms_agree() -> Proof:
    """Sparse matrix form = elementwise x*cos + rotate(x)*sin = complex form, both layouts, every even d."""
    s = block_symbols()
    th, i, h, m = s["theta"], s["i"], s["h"], s["m"]
    x = IndexedBase("x", real=True)
    j = Symbol("j", integer=True, nonnegative=True)
    y = IndexedBase("y", real=True)
    p = Proof(
        "forms_agree",
        "forms",
        "The three forms of RoPE agree",
        r"For every even $d = 2h$, both layouts, integer $m$ and real $\theta_0, \dots, \theta_{h-1}$: the sparse "
        r"block-diagonal matrix $R_{\Theta,m}\, x$, the elementwise "
        r"$x \odot \cos(m\Theta) + \operatorname{rotate}(x) \odot \sin(m\Theta)$ and the complex form "
        r"$(x_a + i x_b)\, e^{i m \theta_i}$ are the same vector.",
        formula="\n".join(
            [
                r"R_{\Theta,m}\, x = x \odot \cos(m\Theta) + \operatorname{rotate}(x) \odot \sin(m\Theta)",
                r"= \big(\operatorname{Re},"
                r" \operatorname{Im}\big)\!\left[(x_a + i x_b)\, e^{i m \theta_i}\right]_{i<h}",
            ]
        ),
        assumptions=[
            (
                "d = 2h \\text{ (every even } d),\\ x \\in \\mathbb{R}^{d},\\ \\theta_i \\in \\mathbb{R},\\ m "
                "\\in \\mathbb{Z}"
            ),
            "\\text{pair } i = (x_{2i}, x_{2i+1}) \\text{ (interleaved) or } (x_i, x_{i+h}) \\text{ (half-split)}",
            "\\operatorname{rotate}(x) = (-x_b, x_a) \\text{ on each pair}",
        ],
        scope="every even d",
        every_d=True,
    )
    p.notes.append(
        "Proof outline. (1) On pair $i$ (symbolic $i < h$) the three definitions give the same two numbers "
        "(`pair_*`). (2) The pairs of each layout cover the $2h$ coordinates exactly once: the sum of any $y_j$ over "
        "the coordinates regroups into a sum over pairs (`cover_*`), for symbolic $h$. (3) With $y_j$ the squared "
        "difference of two forms at coordinate $j$, the squared distance between them is the sum over pairs of the "
        "squared pair differences, each $0$ by (1): the forms are equal vectors (`distance_*`), for every $h$."
    )
    for layout in ("interleaved", "half"):
        matrix, elementwise, complex_ = _pair_forms(x, th, i, h, m, layout)
        a, b = layout_pair(layout, i, h)
        p.steps += [
            decide_step(
                f"pair_{layout}_matrix_elementwise",
                f"{layout} layout, pair $i$, that is $(x_{{{sympy.latex(a)}}}, x_{{{sympy.latex(b)}}})$: "
                r"$B_i(m)\, x^{(i)}$ equals the elementwise form "
                r"$x \odot \cos(m\theta_i) + \operatorname{rotate}(x) \odot \sin(m\theta_i)$ on the pair.",
                matrix,
                elementwise,
            ),
            decide_step(
                f"pair_{layout}_complex_matrix",
                f"{layout} layout, pair $i$: "
                r"$(\operatorname{Re}, \operatorname{Im})$ of $(x_a + i x_b)\, e^{i m \theta_i}$ "
                r"is $B_i(m)\, x^{(i)}$.",
                complex_,
                matrix,
            ),
        ]
    # (2) the pairs cover the coordinates: sum over the 2h coordinates = sum over the h pairs
    coordinates = Sum(y[j], (j, 0, 2 * h - 1))
    p.steps += [
        decide_step(
            "cover_interleaved_base",
            "Interleaved pairs cover the coordinates, $h = 1$: $y_0 + y_1$ equals the sum over the one pair $(0, 1)$.",
            coordinates.subs(h, 1),
            Sum(y[2 * i] + y[2 * i + 1], (i, 0, 0)),
        ),
        decide_step(
            "cover_interleaved_step",
            "Interleaved pairs, from $h$ to $h + 1$ (induction): both sums gain $y_{2h} + y_{2h+1}$.",
            coordinates.subs(h, h + 1) - coordinates,
            Sum(y[2 * i] + y[2 * i + 1], (i, 0, h)) - Sum(y[2 * i] + y[2 * i + 1], (i, 0, h - 1)),
        ),
        decide_step(
            "cover_half",
            r"Half-split pairs cover the coordinates for every $h$: $\sum_{j < 2h} y_j = \sum_{i < h} (y_i + y_{i+h})$ "
            r"(the second half of the range, shifted by $h$).",
            coordinates,
            Sum(y[i] + y[i + h], (i, 0, h - 1)),
        ),
    ]
    # (3) the squared distance between two forms is the sum of the pairs' squared differences: 0
    for layout in ("interleaved", "half"):
        matrix, elementwise, complex_ = _pair_forms(x, th, i, h, m, layout)
        for name, other in (("elementwise", elementwise), ("complex", complex_)):
            diff = matrix - other
            p.steps.append(
                decide_step(
                    f"distance_{layout}_matrix_{name}",
                    f"{layout} layout: the squared distance between the matrix form and the {name} form is the sum "
                    "over the $h$ pairs of the pair's squared difference (`cover_*`), a sum of zeros: the two vectors "
                    "are equal for every $h$.",
                    Sum(diff[0] ** 2 + diff[1] ** 2, (i, 0, h - 1)),
                    sympy.S.Zero,
                )
            )
    return p


THEOREMS = (forms_agree,)


if __name__ == "__main__":
    sys.exit(print_family(THEOREMS))
