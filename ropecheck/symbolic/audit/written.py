"""Decimals a definition writes as its last link, and the later steps that compute with them.

A derivation with numbers defines a vector and writes its value out at the end of the chain:
``q_2 = R_2 [0.9, 0.4, 0.6, 0.3]^T = [0.8918, 0.4179, 0.5999, 0.3001]^T``. A later step computes with
the decimals written, ``q_2^T k_3 = (0.8918)(0.1759) + \\cdots``. Read with the name's exact value (or with
none, where the definition uses a name given only with ``\\approx``), such a step is at best right to the
rounding; read with the decimals the document wrote for the names, it is exact arithmetic, and that is
what the step does. :func:`written_use_in_child` decides a step so: PROVED only where both sides are closed
numbers and exactly equal with every such name at its written value. Whether the decimals written are
the name's value is the line that wrote them, decided on its own (a slip there is found there, not
here). It never refutes: a step may compute with a truer value than the one written, and then the
written one is not what it means; the caller keeps its own verdict.

Design constraints: pure functions, run by the audit in a forked child; exact arithmetic on the decimals
as the rationals they spell (the reader reads a decimal as a float, which spells it to 15 digits).
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy import MatrixBase

from ..readers.scope import Scope
from .approx import plain_readings
from .document import Link
from .reading import Outcome, free

__all__ = ["written_use_in_child"]


def _entries(value: Any) -> list[Any]:
    return list(value) if isinstance(value, MatrixBase) else [value]


def _exactly_equal_numbers(left: Any, right: Any) -> bool:
    """Whether two sides are closed numbers (or matrices of them) of one shape, exactly equal with their
    decimals read as the rationals they spell."""
    if isinstance(left, MatrixBase) != isinstance(right, MatrixBase):
        return False
    if isinstance(left, MatrixBase) and left.shape != right.shape:
        return False
    if free(left) or free(right):
        return False
    for a, b in zip(_entries(left), _entries(right)):
        if not isinstance(a, sympy.Basic) or not isinstance(b, sympy.Basic):
            return False
        exact = sympy.nsimplify(a, rational=True) - sympy.nsimplify(b, rational=True)
        if sympy.expand(exact) != 0:
            return False
    return True


def written_use_in_child(lhs: Link, rhs: Link, scope: Scope) -> Outcome:
    """A step read with names at the decimals the document wrote for them (their definitions in ``scope``):
    PROVED when every reading gives closed numbers exactly equal, else UNDECIDED (the caller keeps its
    verdict) or UNREAD."""
    readings, refused = plain_readings(lhs, rhs, scope)
    if refused is not None:
        return refused
    left, right = readings[0][1], readings[0][2]
    if all(_exactly_equal_numbers(a, b) for _, a, b in readings):
        return Outcome("PROVED", "identity", "", None, left, right)
    return Outcome("UNDECIDED", lhs=left, rhs=right)
