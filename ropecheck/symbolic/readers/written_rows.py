"""A list in square brackets written in front of a matrix: the row it must be.

A bracketed list of numbers (``[a, b]``, ``[a, b]^T``) is read as a column, whatever its transpose says
(:meth:`latex_syntax._Reader.tuples`). A list in square brackets written without ``^T`` that is the leftmost
vector or matrix of a product whose next one has as many rows as the list has entries
(``[q_1, q_2] R(\\phi) k``) cannot be that column: an n x 1 by an n x k (n >= 2) cannot be multiplied at all,
and the one product the text can mean is the row's, so it is read as the row. Nothing else changes: the same
list elsewhere, written with ``^T``, in round brackets, or in front of a factor of another shape keeps the
column reading (and its error where it cannot be multiplied).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sympy import MatrixBase, Symbol

__all__ = ["rows_in_front"]


def rows_in_front(args: Sequence[Any], factors: list[Any], listed: frozenset[str]) -> list[Any]:
    """``factors`` (the values of a product's ``args``, written order kept), with its first matrix transposed
    where it is a bracketed list (a placeholder named in ``listed``) read as a column that the next matrix
    cannot follow.

    Example:
        >>> from sympy import ImmutableMatrix, eye
        >>> rows_in_front([Symbol("L"), Symbol("M")], [ImmutableMatrix([1, 2]), eye(2)], frozenset({"L"}))[0]
        Matrix([[1, 2]])
    """
    at = [i for i, f in enumerate(factors) if isinstance(f, MatrixBase)]
    if len(at) < 2 or not listed:
        return factors
    first, second = factors[at[0]], factors[at[1]]
    arg = args[at[0]]
    if not (isinstance(arg, Symbol) and arg.name in listed):
        return factors
    if first.cols != 1 or first.rows < 2 or second.rows != first.rows:
        return factors
    out = list(factors)
    out[at[0]] = first.T
    return out
