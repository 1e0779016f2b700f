"""Inequality steps (``A \\le B``, ``A \\ge B``), PROVED by the engine's rewrites or not decided.

Design constraints: PROVED only when :func:`..engine.decide.decide_le` makes the slack manifestly
nonnegative in every reading of the step, under the domains alone -- the step then holds whatever
conditions the text states. Never REFUTED here: a counterexample would have to meet every condition
and domain the text states around the step, which this module does not collect, so a step the
engine does not prove is UNDECIDED. A strict relation (``\\lt``, ``\\gt``, ``<``, ``>``) is proved only
between two closed numbers (``16^3 - 1 > 1999``), exactly; elsewhere a nonnegative slack may be zero.
Vectors and matrices are not ordered: such a step is not read.
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy import MatrixBase

from ..engine.bounds import BOUNDS_NOTE
from ..engine.decide import decide_le
from ..engine.proof import Verdict
from ..readers.scope import Scope
from .document import Link
from .reading import UNREAD, Outcome, for_every_value, names, readings_or_outcome

__all__ = ["INEQUALITIES", "inequality_in_child"]

#: the relations read as ``lhs <= rhs`` (``\\ge``: with the sides swapped) and the strict ones
_AT_MOST, _AT_LEAST, _STRICT = ("\\le", "\\leq", "≤"), ("\\ge", "\\geq", "≥"), ("\\lt", "\\gt")
INEQUALITIES = _AT_MOST + _AT_LEAST + _STRICT


def inequality_in_child(lhs: Link, rhs: Link, scope: Scope) -> Outcome:
    """Read an inequality step (every reading) and prove it, or say why it is not decided."""
    readings, unread = readings_or_outcome(lhs, rhs, scope)
    if unread is not None:  # stopped at a value given in passing: decided for every value instead
        return for_every_value(inequality_in_child, lhs, rhs, scope, unread)
    first = readings[0]
    if any(isinstance(side, MatrixBase) for _, a, b in readings for side in (a, b)):
        return Outcome(UNREAD, reason="vectors and matrices are not ordered: an inequality between them is not read")
    as_numbers = sorted(set().union(*(names(a) | names(b) for _, a, b in readings)) & scope.matrix_names)
    if as_numbers:
        why = f"{', '.join(as_numbers)} is written transposed in the document (a vector or matrix): not decided"
        return Outcome("UNDECIDED", "none", why, None, first[1], first[2])
    if rhs.relation in _STRICT and (how := _strict_numbers(readings, larger_left=rhs.relation == "\\gt")):
        return Outcome("PROVED", "exact", how, None, first[1], first[2])
    if rhs.relation in _STRICT:
        why = (
            f"{rhs.relation} is strict: proved only between two closed numbers (a nonnegative difference may be "
            "zero), never refuted here: not decided"
        )
        return Outcome("UNDECIDED", "none", why, None, first[1], first[2])
    methods = [_proved(a, b, at_least=rhs.relation in _AT_LEAST) for _, a, b in readings]
    if all(methods):
        several = f"read {len(readings)} ways, PROVED in every one; " if len(readings) > 1 else ""
        how = several + "the larger side minus the smaller is nonnegative"
        how += f", {BOUNDS_NOTE}" if any("bounds" in m for m in methods) else ""
        return Outcome("PROVED", methods[0] or "none", how, None, first[1], first[2])
    why = (
        "no rewrite showed the difference nonnegative; an inequality is refuted only at values that meet every "
        "condition the text states, which is not checked here: not decided"
    )
    return Outcome("UNDECIDED", "none", why, None, first[1], first[2])


def _proved(left: Any, right: Any, *, at_least: bool) -> str:
    """The rewrite that proves ``left <= right`` (``left >= right`` when ``at_least``), or empty."""
    small, big = (right, left) if at_least else (left, right)
    try:
        verdict, method, _ = decide_le(small, big)
    except (TypeError, ValueError, NotImplementedError, RecursionError):  # a rewrite that fails proves nothing
        return ""
    return method if verdict == Verdict.PROVED else ""


def _strict_numbers(readings: list[tuple[Any, Any, Any]], *, larger_left: bool) -> str:
    """Why a strict inequality between two closed real numbers holds, in every reading, or empty."""
    for _, a, b in readings:
        if not all(isinstance(x, sympy.Basic) and not x.free_symbols and x.is_real for x in (a, b)):
            return ""
        if a.has(sympy.Float) or b.has(sympy.Float):  # a decimal read in binary: 0.1 + 0.2 > 0.3 is not exact
            return ""
        if ((a - b) if larger_left else (b - a)).is_positive is not True:
            return ""
    return "two closed numbers, compared exactly"
