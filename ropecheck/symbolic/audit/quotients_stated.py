"""A proved step whose written quotient has a denominator that an equation stated before it makes zero.

``Given $a - b = 0$`` and then ``\\frac{(a^2 - b^2)}{a - b} = a + b``: the step is proved wherever ``a - b`` is
nonzero, but the document has said that it is zero, so its left side is not defined where the document stands and
the proof says nothing there. Such a step is UNDECIDED, and the reason names the line of the equation.

Design constraints: only the denominators the text writes are looked at (:mod:`.written_quotients`); a stated
equation counts when it reads one way, between numbers, and solves (one name at a time, linear with a number as
coefficient, :func:`.under_stated.solve_relation`) for names of the denominator so that the denominator becomes
exactly zero. Nothing is ever proved or refuted here; a verdict is only taken back.
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy import MatrixBase, Sum
from sympy.core.function import AppliedUndef

from ..readers.latex_syntax import read_quiet
from ..readers.scope import Scope
from .cancel_given import plain_names
from .premises import Premise
from .reading import Outcome
from .under_stated import scalar_sides, solve_relation
from .written_quotients import written_denominators

__all__ = ["ZERO_DENOMINATOR", "zero_under_stated_in_child"]

#: the method of the outcome that says a stated equation makes a written denominator zero
ZERO_DENOMINATOR = "zero denominator"
#: the stated equations looked at, latest first
_MAX_STATED = 24


def _difference(premise: Premise) -> Any:
    """The premise's sides' difference with plain names, or None where it is not one scalar relation."""
    sides = scalar_sides(premise)
    if sides is None:
        return None
    left, right = sides
    difference = plain_names(sympy.sympify(left - right))
    if difference == 0 or difference.has(Sum) or difference.atoms(AppliedUndef):
        return None
    return difference


def zero_under_stated_in_child(statements: list[Premise], texts: tuple[str, str], scope: Scope) -> Outcome:
    """UNDECIDED (method :data:`ZERO_DENOMINATOR`) naming the statement that makes a denominator written in
    ``texts`` zero; else PROVED (the step's verdict stands)."""
    denominators = []
    for written in [w for t in texts for w in written_denominators(t)]:
        read = read_quiet(written, scope)
        if isinstance(read, sympy.Expr) and not isinstance(read, MatrixBase) and read.free_symbols:
            denominators.append((written, plain_names(read)))
    for premise in list(reversed(statements))[:_MAX_STATED] if denominators else []:
        said = premise.left.text + premise.right.text
        kept = [(w, d) for w, d in denominators if any(s.name.split("_")[0] in said for s in d.free_symbols)]
        difference = _difference(premise) if kept else None
        if difference is None:
            continue
        for written, denominator in kept:
            names = sorted(denominator.free_symbols & difference.free_symbols, key=str)
            solved = solve_relation(difference, names) if names else None
            if solved and sympy.expand(denominator.xreplace(solved)) == 0:
                stated = f"{premise.left.text.strip()} = {premise.right.text.strip()}"
                why = (
                    f"writes a quotient by {written}, which line {premise.line}, {stated}, stated before the step, "
                    "makes zero: the side is not defined there, so the step is not decided"
                )
                return Outcome("UNDECIDED", ZERO_DENOMINATOR, why)
    return Outcome("PROVED")
