"""Symbolic RoPE: the 2x2 rotation, the block-diagonal matrix and the three forms in SymPy.

The objects the theorems talk about, built once here so every proof states the same
definitions: ``rot(phi)`` (the 2x2 rotation R(phi)), ``rope_matrix(thetas, m, layout)``
(the sparse block-diagonal R_{Theta,m}; ``rope_entries`` gives its nonzero entries),
``rope_elementwise`` (``x*cos + rotate(x)*sin``),
``rope_complex`` (pairs read as complex numbers times e^{i m theta}) and the even-first
permutation between the layouts.

Design constraints: symbols carry assumptions (vector entries and angles real, positions
integer); constants are exact (``Rational``); nothing here is numeric.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy
from sympy import I, IndexedBase, Matrix, Symbol, cos, exp, sin, zeros

__all__ = [
    "block_symbols",
    "dot",
    "even_first_permutation",
    "pairs",
    "positions",
    "real_symbols",
    "rope_complex",
    "rope_elementwise",
    "rope_entries",
    "rope_matrix",
    "rot",
    "rotate",
    "thetas",
    "vec",
]


def rot(phi: Any) -> Matrix:
    """The 2x2 rotation matrix R(phi) = [[cos phi, -sin phi], [sin phi, cos phi]]."""
    return Matrix([[cos(phi), -sin(phi)], [sin(phi), cos(phi)]])


def vec(name: str, d: int) -> Matrix:
    """A column of ``d`` real symbols ``name_0 .. name_{d-1}``."""
    return Matrix(sympy.symbols(f"{name}_0:{d}", real=True))


def thetas(h: int, name: str = "theta") -> list[sympy.Symbol]:
    """``h`` real frequency symbols theta_0 .. theta_{h-1}."""
    return list(sympy.symbols(f"{name}_0:{h}", real=True))


def positions(*names: str) -> tuple[sympy.Symbol, ...]:
    """Integer position symbols."""
    return tuple(sympy.Symbol(n, integer=True) for n in names)


def pairs(d: int, layout: str) -> list[tuple[int, int]]:
    """The (a, b) index pairs rotated together; pair i turns at theta_i."""
    h = d // 2
    if layout == "interleaved":
        return [(2 * i, 2 * i + 1) for i in range(h)]
    return [(i, i + h) for i in range(h)]


def rope_entries(
    freqs: Sequence[Any], m: Any, layout: str = "interleaved", *, evaluate: bool = True
) -> dict[tuple[int, int], Any]:
    """The nonzero entries {(row, column): value} of R_{Theta,m}: the definition, sparse.

    Pair (a, b) turning at theta gets the rotation R(m theta) in rows and columns a, b.
    ``evaluate=False`` leaves the angles, cos and sin unevaluated (the same values, built faster).
    """
    d = 2 * len(freqs)
    out: dict[tuple[int, int], Any] = {}
    for (a, b), t in zip(pairs(d, layout), freqs):
        angle = m * t if evaluate else sympy.Mul(m, t, evaluate=False)
        c, s = cos(angle, evaluate=evaluate), sin(angle, evaluate=evaluate)
        out[a, a], out[a, b], out[b, a], out[b, b] = c, -s, s, c
    return out


def rope_matrix(freqs: Sequence[Any], m: Any, layout: str = "interleaved") -> Matrix:
    """The block-diagonal RoPE matrix R_{Theta,m} (size 2*len(freqs)) in a layout."""
    d = 2 * len(freqs)
    out = zeros(d, d)
    for (r, c), value in rope_entries(freqs, m, layout).items():
        out[r, c] = value
    return out


def rotate(x: Matrix, layout: str) -> Matrix:
    """``rotate_every_two`` (interleaved) or ``rotate_half`` (half): pair (a, b) -> (-b, a)."""
    out = zeros(x.rows, 1)
    for a, b in pairs(x.rows, layout):
        out[a], out[b] = -x[b], x[a]
    return out


def rope_elementwise(x: Matrix, freqs: Sequence[Any], m: Any, layout: str = "interleaved") -> Matrix:
    """``x * cos + rotate(x) * sin`` with the cos/sin tables expanded to the layout."""
    d = x.rows
    cos_t, sin_t = zeros(d, 1), zeros(d, 1)
    for (a, b), t in zip(pairs(d, layout), freqs):
        cos_t[a] = cos_t[b] = cos(m * t)
        sin_t[a] = sin_t[b] = sin(m * t)
    rx = rotate(x, layout)
    return Matrix([x[j] * cos_t[j] + rx[j] * sin_t[j] for j in range(d)])


def rope_complex(x: Matrix, freqs: Sequence[Any], m: Any, layout: str = "interleaved") -> Matrix:
    """Pairs read as z = x_a + i x_b, multiplied by e^{i m theta}, written back as (Re, Im)."""
    out = zeros(x.rows, 1)
    for (a, b), t in zip(pairs(x.rows, layout), freqs):
        z = (x[a] + I * x[b]) * exp(I * m * t)
        out[a], out[b] = sympy.re(z), sympy.im(z)
    return out


def even_first_permutation(d: int) -> Matrix:
    """The permutation matrix P with (P x)_j = x_{perm[j]}, perm = (0, 2, 4, ..., 1, 3, 5, ...).

    P maps the interleaved layout to the half layout: interleaved pair (2i, 2i+1) lands on
    the half pair (i, i + d/2).
    """
    perm = list(range(0, d, 2)) + list(range(1, d, 2))
    out = zeros(d, d)
    for j, src in enumerate(perm):
        out[j, src] = 1
    return out


def dot(x: Matrix, y: Matrix) -> Any:
    """The real inner product x^T y as a scalar expression."""
    return sum((x[j] * y[j] for j in range(x.rows)), sympy.S.Zero)


def real_symbols(*names: str) -> tuple[Symbol, ...]:
    """Real symbols, one per name (vector entries, angles, values)."""
    return tuple(Symbol(n, real=True) for n in names)


def block_symbols() -> dict[str, Any]:
    """The symbols of the structural proofs: indexed q, k, theta; index i; h = d/2; m, n."""
    return {
        "q": IndexedBase("q", real=True),
        "k": IndexedBase("k", real=True),
        "theta": IndexedBase("theta", real=True),
        "i": Symbol("i", integer=True, nonnegative=True),
        "h": Symbol("h", integer=True, positive=True),
        "m": Symbol("m", integer=True),
        "n": Symbol("n", integer=True),
    }
