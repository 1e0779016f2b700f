"""``R^T_m`` where the document has a number T: the transpose of R_m, or R_m to the power T?

TeX sets ``R^T_m`` as ``R_m^T``, and the reader takes it for the transpose of R_m (the common spelling of a
transposed member of a family). Where the document itself has a number called T -- it gives T a value
(``$T = 4$``), declares it a number, or uses it as one (``\\sum_{t=1}^{T}``, ``t \\le T``, ``1/T``) -- the same
writing may mean R_m raised to the power T, and a verdict read with the transpose may be wrong both ways. A
decided step that writes such a transpose is then read the other way too: with R_m raised to T's value, where
the document gives T one whole number; where both readings give the verdict it stands (and says so), else the
step is UNDECIDED with both readings in its reason.

Design constraints: only the transpose written before the subscript (``X^T_sub``, ``X^{T}_{sub}``) is doubted; a
transpose written after it (``X_m^T``) or spelt ``\\top``, ``\\mathsf{T}`` is read as before. A T that is only
ever written as a superscript after a name (a transpose), a T with a subscript or a call (``T_0``, ``T(s)``,
another name), or a T the document defines as a matrix is no number here. Pure functions of the text and the
scope; the caller decides the other reading.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import sympy

from ..readers.scope import Scope
from .result import AuditStep

__all__ = ["raised_t_doubt", "raised_t_reading", "t_as_number", "transposes_before_subscript"]

#: ``R^T_m``, ``R^{T}_{m+1}``: a T raised before the subscript (the reader's transpose of R_m)
_RAISED_T_BEFORE_SUBSCRIPT = re.compile(
    r"(?<![\\A-Za-z])(\\mathrm\{cal[A-Z]\}|[A-Za-z])\s*\^\s*(?:\{\s*T\s*\}|T(?![A-Za-z]))"
    r"\s*(_\s*(?:\{[^{}]*\}|[A-Za-z0-9]|\\[A-Za-z]+))"
)
#: a bare T: neither part of a longer name or command, nor a name of its own with a subscript or a call
_BARE_T = re.compile(r"(?<![\\A-Za-z])T(?![A-Za-z_(])")
#: what before a bare T makes it a superscript (``X^T``, ``X^{T}``) or a spelling of the transpose (``\mathsf{T}``)
_SUPERSCRIPT_BEFORE = re.compile(r"(?:\^\s*\{?|\\(?:mathsf|mathrm|mathit|text|textrm)\s*\{)\s*$")
#: a superscript that bounds a sum, a product or an integral (``\sum_{t=1}^{T}``): T is the number of terms
_BOUND_BEFORE = re.compile(
    r"\\(?:sum|prod|int|bigcup|bigcap|bigoplus|bigotimes)\s*_\s*(?:\{[^{}]*\}|\S)\s*\^\s*\{?\s*$"
)
_NUMBER_DOMAINS = ("integer", "natural", "positive integer", "real", "positive", "nonnegative")


def transposes_before_subscript(text: str) -> list[str]:
    """The transposes written before their subscript in ``text``, as written.

    Example:
        >>> transposes_before_subscript(r"R^T_m q + R_n^T k + S^{T}_{t+1}")
        ['R^T_m', 'S^{T}_{t+1}']
    """
    return [m.group(0) for m in _RAISED_T_BEFORE_SUBSCRIPT.finditer(text)]


def _used_as_number(texts: Sequence[str]) -> str:
    """The first math that writes T as a number (not as a superscript after a name), or ''."""
    for text in texts:
        for m in _BARE_T.finditer(text):
            before = text[: m.start()]
            if _SUPERSCRIPT_BEFORE.search(before) and not _BOUND_BEFORE.search(before):
                continue
            return text.strip()
    return ""


def t_as_number(texts: Sequence[str], scope: Scope, declared: dict[str, str]) -> str:
    """How the document has a number T, in words, or '' where it has none (``texts``: its math, in order).

    Example:
        >>> t_as_number([r"\\sum_{t=1}^{T} x_t", "q^T k"], Scope(), {})
        'the document uses T as a number (\\\\sum_{t=1}^{T} x_t)'
        >>> t_as_number(["q^T k", "R^T_m", "T_0(s)"], Scope(), {})
        ''
    """
    found = scope.symbols.get("T")
    if found is not None and not isinstance(found.body, sympy.MatrixBase):
        return f"the document gives T the value {found.body_source or found.body} (line {found.line})"
    if declared.get("T") in _NUMBER_DOMAINS:
        return f"the document declares T {declared['T']}"
    used = _used_as_number(texts)
    return f"the document uses T as a number ({used})" if used else ""


def raised_t_reading(text: str, power: str) -> str:
    """``text`` with each transpose written before its subscript read as a power instead: ``R^T_m`` -> ``R_m^{4}``.

    Example:
        >>> raised_t_reading(r"R^T_m = R_{4m}", "4")
        'R_m^{4} = R_{4m}'
    """
    return _RAISED_T_BEFORE_SUBSCRIPT.sub(lambda m: m.group(1) + m.group(2) + "^{" + power + "}", text)


def _whole_value(scope: Scope, status: str) -> str:
    """T's value where the document gives it one whole number (the power the other reading raises to), else ''.
    A value given in passing (an example) is taken only to refute: what holds at an example may not hold at T."""
    found = scope.symbols.get("T")
    if found is None or (found.stated_value and status != "REFUTED"):
        return ""
    return str(found.body) if isinstance(found.body, sympy.Integer) and 0 <= found.body <= 64 else ""


def raised_t_doubt(
    s: AuditStep, sides: tuple[str, str], where: tuple[Sequence[str], Scope, dict[str, str]],
    status_of: Callable[[str, str], str],
) -> None:  # fmt: skip
    """A PROVED or REFUTED step ``s`` (its sides as written) that writes ``X^T_sub`` where the document has a number
    T: kept where the power reading (decided by ``status_of``) gives its verdict too, else UNDECIDED.
    ``where``: the document's math before the step, the scope, the declared domains."""
    written = transposes_before_subscript(sides[0] + " = " + sides[1])
    said = t_as_number(*where) if written and s.status in ("PROVED", "REFUTED") else ""
    if not said:
        return
    power = _whole_value(where[1], s.status)
    other = status_of(raised_t_reading(sides[0], power), raised_t_reading(sides[1], power)) if power else ""
    shown = ", ".join(dict.fromkeys(written))
    if other == s.status:
        note = f"{shown} read as a transpose, and {s.status} too with it raised to the power T = {power}, as {said}"
        s.reason = f"{s.reason}; {note}" if s.reason else note
        return
    as_power = f"{other} read as a power T = {power}" if other else "not read as a power"
    s.reason = (
        f"writes {shown}, and {said}: {s.status} read as a transpose, {as_power} (a transpose of the member, or "
        "the member raised to the power T?): not decided"
    )
    s.status, s.method, s.counterexample = "UNDECIDED", "none", None
