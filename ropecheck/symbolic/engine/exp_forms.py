"""Two late rewrites of the decision procedure: powers as exponentials, and quotients over one denominator.

``exp_form`` writes every power ``b**x`` of a positive base with a symbolic exponent as
``exp(x log b)`` (the definition of the power, for every complex x when b > 0), the logarithm of
a positive rational as the sum of the logarithms of its prime factors (``log 10000 = 4 log 2 +
4 log 5``: ``log(uv) = log u + log v`` for positive u and v), and every ``exp(r + i a)`` as
``exp(r) (cos a + i sin a)`` (Euler's formula, an identity for every complex r and a); then it
expands trig functions of sums. It decides the steps that turn ``1/10000^{2i/d}`` into
``e^{-2i ln(10000)/d}``, and Euler's formula where the angle is not known to be real (so that
``expand_complex`` cannot take its real and imaginary parts apart).

``cancel`` brings the difference over one denominator and expands the numerator (trig functions
of sums expanded too): when the numerator is 0 the sides agree wherever both are defined (every
denominator nonzero), the reading a quotient in a derivation carries.

Design constraints: each rewrite is an identity wherever the expression is defined, so a 0 is a
proof; both return their input unchanged when nothing applies, cheaply, and both run after every
other rewrite, so steps decided before are decided as before.
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy import Sum

__all__ = ["cancel_rewrite", "exp_form_rewrite"]

_LOG_FACTOR_MAX = 10**12  # log of a rational split into primes only below this size (factoring stays instant)


def _split_log(arg: Any) -> Any:
    """log of a positive rational as a sum of prime logarithms (None when too large or not such a number)."""
    if not (arg.is_Rational and arg.is_positive) or arg == 1:
        return None
    p, q = int(arg.p), int(arg.q)
    if p > _LOG_FACTOR_MAX or q > _LOG_FACTOR_MAX:
        return None
    parts = [e * sympy.log(b) for b, e in sympy.factorint(p).items()]
    parts += [-e * sympy.log(b) for b, e in sympy.factorint(q).items()]
    return sympy.Add(*parts)


def _euler(arg: Any) -> Any:
    """``exp(arg)`` with the terms of arg that are i times something written as cos + i sin."""
    real_part, angle = sympy.S.Zero, sympy.S.Zero
    for term in sympy.Add.make_args(sympy.expand(arg)):
        coeff = term.as_coefficient(sympy.I)
        if coeff is None:
            real_part += term
        else:
            angle += coeff
    if angle == 0:
        return sympy.exp(arg)
    return sympy.exp(real_part) * (sympy.cos(angle) + sympy.I * sympy.sin(angle))


def _symbolic_power(x: Any) -> bool:
    return bool(x.is_Pow and x.base.is_positive and x.base is not sympy.E and not x.exp.is_number)


def exp_form_rewrite(e: Any) -> Any:
    """Powers of positive bases as exponentials, logs of rationals split into primes, Euler's formula; then
    ``expand_trig``. Unchanged when the difference has none of these (or holds a sum, left to the sum rewrites).

    Example:
        >>> import sympy
        >>> i, d = sympy.symbols("i d", real=True)
        >>> exp_form_rewrite(10000 ** (-2 * i / d) - sympy.exp(-2 * i * sympy.log(10000) / d))
        0
    """
    e = sympy.sympify(e)
    if e.has(Sum) or isinstance(e, sympy.MatrixBase):
        return e
    has_exp = bool(e.atoms(sympy.exp))
    if not has_exp and not e.find(_symbolic_power):
        return e
    out = e.replace(_symbolic_power, lambda x: sympy.exp(x.exp * sympy.log(x.base)))
    out = out.replace(lambda x: isinstance(x, sympy.log) and _split_log(x.args[0]) is not None,
                      lambda x: _split_log(x.args[0]))  # fmt: skip
    out = out.replace(lambda x: isinstance(x, sympy.exp), lambda x: _euler(x.args[0]))
    return sympy.expand(sympy.expand_trig(sympy.expand(out)))


def _has_symbolic_denominator(e: Any) -> bool:
    return any(p.exp.is_negative and p.base.free_symbols for p in e.atoms(sympy.Pow))


def cancel_rewrite(e: Any) -> Any:
    """The numerator of the difference over one denominator, expanded (trig functions of sums too); unchanged
    when no denominator holds a symbol.

    Example:
        >>> import sympy
        >>> a, b, m = sympy.symbols("a b m", real=True)
        >>> cancel_rewrite((a - b) * (m * (a - b)) / (2 * (a - b)) - m * (a - b) / 2)
        0
    """
    e = sympy.sympify(e)
    if e.has(Sum) or isinstance(e, sympy.MatrixBase) or not _has_symbolic_denominator(e):
        return e
    numerator, _ = sympy.fraction(sympy.together(e))
    return sympy.expand(sympy.expand_trig(sympy.expand(numerator)))
