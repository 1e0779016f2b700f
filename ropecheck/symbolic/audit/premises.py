"""Steps that follow from an equation the document stated before: that equation at other positions.

A derivation states a requirement or a result once, ``R_f(q, m) R_f(k, n) = R_g(q, k, m - n)``, and then
uses it at chosen positions: with ``n = m`` it is ``R_f(q, m) R_f(k, m) = R_g(q, k, 0)``. Such a step is no
identity of its own -- ``R_f`` and ``R_g`` are unknown functions -- but it is an exact instance of the earlier
equation, and so it is PROVED *from* it; the verdict names the line and the positions given.

Design constraints. The earlier equation is a premise the document asserts: a step proved here is proved
from it, and says so; a step that is no instance of any premise decides nothing here, so a step is never
REFUTED through a premise. Only position and index names (those of integer domain) are substituted, each
by an integer value found by matching the arguments of the unknown functions (linear equations in the
positions); every other name stands for itself. The step, or the step with its sides swapped, must be the
premise so substituted after expanding both, exactly, or the premise at two such choices, one minus the other
(both instances hold, so their difference does; every position of both fixed by the step). The values of
unknown functions may be vectors or matrices, so their products keep their written order
(:attr:`.scope.Scope.ordered_functions`); a name the document writes as a vector or matrix may stand only as
a whole argument of such a function (``R_f(q, m)``: compared as a name, never multiplied), or the step is not
decided here. Premises are the steps before,
PROVED or UNDECIDED (an UNREAD or REFUTED one is no premise), and the equations written with ``:=`` that define
no new name (stated by definition), each read with the definitions in force where it was stated. A premise that
writes a name the text gave a value in passing before (``setting $m = 0$``) may hold only at that value: it is
used only as written, in a sum of premises (:mod:`.premise_sums`), never at other positions. A step that is no
single instance may still be a sum of several (:mod:`.premise_sums`); the premises tried for it are those that
call what the step calls, then those that call what these call.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import sympy
from sympy import MatrixBase
from sympy.core.function import AppliedUndef

from ...errors import ClaimLimitError, ClaimParseError
from ..readers.latex_syntax import AmbiguousReading
from ..readers.scope import Scope
from .document import Link
from .premise_sums import as_stated, premise_sum
from .reading import Outcome, names, step_readings

__all__ = ["MAX_PREMISES", "Premise", "called_names", "premise_in_child", "premises_for", "substitutions"]

#: the premises tried for one step, latest first: a derivation uses what it stated recently
MAX_PREMISES = 24
#: the substitutions tried against one premise (each a choice of which applications correspond)
_MAX_TRIES = 400
_CALL = re.compile(r"(\\?[A-Za-z]+(?:_\{[^{}]*\}|_\\?[A-Za-z0-9]+)?)\s*(?:\\left\s*)?\(")
_NOT_UNKNOWN = re.compile(r"\\?(?:left|right|cos|sin|tan|cot|sec|csc|exp|log|ln|sqrt|frac|[bB]igg?[lr]?|Re|Im)$")


@dataclass(frozen=True)
class Premise:
    """An equation the document stated, as written: its line, its two sides and the definitions then in force."""

    line: int
    left: Link
    right: Link
    scope: Scope
    undecided: bool = False  # a step left UNDECIDED: not known to hold, so what follows from it is not proved


def called_names(text: str) -> set[str]:
    """The names written as called (``R_f(``, ``\\Theta_g (``), but for known functions and brackets."""
    found = {re.sub(r"\s+", "", m.group(1)) for m in _CALL.finditer(text)}
    return {n for n in found if not _NOT_UNKNOWN.match(n.split("_")[0])}


def premises_for(left: Link, right: Link, premises: list[Premise]) -> list[Premise]:
    """The premises that call a function the step calls (the only ones it can be an instance of), latest first,
    then those that call a function one of them calls (a sum of instances may use them, see :mod:`.premise_sums`)."""
    called = called_names(left.text + " " + right.text)
    if not called:
        return []
    shared = [p for p in reversed(premises) if called & _called(p)][:MAX_PREMISES]
    if not shared:
        return []
    further = set().union(*(_called(p) for p in shared))
    beside = [p for p in reversed(premises) if p not in shared and further & _called(p)]
    return shared + beside[: MAX_PREMISES - len(shared)]


def _called(premise: Premise) -> set[str]:
    return called_names(premise.left.text + " " + premise.right.text)


def premise_in_child(lhs: Link, rhs: Link, premises: list[Premise], scope: Scope) -> Outcome:
    """PROVED when every reading of the step is an instance of one premise (the latest that fits), else UNDECIDED."""
    # a name given a value in passing ($m = n$) is free here: an instance of a premise holds at every value
    free = {k: d for k, d in scope.symbols.items() if not d.stated_value}
    ordered = replace(scope, ordered_functions=True, symbols=free)
    readings = _readings(lhs, rhs, ordered)
    if not readings:
        return Outcome("UNDECIDED")
    every = [(p, *d) for p in premises if (d := _premise_difference(p, scope.matrix_names)) is not None]
    called = called_names(lhs.text + " " + rhs.text)
    said = _found(readings, every, called, scope)
    if said is None:
        return Outcome("UNDECIDED")
    left, right = readings[0]
    several = any(s.endswith(", summed") for s in said)
    stated = (
        "equations stated there, at these values (premises"
        if several
        else "equation stated there, at these values (a premise"
    )
    why = "; ".join(dict.fromkeys(said)) + f": the {stated} of the document)"
    if taken := sorted({p.line for p in premises if p.undecided} & _lines_named(said)):  # said, never hidden
        lines = ", ".join(map(str, taken))
        why += f"; line {lines} is a step left undecided, taken as the document states it"
    given = {k: (d.body, d.line) for k, d in scope.symbols.items() if d.stated_value and isinstance(d.body, sympy.Expr)}
    why = as_stated(why, given)
    return Outcome("PROVED", "premise", why, None, left, right)


def _found(readings: list[tuple[Any, Any]], every: list[tuple[Premise, Any, bool]], called: set[str],
           scope: Scope) -> list[str] | None:  # fmt: skip
    """How each reading of the step follows from the premises ``every`` (each with its difference and whether it
    holds only as written), said; None where one reading does not."""
    read = [(p, d) for p, d, fixed in every if not fixed and called & _called(p)]  # one instance: what the step calls
    # several premises, added (see .premise_sums): those that may hold only at a value given in passing, as written
    summing = ([(p, d) for p, d, fixed in every if not fixed], [(p, d) for p, d, fixed in every if fixed])
    said: list[str] = []
    for left, right in readings:
        difference = left - right
        if not _opaque(difference, scope.matrix_names):
            return None
        hit = next(((p, s) for p, d in read if (s := instance(difference, d)) is not None), None)
        twice = None if hit is not None else next(filter(None, (_at_two(difference, p, d) for p, d in read)), None)
        found = _said(*hit) if hit is not None else twice or premise_sum(difference, summing, substitutions)
        if found is None:
            return None
        said.append(found)
    return said


def _lines_named(said: list[str]) -> set[int]:
    """The lines the sayings of :func:`_found` name (``from line 46 with n = m``)."""
    return {int(n) for text in said for n in re.findall(r"\bline (\d+)", text)}


def _at_two(step: Any, premise: Premise, difference: Any) -> str | None:
    """How the step is the premise at two choices of positions, one minus the other (``R_f(q, m) R_f(k, m) =
    R_f(q, 0) R_f(k, 0)``: both sides equal ``R_g(q, k, 0)`` by ``R_f(q, m) R_f(k, n) = R_g(q, k, m - n)``, at
    ``n = m`` and at ``m = n = 0``), or None. Both are instances, so their difference holds as well."""
    positions = sorted((s for s in difference.free_symbols if s.is_integer), key=str)
    if not positions:
        return None
    copies = [{p: sympy.Dummy(p.name, integer=True) for p in positions} for _ in range(2)]
    found = instance(step, difference.xreplace(copies[0]) - difference.xreplace(copies[1]))
    if found is None:
        return None
    given = [{p: found.get(d, d) for p, d in copy.items()} for copy in copies]
    if any(v.has(*(d for copy in copies for d in copy.values())) for g in given for v in g.values()):
        return None  # a position no argument fixes: said with a name of its own, not the step's
    both = sorted(_said(premise, {p: v for p, v in g.items() if v != p}) for g in given)  # the same every run
    return f"{both[0]}, and {both[1].replace(f'from line {premise.line} ', '', 1)}, one minus the other"


def _said(premise: Premise, substitution: dict[Any, Any]) -> str:
    given = ", ".join(f"{k} = {sympy.sstr(v)}" for k, v in sorted(substitution.items(), key=lambda kv: str(kv[0])))
    return f"from line {premise.line}" + (f" with {given}" if given else " as written")


def _readings(lhs: Link, rhs: Link, scope: Scope) -> list[tuple[Any, Any]]:
    """The step's readings as two numbers each (none when a side is a matrix or the step cannot be read)."""
    try:
        found, _ = step_readings(lhs, rhs, scope)
    except (ClaimParseError, ClaimLimitError, AmbiguousReading, RecursionError):
        return []
    out = [(a, b) for _, a, b in found]
    if any(isinstance(e, MatrixBase) or not isinstance(e, sympy.Expr) for pair in out for e in pair):
        return []
    return out


def _premise_difference(premise: Premise, matrix_names: frozenset[str]) -> tuple[Any, bool] | None:
    """The premise's left side minus its right, read with the definitions in force where it was stated (a name
    defined only later may mean something else there), when it reads one way only and calls an unknown function;
    and whether it may hold only as written. A name the text gave a value in passing before ($m = 0$) and written
    in the premise is read as a name (as in a step), but the premise may hold only at that value: it is used only
    as written, its positions never moved (see :mod:`.premise_sums`); where it also writes every name of that
    value ($m = n$, then R(m) R(n)) it is not used."""
    symbols = premise.scope.symbols
    free = {k: d for k, d in symbols.items() if not d.stated_value}
    scope = replace(premise.scope, ordered_functions=True, symbols=free)
    found = _readings(premise.left, premise.right, scope)
    if len(found) != 1:
        return None
    difference = found[0][0] - found[0][1]
    if not difference.atoms(AppliedUndef) or not _opaque(difference, matrix_names | scope.matrix_names):
        return None
    written = names(difference)
    given = {
        k: names(d.body) if isinstance(d.body, sympy.Basic) else set() for k, d in symbols.items() if d.stated_value
    }
    if any(name in written and value and value <= written for name, value in given.items()):
        return None
    return difference, bool(written & set(given))


def _opaque(value: Any, matrix_names: frozenset[str]) -> bool:
    """Whether every vector or matrix name stands only as a whole argument of an unknown function."""
    calls = value.atoms(AppliedUndef)
    for call in calls:
        for arg in call.args:
            if names(arg) & matrix_names and not isinstance(arg, sympy.Symbol):
                return False
    hidden = value.xreplace({c: sympy.Dummy() for c in calls})
    return not (names(hidden) & matrix_names)


def instance(step: Any, premise: Any) -> dict[Any, Any] | None:
    """Integer values of the premise's position names that make it the step (``step = ±premise``), or None.

    ``step`` and ``premise`` are differences of two sides. The positions are first renamed, so that the
    premise's ``m`` is free to be the step's ``m - 1``; a position no argument fixes keeps its own name.
    """
    positions = sorted((s for s in premise.free_symbols if s.is_integer), key=str)
    fresh = {p: sympy.Dummy(p.name, integer=True) for p in positions}
    renamed = premise.xreplace(fresh)
    back = {d: p for p, d in fresh.items()}
    for solution in itertools.islice(_solutions(renamed, step, list(back)), _MAX_TRIES):
        values = {d: sympy.sympify(solution.get(d, d)).xreplace(back) for d in back}
        if not all(v.is_integer for v in values.values()):
            continue
        candidate = renamed.xreplace(solution).xreplace(back)
        if _same_or_swapped(step, candidate):
            return {back[d]: v for d, v in values.items() if v != back[d]}
    return None


def substitutions(premise: Any, target: Any) -> Iterator[dict[Any, Any]]:
    """Integer values of the premise's position names that make applications of its unknown functions those of
    ``target``, one choice of which correspond at a time (the premise as written among them), at most as many as
    :func:`instance` tries; a position no argument fixes keeps its own name (left out of the values)."""
    positions = sorted((s for s in premise.free_symbols if s.is_integer), key=str)
    fresh = {p: sympy.Dummy(p.name, integer=True) for p in positions}
    back = {d: p for p, d in fresh.items()}
    for solution in itertools.islice(_solutions(premise.xreplace(fresh), target, list(back)), _MAX_TRIES):
        values = {d: sympy.sympify(solution.get(d, d)).xreplace(back) for d in back}
        if all(v.is_integer for v in values.values()):
            yield {back[d]: v for d, v in values.items() if v != back[d]}


def _same_or_swapped(step: Any, candidate: Any) -> bool:
    return sympy.expand(step - candidate) == 0 or sympy.expand(step + candidate) == 0


def _solutions(premise: Any, step: Any, unknowns: list[Any]) -> Iterator[dict[Any, Any]]:
    """Substitutions of the unknowns that match applications of the premise to the step's, one choice at a time."""
    mine = [c for c in _calls(premise) if c.free_symbols & set(unknowns)]
    theirs = _calls(step)
    yield from _match(mine, theirs, unknowns, {})


def _calls(value: Any) -> list[Any]:
    return sorted(value.atoms(AppliedUndef), key=sympy.default_sort_key)


def _match(mine: list[Any], theirs: list[Any], unknowns: list[Any], solved: dict[Any, Any]) -> Iterator[dict[Any, Any]]:
    if not mine:
        yield solved
        return
    first, rest = mine[0], mine[1:]
    for other in theirs:
        if other.func == first.func and len(other.args) == len(first.args):
            more = _unify(first, other, unknowns, solved)
            if more is not None:
                yield from _match(rest, theirs, unknowns, more)
    yield from _match(rest, theirs, unknowns, solved)  # this application matches none of the step's


def _unify(mine: Any, other: Any, unknowns: list[Any], solved: dict[Any, Any]) -> dict[Any, Any] | None:
    """``solved`` extended so that the premise's application equals the step's, argument by argument."""
    equations = [sympy.expand(a.xreplace(solved) - b) for a, b in zip(mine.args, other.args)]
    equations = [e for e in equations if e != 0]
    if not equations:
        return solved
    left = [u for u in unknowns if u not in solved]
    if any(not (e.free_symbols & set(left)) for e in equations):
        return None  # an argument without an unknown that differs: these applications do not correspond
    if any(not _linear(e, left) for e in equations):
        return None
    quick = _one_by_one(equations, left)
    try:
        found = quick if quick is not None else sympy.solve(equations, left, dict=True)
    except (NotImplementedError, ValueError, TypeError):
        return None
    if len(found) != 1:
        return None
    out = {k: v.xreplace(found[0]) for k, v in solved.items()}
    out.update(found[0])
    return out


def _one_by_one(equations: list[Any], unknowns: list[Any]) -> list[dict[Any, Any]] | None:
    """The solutions of linear equations that each fix one unknown by a number times it (``m - n - 1``: m, once
    n is known), solved in turn: what :func:`sympy.solve` finds (one, or none where a value is surely no integer
    and the unknown is one), without its cost; None where an equation leaves a choice (:func:`sympy.solve` then)."""
    values: dict[Any, Any] = {}
    for equation in equations:
        rest = sympy.expand(equation.xreplace(values))
        if rest == 0:
            continue
        here = [u for u in unknowns if rest.has(u)]
        if len(here) != 1:
            return None
        coefficient = rest.coeff(here[0])
        if not coefficient.is_Number or coefficient == 0:
            return None
        value = sympy.expand(-(rest - coefficient * here[0]) / coefficient)
        if value.is_integer is False and here[0].is_integer:
            return []
        values[here[0]] = value
    return [values]


def _linear(equation: Any, unknowns: list[Any]) -> bool:
    try:
        return sympy.Poly(equation, *[u for u in unknowns if u in equation.free_symbols]).total_degree() <= 1
    except sympy.PolynomialError:
        return False
