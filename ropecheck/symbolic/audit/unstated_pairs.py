"""A 2x1 column set beside a complex number where the document states no identification of the two.

This literature equates a complex number with a 2-vector, ``q e^{im\\theta} = R(m\\theta) [a \\\\ b]``, through the
usual identification x + iy <-> (x, y) (the first entry the real part, the second the imaginary part). Where the
document states it for the names involved (``q = [a \\\\ b]`` and ``q = a + ib``, in either order: see
:mod:`.complex_pairs`), the step is read through it and decided. Where it does not, nothing fixes which
identification is meant (the conjugate (x, -y) and the swapped (y, x) are as possible), so:

- a step that writes a name whose value is a 2x1 column and uses it in complex arithmetic (times ``e^{i...}``,
  conjugated, inside Re or Im: see :mod:`.pair_uses`) reads, as written, that column scaled by a complex number;
  it is decided only where that reading proves it and so does the usual identification (:func:`hedged_verdict`);
  otherwise it is UNDECIDED with both readings shown;
- a step whose sides are a number and a column with no such name cannot be read as written (the shapes differ);
  it is UNDECIDED with the usual identification's verdict shown (:func:`unstated_reading`), or, where a name is
  written on one side only, without a verdict.

Design constraints: nothing here proves or refutes a step the readings left undecided; a verdict is only ever
withheld, and the reason names the column, its line and both readings.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import sympy

from ..readers.latex_syntax import read_quiet
from ..readers.scope import Scope
from .complex_pairs import paired_verdict
from .pair_uses import pair_uses

_UNSTATED_PAIR_WORDS = (
    "no identification of columns with complex numbers is stated in a form read here (a name written both as a "
    "column (a, b) and as a + ib); x + iy as (x, y), the conjugate (x, -y) and the swapped (y, x) are all "
    "possible, so the step is not decided"
)


def unstated_columns(lhs_tex: str, rhs_tex: str, scope: Scope) -> list[tuple[str, Any, int]]:
    """The names whose value is a real 2x1 column that the step uses in complex arithmetic and that the document
    never identifies with a complex number: (name, the number x + iy of its column (x, y), its line)."""
    stated = {p[0] for p in scope.complex_pairs}
    found = []
    for name, d in scope.symbols.items():
        body = d.body
        if name in stated or not isinstance(body, sympy.MatrixBase) or body.shape != (2, 1):
            continue
        if any(e.is_real is False for e in body):
            continue
        if pair_uses(lhs_tex, name, scope)[1] or pair_uses(rhs_tex, name, scope)[1]:
            found.append((name, sympy.expand(body[0] + sympy.I * body[1]), d.line))
    return found


def _usual_reading(lhs_tex: str, rhs_tex: str, scope: Scope, pairs: list[tuple[str, Any, int]]) -> Any:
    """The verdict of the step read through the usual identification x + iy <-> (x, y) of ``pairs`` (every name
    real), or None."""
    assumed = replace(scope, complex_pairs=(*scope.complex_pairs, *pairs))
    return paired_verdict(lhs_tex, rhs_tex, assumed, named=bool(pairs), assumed=not pairs)


def hedged_verdict(status: str, lhs_tex: str, rhs_tex: str, scope: Scope) -> str | None:
    """The reason a step read as written (``status``) is not decided, where it uses a column in complex arithmetic
    that the document never identifies with a number; None where the verdict stands (or nothing here applies)."""
    if status not in ("PROVED", "REFUTED"):
        return None
    pairs = unstated_columns(lhs_tex, rhs_tex, scope)
    if not pairs:
        return None
    usual = _usual_reading(lhs_tex, rhs_tex, scope, pairs)
    usual_status = usual[0] if usual is not None else "not read"
    if status == "PROVED" and usual_status == "PROVED":
        return None
    said = ", ".join(f"{n} (the column of line {line})" for n, _, line in pairs)
    numbers = ", ".join(f"{n} as {v}" for n, v, _ in pairs)
    return (
        f"{said} used in complex arithmetic: read as written, the column scaled by a complex number, {status}; "
        f"read through the usual identification ({numbers}, a column (x, y) beside a number z as x = Re z, "
        f"y = Im z), {usual_status}; {_UNSTATED_PAIR_WORDS}"
    )


def unstated_reading(lhs_tex: str, rhs_tex: str, scope: Scope) -> str | None:
    """The reason for a step whose sides are a complex number and a 2x1 column, where the document states no
    identification: the usual identification's verdict, or the names only the complex side writes; None where
    the step writes no complex number beside a column that way."""
    if scope.complex_pairs or not _number_beside_column(lhs_tex, rhs_tex, scope):
        return None  # stated: read through it (.complex_pairs); or no complex number beside a real column
    pairs = unstated_columns(lhs_tex, rhs_tex, scope)
    usual = _usual_reading(lhs_tex, rhs_tex, scope, pairs)
    if usual is None:
        return None
    left, right = usual[4], usual[5]
    one_side = sorted(str(s) for s in left.free_symbols ^ right.free_symbols)
    if one_side:
        return (
            f"the sides are a complex number and a 2x1 column; {', '.join(one_side)} written on one side only, "
            f"so the readings that compare them say nothing of the names' values here; {_UNSTATED_PAIR_WORDS}"
        )
    return (
        "the sides are a complex number and a 2x1 column; read through the usual identification (a column (x, y) "
        f"beside a number z as x = Re z, y = Im z, every name real): {usual[0]}; {_UNSTATED_PAIR_WORDS}"
    )


def _number_beside_column(lhs_tex: str, rhs_tex: str, scope: Scope) -> bool:
    """Whether, read with i the unit, one side is a 2x1 column of real entries and the other a number that writes
    i (``q e^{i x}``, ``a + ib``): not a product of names the document never defined (``R_m q``)."""
    unit = replace(scope, i_reading="unit")
    sides = [read_quiet(t, unit) for t in (lhs_tex, rhs_tex)]
    columns = [s for s in sides if isinstance(s, sympy.MatrixBase)]
    numbers = [s for s in sides if isinstance(s, sympy.Expr) and not isinstance(s, sympy.MatrixBase)]
    if len(columns) != 1 or len(numbers) != 1 or columns[0].shape != (2, 1):
        return False
    return all(e.is_real is True for e in columns[0]) and numbers[0].has(sympy.I)


__all__ = ["hedged_verdict", "unstated_columns", "unstated_reading"]
