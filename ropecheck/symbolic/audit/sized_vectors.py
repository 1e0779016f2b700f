"""A step about vectors the document never wrote out, whose size the written-out matrices they meet fix.

``(T_a u)^T (T_b v) = u^T T_a^T T_b v`` with ``T_a`` written out ``2 x 2`` and ``u``, ``v`` never defined:
the general reading (:mod:`.general`) keeps ``u`` and ``v`` of any size ``d``, proves the step by matrix
algebra or leaves it undecided. Here the sizes are worked out from the products: ``T_a u`` fits only when
``u`` has 2 entries, ``u^T v`` only when ``v`` has as many as ``u``. When every name of the step that is not
written out is a vector whose size the products so fix, each is read as a column of that many entries of its
own, and the step is decided entry by entry: PROVED, or REFUTED with entries that break it.

Design constraints: only vectors (lower-case names read as columns) are sized; a step with a general matrix
(an undefined ``W_q``, of any shape) is left to the general reading. A size is taken only where the shapes
force it -- a vector no written-out matrix reaches keeps no size and the step is left as it was; shapes that
cannot fit leave it too. The entries are free (real, as every name the document gives no domain): a vector
the document defines, or whose letter names other things in the scope or the step (``u`` beside ``u_1``,
perhaps its entries), may be tied to them, so a REFUTED there is UNDECIDED with the reading shown (a PROVED
holds for every entry, so for those too); so is a REFUTED of a step that sets the imaginary unit beside the
vectors (``q^T e^{i t} k``: the complex notation for a turn of each pair of entries).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import sympy
from sympy import MatrixExpr, MatrixSymbol, Symbol

from ...errors import ClaimLimitError
from ..engine.decide import Verdict, decide
from ..readers.general_matrices import DIMENSION, MatrixExponential, written_value
from ..readers.scope import Scope, apply_domains, domain_symbol

__all__ = ["SizedStep", "general_size_fits", "sized_step"]


@dataclass(frozen=True)
class SizedStep:
    """A step decided with its vectors sized: the status, why, the sides as columns, a counterexample or None."""

    status: str
    reason: str
    lhs: Any
    rhs: Any
    counterexample: Any


class _NoSize(Exception):
    """The shapes do not force a size, do not fit, or the step has a name that is not a sized vector."""


class _Sizes:
    """Sizes of the step's matrices as numbers or as the names of vectors, made equal where products need it."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}
        self.value: dict[str, int] = {}

    def root(self, name: str) -> str:
        while self.parent.get(name, name) != name:
            name = self.parent[name]
        return name

    def same(self, a: Any, b: Any) -> None:
        """Record that the sizes ``a`` and ``b`` (a number, or a vector's name) are equal."""
        if isinstance(a, int) and isinstance(b, int):
            if a != b:
                raise _NoSize
            return
        if isinstance(a, int):
            a, b = b, a
        ra = self.root(a)
        if isinstance(b, int):
            if self.value.setdefault(ra, b) != b:
                raise _NoSize
            return
        rb = self.root(b)
        if ra == rb:
            return
        self.parent[ra] = rb
        if ra in self.value and self.value.setdefault(rb, self.value[ra]) != self.value[ra]:
            raise _NoSize

    def size(self, name: str) -> int | None:
        return self.value.get(self.root(name))


def _shape(value: Any, sizes: _Sizes) -> tuple[Any, Any]:
    """The shape of a matrix expression, each vector's length its name; the sizes a product or sum needs noted."""
    if isinstance(value, MatrixSymbol):
        written = written_value(value)
        if written is not None:
            return written.shape
        if value.shape[1] != 1 or not re.match(r"[a-z]", value.name):
            raise _NoSize  # a general matrix: any shape, left to the general reading
        return value.name, 1
    if isinstance(value, sympy.Transpose):
        rows, cols = _shape(value.arg, sizes)
        return cols, rows
    if isinstance(value, sympy.MatMul):
        shapes = [_shape(a, sizes) for a in value.args if isinstance(a, MatrixExpr)]
        for (_, inner), (outer, _) in zip(shapes, shapes[1:]):
            sizes.same(inner, outer)
        return shapes[0][0], shapes[-1][1]
    if isinstance(value, sympy.MatAdd):
        shapes = [_shape(a, sizes) for a in value.args]
        for rows, cols in shapes[1:]:
            sizes.same(rows, shapes[0][0])
            sizes.same(cols, shapes[0][1])
        return shapes[0]
    raise _NoSize


def _general_shape(value: Any, sizes: _Sizes) -> tuple[Any, Any] | None:
    """The shape of a general matrix expression, every general matrix ``d x d`` and vector ``d x 1`` (one size d
    for all) and each written-out matrix its own; None for a part this does not follow."""
    if isinstance(value, MatrixSymbol):
        written = written_value(value)
        if written is not None:
            return written.shape
        rows, cols = ("d" if n != 1 else 1 for n in value.shape)  # a row of the document's own is 1 x d
        return rows, cols
    if isinstance(value, sympy.Transpose):
        inner = _general_shape(value.arg, sizes)
        return None if inner is None else (inner[1], inner[0])
    if isinstance(value, MatrixExponential):  # exp(X): X square, and so is its exponential
        inner = _general_shape(value.exponent, sizes)
        if inner is not None:
            sizes.same(inner[0], inner[1])
        return inner
    if isinstance(value, (sympy.Identity, sympy.ZeroMatrix)):  # I, or a bold zero (.general_matrices.BOLD_ZERO)
        return ("d", "d") if value.shape == (DIMENSION, DIMENSION) else None
    if isinstance(value, (sympy.MatMul, sympy.MatAdd)):
        parts = [_general_shape(a, sizes) for a in value.args if isinstance(a, MatrixExpr)]
        if any(p is None for p in parts):
            return None
        shapes = [p for p in parts if p is not None]
        if isinstance(value, sympy.MatMul):
            for (_, inner_size), (outer, _) in zip(shapes, shapes[1:]):
                sizes.same(inner_size, outer)
            return shapes[0][0], shapes[-1][1]
        for rows, cols in shapes[1:]:
            sizes.same(rows, shapes[0][0])
            sizes.same(cols, shapes[0][1])
        return shapes[0]
    return None


def general_size_fits(left: Any, right: Any) -> bool:
    """Whether the sides, read with general matrices, fit at a size d above 1: False where their products fit
    only with vectors of one entry (``R m`` with ``m`` a vector beside ``q_m``: numbers, not vectors) or not at all.

    Example:
        >>> from ..readers.general_matrices import general_name
        >>> x, y = general_name("x"), general_name("y")
        >>> general_size_fits(x.T * y, y.T * x), general_size_fits(x * y, y * x)
        (True, False)
    """
    sizes = _Sizes()
    try:
        shapes = [_general_shape(side, sizes) for side in (left, right)]
        if shapes[0] is not None and shapes[1] is not None:
            for a, b in zip(shapes[0], shapes[1]):
                sizes.same(a, b)
    except _NoSize:
        return False
    return sizes.size("d") != 1


def _columns(left: Any, right: Any, domains: Mapping[str, str]) -> dict[Any, Any] | None:
    """Each vector of the sides as a column of entries of its own, of the size the shapes force; None where
    a name is no such vector or a size is not forced."""
    sizes = _Sizes()
    try:
        for a, b in zip(_shape(left, sizes), _shape(right, sizes)):
            sizes.same(a, b)
    except _NoSize:
        return None
    out: dict[Any, Any] = {}
    for s in left.atoms(MatrixSymbol) | right.atoms(MatrixSymbol):
        written = written_value(s)
        if written is not None:
            out[s] = written
            continue
        n = sizes.size(s.name)
        if n is None:
            return None
        plain = re.sub(r"[\\{}\s]", "", s.name)
        real = domain_symbol(s.name, domains).is_real  # the entries take the vector's domain: real unless stated
        out[s] = sympy.ImmutableMatrix([Symbol(f"{plain}[{k + 1}]", real=real) for k in range(n)])
    return out


def _tied(vectors: list[str], numbers: set[str], scope: Scope) -> list[str]:
    """The vectors whose letter also names something else in the scope or the step (``u`` beside ``u_1``)."""
    defined = {re.sub(r"[\\{}\s]", "", k) for k in (*scope.symbols, *scope.patterns, *scope.functions)}
    tied = []
    for v in vectors:
        letter = v[0]
        others = {n for n in numbers | defined if n != v and re.match(re.escape(letter) + r"(?![A-Za-z])", n)}
        if others:
            tied.append(v)
    return tied


def sized_step(left: Any, right: Any, scope: Scope) -> SizedStep | None:
    """The step with its vectors sized by the written-out matrices they meet, decided entry by entry; None where
    not every name is such a vector (see the module's design constraints).

    Example:
        >>> from ..readers.general_matrices import general_name, written_symbol
        >>> u, t = general_name("u"), written_symbol(sympy.Matrix([[0, -1], [1, 0]]))
        >>> sized_step((t * u).T * (t * u), u.T * u, Scope()).status
        'PROVED'
    """
    columns = _columns(left, right, scope.domains)
    sized = {s.name: c.rows for s, c in (columns or {}).items() if written_value(s) is None}
    if columns is None or not sized:
        return None
    try:
        lhs, rhs = (
            apply_domains(sympy.ImmutableMatrix(s.xreplace(columns).doit()), scope.domains) for s in (left, right)
        )
    except (TypeError, ValueError, sympy.ShapeError):
        return None
    try:
        verdict, _, cex = decide(lhs, rhs)
    except ClaimLimitError:
        return None
    said = ", ".join(f"{v} a column of {n}" for v, n in sorted(sized.items()))
    reading = f"{said} entries of its own (the size the written-out matrices it meets fix)"
    if verdict == Verdict.PROVED:
        return SizedStep("PROVED", f"{reading}: the sides agree entry by entry", lhs, rhs, None)
    if verdict != Verdict.REFUTED:
        return None
    if any(side.has(sympy.I) for side in (lhs, rhs)) and all(c.free_symbols for c in columns.values()):
        why = (
            f"{reading}: REFUTED; but the step sets the imaginary unit beside vectors of real entries, where e^(i t) "
            "may stand for the turn by t of each pair of entries: not decided"
        )
        return SizedStep("UNDECIDED", why, lhs, rhs, None)
    entries = {x.name for c in columns.values() for x in c.free_symbols}
    numbers = {x.name for side in (lhs, rhs) for x in side.free_symbols} - entries
    tied = _tied(sorted(sized), numbers, scope)
    if tied:
        why = (
            f"{reading}: REFUTED; but the letter of {', '.join(tied)} also names other things here (perhaps its "
            "entries), which may tie them: not decided"
        )
        return SizedStep("UNDECIDED", why, lhs, rhs, None)
    return SizedStep("REFUTED", f"{reading}: the sides differ for the entries shown", lhs, rhs, cex)
