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

__all__ = ["exact_closed_claim"]

#: a decimal as written (``0.3``, ``.25``, ``12.5``)
_CLAIM_DECIMAL = re.compile(r"(?<![\d.])\d*\.\d+(?![\d.])")


def _as_fraction(m: re.Match[str]) -> str:
    r = sympy.Rational(m.group(0))
    return rf"\frac{{{r.p}}}{{{r.q}}}"


def exact_closed_claim(texts: tuple[str, str], read: tuple[Any, Any], scope: Scope, reader: Any) -> tuple[Any, Any]:
    """The sides ``texts`` read by ``reader(text, scope)`` with decimals as exact fractions, where those and the
    sides as read (``read``) are closed numbers; ``read`` otherwise.

    Example:
        >>> from ropecheck.symbolic.readers.latex_syntax import read_latex_side
        >>> zero = sympy.Integer(0)
        >>> reader = lambda t, s: read_latex_side(t, 0, s)
        >>> exact_closed_claim(("(10^{20} + 0.3) - 10^{20}", "0"), (zero, zero), Scope(), reader)
        (3/10, 0)
    """
    if not any(_CLAIM_DECIMAL.search(t) for t in texts):
        return read
    if not all(isinstance(v, sympy.Expr) and not v.free_symbols for v in read):
        return read
    try:
        exact = [reader(_CLAIM_DECIMAL.sub(_as_fraction, t), scope) for t in texts]
    except (ClaimParseError, ClaimLimitError, RecursionError):
        return read
    if not all(isinstance(v, sympy.Expr) and not v.free_symbols and not v.has(sympy.Float) for v in exact):
        return read
    return exact[0], exact[1]
