"""A written-out square matrix raised to a symbolic whole number, ``J^{2k}`` with k a whole number ``>= 0``, and
its exponential, ``\\exp(J_\\theta)``.

A derivation of the matrix exponential writes ``J_\\theta^2 = -\\theta^2 I``, hence ``J_\\theta^{2k} = (-1)^k
\\theta^{2k} I`` and ``J_\\theta^{2k+1} = (-1)^k \\theta^{2k} J_\\theta``. :func:`whole_power` computes such a power
exactly where a low power of the matrix is diagonal: with ``M^p = D`` diagonal and the exponent ``e = p q + r``
(``0 <= r < p`` a number, q a whole number ``>= 0``), ``M^e = (M^p)^q M^r = D^q M^r``, D^q taken entry by entry.

Design constraints: exact -- the identity ``M^(pq + r) = (M^p)^q M^r`` holds for every whole number q >= 0, and a
power of a diagonal matrix is the power of its entries (``0^0 = 1``, as M^0 is the identity). Only where the
exponent is known, by the assumptions of its names (a domain the document states, a range), to be a whole number
>= 0 and the quotient q is one too; otherwise None, and the reader keeps its reason (a matrix power needs a
whole-number exponent). Powers up to the fourth are tried, nothing else (no eigenvectors: those assume a generic
value of the matrix's names).

The exponential of a written-out square matrix M (2 x 2 to 4 x 4) is the matrix exponential
(:func:`written_exponential`): SymPy's ``exp`` of ``t M`` for a new number t, kept only where it is checked to be the
solution of ``F(0) = I``, ``F'(t) = M F(t)`` -- which the exponential ``exp(t M)`` is, and alone is -- every entry of
the difference reduced to 0 by exact rewrites; then its value at t = 1. An exponential SymPy finds through
eigenvectors that assume a generic value of the names is so checked too (a formula that fails at some values fails
the check there only where it is not defined). A step refuted with such an exponential is not decided: exp of a
matrix may be meant entry by entry.
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy import MatrixBase

__all__ = ["exponential_series", "whole_power", "written_exponential"]

#: the highest power of the matrix tried for a diagonal one
_MAX_PERIOD = 4


def whole_power(base: Any, exp: Any) -> Any:
    """``base ** exp`` for a square matrix and a symbolic whole-number exponent, or None where not computed exactly.

    Example:
        >>> t, k = sympy.Symbol("t", real=True), sympy.Symbol("k", integer=True, nonnegative=True)
        >>> whole_power(sympy.Matrix([[0, -t], [t, 0]]), 2 * k + 1)[1, 0]
        t*(-t**2)**k
        >>> whole_power(sympy.Matrix([[0, -t], [t, 0]]), sympy.Symbol("n", integer=True)) is None
        True
    """
    if not isinstance(base, MatrixBase) or not base.is_square or not isinstance(exp, sympy.Expr):
        return None
    if exp.is_Integer or exp.is_integer is not True or exp.is_nonnegative is not True:
        return None
    constant, _ = exp.as_coeff_Add()
    if not constant.is_Integer:
        return None
    for p in range(1, _MAX_PERIOD + 1):
        raised = (base**p).applyfunc(sympy.expand)
        if not raised.is_diagonal():
            continue
        r = int(constant) % p
        q = sympy.expand((exp - r) / p)
        if q.is_integer is not True or q.is_nonnegative is not True:
            continue
        diagonal = sympy.diag(*[raised[i, i] ** q for i in range(raised.rows)])
        return sympy.ImmutableMatrix(diagonal * base**r)
    return None


#: the largest written-out matrix whose exponential is computed (SymPy's eigenvectors of a larger one are slow)
_MAX_EXPONENTIAL_SIZE = 4


def written_exponential(base: Any) -> Any:
    """The matrix exponential of a written-out square matrix, or None where it is not computed and checked exactly.

    Example:
        >>> t = sympy.Symbol("t", real=True)
        >>> written_exponential(sympy.Matrix([[0, -t], [t, 0]]))
        Matrix([
        [cos(t), -sin(t)],
        [sin(t),  cos(t)]])
    """
    # a 1 x 1 matrix is no written-out one: a column of one entry stands for a vector of another size (.sized_vectors)
    if not isinstance(base, MatrixBase) or not base.is_square or not 2 <= base.rows <= _MAX_EXPONENTIAL_SIZE:
        return None
    if any(isinstance(e, MatrixBase) or not isinstance(e, sympy.Expr) for e in base):
        return None
    t = sympy.Dummy("t", real=True)
    try:
        flow = sympy.Matrix(base * t).exp()
    except Exception:  # SymPy found no Jordan form (or failed in it): not computed
        return None
    start = flow.subs(t, 0) - sympy.eye(base.rows)
    slope = flow.diff(t) - sympy.Matrix(base) * flow
    if not all(_zero(e) for e in [*start, *slope]):
        return None
    return sympy.ImmutableMatrix(flow.subs(t, 1).applyfunc(sympy.expand))


def _zero(e: Any) -> bool:
    """Whether exact rewrites reduce ``e`` to 0."""
    if sympy.expand(e) == 0 or sympy.expand(sympy.expand_trig(e)) == 0:
        return True
    return sympy.expand(e.rewrite(sympy.exp)) == 0


def exponential_series(series: Any) -> Any:
    """X where ``series`` is the exponential series ``\\sum_{k=0}^{\\infty} X^k / k!`` (as parsed, X free of k), else
    None: the series defines the exponential of a square matrix X, and sums to e^X for a number.

    Example:
        >>> k, b = sympy.symbols("k B")
        >>> exponential_series(sympy.Sum(b**k / sympy.factorial(k), (k, 0, sympy.oo)))
        B
        >>> exponential_series(sympy.Sum(b**k / sympy.factorial(k + 1), (k, 0, sympy.oo))) is None
        True
    """
    if not isinstance(series, sympy.Sum) or len(series.limits) != 1:
        return None
    k, low, high = series.limits[0]
    if low != 0 or high != sympy.oo:
        return None
    factors = list(sympy.Mul.make_args(series.function))
    inverse = sympy.Pow(sympy.factorial(k), -1)
    if factors.count(inverse) != 1:
        return None
    factors.remove(inverse)
    if len(factors) != 1 or not isinstance(factors[0], sympy.Pow) or factors[0].exp != k:
        return None
    base = factors[0].base
    return None if base.has(k) else base
