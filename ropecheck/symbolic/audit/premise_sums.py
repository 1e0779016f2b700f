"""Steps that follow from several equations the document stated before, each at positions of its own, added.

A derivation about functions it never defines (``\\theta_g(q, k, m - n) = \\theta_q(q, m) - \\theta_k(k, n)``)
often combines what it stated: it puts ``m - n`` for ``m`` in one result, uses a second as written and a third
with ``n = 0``, and adds. The step is then the sum of those instances, each times a number: every instance
holds (a premise of the document), so their sum does, and so does the step. That is what is decided here.

Design constraints. Only what :mod:`.premises` already reads is used: the premises' differences (left minus
right), each read one way, calling an unknown function, with every vector or matrix name inside one; the
positions are substituted by integer values found by matching the arguments of the unknown functions, first
with the step's applications, then once more with those of the instances so found (the ``m - n`` of one
premise that another premise is used at). The search is bounded: a few instances per premise, a few dozen in
all. The step must be a sum of the instances with rational coefficients, exactly (checked by expanding the
step minus that sum to 0; products of unknown functions keep their written order). A step that is no such sum
decides nothing: it is never REFUTED through premises. The reason names every premise line and its values.
A premise that writes a name the text gave a value in passing before (``taking $m = 0$``, then ``F(m) = 2 F(0)``)
may hold only at that value: it is never moved, and with it the sum is taken only of premises as written, each
name meaning in all of them and in the step whatever the text means by it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from typing import Any

import sympy
from sympy.core.function import AppliedUndef

__all__ = ["MAX_SUMMED_INSTANCES", "as_stated", "premise_sum"]

#: the instances of the premises tried together for one step (each premise at a few positions)
MAX_SUMMED_INSTANCES = 32
#: the instances of one premise tried at each round (the first matches found, the premise as written among them)
_PER_PREMISE = 6
#: the substitutions of one premise looked at before the best few are taken
_MAX_MATCHES = 60
#: the distinct monomials a sum may have: beyond this the step is not decided here
_MAX_MONOMIALS = 200

#: the values of a premise's positions that match its applications to a target's (:func:`.premises.substitutions`)
Matches = Callable[[Any, Any], Iterator[dict[Any, Any]]]
#: a premise (anything with the ``line`` it was stated at), its values of positions, and its difference so
_Instance = tuple[Any, dict[Any, Any], Any]


def premise_sum(step: Any, read: tuple[list[tuple[Any, Any]], list[tuple[Any, Any]]], matches: Matches) -> str | None:
    """How the step's difference ``step`` is a sum of instances of the premises ``read`` (each with its
    difference), times numbers -- ``from line 7 with n = m and line 9 as written (times -1), summed`` -- or None.

    ``read`` is the premises whose positions may be moved, then those that may hold only at a value the text gave
    a name in passing: with one of these, the sum is taken only of equations as written, each name meaning the
    same in all of them and in the step (whatever the text means by it)."""
    if not step.atoms(AppliedUndef):
        return None
    moved, written = read
    found = _instances(moved, step, [], matches)
    said = _summed(step, found)
    if said is None and found:  # the positions one instance puts in another's applications
        said = _summed(step, _instances(moved, sympy.Add(*(v for _, _, v in found)), found, matches))
    if said is None and written:
        as_written: list[_Instance] = [(p, {}, sympy.expand(d)) for p, d in (moved + written)[:MAX_SUMMED_INSTANCES]]
        said = _summed(step, as_written)
    return said


def _summed(step: Any, found: list[_Instance]) -> str | None:
    """The sum of ``found`` that is the step, said (None where there is none)."""
    weights = _weights(step, [v for _, _, v in found]) if found else None
    if weights is None:
        return None
    used = [(p, s, w) for (p, s, _), w in zip(found, weights) if w != 0]
    if not used or sympy.expand(step - sum((w * p for (_, _, p), w in zip(found, weights)), sympy.Integer(0))) != 0:
        return None  # the certificate itself, checked once more
    return _said(used)


def _instances(read: list[tuple[Any, Any]], target: Any, found: list[_Instance], matches: Matches) -> list[_Instance]:
    """``found`` with the premises' instances whose applications match those of ``target`` (new ones only)."""
    out = list(found)
    seen = {sympy.expand(v) for _, _, v in out}
    for premise, difference in read:
        for substitution in _best(difference, target, matches):
            value = sympy.expand(difference.xreplace(substitution))
            if value == 0 or value in seen or -value in seen:
                continue
            seen.add(value)
            out.append((premise, substitution, value))
            if len(out) >= MAX_SUMMED_INSTANCES:
                return out
    return out


def _best(difference: Any, target: Any, matches: Matches) -> list[dict[Any, Any]]:
    """The premise's substitutions that put the most of its applications on the target's, a few, each once."""
    calls = target.atoms(AppliedUndef)
    found: dict[str, dict[Any, Any]] = {}
    for substitution in itertools.islice(matches(difference, target), _MAX_MATCHES):
        found.setdefault(sympy.sstr(sorted(substitution.items(), key=str)), substitution)

    def rank(item: tuple[str, dict[Any, Any]]) -> tuple[int, int, str]:
        landed = len(difference.xreplace(item[1]).atoms(AppliedUndef) & calls)
        free = len(difference.xreplace(item[1]).free_symbols)
        return (-landed, free, item[0])

    return [s for _, s in sorted(found.items(), key=rank)[:_PER_PREMISE]]


def _monomials(value: Any) -> dict[Any, Any] | None:
    """The expanded ``value`` as its monomials and their rational coefficients (None when one is not rational)."""
    out: dict[Any, Any] = {}
    for term in sympy.Add.make_args(sympy.expand(value)):
        coefficient, rest = term.as_coeff_Mul()
        if not coefficient.is_Rational:
            return None
        out[rest] = out.get(rest, 0) + coefficient
    return out


def _weights(step: Any, values: list[Any]) -> list[Any] | None:
    """Rational numbers ``w`` with ``step = sum(w_i * values_i)`` exactly, or None where there are none."""
    columns = [_monomials(v) for v in values]
    target = _monomials(step)
    if target is None or any(c is None for c in columns):
        return None
    keys = sorted(set(target).union(*columns), key=sympy.default_sort_key)  # type: ignore[arg-type]
    if len(keys) > _MAX_MONOMIALS:
        return None
    matrix = sympy.Matrix([[c.get(k, 0) for c in columns] for k in keys])  # type: ignore[union-attr]
    wanted = sympy.Matrix([target.get(k, 0) for k in keys])
    try:
        solution, parameters = matrix.gauss_jordan_solve(wanted)
    except ValueError:  # no solution: the step is no such sum
        return None
    solution = solution.xreplace({p: 0 for p in parameters})
    return [sympy.nsimplify(w) for w in solution]


def _said(used: list[_Instance]) -> str:
    """``from line 7 with n = m, line 9 as written (times -1) and line 11 with m = 0 (times 2), summed``; a line
    that states more than one of them says which, by its equation as written."""
    parts = []
    for premise, substitution, weight in sorted(used, key=lambda u: (u[0].line, sympy.sstr(u[1]))):
        given = ", ".join(f"{k} = {sympy.sstr(v)}" for k, v in sorted(substitution.items(), key=lambda kv: str(kv[0])))
        which = ""
        if len({id(u[0]) for u in used if u[0].line == premise.line}) > 1:
            written = f"{premise.left.text.strip()} = {premise.right.text.strip()}"
            which = f" ({written[:60]}{'...' if len(written) > 60 else ''})"
        at = f"line {premise.line}{which}" + (f" with {given}" if given else " as written")
        parts.append(at + (f" (times {sympy.sstr(weight)})" if weight != 1 else ""))
    return "from " + (", ".join(parts[:-1]) + " and " if len(parts) > 1 else "") + f"{parts[-1]}, summed"


def as_stated(reason: str, stated: dict[str, tuple[Any, int]]) -> str:
    """``reason`` with the values the text gives in passing (``setting $m = n$``) that it uses said so: ``m = n
    as the text sets it (line 110)``; ``stated`` holds each such name's value and line. The step is decided for
    every value of the name; the note says which instance of the premise the text itself names."""
    notes = []
    for name, (value, line) in sorted(stated.items()):
        written = sympy.sstr(value)
        ways = [f"{name} = {written}"] + ([f"{written} = {name}"] if isinstance(value, sympy.Symbol) else [])
        if any(re.search(rf"(?<![\w.]){re.escape(w)}(?=,| \(| and|:|$)", reason) for w in ways):
            notes.append(f"{name} = {written} as the text sets it (line {line})")
    return reason + ("; " + ", ".join(notes) if notes else "")
