"""A step about matrices and vectors the document never wrote out, decided by SymPy's matrix algebra.

``(W_q x_m)^T (W_k x_n) = x_m^T W_q^T W_k x_n`` names no entries: read by the default reader, a
transpose of ``x_m`` is not read. Here the step is read again with the undefined one-letter names as
general matrices (upper-case, ``d x d``) and vectors (lower-case, ``d x 1``; see
:mod:`..readers.general_matrices`).

Design constraints: PROVED only when the difference of the sides, transposes of products taken
and products distributed, is exactly the zero matrix -- then it holds for every matrix and vector the
names may stand for. Otherwise UNDECIDED with the reading shown, never REFUTED: what the document
means by a name (``q_m = W_q x_m`` said in words, ``R`` a rotation) may make the difference vanish.
Only names the document writes transposed or in bold are read so (a plain ``m`` stays a number, and
then the step is not read); a definition is used when its right side reads as general matrices too
(``q_m = W_q(x_m + p_m)``), a written-out matrix or a function of the names leaves the step unread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

import sympy
from sympy import MatrixExpr, MatrixSymbol, Symbol
from sympy.core.function import AppliedUndef

from ...errors import ClaimLimitError, ClaimParseError
from ..readers.general_matrices import general_name, plain_algebra
from ..readers.latex_syntax import normalize_latex, read_latex_side
from ..readers.scope import Definition, Scope

__all__ = ["GeneralStep", "TRANSPOSE_PROBLEM", "array_names", "general_step"]

#: the start of the default reader's reason for not reading a transpose of an undefined name
TRANSPOSE_PROBLEM = "^T (transpose) applies to a matrix or vector"


@dataclass(frozen=True)
class GeneralStep:
    """A step read with general matrices: PROVED or UNDECIDED, why, and the sides as read."""

    status: str
    reason: str
    lhs: Any
    rhs: Any


_NAME = r"(?<![\\A-Za-z])([A-Za-z]\s*(?:_\s*(?:\{[^{}]*\}|[A-Za-z0-9]|\\[A-Za-z]+))?)"
#: a one-letter name (its subscript kept) directly transposed, after the reader's spelling of ``^\mathsf{T}``
_TRANSPOSED = re.compile(_NAME + r"\s*\^\s*(?:\{\s*(?:T|\\top)\s*\}|T(?![A-Za-z])|\\top(?![A-Za-z]))")
_BOLD = re.compile(r"\\(?:mathbf|boldsymbol|bm)\s*\{\s*([A-Za-z])\s*\}(\s*_\s*(?:\{[^{}]*\}|[A-Za-z0-9]|\\[A-Za-z]+))?")


def _spelled(text: str) -> str | None:
    try:
        value = read_latex_side(text, 0, Scope())
    except Exception:  # a piece the reader refuses names nothing here
        return None
    return value.name if isinstance(value, Symbol) else None


def array_names(texts: list[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The names written transposed, and those plus the names written in bold, as the reader spells them.

    Example:
        >>> transposed, arrays = array_names([r"\\mathbf{x}_m^\\mathsf{T} \\mathbf{W}_q y + \\mathcal{R}_n^\\top"])
        >>> sorted(transposed), sorted(arrays)
        (['x_{m}'], ['W_{q}', 'x_{m}'])
    """
    transposed, bold = set(), set()
    for text in texts:
        plain = normalize_latex(text)
        # a subscript or exponent transposed is the whole name's (R_m^T): not a name of its own
        transposed |= {
            m.group(1) for m in _TRANSPOSED.finditer(plain) if not plain[: m.start()].rstrip().endswith(("_", "^"))
        }
        bold |= {m.group(1) + (m.group(2) or "") for m in _BOLD.finditer(text)}
    spelled = {t: _spelled(t) for t in transposed | bold}
    seen = frozenset(filter(None, (spelled[t] for t in transposed)))
    return seen, seen | frozenset(filter(None, (spelled[t] for t in bold)))


def _reads_as_number(d: Definition, scope: Scope) -> bool:
    """Whether a definition's reading treats a vector or matrix of the document as a number."""
    body = d.body
    if isinstance(body, sympy.MatrixBase) or not isinstance(body, sympy.Basic):
        return False
    used = {s.name for s in body.free_symbols if isinstance(s, Symbol)}
    called = {f.func.__name__ for f in body.atoms(AppliedUndef)}
    return bool((used | called) & scope.array_names)


def _general_scope(scope: Scope) -> Scope:
    """The scope with general matrices, each definition that read a vector as a number read again so."""
    general = replace(scope, general_matrices=True)
    symbols = dict(scope.symbols)
    for name, d in sorted(scope.symbols.items(), key=lambda kv: kv[1].line):
        if d.kind != "symbol" or d.stated_value or not d.body_source or not _reads_as_number(d, scope):
            continue
        earlier = replace(general, symbols={k: v for k, v in symbols.items() if k != name})
        try:
            body = read_latex_side(d.body_source, 0, earlier)
        except (ClaimParseError, ClaimLimitError, RecursionError):
            continue
        if isinstance(body, MatrixExpr) and _only_general(body, scope):
            symbols[name] = replace(d, body=body)
    # a family defined in general (q_m = f_q(x_m, m)) and later one member in particular (q_m = W_q x_m):
    # the later definition holds from there on
    later = {k: p for k, p in scope.patterns.items() if not _redefined(p, scope)}
    return replace(general, symbols=symbols, patterns=later)


def _redefined(pattern: Definition, scope: Scope) -> bool:
    return any(n.startswith(pattern.name + "_") and d.line > pattern.line for n, d in scope.symbols.items())


def _only_general(value: Any, scope: Scope) -> bool:
    """Sums, products and transposes of names the document writes transposed or in bold, and numbers."""
    if not plain_algebra(value) or value.atoms(AppliedUndef):
        return False
    if any(s.name not in scope.array_names for s in value.atoms(MatrixSymbol)):
        return False
    return not any(general_name(s.name) is not None for s in value.free_symbols if isinstance(s, Symbol))


def _definitions_used(text: str, scope: Scope, general: Scope) -> str:
    """Which definitions the general reading wrote out (``q_{m}`` by line 41), in words."""
    try:
        value = read_latex_side(text, 0, Scope(general_matrices=True))
        written = {s.name for s in value.atoms(MatrixSymbol)}
    except Exception:  # the names are said only when they can be listed
        return ""
    again = {n: d for n, d in general.symbols.items() if d is not scope.symbols.get(n)}
    used = [f"{n} by line {d.line}" for n, d in again.items() if n in written]
    return f"; with {', '.join(sorted(used))} as general matrices" if used else ""


def _general_sides(lhs: str, rhs: str, scope: Scope, general: Scope) -> tuple[Any, Any] | None:
    try:
        left = read_latex_side(lhs, 0, general)
        right = read_latex_side(rhs, 0, general)
    except (ClaimParseError, ClaimLimitError, RecursionError):
        return None
    if not (isinstance(left, MatrixExpr) and isinstance(right, MatrixExpr)) or left.shape != right.shape:
        return None
    if not (_only_general(left, scope) and _only_general(right, scope)):
        return None
    return left, right


def _turned(difference: Any) -> Any:
    """A 1 x 1 difference with each term as the one of it and its transpose that sorts first.

    A 1 x 1 matrix is its own transpose (``x^T y = y^T x`` whatever the entries), so this changes
    no value, and terms that are transposes of each other cancel.
    """
    if not isinstance(difference, MatrixExpr) or difference.shape != (1, 1):
        return difference
    terms = difference.args if isinstance(difference, sympy.MatAdd) else (difference,)
    turned = [min(t, t.T.doit(), key=sympy.default_sort_key) for t in terms]
    return sympy.expand(sympy.MatAdd(*turned).doit())


def _shapes(left: Any, right: Any) -> str:
    names = sorted({s for side in (left, right) for s in side.atoms(MatrixSymbol)}, key=str)
    said = [f"{s.name} {'d x d' if s.shape[1] != 1 else 'd x 1'}" for s in names]
    return "names read as general matrices and vectors of any size d (" + ", ".join(said) + ")"


def general_step(lhs: str, rhs: str, scope: Scope, as_numbers: tuple[str, ...] = ()) -> GeneralStep | None:
    """The step read with general matrices and decided where the matrix algebra decides it, or None.

    None when the sides cannot be read so (a function of a matrix, shapes that do not fit, a side
    that is a number) -- unless the default reading took ``as_numbers``, names the document writes
    transposed, for numbers: then the step is not decided, and says why.

    Example:
        >>> general_step("(W x)^T (W y)", "x^T W^T W y", Scope(array_names=frozenset("Wxy"))).status
        'PROVED'
    """
    general = _general_scope(scope)
    sides = _general_sides(lhs, rhs, scope, general)
    if sides is None:
        if not as_numbers:
            return None
        why = (
            f"{', '.join(as_numbers)} is written transposed in the document, so a vector or matrix, but read here "
            "as a number (or inside a function or a written-out matrix): not decided"
        )
        return GeneralStep("UNDECIDED", why, None, None)
    left, right = sides
    reading = _shapes(left, right) + _definitions_used(f"{lhs} + {rhs}", scope, general)
    difference = _turned(sympy.expand((left - right).doit()))
    if difference == 0 or getattr(difference, "is_ZeroMatrix", False):
        return GeneralStep("PROVED", f"{reading}: the sides agree by the rules of matrix algebra", left, right)
    why = (
        f"{reading}: the sides differ by {difference}, which may vanish for what the document means by these "
        "names: not decided"
    )
    return GeneralStep("UNDECIDED", why, left, right)
