"""``A \\simeq B`` after the text says a name tends to a value: the sides' ratio tends to 1 there.

A derivation argues "since d is large, $\\lambda \\to 1$, thus $$\\frac{n}{\\beta\\lambda} \\simeq
\\frac{n}{\\beta}$$": the approximation is the limit the sentence before states. Where the prose between the
display before and the step states ``x \\to c`` in inline math (a name, a number: ``\\lambda \\to 1``,
``\\theta \\to 0``) and the step writes that name, an ``\\approx`` or ``\\simeq`` step that is not an exact
identity is read with the name free (not its definition, which is what tends to c) and PROVED where the ratio of
its sides tends to 1 as the name tends to c (two-sided, SymPy's ``limit``), in every reading: asymptotic
equivalence, the strong sense (``\\sin x \\simeq x`` as x -> 0 is, ``x \\simeq 2x`` is not). The ratio must be a
function of that name alone: what makes the name tend to c (a size d growing, in ``\\lambda = k^{2/(d-2)}``) may
move any other name too, so ``(b\\lambda)^{d/2} \\approx b^{d/2}`` is not proved by ``\\lambda \\to 1``. Anything
else stays UNDECIDED: what the approximation neglects is not said, so nothing here refutes.

Design constraints: pure functions, run by the audit in a forked child; a limit SymPy cannot take, or takes
only one-sided, decides nothing.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import sympy
from sympy import MatrixBase

from ..readers.scope import Scope
from .document import Link
from .reading import Outcome, free, head, step_readings

__all__ = ["limit_in_child", "stated_limits"]

#: ``\\lambda \\to 1``, ``x_0 \\rightarrow 0``: a name (a letter or a Greek command, perhaps a simple subscript)
#: tending to a number, the whole inline formula
_TENDS = re.compile(
    r"^\s*(?P<name>\\[A-Za-z]+|[A-Za-z])(?P<sub>\s*_\s*(?:\{\s*[A-Za-z0-9]+\s*\}|[A-Za-z0-9]))?"
    r"\s*(?:\\to|\\rightarrow|→)(?![A-Za-z])\s*(?P<value>-?\s*\d+(?:\.\d+)?)\s*[.,]?\s*$"
)


def stated_limits(inline: list[tuple[int, str]]) -> list[tuple[str, str, int]]:
    """(name, value, line) for each inline formula ``x \\to c`` of ``inline`` (line, text), in order."""
    out = []
    for line, text in inline:
        m = _TENDS.match(text)
        if m is not None and m.group("name") not in ("\\infty", "\\pi"):
            out.append((m.group("name") + (m.group("sub") or ""), re.sub(r"\s+", "", m.group("value")), line))
    return out


def _written(name: str, text: str) -> bool:
    return re.search(re.escape(name) + r"(?![A-Za-z])", text) is not None


def limit_in_child(lhs: Link, rhs: Link, scope: Scope, tends: tuple[str, str, int]) -> Outcome:
    """The step PROVED where its sides' ratio tends to 1 as the name of ``tends`` tends to its value, else
    UNDECIDED (see the module docstring)."""
    name, value, line = tends
    if not _written(name, lhs.text + " " + rhs.text):
        return Outcome("UNDECIDED", reason=f"does not write {name}, which the text says tends to {value}")
    found = head(name, scope)
    if found is not None and found.kind == "symbol":
        scope = replace(scope, symbols={k: v for k, v in scope.symbols.items() if k != found.key})
    readings, problem = step_readings(lhs, rhs, scope)
    if not readings:
        return Outcome("UNDECIDED", reason=problem)
    target = sympy.Rational(value)
    for _, left, right in readings:
        if isinstance(left, MatrixBase) or isinstance(right, MatrixBase):
            return Outcome("UNDECIDED", reason="a matrix side: its limit is not taken")
        symbol = _symbol(name, free(left) | free(right))
        if symbol is None or _ratio_limit(left, right, symbol, target) != 1:
            why = f"the ratio of its sides does not tend to 1 as {name} \\to {value} (line {line}), or not surely"
            return Outcome("UNDECIDED", reason=why, lhs=readings[0][1], rhs=readings[0][2])
    several = f", in each of its {len(readings)} readings" if len(readings) > 1 else ""
    why = (
        f"{rhs.relation} read as the limit the text states, {name} \\to {value} (line {line}): with {name} free, "
        f"the ratio of the sides is a function of {name} alone that tends to 1{several}"
    )
    return Outcome("PROVED", "limit", why, None, readings[0][1], readings[0][2])


def _symbol(name: str, symbols: set[Any]) -> Any:
    """The symbol the reader made of ``name`` (``\\lambda`` -> lambda, ``x_0`` -> x_{0}), or None."""
    plain = re.sub(r"[\s{}\\]", "", name)
    found = [s for s in symbols if isinstance(s, sympy.Symbol) and re.sub(r"[{}\\]", "", s.name) == plain]
    return found[0] if len(found) == 1 else None


def _ratio_limit(left: Any, right: Any, symbol: Any, target: Any) -> Any:
    """lim (left / right) as symbol -> target, two-sided; None where SymPy cannot take it."""
    try:
        ratio = sympy.simplify(left / right)
        if ratio.has(sympy.nan, sympy.zoo) or right == 0 or ratio.free_symbols - {symbol}:
            return None  # a ratio that depends on another name: what drives the limit may move it too
        return sympy.limit(ratio, symbol, target, dir="+-")
    except (NotImplementedError, ValueError, TypeError, ZeroDivisionError, RecursionError):
        return None
