"""Names a document never wrote out, read as general matrices and vectors of symbolic size.

Derivations of attention scores write ``q_m^T k_n = (W_q x_m)^T (W_k x_n)`` with ``W_q``, ``x_m``
never given entries. Read with :attr:`.scope.Scope.general_matrices`, each undefined name of one
Latin letter (subscripts allowed) that the document uses as a vector or matrix (:func:`is_array`) is a
SymPy ``MatrixSymbol``: an upper-case one ``d x d`` (a weight or rotation matrix), a lower-case one
``d x 1`` (a vector); every other name stays a number (a position ``m`` inside ``cos(m theta)``). Products
keep their written order and SymPy's matrix algebra checks the shapes. A written-out matrix among them
(``q_m^T R_m^T R_n k_n`` with ``R_m`` defined entry by entry) stands as a general matrix of its own
(:func:`written_symbol`), and its entries are given back where a decision needs them. The exponential of a
square general matrix expression (``\\exp(n B)``, ``e^{B}``) is a matrix of that shape (:func:`exponential`).

Design constraints: an identity of such matrix expressions that SymPy's rewrites (transpose of a
product, distribution) reduce to zero holds for every matrix and vector of those shapes, so a proof
under this reading is a proof of the step whatever the names stand for; a difference that does not
vanish decides nothing (the document's own meaning of the names may make it vanish). Only sums,
products, scalar multiples, transposes and the exponential are read: any other function of a matrix, or a
power of one, is refused, and so is a written-out matrix that is neither square nor a column. Of the
exponential only rules that hold for every square matrix are used (:func:`exponential_form`): ``(exp X)^T =
exp(X^T)``; ``exp(X) exp(Y) = exp(X + Y)`` only where the coefficients of X and Y are proportional, so that
they are multiples of one matrix and commute (``exp(m B) exp(n B)``; never ``exp(A) exp(B)``); ``exp(k X) =
exp(X)^k`` for a whole k; the exponential of the zero matrix (a bold ``0``, :data:`BOLD_ZERO`, is one) is the
identity. Exponents are kept expanded, their like terms collected, so equal exponents are equal expressions; two
exponentials with different exponents are different matrices as far as the reading knows, which decides nothing.
The exponential of a 1 x 1 expression (``e^{q^T k}``, a number) is left to the other readings.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable
from typing import Any

import sympy
from sympy import MatrixBase, MatrixExpr, MatrixSymbol, Symbol
from sympy.matrices.exceptions import ShapeError

from ... import isolate
from ...errors import ClaimParseError

__all__ = [
    "DIMENSION",
    "WRITTEN_PREFIX",
    "MatrixExponential",
    "exponential",
    "exponential_form",
    "general_inner",
    "general_name",
    "general_product",
    "general_sum",
    "general_transpose",
    "is_array",
    "is_general",
    "plain_algebra",
    "written_symbol",
    "written_value",
]

#: the symbolic size of every general matrix and vector
DIMENSION = Symbol("d", integer=True, positive=True)

#: one Latin letter (or a calligraphic capital, ``calR``), then optionally a subscript: ``W_{q}``, ``x_{m}``,
#: ``R_{theta, n - m}``
_ONE_LETTER = re.compile(r"^(?:cal(?=[A-Z]))?([A-Za-z])(?:_\{?[^{}]*\}?)?$")
#: single letters that are constants or the size itself, never a matrix
_NOT_MATRICES = frozenset({"i", "e", "d"})
#: the zero matrix written as a bold digit (``\\boldsymbol{0}``, ``\\mathbf 0``, ``\\bm{0}``; not one with its size
#: as a subscript): among general matrices the square zero matrix of the general size (a zero vector there does not
#: fit its place, and is not read)
BOLD_ZERO = re.compile(r"\\(?:mathbf|boldsymbol|bm)\s*(?:\{\s*0\s*\}|\s0(?![0-9.]))(?!\s*_)")


def general_name(
    name: str, rows: frozenset[str] = frozenset(), columns: frozenset[str] = frozenset()
) -> MatrixSymbol | None:
    """The general matrix (upper-case letter) or vector (lower-case) a name stands for, or None for a number.

    A name of ``rows`` is a row ``1 x d``, one the document multiplies
    by matrices on the right (``x_i W_Q``); an upper-case name of ``columns`` is a column ``d x 1`` (``<R X, Y>``).

    Example:
        >>> general_name("W_{q}").shape, general_name("x_{m}").shape, general_name("theta")
        ((d, d), (d, 1), None)
        >>> general_name("x_{j}", rows=frozenset({"x_{j}"})).shape, general_name("X", columns=frozenset("X")).shape
        ((1, d), (d, 1))
    """
    match = _ONE_LETTER.match(name)
    if match is None or name in _NOT_MATRICES:
        return None
    if match.group(1).islower() and name in rows:
        return MatrixSymbol(name, 1, DIMENSION)
    cols = DIMENSION if match.group(1).isupper() and not is_array(name, columns) else 1
    return MatrixSymbol(name, DIMENSION, cols)


#: a name of one letter and a subscript with a letter in it (``x_{m}``, ``R_{-m + n}``): one of a family
_MEMBER = re.compile(r"^((?:cal)?[A-Za-z])_\{([^{}]*[A-Za-z][^{}]*)\}$")


def is_array(name: str, arrays: frozenset[str]) -> bool:
    """Whether the document uses ``name`` as a vector or matrix: it is one of ``arrays``, or of a family one
    of them belongs to (``x_{n}`` beside ``x_{m}``; a numbered member such as ``q_{0}`` may be an entry).

    Example:
        >>> is_array("x_{n}", frozenset({"x_{m}"})), is_array("x_{0}", frozenset({"x_{m}"}))
        (True, False)
    """
    if name in arrays:
        return True
    member = _MEMBER.match(name)
    return member is not None and any(
        (m := _MEMBER.match(a)) is not None and m.group(1) == member.group(1) for a in arrays
    )


def _checked(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except (ShapeError, TypeError, ValueError) as exc:
        raise ClaimParseError(f"read as general matrices and vectors, the shapes do not fit ({exc})") from None


#: the written-out matrices met among general ones, by the name of the symbol that stands for each, with the
#: ``srepr`` each is found by (printed once, when it is met)
_WRITTEN: dict[str, tuple[MatrixBase, str]] = {}
#: how the symbol standing for a written-out matrix is named: never a name a document writes
WRITTEN_PREFIX = "written#"


def _written_as_forked() -> Callable[[], None]:
    """In a warm child: each call numbers the written-out matrices it meets as a child forked for it would."""
    kept = dict(_WRITTEN)

    def put_back() -> None:
        _WRITTEN.clear()
        _WRITTEN.update(kept)

    return put_back


isolate.fresh_for_each_call(_written_as_forked)


def written_symbol(value: MatrixBase) -> MatrixSymbol:
    """The general matrix (or vector) that stands for a written-out one among general matrices.

    It has the general shape (``d x d``, or ``d x 1`` for a column), so the matrix algebra keeps it in
    its place in every product; :func:`written_value` gives back what was written, and the same
    matrix is always the same symbol.

    Example:
        >>> w = written_symbol(sympy.eye(2))
        >>> w.shape, written_value(w) == sympy.eye(2)
        ((d, d), True)
    """
    if value.cols != 1 and value.rows != value.cols:
        raise ClaimParseError("a written-out matrix that is not square, among general matrices, is not read")
    if any(isinstance(a, MatrixExpr) for e in value for a in sympy.preorder_traversal(e)):
        raise ClaimParseError("a general matrix inside a written-out matrix is not read")
    kept = sympy.ImmutableMatrix(value)
    key = sympy.srepr(kept)
    name = next((n for n, (_, k) in _WRITTEN.items() if k == key), None)
    if name is None:
        name = f"{WRITTEN_PREFIX}{len(_WRITTEN) + 1}"
        _WRITTEN[name] = (kept, key)
    return MatrixSymbol(name, DIMENSION, 1 if value.cols == 1 else DIMENSION)


def written_value(symbol: Any) -> MatrixBase | None:
    """The written-out matrix a symbol of :func:`written_symbol` stands for, or None for any other."""
    found = _WRITTEN.get(symbol.name) if isinstance(symbol, MatrixSymbol) else None
    return None if found is None else found[0]


def is_general(value: Any) -> bool:
    """Whether ``value`` is a general matrix expression (not a written-out matrix, not a number)."""
    return isinstance(value, MatrixExpr) and not isinstance(value, MatrixBase)


def _standing_in(values: list[Any]) -> list[Any]:
    """The values, each written-out matrix replaced by its symbol when general matrices are among them."""
    if not any(is_general(v) for v in values):
        return values
    return [written_symbol(v) if isinstance(v, MatrixBase) else v for v in values]


def general_product(factors: list[Any]) -> Any:
    """The product in written order; numbers scale it; a written-out matrix stands as a symbol."""
    factors = _standing_in(factors)
    return _checked(lambda: functools.reduce(operator.mul, factors, sympy.S.One))


def general_sum(terms: list[Any]) -> Any:
    """The sum of the terms, which must all have one shape; a written-out matrix stands as a symbol."""
    terms = _standing_in(terms)
    return _checked(lambda: functools.reduce(operator.add, terms))


def general_inner(a: Any, b: Any) -> Any | None:
    """``<a, b>`` of two columns, one at least a general expression, as ``a^T b``: the inner product of real
    vectors (the caller checks that the names are real); None where a side is not such a column.

    Example:
        >>> general_inner(general_name("x"), general_name("y"))
        x.T*y
    """
    if not (is_general(a) or is_general(b)):
        return None
    a, b = _standing_in([a, b])
    if not all(isinstance(v, MatrixExpr) and v.shape[1] == 1 for v in (a, b)):
        return None
    return general_product([a.T, b])


def general_transpose(base: Any) -> Any:
    """``base^T`` of a general matrix expression."""
    return base.T


_ALGEBRA = (sympy.MatAdd, sympy.MatMul, sympy.Transpose, MatrixSymbol, sympy.Identity, sympy.ZeroMatrix)


def plain_algebra(value: Any) -> bool:
    """Whether every general matrix in ``value`` sits only in sums, products, scalings, transposes and exponentials.

    Example:
        >>> x = general_name("x")
        >>> plain_algebra(x.T * x), plain_algebra(sympy.cos(Symbol("t")) * x)
        (True, True)
    """
    if not isinstance(value, MatrixExpr):
        return not any(isinstance(a, MatrixExpr) for a in sympy.preorder_traversal(value))
    if isinstance(value, MatrixSymbol):
        return True
    if isinstance(value, MatrixExponential):
        return plain_algebra(value.exponent)
    if not isinstance(value, _ALGEBRA):
        return False
    return all(plain_algebra(a) for a in value.args)


class MatrixExponential(MatrixExpr):  # type: ignore[misc]
    """``exp(X)`` of a square general matrix expression X: a matrix of X's shape, made by :func:`exponential`.

    Its only rule of its own is the transpose, ``exp(X)^T = exp(X^T)`` (the series term by term); products of
    exponentials are merged by :func:`exponential_form`. A substitution reaches into the exponent.
    """

    def __new__(cls, exponent: Any) -> Any:
        return super().__new__(cls, sympy.sympify(exponent))

    @property
    def exponent(self) -> Any:
        return self.args[0]

    @property
    def shape(self) -> tuple[Any, Any]:
        return self.exponent.shape

    def _eval_transpose(self) -> Any:
        return exponential(self.exponent.T)

    def _sympystr(self, printer: Any) -> str:
        return f"exp({printer._print(self.exponent)})"


def _linear(value: Any) -> dict[Any, Any]:
    """An expanded matrix expression as its matrix products (keys) and their scalar coefficients."""
    out: dict[Any, Any] = {}
    for term in value.args if isinstance(value, sympy.MatAdd) else (value,):
        if isinstance(term, sympy.MatMul):
            coeff, matrices = term.as_coeff_matrices()
            key: Any = sympy.MatMul(*matrices) if len(matrices) > 1 else matrices[0]
        else:
            coeff, key = sympy.S.One, term
        out[key] = sympy.expand(out.get(key, sympy.S.Zero) + coeff)
    return {k: c for k, c in out.items() if c != 0}


def _expanded(value: Any) -> Any:
    """``value`` with transposes taken inside, products distributed and like terms collected, in one order."""
    value = sympy.expand(value.doit())
    if getattr(value, "is_ZeroMatrix", False) or not isinstance(value, MatrixExpr):
        return value
    terms = _linear(value)
    if not terms:
        return sympy.ZeroMatrix(*value.shape)
    parts = [c * k if c != 1 else k for k, c in sorted(terms.items(), key=lambda kv: sympy.default_sort_key(kv[0]))]
    return sympy.MatAdd(*parts) if len(parts) > 1 else parts[0]


def exponential(argument: Any) -> Any:
    """``exp`` of a square general matrix expression, its exponent in one canonical form; the identity where the
    exponent is the zero matrix. A ClaimParseError where the argument is not square, or is 1 x 1 (a number).

    Example:
        >>> b = general_name("B")
        >>> exponential(Symbol("m") * b).T, exponential(b - b)
        (exp(m*B.T), I)
    """
    rows, cols = argument.shape
    if rows != cols or rows == 1:
        raise ClaimParseError(f"exp of {argument}, a matrix that is not square (or a number), is not read")
    exponent = _expanded(exponential_form(argument))
    if getattr(exponent, "is_ZeroMatrix", False):
        return sympy.Identity(rows)
    return MatrixExponential(exponent)


def _commute(x: Any, y: Any) -> bool:
    """Whether ``x`` and ``y`` are, for every value of their scalars, multiples of one matrix expression (so they
    commute): their coefficient vectors over the same matrix products are proportional identically."""
    a, b = _linear(x), _linear(y)
    keys = list({**a, **b})
    pairs = [(a.get(k, sympy.S.Zero), b.get(k, sympy.S.Zero)) for k in keys]
    return all(
        sympy.cancel(sympy.expand(p[0] * q[1] - p[1] * q[0])) == 0 for i, p in enumerate(pairs) for q in pairs[i + 1 :]
    )


def _power_merged(value: Any) -> Any:
    """``exp(X)^k`` as ``exp(k X)`` for a whole k (X commutes with itself); anything else as it was."""
    if isinstance(value, sympy.MatPow) and isinstance(value.base, MatrixExponential) and value.exp.is_integer:
        return exponential(value.exp * value.base.exponent)
    return value


def _merged(product: Any) -> Any:
    """A product with each run of adjacent exponentials of commuting exponents as one exponential."""
    coeff, factors = product.as_coeff_matrices()
    out: list[Any] = []
    for f in factors:
        f = _power_merged(f)
        last = out[-1] if out else None
        if isinstance(last, MatrixExponential) and isinstance(f, MatrixExponential):
            if _commute(last.exponent, f.exponent):
                out[-1] = exponential(last.exponent + f.exponent)
                continue
        out.append(f)
    return sympy.MatMul(coeff, *out).doit() if out else coeff * sympy.Identity(product.shape[0])


def exponential_form(value: Any) -> Any:
    """``value`` with every exponential in canonical form: transposes taken inside, and adjacent exponentials of
    commuting exponents (multiples of one matrix) merged. Where this changes nothing, ``value`` as it was.

    Example:
        >>> b, m, n = general_name("B"), Symbol("m"), Symbol("n")
        >>> exponential_form(exponential(m * b) * exponential(n * b))
        exp((m + n)*B)
        >>> exponential_form(exponential(-b) * exponential(b))
        I
        >>> exponential_form(exponential(b).T * exponential(b))
        exp(B.T)*exp(B)
    """
    if not isinstance(value, MatrixExpr) or not value.has(MatrixExponential):
        return value
    for _ in range(8):  # each round merges at least one pair or stops
        changed = value.replace(lambda e: isinstance(e, MatrixExponential), lambda e: exponential(e.exponent))
        changed = sympy.expand(changed.doit())
        changed = changed.replace(lambda e: isinstance(e, sympy.MatPow), _power_merged)
        changed = changed.replace(lambda e: isinstance(e, sympy.MatMul), _merged)
        if changed == value:
            break
        value = changed
    return value
