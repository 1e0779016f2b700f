"""Names a document never wrote out, read as general matrices and vectors of symbolic size.

Derivations of attention scores write ``q_m^T k_n = (W_q x_m)^T (W_k x_n)`` with ``W_q``, ``x_m``
never given entries. Read with :attr:`.scope.Scope.general_matrices`, each undefined name of one
Latin letter (subscripts allowed) is a SymPy ``MatrixSymbol``: an upper-case one ``d x d`` (a weight
or rotation matrix), a lower-case one ``d x 1`` (a vector); every other name stays a number. Products
keep their written order and SymPy's matrix algebra checks the shapes.

Design constraints: an identity of such matrix expressions that SymPy's rewrites (transpose of a
product, distribution) reduce to zero holds for every matrix and vector of those shapes, so a proof
under this reading is a proof of the step whatever the names stand for; a difference that does not
vanish decides nothing (the document's own meaning of the names may make it vanish). Only sums,
products, scalar multiples and transposes are read: a function of a matrix, a power of one or a
mix with written-out matrices is refused.
"""

from __future__ import annotations

import functools
import operator
import re
from typing import Any

import sympy
from sympy import MatrixBase, MatrixExpr, MatrixSymbol, Symbol
from sympy.matrices.exceptions import ShapeError

from ...errors import ClaimParseError

__all__ = ["DIMENSION", "general_name", "general_product", "general_sum", "general_transpose", "plain_algebra"]

#: the symbolic size of every general matrix and vector
DIMENSION = Symbol("d", integer=True, positive=True)

#: one Latin letter, then optionally a subscript: ``W_{q}``, ``x_{m}``, ``R_{theta, n - m}``
_ONE_LETTER = re.compile(r"^([A-Za-z])(?:_\{?[^{}]*\}?)?$")
#: single letters that are constants or the size itself, never a matrix
_NOT_MATRICES = frozenset({"i", "e", "d"})


def general_name(name: str) -> MatrixSymbol | None:
    """The general matrix (upper-case letter) or vector (lower-case) a name stands for, or None for a number.

    Example:
        >>> general_name("W_{q}").shape, general_name("x_{m}").shape, general_name("theta")
        ((d, d), (d, 1), None)
    """
    match = _ONE_LETTER.match(name)
    if match is None or name in _NOT_MATRICES:
        return None
    cols = DIMENSION if match.group(1).isupper() else 1
    return MatrixSymbol(name, DIMENSION, cols)


def _checked(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except (ShapeError, TypeError, ValueError) as exc:
        raise ClaimParseError(f"read as general matrices and vectors, the shapes do not fit ({exc})") from None


def _refuse_written(values: list[Any]) -> None:
    if any(isinstance(v, MatrixBase) for v in values):
        raise ClaimParseError("a written-out matrix with names read as general matrices cannot be read")


def general_product(factors: list[Any]) -> Any:
    """The product in written order; numbers scale it."""
    _refuse_written(factors)
    return _checked(lambda: functools.reduce(operator.mul, factors, sympy.S.One))


def general_sum(terms: list[Any]) -> Any:
    """The sum of the terms, which must all have one shape."""
    _refuse_written(terms)
    return _checked(lambda: functools.reduce(operator.add, terms))


def general_transpose(base: Any) -> Any:
    """``base^T`` of a general matrix expression."""
    return base.T


_ALGEBRA = (sympy.MatAdd, sympy.MatMul, sympy.Transpose, MatrixSymbol)


def plain_algebra(value: Any) -> bool:
    """Whether every general matrix in ``value`` sits only in sums, products, scalings and transposes.

    Example:
        >>> x = general_name("x")
        >>> plain_algebra(x.T * x), plain_algebra(sympy.cos(Symbol("t")) * x)
        (True, True)
    """
    if not isinstance(value, MatrixExpr):
        return not any(isinstance(a, MatrixExpr) for a in sympy.preorder_traversal(value))
    if isinstance(value, MatrixSymbol):
        return True
    if not isinstance(value, _ALGEBRA):
        return False
    return all(plain_algebra(a) for a in value.args)
