"""A counterexample sought again within the bounds the document states for its names (``c > 1``, ``n \\ge 1``).

A step refuted at values that break a bound the text states (before the step, or in the prose after it: "where
$c > 1$") refutes nothing the text says; the same step refuted at values that keep every such bound does. Each
bounded name is written as its bound plus a fresh positive unknown (an integer one for an integer name), so every
value the search tries keeps the bound, and the counterexample is given back in the names of the step.

Design constraints: only bounds read as :func:`.stated_signs.keeps_bound` reads them (``name > number``,
``name >= number``); a name with any other bound, or a value the document gives it, is left to the caller, which
keeps such a step undecided. Numbers only refute here, as everywhere (:mod:`..engine.decide`).
"""

from __future__ import annotations

import re
from typing import Any

import sympy

from ..engine.decide import find_counterexample
from ..engine.proof import Counterexample
from ..readers.scope import domain_key
from .reading import Outcome

__all__ = ["within_bounds_in_child"]

_SAID = re.compile(r"\S+ (?P<op>>=|>) (?P<value>\d+(?:\.\d+)?)")


def _within(name: Any, said: str) -> Any:
    """The name as its bound plus a fresh positive unknown, or None for a bound not read so."""
    m = _SAID.fullmatch(said)
    if m is None or not isinstance(name, sympy.Symbol):
        return None
    value = sympy.Rational(m.group("value"))
    if name.is_integer:
        low = sympy.floor(value) if m.group("op") == ">" else sympy.ceiling(value) - 1
        return low + sympy.Dummy(f"{name.name}_excess", integer=True, positive=True)
    return value + sympy.Dummy(f"{name.name}_excess", positive=True)


def within_bounds_in_child(lhs: Any, rhs: Any, said: dict[str, str]) -> Outcome:
    """REFUTED with values that keep every bound in ``said`` (domain key -> the bound as said, ``c > 1``), or
    UNDECIDED where none is found (or a bounded name of the sides is not one symbol read so).

    Example:
        >>> c = sympy.Symbol("c", real=True)
        >>> o = within_bounds_in_child(c**2, c, {"c": "c > 1"})
        >>> o.status, {str(k): v for k, v in o.counterexample.values.items()}
        ('REFUTED', {'c': 2})
    """
    written: dict[Any, Any] = {}
    for x in {x for e in (lhs, rhs) for x in sympy.sympify(e).free_symbols if domain_key(str(x)) in said}:
        written[x] = _within(x, said[domain_key(str(x))])
        if written[x] is None:
            return Outcome("UNDECIDED")
    cex = find_counterexample(sympy.sympify(lhs).xreplace(written), sympy.sympify(rhs).xreplace(written))
    if cex is None:
        return Outcome("UNDECIDED")
    excess = {d for w in written.values() for d in w.atoms(sympy.Dummy)}
    values = {k: v for k, v in cex.values.items() if k not in excess}
    values.update({x: w.xreplace(cex.values) for x, w in written.items()})
    found = Counterexample(values, cex.lhs, cex.rhs, cex.difference, cex.approx, cex.entry)
    return Outcome("REFUTED", "counterexample", counterexample=found, lhs=lhs, rhs=rhs)
