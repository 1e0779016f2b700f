"""A step proved where its sides are defined, at a value the text gives that makes a denominator zero.

``cancel`` (:mod:`..engine.exp_forms`) proves ``(a^2 - b^2)/(a - b) = a + b`` wherever every denominator is
nonzero. A document that gives a name a value in passing (``in our setting $a = b$``) may mean the step at that
value, where the left side is not defined: there the proof says nothing, and the step is not PROVED.

Design constraints: a pure function of the read sides and the values given; only a denominator that is exactly
zero at the values given counts (a value that is not a number leaves the step as it was).
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy import MatrixBase

__all__ = ["plain_names", "zero_denominator_at_given"]


def zero_denominator_at_given(sides: tuple[Any, Any], given: dict[str, Any]) -> str:
    """The first denominator of ``sides`` that the values ``given`` (by name) make zero, in words, or ''.

    Example:
        >>> a, b = sympy.symbols("a b")
        >>> zero_denominator_at_given(((a**2 - b**2) / (a - b), a + b), {"a": b})
        'a - b'
        >>> zero_denominator_at_given(((a**2 - b**2) / (a - b), a + b), {"a": b + 1})
        ''
    """
    for side in sides:
        if not isinstance(side, sympy.Expr) or isinstance(side, MatrixBase):
            continue
        values = {s: _plain(given[s.name]) for s in side.free_symbols if getattr(s, "name", None) in given}
        if not values:
            continue
        for part in sympy.preorder_traversal(side):
            if isinstance(part, sympy.Pow) and part.exp.is_negative:
                at = _plain(part.base.xreplace(values))
                if isinstance(at, sympy.Expr) and sympy.expand(at) == 0:
                    return str(part.base)
    return ""


def plain_names(value: Any) -> Any:
    """``value`` with each name a plain symbol of that name (a name read with other assumptions is the same name)."""
    if not isinstance(value, sympy.Basic):
        return value
    return value.xreplace({s: sympy.Symbol(s.name) for s in value.free_symbols if isinstance(s, sympy.Symbol)})


_plain = plain_names
