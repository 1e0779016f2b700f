"""Closed numbers with decimals, read exactly: ``(10^{20} + 0.3) - 10^{20}`` is 3/10, not 0.

The LaTeX reader reads a decimal as a binary number of about 15 digits, which is lost beside a large number. A
claim between closed numbers (no names) is arithmetic as written: :func:`exact_closed_claim` reads it again with
each decimal as the exact fraction it spells, as the SymPy syntax does. The audit does the same for its steps
(:func:`..audit.reading.exact_closed_sides`), where decimals are also judged as rounded.

Design constraints: used only where both sides as read are closed numbers and the exact reading is one too with
no binary number left; otherwise the sides stay as read.
"""

from __future__ import annotations

import re
from typing import Any

import sympy

from ...errors import ClaimLimitError, ClaimParseError
from .scope import Scope

__all__ = ["DECIMAL", "decimals_as_fractions", "exact_closed", "exact_closed_claim"]

#: a decimal as written (``0.3``, ``.25``, ``12.5``); group 1 holds the digits after the point
DECIMAL = re.compile(r"(?<![\d.])\d*\.(\d+)(?![\d.])")


def decimals_as_fractions(tex: str) -> str:
    r"""``tex`` with each decimal written as the exact fraction it spells (the reader reads decimals as floats).

    Example:
        >>> decimals_as_fractions("(10^{20} + 0.3) - 1.25")
        '(10^{20} + \\frac{3}{10}) - \\frac{5}{4}'
    """

    def fraction(m: re.Match[str]) -> str:
        r = sympy.Rational(m.group(0))
        return rf"\frac{{{r.p}}}{{{r.q}}}"

    return DECIMAL.sub(fraction, tex)


def exact_closed(texts: tuple[str, str], read: tuple[Any, Any], scope: Scope, reader: Any) -> tuple[Any, Any] | None:
    """The sides ``texts`` read by ``reader(text, scope)`` with decimals as exact fractions, where those and the
    sides as read (``read``) are closed numbers; else None (also where ``texts`` write no decimal, or a side
    cannot be read so).

    Example:
        >>> from ropecheck.symbolic.readers.latex_syntax import read_latex_side
        >>> zero = sympy.Integer(0)
        >>> reader = lambda t, s: read_latex_side(t, 0, s)
        >>> exact_closed(("(10^{20} + 0.3) - 10^{20}", "0"), (zero, zero), Scope(), reader)
        (3/10, 0)
        >>> exact_closed(("x + 0.3", "0"), (zero, zero), Scope(), reader) is None
        True
    """
    if not any(DECIMAL.search(t) for t in texts):
        return None
    if not all(isinstance(v, sympy.Expr) and not v.free_symbols for v in read):
        return None
    try:
        exact = [reader(decimals_as_fractions(t), scope) for t in texts]
    except (ClaimParseError, ClaimLimitError, RecursionError):
        return None
    if not all(isinstance(v, sympy.Expr) and not v.free_symbols and not v.has(sympy.Float) for v in exact):
        return None
    return exact[0], exact[1]


def exact_closed_claim(texts: tuple[str, str], read: tuple[Any, Any], scope: Scope, reader: Any) -> tuple[Any, Any]:
    """:func:`exact_closed` for a claim: the exact sides where there are any, ``read`` otherwise."""
    return exact_closed(texts, read, scope, reader) or read
