"""Upper bounds an inequality is proved through: the triangle inequality and the largest term.

Two facts that hold for every value, used where rewriting the difference of the sides is not enough
(a bound by parts: ``|sum S_{i+1}(h_{i+1} - h_i)| <= sum |S_{i+1}| |h_{i+1} - h_i| <= (max_i |h_{i+1} - h_i|)
sum |S_{i+1}|``):

* the triangle inequality, ``|sum_{i=a}^{b} f_i| <= sum_{i=a}^{b} |f_i|`` for a range that is not reversed
  (``b >= a - 1``), and ``|xy| = |x| |y|``: :func:`weakened` puts the right side for the left one wherever the
  modulus of a sum is subtracted, which makes the slack of an inequality no larger;
* the largest term, ``M = max_i X_i`` is ``X_v + t`` with ``t >= 0`` at every index v the maximum runs over:
  :func:`largest_terms` writes it so inside each sum over v, with t a fresh nonnegative unknown.

A maximum is the unknown :func:`largest_over` (a real function of the body, named by its index,
``max⟮i⟯(|h[i + 1] - h[i]|)``): no rewrite knows its value, so an equality that needs it is never decided,
and an inequality is PROVED only when the slack so bounded is nonnegative by its form, whatever t is.

Design constraints: pure SymPy; every change here makes the slack no larger, so a slack shown nonnegative
after it was nonnegative before; the maximum runs over (at least) every index of the sums it is compared
with, which is how a maximum without a range is meant beside them (the reader says so).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy
from sympy import Abs, S, Sum

__all__ = [
    "BOUNDS_NOTE",
    "MAXIMUM_PREFIX",
    "bounded_slack",
    "free_maxima",
    "largest_over",
    "largest_terms",
    "weakened",
]

#: what a verdict proved through these bounds says it rests on
BOUNDS_NOTE = (
    "by the triangle inequality (|sum f| <= sum |f|) and a maximum at least each term, over every index of the "
    "sums beside it; a sum whose upper limit is below its lower one is empty, as written mathematics reads it"
)

#: how the unknown for a maximum over the index i is named: ``max⟮i⟯`` (a name no document writes)
MAXIMUM_PREFIX = "max\N{MATHEMATICAL LEFT FLATTENED PARENTHESIS}"
_CLOSE = "\N{MATHEMATICAL RIGHT FLATTENED PARENTHESIS}"


def largest_over(body: Any, index: str) -> Any:
    """The largest value of ``body`` over the index named ``index``, as an unknown real number.

    Example:
        >>> a = sympy.IndexedBase("a")
        >>> largest_over(Abs(a[sympy.Symbol("i")]), "i")
        max⟮i⟯(Abs(a[i]))
    """
    return sympy.Function(f"{MAXIMUM_PREFIX}{index}{_CLOSE}", real=True)(body)


def bounded_slack(slack: Any, nonnegative: Callable[[Any], bool], combine: Callable[[Any], Any]) -> Any:
    """The slack of an inequality made no larger by both bounds, for a test of its sign by form: sums with a
    range read as written mathematics does (empty where reversed), moduli of sums weakened, sums over one range
    combined by ``combine``, maxima written at each index."""
    slack = _empty_when_reversed(slack.replace(lambda x: _index_of(x) is not None, _own_index))
    return sympy.expand(largest_terms(combine(sympy.expand(weakened(slack, nonnegative)))))


def _own_index(m: Any) -> Any:
    """A maximum with its index its own (a fresh symbol): no sum around it takes the index for its variable."""
    index, body = _index_of(m), m.args[0]
    own = {x: sympy.Dummy(index, **x.assumptions0) for x in body.free_symbols if getattr(x, "name", "") == index}
    return m.func(body.xreplace(own))


def _empty_when_reversed(e: Any) -> Any:
    """Each sum ``sum_{v=a}^{b}`` as ``sum_{v=a}^{a - 1 + max(0, b - a + 1)}``: the same terms where b >= a - 1,
    none where b is lower (SymPy would read such a range backwards, as a sum with the other sign)."""

    def empty(s: Any) -> Any:
        if len(s.limits) != 1:
            return s
        v, lo, up = s.limits[0]
        if (up - lo + 1).is_nonnegative:
            return s
        return Sum(s.function, (v, lo, lo - 1 + sympy.Max(0, up - lo + 1)))

    return e.replace(lambda x: isinstance(x, Sum), empty)


def _index_of(e: Any) -> str | None:
    """The index a maximum runs over, or None for anything else."""
    if not isinstance(e, sympy.core.function.AppliedUndef) or len(e.args) != 1:
        return None
    name = e.func.__name__
    if not (name.startswith(MAXIMUM_PREFIX) and name.endswith(_CLOSE)):
        return None
    return name[len(MAXIMUM_PREFIX) : -len(_CLOSE)]


def free_maxima(*sides: Any) -> dict[Any, Any]:
    """Each maximum ``max_i |a_i|`` of a sequence a that the sides use nowhere else, as a fresh positive unknown.

    Setting every a_i to one value v makes the maximum |v|, so it takes every positive value, and nothing else in
    the sides ties it: values of the unknown at which the sides differ are values of the sequence at which they
    do. A maximum of anything else (``max_i |a_{i+1} - a_i|``, ``max_i \\sin a_i``) is left as it is.

    Example:
        >>> a, i = sympy.IndexedBase("a"), sympy.Symbol("i", integer=True)
        >>> m = largest_over(Abs(a[i]), "i")
        >>> free_maxima(2 * m, m)
        {max⟮i⟯(Abs(a[i])): max⟮i⟯(Abs(a[i]))}
    """
    found = {m for e in sides for m in sympy.sympify(e).atoms(sympy.core.function.AppliedUndef) if _index_of(m)}
    out: dict[Any, Any] = {}
    for m in found:
        body = m.args[0]
        entry = body.args[0] if isinstance(body, Abs) else None
        if not (isinstance(entry, sympy.Indexed) and len(entry.indices) == 1):
            continue
        if getattr(entry.indices[0], "name", None) != _index_of(m):
            continue
        rest = [sympy.sympify(e).xreplace({m: S.Zero}) for e in sides]
        if any(entry.base in r.atoms(sympy.IndexedBase) for r in rest):
            continue
        out[m] = sympy.Symbol(str(m), positive=True)
    return out


def _moduli_split(e: Any) -> Any:
    """``|x y|`` as ``|x| |y|`` everywhere in e (true of every complex x, y)."""
    return e.replace(
        lambda x: isinstance(x, Abs) and x.args[0].is_Mul, lambda x: sympy.Mul(*[Abs(a) for a in x.args[0].args])
    )


def weakened(slack: Any, nonnegative: Callable[[Any], bool]) -> Any:
    """The slack with ``-c |sum f|`` (c nonnegative by its form) made ``-c sum |f|``: no larger, by the triangle
    inequality, where the sum's range is not reversed. ``nonnegative``: the test of a coefficient's sign."""
    slack = _moduli_split(sympy.sympify(slack))  # not expanded: a sum under a modulus stays one sum
    out = []
    for term in sympy.Add.make_args(slack):
        factors = sympy.Mul.make_args(term)
        moduli = [
            f for f in factors if isinstance(f, Abs) and isinstance(f.args[0], Sum) and len(f.args[0].limits) == 1
        ]
        if len(moduli) != 1:
            out.append(term)
            continue
        inner = moduli[0].args[0]
        (_, lo, up) = inner.limits[0]
        rest = sympy.Mul(*[f for f in factors if f is not moduli[0]])
        if not (nonnegative(-rest) and (up - lo + 1).is_nonnegative):
            out.append(term)
            continue
        out.append(rest * Sum(_moduli_split(Abs(inner.function)), inner.limits[0]))
    return sympy.Add(*out)


def largest_terms(e: Any) -> Any:
    """Inside each sum over v whose range is not reversed, every maximum over an index written as its body at v
    plus a fresh nonnegative unknown (its excess over that term); elsewhere e as it is."""

    def inside(s: Any) -> Any:
        if len(s.limits) != 1:
            return s
        v, lo, up = s.limits[0]
        if not (up - lo + 1).is_nonnegative:
            return s

        def at_v(m: Any) -> Any:
            index = _index_of(m)
            if index is None:
                return m
            body = m.args[0]
            named = [x for x in body.free_symbols if isinstance(x, sympy.Symbol) and x.name == index]
            if v in body.free_symbols - set(named):
                return m  # the body uses the sum's variable for another name: not read at v
            return body.xreplace({x: v for x in named}) + sympy.Dummy("excess", nonnegative=True)

        return Sum(s.function.replace(lambda x: _index_of(x) is not None, at_v), s.limits[0])

    return e.replace(lambda x: isinstance(x, Sum), inside)
