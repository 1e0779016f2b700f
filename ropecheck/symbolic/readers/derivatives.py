"""Leibniz notation (``\\frac{dy}{dx}``, ``\\frac{d}{dx} f``, ``\\frac{\\partial f}{\\partial x}``): a derivative,
never a quotient.

Read as a quotient, ``\\frac{dy}{dx}`` is y/x once the d cancels, which proves ``\\frac{dy}{dx} = \\frac{y}{x}``
and refutes ``\\frac{d}{dt} \\cos(\\omega t) = -\\omega \\sin(\\omega t)``. So a side that holds such a fraction
(or ``\\partial`` anywhere) is either read as a derivative, or not read at all.

A side is read as a derivative only where it is nothing else: ``\\frac{d}{dx}`` (or ``\\partial``) followed by a
bracketed body or by a body with no + or - outside brackets, or ``\\frac{dy}{dx}`` with y one name; x one name
that the document does not define; the body read exactly (the document's definitions substituted), and
depending on no name but x. A body with another free name is not read: that name may depend on x
(``\\frac{d}{dt}\\cos(\\omega t)`` with ω a function of t), and a free name counts as a constant only where the
document says so.

Design constraints: only the whole side is read, never a derivative beside other terms; higher derivatives
(``\\frac{d^2}{dx^2}``) and partial ones in several names are not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import sympy

from ...errors import ClaimParseError
from .latex_text import closing, top_level

__all__ = ["derivative_side", "leibniz_at"]

#: the d of a differential: d, \mathrm{d}, \mathrm d, \operatorname{d}, \text{d}, \partial
_LEIBNIZ_D = r"(?:d|\\(?:mathrm|operatorname|text|textrm|mathit|rm)\s*\{\s*d\s*\}|\\mathrm\s+d|\\partial(?![A-Za-z]))"
#: what may follow the d of a denominator: a name (a letter or a command that is not an operator or a space)
_LEIBNIZ_NAME_AFTER = r"(?=\s*(?:[A-Za-z]|\\(?!(?:cdot|times|div|quad|qquad|left|right)(?![A-Za-z]))[A-Za-z]))"
#: a fraction whose numerator and denominator both open with a differential
_LEIBNIZ_FRAC = re.compile(
    r"\\[dt]?frac\s*\{\s*" + _LEIBNIZ_D + r"(?:[^{}]|\{[^{}]*\})*\}\s*\{\s*" + _LEIBNIZ_D + _LEIBNIZ_NAME_AFTER
)
_PARTIAL = re.compile(r"\\partial(?![A-Za-z])")
#: a whole side ``\frac{d}{dx} BODY`` or ``\frac{d y}{d x}``: the numerator after its d, the variable, the rest
_LEIBNIZ_SIDE = re.compile(
    r"\s*\\[dt]?frac\s*\{\s*(?P<d1>" + _LEIBNIZ_D + r")\s*(?P<top>(?:[^{}]|\{[^{}]*\})*)\}"
    r"\s*\{\s*(?P<d2>" + _LEIBNIZ_D + r")\s*(?P<var>[A-Za-z]|\\[A-Za-z]+)\s*\}(?P<body>.*)$",
    re.DOTALL,
)
_OPEN_CLOSE = {"(": ")", "[": "]", "\\left(": "\\right)", "\\left[": "\\right]", "\\big(": "\\big)"}


def leibniz_at(text: str) -> int | None:
    """The column of the first derivative in Leibniz notation (or ``\\partial``) in ``text``; None if none."""
    found = [m.start() for m in (_LEIBNIZ_FRAC.search(text), _PARTIAL.search(text)) if m is not None]
    return min(found) if found else None


def _top_level_sign(body: str) -> bool:
    """Whether ``body`` has a + or - outside every bracket and brace (past its first character)."""
    depths = top_level(body)
    return any(ch in "+-" and depths[k] == 0 and body[:k].strip() for k, ch in enumerate(body))


def _body_text(top: str, body: str) -> str | None:
    """The text of the function differentiated: the numerator's name, or what follows the fraction."""
    if top.strip():
        return top if not body.strip() and re.fullmatch(r"\s*(?:[A-Za-z]|\\[A-Za-z]+)\s*", top) else None
    stripped = body.strip()
    for opening, close in _OPEN_CLOSE.items():
        if stripped.startswith(opening) and stripped.endswith(close) and _balanced_once(stripped, opening, close):
            return stripped
    return stripped if stripped and not _top_level_sign(stripped) else None


def _balanced_once(text: str, opening: str, close: str) -> bool:
    """Whether the bracket that opens ``text`` is the one that closes it (``(a)(b)`` is two groups)."""
    end = closing(text, 0, opening, close)
    return end != -1 and end + len(close) == len(text)


def derivative_side(side: str, offset: int, read: Callable[[str, int], Any]) -> Any:
    """``side`` read as a derivative, with ``read(text, column)`` reading a piece of it exactly.

    Raises :class:`~ropecheck.errors.ClaimParseError` where the side holds a derivative that is not read.
    """
    at = leibniz_at(side)
    assert at is not None
    m = _LEIBNIZ_SIDE.match(side)
    text = None if m is None or ("partial" in m["d1"]) != ("partial" in m["d2"]) else _body_text(m["top"], m["body"])
    if m is None or text is None:
        raise ClaimParseError(
            "a derivative (Leibniz notation or \\partial) is not read beside other terms or in this form; "
            "never as a quotient",
            offset + at,
        )
    var = read(m["var"], offset + m.start("var"))
    start = m.start("top") if m["top"].strip() else m.start("body")
    value = read(text, offset + start)
    names: set[Any] = set(getattr(value, "free_symbols", set()))
    if not isinstance(var, sympy.Symbol) or names - {var}:
        raise ClaimParseError(
            f"a derivative in {m['var']}: the function depends on names other than {m['var']} (which may depend "
            f"on it), or {m['var']} is not a plain name; not read",
            offset + at,
        )
    return sympy.diff(value, var)
