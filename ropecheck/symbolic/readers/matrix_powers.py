"""A written-out square matrix raised to a symbolic whole number, ``J^{2k}`` with k a whole number ``>= 0``.

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
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy import MatrixBase

__all__ = ["whole_power"]

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
