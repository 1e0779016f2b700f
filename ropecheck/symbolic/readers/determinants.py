r"""``\det(M)``, ``\det\left(M\right)``: the determinant of a square matrix the side writes or the document defines.

Design constraints: the caller reads the bracket's content (any matrix the reader reads) and hands the value
over; what is not a square matrix -- a name the document never writes out, a number -- is refused, never
read as a number of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sympy import MatrixBase

from .latex_text import Src, skip_group

__all__ = ["DETERMINANT", "determinant_of", "determinants_read"]

#: ``\det(`` or ``\det\left(``, the bracket at the end of the match
DETERMINANT = re.compile(r"\\det\s*(?:\\left\s*)?(?=\()")


def determinant_of(value: Any) -> Any:
    """The determinant of ``value``, or None where it is no square matrix.

    Example:
        >>> from sympy import Matrix, symbols
        >>> a, b = symbols("a b")
        >>> determinant_of(Matrix([[a, -b], [b, a]])), determinant_of(a)
        (a**2 + b**2, None)
    """
    if not isinstance(value, MatrixBase) or value.rows != value.cols:
        return None
    return value.det()


def determinants_read(src: Src, read: Callable[[Src], Any], placeholder: Callable[[Any], str]) -> Src:
    """``src`` with each ``\\det(...)`` replaced by ``placeholder`` of the determinant of what ``read`` reads in its
    bracket (``\\left( ... \\right)`` too); raises the reader's error where that is no square matrix."""
    while m := DETERMINANT.search(src.text):
        end = skip_group(src.text, m.end())
        inner = src.slice(m.end() + 1, end - 1)
        inner = inner.slice(0, len(re.sub(r"\\right\s*$", "", inner.text.rstrip())))
        value = determinant_of(read(inner))
        if value is None:
            raise src.error("\\det of what is not a square matrix the document writes out is not read", m.start())
        src = src.splice(m.start(), end, placeholder(value))
    return src
