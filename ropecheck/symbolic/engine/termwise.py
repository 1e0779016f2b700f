"""Nonnegativity term by term: bounded sines and cosines, and written sums over their index set.

Two sound, incomplete rules that :func:`.decide.manifestly_nonnegative` adds to its own:

- ``c_0 + c_1 cos(x_1) + c_2 sin(x_2) + ... + (nonnegative terms)`` is >= 0 when the numbers satisfy
  ``c_0 >= |c_1| + |c_2| + ...`` and every argument is real: cos and sin of a real number lie in [-1, 1]
  (``1 + cos(m b^{-4i/d}) >= 0``). An argument counts as real when it is built from real names, real
  sequence entries and numbers by sums, products and powers: a real power ``b**r`` with r not a whole
  number is defined, in the real numbers, only where ``b >= 0``, and is real there (SymPy's principal
  value at a negative b is complex, where no inequality is stated).
- A written sum ``Sum_{i=a}^{b} f(i)`` of a nonnegative summand is >= 0 read as people write it: the sum
  over the integers ``a <= i <= b``, none when ``b < a``. SymPy's ``Sum`` follows Karr's convention, where
  a reversed range subtracts; the caller asks for this reading explicitly and names it in its method.

Design constraints: the engine's lowest layer -- this module imports only SymPy; the caller passes its own
nonnegativity test for the terms that are neither numbers nor bounded sines and cosines.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy
from sympy import Indexed, S

__all__ = ["bounded_trig_nonnegative", "real_where_defined"]


def real_where_defined(e: Any) -> bool:
    """Whether ``e`` is real wherever it is defined as a real number: a sound, incomplete test.

    Example:
        >>> b, m = sympy.Symbol("b", real=True), sympy.Symbol("m", integer=True)
        >>> real_where_defined(m * b ** (-4 * m / 7)), real_where_defined(sympy.I * m)
        (True, False)
    """
    if e.is_real is not None:  # SymPy knows: a number such as (-2)**(1/3) is its complex principal value
        return bool(e.is_real)
    if isinstance(e, Indexed):
        return bool(e.base.label.is_real)
    if e.is_Add or e.is_Mul or e.is_Pow:
        return all(real_where_defined(a) for a in e.args)
    if isinstance(e, sympy.cos | sympy.sin):
        return real_where_defined(e.args[0])
    return False


def _trig_coefficient(term: Any) -> Any:
    """``|c|`` when ``term`` is ``c cos(x)`` or ``c sin(x)`` with c a real number and x real, else None."""
    coeff, rest = term.as_coeff_Mul()
    if isinstance(rest, sympy.cos | sympy.sin) and coeff.is_Number and real_where_defined(rest.args[0]):
        return abs(coeff)
    return None


def bounded_trig_nonnegative(e: Any, nonnegative: Callable[[Any], bool]) -> bool:
    """Whether the sum ``e`` is >= 0 because its constant outweighs its sines and cosines (see the module).

    Example:
        >>> x = sympy.Symbol("x", real=True)
        >>> bounded_trig_nonnegative(1 + sympy.cos(x), lambda t: False)
        True
        >>> bounded_trig_nonnegative(1 + sympy.cos(x) - sympy.sin(x), lambda t: False)
        False
    """
    if not e.is_Add:
        return False
    constant, budget = S.Zero, S.Zero
    for term in e.args:
        if term.is_Number:
            constant += term
            continue
        bound = _trig_coefficient(term)
        if bound is not None:
            budget += bound
        elif not nonnegative(term):
            return False
    return bool(budget > 0 and constant >= budget)
