"""Whether a counterexample breaks an equation the document stated before the step it refutes.

A derivation states how its names relate -- ``$\\cos\\beta = \\cos(\\alpha + \\theta)$`` in passing, a condition, an
equation no reading took for a definition -- and then writes a step that holds only under that relation. The
step alone is false, and a counterexample refutes it with values (``alpha = beta = theta = pi/3``) the document
has ruled out. Before a step is REFUTED, the equations written before it whose names all have values in the
counterexample are evaluated there: where one is false, the counterexample is not one the document allows, and
the step is UNDECIDED, naming that line (:func:`broken_in_child`).

Design constraints: this only ever turns REFUTED into UNDECIDED. An equation counts as broken only where every
reading of it has all its names given values and is false there, exactly (a nonzero number) or clearly by
numerics at 50 digits (off by more than 1e-20); an equation the counterexample gives no value for, or that
cannot be read, breaks nothing. An earlier equation that is the step itself (the same difference, up to sign)
is no relation the step rests on, and an equation the audit REFUTED is no statement of the document's to
keep (the caller leaves both out). Each is read with the definitions in force where it was stated.
"""

from __future__ import annotations

import re
from typing import Any

import sympy
from sympy import MatrixBase
from sympy.core.function import AppliedUndef

from ...errors import ClaimLimitError, ClaimParseError
from ..readers.latex_syntax import AmbiguousReading
from .premises import Premise
from .reading import Outcome, step_readings
from .result import AuditStep

__all__ = ["MAX_STATED", "broken_in_child", "first_broken", "statements_to_check"]

#: the equations before a step that are evaluated (the latest so many, in the order written)
MAX_STATED = 40
#: digits of the numerics, and how far from 0 a difference is clearly nonzero
_DIGITS = 50
_CLEARLY = sympy.Float("1e-20", _DIGITS)
#: a name given a number (``d = 64``): an example or a case, which the audit reads as a value in passing instead
_VALUE_GIVEN = re.compile(r"^\s*\\?[A-Za-z]+(?:_\{?[A-Za-z0-9]+\}?)?\s*=\s*-?\d+(?:\.\d+)?\s*$")


def statements_to_check(
    s: AuditStep, stated: list[Premise], steps: list[AuditStep]
) -> tuple[list[Premise], dict[str, Any], Any] | None:
    """What :func:`broken_in_child` needs for the REFUTED step ``s``: the equations ``stated`` before it but those
    the audit REFUTED among ``steps``, kept where they write a letter the counterexample gives a value (a quick
    look), the counterexample's values by name, and the step's difference; None where there is nothing to check."""
    cx = s.counterexample
    values = {k.name: v for k, v in (cx.values if cx is not None else {}).items() if isinstance(k, sympy.Symbol)}
    if not values or s.lhs is None or s.rhs is None:
        return None
    refuted = {(t.line, t.lhs_tex, t.rhs_tex) for t in steps if t.status == "REFUTED"}
    letters = {n.split("_")[0] for n in values}
    kept = [
        p
        for p in stated
        if (p.line, p.left.text, p.right.text) not in refuted
        and not _VALUE_GIVEN.match(f"{p.left.text}={p.right.text}")  # d = 64: an example, read as a value in passing
        and any(n in p.left.text + p.right.text for n in letters)
    ]
    if not kept:
        return None
    try:
        step = s.lhs - s.rhs
    except (TypeError, ValueError):
        step = None
    return kept, values, step


def broken_in_child(statements: list[Premise], values: dict[str, Any], step: Any) -> Outcome:
    """UNDECIDED naming the first statement (of the latest :data:`MAX_STATED`) that the counterexample ``values``
    (by name) breaks; REFUTED where none is broken (the step's verdict stands). ``step`` is the step's difference:
    a statement that is the step itself is left out."""
    premise = first_broken(statements, values, step)
    if premise is not None:
        said = f"{premise.left.text.strip()} = {premise.right.text.strip()}"
        return Outcome(
            "UNDECIDED",
            reason=(
                f"the counterexample breaks line {premise.line}, {said}, which the document states before the "
                "step: the step may hold where that does, so it is not refuted"
            ),
        )
    return Outcome("REFUTED")


def first_broken(statements: list[Premise], values: dict[str, Any], step: Any) -> Premise | None:
    """The first statement (of the latest :data:`MAX_STATED`) that the values (by name) break, or None."""
    return next((p for p in statements[-MAX_STATED:] if _broken(p, values, step)), None)


def _broken(premise: Premise, values: dict[str, Any], step: Any) -> bool:
    try:
        found, _ = step_readings(premise.left, premise.right, premise.scope)
    except (ClaimParseError, ClaimLimitError, AmbiguousReading, RecursionError):
        return False
    if not found:
        return False
    for _, left, right in found:
        if isinstance(left, MatrixBase) != isinstance(right, MatrixBase):
            return False
        if isinstance(left, MatrixBase) and left.shape != right.shape:
            return False
        difference = _as_products(left - right, values)
        if step is not None and _same(difference, step):
            return False
        if not _false_at(difference, values):
            return False
    return True


def _as_products(difference: Any, values: dict[str, Any]) -> Any:
    """``r(\\cos\\alpha - ...)`` where the counterexample gives ``r`` a number: the step reads ``r`` as a number, so
    the statement's call of it on one parenthesis is that number times the parenthesis (a product written without a
    sign); calls of names the counterexample gives no value stay calls (they break nothing)."""
    calls = {
        c: sympy.Symbol(c.func.__name__) * c.args[0]
        for e in (difference if isinstance(difference, MatrixBase) else [difference])
        if isinstance(e, sympy.Basic)
        for c in e.atoms(AppliedUndef)
        if len(c.args) == 1 and c.func.__name__ in values and not c.args[0].atoms(AppliedUndef)
    }
    return difference.xreplace(calls) if calls else difference


def _same(difference: Any, step: Any) -> bool:
    try:
        if isinstance(difference, MatrixBase) or isinstance(step, MatrixBase):
            return bool(isinstance(difference, MatrixBase) and isinstance(step, MatrixBase) and difference == step)
        return sympy.expand(difference - step) == 0 or sympy.expand(difference + step) == 0
    except (TypeError, ValueError):
        return False


def _false_at(difference: Any, values: dict[str, Any]) -> bool:
    """Whether ``difference`` has all its names given values and is clearly nonzero there."""
    entries = list(difference) if isinstance(difference, MatrixBase) else [difference]
    if not all(isinstance(e, sympy.Basic) for e in entries):
        return False
    atoms = set().union(*(e.free_symbols for e in entries)) if entries else set()
    if any(not isinstance(a, sympy.Symbol) or a.name not in values for a in atoms):
        return False
    if any(e.atoms(AppliedUndef) for e in entries):
        return False  # an unknown function: no value at the counterexample
    for entry in entries:
        at = entry.xreplace({a: values[a.name] for a in entry.free_symbols})
        try:
            number = sympy.N(at, _DIGITS)
        except (TypeError, ValueError, ArithmeticError):
            continue
        if number.is_number and not number.has(sympy.nan, sympy.zoo, sympy.oo) and abs(number) > _CLEARLY:
            return True
    return False
