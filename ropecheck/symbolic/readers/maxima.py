"""``\\max_i |X_i|``: the largest value of a bracketed body over one index, read as an unknown that bounds it.

The body is what a bracket or a pair of bars right after ``\\max_i`` holds (``\\max_i |h_{i+1} - h_i|``,
``\\max_{j} (x_j)``, ``\\left(\\max_i |a_i|\\right)``), read with i an index; the value is the engine's
:func:`~..engine.bounds.largest_over`, known only to be at least the body at every index, which proves an
inequality against the sums beside it (``\\sum_i |S_i| |h_i| \\le (\\max_i |h_i|) \\sum_i |S_i|``).

Design constraints: a maximum without a range runs over every index the step's sums run over (how it is
written beside them), so only a one-letter index is read, never a range (``\\max_{0 \\le i < N}``); a body
that is not bracketed, or that the next factor may still belong to (``\\max_i |a_i| |b_i|``: the largest
product, or a product with the largest?), is not read.

``\\max(a, b)``, ``\\min\\{a, b, c\\}``: the largest (smallest) of a bracketed list of two values or more, read
exactly as SymPy's Max (Min) of the values read, each a real number; a list of one (``\\max(x)``: of the
entries of a vector?) or of values not known to be real is not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import sympy

from ...errors import ClaimLimitError
from ..engine.bounds import largest_over
from .latex_text import Src, skip_group, split_top

__all__ = ["extremum_list_at", "maxima_read", "read_maximum_at"]

#: ``\max(``, ``\min \left(``, ``\max\{``: a largest or smallest value of a bracketed list
_EXTREMUM_LIST_HEAD = re.compile(
    r"\\(?P<op>max|min)\s*(?:\\left\s*(?=[(\\])|\\[Bb]igg?l?\s*(?=[(\\]))?(?P<open>\(|\\\{)"
)
#: what closes a list before its bracket: ``\right`` of ``\right)``, the backslash of ``\}``
_EXTREMUM_LIST_CLOSE = re.compile(r"\s*\\(?:right|[Bb]igg?r?)?\s*$")

_MAX_HEAD = re.compile(r"\\max\s*_\s*(?:\{\s*(?P<braced>[A-Za-z])\s*\}|(?P<bare>[A-Za-z])(?![A-Za-z]))\s*")
#: what may follow a maximum's body: the end of the side, a closing bracket, + or -, or a sum over its index
_AFTER_BODY = re.compile(r"\s*(?:$|[)\]+\-]|\\right|\\}|\\sum\s*_\s*\{?\s*(?P<var>[A-Za-z])\s*=)")


def _body_end(text: str, start: int) -> int:
    """The index just past the body that opens at ``text[start]``: a bracket group or ``|...|`` (no bar inside);
    -1 where no such body opens there."""
    if text.startswith("\\left|", start):
        close = text.find("\\right|", start)
        inner = text[start + 6 : close]
        return close + 7 if close > 0 and "|" not in inner else -1
    if text.startswith("|", start):
        close = text.find("|", start + 1)
        return close + 1 if close > start + 1 and "\\right" not in text[start:close] else -1
    if text.startswith("\\left(", start) or (start < len(text) and text[start] in "(["):
        return skip_group(text, start)
    return -1


def read_maximum_at(text: str, at: int) -> tuple[str, int, int] | None:
    """The maximum whose ``\\max`` starts at ``at``: its index, and where its body starts and ends; None where it
    is not read (see the module)."""
    m = _MAX_HEAD.match(text, at)
    if m is None:
        return None
    end = _body_end(text, m.end())
    if end < 0:
        return None
    after = _AFTER_BODY.match(text, end)
    index = m.group("braced") or m.group("bare")
    if after is None or (after.group("var") is not None and after.group("var") != index):
        return None
    return index, m.end(), end


def extremum_list_at(text: str, at: int) -> tuple[str, list[tuple[int, int]], int] | None:
    """The ``\\max``/``\\min`` of a bracketed list of two values or more that starts at ``at``: max or min, the
    spans of the values, and the index just past the list; None where there is none."""
    m = _EXTREMUM_LIST_HEAD.match(text, at)
    if m is None:
        return None
    opening = m.start("open") + (1 if m["open"] == "\\{" else 0)
    end = skip_group(text, opening)
    if end < 0:
        return None
    inner_end = opening + 1 + len(_EXTREMUM_LIST_CLOSE.sub("", text[opening + 1 : end - 1]))
    body = Src.of(text[opening + 1 : inner_end], opening + 1)
    spans = [(p.col(0), p.col(len(p.text))) for p in split_top(body, ",")]
    if len(spans) < 2 or any(not text[a:b].strip() for a, b in spans):
        return None
    return m["op"], spans, end


def _extremum_value(op: str, values: list[Any], at: int) -> Any:
    """SymPy's Max or Min of ``values``, each a real number; :class:`ClaimLimitError` otherwise."""
    if not all(getattr(v, "is_extended_real", False) for v in values):
        raise ClaimLimitError(f"\\{op} of values not all known to be real numbers is not read", "reading", at)
    return (sympy.Max if op == "max" else sympy.Min)(*values)


def maxima_read(
    src: Src, bound: frozenset[str], read: Callable[[Src, frozenset[str]], Any], mark: Callable[[Any], str]
) -> Src:
    """Every maximum in ``src`` read (its body with ``read``, the index bound) and put in as ``mark`` of its
    value; a ``\\max`` not read so is left for the reader to refuse."""
    pos = 0
    while (at := _next_extremum(src.text, pos)) >= 0:
        listed = extremum_list_at(src.text, at)
        if listed is not None:
            op, spans, end = listed
            values = [read(src.slice(a, b), bound) for a, b in spans]
            src = src.splice(at, end, mark(_extremum_value(op, values, src.col(at))))
            continue
        found = read_maximum_at(src.text, at)
        if found is None:
            pos = at + 4
            continue
        index, start, end = found
        body = src.slice(start, end)
        src = src.splice(at, end, mark(largest_over(read(body, bound | {index}), index)))
        pos = at
    return src


def _next_extremum(text: str, pos: int) -> int:
    """The index of the next ``\\max`` or ``\\min`` from ``pos``; -1 if none."""
    m = re.compile(r"\\m(?:ax|in)(?![A-Za-z])").search(text, pos)
    return m.start() if m else -1
