"""Rows of inequalities that restate the row above: ``a - b \\ge c - a`` then ``2a \\ge b + c``.

A derivation often rewrites an inequality row by row, moving terms from one side to the other, in one
display (``\\begin{split} ... \\end{split}``). Such a row is not an identity: it holds exactly where the row
above holds, and the row above is what the document asserts (a supposition, or a result). A row is PROVED
here, from the row above, when its larger side minus its smaller is that row's larger side minus its smaller,
times a positive number (exactly, after expanding both): the two rows are then one inequality, true at the
same values, whatever those are.

Design constraints. Only the row directly above, in the same display, is used, and only when it was read and
left PROVED or UNDECIDED (an UNREAD row is no premise) and its slack has a name in it (``1 \\ge 2`` is false on
its own, never a premise). Both rows must read one way only, as numbers (vectors and matrices are not
ordered), and be both strict or both not. Nothing is REFUTED here: two rows
that differ say nothing about which one is wrong. A row stopped at a value the text gives in passing
(``$m = 1$``) is read for every value of the name, both rows alike: what holds for every value holds there.
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy import MatrixBase

from ..readers.scope import Scope
from .document import Link
from .reading import Outcome, readings_or_outcome, scope_for_every_value

__all__ = ["one_way", "restated_in_child"]

#: relations whose left side is the larger one; the strict relations
_LEFT_LARGER, _STRICT_ROWS = ("\\ge", "\\geq", "≥", "\\gt"), ("\\lt", "\\gt")


def one_way(lhs: Link, rhs: Link, scope: Scope) -> tuple[Any, Any, bool] | None:
    """(the left side, the right side, whether read for every value of a name given a value in passing) of one
    inequality row read one way, or None where the row reads no way, several ways, or as vectors or matrices."""
    readings, stopped = readings_or_outcome(lhs, rhs, scope)
    every = stopped is not None
    if stopped is not None:
        general = scope_for_every_value(scope, stopped)
        if general is None:
            return None
        readings, stopped = readings_or_outcome(lhs, rhs, general)
    if stopped is not None or len(readings) != 1:
        return None
    _, left, right = readings[0]
    if isinstance(left, MatrixBase) or isinstance(right, MatrixBase):
        return None
    return left, right, every


def _slack(lhs: Link, rhs: Link, scope: Scope) -> tuple[Any, Any, Any, bool] | None:
    """(the larger side minus the smaller, the left side, the right side, whether read for every value) of one
    inequality row read one way (:func:`one_way`), or None."""
    read = one_way(lhs, rhs, scope)
    if read is None:
        return None
    left, right, every = read
    slack = left - right if rhs.relation in _LEFT_LARGER else right - left
    return slack, left, right, every


def _factor(slack: Any, above: Any) -> Any | None:
    """The positive number c with ``slack = c * above`` exactly (after expanding), or None."""
    try:
        if sympy.expand(slack - above) == 0:
            return sympy.Integer(1)
        ratio = sympy.cancel(sympy.expand(slack) / sympy.expand(above))
        if ratio.is_Rational and ratio > 0 and sympy.expand(slack - ratio * above) == 0:
            return ratio
    except (TypeError, ValueError, NotImplementedError, RecursionError, ZeroDivisionError):
        return None
    return None


def restated_in_child(above: tuple[Link, Link, Scope], lhs: Link, rhs: Link, scope: Scope) -> Outcome:
    """PROVED when the row ``lhs rel rhs`` is the row ``above`` (its two sides and its scope) with terms moved or
    scaled by a positive number; else UNDECIDED with no verdict of its own (the caller keeps the step's)."""
    up_lhs, up_rhs, up_scope = above
    if (rhs.relation in _STRICT_ROWS) != (up_rhs.relation in _STRICT_ROWS):
        return Outcome("UNDECIDED")
    here, before = _slack(lhs, rhs, scope), _slack(up_lhs, up_rhs, up_scope)
    # a row above with no name in its slack (1 \ge 2) is true or false on its own, never a premise
    if here is None or before is None or not getattr(before[0], "free_symbols", None):
        return Outcome("UNDECIDED")
    c = _factor(here[0], before[0])
    if c is None:
        return Outcome("UNDECIDED")
    times = "" if c == 1 else f", times {c}"
    every = " (both read for every value of the names the text gives values in passing)" if here[3] or before[3] else ""
    why = (
        f"the inequality of line {up_rhs.line} restated: the larger side minus the smaller is the same "
        f"expression{times}{every}, so this row holds exactly where that row, which the document asserts, holds"
    )
    return Outcome("PROVED", "restated", why, None, here[1], here[2])
