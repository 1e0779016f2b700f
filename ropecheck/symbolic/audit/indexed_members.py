r"""A block written as a member of a defined family with one index more: ``R^{(2)}_{\Theta,m,j}``.

A derivation may define the 2x2 rotation once, ``R^{(2)}_{\Theta,m}`` by the angle ``m\theta``, give the
frequencies per block (``\theta_j = 10000^{-2(j-1)/d}``), and then write the whole rotation as the list of its
blocks ``diag(R^{(2)}_{\Theta,m,1}, \dots, R^{(2)}_{\Theta,m,d/2})``: the family's name at the position with the
block's number after it. The text never says what that last index does; it is read here as choosing the one name of
the family's value other than the position (``\theta``), which the text defines per index (a pattern over an index,
``\theta_j``). Block j is then the family's value with that name set to a number of block j's own -- any number: a
step proved so holds whatever number the index chooses (the text's ``\theta_j`` among them).

Design constraints: only where the family is defined (a pattern over its last subscript) with a square matrix whose
names are the position and exactly one other, and the text defines that other name per index; the number stands as
a fresh name, so a counterexample, which would need a value of it, never refutes a step (:mod:`.block_families`
refutes only in the positions): such a step is PROVED or not decided.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import sympy

from ..readers.latex_syntax import comma_pattern_key
from ..readers.scope import Scope

__all__ = ["IndexedBlock", "indexed_block"]

#: ``R_{\Theta, m, j + 1}^{(2)}`` or ``R^{(2)}_{\Theta, m, j + 1}``: a base, a subscript listing several parts, and
#: perhaps a raised label
_INDEXED = re.compile(
    r"^\s*(?P<base>\\?[A-Za-z]+|\\(?:mathbf|boldsymbol|bm)\s*\{\s*[A-Za-z]\s*\})\s*"
    r"(?:\^\s*(?P<pre>\{[^{}]*\}|[A-Za-z0-9])\s*)?_\s*\{(?P<sub>[^{}]*)\}\s*"
    r"(?:\^\s*(?P<post>\{[^{}]*\}|[A-Za-z0-9]))?\s*$"
)


class IndexedBlock(NamedTuple):
    """Block j as read (a square matrix), and the reading in words."""

    value: sympy.Matrix
    said: str


def indexed_block(text: str, scope: Scope, param: str, letter: str) -> IndexedBlock | None:
    r"""Block ``letter`` of a family over ``param`` written ``R^{(2)}_{\Theta,m,j}``: the defined family's value at
    ``param`` with its one other name a fresh number of the block's own; None where it is not written so.

    Example:
        >>> m, t = sympy.symbols("m theta")
        >>> from ..readers.scope import Definition
        >>> body = sympy.Matrix([[sympy.cos(m * t), -sympy.sin(m * t)], [sympy.sin(m * t), sympy.cos(m * t)]])
        >>> sc = Scope(patterns={"R^{(2)}_{\\Theta,*}": Definition("pattern", "R", body, (m,), line=3),
        ...                      "\\theta": Definition("pattern", "theta", 2 ** m, (m,), line=4)})
        >>> indexed_block(r"R_{\Theta, m, j + 1}^{(2)}", sc, "m", "j").value[0, 0]
        cos(m*theta_[j])
    """
    m = _INDEXED.match(text)
    if m is None or (m.group("pre") and m.group("post")):
        return None
    parts = [re.sub(r"\s+", "", p) for p in m.group("sub").split(",")]
    if len(parts) < 3 or parts[-2] != param or not re.search(rf"(?<![\\A-Za-z]){letter}(?![A-Za-z])", parts[-1]):
        return None
    raised = re.sub(r"\s+", "", m.group("pre") or m.group("post") or "")
    base = re.sub(r"\s+", "", m.group("base"))
    name = f"{base}^{raised}_{{{','.join(parts[:-1])}}}" if raised else f"{base}_{{{','.join(parts[:-1])}}}"
    d = scope.patterns.get(comma_pattern_key(name)) or scope.patterns.get(comma_pattern_key(name.lstrip("\\")))
    if d is None or len(d.params) != 1 or not isinstance(d.body, sympy.MatrixBase) or d.body.rows != d.body.cols:
        return None
    body = sympy.Matrix(d.body).xreplace({d.params[0]: sympy.Symbol(param)})
    others = [s for s in body.free_symbols if getattr(s, "name", None) != param]
    if len(others) != 1 or not isinstance(others[0], sympy.Symbol):
        return None
    other = others[0]
    per_index = scope.patterns.get("\\" + other.name) or scope.patterns.get(other.name)
    if per_index is None or per_index.line <= 0:
        return None  # the text does not give the name per index: what the index chooses is not said
    fresh = sympy.Symbol(f"{other.name}_[{letter}]", **_assumptions(other))
    said = (
        f"{text.strip()} read as {name} (line {d.line}) with {other.name} a "
        f"number of block {letter}'s own, {fresh.name} (the text gives {other.name} per index at line "
        f"{per_index.line}; what the last index chooses is not said): for every such number"
    )
    return IndexedBlock(body.xreplace({other: fresh}), said)


def _assumptions(symbol: sympy.Symbol) -> dict[str, bool]:
    return {k: v for k, v in symbol.assumptions0.items() if k in ("real", "positive", "nonnegative") and v}
