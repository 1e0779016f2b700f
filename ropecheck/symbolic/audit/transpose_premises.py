"""Steps among general matrices decided with a transpose the document stated before: ``B^T = -B`` or ``B^T = B``.

A derivation of the matrix-exponential form states once that its generator is skew-symmetric, ``B^T = -B``, and
then writes ``\\exp(B^T) \\exp(B) = \\exp(-B) \\exp(B)`` or ``\\exp(mB)^T \\exp(nB) = \\exp((n-m)B)``. Read with
general matrices such a step is undecided: for a general B the exponentials differ. With the stated equation the
transpose of B is -B wherever it stands, and the step may then hold by matrix algebra alone.

Design constraints. The equation is a premise the document asserts (:mod:`.premises`): a step before, PROVED or
UNDECIDED, whose sides are exactly one name transposed and that name or its negative (``\\boldsymbol{B}^{\\top} =
-\\boldsymbol{B}``, either way round), a name of one Latin letter with no subscript. A step proved here is proved
from it, and says so (and says when the premise was itself left undecided); only the latest such premise of each
name is used. Each transpose of the name in the sides as read with general matrices (transposes of products taken
inside first, and of exponentials: ``exp(X)^T = exp(X^T)``) is replaced by the name or its negative, and the step
is PROVED where the difference is then exactly the zero matrix by the rules of :mod:`.general`. Only a step that
the general reading alone left undecided is tried (its reason begins with that reading: no doubt of another kind,
such as a name whose definition could not be read). Nothing is ever REFUTED here: a difference that stays decides
nothing.
"""

from __future__ import annotations

import re
from typing import Any

import sympy
from sympy import MatrixExpr, MatrixSymbol

from ..readers.general_matrices import exponential_form
from ..readers.scope import Scope
from .document import Link
from .general import general_step
from .premises import Premise
from .reading import Outcome

__all__ = ["transpose_premises", "transposed_in_child"]

#: one Latin letter, perhaps set in bold, with no subscript
_NAME = r"(?:\\(?:boldsymbol|mathbf|bm)\s*\{\s*([A-Za-z])\s*\}|\\(?:boldsymbol|mathbf|bm)\s+([A-Za-z])|([A-Za-z]))"
#: that name transposed, the whole side
_TRANSPOSED = re.compile(r"^\s*" + _NAME + r"\s*\^\s*(?:\{\s*(?:\\top|T|\\intercal)\s*\}|\\top|T|\\intercal)\s*$")
#: that name or its negative, the whole side
_PLAIN = re.compile(r"^\s*(-?)\s*" + _NAME + r"\s*$")


def _rule(left: str, right: str) -> tuple[str, int] | None:
    """``(name, sign)`` where ``left = right`` is ``X^T = sign X`` (or ``sign X = X^T``); else None."""
    for a, b in ((left, right), (right, left)):
        t, p = _TRANSPOSED.match(a), _PLAIN.match(b)
        if t is None or p is None:
            continue
        name = next(g for g in t.groups() if g)
        if next(g for g in p.groups()[1:] if g) == name:
            return name, -1 if p.group(1) else 1
    return None


def transpose_premises(premises: list[Premise]) -> list[tuple[Premise, str, int]]:
    """The premises that state a name's transpose (``B^T = -B``), the latest of each name, with the name and sign.

    Example:
        >>> from .document import Link
        >>> p = Premise(4, Link(r"\\boldsymbol{B}^{\\top}", 4), Link(r"- \\boldsymbol{B}", 4), Scope())
        >>> [(q.line, name, sign) for q, name, sign in transpose_premises([p])]
        [(4, 'B', -1)]
    """
    found: dict[str, tuple[Premise, str, int]] = {}
    for p in premises:
        rule = _rule(p.left.text, p.right.text)
        if rule is not None:
            found[rule[0]] = (p, *rule)
    return list(found.values())


def _replaced(value: Any, name: MatrixSymbol, sign: int) -> Any:
    """``value`` with every transpose of ``name`` as ``sign * name``, its exponentials put in canonical form."""
    value = exponential_form(sympy.expand(value.doit()))
    value = value.replace(lambda e: isinstance(e, sympy.Transpose) and e.arg == name, lambda e: sign * name)
    return exponential_form(sympy.expand(value.doit()))


def transposed_in_child(lhs: Link, rhs: Link, rules: list[tuple[Premise, str, int]], scope: Scope) -> Outcome:
    """PROVED when the step, read with general matrices and each stated transpose put in, holds by matrix algebra;
    else UNDECIDED."""
    found = general_step(lhs.text, rhs.text, scope)
    if found is None or found.status != "UNDECIDED" or not isinstance(found.lhs, MatrixExpr):
        return Outcome("UNDECIDED")
    left, right = found.lhs, found.rhs
    used: list[tuple[Premise, str, int]] = []
    for premise, letter, sign in rules:
        name = next((s for s in (left - right).atoms(MatrixSymbol) if s.name == letter), None)
        if name is None or name.shape[0] != name.shape[1]:
            continue
        left, right = _replaced(left, name, sign), _replaced(right, name, sign)
        used.append((premise, letter, sign))
    if not used:
        return Outcome("UNDECIDED")
    difference = exponential_form(sympy.expand((left - right).doit()))
    if not (difference == 0 or getattr(difference, "is_ZeroMatrix", False)):
        return Outcome("UNDECIDED")
    stated = ", ".join(f"{n}^T = {'-' if s < 0 else ''}{n} (line {p.line})" for p, n, s in used)
    why = (
        f"{found.reason.split(': the sides differ')[0]}; with {stated}, the equation stated there (a premise of the "
        "document), put in for each transpose: the sides agree by the rules of matrix algebra"
    )
    if undecided := sorted({p.line for p, _, _ in used if p.undecided}):
        why += f"; line {', '.join(map(str, undecided))} is a step left undecided, taken as the document states it"
    return Outcome("PROVED", "premise", why, None, found.lhs, found.rhs)
