"""Diagonal and block-diagonal matrices written as a list: ``\\operatorname{diag}(a, b)``, ``\\mathrm{blockdiag}(A)``.

The literature writes RoPE's matrix as a list of its diagonal entries or blocks, set upright:
``\\text{diag}(e^{i\\theta_1 m}, \\dots, e^{i\\theta_{d/2} m})``, ``\\mathrm{blockdiag}(R(m\\theta_1), \\dots,
R(m\\theta_{d/2}))``. Read here:

* :func:`diagonal_call`: the matrix of a list read entry by entry -- every entry a number (the diagonal
  matrix) or every entry a square matrix of one size (the block-diagonal one), never a mix, never a vector, and
  never with an entry that is a name with no value written with a capital (``R_{m,1}``), as matrices are named:
  a block or a number, the list does not say;
* :func:`diag_word_before`: where such a list's head starts, given the bracket that opens it, so that
  :mod:`.ellipsis` reads a list with dots as a pattern over its blocks;
* :func:`write_diagonal`, :func:`write_diagonal_block`: what :mod:`.ellipsis` writes for a diagonal read as a
  pattern -- its entries written out, or its block j. Block j is written so that the reader, not the text,
  says which it is: the 2x2 block j itself where entry j reads as a 2x2 matrix (a list of rotation blocks),
  the diagonal of entries 2j and 2j+1 where every entry reads as a number (pairs of neighbours); anything else
  (a block of another size, a mix) is not read.

Design constraints: a name the document defines (``diag``) keeps its definition: these readings apply only to
an undefined upright ``diag``/``blockdiag``; the two names :data:`DIAGONAL_BLOCK` and :data:`DIAGONAL_SCALARS`
are written by :mod:`.ellipsis` only.
"""

from __future__ import annotations

import re
from typing import Any

import sympy
from sympy import ImmutableMatrix, MatrixBase
from sympy.core.function import AppliedUndef

from .limits import check_matrix

__all__ = [
    "DIAGONAL_BLOCK",
    "DIAGONAL_CALLS",
    "DIAGONAL_SCALARS",
    "diag_word_before",
    "diagonal_call",
    "write_diagonal",
    "write_diagonal_block",
]

#: block j of a diagonal read as a pattern, in the layout of pairs of neighbours: (entry j, entry 2j, entry 2j+1)
DIAGONAL_BLOCK = "diagpatternblock"
#: a diagonal of numbers only (block j in the other layouts: a matrix there would be no block j)
DIAGONAL_SCALARS = "diagpatternscalars"
#: the upright names read as a (block-)diagonal matrix where the document does not define them
DIAGONAL_CALLS = frozenset({"diag", "blockdiag", DIAGONAL_BLOCK, DIAGONAL_SCALARS})

#: ``\\operatorname{diag}``, ``\\mathrm{blockdiag}``, ``\\text{diag}`` then perhaps a size (``\\big``, ``\\left``)
_DIAG_HEAD = re.compile(
    r"\\(?:operatorname|mathrm|text|textrm)\s*\{\s*(?:block)?diag\s*\}\s*(?:\\(?:left|big|Big|bigg|Bigg)l?\s*)?$"
)


def diag_word_before(text: str, opener: int) -> int | None:
    """Where ``\\operatorname{diag}`` (any of its spellings) starts, if it stands right before the bracket at
    ``opener``; else None.

    Example:
        >>> diag_word_before(r"R = \\mathrm{blockdiag}\\big(A, B\\big)", 22)
        4
    """
    m = _DIAG_HEAD.search(text[:opener])
    return m.start() if m is not None else None


def _square(value: object) -> int | None:
    if isinstance(value, MatrixBase) and value.rows == value.cols:
        return int(value.rows)
    return None


#: an entry named as the literature names a matrix, by a capital (``R_{m,1}``, ``\\mathbf{B}(x)``), as the reader
#: spells a name with no value
_CAPITAL_NAME = re.compile(r"^\\?(?:(?:mathbf|boldsymbol|bm|mathrm)\s*\{\s*)?[A-Z](?![A-Za-z])")


def diagonal_call(name: str, args: list[Any]) -> ImmutableMatrix:
    """The matrix an undefined upright ``name`` in :data:`DIAGONAL_CALLS` gives ``args``; ValueError where it is
    none (a vector, blocks of several sizes, numbers and blocks mixed), or where an entry is a capital's name with no
    value: a block or a number, which the list does not say.

    Example:
        >>> a, b = sympy.symbols("a b")
        >>> diagonal_call("diag", [a, b])
        Matrix([
        [a, 0],
        [0, b]])
    """
    for arg in args:
        named = (
            arg.name if isinstance(arg, sympy.Symbol) else type(arg).__name__ if isinstance(arg, AppliedUndef) else ""
        )
        if _CAPITAL_NAME.match(named):
            raise ValueError(f"{named} has no value and is named as a matrix is: a block or a number?")
        if isinstance(arg, sympy.MatrixExpr) and not isinstance(arg, MatrixBase):  # M_1(m)^T M_1(n), M general
            raise ValueError(f"{name}(...) of general matrices (of any size) is not read")
    if name == DIAGONAL_BLOCK:
        if len(args) == 3 and _square(args[0]) == 2:
            return ImmutableMatrix(args[0])
        if len(args) == 3 and not any(isinstance(a, MatrixBase) for a in args):
            return diagonal_call("diag", args[1:])
        raise ValueError("block j of the diagonal is neither a 2x2 block nor two numbers")
    if not args:
        raise ValueError(f"{name}(...) needs at least one entry")
    sizes = {_square(a) for a in args}
    if any(isinstance(a, MatrixBase) for a in args):
        if name == DIAGONAL_SCALARS:  # a diagonal of blocks has a block j by pairs of neighbours only
            raise ValueError("a diagonal of matrices is read block by block only by pairs of neighbours")
        if None in sizes or len(sizes) != 1:
            raise ValueError(f"the entries of {name}(...) are not all square matrices of one size, nor all numbers")
    return check_matrix(ImmutableMatrix(sympy.diag(*args)))


def write_diagonal(entries: list[str]) -> str:
    """A (block-)diagonal matrix from its entries written out: the reader reads each entry.

    Example:
        >>> write_diagonal(["a_0", "a_1"])
        '\\\\operatorname{diag}\\\\left(a_0, a_1\\\\right)'
    """
    return r"\operatorname{diag}\left(" + ", ".join(entries) + r"\right)"


def write_diagonal_block(layout: str, cells: list[str], own: str) -> str:
    """Block j of a diagonal read as a pattern: ``cells`` are the entries block j holds if they are numbers (in
    ``layout``), ``own`` the entry j itself, read as the block where it is a 2x2 matrix (pairs of neighbours only).

    Example:
        >>> write_diagonal_block("single", ["a_j", "0"], "a_j")
        '\\\\operatorname{diagpatternscalars}\\\\left(a_j, 0\\\\right)'
    """
    if layout == "contiguous":
        return rf"\operatorname{{{DIAGONAL_BLOCK}}}\left(" + ", ".join([own, *cells]) + r"\right)"
    return rf"\operatorname{{{DIAGONAL_SCALARS}}}\left(" + ", ".join(cells) + r"\right)"
