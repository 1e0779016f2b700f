"""A 2-vector identified with a complex number, where the document states the identification.

Much of this literature writes a pair both ways: ``q = [q^1 \\\\ q^2]`` and then ``q = q^1 + i q^2`` (the first
entry the real part, the second the imaginary part), then sets a column equal to a complex expression
(``[q^1 \\cos x - q^2 \\sin x \\\\ ...] = q e^{ix}``). Where the document gives a name defined as the column (a, b)
the value a + ib in math (:func:`stated_pair`), or a number a + ib the column (a, b) (:func:`column_after_number`;
the pair is kept in ``Scope.complex_pairs``, the name's value is read as before), :func:`paired_verdict` reads a
step with each such name it writes taken as that number, and a column (x, y) beside a number z compared as
x = Re z, y = Im z, every name real (the entries are the parts of the number). A column with an entry not real
(a column times ``e^{ix}``) is never compared so: it may be the column scaled or the number it stands for.
Both verdicts hold under the identification the document states; a step with a name the document makes complex
otherwise is left as it was.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import sympy
from sympy import MatrixBase

from ...errors import ClaimLimitError, ClaimParseError
from ..engine.decide import decide
from ..readers.complex_sums import indexes_with_i, unit_sum_columns
from ..readers.latex_syntax import i_in_exponent_of_e, read_quiet, subscripts_with_i
from ..readers.latex_tree import index_sums
from ..readers.limits import check_work
from ..readers.scope import Definition, Scope


def stated_pair(scope: Scope, name: str, body_tex: str) -> Any:
    """a + ib where ``name`` is defined as the column (a, b) and ``body_tex`` reads as a + ib with i the unit; else
    None. Only where the document writes i as the unit and this line indexes nothing with it."""
    old = scope.symbols.get(name)
    written = f"{name} = {body_tex}"
    if old is None or scope.complex_sums != "document" or indexes_with_i(written) or subscripts_with_i(written):
        return None  # i the unit in the document, and no index here: entry + i entry is the pair's number
    column = old.body
    if not isinstance(column, MatrixBase) or column.shape != (2, 1):
        return None
    value = read_quiet(body_tex, replace(scope, i_reading="unit"))
    if value is None or isinstance(value, MatrixBase) or not isinstance(value, sympy.Expr):
        return None
    if sympy.expand(value - (column[0] + sympy.I * column[1])) != 0:
        return None
    return value


def column_after_number(scope: Scope, name_tex: str, body_tex: str) -> tuple[str, Any] | None:
    """(name, a + ib) where ``name_tex`` names a number the document gave the value a + ib (i the unit) and
    ``body_tex`` writes it again as the column (a, b): ``q = a + ib``, then ``q = [a \\\\ b]``, the same
    identification stated the other way round (the name then takes the column as its value); else None."""
    arrow = re.fullmatch(r"\s*\\(?:vec|mathbf|bm|boldsymbol|overrightarrow)\s*\{([^{}]*)\}\s*", name_tex)
    written = re.sub(r"[\s{}]", "", arrow.group(1) if arrow else name_tex)  # \vec{z}: the column of the number z
    if scope.complex_sums != "document":
        return None
    for name, d in scope.symbols.items():
        if re.sub(r"[\s{}]", "", name) != written or isinstance(d.body, MatrixBase) or d.stated_value:
            continue
        if not isinstance(d.body, sympy.Expr) or not d.body.has(sympy.I):
            return None
        column = read_quiet(body_tex, scope)
        if not isinstance(column, MatrixBase) or column.shape != (2, 1) or any(e.has(sympy.I) for e in column):
            return None
        return (name, d.body) if sympy.expand(d.body - (column[0] + sympy.I * column[1])) == 0 else None
    return None


def paired_name(tex: str, scope: Scope) -> str | None:
    """The name of a 2x1 column the document defined that ``tex`` writes alone (``q_m`` for ``q_{m}``), or None."""
    written = re.sub(r"[\s{}]", "", tex)
    for name, d in scope.symbols.items():
        if re.sub(r"[\s{}]", "", name) == written and isinstance(d.body, MatrixBase) and d.body.shape == (2, 1):
            return name
    return None


def paired_verdict(
    lhs_tex: str, rhs_tex: str, scope: Scope, *, named: bool = True, assumed: bool = False
) -> tuple[str, str, str, Any, Any, Any] | None:
    """The verdict of a step read with the names the document identifies with complex numbers taken as those
    numbers: (status, method, reason, counterexample, lhs, rhs), or None where that reading does not apply.
    ``named``: only a step that writes such a name; else also a column beside a complex number with none (the
    document states the identification, so its columns and complex numbers are compared so). ``assumed``: read so
    even where the document states no identification (the caller says so; see :mod:`.unstated_pairs`)."""
    text = lhs_tex + " " + rhs_tex
    used = [(n, v, line) for n, v, line in scope.complex_pairs if _still(scope, n, v) and _mentions(text, n)]
    if (named and not used) or not (scope.complex_pairs or assumed) or not _unit_here(text, scope):
        return None
    symbols = dict(scope.symbols)
    for name, value, line in used:
        symbols[name] = Definition("symbol", name, value, (), f"{name} = {value}", line)
    here = replace(scope, symbols=symbols, i_reading="unit")
    left, right = read_quiet(lhs_tex, here), read_quiet(rhs_tex, here)
    if left is None or right is None:
        return None
    try:
        left, right = index_sums(left, right, dict(scope.domains), symbols)
    except (ClaimParseError, ClaimLimitError):
        return None
    free = set().union(*(getattr(s, "free_symbols", set()) for s in (left, right)))
    if any(scope.domains.get(s.name) == "complex" for s in free if isinstance(s, sympy.Symbol)):
        return None  # a name the document makes complex: not the parts of a number
    real = {s: sympy.Symbol(s.name, real=True) for s in free if isinstance(s, sympy.Symbol)}
    if not isinstance(left, sympy.Basic) or not isinstance(right, sympy.Basic):
        return None
    sides = _as_columns(left.xreplace(real), right.xreplace(real))
    if sides is None:
        return None
    left, right = sides
    try:
        check_work(left, right)
        verdict, method, cex = decide(left, right)
    except (ClaimLimitError, RecursionError):
        return None
    if verdict.value not in ("PROVED", "REFUTED"):
        return None
    said = ", ".join(f"{n} as {v} (line {line})" for n, v, line in used)
    # a name read per use (:mod:`.pair_uses`) stands in the list under a stand-in of its own: its number is shown alone
    stated = ", ".join(
        f"{v} (line {line})" if n.startswith("varpi_{") else f"{n} = {v} (line {line})"
        for n, v, line in scope.complex_pairs
    )
    reason = (
        f"read with {said}: the document identifies the column with that complex number; a column (x, y) beside "
        "a number z read as x = Re z, y = Im z, every name real"
        if used
        else f"a column (x, y) beside a number z read as x = Re z, y = Im z, every name real: the identification "
        f"the document states of its columns with complex numbers ({stated})"
    )
    return verdict.value, method, reason, cex, left, right


def still_paired(scope: Scope, name: str, value: Any) -> bool:
    """Whether the name still has the value identified (the column, or the number itself): not defined again."""
    return _still(scope, name, value)


def _still(scope: Scope, name: str, value: Any) -> bool:
    """Whether the name still has the value identified (the column, or the number itself): not defined again."""
    d = scope.symbols.get(name)
    body = d.body if d is not None else None
    if isinstance(body, MatrixBase):
        return body.shape == (2, 1) and sympy.expand(body[0] + sympy.I * body[1] - value) == 0
    return isinstance(body, sympy.Expr) and sympy.expand(body - value) == 0


def _unit_here(text: str, scope: Scope) -> bool:
    """Whether each bare i of ``text`` is the unit: the document never indexes with i, or this text does not and
    writes i in an exponent of e or as the unit of a sum a + ib (the readings the audit gives such a step)."""
    if not scope.index_i or not re.search(r"(?<![A-Za-z\\])i(?![A-Za-z])", text):
        return True
    if indexes_with_i(text) or subscripts_with_i(text):
        return False
    return i_in_exponent_of_e(text) or bool(unit_sum_columns(text))


def _as_columns(left: Any, right: Any) -> tuple[Any, Any] | None:
    """The two sides in one shape: a 2x1 column beside a number becomes (Re z, Im z); None for other shapes."""
    lm, rm = isinstance(left, MatrixBase), isinstance(right, MatrixBase)
    if lm and rm:
        return (left, right) if left.shape == right.shape else None
    if not lm and not rm:
        return left, right
    column, number = (left, right) if lm else (right, left)
    if column.shape != (2, 1) or not isinstance(number, sympy.Expr):
        return None
    if any(e.is_real is not True for e in column):
        return None  # a column times e^{i x}: the column scaled, or the number it stands for -- not said
    parts = sympy.Matrix([sympy.re(number), sympy.im(number)])
    return (column, parts) if lm else (parts, column)


def _mentions(text: str, name: str) -> bool:
    """Whether ``text`` writes the name (``q_{m}`` as ``q_m`` or ``q_{m}``), not only its entries (``q_m^1``)."""
    plain = name.replace("{", "").replace("}", "")
    squeezed = text.replace("{", "").replace("}", "")
    after = r"(?![\^_\d])" if "_" in plain else r"(?![\^_\dA-Za-z])"  # q_m^1, u^1: an entry, not the name
    return re.search(r"(?<![A-Za-z\\])" + re.escape(plain) + after, squeezed) is not None


__all__ = ["column_after_number", "paired_name", "paired_verdict", "stated_pair", "still_paired"]
