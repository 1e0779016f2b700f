"""Names a document never wrote out, read as general matrices and vectors of symbolic size.

Derivations of attention scores write ``q_m^T k_n = (W_q x_m)^T (W_k x_n)`` with ``W_q``, ``x_m``
never given entries. Read with :attr:`.scope.Scope.general_matrices`, each undefined name of one
Latin letter (subscripts allowed) that the document uses as a vector or matrix (:func:`is_array`) is a
SymPy ``MatrixSymbol``: an upper-case one ``d x d`` (a weight or rotation matrix), a lower-case one
``d x 1`` (a vector); every other name stays a number (a position ``m`` inside ``cos(m theta)``). Products
keep their written order and SymPy's matrix algebra checks the shapes. A written-out matrix among them
(``q_m^T R_m^T R_n k_n`` with ``R_m`` defined entry by entry) stands as a general matrix of its own
(:func:`written_symbol`), and its entries are given back where a decision needs them.

Design constraints: an identity of such matrix expressions that SymPy's rewrites (transpose of a
product, distribution) reduce to zero holds for every matrix and vector of those shapes, so a proof
under this reading is a proof of the step whatever the names stand for; a difference that does not
vanish decides nothing (the document's own meaning of the names may make it vanish). Only sums,
products, scalar multiples and transposes are read: a function of a matrix or a power of one is
refused, and so is a written-out matrix that is neither square nor a column.
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

__all__ = [
    "DIMENSION",
    "WRITTEN_PREFIX",
    "general_inner",
    "general_name",
    "general_product",
    "general_sum",
    "general_transpose",
    "is_array",
    "is_general",
    "plain_algebra",
    "written_symbol",
    "written_value",
]

#: the symbolic size of every general matrix and vector
DIMENSION = Symbol("d", integer=True, positive=True)

#: one Latin letter (or a calligraphic capital, ``calR``), then optionally a subscript: ``W_{q}``, ``x_{m}``,
#: ``R_{theta, n - m}``
_ONE_LETTER = re.compile(r"^(?:cal(?=[A-Z]))?([A-Za-z])(?:_\{?[^{}]*\}?)?$")
#: single letters that are constants or the size itself, never a matrix
_NOT_MATRICES = frozenset({"i", "e", "d"})


def general_name(
    name: str, rows: frozenset[str] = frozenset(), columns: frozenset[str] = frozenset()
) -> MatrixSymbol | None:
    """The general matrix (upper-case letter) or vector (lower-case) a name stands for, or None for a number.

    A name of ``rows`` is a row ``1 x d``, one the document multiplies
    by matrices on the right (``x_i W_Q``); an upper-case name of ``columns`` is a column ``d x 1`` (``<R X, Y>``).

    Example:
        >>> general_name("W_{q}").shape, general_name("x_{m}").shape, general_name("theta")
        ((d, d), (d, 1), None)
        >>> general_name("x_{j}", rows=frozenset({"x_{j}"})).shape, general_name("X", columns=frozenset("X")).shape
        ((1, d), (d, 1))
    """
    match = _ONE_LETTER.match(name)
    if match is None or name in _NOT_MATRICES:
        return None
    if match.group(1).islower() and name in rows:
        return MatrixSymbol(name, 1, DIMENSION)
    cols = DIMENSION if match.group(1).isupper() and not is_array(name, columns) else 1
    return MatrixSymbol(name, DIMENSION, cols)


#: a name of one letter and a subscript with a letter in it (``x_{m}``, ``R_{-m + n}``): one of a family
_MEMBER = re.compile(r"^((?:cal)?[A-Za-z])_\{([^{}]*[A-Za-z][^{}]*)\}$")


def is_array(name: str, arrays: frozenset[str]) -> bool:
    """Whether the document uses ``name`` as a vector or matrix: it is one of ``arrays``, or of a family one
    of them belongs to (``x_{n}`` beside ``x_{m}``; a numbered member such as ``q_{0}`` may be an entry).

    Example:
        >>> is_array("x_{n}", frozenset({"x_{m}"})), is_array("x_{0}", frozenset({"x_{m}"}))
        (True, False)
    """
    if name in arrays:
        return True
    member = _MEMBER.match(name)
    return member is not None and any(
        (m := _MEMBER.match(a)) is not None and m.group(1) == member.group(1) for a in arrays
    )


def _checked(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except (ShapeError, TypeError, ValueError) as exc:
        raise ClaimParseError(f"read as general matrices and vectors, the shapes do not fit ({exc})") from None


#: the written-out matrices met among general ones, by the name of the symbol that stands for each
_WRITTEN: dict[str, MatrixBase] = {}
#: how the symbol standing for a written-out matrix is named: never a name a document writes
WRITTEN_PREFIX = "written#"


def written_symbol(value: MatrixBase) -> MatrixSymbol:
    """The general matrix (or vector) that stands for a written-out one among general matrices.

    It has the general shape (``d x d``, or ``d x 1`` for a column), so the matrix algebra keeps it in
    its place in every product; :func:`written_value` gives back what was written, and the same
    matrix is always the same symbol.

    Example:
        >>> w = written_symbol(sympy.eye(2))
        >>> w.shape, written_value(w) == sympy.eye(2)
        ((d, d), True)
    """
    if value.cols != 1 and value.rows != value.cols:
        raise ClaimParseError("a written-out matrix that is not square, among general matrices, is not read")
    if any(isinstance(a, MatrixExpr) for e in value for a in sympy.preorder_traversal(e)):
        raise ClaimParseError("a general matrix inside a written-out matrix is not read")
    key = sympy.srepr(sympy.ImmutableMatrix(value))
    name = next((n for n, v in _WRITTEN.items() if sympy.srepr(sympy.ImmutableMatrix(v)) == key), None)
    if name is None:
        name = f"{WRITTEN_PREFIX}{len(_WRITTEN) + 1}"
        _WRITTEN[name] = sympy.ImmutableMatrix(value)
    return MatrixSymbol(name, DIMENSION, 1 if value.cols == 1 else DIMENSION)


def written_value(symbol: Any) -> MatrixBase | None:
    """The written-out matrix a symbol of :func:`written_symbol` stands for, or None for any other."""
    return _WRITTEN.get(symbol.name) if isinstance(symbol, MatrixSymbol) else None


def is_general(value: Any) -> bool:
    """Whether ``value`` is a general matrix expression (not a written-out matrix, not a number)."""
    return isinstance(value, MatrixExpr) and not isinstance(value, MatrixBase)


def _standing_in(values: list[Any]) -> list[Any]:
    """The values, each written-out matrix replaced by its symbol when general matrices are among them."""
    if not any(is_general(v) for v in values):
        return values
    return [written_symbol(v) if isinstance(v, MatrixBase) else v for v in values]


def general_product(factors: list[Any]) -> Any:
    """The product in written order; numbers scale it; a written-out matrix stands as a symbol."""
    factors = _standing_in(factors)
    return _checked(lambda: functools.reduce(operator.mul, factors, sympy.S.One))


def general_sum(terms: list[Any]) -> Any:
    """The sum of the terms, which must all have one shape; a written-out matrix stands as a symbol."""
    terms = _standing_in(terms)
    return _checked(lambda: functools.reduce(operator.add, terms))


def general_inner(a: Any, b: Any) -> Any | None:
    """``<a, b>`` of two columns, one at least a general expression, as ``a^T b``: the inner product of real
    vectors (the caller checks that the names are real); None where a side is not such a column.

    Example:
        >>> general_inner(general_name("x"), general_name("y"))
        x.T*y
    """
    if not (is_general(a) or is_general(b)):
        return None
    a, b = _standing_in([a, b])
    if not all(isinstance(v, MatrixExpr) and v.shape[1] == 1 for v in (a, b)):
        return None
    return general_product([a.T, b])


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
