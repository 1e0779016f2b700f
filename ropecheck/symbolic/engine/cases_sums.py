"""Sums of a summand given by cases on the index, split where the cases change.

``Sum_{i=a}^{b} f(i)`` where f holds ``Piecewise((A, i < c), (B, True))`` (``\\theta_i = b^{-4i/d}`` for
``i < d/4``, else 0) is ``Sum_{i=a}^{c-1} f|A + Sum_{i=c}^{b} f|B`` -- when c is a whole number and
``a <= c <= b + 1``. A threshold ``s/k`` (s an integer name, k a whole number: ``d/4``) is a whole number only for
s a multiple of k: the split writes ``s = k t`` with t a whole number >= 0, and is made only where the
expression's own sums stop or start at the threshold (a sum to ``d/4 - 1`` beside the cases presupposes that
``d/4`` is a whole number). Every piecewise summand of the sum must change at that one threshold.

Design constraints: the engine's lowest layer -- imports only SymPy. The split is an identity under those
presuppositions; where one cannot be shown (another shape of threshold, a range that does not hold it, a
threshold no sum of the expression writes) the expression is returned unchanged, so nothing is proved.
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy import Piecewise, S, Sum

__all__ = ["split_at_cases"]


def _cut(pw: Any, i: Any) -> tuple[Any, Any, Any] | None:
    """``(c, low, high)``: the piece for i < c, the one for i >= c, where ``pw`` changes at c; else None."""
    if len(pw.args) != 2 or pw.args[1][1] is not S.true:
        return None
    (first, cond), (other, _) = pw.args
    if not isinstance(cond, sympy.core.relational.Relational) or isinstance(cond, sympy.Eq | sympy.Ne):
        return None
    if cond.rhs == i and not cond.lhs.has(i):  # c > i is i < c
        cond = cond.reversed
    if cond.lhs != i or cond.rhs.has(i):
        return None
    c = cond.rhs
    if isinstance(cond, sympy.StrictLessThan):
        return c, first, other
    if isinstance(cond, sympy.LessThan):
        return c + 1, first, other
    if isinstance(cond, sympy.StrictGreaterThan):
        return c + 1, other, first
    return c, other, first  # i >= c


def _whole(c: Any) -> tuple[Any, dict[Any, Any]] | None:
    """The threshold as a whole number: ``(c, {})`` if it is one, ``(t, {s: k t})`` for ``c = s/k``; else None."""
    if c.is_integer:
        return c, {}
    num, den = sympy.fraction(sympy.together(c))
    if isinstance(num, sympy.Symbol) and num.is_integer and den.is_Integer and den > 0:
        t = sympy.Dummy(f"{num.name}_over_{den}", integer=True, nonnegative=True)
        return t, {num: den * t}
    return None


def _split_one(s: Any, written: set[Any]) -> tuple[Any, dict[Any, Any]] | None:
    """One sum split at its summand's threshold, and the substitution that makes the threshold whole."""
    i, lo, up = s.limits[0]
    cuts: dict[Any, tuple[Any, Any, Any]] = {}
    for pw in s.function.atoms(Piecewise):
        cut = _cut(pw, i) if pw.has(i) else None
        if pw.has(i) and cut is None:
            return None
        if cut is not None:
            cuts[pw] = cut
    if len({cut[0] for cut in cuts.values()}) != 1:
        return None  # no piecewise summand, or pieces that change at different thresholds
    c = next(iter(cuts.values()))[0]
    if c not in written and c - 1 not in written:
        return None  # no sum of the expression stops or starts there: a whole threshold is not presupposed
    whole = _whole(c)
    if whole is None:
        return None
    c, subs = whole
    lo, up = lo.xreplace(subs), up.xreplace(subs)
    if not ((c - lo).is_nonnegative and (up + 1 - c).is_nonnegative):
        return None
    low = s.function.xreplace({pw: cut[1] for pw, cut in cuts.items()}).xreplace(subs)
    high = s.function.xreplace({pw: cut[2] for pw, cut in cuts.items()}).xreplace(subs)
    return Sum(low, (i, lo, c - 1)) + Sum(high, (i, c, up)), subs


def split_at_cases(e: Any) -> Any:
    """``e`` with each sum of a summand given by cases split at the threshold (see the module), else ``e``.

    Example:
        >>> i, d = sympy.Symbol("i", integer=True), sympy.Symbol("d", integer=True)
        >>> theta = Piecewise((2 ** (-i), i < d / 4), (0, True))
        >>> split_at_cases(Sum(theta, (i, 0, d / 2 - 1)) - Sum(2 ** (-i), (i, 0, d / 4 - 1))).doit().simplify()
        0
    """
    sums = [s for s in e.atoms(Sum) if len(s.limits) == 1 and s.function.has(Piecewise)]
    written = {b for s in e.atoms(Sum) for b in s.limits[0][1:]}
    mapping: dict[Any, Any] = {}
    subs: dict[Any, Any] = {}
    for s in sums:
        split = _split_one(s, written)
        if split is None or any(subs.get(k, v) != v for k, v in split[1].items()):
            return e
        mapping[s], subs = split[0], {**subs, **split[1]}
    return e.xreplace(mapping).xreplace(subs) if mapping else e
