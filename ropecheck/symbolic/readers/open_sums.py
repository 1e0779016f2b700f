r"""A sum whose range is not written: ``\sum_j e^{s_j}``, ``\sum_{n} v_n``, ``\sum_\mathrm{j} a_\mathrm{j}``.

This literature writes the softmax's denominator, an attention average and a score as a sum over "every j",
leaving the range to the text. Such a sum is read over a range of its own with two unknown integer ends,
``first(j)`` and ``last(j)``: a claim proved so holds over every run of consecutive indices, whatever range
the text means. The same letter summed twice in one claim is summed over the same range, as one equation
writes it. A counterexample, though, picks a range (``first(j) = last(j) = 1``) the text may not mean -- a
claim can hold over the one range it speaks of and fail over others (``\sum_j 1 = 3``) -- so a claim read
with such a range is refuted only where it is false over every range (:func:`false_over_every_range`): with
every entry of each family the sums run over given one value (``s_j = s_n = v``, which no range forbids), a sum
is its count times its term, and the sides then differ by a nonzero number times a power of the count.

Only one Latin letter (braced, upright or bare, as TeX takes one token after ``_``) with no upper bound after
it is read so; ``\sum_{j \ne i}`` and ``\sum_{i,j}`` are left as they were. A sum that writes only its upper end,
``\sum_j^{d/2} h_j`` (:func:`upper_only_ranges`), runs from ``first(j)`` to that end: the lower end is not written
(0 or 1, as the text counts), so a claim proved so holds whatever it is, and one refuted is held to the same rule.

Design constraints: a text rewrite before parsing (the ends stand as upright names the parser keeps), and a
renaming of those names once the side is read; no other module's state.
"""

from __future__ import annotations

import re
from typing import Any

import sympy
from sympy import Indexed, MatrixBase, Sum, Symbol

from .latex_text import Src

__all__ = [
    "OPEN_SUM",
    "UPPER_ONLY_SUM",
    "false_over_every_range",
    "name_open_ranges",
    "open_range_names",
    "open_range_reading",
    "open_sum_ranges",
    "upper_only_ranges",
]

#: ``\sum_j``, ``\sum_{j}``, ``\sum_\mathrm{j}``, ``\sum_{\mathrm{j}}`` with no ``^`` after the index
OPEN_SUM = re.compile(
    r"\\sum\s*_\s*(?:\{\s*(?:\\mathrm\s*\{\s*(?P<a>[A-Za-z])\s*\}|(?P<b>[A-Za-z]))\s*\}"
    r"|\\mathrm\s*\{\s*(?P<c>[A-Za-z])\s*\}|(?P<d>[A-Za-z]))(?!\s*\^)"
)
#: ``\sum_j^{d/2}``, ``\sum_{j}^{N}``, ``\sum_\mathrm{j}^N``: one index, no lower end, an upper end braced or one token
UPPER_ONLY_SUM = re.compile(
    r"\\sum\s*_\s*(?:\{\s*(?:\\mathrm\s*\{\s*(?P<a>[A-Za-z])\s*\}|(?P<b>[A-Za-z]))\s*\}"
    r"|\\mathrm\s*\{\s*(?P<c>[A-Za-z])\s*\}|(?P<d>[A-Za-z]))"
    r"\s*\^\s*(?P<top>\{(?:[^{}]|\{[^{}]*\})*\}|\\[A-Za-z]+|[A-Za-z0-9])"
)
#: how the ends stand in the parsed text, before they get their names
_END_MARK = re.compile(r"ZQS([LH])([A-Za-z])")
#: the names of the ends once read, ``first(j)`` and ``last(j)``
_END_NAME = re.compile(r"^(?:first|last)\([A-Za-z]\)$")


def open_sum_ranges(src: Src) -> Src:
    r"""``\sum_j`` -> ``\sum_{j=first(j)}^{last(j)}`` (the ends as marked upright names, see :func:`name_open_ranges`).

    Example:
        >>> open_sum_ranges(Src.of(r"\sum_j e^{s_j}")).text
        '\\sum_{j=\\mathit{ZQSLj}}^{\\mathit{ZQSHj}} e^{s_j}'
    """

    def ranged(m: re.Match[str]) -> str:
        j = m.group("a") or m.group("b") or m.group("c") or m.group("d")
        return f"\\sum_{{{j}=\\mathit{{ZQSL{j}}}}}^{{\\mathit{{ZQSH{j}}}}}"

    return src.sub(OPEN_SUM, ranged)


def upper_only_ranges(src: Src) -> Src:
    r"""``\sum_j^{d/2}`` -> ``\sum_{j=first(j)}^{d/2}``: the lower end not written, a marked name as in
    :func:`open_sum_ranges`; the upper end as written.

    Example:
        >>> upper_only_ranges(Src.of(r"\sum_j^{d/2} h_j")).text
        '\\sum_{j=\\mathit{ZQSLj}}^{d/2} h_j'
    """

    def ranged(m: re.Match[str]) -> str:
        j = m.group("a") or m.group("b") or m.group("c") or m.group("d")
        top = m.group("top")
        return f"\\sum_{{{j}=\\mathit{{ZQSL{j}}}}}^{{{top[1:-1] if top.startswith('{') else top}}}"

    return src.sub(UPPER_ONLY_SUM, ranged)


def name_open_ranges(value: Any) -> Any:
    """The ends of the ranges read by :func:`open_sum_ranges` as integers named ``first(j)`` and ``last(j)``."""
    free: set[Any] = getattr(value, "free_symbols", set())
    ends = {s: _END_MARK.fullmatch(s.name) for s in free if isinstance(s, Symbol)}
    swap = {
        s: Symbol(f"{'first' if m.group(1) == 'L' else 'last'}({m.group(2)})", integer=True)
        for s, m in ends.items()
        if m is not None
    }
    return value.xreplace(swap) if swap else value


def open_range_names(*sides: Any) -> list[str]:
    """The letters summed over a range the claim does not write, in the sides as read (``["j"]``).

    Example:
        >>> from sympy import Sum, Function
        >>> j = Symbol("j", integer=True)
        >>> open_range_names(Sum(j, (j, Symbol("first(j)", integer=True), Symbol("last(j)", integer=True))))
        ['j']
    """
    found = {
        s.name[-2]
        for side in sides
        for s in getattr(side, "free_symbols", set())
        if isinstance(s, Symbol) and _END_NAME.match(s.name)
    }
    return sorted(found)


def open_range_reading(*sides: Any) -> str:
    """How the claim's sums over ranges it does not write were read, for its ``reading:`` line; "" where none.

    Example:
        >>> from ropecheck.symbolic.readers.latex_syntax import read_latex_side as read
        >>> open_range_reading(read(r"\\sum_j^{N} h_j"))
        'a sum over j with no lower end written: over every range first(.)..N alike'
    """
    letters = open_range_names(*sides)
    if not letters:
        return ""
    tops = sorted(
        {
            str(t.limits[0][2])
            for x in sides
            for t in sympy.sympify(x).atoms(Sum)
            if _END_NAME.match(str(t.limits[0][1])) and not _END_NAME.match(str(t.limits[0][2]))
        }
    )
    if not tops:
        return f"a sum over {', '.join(letters)} with no range written: over every range first(.)..last(.) alike"
    return (
        f"a sum over {', '.join(letters)} with no lower end written: over every range first(.)..{', '.join(tops)} alike"
    )


def _family(atom: Any) -> str:
    """The family an entry belongs to: ``s`` of ``s_{j}``, ``s_{n}`` and ``s[j]``; "" for a plain name."""
    if isinstance(atom, Indexed):
        return str(atom.base.label)
    m = re.fullmatch(r"([A-Za-z]+|\\[A-Za-z]+)_\{.+\}", getattr(atom, "name", ""))
    return m.group(1) if m else ""


def _uniform(side: Any, values: dict[Any, Any]) -> Any:
    """``side`` with each entry of a family summed over an open range set to one value (the counterexample's
    value of one of its entries), the other names to the counterexample's values, and each open sum to its count
    times its term; None where a term still depends on its index or a name has no value."""
    summed = {_family(a) for t in side.atoms(Sum) for a in t.function.atoms(Symbol, Indexed)} - {""}
    atoms = side.atoms(Indexed) | {a for a in side.free_symbols if isinstance(a, Symbol)}
    by_family = {f: next((v for k, v in values.items() if _family(k) == f), sympy.Integer(1)) for f in summed}
    swap = {a: by_family[_family(a)] for a in atoms if _family(a) in by_family}
    side = side.xreplace(swap)
    counted = {}
    for t in side.atoms(Sum):
        (j, first, _), term = t.limits[0], t.function
        if len(t.limits) != 1 or term.has(j) or open_range_names(t) != [str(j)] or not _END_NAME.match(str(first)):
            return None
        counted[t] = Symbol(f"count({j})", positive=True, integer=True) * term
    side = side.xreplace(counted).xreplace({k: v for k, v in values.items() if not isinstance(k, Indexed)})
    left = {a for a in side.free_symbols if not a.name.startswith("count(")}
    return None if left else side


def _one_end_each(*sides: Any) -> bool:
    """Whether every letter summed from an end not written runs to one upper end (``\\sum_j^{N}`` twice, or
    ``last(j)`` throughout): only then do its sums count the same number of terms, whatever the lower end.
    ``\\sum_j^{N} h_j`` beside ``\\sum_j^{N-1} h_{j+1}`` count one term apart, and read as one count they could
    look false over every range where one lower end makes them equal."""
    ends: dict[str, set[str]] = {}
    for t in set().union(*(sympy.sympify(x).atoms(Sum) for x in sides)):
        j, _, top = t.limits[0]
        ends.setdefault(str(j), set()).add(sympy.srepr(top))
    return all(len(found) == 1 for found in ends.values())


def false_over_every_range(lhs: Any, rhs: Any, values: dict[Any, Any]) -> bool:
    """Whether a claim refuted at ``values`` (a counterexample) with sums over ranges it does not write is false
    over every nonempty range: see the module's docstring. False where that is not shown.

    Example:
        >>> from ropecheck.symbolic.readers.latex_syntax import read_latex_side as read
        >>> lhs, rhs = read(r"\\sum_j c\\, x_j"), read(r"c^2 \\sum_j x_j")
        >>> c = next(x for x in lhs.free_symbols if x.name == "c")
        >>> false_over_every_range(lhs, rhs, {c: 2})
        True
        >>> false_over_every_range(read(r"\\sum_j 1"), sympy.Integer(3), {})
        False
    """
    if any(isinstance(x, MatrixBase) for x in (lhs, rhs)):
        return False
    if not _one_end_each(lhs, rhs):
        return False
    a, b = (_uniform(sympy.sympify(x), values) for x in (lhs, rhs))
    if a is None or b is None:
        return False
    top, bottom = (sympy.simplify(x) for x in sympy.fraction(sympy.together(sympy.expand(a - b))))
    return _power_of_count(top) and _power_of_count(bottom)


def _power_of_count(value: Any) -> bool:
    """Whether ``value`` is a nonzero number times a power of one count (or a nonzero number): then it is nonzero for
    every count >= 1, whatever the count the text means."""
    if not value.free_symbols:
        return value.is_zero is False
    (count, *more) = sorted(value.free_symbols, key=str)
    if more or not value.is_polynomial(count):
        return False
    terms = sympy.Poly(value, count).terms()
    return len(terms) == 1 and terms[0][1].is_zero is False
