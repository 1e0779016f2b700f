"""A function written at a difference of positions, given with the other functions of its display: a definition.

RoFormer-style derivations pose ``<f_q(x_m, m), f_k(x_n, n)> = g(x_m, x_n, m - n)`` as a condition, then give one
solution in a single display: ``f_q(x_m, m) = ...``, ``f_k(x_n, n) = ...`` and ``g(x_m, x_n, m - n) = Re[...]``.
The last line names g's value as the others name theirs: it defines g, it claims nothing. Its parameter ``m - n``
is a sum or difference of names, which a body of numbers is not read with (:func:`.reading.define_in_child`), so
the line used to be kept as a step, one that no reading could decide (g had no value anywhere).

Such a line is listed as a definition, its value not read, and g stays a function with no value, only where all of
this holds:

- the body reads as numbers and depends on the names of the difference only through it (``e^{i(m - n)\\theta}``,
  never ``e^{i(m + n)\\theta}``: a function of m - n alone is the only thing the line can define);
- the function has no definition in force, no earlier line defines it, and no earlier step writes it (a line
  after one of those is an equation about it, a step);
- the same display defines another function, read as a definition (the solution is given as one set).

Its equation is no premise of later steps: the body is read with the default domains, every name real, so the
conjugate of ``(W_k x_n)^*`` vanishes there, and a later line
``g(x_m, x_n, 2) = Re[(W_q x_m)(W_k x_n)^* e^{-2i\theta}]`` (false where W_q x_m and W_k x_n are the complex
numbers the text means) would be an instance of it.

Design constraints: pure functions of what the auditor knows; a line that fails any test stays what it was.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import sympy

__all__ = ["OFFSET_ONLY", "OFFSET_OTHERWISE", "SOLVED_REASON", "depends_through_offsets", "solution_form"]

#: the reason :func:`.reading.define_in_child` gives a body of numbers read at a difference of names
OFFSET_ONLY = (
    "a parameter written as a sum or difference of names, in a body of numbers that depends on them through it"
)
#: the same where the body depends on those names otherwise too (or that could not be shown)
OFFSET_OTHERWISE = "a parameter written as a sum or difference of names, in a body of numbers"
#: what the listing says of such a line
SOLVED_REASON = (
    "a function of a difference of names given beside the other functions its display defines: a definition, "
    "its value not read (a body of numbers at a sum or difference of names)"
)


def depends_through_offsets(value: Any, offsets: Iterable[Any]) -> bool:
    """Whether ``value`` depends on the names of each offset (a sum or difference of names) only through it.

    One name of the offset is written as a fresh number minus the rest; the others must then be gone from the
    value, its sums multiplied out (inside functions too). Where that cannot be shown, False.

    Example:
        >>> m, n, t = sympy.symbols("m n theta", real=True)
        >>> depends_through_offsets(sympy.cos((m - n) * t), [m - n])
        True
        >>> depends_through_offsets(sympy.cos((m + n) * t), [m - n])
        False
    """
    if not isinstance(value, sympy.Basic) or isinstance(value, sympy.MatrixBase):
        return False
    for offset in offsets:
        names = sorted(offset.free_symbols, key=str) if isinstance(offset, sympy.Basic) else []
        if len(names) < 2:
            return False
        first = names[0]
        coefficient = offset.coeff(first)
        if coefficient not in (1, -1) or first not in value.free_symbols:
            return False
        fresh = sympy.Dummy("offset")
        moved = sympy.expand(value.subs(first, (fresh - (offset - coefficient * first)) / coefficient))
        if moved.free_symbols & set(names[1:]):
            return False
    return True


def solution_form(
    key: str,
    line: int,
    reason: str,
    *,
    display_start: int,
    defined: Sequence[tuple[int, str, str, bool]],
    written_before: bool,
) -> bool:
    """Whether a line ``key(..., m - n) = ...`` at ``line`` defines the function ``key`` as one of its display's set.

    ``reason``: what reading its body gave; ``defined``: every definition listed so far, as (line, name, kind,
    read); ``written_before``: whether an earlier step writes the function.

    Example:
        >>> listed = [(13, "f_{q}", "function", True), (14, "f_{k}", "function", True)]
        >>> solution_form("g", 15, OFFSET_ONLY, display_start=12, defined=listed, written_before=False)
        True
        >>> solution_form("g", 15, OFFSET_OTHERWISE, display_start=12, defined=listed, written_before=False)
        False
    """
    if reason != OFFSET_ONLY or written_before:
        return False
    if any(name == key or name.startswith(key + "(") for _, name, _, _ in defined):
        return False  # defined (or listed) before: this line is an equation about it
    return any(display_start <= at < line + 1 and kind == "function" and read for at, _, kind, read in defined)
