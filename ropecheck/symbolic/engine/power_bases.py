"""A late rewrite of the decision procedure: powers of products and of powers, where a base is positive.

``power_bases`` writes, bottom up, every power with a symbolic exponent z (real or complex) by three rules,
each an identity of principal powers (``w**z = exp(z log w)``) wherever both sides are defined:

* ``(u v)**z = u**z v**z`` when every factor but at most one is positive: the logarithm of a product with
  positive factors is the sum of their logarithms and the logarithm of the last one (a positive factor leaves
  the argument of the product as it is), whatever that last factor is;
* ``(c**p)**z = c**(p z)`` when c is positive and p real: ``c**p = exp(p ln c)`` with ``p ln c`` real, whose
  logarithm is ``p ln c``;
* ``r**z`` of a positive rational r as the product of its prime factors' powers (``10000**z = 2**(4z) 5**(4z)``).

The result is then expanded and its powers of one base combined (``x**a x**b = x**(a+b)``, which holds for
principal powers at every x where both sides are defined, as both are ``exp((a+b) log x)`` there): so
``x**(m-n) = x**m/x**n`` is PROVED for every real or complex x, wherever both sides are defined.

Positive here is known by form, wherever the expression is defined: a positive number or symbol, a sum or
product of positive ones, a power of a positive base to a real exponent (real by form: built from real names
and numbers, :func:`.termwise.real_where_defined`). It decides the steps that distribute a scaled base's power
(``(b s)^{-2i/(D-2)} = b^{-2i/(D-2)} s^{-2i/(D-2)}`` for a scale s > 0, ``(10000 k^{d/(d-2)})^{-2i/d} =
10000^{-2i/d} k^{-2i/(d-2)}`` for k > 0); with a base of unknown sign (``((-1)^2)^{1/2} = 1``, not ``-1``) no
rule applies and the step stays as undecided as before.

Design constraints: pure SymPy; the rewrite returns its input unchanged, cheaply, where no power has a
symbolic exponent, and runs after every other rewrite, so steps decided before are decided as before.
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy import Sum

from .termwise import real_where_defined

__all__ = ["positive_by_form", "power_bases_rewrite"]

_PRIME_SPLIT_MAX = 10**12  # a rational base is split into primes only below this size (factoring stays instant)


def positive_by_form(e: Any) -> bool:
    """Whether ``e`` is positive wherever it is defined, by its form alone: a sound, incomplete test.

    Example:
        >>> k, d = sympy.Symbol("k", positive=True), sympy.Symbol("d", real=True)
        >>> positive_by_form(10000 * k ** (d / (d - 2))), positive_by_form(d**2 + 1), positive_by_form(d)
        (True, True, False)
    """
    if e.is_positive is True:
        return True
    if e.is_Pow:
        return positive_by_form(e.base) and real_where_defined(e.exp)
    if e.is_Mul or e.is_Add:
        return all(positive_by_form(a) for a in e.args)
    return False


def _split_rational(r: Any, z: Any) -> Any:
    """``r**z`` of a positive rational r as its prime factors' powers; None when r is not one (or too large)."""
    if not (r.is_Rational and r.is_positive) or r == 1:
        return None
    p, q = int(r.p), int(r.q)
    if p > _PRIME_SPLIT_MAX or q > _PRIME_SPLIT_MAX:
        return None
    factors = {b: e for b, e in sympy.factorint(p).items()}
    factors.update({b: -e for b, e in sympy.factorint(q).items()})
    if len(factors) == 1 and next(iter(factors.values())) == 1:
        return None  # a prime: nothing to split
    return sympy.Mul(*[sympy.Pow(b, e * z) for b, e in factors.items()])


def _power(base: Any, z: Any) -> Any:
    """``base**z`` with the three rules of the module applied at its top, recursively into the parts."""
    if base.is_Mul:
        positive = [f for f in base.args if positive_by_form(f)]
        if len(base.args) - len(positive) <= 1:
            return sympy.Mul(*[_power(f, z) for f in base.args])
    if base.is_Pow and positive_by_form(base.base) and real_where_defined(base.exp):
        return _power(base.base, sympy.expand(base.exp * z))
    split = _split_rational(base, z)
    return split if split is not None else sympy.Pow(base, z)


def _symbolic_power(x: Any) -> bool:
    return bool(x.is_Pow and not x.exp.is_number and x.base is not sympy.E)


def power_bases_rewrite(e: Any) -> Any:
    """The difference with every power of a symbolic exponent rewritten by the rules of the module, expanded;
    unchanged when it has no such power (or holds a sum or a matrix).

    Example:
        >>> b, i, D = sympy.symbols("b i D", real=True)
        >>> s = sympy.Symbol("s", positive=True)
        >>> power_bases_rewrite((b * s) ** (-2 * i / (D - 2)) - s ** (-2 * i / (D - 2)) * b ** (-2 * i / (D - 2)))
        0
    """
    e = sympy.sympify(e)
    if e.has(Sum) or isinstance(e, sympy.MatrixBase) or not e.find(_symbolic_power):
        return e
    out = e.replace(_symbolic_power, lambda x: _power(x.base, x.exp))
    return sympy.expand(sympy.powsimp(sympy.expand(out)))
