"""Adjacent written-out matrices among general ones, multiplied out, so that equal products meet.

Read with general matrices (:mod:`.general`), each written-out matrix stands as a matrix of its own
(:func:`..readers.general_matrices.written_symbol`): ``x^T W_q^T R_m^T R_n W_k y`` and ``x^T W_q^T R_{n-m} W_k y``
are two products that the matrix algebra alone never equates. Here every run of written-out matrices that stand
side by side in a product (transposed or not, nothing between them) is replaced by one matrix: the exact product
of their entries, simplified. Two such matrices whose difference the decision procedure proves zero are the same
symbol; one proved to be the identity leaves the product (``R_m^T R_m``). A 1 x 1 term is taken as the one of it
and its transpose that sorts first (a 1 x 1 matrix is its own transpose). When the terms then cancel, the
difference is zero for every value of the general matrices.

Design constraints: only exact equalities are used -- the product of the entries as written, a run merged only
where nothing stands between its members (a general matrix is never moved past one), the simplified entries kept
only where the decision procedure proves them equal to the product, symbols merged only where their difference is
proved zero -- so a cancellation here is a proof for every value of the general matrices. Where the written-out
matrices stand for block j of block-diagonal matrices of one block structure (a pattern read as its generic block,
:mod:`.patterns`), the product of blocks j is block j of the product, so a run's product, and the identity or an
equality found there, hold for the whole matrices; a run whose blocks have different sizes is not multiplied.
Nothing here refutes: terms that do not cancel decide nothing.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy
from sympy import MatrixBase, MatrixExpr, MatrixSymbol
from sympy.matrices.exceptions import ShapeError

from ...errors import ClaimParseError
from ..engine.decide import Verdict, decide
from ..readers.general_matrices import written_symbol, written_value
from ..readers.scope import apply_domains

__all__ = ["Merged", "merged_written"]


def _value(factor: Any) -> MatrixBase | None:
    """The square written-out matrix a factor (a symbol or its transpose) stands for, or None."""
    transposed = isinstance(factor, sympy.Transpose)
    symbol = factor.arg if transposed else factor
    value = written_value(symbol)
    # a square written-out matrix stands as a square symbol (a column, even of one entry, stands as a column)
    if value is None or value.rows != value.cols or symbol.shape[0] != symbol.shape[1]:
        return None
    return value.T if transposed else value


def _unpowered(factor: Any) -> list[Any]:
    """A whole positive power of a written-out matrix (``S S`` once collected as ``S**2``) as that many factors."""
    if isinstance(factor, sympy.MatPow) and _value(factor.base) is not None:
        n = factor.exp
        if n.is_Integer and 0 < n <= 8:
            return [factor.base] * int(n)
    return [factor]


def _point(name: Any) -> Any:
    """The value a name takes in every print: fixed by its spelling, a whole number for a whole-number name."""
    code = sum((k + 1) * ord(c) for k, c in enumerate(str(name)))
    return sympy.Integer(2 + code % 23) if name.is_integer else sympy.Rational(5 + code % 89, 31)


#: a matrix's entries at one point of its names' domains (None where an entry has no value there)
_Print = tuple[tuple[complex | None, ...], ...]


def _print(value: MatrixBase) -> _Print:
    """``value``'s entries at one point of its names' domains (a whole number for a whole-number name), by rows.

    Two matrices whose prints differ are not equal, and no proof is looked for: numbers only spare the decision
    procedure here, they never prove anything."""
    return tuple(tuple(_at(value[i, j]) for j in range(value.cols)) for i in range(value.rows))


@functools.lru_cache(maxsize=4096)  # the point depends on the names only: block matrices repeat their entries
def _at(entry: Any) -> complex | None:
    """``entry`` at the point :func:`_point` gives each of its names."""
    if entry == 0:
        return 0j
    try:
        return complex(entry.xreplace({s: _point(s) for s in entry.free_symbols}).evalf(20))
    except (TypeError, ValueError, AttributeError):
        return None  # an entry with no value there (a sum, a function) may be anything


def _near(a: _Print, b: _Print, turned: bool = False) -> bool:
    """Whether two prints may be of equal matrices (``b`` transposed where ``turned``)."""
    if turned:
        b = tuple(zip(*b))
    if len(a) != len(b) or any(len(r) != len(s) for r, s in zip(a, b)):
        return False
    return all(
        x is None or y is None or abs(x - y) <= 1e-9 * (1 + abs(x) + abs(y)) for r, s in zip(a, b) for x, y in zip(r, s)
    )


def _zero(value: MatrixBase, domains: Mapping[str, str]) -> bool:
    """Whether the decision procedure proves ``value`` the zero matrix, the names in the step's domains."""
    value = apply_domains(value, domains)
    return bool(decide(value, sympy.zeros(*value.shape))[0] == Verdict.PROVED)


def _simplified(value: MatrixBase, domains: Mapping[str, str]) -> MatrixBase:
    """``value`` with its entries simplified where that is proved to change nothing; else as it was."""
    try:
        tidy = sympy.ImmutableMatrix(value.applyfunc(lambda e: sympy.trigsimp(sympy.expand(e))))
    except (TypeError, ValueError, RecursionError):  # pragma: no cover - a simplification that fails keeps the value
        return sympy.ImmutableMatrix(value)
    if tidy == value or _zero(tidy - value, domains):
        return tidy
    return sympy.ImmutableMatrix(value)  # pragma: no cover - trigsimp is exact


@dataclass
class Merged:
    """The symbols of one difference: each written-out product met, by the symbol that stands for it.

    ``made`` lists the symbols for products that no side wrote as one matrix (said in the reason)."""

    domains: Mapping[str, str]
    known: list[tuple[MatrixBase, _Print, MatrixSymbol]] = field(default_factory=list)
    made: list[MatrixSymbol] = field(default_factory=list)

    def symbol(self, value: MatrixBase, written: MatrixSymbol | None = None) -> Any:
        """The matrix for ``value``: the symbol of an equal value met before, or its transpose where ``value`` is
        equal to that value's transpose (a run read the other way round); else ``written`` or a new symbol."""
        found = _print(apply_domains(value, self.domains))
        for turned in (False, True):
            for seen, seen_print, symbol in self.known:
                other = seen.T if turned else seen
                if other.shape != value.shape or not _near(found, seen_print, turned):
                    continue
                if other == value or _zero(other - value, self.domains):
                    return symbol.T if turned else symbol
        if written is None:
            value = _simplified(value, self.domains)
            written = written_symbol(value)
            if written not in self.made:
                self.made.append(written)
        self.known.append((sympy.ImmutableMatrix(value), found, written))
        return written

    def run(self, values: list[MatrixBase]) -> Any:
        """The one matrix a run of adjacent written-out matrices is: the identity (None) or a symbol."""
        try:
            product = functools.reduce(operator.mul, values)
        except (ShapeError, TypeError, ValueError):
            return False  # blocks of different sizes: not multiplied
        if product.rows != product.cols:
            return False  # pragma: no cover - square factors
        eye = sympy.eye(product.rows)
        if _near(_print(apply_domains(product, self.domains)), _print(eye)) and _zero(product - eye, self.domains):
            return None
        return self.symbol(product)

    def term(self, term: Any) -> Any:
        """``term`` with each run of adjacent written-out matrices as one matrix (or none, for the identity)."""
        if isinstance(term, sympy.MatMul):
            coeff, factors = term.as_coeff_matrices()
        else:
            coeff, factors = sympy.S.One, [term]
        factors = [g for f in factors for g in _unpowered(f)]
        out: list[Any] = []
        at = 0
        while at < len(factors):
            end = at
            while end < len(factors) and _value(factors[end]) is not None:
                end += 1
            if end == at:
                out.append(factors[at])
                at += 1
                continue
            merged = self.run([v for f in factors[at:end] if (v := _value(f)) is not None])
            if merged is False:
                out.extend(factors[at:end])
            elif merged is not None:
                out.append(merged)
            at = end
        if not out:
            return coeff * sympy.Identity(term.shape[0])
        return sympy.MatMul(coeff, *out).doit() if coeff != 1 or len(out) > 1 else out[0]


def merged_written(difference: Any, domains: Mapping[str, str]) -> tuple[Any, list[MatrixSymbol]] | None:
    """``difference`` (expanded, a sum of matrix products) with adjacent written-out matrices multiplied out and
    equal products one symbol, like terms collected; and the symbols made for products no side wrote. None where
    it has no written-out matrix, or the merge changes nothing.

    Example:
        >>> from sympy import Symbol, cos, sin
        >>> from ..readers.general_matrices import general_name
        >>> t = Symbol("t", real=True)
        >>> turn = lambda a: sympy.Matrix([[cos(a), -sin(a)], [sin(a), cos(a)]])
        >>> x, w = general_name("x"), general_name("W")
        >>> a = written_symbol(turn(t))
        >>> merged_written(sympy.expand((x.T * w.T * a.T * a * w * x - x.T * w.T * w * x).doit()), {})[0]
        0
    """
    if not isinstance(difference, MatrixExpr) or not any(
        written_value(s) is not None for s in difference.atoms(MatrixSymbol)
    ):
        return None
    merged = Merged(domains)
    terms = difference.args if isinstance(difference, sympy.MatAdd) else (difference,)
    for term in terms:  # the matrices the sides write as one are their own symbols first
        for f in term.args if isinstance(term, sympy.MatMul) else (term,):
            if isinstance(f, MatrixSymbol) and (v := _value(f)) is not None:
                merged.symbol(v, f)
    try:
        out = []
        for term in terms:
            one = merged.term(term)
            if difference.shape == (1, 1):
                one = min(one, merged.term(sympy.expand(term.T.doit())), key=sympy.default_sort_key)
            out.append(one)
        total = sympy.expand(functools.reduce(operator.add, out).doit())
    except (ShapeError, TypeError, ValueError, ClaimParseError):
        return None
    if total == difference:
        return None
    left = total.atoms(MatrixSymbol) if isinstance(total, sympy.Basic) else set()
    return total, [s for s in merged.made if s in left]
