"""Finite sums as a text writes them: the ``sum_factor`` rewrite, and ranges no text means.

``sum_factor`` (:func:`factor_sums`) splits each single-limit sum over the terms of its summand and takes out of
it every factor that does not depend on its index -- an inner sum that does not depend on it included (an inner
sum binds its own index) -- and names every bound variable alike, so that two spellings of one sum
(``\\sum_{j} e^{x_j}`` and ``\\sum_{l} e^{x_l}``) are one expression and cancel: ``\\sum_j e^{x_j} \\log(\\sum_l
e^{x_l}) / \\sum_l e^{x_l} = \\log \\sum_l e^{x_l}``. Each of these is an identity under every summation
convention (linearity).

:func:`runs_backwards` says whether values make a sum's upper limit fall below its lower limit minus one
(``\\sum_{j=1}^{n}`` at n = -1). SymPy's ``Sum`` follows Karr's convention there (the negated sum of the terms
between), another convention makes it 0, and no text means either: a counterexample at such values is a
counterexample to a reading, not to the text, and is not taken.

Design constraints: SymPy only; pure functions; a rewrite never decides by itself (the caller compares with 0).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import sympy
from sympy import S, Sum

__all__ = ["bound_var", "factor_sums", "runs_backwards"]

_BOUND: dict[tuple[Any, ...], sympy.Dummy] = {}


def bound_var(v: Any, name: str = "j") -> sympy.Dummy:
    """One bound variable per name and set of assumptions (a Dummy: it cannot clash with a name of the text)."""
    key = (name, *sorted(v.assumptions0.items()))
    if key not in _BOUND:
        _BOUND[key] = sympy.Dummy(name, **v.assumptions0)
    return _BOUND[key]


def _split(s: Any) -> Any:
    if len(s.limits) != 1:
        return s
    v, lo, up = s.limits[0]
    if lo.has(v) or up.has(v):  # pragma: no cover - malformed
        return s
    k = bound_var(v)
    out = S.Zero
    for term in sympy.Add.make_args(sympy.expand(s.function)):
        factor, rest = term.as_independent(v, as_Add=False)
        if any(b == k for inner in rest.atoms(Sum) for b, *_ in inner.limits):
            out += factor * Sum(rest, (v, lo, up))  # an inner sum of it binds k: renaming v to k would capture it
        else:
            out += factor * Sum(rest.xreplace({v: k}), (k, lo, up))
    return out


def factor_sums(e: Any) -> Any:
    """``e`` with every single-limit sum split over its terms, the factors free of its index taken out, its bound
    variable renamed to one shared name (inner sums first), then expanded.

    Example:
        >>> j, l, n = sympy.symbols("j l n", integer=True)
        >>> x = sympy.IndexedBase("x", real=True)
        >>> s = Sum(sympy.exp(x[l]), (l, 1, n))
        >>> factor_sums(Sum(sympy.exp(x[j]) * sympy.log(s), (j, 1, n)) / s - sympy.log(s))
        0
    """
    e = sympy.sympify(e)
    if not e.has(Sum):
        return e
    return sympy.expand(e.replace(lambda x: isinstance(x, Sum), _split))


def runs_backwards(exprs: Iterable[Any], values: Mapping[Any, Any]) -> bool:
    """Whether ``values`` put a sum of ``exprs`` on a range that runs backwards: an upper limit below the lower
    limit minus one (an empty range, upper = lower - 1, is a sum of no terms in every convention)."""
    for e in exprs:
        for s in sympy.sympify(e).atoms(Sum):
            for _, lo, up in s.limits:
                gap = sympy.sympify(sympy.sympify(up - lo + 1).xreplace(dict(values)))
                if gap.is_number and gap.is_comparable and bool(gap < 0):
                    return True
    return False
