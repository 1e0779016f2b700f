"""Theorem 1: relative position in 2-D, and the rotation group.

``rotation_2d``: R(a)^T = R(-a), R(a)R(b) = R(a+b), R(0) = I, R(a)^T R(a) = I.
``relative_position_2d``: with f(x, m) = x e^{i m theta}, the score <f(q, m), f(k, n)> is
q^T R((n-m) theta) k -- it depends on the positions only through n - m.

Run ``python proofs/relative_position.py`` to print every step with its verdict and the
rewrite that decided it (exit 0 when every step is as intended).
"""

from __future__ import annotations

import sys

from sympy import I, Matrix, conjugate, exp, eye, im, re

from ropecheck.symbolic.engine.decide import decide_step
from ropecheck.symbolic.engine.proof import Proof, timed
from ropecheck.symbolic.engine.rope import dot, positions, real_symbols, rot
from ropecheck.symbolic.pages.render import print_family

__all__ = [
    "NUMBER",
    "THEOREMS",
    "TITLE",
    "relative_position_2d",
    "rotation_2d",
]

NUMBER = 1
TITLE = "Relative position in 2-D; the rotation group"


@timed
def rotation_2d() -> Proof:
    """R(a)^T = R(-a), R(a)R(b) = R(a+b), R(0) = I, R^T R = I."""
    a, b = real_symbols("a", "b")
    p = Proof(
        "rotation_2d",
        "relative_position",
        "The 2x2 rotation group",
        r"$R(a)^{\top} = R(-a)$, $R(a)\,R(b) = R(a+b)$, $R(0) = I$ and $R(a)^{\top} R(a) = I$ for real $a, b$.",
        formula="\n".join(
            [
                r"R(a)^{\top} = R(-a),\quad R(0) = I",
                r"R(a)\,R(b) = R(a+b),\quad R(a)^{\top} R(a) = I",
            ]
        ),
        assumptions=[
            "a, b \\in \\mathbb{R}",
            (
                "R(\\varphi) = \\begin{pmatrix} \\cos\\varphi & -\\sin\\varphi \\\\ \\sin\\varphi & "
                "\\cos\\varphi \\end{pmatrix}"
            ),
        ],
        scope="a 2x2 lemma (every d)",
        every_d=True,
        part="a",  # the family's first page: Theorem 1a
    )
    p.steps += [
        decide_step("transpose", "Transposing a rotation reverses it.", rot(a).T, rot(-a)),
        decide_step("compose", "Rotations compose by adding angles.", rot(a) * rot(b), rot(a + b)),
        decide_step("zero", "The rotation by $0$ is the identity $I$.", rot(0), eye(2)),
        decide_step("orthogonal", "A rotation is orthogonal.", rot(a).T * rot(a), eye(2)),
    ]
    return p


@timed
def relative_position_2d() -> Proof:
    """Complex form f(x, m) = x e^{i m theta}: the score depends only on m - n."""
    q0, q1, k0, k1, theta = real_symbols("q_0", "q_1", "k_0", "k_1", "theta")
    m, n = positions("m", "n")
    q, k = q0 + I * q1, k0 + I * k1
    fq, fk = q * exp(I * m * theta), k * exp(I * n * theta)
    qv, kv = Matrix([q0, q1]), Matrix([k0, k1])
    target = re(q * conjugate(k) * exp(I * (m - n) * theta))
    p = Proof(
        "relative_position_2d",
        "relative_position",
        "Relative position in 2-D",
        r"With $f(x, m) = x\, e^{i m \theta}$ on $x \in \mathbb{C} \cong \mathbb{R}^2$, "
        r"$\langle f(q,m), f(k,n) \rangle = \operatorname{Re}[q\,\bar{k}\,e^{i(m-n)\theta}]$, "
        r"the same as the rotation-matrix form $(R(m\theta)\,q)^{\top} (R(n\theta)\,k)$, "
        r"which is $q^{\top} R((n-m)\theta)\,k$.",
        formula="\n".join(
            [
                r"\langle f(q,m), f(k,n) \rangle = \operatorname{Re}\!\left[q\,\bar{k}\,e^{i(m-n)\theta}\right]",
                r"= q^{\top} R\big((n-m)\theta\big)\, k",
            ]
        ),
        assumptions=[
            "f(x, m) = x\\, e^{i m \\theta},\\ x \\in \\mathbb{C} \\cong \\mathbb{R}^2",
            "q = q_0 + i q_1,\\ k = k_0 + i k_1,\\ q_j, k_j, \\theta \\in \\mathbb{R}",
            "m, n \\in \\mathbb{Z}",
        ],
        scope="a 2-D lemma (every d)",
        every_d=True,
        part="b",  # the family's second page: Theorem 1b
    )
    p.steps += [
        decide_step(
            "complex_form",
            r"The real inner product of $f(q,m)$ and $f(k,n)$ is $\operatorname{Re}[f(q,m)\,\overline{f(k,n)}]$, "
            r"which is $\operatorname{Re}[q\,\bar{k}\,e^{i(m-n)\theta}]$.",
            re(fq) * re(fk) + im(fq) * im(fk),
            target,
        ),
        decide_step(
            "matrix_is_complex",
            r"Multiplying by $e^{i m \theta}$ is the rotation $R(m\theta)$ of "
            r"$(\operatorname{Re} x, \operatorname{Im} x)$.",
            Matrix([re(fq), im(fq)]),
            rot(m * theta) * qv,
        ),
        decide_step(
            "matrix_form",
            "The rotation-matrix score equals the complex form.",
            dot(rot(m * theta) * qv, rot(n * theta) * kv),
            target,
        ),
        decide_step(
            "relative",
            r"The score is $q^{\top} R((n-m)\theta)\,k$: it depends on the positions only through $n - m$.",
            dot(rot(m * theta) * qv, rot(n * theta) * kv),
            (qv.T * rot((n - m) * theta) * kv)[0, 0],
        ),
    ]
    return p


THEOREMS = (rotation_2d, relative_position_2d)


if __name__ == "__main__":
    sys.exit(print_family(THEOREMS))
