"""Steps that call a primed name (``a''(s)``, read by :mod:`..readers.primed_calls`): the reading said in the
reason, and the REFUTED verdicts it cannot carry.

* ``f(y) = f(x) + f'(x)(y - x) + \\dots`` where the document defines ``f(x)``: a statement about f's values at
  two points (an expansion), never f defined again with the argument y (:func:`values_of_defined`).
* A primed function the document does not define (``\\phi_j''(s)``) is a value of its own; the text may relate
  it to another name in words, so a step with it is never REFUTED.
* A name that a step reaches only as the point where a derivative is taken (``\\xi`` in ``a''(\\xi)``, written in
  the step itself or in a definition it uses) is the point of Taylor's remainder or of the mean value theorem,
  one the text may choose ("for some ξ", "ξ between s_1 and s"): a counterexample at another point refutes
  nothing, so such a step is not REFUTED.

Design constraints: pure functions of the step, its text and the document's math; each only ever turns
REFUTED into UNDECIDED or adds words to a reason, never decides.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

import sympy

from ..readers.latex_syntax import normalize_latex, read_quiet
from ..readers.primed_calls import PRIMED_CALL, primed_call_bracket, primed_notes, unknown_primed
from ..readers.scope import Scope
from .reading import Head, free, mentions
from .result import AuditStep

__all__ = ["point_names", "primed_step", "values_of_defined"]


def values_of_defined(head: Head | None, body: str, scope: Scope, explicit: bool) -> bool:
    """Whether ``head = body`` states values of a function the document defines of another argument, using it
    on the right (``a(s_1) = a(s) + a'(s)(s_1 - s) + ...`` after ``a(s) = ...``), or at a name its definition holds
    as a number (``h(t_1) = g(t_1)`` after ``h(t) = (t - t_1) ...``: t_1 is no new argument): a step, not a
    definition.

    Example:
        >>> from ..readers.scope import Definition
        >>> s, t_1 = sympy.Symbol("s"), sympy.Symbol("t_{1}")
        >>> scope = Scope(functions={"a": Definition("function", "a", s**2 - t_1, (s,))})
        >>> values_of_defined(Head("function", "a", ("y",)), "a(s) + 2 s (y - s)", scope, False)
        True
        >>> [values_of_defined(Head("function", "a", (y,)), "0", scope, False) for y in ("t_{1}", "y")]
        [True, False]
    """
    if explicit or head is None or head.kind != "function" or head.key not in scope.functions:
        return False
    d = scope.functions[head.key]
    if tuple(str(p) for p in d.params) == head.params:
        return False
    held = {x.name for x in free(d.body) if isinstance(x, sympy.Symbol)} - {str(p) for p in d.params}
    return mentions(head, normalize_latex(body)) or bool(held & set(head.params))


def _arguments(text: str) -> list[tuple[int, int]]:
    """The spans of the arguments of every primed call in ``text``."""
    spans = []
    for m in PRIMED_CALL.finditer(text):
        opening, end = primed_call_bracket(text, m)
        if end > 0:
            spans.append((opening + 1, end - 1))
    return spans


def point_names(texts: list[str]) -> dict[str, str]:
    """The names the document passes alone to a primed call (``\\xi_1`` in ``a''(\\xi_1)``), each as written
    (spaces dropped) with the name the reader gives it.

    Example:
        >>> point_names([r"f(y) = f(x) + \\frac{1}{2} f''(\\xi_1) y^2"])
        {'\\\\xi_1': 'xi_{1}'}
    """
    out: dict[str, str] = {}
    for text in texts:
        text = normalize_latex(text)
        for a, b in _arguments(text):
            value = read_quiet(text[a:b], Scope())
            if isinstance(value, sympy.Symbol):
                out[re.sub(r"\s+", "", text[a:b])] = value.name
    return out


def _written_outside_calls(spelling: str, text: str) -> bool:
    """Whether ``text`` writes the name spelled so outside the arguments of its primed calls."""
    spans = _arguments(text)
    for a, b in reversed(spans):
        text = text[:a] + " " * (b - a) + text[b:]
    compact = re.sub(r"\s+", "", text)
    rx = r"(?<![A-Za-z\\])" + re.escape(spelling) + r"(?![A-Za-z0-9])"
    return re.search(rx, compact) is not None


def _names_read(s: AuditStep) -> set[str]:
    """The names in the step's sides as read and in its counterexample."""
    out: set[str] = set()
    for side in (s.lhs, s.rhs):
        if isinstance(side, (sympy.Basic, sympy.MatrixBase)):
            out |= {x.name for x in side.free_symbols if isinstance(x, sympy.Symbol)}
    if s.counterexample is not None:
        out |= {str(k) for k in s.counterexample.values}
    return out


def _refuted_why(s: AuditStep, text: str, points: Mapping[str, str]) -> str:
    """Why a REFUTED step that reads a primed call is not refuted (empty where it is)."""
    own = [n for side in (s.lhs, s.rhs) for n in unknown_primed(side)]
    if own:
        return (
            f"uses {own[0]}, a primed function the document does not define, read as a value of its own (the text "
            "may relate it to another name in words): the counterexample may not hold: not decided"
        )
    used = _names_read(s)
    for spelling, name in points.items():
        if name in used and not _written_outside_calls(spelling, text):
            return (
                f"{spelling} enters only as the point where a derivative is taken, a point the text may choose "
                "(Taylor's remainder, the mean value theorem): a counterexample at other points refutes nothing: "
                "not decided"
            )
    return ""


def _bare(scope: Scope, tex: str) -> Any:
    """``tex`` read with no definitions, or None."""
    return read_quiet(tex, scope)


def primed_step(s: AuditStep, text: str, scope: Scope, points: Mapping[str, str]) -> None:
    """The reading of the step's primed calls said in its reason; a REFUTED step they leave in doubt UNDECIDED."""
    compact = normalize_latex(text)
    probe = functools.partial(_bare, Scope(domains=scope.domains))
    notes = primed_notes(compact, scope, probe) if PRIMED_CALL.search(compact) else []
    why = _refuted_why(s, compact, points) if s.status == "REFUTED" and (notes or points) else ""
    if why:
        s.status, s.method, s.counterexample = "UNDECIDED", "none", None
        s.reason = why
    if notes and s.status != "UNREAD":
        s.reason = "; ".join(x for x in ("; ".join(notes), s.reason) if x)
