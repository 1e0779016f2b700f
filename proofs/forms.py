"""Theorem 3: the sparse matrix, elementwise ``x*cos + rotate(x)*sin`` and complex forms agree, for every even d.

With symbolic h = d/2 and pair index i < h: the block-diagonal matrix R_{Theta,m} applies
B_i(m) = R(m theta_i) to pair i; the elementwise form is code's, defined on the whole vector
(:class:`WholeVector`): x*cos(m cat(theta, theta)) + rotate_half(x)*sin(m cat(theta, theta))
with rotate_half(x) = cat(-x[h:], x[:h]) in the half-split layout, and the same with
repeat(theta) = (theta_0, theta_0, theta_1, ...) and rotate_every_two(x) = (-x_1, x_0, -x_3,
x_2, ...) in the interleaved one; the complex form multiplies x_a + i x_b by e^{i m theta_i}.
Pair i is (x_{2i}, x_{2i+1}) in the interleaved layout and (x_i, x_{i+h}) in the half-split one.
The proof shows the forms agree on pair i (symbolic i, h, m, theta_i), that the pairs of
each layout cover the 2h coordinates exactly once (a regrouping of the sum over the
coordinates, decided for symbolic h), and concludes that the squared distance between any
two forms, regrouped by pairs, is a sum of zeros: the vectors are equal for every even d.
No step depends on a particular d.

Run ``python proofs/forms.py``.
"""

from __future__ import annotations

import sys
from typing import Any

import sympy
from sympy import I, IndexedBase, Matrix, Sum, Symbol, exp, im, re

from ropecheck.symbolic.engine.decide import decide_step
from ropecheck.symbolic.engine.proof import Proof, timed
from ropecheck.symbolic.engine.rope import block_symbols, rot
from ropecheck.symbolic.pages.render import print_family

__all__ = [
    "NUMBER",
    "THEOREMS",
    "TITLE",
    "forms_agree",
    "layout_pair",
]

NUMBER = 3
TITLE = "Matrix, elementwise and complex forms agree"


class WholeVector(sympy.Function):
    """Coordinate ``j`` of a vector defined on the whole vector of 2h coordinates (code's definitions).

    Arguments ``(name, v, h, j)``: ``name`` a Symbol naming the map (below), ``v`` the vector (an
    IndexedBase, or :func:`even_first` of one), ``h = d/2``. A half-split coordinate is written
    ``i`` or ``h + i`` with ``0 <= i < h`` (the pair index), an interleaved one ``2i`` or ``2i + 1``.
    It stays as written until ``doit()`` unfolds the definition -- so a proof step shows the
    whole-vector form on one side and SymPy decides it by evaluating the definition:

    - ``cat``: cat(v, v), the frequencies repeated over the two halves: coordinates i and h + i are v_i;
    - ``rotate_half``: cat(-v[h:2h], v[0:h]): coordinate i is -v_{h+i}, coordinate h + i is v_i;
    - ``repeat``: v repeated elementwise, (v_0, v_0, v_1, v_1, ...): coordinate j is v_{floor(j/2)};
    - ``rotate_every_two``: (-v_1, v_0, -v_3, v_2, ...): coordinate j is (-1)^(j+1) v_{j + (-1)^j};
    - ``coordinate``: v_j itself (for a v that is a permutation of another vector).
    """

    @classmethod
    def eval(cls, name: Any, v: Any, h: Any, j: Any) -> Any:
        if j.is_number and h.is_number:  # a counterexample's values: the definition applies at once
            return _unfold(str(name), v, h, j)
        return None

    def doit(self, **hints: Any) -> Any:
        name, v, h, j = (a.doit(**hints) if hints.get("deep", True) else a for a in self.args)
        return _unfold(str(name), v, h, j)

    def _latex(self, printer: Any) -> str:
        name, v, _, j = self.args
        vector = printer._print(v)
        inner = {"cat": f"{vector}, {vector}"}.get(str(name), vector)
        label = {"coordinate": ""}.get(str(name), rf"\operatorname{{{str(name).replace('_', chr(92) + '_')}}}")
        body = f"({inner})" if label else (f"({vector})" if isinstance(v, EvenFirst) else vector)
        return f"{label}{body}_{{{printer._print(j)}}}"


class EvenFirst(sympy.Function):
    """The vector P x of the even-first permutation, arguments ``(x, h, p0, p1)``.

    (P x)_i = x_{2i+p0} and (P x)_{h+i} = x_{2i+p1} for i < h (even-first: p0 = 0, p1 = 1).
    """

    def _latex(self, printer: Any) -> str:
        return f"P {printer._print(self.args[0])}"


def _second_half(j: Any, h: Any) -> Any:
    """``j - h`` when coordinate ``j`` is in the second half (written ``h + i``, or a number >= h), else None."""
    if j.is_number and h.is_number:
        return j - h if j >= h else None
    rest = sympy.expand(j - h)
    return rest if not rest.has(h) and j.has(h) else None


def _coordinate(v: Any, h: Any, j: Any) -> Any:
    if isinstance(v, EvenFirst):
        x, _, p0, p1 = v.args
        rest = _second_half(j, h)
        return x[2 * j + p0] if rest is None else x[2 * rest + p1]
    return v[j]


def _unfold(name: str, v: Any, h: Any, j: Any) -> Any:
    rest = _second_half(j, h)
    if name == "cat":
        return _coordinate(v, h, j if rest is None else rest)
    if name == "rotate_half":
        return -_coordinate(v, h, j + h) if rest is None else _coordinate(v, h, rest)
    if name == "repeat":
        return _coordinate(v, h, sympy.floor(j / 2))
    if name == "rotate_every_two":
        return (-1) ** (j + 1) * _coordinate(v, h, j + (-1) ** j)
    return _coordinate(v, h, j)


def whole(name: str, v: Any, h: Any, j: Any) -> Any:
    """Coordinate ``j`` of the whole-vector map ``name`` applied to ``v`` (see :class:`WholeVector`)."""
    return WholeVector(Symbol(name), v, h, j)


def elementwise(layout: str, x: Any, th: Any, h: Any, m: Any, j: Any) -> Any:
    """Coordinate ``j`` of code's elementwise RoPE on the whole vector: half-split
    ``x*cos(m cat(θ, θ)) + rotate_half(x)*sin(m cat(θ, θ))``, interleaved the same with
    ``repeat(θ)`` and ``rotate_every_two(x)``."""
    freqs, turn = ("cat", "rotate_half") if layout == "half" else ("repeat", "rotate_every_two")
    angle = m * whole(freqs, th, h, j)
    xj = x[j] if isinstance(x, sympy.IndexedBase) else whole("coordinate", x, h, j)
    return xj * sympy.cos(angle) + whole(turn, x, h, j) * sympy.sin(angle)


def layout_pair(layout: str, i: Any, h: Any) -> tuple[Any, Any]:
    """The coordinates (a, b) of pair i of a head of 2h dims: (2i, 2i+1) interleaved, (i, i+h) half-split."""
    return (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + h)


def _pair_forms(x: Any, th: Any, i: Any, h: Any, m: Any, layout: str) -> tuple[Matrix, Matrix, Matrix]:
    """Pair i of the matrix, elementwise and complex forms, from their definitions; the elementwise
    form is the whole-vector one of code (:func:`elementwise`), still unevaluated at the pair's coordinates."""
    a, b = layout_pair(layout, i, h)
    matrix = rot(m * th[i]) * Matrix([x[a], x[b]])
    whole_vector = Matrix([elementwise(layout, x, th, h, m, a), elementwise(layout, x, th, h, m, b)])
    z = (x[a] + I * x[b]) * exp(I * m * th[i])
    return matrix, whole_vector, Matrix([re(z), im(z)])


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
        # the two elementwise forms are displays (broken at their top-level + on a phone), not inline math
        r"For every even $d = 2h$, both layouts, integer $m$ and real $\theta_0, \dots, \theta_{h-1}$, three forms "
        r"of RoPE give the same vector: the sparse block-diagonal matrix $R_{\Theta,m}\, x$; the elementwise form "
        r"of code on the whole vector, in the half-split layout "
        r"$$x \odot \cos(m\,\operatorname{cat}(\theta, \theta)) + \operatorname{rotate\_half}(x) \odot "
        r"\sin(m\,\operatorname{cat}(\theta, \theta))$$ "
        r"and in the interleaved one "
        r"$$x \odot \cos(m\,\operatorname{repeat}(\theta)) + \operatorname{rotate\_every\_two}(x) \odot "
        r"\sin(m\,\operatorname{repeat}(\theta))$$ "
        r"and the complex form $(x_a + i x_b)\, e^{i m \theta_i}$ on each pair $(x_a, x_b)$.",
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
            r"\operatorname{cat}(\theta, \theta) = (\theta_0, \dots, \theta_{h-1}, \theta_0, \dots, \theta_{h-1})",
            r"\operatorname{rotate\_half}(x) = (-x_h, \dots, -x_{2h-1}, x_0, \dots, x_{h-1})",
            r"\operatorname{repeat}(\theta) = (\theta_0, \theta_0, \theta_1, \theta_1, \dots)",
            r"\operatorname{rotate\_every\_two}(x) = (-x_1, x_0, -x_3, x_2, \dots)",
        ],
        scope="every even d",
        every_d=True,
    )
    p.notes.append(
        "Proof outline. (1) On pair $i$ (symbolic $i < h$) the three definitions give the same two numbers "
        "(`pair_*`): the elementwise form, defined on the whole vector, is unfolded at the pair's two coordinates "
        "($\\operatorname{cat}$, $\\operatorname{rotate\\_half}$, $\\operatorname{repeat}$, "
        "$\\operatorname{rotate\\_every\\_two}$ evaluated there) and is the pair turned by $B_i(m)$. "
        "(2) The pairs of each layout cover the $2h$ coordinates exactly once: the sum of any $y_j$ over "
        "the coordinates regroups into a sum over pairs (`cover_*`), for symbolic $h$. (3) With $y_j$ the squared "
        "difference of two forms at coordinate $j$, the squared distance between them is the sum over pairs of the "
        "squared pair differences, each $0$ by (1): the forms are equal vectors (`distance_*`), for every $h$."
    )
    for layout in ("interleaved", "half"):
        matrix, whole_vector, complex_ = _pair_forms(x, th, i, h, m, layout)
        a, b = layout_pair(layout, i, h)
        p.steps += [
            decide_step(
                f"pair_{layout}_elementwise_matrix",
                f"{layout} layout, pair $i$, that is coordinates ${sympy.latex(a)}$ and ${sympy.latex(b)}$: the "
                "elementwise form on the whole vector, unfolded there "
                + (
                    r"($\operatorname{cat}(\theta, \theta)_i = \operatorname{cat}(\theta, \theta)_{h+i} = \theta_i$, "
                    r"$\operatorname{rotate\_half}(x)_i = -x_{h+i}$, $\operatorname{rotate\_half}(x)_{h+i} = x_i$)"
                    if layout == "half"
                    else r"($\operatorname{repeat}(\theta)_{2i} = \operatorname{repeat}(\theta)_{2i+1} = \theta_i$, "
                    r"$\operatorname{rotate\_every\_two}(x)_{2i} = -x_{2i+1}$, "
                    r"$\operatorname{rotate\_every\_two}(x)_{2i+1} = x_{2i}$)"
                )
                + r", is the pair turned by $B_i(m) = R(m\theta_i)$.",
                whole_vector,
                matrix,
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
        matrix, whole_vector, complex_ = _pair_forms(x, th, i, h, m, layout)
        for name, other in (("elementwise", whole_vector.doit()), ("complex", complex_)):
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
