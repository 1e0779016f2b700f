"""A side given by cases, read as a ``Piecewise``: ``\\begin{cases} A, & i < c \\\\ B, & i \\ge c \\end{cases}``.

Also written ``\\left\\{ \\begin{aligned} &A, & i < c \\\\ &B, & i \\ge c \\end{aligned} \\right.`` (or ``array``).
Each row is a piece and its condition, split at the ``&``; a piece is any formula the reader reads, and a
condition (after a word such as ``\\text{if }``) one comparison (``<``, ``>``, ``\\le``, ``\\ge``, ``\\lt``,
``\\gt``) between formulas that uses one of the names the caller holds as an index or a parameter (``bound``:
``\\theta_i``'s ``i``), or, in the last row only, ``\\text{otherwise}``/``\\text{else}``. There are two rows, the
second's condition the complement of the first's (or ``otherwise``): no value falls under both, so no order of
reading the rows is presupposed. What is not so is refused: the side is not read.

Design constraints: no guessing -- a row with no condition, a condition in words, one that names no
index, several comparisons, or a piece written as a vector or matrix is refused with its column; the
pieces are read by the caller's reader (passed in, so that this module imports none above it).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import sympy
from sympy import MatrixBase

from ...errors import ClaimParseError
from .latex_text import Src, split_top

__all__ = ["CASES_OPEN", "read_cases"]

#: the opening of a side given by cases: ``\begin{cases}``, or a left brace (before ``aligned``/``array``, which
#: the document's reader may already have taken away)
CASES_OPEN = re.compile(
    r"^\s*(?:\\begin\s*\{\s*cases\s*\}|\\left\s*\\\{(?:\s*\\begin\s*\{\s*(?P<env>aligned|array)\s*\}(?:\s*\{[lcr|]*\})?)?)"
)
_CASES_CLOSE = re.compile(r"\\end\s*\{\s*cases\s*\}\s*$")
_ENV_CLOSE = r"(?:\\end\s*\{\s*%s\s*\}\s*)?\\right\s*\.?\s*$"
#: a control space (``\ ``) or a spacing command that opens a row: Markdown's ``\\\`` leaves one after the break
_ROW_LEAD = re.compile(r"^\s*(?:\\(?=\s)|\[\s*\d+(?:\.\d+)?\s*(?:pt|em|ex|mm)\s*\])?")
#: the word a condition may open with: ``\text{if } i < c``, ``\quad \text{for } i \ge c``
_CONDITION_WORD = re.compile(
    r"^\s*(?:\\q?quad\s*|\\[,;]\s*)*(?:\\(?:text|textrm|mathrm)\s*\{\s*(?:if|for|when)\s*\}|(?:if|for|when)(?![A-Za-z]))"
)
_OTHERWISE = re.compile(r"^\s*(?:\\text(?:rm)?\s*\{\s*(?:otherwise|else)\s*\}|otherwise|else)\s*[.,]?\s*$")
#: the comparisons a condition may use, as SymPy relations
_RELATIONS = {
    "\\leq": sympy.Le, "\\geq": sympy.Ge, "\\le": sympy.Le, "\\ge": sympy.Ge, "\\lt": sympy.Lt, "\\gt": sympy.Gt,
    "<": sympy.Lt, ">": sympy.Gt, "≤": sympy.Le, "≥": sympy.Ge,
}  # fmt: skip
_RELATION_RX = re.compile(r"\\leq?(?![A-Za-z])|\\geq?(?![A-Za-z])|\\lt(?![A-Za-z])|\\gt(?![A-Za-z])|[<>≤≥]")

#: reads one formula: (text, column of the text in the claim, names held as plain symbols) -> value
Reader = Callable[[str, int, frozenset[str]], Any]


def _body(src: Src) -> Src | None:
    """The rows between the opening and the closing of the construct, or None when the side is not one."""
    m = CASES_OPEN.match(src.text)
    if m is None:
        return None
    close = (
        _CASES_CLOSE
        if m.group(0).lstrip().startswith("\\begin")
        else re.compile(_ENV_CLOSE % (m.group("env") or "(?:aligned|array)"))
    )
    c = close.search(src.text, m.end())
    if c is None:
        raise src.error("a side given by cases must end where the cases end", m.start())
    return src.slice(m.end(), c.start())


def _condition(src: Src, read: Reader, bound: frozenset[str], last: bool) -> Any:
    """One row's condition as a SymPy relation (``True`` for an ``otherwise`` in the last row)."""
    lead = _CONDITION_WORD.match(src.text)
    src = src.slice(lead.end(), len(src.text)) if lead else src
    text = src.text.strip().rstrip(".,;").strip()
    if _OTHERWISE.match(text):
        if last:
            return sympy.true
        raise src.error("only the last case may be 'otherwise'", 0)
    found = list(_RELATION_RX.finditer(text))
    if len(found) != 1:
        raise src.error("a case's condition is read only as one comparison, such as i < d/4", 0)
    op = found[0]
    start = len(src.text) - len(src.text.lstrip())
    left = read(text[: op.start()], src.col(start), bound)
    right = read(text[op.end() :], src.col(start + op.end()), bound)
    relation = _RELATIONS[op.group(0)](left, right)
    if not {s.name for s in relation.free_symbols} & set(bound):
        raise src.error("a case's condition is read only where it is on the index of the definition", 0)
    return relation


def _complementary(pieces: list[tuple[Any, Any]], src: Src) -> None:
    """Two cases whose conditions leave no value to both and none to neither; else refused (never first-match)."""
    if len(pieces) != 2:
        raise src.error("a definition by cases is read only with two cases (a condition and its complement)", 0)
    first, second = pieces[0][1], pieces[1][1]
    if second is not sympy.true and second not in (first.negated, first.negated.reversed):
        raise src.error("a definition by cases is read only where the second case is the complement of the first", 0)


def read_cases(src: Src, read: Reader, bound: frozenset[str]) -> Any:
    """A side given by cases as a ``Piecewise``, or None where ``src`` is not one (see the module).

    Raises :class:`~ropecheck.errors.ClaimParseError` with the column for a construct it refuses.
    """
    body = _body(src)
    if body is None:
        return None
    rows = [r for r in split_top(body, "\\\\") if r.text.strip()]
    if len(rows) < 2:
        raise src.error("a side given by cases needs two cases or more", 0)
    pieces = []
    for n, row in enumerate(rows):
        row = row.slice(_ROW_LEAD.match(row.text).end(), len(row.text))  # type: ignore[union-attr]
        cells = split_top(row, "&")
        cells = [c for c in cells if c.text.strip()]
        if len(cells) != 2:
            raise row.error("a case is read as a formula and its condition, separated by &", 0)
        formula = cells[0].text.rstrip().rstrip(",").rstrip()
        value = read(formula, cells[0].col(0), bound)
        if isinstance(value, MatrixBase):
            raise row.error("a case whose value is a vector or matrix is not read", 0)
        pieces.append((value, _condition(cells[1], read, bound, n == len(rows) - 1)))
    _complementary(pieces, src)
    try:
        return sympy.Piecewise(*pieces)
    except (TypeError, ValueError) as exc:
        raise ClaimParseError(f"the cases cannot be read together: {exc}", src.col(0)) from None
