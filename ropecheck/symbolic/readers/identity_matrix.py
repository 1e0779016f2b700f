"""``R(a)^T R(a) = I``: a name I that nothing defines, set beside a square matrix, is the identity matrix.

Compared with an n x n matrix, ``c I`` (``\\mathbf{I}``, ``\\boldsymbol{I}``, ``I_n`` with the size n written) makes
sense only with I the n x n identity: read as a number the sides would be a matrix and a number, which no text
means. So the side that is a multiple of I (and nothing else) is read as that multiple of the identity, and the
reading says so (:func:`identity_note`).

Design constraints: only where one side is a square matrix and the other a number linear in one such name, with no
term free of it (``I + 1``, ``I^2`` are left as they were: a number beside a matrix, not read); never where the
claim or document defines the name (``I = 3``, a where-clause), and ``I_d`` only where d is the size written
(a name as the size, ``I_d`` beside a 2 x 2 matrix, would fix d: not read so).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import sympy
from sympy import MatrixBase, Symbol

__all__ = ["IDENTITY_TOKEN", "identity_note", "identity_sides"]

#: an upright, bold or plain capital I as written, alone or with a numeric size (``I``, ``\mathbf{I}``, ``I_2``)
IDENTITY_TOKEN = re.compile(
    r"(?:\\(?:mathbf|boldsymbol|bm)\s*\{\s*I\s*\}|\\(?:mathbf|boldsymbol|bm)\s+I(?![A-Za-z])|(?<![\\A-Za-z])I)"
    r"(?![A-Za-z{])(?:\s*_\s*(?:\{\s*\d+\s*\}|\d))?"
)


def _size_of(name: str) -> int | None:
    """The size an identity's name writes: None for a bare I, the number of ``I_{2}``; -1 for anything else."""
    if name == "I":
        return None
    m = re.fullmatch(r"I_\{?(\d+)\}?", name)
    return int(m.group(1)) if m else -1


def _as_identity(side: Any, n: int, defined: Callable[[str], bool]) -> tuple[Any, str] | None:
    """``side`` as a multiple of the n x n identity and the name read as the identity, or None where it is not
    ``c I`` with I an undefined name."""
    if isinstance(side, MatrixBase) or not isinstance(side, sympy.Expr):
        return None
    names = [s for s in side.free_symbols if isinstance(s, Symbol) and _size_of(s.name) in (None, n)]
    if len(names) != 1 or defined(names[0].name):
        return None
    eye = names[0]
    expanded = sympy.expand(side)
    coefficient = expanded.coeff(eye, 1)
    if coefficient == 0 or coefficient.has(eye) or sympy.expand(expanded - coefficient * eye) != 0:
        return None
    return sympy.ImmutableMatrix(coefficient * sympy.eye(n)), eye.name


def identity_sides(left: Any, right: Any, defined: Callable[[str], bool]) -> tuple[Any, Any, str] | None:
    """The sides with a multiple of an undefined I beside a square matrix read as that multiple of the identity,
    and the note that says so; None where neither side is such a multiple.

    Example:
        >>> a = sympy.Symbol("a", real=True)
        >>> rot = sympy.Matrix([[sympy.cos(a), -sympy.sin(a)], [sympy.sin(a), sympy.cos(a)]])
        >>> _, right, note = identity_sides(rot.T * rot, 2 * sympy.Symbol("I", real=True), lambda name: False)
        >>> right, note
        (Matrix([
        [2, 0],
        [0, 2]]), 'I read as the 2x2 identity matrix (a name nothing defines, beside a 2x2 matrix)')
    """
    for matrix, other, flip in ((left, right, False), (right, left, True)):
        if not isinstance(matrix, MatrixBase) or matrix.rows != matrix.cols:
            continue
        found = _as_identity(other, matrix.rows, defined)
        if found is not None:
            read, note = found[0], identity_note(found[1], matrix.rows)
            return (read, matrix, note) if flip else (matrix, read, note)
    return None


def identity_note(name: str, n: int) -> str:
    """The words of the reading: ``I read as the 2x2 identity matrix (...)``."""
    return f"{name} read as the {n}x{n} identity matrix (a name nothing defines, beside a {n}x{n} matrix)"
