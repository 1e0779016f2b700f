"""Inequalities linked by implication arrows: ``2x \\lt 6 \\implies x \\lt 3 \\implies x + 1 \\lt 4``.

A derivation of a bound (how far a context can be extended, which dimensions a scale touches) writes a condition
and then what follows from it, one inequality after another, each linked to the one before by ``\\implies``,
``\\Rightarrow``, ``\\Longrightarrow``, ``⟹`` or ``=>``. What it asserts is each implication, not each inequality:
the first inequality of such a run is a condition (:func:`implied_run` finds it; the audit lists it among the
conditions), and each later one is a step given the one before it (:func:`implication_in_child` decides it).

An implication is PROVED when the larger side minus the smaller of the step is that of the row before (or of the
row before with ``\\log`` or ``\\exp`` taken of both its sides, or removed from both) times a factor that is
positive for every value of the names (a positive number; an expression positive under the domains, which a bound
the text states may give), plus, at most, a part shown nonnegative: wherever the row before holds, the step holds.
Adding one expression to both sides, multiplying or dividing both by a positive number, a sign flip that reverses
the relation: all are such a factor. ``\\log`` is taken of (or removed from) both sides only where both are
positive under the domains.

Design constraints. The run is read only between rows that are each one inequality of two sides, linked by an
arrow, with nothing but spacing, alignment and row breaks beside it. Both rows must read one way only, as real
numbers; a strict step needs a strict row before it, unless what is added is a positive number. Nothing that
holds for every value is lost: the caller keeps a step its own reading PROVED. REFUTED only where the step is the
row before times a negative number (the direction kept where it had to turn), the row before names no value
given in passing, and exact values that keep every bound the text states make that row hold strictly (so the step
fails there, as it fails wherever that row holds): then the implication is wrong for every reading. Anything
else is UNDECIDED, with what was found.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

import sympy

from ..engine.decide import decide_le
from ..engine.proof import Counterexample, Verdict
from ..readers.scope import Scope, domain_key
from .document import Chain, Link
from .reading import Outcome, names
from .restated import one_way
from .stated_signs import keeps_bound

__all__ = ["ImpliedRun", "implication_in_child", "implied_run"]

#: the arrows that link a row to what follows from it
_IMPLICATION_ARROWS = ("\\Rightarrow", "\\Longrightarrow", "\\implies", "=>", "==>", "⇒", "⟹")
#: the relations of one inequality (as the chain reader writes them); the strict ones; those with the left larger
_ORDER_RELATIONS = ("\\le", "\\leq", "≤", "\\ge", "\\geq", "≥", "\\lt", "\\gt")
_STRICT_ORDER, _LEFT_LARGER_ORDER = ("\\lt", "\\gt"), ("\\ge", "\\geq", "≥", "\\gt")
#: what may stand between two rows beside the one arrow: spacing, alignment, row breaks, a tag
_ROW_GAP = r"(?:\s|\\\\|&|~|\\[,;:! ]|\\q?quad(?![A-Za-z])|\\(?:nonumber|notag)(?![A-Za-z])|\\tag\*?\{[^{}]*\})*"
_ARROW_GAP = re.compile(
    _ROW_GAP + r"(?P<arrow>\\(?:Rightarrow|Longrightarrow|implies)(?![A-Za-z])|==?>|[⇒⟹])" + _ROW_GAP
)
#: values tried, in turn, for a name when looking for where the row before holds (exact, small)
_TRIED_VALUES = tuple(sympy.Rational(v) for v in ("1", "2", "3", "1/2", "5", "10", "-1", "-2", "0", "1/3", "-1/2"))


@dataclass(frozen=True)
class ImpliedRun:
    """The rows of one display that a run of implications poses: ``conditions`` (chain index -> the arrow after
    it), the first inequality of each run; ``given`` (chain index -> the index of the row it follows from)."""

    conditions: dict[int, str] = field(default_factory=dict)
    given: dict[int, int] = field(default_factory=dict)

    def roles(self, read: list[Chain]) -> dict[Link, tuple[str, tuple[Link, Link] | None]]:
        """By the first side of each chain the run poses: the arrow that poses it as a condition (else ""), and the
        two sides of the row it follows from (None for a condition)."""
        out: dict[Link, tuple[str, tuple[Link, Link] | None]] = {}
        for k, arrow in self.conditions.items():
            out[read[k].links[0]] = (arrow, None)
        for k, before in self.given.items():
            out[read[k].links[0]] = ("", (read[before].links[0], read[before].links[1]))
        return out


def _one_inequality(chain: Chain) -> bool:
    links = chain.links
    return len(links) == 2 and links[1].relation in _ORDER_RELATIONS and bool(links[0].text and links[1].text)


def _offset(link: Link, text: str, lines: Any) -> int | None:
    """Where ``link`` starts in the document, or None where its text is not found there as written."""
    starts = getattr(lines, "starts", None)
    if not starts or not 0 < link.line <= len(starts):
        return None
    at = starts[link.line - 1] + link.column
    return at if text[at : at + len(link.text)] == link.text else None


def _arrow_between(text: str, before: Chain, after: Chain, lines: Any) -> str:
    """The arrow that links ``before`` to ``after`` (``\\implies``, or one at a row's end or start), or ""."""
    if before.then in _IMPLICATION_ARROWS:
        return before.then
    if before.range:
        return ""
    end, start = _offset(before.links[-1], text, lines), _offset(after.links[0], text, lines)
    if end is None or start is None:
        return ""
    end += len(before.links[-1].text)
    m = _ARROW_GAP.fullmatch(text, end, start) if end <= start else None
    return m.group("arrow") if m else ""


def implied_run(text: str, read: list[Chain], lines: Any, *, continued: bool = False) -> ImpliedRun:
    """The conditions and implied steps of a display's chains ``read`` (see the module docstring). A display that
    goes on from the one before (``continued``) has its first chain from there: it takes no part.

    Example:
        >>> from ropecheck.symbolic.audit.document import math_blocks, chains
        >>> doc = "$$2x < 6 \\\\implies x < 3 \\\\implies x + 1 < 4$$"
        >>> blocks, lines = math_blocks(doc)
        >>> implied_run(doc, chains(blocks[0], lines), lines)
        ImpliedRun(conditions={0: '\\\\implies'}, given={1: 0, 2: 1})
    """
    out = ImpliedRun()
    for k in range(1 if continued else 0, len(read) - 1):
        if not (_one_inequality(read[k]) and _one_inequality(read[k + 1])):
            continue
        arrow = _arrow_between(text, read[k], read[k + 1], lines)
        if not arrow:
            continue
        out.given[k + 1] = k
        if k not in out.given:
            out.conditions[k] = arrow
    return out


# --------------------------------------------------------------------------- deciding one implication


@dataclass(frozen=True)
class _Ordered:
    """One inequality read one way: its smaller and larger side, whether strict, whether read for every value of
    names the text gives values in passing, and its sides as written (left, right)."""

    small: Any
    large: Any
    strict: bool
    every: bool
    left: Any
    right: Any

    @property
    def slack(self) -> Any:
        return self.large - self.small


def _ordered(lhs: Link, rhs: Link, scope: Scope) -> _Ordered | None:
    """The inequality ``lhs rel rhs`` read one way, as real numbers, or None."""
    read = one_way(lhs, rhs, scope)
    if read is None:
        return None
    left, right, every = read
    sides = (left, right)
    if any(not isinstance(x, sympy.Expr) for x in sides):
        return None
    if any(x.is_real is not True for side in sides for x in side.free_symbols):
        return None
    if (names(left) | names(right)) & scope.matrix_names:  # written transposed: a vector or matrix, not ordered
        return None
    small, large = (right, left) if rhs.relation in _LEFT_LARGER_ORDER else (left, right)
    return _Ordered(small, large, rhs.relation in _STRICT_ORDER, every, left, right)


def _same_order_forms(row: _Ordered) -> list[tuple[str, Any]]:
    """Expressions with the sign of the row's slack for every value (how each was had, and the expression):
    the slack itself; with log (both sides positive) or exp taken of both sides; with either removed."""
    small, large = row.small, row.large
    out: list[tuple[str, Any]] = [("", large - small)]
    if small.is_positive and large.is_positive:
        out.append(("with log taken of both sides (both positive)", sympy.log(large) - sympy.log(small)))
    if small.is_extended_real and large.is_extended_real:  # exp(log g) is g: only sides known real
        out.append(("with exp taken of both sides", sympy.exp(large) - sympy.exp(small)))
    if isinstance(small, sympy.exp) and isinstance(large, sympy.exp):
        inner = (small.args[0], large.args[0])
        if all(x.is_real for x in inner):  # exp is one-to-one and increasing on the real numbers only
            out.append(("with exp removed from both sides", inner[1] - inner[0]))
    if isinstance(small, sympy.log) and isinstance(large, sympy.log):
        inner = (small.args[0], large.args[0])
        if all(x.is_positive for x in inner):
            out.append(("with log removed from both sides (both positive)", inner[1] - inner[0]))
    return out


def _logs_expanded(expr: Any) -> Any:
    return sympy.expand(sympy.expand_log(expr, force=False))


def _factor_of(here: Any, form: Any) -> Any | None:
    """The c with ``here = c * form`` exactly (after expanding both), or None."""
    try:
        a, b = _logs_expanded(here), _logs_expanded(form)
        if b == 0:
            return None
        if sympy.expand(a - b) == 0:
            return sympy.Integer(1)
        c = sympy.cancel(a / b)
        if c == 0 or c.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
            return None
        if sympy.expand(a - c * b) == 0 or sympy.cancel(sympy.together(a - c * b)) == 0:
            return c
    except (TypeError, ValueError, NotImplementedError, RecursionError, ZeroDivisionError, AttributeError):
        return None
    return None


def _nonnegative(expr: Any) -> bool:
    """Whether ``expr >= 0`` for every value, by the engine's rewrites."""
    try:
        return decide_le(sympy.Integer(0), expr)[0] == Verdict.PROVED
    except (TypeError, ValueError, NotImplementedError, RecursionError, AttributeError):
        return False


def _factor_said(c: Any) -> str:
    said = sympy.sstr(c)
    return "" if c == 1 else f", times {said}" if len(said) <= 40 else ", times a factor"


def _implied(before: _Ordered, here: _Ordered, line: int) -> tuple[str, str] | None:
    """(the status, why) where the step ``here`` follows from the row ``before`` for every value (PROVED), else
    None; found with a factor whose sign is not known: ("UNDECIDED", what was found)."""
    unknown = ""
    for how, form in _same_order_forms(before):
        if not form.free_symbols:
            continue
        c = _factor_of(here.slack, form)
        said = f"the larger side minus the smaller is that of the inequality of line {line}"
        said += f" {how}" if how else ""
        if c is not None and (c.is_Rational and c > 0 or c.is_positive is True):
            if here.strict and not before.strict:
                unknown = unknown or f"{said}{_factor_said(c)}, but that row is not strict and this one is"
                continue
            factor = ", a positive factor" if c != 1 else ""
            return "PROVED", f"{said}{_factor_said(c)}{factor}: wherever that row holds, this one does"
        if c is not None and not unknown:
            negative = c.is_Rational and c < 0
            sign = "a negative number, with the relation not turned" if negative else "a factor whose sign is not known"
            unknown = f"{said}{_factor_said(c)}, {sign}"
        if how:
            continue
        extra = sympy.expand(here.slack - form)
        if extra != 0 and (not here.strict or before.strict) and _nonnegative(extra):
            plus = f"plus {sympy.sstr(extra)}" if len(sympy.sstr(extra)) <= 40 else "plus a part"
            return "PROVED", f"{said}, {plus}, which is nonnegative: wherever that row holds, this one does"
    return ("UNDECIDED", unknown) if unknown else None


def _exact_real(value: Any) -> bool:
    return isinstance(value, sympy.Basic) and value.is_Rational is True


def _where_premise_holds(before: _Ordered, here: _Ordered, stated: dict[str, str]) -> dict[Any, Any] | None:
    """Exact values of the names at which the row before holds strictly and both rows' sides are rational,
    each name within the bound the text states for it (``stated``: domain key -> the bound as said)."""
    names = sorted(before.slack.free_symbols | here.slack.free_symbols, key=str)
    if not names or len(names) > 4 or not all(isinstance(x, sympy.Symbol) for x in names):
        return None
    keys = [domain_key(str(x)) for x in names]
    choices = [
        [v for v in _TRIED_VALUES if _fits(x, v) and (k not in stated or keeps_bound(v, stated[k]))]
        for x, k in zip(names, keys)
    ]
    for values in itertools.islice(itertools.product(*choices), 400):
        at = dict(zip(names, values))
        try:
            sides = [sympy.sympify(e).subs(at) for e in (before.small, before.large, here.left, here.right)]
        except (TypeError, ValueError, ZeroDivisionError, RecursionError):
            continue
        if all(_exact_real(s) for s in sides) and sides[1] - sides[0] > 0:
            return at
    return None


def _fits(name: Any, value: Any) -> bool:
    """Whether ``value`` is in the domain ``name`` is read with."""
    checks = (
        (name.is_integer, value.is_integer),
        (name.is_positive, value > 0),
        (name.is_nonnegative, value >= 0),
        (name.is_negative, value < 0),
        (name.is_nonpositive, value <= 0),
    )
    return all(bool(holds) for required, holds in checks if required)


def _refuted(before: _Ordered, here: _Ordered, line: int, stated: dict[str, str]) -> Outcome | None:
    """REFUTED where the step is the row before times a negative number, at values where that row holds."""
    form = before.slack
    c = _factor_of(here.slack, form) if form.free_symbols else None
    if c is None or not (c.is_Rational and c < 0) or before.every or here.every:
        return None
    at = _where_premise_holds(before, here, stated)
    if at is None:
        return None
    lhs, rhs = sympy.sympify(here.left).subs(at), sympy.sympify(here.right).subs(at)
    cex = Counterexample(at, lhs, rhs, lhs - rhs, sympy.sstr(sympy.N(lhs - rhs, 20)))
    why = (
        f"the larger side minus the smaller is that of the inequality of line {line} times {sympy.sstr(c)}, a "
        "negative number, with the relation not turned: wherever that row holds this one fails, as at the values "
        "shown, where that row holds"
    )
    return Outcome("REFUTED", "counterexample", why, cex, here.left, here.right)


def implication_in_child(
    premise: tuple[Link, Link], lhs: Link, rhs: Link, scope: Scope, stated: dict[str, str] | None = None
) -> Outcome:
    """Decide the step ``lhs rel rhs`` given the row ``premise`` before it (linked by an arrow); ``stated``: the
    bounds the text states before (domain key -> the bound as said, ``k > 1``; "" where not read), which the
    values of a refutation must keep."""
    line = premise[1].line
    before, here = _ordered(premise[0], premise[1], scope), _ordered(lhs, rhs, scope)
    if here is None:  # the caller says why, as the step's own reading found
        return Outcome("UNDECIDED")
    if before is None:
        why = f"an implication from line {line}: not decided (that inequality is not read one way, as real numbers)"
        return Outcome("UNDECIDED", reason=why, lhs=here.left, rhs=here.right)
    found = _implied(before, here, line)
    if found is not None and found[0] == "PROVED":
        every = " (read for every value of the names the text gives values in passing)"
        why = f"given line {line} (an implication): {found[1]}{every if before.every or here.every else ''}"
        return Outcome("PROVED", "implied", why, None, here.left, here.right)
    refuted = _refuted(before, here, line, stated or {})
    if refuted is not None:
        refuted.reason = f"given line {line} (an implication): {refuted.reason}"
        return refuted
    why = f"an implication from line {line}: not decided" + (f"; {found[1]}" if found is not None else "")
    return Outcome("UNDECIDED", reason=why, lhs=here.left, rhs=here.right)
