"""Denominators as the text writes them: a quotient cancelled while reading is still undefined where one is zero.

SymPy builds ``(a - b) x / (a - b)`` as ``x``: the factor cancels as the product is made, before any value is put
in, so the read sides no longer show the denominator (:mod:`.cancel_given` looks at the read sides and cannot see
it). A step with such a quotient is proved only where ``a - b`` is nonzero; where the definitions in force, or a
value the text gives in passing, make it zero, the step's left side is not defined and the proof says nothing.

Design constraints: only denominators written with ``\\frac`` (``\\dfrac``, ``\\tfrac``) or after ``/`` are read,
each on its own with the reader of a side; one that does not read alone is left out (the step stays as it was).
A denominator counts only when it is exactly zero: a verdict is only ever taken back, never given.
"""

from __future__ import annotations

import re
from typing import Any

import sympy

from ..readers.latex_syntax import read_quiet
from ..readers.latex_text import skip_group
from ..readers.scope import Scope
from .cancel_given import plain_names

__all__ = ["written_denominators", "zero_written_denominator"]

#: a fraction command; its second argument is the denominator
_FRACTION_COMMAND = re.compile(r"\\[dt]?frac(?![A-Za-z])\s*")
#: one token after ``/`` or as a fraction's argument written without braces (``\frac12``, ``x/\sigma_k``)
_DENOMINATOR_TOKEN = re.compile(
    r"\\[A-Za-z]+(?:\s*_\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?|[A-Za-z](?:\s*_\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?|\d"
)
#: the denominator of a derivative (``\frac{d}{dx}``, ``\frac{\partial f}{\partial \theta}``): no quotient
_DIFFERENTIAL = re.compile(
    r"\s*(?:d|\\partial(?![A-Za-z])|\\mathrm\s*\{\s*d\s*\}|\\operatorname\s*\{\s*d\s*\})\s*\\?[A-Za-z]"
)
#: how many denominators one side may have read (each read is a parse)
_MAX_DENOMINATORS = 12


def _argument(tex: str, at: int) -> tuple[str | None, int]:
    """The argument of a command at ``tex[at]`` (a braced group, or one token) and the index after it."""
    while at < len(tex) and tex[at].isspace():
        at += 1
    if at >= len(tex):
        return None, at
    if tex[at] in "{(":
        end = skip_group(tex, at)
        if end < 0:
            return None, at
        return tex[at + 1 : end - 1] if tex[at] == "{" else tex[at:end], end
    m = _DENOMINATOR_TOKEN.match(tex, at)
    return (m.group(0), m.end()) if m else (None, at)


def written_denominators(tex: str) -> list[str]:
    """The LaTeX of each denominator ``tex`` writes, with ``\\frac`` or after ``/``, in order.

    Example:
        >>> written_denominators(r"\\frac{(a-b)x}{a-b} + y/(c - d) + 1/\\sigma + \\frac{d}{dx} x")
        ['a-b', '(c - d)', '\\\\sigma']
    """
    out: list[str] = []
    for m in _FRACTION_COMMAND.finditer(tex):
        _, after = _argument(tex, m.end())
        found, _ = _argument(tex, after) if after > m.end() else (None, after)
        if found and found.strip() and not _DIFFERENTIAL.match(found):
            out.append(found.strip())
    for m in re.finditer(r"(?<![/\\])/(?!/)", tex):
        found, _ = _argument(tex, m.end())
        if found and found.strip() and not _DIFFERENTIAL.match(found):
            out.append(found.strip())
    return out[:_MAX_DENOMINATORS]


def zero_written_denominator(texts: tuple[str, str], scope: Scope, given: dict[str, Any] | None = None) -> str:
    """The first denominator the sides ``texts`` write that reads as exactly zero in ``scope`` (with the values
    ``given`` by name put in), in the text's own spelling, or ''.

    Example:
        >>> a, b = sympy.symbols("a b")
        >>> zero_written_denominator((r"\\frac{(a-b)x}{a-b}", "x"), Scope(), {"a": b})
        'a-b'
        >>> zero_written_denominator((r"\\frac{(a-b)x}{a-b}", "x"), Scope(), {"a": b + 1})
        ''
    """
    values = {k: plain_names(v) for k, v in (given or {}).items()}
    for tex in texts:
        for written in written_denominators(tex):
            read = read_quiet(written, scope)
            if not isinstance(read, sympy.Expr) or isinstance(read, sympy.MatrixBase):
                continue
            read = plain_names(read)
            at = read.xreplace({s: values[s.name] for s in read.free_symbols if getattr(s, "name", None) in values})
            try:
                zero = sympy.expand(at) == 0
            except (TypeError, ValueError, RecursionError):
                continue
            if zero:
                return written
    return ""
