"""A step decided under the relation the document stated before it, when its counterexample breaks that relation.

A derivation states how its names relate (``$\\beta - \\alpha = \\theta$``, ``$q_0 + i q_1 = r e^{i\\phi}$``) and then
writes steps that hold only under that relation. :mod:`.stated_before` already keeps such a step from being
REFUTED by values the relation rules out; here the step is decided *under* the relation. The relation is solved
for names of the step, one equation at a time, where it is linear in the name with a number as coefficient (a
complex relation between real names is two real ones, its real and imaginary parts: ``q_0 = r cos(phi)``,
``q_1 = r sin(phi)``); the solutions are put into the step, which is then decided.

PROVED there means: wherever the relation holds, the step does; the reason names the line and the substitution.
REFUTED means: the counterexample found, completed with the solved names' values, satisfies the relation exactly,
gives each solved name a value of its domain, and breaks no other equation stated before the step (else the
step stays UNDECIDED, as before).

Design constraints: a relation with more than one reading, one between two bare names (``m = n``: a case or an
example, read as a value in passing elsewhere), one holding a function the document does not define, or one
not solved for any name of the step decides nothing; the substitution is exact (no numbers prove).
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy import MatrixBase, Sum
from sympy.core.function import AppliedUndef

from ...errors import ClaimLimitError, ClaimParseError
from ..engine.decide import decide
from ..engine.proof import Counterexample, Verdict
from ..readers.latex_syntax import AmbiguousReading
from .premises import Premise
from .reading import Outcome, step_readings
from .stated_before import first_broken

__all__ = ["decide_under_stated_in_child", "scalar_sides", "solve_relation"]

_DOMAINS = ("integer", "nonnegative", "positive", "real")


def scalar_sides(premise: Premise) -> tuple[Any, Any] | None:
    """The premise's two sides where it reads one way, each a scalar expression; else None."""
    try:
        found, _ = step_readings(premise.left, premise.right, premise.scope)
    except (ClaimParseError, ClaimLimitError, AmbiguousReading, RecursionError):
        return None
    if len(found) != 1:
        return None
    _, left, right = found[0]
    if any(isinstance(e, MatrixBase) or not isinstance(e, sympy.Expr) for e in (left, right)):
        return None
    return left, right


def _relation(premise: Premise, names: dict[str, Any]) -> Any:
    """The premise's difference in the step's symbols (by name), or None where it is not one plain scalar relation."""
    sides = scalar_sides(premise)
    if sides is None:
        return None
    left, right = sides
    if left.is_Symbol and right.is_Symbol:  # m = n: a case or an example, not a relation the step rests on
        return None
    difference = sympy.sympify(left - right)
    if difference.has(Sum) or difference.atoms(AppliedUndef):
        return None
    return difference.xreplace({x: names[x.name] for x in difference.free_symbols if x.name in names})


def _real_parts(difference: Any) -> list[Any] | None:
    """The real equations a relation is: itself, or its real and imaginary parts when it holds i between real names."""
    if not difference.has(sympy.I):
        return [difference]
    if not all(x.is_real for x in difference.free_symbols):
        return None
    re_, im_ = sympy.expand_complex(difference).as_real_imag()
    return [p for p in (sympy.expand(re_), sympy.expand(im_)) if p != 0]


def _solve_one(equation: Any, candidates: list[Any]) -> tuple[Any, Any] | None:
    """``(x, value)`` for the first candidate x the equation is linear in, with a nonzero number as coefficient."""
    equation = sympy.expand(equation)
    for x in candidates:
        if x not in equation.free_symbols or x.is_integer:
            continue
        coefficient = sympy.expand(equation.diff(x))
        if not (coefficient.is_number and coefficient.is_real and coefficient != 0):
            continue
        rest = sympy.expand(equation - coefficient * x)
        if rest.has(x):
            continue
        value = -rest / coefficient
        if x.is_real and value.is_real is not True:
            continue
        return x, value
    return None


def solve_relation(difference: Any, names: list[Any]) -> dict[Any, Any] | None:
    """Names of ``names`` solved from ``difference = 0`` (every equation it is, each solved for one name), or None."""
    parts = _real_parts(difference)
    if not parts:
        return None
    solved: dict[Any, Any] = {}
    for part in parts:
        found = _solve_one(part.xreplace(solved), [x for x in names if x not in solved])
        if found is None:
            return None
        x, value = found
        solved = {k: v.xreplace({x: value}) for k, v in solved.items()}
        solved[x] = value
    return solved


def _fits(x: Any, value: Any) -> bool:
    return all(getattr(value, f"is_{d}") is True for d in _DOMAINS if getattr(x, f"is_{d}"))


def _completed(cx: Counterexample, solved: dict[Any, Any], difference: Any) -> Counterexample | None:
    """The counterexample with the solved names' values added, where those fit and the relation holds there."""
    values = dict(cx.values)
    for x, value in solved.items():
        values[x] = sympy.expand(value.xreplace(values))
        if values[x].free_symbols or not _fits(x, values[x]):
            return None
    if sympy.expand(sympy.expand_complex(difference.xreplace(values))) != 0:
        return None
    return Counterexample(values, cx.lhs, cx.rhs, cx.difference, cx.approx, cx.entry)


def decide_under_stated_in_child(statements: list[Premise], values: dict[str, Any], lhs: Any, rhs: Any) -> Outcome:
    """PROVED or REFUTED under the statement the counterexample ``values`` breaks (see the module); else UNDECIDED."""
    step = lhs - rhs
    premise = first_broken(statements, values, step)
    names_in_step = sorted(step.free_symbols, key=str)
    by_name = {x.name: x for x in names_in_step if isinstance(x, sympy.Symbol)}
    difference = _relation(premise, by_name) if premise is not None else None
    solved = solve_relation(difference, names_in_step) if difference is not None else None
    if premise is None or difference is None or not solved:
        return Outcome("UNDECIDED")
    verdict, method, cx = decide(lhs.xreplace(solved), rhs.xreplace(solved))
    said = f"{premise.left.text.strip()} = {premise.right.text.strip()}"
    read = ", ".join(f"{x} = {v}" for x, v in solved.items())
    if verdict is Verdict.PROVED:
        reason = f"given line {premise.line}, {said}, which the document states before the step (read as {read})"
        return Outcome("PROVED", method=method, reason=reason, lhs=lhs, rhs=rhs)
    full = _completed(cx, solved, difference) if verdict is Verdict.REFUTED and cx is not None else None
    by_value = {k.name: v for k, v in full.values.items() if isinstance(k, sympy.Symbol)} if full is not None else {}
    if full is None or first_broken(statements, by_value, step) is not None:
        return Outcome("UNDECIDED")
    reason = (
        f"false where line {premise.line}, {said}, which the document states before the step, holds (read as {read})"
    )
    related = tuple(sorted(x.name for x in difference.free_symbols))
    return Outcome("REFUTED", "counterexample", reason, full, lhs, rhs, related=related)
