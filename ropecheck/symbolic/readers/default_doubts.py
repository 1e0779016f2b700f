"""Verdicts that rest on a reader's default rather than on the text: a log or a root of a name at a negative
value, ``j`` read as a real number in an exponent of e, ``\\log`` read as the natural log where no base is written.

* ``\\ln(ab) = \\ln a + \\ln b`` refuted at a = -1, b = -2: a text that writes the log (or a root) of a name
  means a real one, of a size or a scale; the counterexample refutes the reader's extension of the log to
  negative numbers, not the text (:func:`negative_under_root_at`).
* ``e^{j\\theta} = \\cos\\theta + j\\sin\\theta`` refuted with j real: in an exponent of e, j may be the imaginary
  unit as engineers write it (:func:`j_in_exponent`).
* ``z z = \\|z\\|^2`` refuted with ``‖z‖`` a positive name of its own: the norm says nothing of z read so, so
  values of the two refute nothing (:func:`norm_beside_name`).
* ``\\|q\\|^2 = q_m^T q_m`` refuted with ``‖q‖`` a name of its own where the document defines the family ``q_m``:
  the norm may be meant of a member (of every member, of one the text fixed), so it refutes nothing
  (:func:`norm_of_family`).
* ``\\log 100 = 2``: a log with no base is natural in mathematics, of base 10 or 2 elsewhere; a verdict is kept
  only where every one of those bases gives it (:func:`unbased_logs`, :func:`with_log_base`), unless the text
  writes e raised or ``\\exp`` beside the log (``\\log e^{x} = x``: natural by the text itself).

Used by the claim checker (:mod:`.claim`) and by the audit's doubts. Design constraints: pure functions of the
text, the sides and a counterexample's values; each only ever turns a verdict into UNDECIDED.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import sympy
from sympy import MatrixBase

from .latex_syntax import NORM_CLOSE, NORM_OPEN

__all__ = [
    "j_in_exponent",
    "negative_under_root_at",
    "norm_beside_name",
    "norm_of_family",
    "unbased_logs",
    "with_log_base",
]

#: ``e^{j s}``, ``e^{-j\\omega t}``: j in an exponent of e, where it is the imaginary unit as engineers write it
_J_EXPONENT = re.compile(r"(?<![A-Za-z\\])e\s*\^\s*\{?\s*-?\s*j(?![A-Za-z])")


def j_in_exponent(text: str, values: Mapping[Any, Any]) -> bool:
    r"""Whether a counterexample's ``values`` give j a value while ``text`` raises e to a power opening with j.

    Example:
        >>> from sympy import Symbol
        >>> j_in_exponent(r"e^{j\theta} = \cos\theta", {Symbol("j"): 1}), j_in_exponent(r"x_j = 1", {Symbol("j"): 1})
        (True, False)
    """
    return any(getattr(k, "name", "") == "j" for k in values) and _J_EXPONENT.search(text) is not None


def negative_under_root_at(lhs: Any, rhs: Any, values: Mapping[Any, Any], *, real_only: bool = False) -> str:
    """The base of a root (``\\sqrt{d_h}``, any power to a fraction), or the argument of a log, of a name that
    ``values`` make negative (or 0, in a log), as text; "" where there is none. ``real_only``: only bases and
    arguments whose names are all real (a name declared complex may be negative: a log of it is meant so).

    Example:
        >>> from sympy import log, symbols
        >>> a, b = symbols("a b", real=True)
        >>> negative_under_root_at(log(a * b), log(a) + log(b), {a: -1, b: -2})
        'a'
    """
    at_values = {k: sympy.sympify(v) for k, v in values.items()}
    for side in (lhs, rhs):
        parts = side if isinstance(side, MatrixBase) else [side]
        for part in parts:
            if not isinstance(part, sympy.Basic):
                continue
            for p in part.atoms(sympy.Pow):
                if not (p.exp.is_Rational and not p.exp.is_Integer) or not p.base.free_symbols:
                    continue
                if real_only and not all(x.is_real for x in p.base.free_symbols):
                    continue
                at = p.base.xreplace(at_values)
                if at.is_number and at.is_extended_negative:
                    return str(p.base)
            for f in sorted(part.atoms(sympy.log), key=sympy.default_sort_key):  # \log(ab) at a, b < 0
                if real_only and not all(x.is_real for x in f.args[0].free_symbols):
                    continue
                at = f.args[0].xreplace(at_values)
                if f.args[0].free_symbols and at.is_number and at.is_extended_nonpositive:
                    return str(f.args[0])
    return ""


#: ``\\log`` with no base after it (``\\log_2``, ``\\log_{10}`` have one)
_UNBASED_LOG = re.compile(r"\\log(?![A-Za-z])(?!\s*_)")
#: what makes a log natural by the text itself: Euler's number or the exponential beside it (``\log e^{x} = x``)
_NATURAL = re.compile(r"(?<![\\A-Za-z])e\s*\^|\\exp(?![A-Za-z])|\\ln(?![A-Za-z])|\\mathrm\s*\{\s*e\s*\}")


def unbased_logs(text: str) -> bool:
    r"""Whether ``text`` writes ``\log`` with no base, and nothing that makes it natural (e raised, ``\exp``).

    Example:
        >>> unbased_logs(r"\log 100 = 2"), unbased_logs(r"\log_2 8 = 3"), unbased_logs(r"\log e^{x} = x")
        (True, False, False)
    """
    return _UNBASED_LOG.search(text) is not None and _NATURAL.search(text) is None


def with_log_base(text: str, base: int) -> str:
    r"""``text`` with every ``\log`` of no base given ``base``: ``\log x`` -> ``\log_{10} x``."""
    return _UNBASED_LOG.sub(rf"\\log_{{{base}}}", text)


def norm_beside_name(*sides: Any) -> str:
    """``‖q‖`` read as a name in a step that also uses ``q``: the norm, or "" when there is none such. A norm read
    as a positive name of its own says nothing of the name inside it, so values of the two refute nothing."""
    names: set[str] = set()
    for side in sides:
        if isinstance(side, (sympy.Basic, MatrixBase)):
            names |= {str(x) for x in side.free_symbols}
            names |= {str(x.label) for x in side.atoms(sympy.IndexedBase)} if isinstance(side, sympy.Basic) else set()
    normed = {name: _normed_name(name) for name in names}
    for name in sorted(names):
        inner = normed[name]
        if inner and any(n == inner or n.startswith(inner.split("_")[0] + "_") for n in names if n != name):
            return name
        if inner and any(normed[n] == inner for n in names if n != name):  # \|q\| beside \|q\|_2: which norm?
            return name
    return ""


def norm_of_family(families: Iterable[str], *sides: Any) -> str:
    """``‖q‖`` read as a name in a step where ``families`` (the bases of the families a document defines) has q's
    letter: the norm, or "" when there is none such.

    Example:
        >>> q, x = sympy.Symbol("‖q‖"), sympy.Symbol("x")
        >>> norm_of_family(["q", "R"], q - x), norm_of_family(["R"], q - x)
        ('‖q‖', '')
    """
    bases = {f.strip().lstrip("\\").split("_")[0] for f in families}
    names = set()
    for side in sides:
        if isinstance(side, (sympy.Basic, MatrixBase)):
            names |= {str(x) for x in side.free_symbols}
    for name in sorted(names):
        inner = _normed_name(name)
        if inner and inner.lstrip("\\").split("_")[0] in bases:
            return name
    return ""


def _normed_name(name: str) -> str:
    """``q`` of a norm read as a name (``‖q‖``, ``‖q‖_{2}``), or ""."""
    m = re.fullmatch(re.escape(NORM_OPEN) + r"(.+)" + re.escape(NORM_CLOSE) + r"(?:_\{[^{}]*\})?", name)
    return m.group(1) if m else ""
