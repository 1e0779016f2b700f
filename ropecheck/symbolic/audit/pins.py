"""Sequences a document defines by a pattern and then pins at one index: ``h_i = ...``, and ``h_{d/2} = 0``.

A derivation by parts writes ``h_i = q_i k_i^*`` and, to make the boundary terms vanish, agrees that
``h_{d/2} = 0``: the pinned entry overrides the pattern at that index (where the pattern would give
``q_{d/2} k_{d/2}^*``). Reading such a step with the pattern alone, or with the pin alone, may read another
statement than the one written, and a verdict on it could be false either way.

What is decided here, and how:

* A pin is a value the text gives an entry in passing (inline: ``$h_{d/2} = 0$``), a number, after the pattern
  (a value given before it is overridden by the definition, which is in force from its line on); a family
  defined again in a display (``k_n = W_k (x_n + p_n)``) is no pin.
* A pin that the pattern itself gives (``S_0 = 0`` for ``S_j = \\sum_{i<j} ...``: an empty sum) overrides
  nothing; it is left alone.
* A step whose entries of a pinned sequence never meet the pinned index is read as usual, with the pattern:
  an entry outside sums must differ from it by a nonzero number, an entry ``h_{i + c}`` inside a sum over i
  must stay on one side of it over the sum's range (read in order, from its lower to its upper limit).
* Any other step that uses such a sequence is read with every pinned sequence it uses as *any* sequence, its
  pins alone holding, and PROVED only when it holds so (by :func:`~..engine.decide.telescope`, summation by
  parts, with the pins put in the boundary terms it leaves): then it holds for the document's sequence too.
  Otherwise it is not decided, and the reason names the pins.

Design constraints: a PROVED here holds for every sequence with those pins; nothing is REFUTED here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

import sympy
from sympy import Indexed, MatrixBase, Sum

from ...errors import ClaimLimitError, ClaimParseError
from ..engine.bounds import BOUNDS_NOTE
from ..engine.decide import decide, decide_le, telescope
from ..engine.proof import Counterexample, Verdict
from ..readers.latex_syntax import read_latex_side
from ..readers.latex_tree import index_sums
from ..readers.scope import Definition, Scope

__all__ = ["Pin", "PinnedVerdict", "pinned_step", "pins_in_force"]

_SUBSCRIPTED = re.compile(r"^(.+?)_\{(.+)\}$")


@dataclass(frozen=True)
class Pin:
    """``h_{d/2} = 0``: the sequence's base, the index (as an expression), its value, and whether the pattern
    the document defines the sequence by gives another value there (``overrides``)."""

    base: str
    at: Any
    value: Any
    line: int
    overrides: bool
    raw: Any = None


def pins_in_force(scope: Scope) -> list[Pin]:
    """The pins on sequences the scope defines by a pattern, each with whether it overrides the pattern."""
    out = []
    for name, d in scope.symbols.items():
        found = _SUBSCRIPTED.match(name)
        if (
            found is None
            or not d.stated_value
            or not isinstance(d.body, sympy.Expr)
            or isinstance(d.body, sympy.MatrixExpr)
        ):
            continue  # a value given in passing to an entry, a number (a family defined again is another matter)
        pattern = next((p for k, p in scope.patterns.items() if k.lstrip("\\") == found.group(1)), None)
        if pattern is None:
            continue  # d_k = 128 of no sequence defined: a value given in passing, never substituted
        if len(pattern.params) != 1 or d.line < pattern.line:
            continue  # a value given before the sequence is defined: the definition, later, is in force
        try:
            at = sympy.sympify(found.group(2), locals={x: sympy.Symbol(x) for x in re.findall(r"[A-Za-z]\w*", name)})
            given = _plain(pattern.apply([at])) if pattern is not None else d.body
        except (sympy.SympifyError, SyntaxError, TypeError, AttributeError, ClaimParseError):
            continue
        same = not isinstance(given, MatrixBase) and sympy.expand(_plain(given) - _plain(d.body)) == 0
        out.append(Pin(found.group(1), _plain(at), _plain(d.body), d.line, pattern is not None and not same, d.body))
    return out


def _plain(value: Any) -> Any:
    """The value with its symbols as plain names (the audit gives them domains; a pin compares as written)."""
    if not isinstance(value, sympy.Basic):
        return value
    value = value.doit() if value.has(Sum) else value
    return value.xreplace({s: sympy.Symbol(s.name) for s in value.free_symbols if isinstance(s, sympy.Symbol)})


def _uses(text: str, base: str) -> bool:
    return re.search(r"(?<![A-Za-z\\])\\?" + re.escape(base) + r"\s*_", text) is not None


@dataclass
class PinnedVerdict:
    """The verdict on a step read here: as :class:`~.reading.Outcome` has it."""

    status: str
    method: str
    reason: str
    counterexample: Counterexample | None = None
    lhs: Any = None
    rhs: Any = None


def pinned_step(lhs: str, rhs: str, scope: Scope, relation: str = "=") -> PinnedVerdict | None:
    """The verdict on a step that uses a pinned sequence (see the module); None where it is read as usual.

    ``relation``: ``=``, or an inequality (``\\le``, ``\\ge``: PROVED read with the sequences as any sequences,
    by :func:`~..engine.decide.decide_le`, or not decided); any other relation is only kept from a reading that
    could differ from the document's."""
    pins = [p for p in pins_in_force(scope) if _uses(lhs + " " + rhs, p.base)]
    if not pins:
        return None
    patterns = {k.lstrip("\\"): v for k, v in scope.patterns.items() if _uses(lhs + " " + rhs, k.lstrip("\\"))}
    bases = set(patterns) | {p.base for p in pins}
    generic = replace(scope, patterns={k: v for k, v in scope.patterns.items() if k.lstrip("\\") not in bases})
    generic = replace(generic, symbols={k: v for k, v in scope.symbols.items() if not _pin_name(k, bases)})
    said = ", ".join(f"{p.base}_{{{p.at}}} = {p.value} (line {p.line})" for p in pins)
    overriding = [p for p in pins if p.overrides]
    used = ", ".join(sorted({p.base for p in overriding}))
    try:
        left = read_latex_side(lhs, 0, generic)
        right = read_latex_side(rhs, 0, generic)
        left, right = index_sums(left, right, dict(scope.domains))
    except (ClaimParseError, ValueError, TypeError) as exc:  # a limit (a value given in passing) goes up
        why = f"the step uses {used}, pinned ({said}), and is not read with it as any sequence: {exc}"
        return PinnedVerdict("UNDECIDED", "none", why) if overriding else None
    if isinstance(left, MatrixBase) or isinstance(right, MatrixBase):
        return (
            PinnedVerdict("UNDECIDED", "none", f"the step uses {used}, pinned ({said}), in a matrix")
            if overriding
            else None
        )
    if relation != "=":
        return _compared(left, right, (pins, overriding, patterns), relation, said)
    if _by_parts(left - right, pins, patterns):
        defined = sorted(set(patterns) - {p.base for p in overriding})
        how = f"read with {', '.join(sorted(bases))} as any sequences, then {said}"
        how += "".join(f" and {b}'s definition" for b in defined) + " put in the boundary terms"
        return PinnedVerdict("PROVED", "summation by parts", how, None, left, right)
    entries = [x for side in (left, right) for x in _entries(side, ())]
    if all(_apart(index, lims, p) for base, index, lims in entries for p in overriding if base == p.base):
        return None
    return _faithful(left, right, (pins, patterns), scope, f"{used} read with its definition, and {said}")


def _compared(
    left: Any, right: Any, given: tuple[list[Pin], list[Pin], dict[str, Definition]], relation: str, said: str
) -> PinnedVerdict | None:
    """An inequality (or another relation) on pinned sequences: PROVED where it holds for any sequences."""
    pins, overriding, _ = given
    if relation in ("\\le", "\\leq", "≤", "\\ge", "\\geq", "≥"):
        small, big = (right, left) if relation in ("\\ge", "\\geq", "≥") else (left, right)
        verdict, method, _ = decide_le(small, big)
        if verdict == Verdict.PROVED:
            how = f"read with {', '.join(sorted({p.base for p in pins}))} as any sequences: it holds for every one"
            how += f", {BOUNDS_NOTE}" if "bounds" in method else ""
            return PinnedVerdict("PROVED", method, how, None, left, right)
    entries = [x for side in (left, right) for x in _entries(side, ())]
    if all(_apart(index, lims, p) for base, index, lims in entries for p in overriding if base == p.base):
        return None
    why = f"the step uses {', '.join(sorted({p.base for p in overriding}))} where the value the text agrees on "
    return PinnedVerdict("UNDECIDED", "none", why + f"({said}) and its definition may differ: not decided")


def _faithful(
    left: Any, right: Any, given: tuple[list[Pin], dict[str, Definition]], scope: Scope, said: str
) -> PinnedVerdict:
    """The step with each entry of a pinned sequence read as the document gives it: the pinned value at the
    pinned index, the pattern's value at any other (a ``Piecewise``), then decided as any step is."""
    pins, patterns = given
    named = {x.name: x for side in (left, right) for x in side.free_symbols if isinstance(x, sympy.Symbol)}
    # one name, one symbol: the pinned index and value with the symbols of the step (d an integer in a limit)
    same = lambda v: v.xreplace({x: named.get(x.name, x) for x in v.free_symbols if isinstance(x, sympy.Symbol)})

    def entry(e: Any) -> Any:
        base = str(e.base.label)
        if base not in patterns:
            return e
        cases = [(same(p.raw), sympy.Eq(e.indices[0], same(p.at))) for p in pins if p.base == base]
        return sympy.Piecewise(*cases, (same(patterns[base].apply([e.indices[0]])), True))

    conflict = _entry_given_twice(left, right, pins, patterns)
    if conflict:  # c_4 written as such, where c_j = 2j and c_4 = 1: which value the step means is not certain
        return PinnedVerdict("UNDECIDED", "none", conflict)
    if left.has(sympy.Abs) or right.has(sympy.Abs):  # |...| of a Piecewise: beyond the rewrites
        return PinnedVerdict("UNDECIDED", "none", f"{said}: an absolute value so read is not decided")
    try:
        sides = [side.replace(lambda x: isinstance(x, Indexed), entry) for side in (left, right)]
        left, right = index_sums(sides[0], sides[1], dict(scope.domains))
        verdict, method, cex = decide(left, right)
    except (ClaimParseError, ClaimLimitError, ValueError, TypeError) as exc:
        return PinnedVerdict("UNDECIDED", "none", f"{said}: not read so ({exc})")
    if verdict == Verdict.UNDECIDED:
        return PinnedVerdict("UNDECIDED", "none", f"{said}: neither proved nor refuted so", None, left, right)
    return PinnedVerdict(verdict.value, method, f"{said}", cex, left, right)


def _pin_name(name: str, bases: set[str]) -> bool:
    found = _SUBSCRIPTED.match(name)
    return found is not None and found.group(1).lstrip("\\") in bases


def _entries(value: Any, limits: tuple[Any, ...]) -> list[tuple[str, Any, tuple[Any, ...]]]:
    """Every sequence entry in ``value`` (an entry ``h[i]``, or a name ``h_{N}``): its base, its index and the
    limits of the sums around it (innermost last)."""
    if isinstance(value, Indexed):
        return [(str(value.base.label), value.indices[0], limits)]
    if isinstance(value, sympy.Symbol):
        found = _SUBSCRIPTED.match(value.name)
        if found is None:
            return []
        try:
            index = sympy.sympify(
                found.group(2), locals={x: sympy.Symbol(x) for x in re.findall(r"[A-Za-z]\w*", value.name)}
            )
        except (sympy.SympifyError, SyntaxError, TypeError, AttributeError):
            index = sympy.Symbol(found.group(2))  # never apart from a pin: the name is checked as pinned
        return [(found.group(1), index, limits)]
    if isinstance(value, Sum):
        inner = _entries(value.function, limits + tuple(value.limits))
        return inner + [x for lim in value.limits for b in lim[1:] for x in _entries(b, limits)]
    if isinstance(value, sympy.Basic):
        return [x for a in value.args for x in _entries(a, limits)]
    return []


def _apart(index: Any, limits: tuple[Any, ...], pin: Pin) -> bool:
    """Whether an entry's index never equals the pinned index: a nonzero number apart, or -- linear in the
    innermost summation variable it uses -- apart by numbers of one sign at the end of the range it runs toward."""
    gap = sympy.expand(_plain(index) - pin.at)
    if gap.is_number:
        return gap != 0
    for v, lo, up in reversed([tuple(_plain(x) for x in lim) for lim in limits]):
        if not gap.has(v):
            continue
        slope = sympy.diff(gap, v)
        if not slope.is_number or slope == 0:
            return False
        at_up, at_lo = sympy.expand(gap.subs(v, up)), sympy.expand(gap.subs(v, lo))
        if slope > 0:
            return bool((at_up.is_number and at_up < 0) or (at_lo.is_number and at_lo > 0))
        return bool((at_up.is_number and at_up > 0) or (at_lo.is_number and at_lo < 0))
    return False


def _by_parts(difference: Any, pins: list[Pin], patterns: dict[str, Definition]) -> bool:
    """Whether the difference telescopes to boundary terms that are 0 with the pins, and with the definitions of
    the sequences no pin overrides (at any index: they hold everywhere)."""
    left = telescope(difference)
    if left.has(Sum):
        return False
    overridden = {p.base for p in pins if p.overrides}

    def entry(e: Any) -> Any:
        base, index = str(e.base.label), sympy.expand(_plain(e.indices[0]))
        for p in pins:
            if base == p.base and sympy.expand(index - p.at) == 0:
                return p.value
        if base in patterns and base not in overridden:
            return patterns[base].apply([e.indices[0]]).doit()
        return e

    return sympy.expand(_plain(left.replace(lambda x: isinstance(x, Indexed), entry))) == 0


def _entry_given_twice(left: Any, right: Any, pins: list[Pin], patterns: dict[str, Definition]) -> str:
    """Why a step that writes a pinned entry itself (``c_4 + 2 = 3``, where ``c_j = 2j`` and then ``c_4 = 1``) is
    not decided: the document gives that entry two different values, and reading it with either one alone would
    decide the step silently on that choice; "" where the step writes no such entry."""
    names = {x.name for side in (left, right) for x in side.free_symbols if isinstance(x, sympy.Symbol)}
    for p in pins:
        if not p.overrides or f"{p.base}_{{{p.at}}}" not in names or p.base not in patterns:
            continue
        pattern = patterns[p.base]
        try:
            given = _plain(pattern.apply([p.at]))
        except (TypeError, ValueError, AttributeError, ClaimParseError):
            given = "another value"
        return (
            f"the document gives {p.base}_{{{p.at}}} two values: {p.value} (line {p.line}) and {given} by its "
            f"definition {p.base}_{pattern.params[0]} = {_plain(pattern.body)} (line {pattern.line}); which one the "
            "step uses is not certain: not decided"
        )
    return ""
