"""``\\approx`` read as "equal after rounding to the digits written", and names given only that way.

A derivation writes ``\\cos(0.02) \\approx 0.9998`` or ``R_3 \\approx [0.9996 ...]``. The first is a
step between an exact number and a rounded one: :func:`approx_in_child` decides it PROVED when every
number is within half a unit of the last digit written for it, and otherwise UNDECIDED -- people
write ``\\approx`` loosely, so a miss refutes nothing -- unless a number written is off by a factor no
loose writing explains (:func:`far_off`: beyond a factor of 2, or of the other sign): REFUTED then. The
second introduces a name known only to the digits written: :func:`approx_value_in_child` reads those
numbers, and :func:`approx_use_in_child` decides a later step that uses the name only where it is off by
more than the rounding of every number involved can explain, whatever values round to the digits
written (REFUTED then, with the written values); it is PROVED only where the sides agree whatever the
rounding errors are (``R_{5-2} = R_3``), since the name's true value is not known.

Design constraints: pure functions, run by the audit in a forked child; exact arithmetic on the
numbers as written (a decimal is the rational it spells); a bound is only used where the difference
is affine in the unknown rounding errors, so the bound is exact, not estimated.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import sympy
from sympy import MatrixBase, Symbol

from ... import isolate
from ...errors import ClaimLimitError, ClaimParseError
from ..engine.proof import Counterexample
from ..readers.latex_syntax import read_latex_side
from ..readers.limits import check_text
from ..readers.scope import Scope
from .document import Link
from .reading import (
    UNREAD,
    Outcome,
    decimal_places,
    for_every_value,
    free,
    readings_or_outcome,
    step_in_child,
    step_readings,
)
from .result import limit_reason

__all__ = [
    "UNUSED",
    "approx_in_child",
    "approx_use_in_child",
    "approx_value_in_child",
    "plain_readings",
    "within_digits",
]

#: the reason of a step that does not use the approximate names after all (the caller keeps it UNREAD)
UNUSED = "uses no name given only approximately"
#: how far a value written with ``\\approx`` may be from the exact one, as a ratio, before it is a slip: no rounding
#: or loose writing turns 0.0001 into 0.01 (a factor of 87), while 0.0210 for sin(0.02) (a factor of 1.05) is loose
FAR_RATIO = 2
#: a number as written (``-0.5``, ``0.8918``, ``1``), not part of a name (``x_1``) or of a longer number
_LITERAL = re.compile(r"(?<![\w.\\])-?\s*\d+(?:\.(\d+))?(?![\w.])")


def written_numbers(tex: str, values: list[Any], fewest: int) -> list[tuple[Any, int]] | None:
    """Each entry of a side of decimals as written, exactly, with its digits after the point, or None.

    The numbers written must be the entries, in order (row by row); an integer among decimals
    (``0``, ``1``) counts the side's fewest digits (``1`` among four-place decimals is ``1.0000``).
    """
    found = list(_LITERAL.finditer(tex))
    if len(found) != len(values):
        return None
    out = []
    for m, v in zip(found, values):
        written = sympy.Rational(re.sub(r"\s+", "", m.group(0)))
        if not isinstance(v, sympy.Basic) or v.free_symbols or abs(sympy.N(v - written, 30)) > sympy.Float(1e-12):
            return None
        out.append((written, len(m.group(1)) if m.group(1) else fewest))
    return out


def within_digits(exact: Any, rounded: Any, tex: str) -> tuple[str, str] | None:
    """``exact \\approx rounded``, ``rounded`` written as ``tex``: (PROVED or UNDECIDED, why), or None.

    PROVED when every entry of ``exact`` is within half a unit of the last digit written for it;
    REFUTED when an entry is off by a factor no loose writing explains (:func:`far_off`); otherwise
    UNDECIDED (people write ``\\approx`` loosely, so a small miss refutes nothing). None when a
    side is not closed numbers or the written numbers are not the entries.
    """
    places = decimal_places(tex)
    flat = list(exact) if isinstance(exact, MatrixBase) else [exact]
    marks = list(rounded) if isinstance(rounded, MatrixBase) else [rounded]
    if places is None or len(flat) != len(marks) or isinstance(exact, MatrixBase) != isinstance(rounded, MatrixBase):
        return None
    if isinstance(exact, MatrixBase) and exact.shape != rounded.shape:
        return None
    written = written_numbers(tex, marks, places[0])
    if written is None or any(not isinstance(e, sympy.Basic) or e.free_symbols for e in flat):
        return None
    worst = ""
    for e, (w, digits) in zip(flat, written):
        gap = abs(sympy.N(e - w, 50))
        half = sympy.Rational(1, 2 * 10**digits)
        if not gap.is_real or not gap.is_number:
            return None
        if gap > half - sympy.Rational(1, 10**12):  # a value read from a float may be off in its 15th digit
            worst = worst or f"{sympy.N(e, 12)} written as {float(w):.{digits}f} ({digits} places)"
    far = far_off(flat, written)
    if far is not None:
        return "REFUTED", far[1]
    if worst:
        return "UNDECIDED", (
            f"\\approx read as equal after rounding to the digits written: {worst} is not within half a unit of "
            f"its last digit; \\approx is written loosely, so it is not refuted (only a value off by a factor beyond "
            f"{FAR_RATIO}, or of the other sign, is)"
        )
    return "PROVED", (
        "\\approx read as equal after rounding to the digits written: every number agrees to the places it is "
        "written with"
    )


def far_off(exact: list[Any], written: list[tuple[Any, int]]) -> tuple[int, str] | None:
    """The first entry written with ``\\approx`` that no loose rounding explains: (its index, why), or None.

    An entry is off when the written value is not 0, is more than a whole unit of its last digit from the
    exact one, and has the other sign or is more than :data:`FAR_RATIO` times (or less than a
    :data:`FAR_RATIO`-th of) it. A written 0 is never off (a small value said to vanish), nor is one that
    only misses its last digit.
    """
    for k, (e, (w, digits)) in enumerate(zip(exact, written)):
        value = sympy.N(e, 50)
        if w == 0 or not value.is_real or abs(value - w) <= sympy.Rational(1, 10**digits):
            continue
        shown = f"{sympy.N(e, 12)} written as {float(w):.{digits}f}"
        if value == 0 or sympy.sign(value) != sympy.sign(w):
            off = "of the other sign" if value != 0 else "not 0, while the value is"
        elif not sympy.Rational(1, FAR_RATIO) <= abs(w / value) <= FAR_RATIO:
            off = f"off by a factor of {sympy.N(max(abs(w / value), abs(value / w)), 3)}, beyond {FAR_RATIO}"
        else:
            continue
        why = (
            f"\\approx read as equal up to loose rounding: {shown} is {off}, and more than a whole unit of its "
            "last digit away, which no rounding explains"
        )
        return k, why
    return None


def approx_in_child(lhs: Link, rhs: Link, scope: Scope) -> Outcome:
    """``A \\approx B`` with B written as decimals: every reading decided as equal after rounding (never REFUTED)."""
    rounded_link = rhs if decimal_places(rhs.text) else lhs
    if decimal_places(rounded_link.text) is None:
        return _approx_exactly(lhs, rhs, scope)
    readings, unread = readings_or_outcome(lhs, rhs, scope)
    if unread is not None:  # stopped at a value given in passing: decided for every value instead
        return for_every_value(approx_in_child, lhs, rhs, scope, unread)
    isolate.send(("read", readings[0][1], readings[0][2]))
    judged = []
    for _, left, right in readings:
        exact, rounded = (left, right) if rounded_link is rhs else (right, left)
        judged.append(within_digits(exact, rounded, rounded_link.text))
    left, right = readings[0][1], readings[0][2]
    if any(j is None for j in judged):
        why = f"{rhs.relation} is decided only between closed numbers, one side written as decimals"
        return Outcome("UNDECIDED", reason=why, lhs=left, rhs=right)
    if all(j is not None and j[0] == "PROVED" for j in judged):
        return Outcome("PROVED", "rounded", judged[0][1], None, left, right)  # type: ignore[index]
    if all(j is not None and j[0] == "REFUTED" for j in judged):
        return _far_refuted(left, right, rounded_link, rounded_link is rhs, judged[0][1])  # type: ignore[index]
    why = next(j[1] for j in judged if j is not None and j[0] != "PROVED")
    return Outcome("UNDECIDED", reason=why, lhs=left, rhs=right)


def _far_refuted(left: Any, right: Any, rounded: Link, rounded_right: bool, why: str) -> Outcome:
    """``A \\approx B`` off by a factor no rounding explains (:func:`far_off`): REFUTED, with both values of the
    entry that is off (the written one as the rational it spells)."""
    exact, marks = (left, right) if rounded_right else (right, left)
    places = decimal_places(rounded.text)
    written = written_numbers(rounded.text, _entries(marks), places[0]) if places is not None else None
    found = far_off(_entries(exact), written) if written is not None else None
    if found is None:  # not met again on the reading shown: not refuted
        return Outcome("UNDECIDED", reason=why, lhs=left, rhs=right)
    k = found[0]
    e, w = _entries(exact)[k], written[k][0]  # type: ignore[index]
    a, b = (e, w) if rounded_right else (w, e)
    entry = divmod(k, left.cols) if isinstance(left, MatrixBase) else None
    cex = Counterexample({}, a, b, a - b, str(sympy.N(a - b, 20)), entry)
    return Outcome("REFUTED", "rounded", why, cex, left, right)


def _approx_exactly(lhs: Link, rhs: Link, scope: Scope) -> Outcome:
    """``A \\approx B`` with no decimals (``\\frac{n}{\\beta\\lambda} \\simeq \\frac{n}{\\beta}``): PROVED when the
    sides are exactly equal, else UNDECIDED -- what is neglected is not said, so a difference refutes nothing."""
    o = step_in_child(replace(lhs, relation=""), replace(rhs, relation="="), scope)
    if o.status == "PROVED":
        o.reason = "; ".join(x for x in (f"{rhs.relation} holds exactly: the sides are equal", o.reason) if x)
    if o.status != "REFUTED":
        return o
    why = (
        f"{rhs.relation} between sides that are not equal: the difference is what the approximation neglects, "
        "so it refutes nothing"
    )
    return Outcome("UNDECIDED", "none", why, None, o.lhs, o.rhs)


# --------------------------------------------------------------------------- a name given only with \approx


def approx_value_in_child(name: Link, value: Link, scope: Scope) -> Outcome:
    """``R_3 \\approx [0.9996 ...]``: the name (``lhs``), the numbers as written (``rhs``, exact) and the digits
    of each (``method``, comma-separated), or UNREAD when the value is not numbers written as decimals."""
    places = decimal_places(value.text)
    try:
        check_text(value.text)
        symbol = read_latex_side(name.text, 0, scope)
        read = read_latex_side(value.text, 0, scope)
    except (ClaimParseError, ClaimLimitError, RecursionError) as exc:
        return Outcome(UNREAD, reason=str(exc))
    entries = list(read) if isinstance(read, MatrixBase) else [read]
    written = written_numbers(value.text, entries, places[0]) if places is not None else None
    if not isinstance(symbol, Symbol) or written is None:
        return Outcome(UNREAD, reason="the value is not numbers written as decimals")
    exact = [w for w, _ in written]
    body = sympy.Matrix(read.rows, read.cols, exact) if isinstance(read, MatrixBase) else exact[0]
    return Outcome("DEFINED", ",".join(str(d) for _, d in written), lhs=symbol, rhs=body)


def _entries(value: Any) -> list[Any]:
    return list(value) if isinstance(value, MatrixBase) else [value]


def _exact(value: Any) -> Any:
    """A value read from the text with its decimals as the rationals they spell (the reader reads them as floats)."""
    return value.applyfunc(_exact) if isinstance(value, MatrixBase) else sympy.nsimplify(value, rational=True)


def _beyond_rounding(left: Any, right: Any, units: dict[Symbol, Any], rounded: Link) -> tuple[int, Any, Any] | None:
    """The first entry where ``left - right`` is off by more than every rounding can explain: (its index, the
    gap, the bound), or None. Each unknown rounding error (a symbol of ``units``) may be up to a whole unit
    of its last digit, as may each decimal of the right side; the difference must be affine in the errors."""
    lefts, rights = _entries(left), _entries(right)
    places = decimal_places(rounded.text)
    side = written_numbers(rounded.text, rights, places[0]) if places is not None else None
    for k, (a, b) in enumerate(zip(lefts, rights)):
        diff = sympy.expand(_exact(a) - _exact(b))
        errors = [s for s in diff.free_symbols if s in units]
        if diff.free_symbols - set(units):
            return None
        if errors and sympy.Poly(diff, *errors).total_degree() > 1:
            return None
        gap = abs(diff.subs({s: 0 for s in errors}))
        bound = sum((abs(diff.coeff(s)) * units[s] for s in errors), sympy.Integer(0))
        if side is not None:
            bound += sympy.Rational(1, 10 ** side[k][1])
        elif places is not None:
            bound += sympy.Rational(1, 10 ** places[0])
        if sympy.N(gap - bound, 30) > 0:
            return k, gap, bound
    return None


def _same(left: Any, right: Any) -> bool:
    """Whether two sides are equal as written, their unknown rounding errors kept as symbols."""
    if isinstance(left, MatrixBase) != isinstance(right, MatrixBase):
        return False
    if isinstance(left, MatrixBase) and left.shape != right.shape:
        return False
    return all(sympy.expand(_exact(a) - _exact(b)) == 0 for a, b in zip(_entries(left), _entries(right)))


def plain_readings(lhs: Link, rhs: Link, scope: Scope) -> tuple[list[tuple[str, Any, Any]], Outcome | None]:
    """The step's readings, or none and why: a limit reached (UNDECIDED) or nothing read (UNREAD)."""
    try:
        readings, problem = step_readings(lhs, rhs, scope)
    except (ClaimLimitError, RecursionError) as exc:
        return [], Outcome("UNDECIDED", reason=limit_reason(exc))
    if not readings:
        return [], Outcome(UNREAD, reason=problem or "cannot read the step")
    return readings, None


def approx_use_in_child(lhs: Link, rhs: Link, scope: Scope, units: dict[Symbol, Any]) -> Outcome:
    """A step that uses names given only with ``\\approx`` (their entries in ``scope`` are the numbers written
    plus an unknown error, a symbol of ``units``): REFUTED where it is off beyond every rounding, in every
    reading; otherwise UNDECIDED. UNREAD with :data:`UNUSED` when no reading uses those names."""
    readings, refused = plain_readings(lhs, rhs, scope)
    if refused is not None:
        return refused
    if not any((free(a) | free(b)) & set(units) for _, a, b in readings):
        return Outcome(UNREAD, reason=UNUSED)
    isolate.send(("read", readings[0][1], readings[0][2]))
    left, right = readings[0][1], readings[0][2]
    zero = {s: 0 for s in units}
    if all(_same(a, b) for _, a, b in readings):
        why = (
            "uses a name given only as \\approx, but the sides agree whatever values round to the digits written "
            "(with the rounding errors unknown)"
        )
        return Outcome("PROVED", "identity", why, None, left.subs(zero), right.subs(zero))
    found = [_beyond_rounding(a, b, units, rhs) for _, a, b in readings]
    if any(f is None for f in found):
        why = (
            "uses a name given only as \\approx: decided only where it is off by more than the rounding of the "
            "digits written can explain; here it is not"
        )
        return Outcome("UNDECIDED", reason=why, lhs=left.subs(zero), rhs=right.subs(zero))
    k, gap, bound = found[0]  # type: ignore[misc]
    a, b = _exact(_entries(left)[k]).subs(zero), _exact(_entries(right)[k]).subs(zero)
    entry = divmod(k, left.cols) if isinstance(left, MatrixBase) else None
    used = (free(left) | free(right)) & set(units)
    given = {Symbol(k): d.body.subs(zero) for k, d in scope.symbols.items() if free(d.body) & used}
    cex = Counterexample(given, a, b, a - b, str(sympy.N(a - b, 20)), entry)
    why = (
        f"off by {sympy.N(gap, 4)} (entry {k + 1}), more than the {sympy.N(bound, 4)} that rounding every number "
        "written (a whole unit of its last digit) can explain, whatever values round to the digits written"
    )
    return Outcome("REFUTED", "rounded", why, cex, left.subs(zero), right.subs(zero))
