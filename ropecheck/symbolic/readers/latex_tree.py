"""Building SymPy expressions from parsed LaTeX: placeholders, definitions, matrices in written order, sums.

:mod:`.latex_syntax` rewrites a claim's LaTeX and parses it with SymPy's LaTeX parser; this
module turns the parse into the expression the claim means (:func:`build`), reads sums over
sequences (:func:`index_sums`), and keeps every parse made so far (:func:`remember_parse`):
parsing is most of the time a document's audit takes, and its pieces repeat. A child process
sends its parses to the caller as :func:`encode_tree` tuples, since pickling an expression
would re-evaluate it and reorder the factors of a product.

Design constraints: the parse tree is never evaluated before :func:`build` has put matrices
in their written order; every limit of :mod:`.limits` is checked while building.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

import sympy
from sympy import E, I, ImmutableMatrix, MatrixBase, Symbol

from ...errors import ClaimLimitError, ClaimParseError
from .general_matrices import (
    exponential,
    general_name,
    general_product,
    general_sum,
    general_transpose,
    is_array,
    is_general,
)
from .latex_text import Src
from .limits import MAX_EXPONENT, check_matrix, check_number, describe_number, power
from .matrix_powers import exponential_series, whole_power, written_exponential
from .scope import DOMAINS, Definition, Scope, apply_domains, domain_key
from .sympy_syntax import combine, rotation
from .transposed_pairs import check_related
from .written_rows import rows_in_front

__all__ = [
    "BLOCK_MARK",
    "BLOCK_SUM",
    "antlr_runtime_problem",
    "block_share",
    "build",
    "collapse",
    "elementwise",
    "encode_tree",
    "index_sums",
    "known_parse",
    "remember_parse",
    "times",
]

_TRANSPOSE, _HERMITIAN = Symbol("ZQMKT"), Symbol("ZQMKH")
#: a placeholder inside a name (``v_{\mathrm{pos}+k}`` parses as the symbol ``v_{ZQPHa + k}``)
#: a name whose subscript is whole numbers added or subtracted (``R_{5-2}``, read as ``R_{-2 + 5}``)
_NUMBERS_SUBSCRIPT = re.compile(r"(.+?)_\{(-?\d+(?:\s*[-+]\s*\d+)+)\}")
_PLACEHOLDER_IN_NAME = re.compile(r"ZQPH[a-z]+")


#: SymPy's parse of each text read so far (parsing is 90% of reading; a document repeats its pieces).
_PARSED: dict[str, Any] = {}
_PARSED_MAX = 4096


def known_parse(text: str) -> Any | None:
    """SymPy's parse of ``text`` if this process has it (its own, or a child's)."""
    return _PARSED.get(text)


def remember_parse(text: str, tree: Any) -> None:
    """Keep SymPy's parse of ``text`` (deterministic, immutable) for the next reading of the same text.

    ``tree`` is the parse, or its :func:`encode_tree` (as a child process sends it).
    """
    if isinstance(tree, tuple):
        try:
            tree = _decode(tree)
        except Exception:  # pragma: no cover - not a tree this module encoded
            return
    if len(_PARSED) < _PARSED_MAX and isinstance(text, str) and isinstance(tree, sympy.Basic):
        _PARSED[text] = tree


def encode_tree(tree: Any) -> tuple[Any, ...]:
    """A parse tree as nested tuples that survive pickling *unevaluated*.

    Pickling a SymPy expression rebuilds it with evaluation, which sorts and merges the
    factors of a product -- and the written order of matrix factors is what the reader needs.
    """
    if not tree.args or isinstance(tree, (Symbol, sympy.Number, sympy.NumberSymbol)):
        return ("atom", tree)
    args = tuple(encode_tree(a) for a in tree.args)
    if isinstance(tree, sympy.core.function.AppliedUndef):
        return ("undef", tree.func.__name__, args)
    return ("node", type(tree), args)


def _decode(code: tuple[Any, ...]) -> Any:
    kind = code[0]
    if kind == "atom":
        return code[1]
    args = [_decode(a) for a in code[2]]
    if kind == "undef":
        return sympy.Function(code[1])(*args)
    cls = code[1]
    try:
        return cls(*args, evaluate=False)
    except TypeError:  # a class without the keyword (Tuple, Sum's limits)
        return cls(*args)


def elementwise(a: Any, b: Any, where: Src) -> Any:
    """``a \\odot b``: entry by entry for two vectors of one shape; a scalar operand scales. A general matrix
    (of symbolic size) is not read: its product here would be the matrix product, not the product entry by entry."""
    if is_general(a) or is_general(b):
        raise where.error("an elementwise product of a matrix never written out is not read", 0)
    if isinstance(a, MatrixBase) and isinstance(b, MatrixBase):
        if a.shape != b.shape:
            raise where.error(f"an elementwise product of a {a.rows}x{a.cols} and a {b.rows}x{b.cols}", 0)
        return ImmutableMatrix(a.multiply_elementwise(b))
    return combine("*", a, b)


def collapse(value: Any) -> Any:
    """A 1x1 matrix (``q^T k``) is the number it holds."""
    if isinstance(value, MatrixBase) and value.shape == (1, 1):
        return value[0, 0]
    return value


# --------------------------------------------------------------------------- building the expression


_COMBINATORIAL = (sympy.factorial, sympy.factorial2, sympy.subfactorial, sympy.binomial, sympy.gamma,
                  sympy.RisingFactorial, sympy.FallingFactorial)  # fmt: skip


def build(
    tree: Any,
    values: Mapping[str, Any],
    scope: Scope,
    bound: frozenset[str] = frozenset(),
    listed: frozenset[str] = frozenset(),
) -> Any:
    """The expression a parsed tree stands for: placeholders (``values``), definitions, i, e, pi,
    Re/Im, R(phi) and transposes interpreted, products of matrices in their written order.

    ``bound``: names bound here (summation variables, a definition's parameters); they stay
    symbols, so ``\\sum_{i} x_i`` sums over i rather than over the imaginary unit. ``listed``: placeholders of
    lists in square brackets written without ^T, read as a row in front of a matrix (:mod:`.written_rows`).
    """
    return _Converter(values, scope, bound, listed).convert(tree)


def _name_text(value: Any) -> str:
    """How a piece stands inside a name: a symbol by its name, anything else as SymPy prints it."""
    return value.name if isinstance(value, Symbol) else sympy.sstr(value)


def _written_name(name: str, values: Mapping[str, Any]) -> str:
    """The name as written: its placeholders (numbered per piece) put back, and a subscript of whole numbers
    added or subtracted at its value (``R_{5-2}`` is the entry ``R_{3}``)."""
    name = _PLACEHOLDER_IN_NAME.sub(lambda m: _name_text(values.get(m.group(0), m.group(0))), name)
    at = _NUMBERS_SUBSCRIPT.fullmatch(name)
    return f"{at.group(1)}_{{{sympy.sympify(at.group(2))}}}" if at is not None else name


#: a name times a bracket with an exponent: SymPy's LaTeX parser gives ``n(n+1)^2`` and ``(n(n+1))^2`` the same tree
_BRACKET_POWER = (
    "{name}(...)^...: {name} times a bracket with an exponent reads as {name} (...)^... or as ({name} (...))^..., "
    "which the parser does not tell apart; write {name} \\cdot (...)^... or ({name} \\cdot (...))^..."
)


#: ``x(G)^E`` as written, the exponent right on the bracket (``latex_syntax.mark_raised_calls``): the call's name
RAISED_CALL = "Z_{ZQBP}"
RAISED_CALL_LATEX = "Z_{\\mathit{ZQBP}}"

#: an undefined name before a bracket raised, used nowhere else alone: a function or a number, not told apart
_RAISED_UNKNOWN = (
    "{name}(...)^...: {name} is not defined, so this is the value of a function {name} raised, or {name} times "
    "the bracket raised, and the two differ; write {name} \\cdot (...)^... for a product, or define {name}"
)


class _Converter:
    def __init__(
        self, values: Mapping[str, Any], scope: Scope, bound: frozenset[str], listed: frozenset[str] = frozenset()
    ) -> None:
        self.values, self.scope, self.bound, self.listed = values, scope, bound, listed
        self.memo: dict[Any, Any] = {}

    def _product_head(self, expr: Any) -> Any:
        """The factor in front of a bracket that is read as a product, not a call (``q(m - n)`` with a defined
        q, ``i(m - n)``), or None."""
        if not isinstance(expr, sympy.core.function.AppliedUndef) or len(expr.args) != 1:
            return None
        name, scope = expr.func.__name__, self.scope
        if name in self.bound or name in scope.functions:
            return None
        if name in scope.symbols:  # its value, as the name alone would read (a value given in passing stops it)
            return self.convert(Symbol(name))
        if name in ("i", "ZQIU"):
            return I
        return Symbol("e") if name == "e" else None

    def convert(self, expr: Any) -> Any:
        if _is_mark(expr):  # x(G)^E as written: read by what x is
            return self._raised_call(*expr.args)
        if self.scope.general_matrices:  # each piece is converted twice there: remembered, not exponential
            if expr not in self.memo:
                general = self._general(expr)
                self.memo[expr] = self._convert(expr) if general is None else general
            return self.memo[expr]
        return self._convert(expr)

    def _power(self, base: Any, exp_: Any) -> Any:
        """``base ** exp_``; a matrix raised to a symbolic whole number >= 0 by its domain (``J^{2k}``, k natural) is
        computed exactly where it can be (:mod:`.matrix_powers`), else refused as any non-whole exponent is."""
        if base == E and isinstance(exp_, MatrixBase):  # e^{M}: the matrix exponential, as exp(M)
            return self._written_exponential(exp_)
        if isinstance(base, MatrixBase) and not getattr(exp_, "is_Integer", True):
            whole = whole_power(base, apply_domains(exp_, self.scope.domains))
            if whole is not None:
                return whole
        return power(base, exp_)

    def _convert(self, expr: Any) -> Any:
        scope, bound = self.scope, self.bound
        conv = self.convert
        if isinstance(expr, Symbol):
            name = expr.name
            if name in bound:
                return expr
            if name in self.values:
                return self.values[name]
            if _PLACEHOLDER_IN_NAME.search(name) or _NUMBERS_SUBSCRIPT.fullmatch(name):
                name = _written_name(name, self.values)
                expr = Symbol(name, **expr.assumptions0)
            if name in ("ZQMKT", "ZQMKH", "ZQMKC", "ZQMKP"):
                return Symbol(name)
            if name in scope.symbols:
                d = scope.symbols[name]
                if d.stated_value:  # never decide a step by a value the text only mentioned
                    raise ClaimLimitError(
                        f"{name} is given the value {d.body} in the text (line {d.line}): an example or a condition, "
                        "so a step that uses it is not decided",
                        "reading",
                    )
                return d.body
            # a lone e is a symbol (a coefficient); Euler's number is e^{...} or \mathrm{e} (ZQEU); ZQIU is the
            # imaginary unit written so that it is never an index (\mathrm{i}, or i in an exponent of e)
            return {"i": I, "ZQIU": I, "ZQEU": E, "pi": sympy.pi}.get(name, expr)
        if isinstance(expr, (sympy.Sum, sympy.Product)):
            if (exponential := self._series_exponential(expr)) is not None:
                return exponential
            inner = _Converter(self.values, scope, bound | {str(lim[0]) for lim in expr.limits}, self.listed)
            limits = [(lim[0], *[conv(x) for x in lim[1:]]) for lim in expr.limits]
            body = inner.convert(expr.function)
            if isinstance(body, MatrixBase):
                raise ClaimParseError("a sum of vectors or matrices cannot be read; write its terms out")
            return expr.func(body, *limits)
        if isinstance(expr, sympy.core.function.AppliedUndef):
            args = [conv(a) for a in expr.args]
            name = expr.func.__name__
            if name not in bound:
                if name in scope.functions:
                    return scope.functions[name].apply(args)
                if name in scope.symbols and len(args) == 1:  # q(m - n): a defined q times (m - n)
                    return combine("*", scope.symbols[name].body, args[0])
                if name == "R" and len(args) == 1:
                    return rotation(args[0])
                if name in ("i", "e", "ZQIU") and len(args) == 1:  # i(m-n) is i*(m-n), not a function
                    return combine("*", Symbol("e") if name == "e" else I, args[0])
            if any(isinstance(a, MatrixBase) for a in args):
                raise ClaimParseError(f"{name}(...) of a vector or matrix: {name} is not defined")
            if scope.ordered_functions:  # its value may be a matrix: products keep their written order
                return sympy.Function(name, commutative=False)(*args)
            return expr.func(*args)
        if not expr.args:
            return expr
        if isinstance(expr, sympy.Mul):
            product = functools.partial(times, blocks=scope.generic_blocks, sums=scope.block_sums)
            factors = rows_in_front(expr.args, [conv(a) for a in expr.args], self.listed)
            if scope.strict_products:
                _check_vector_products(factors)
            for part, fn in (("Re", sympy.re), ("Im", sympy.im)):
                if Symbol(part) in factors:
                    factors.remove(Symbol(part))
                    return fn(functools.reduce(product, _matrix_order(factors), sympy.S.One))
            return functools.reduce(product, _matrix_order(factors), sympy.S.One)
        if isinstance(expr, sympy.Add):
            return functools.reduce(_plus, [conv(a) for a in expr.args])
        if isinstance(expr, sympy.Pow):
            if self._product_head(expr.base) is not None:
                raise ClaimParseError(_BRACKET_POWER.format(name=expr.base.func.__name__))
            base, exp_ = conv(expr.base), conv(expr.exp)
            if exp_ == Symbol("ZQMKP"):  # a prime: the transpose of a matrix; of a number, a new name or a derivative
                if isinstance(base, MatrixBase):
                    return base.T
                raise ClaimParseError(f"a prime after {base}: a transpose of a matrix, a derivative or another name?")
            if exp_ in (_TRANSPOSE, _HERMITIAN, Symbol("ZQMKC")):
                if exp_ == Symbol("ZQMKC"):
                    return base.applyfunc(sympy.conjugate) if isinstance(base, MatrixBase) else sympy.conjugate(base)
                if not isinstance(base, MatrixBase):
                    if exp_ == _HERMITIAN:
                        return sympy.conjugate(base)
                    raise ClaimParseError(
                        "^T (transpose) applies to a matrix or vector, e.g. R(\\phi)^T; "
                        f"{base} is not one here (and ^T is never read as a power)"
                    )
                return base.T if exp_ == _TRANSPOSE else base.H
            if exp_ == -_TRANSPOSE and isinstance(base, MatrixBase):
                return base.T.inv()
            return self._power(base, exp_)
        args = [conv(a) for a in expr.args]
        if any(isinstance(a, MatrixBase) for a in args):
            return self._of_matrix(expr, args)
        if isinstance(expr, _COMBINATORIAL):  # 10^{9}! would be computed digit by digit: refused past the limit
            for a in args:
                if isinstance(a, sympy.Rational) and abs(a) > MAX_EXPONENT:
                    raise ClaimLimitError(
                        f"{type(expr).__name__} of {describe_number(a)} exceeds the limit {MAX_EXPONENT}", "number"
                    )
        out = expr.func(*args)
        return check_number(out) if isinstance(out, sympy.Rational) else check_matrix(out)

    def _of_matrix(self, expr: Any, args: list[Any]) -> Any:
        """A function of a vector or matrix: the conjugate entry by entry, the exponential of a written-out square
        matrix; any other is not read."""
        if isinstance(expr, sympy.conjugate):
            return args[0].applyfunc(sympy.conjugate)
        if isinstance(expr, sympy.exp):
            return self._written_exponential(args[0])
        raise ClaimParseError(f"{type(expr).__name__} of a vector or matrix cannot be read")

    def _series_exponential(self, expr: Any) -> Any:
        """``\\sum_{k=0}^{\\infty} X^k / k!`` of a square matrix X, written out or general: its exponential, which the
        series defines; None where the sum is no such series, or X a number (the sum is then read as written)."""
        base = exponential_series(expr)
        if base is None:
            return None
        value = self.convert(base)
        if isinstance(value, MatrixBase):
            return self._written_exponential(value)
        if self.scope.general_matrices and is_general(value) and value.shape[0] == value.shape[1] != 1:
            return exponential(value)
        return None

    def _written_exponential(self, argument: Any) -> Any:
        """``exp`` of a written-out square matrix: the matrix exponential (:mod:`.matrix_powers`), unless the scope
        refuses it (a reading that checks whether a step used one)."""
        found = written_exponential(argument) if self.scope.matrix_exponentials else None
        if found is None:
            raise ClaimParseError("exp of a vector or matrix cannot be read")
        return found

    def _raised_call(self, head: Any, bracket: Any, exponent: Any) -> Any:
        """``x(G)^E``, the exponent written on the bracket: a function's value raised where x is a function the
        scope knows (or R, the rotation), else x times the bracket raised where x is a number (a definition, a
        bound name, i or e); an undefined x stays marked, for :func:`index_sums` to read with both sides."""
        if not isinstance(head, Symbol):  # pragma: no cover - the mark always names one letter
            raise ClaimParseError("cannot read a bracket raised after a name")
        name, scope = head.name, self.scope
        call = sympy.Pow(sympy.Function(name)(bracket), exponent, evaluate=False)
        if name not in self.bound and (name in scope.functions or (name == "R" and name not in scope.symbols)):
            return self.convert(call)
        if name in self.bound or name in scope.symbols or name in ("i", "e"):
            return self.convert(sympy.Mul(head, sympy.Pow(bracket, exponent, evaluate=False), evaluate=False))
        parts = [self.convert(x) for x in (head, bracket, exponent)]
        if any(isinstance(x, MatrixBase) for x in parts):
            raise ClaimParseError(f"{name}(...)^... of a vector or matrix: {name} is not defined")
        return sympy.Function(RAISED_CALL)(*parts)

    def _general(self, expr: Any) -> Any:
        """``expr`` with undefined one-letter names as general matrices (:mod:`.general_matrices`), or None
        where that reading changes nothing."""
        if isinstance(expr, Symbol):
            name = expr.name
            named = self.values.get(name)
            if isinstance(named, Symbol):  # a name the reader set aside whole (R_{\theta, m})
                name = named.name
            elif name in self.values:
                return None
            if name in self.bound or name in self.scope.symbols:
                return None
            # only what the document uses as a vector or matrix: a position m inside cos(m theta) stays a number
            if not is_array(name, self.scope.array_names):
                return None
            return general_name(name, self.scope.row_names, self.scope.column_names)
        if isinstance(expr, (sympy.Mul, sympy.Add)):
            parts = [self.convert(a) for a in expr.args]
            if not any(is_general(p) for p in parts):
                return None
            return general_product(parts) if isinstance(expr, sympy.Mul) else general_sum(parts)
        if isinstance(expr, sympy.exp):  # exp(n B): the matrix exponential of a square general matrix
            return self._exponential(expr.args[0])
        if isinstance(expr, sympy.Pow):
            base = self.convert(expr.base)
            if base in (E, Symbol("e")):  # e^{n B}: Euler's number raised to a matrix is its exponential
                return self._exponential(expr.exp)
            if not is_general(base):
                return None
            if expr.exp == _TRANSPOSE:
                return general_transpose(base)
            raise ClaimParseError(f"a power of {base}, read as a general matrix, is not read")
        if isinstance(expr, sympy.core.function.AppliedUndef) and len(expr.args) == 1:  # W_q(x_m + p_m)
            name = expr.func.__name__
            known = name in self.bound or name in self.scope.functions
            matrix = None if known else general_name(name, columns=self.scope.column_names)
            if matrix is not None and matrix.shape[1] != 1:
                argument = self.convert(expr.args[0])
                return general_product([matrix, argument]) if is_general(argument) else None
        return None

    def _exponential(self, exponent: Any) -> Any:
        """``exp`` of ``exponent`` where it reads as a square general matrix (not 1 x 1); else None."""
        value = self.convert(exponent)
        if not is_general(value) or value.shape[0] != value.shape[1] or value.shape == (1, 1):
            return None
        return exponential(value)


#: Why a product of one block's vectors to a number is not read.
BLOCK_SUM = "a sum over every entry of a vector written with dots (an inner product): not decided for every size"
#: Stands for "summed over every block" in front of a block's share of an inner product (``Scope.block_sums``).
BLOCK_MARK = Symbol("ZQBLOCKSUM", real=True)

_LATIN = re.compile(r"[A-Za-z](?:_\{.*\})?$")


def _check_vector_products(factors: list[Any]) -> None:
    """A matrix times an undefined Latin name on its right (``R_m x``): the name is a vector the
    document did not define -- read as a number it would be another statement."""
    for a, b in zip(factors, factors[1:]):
        if isinstance(a, MatrixBase) and isinstance(b, Symbol) and _LATIN.match(b.name):
            raise ClaimParseError(
                f"{b.name} multiplies a matrix from the right, so it is a vector, and the document does not "
                f"define it (write {b.name} = (..., ...)^T before this step)"
            )


def times(a: Any, b: Any, *, blocks: bool = False, sums: bool = False) -> Any:
    """``a * b``, matrices in this order; a shape mismatch is a ClaimParseError; a 1x1 product is a number.

    ``blocks``: the matrices are one block of longer ones, and a product to a number (which would sum
    over one block only) is a ClaimLimitError -- or, with ``sums``, :data:`BLOCK_MARK` times the block's share.
    """
    if blocks and isinstance(a, MatrixBase) and isinstance(b, MatrixBase) and a.rows == 1 and b.cols == 1:
        return block_share(times(a, b), sums=sums)
    if isinstance(a, MatrixBase) and isinstance(b, MatrixBase) and a.cols != b.rows:
        hint = " (a tuple is a column vector, with or without ^T; write \\langle u, v\\rangle for an inner product)"
        raise ClaimParseError(
            f"cannot multiply a {a.rows}x{a.cols} by a {b.rows}x{b.cols} matrix" + (hint if a.cols == 1 else "")
        )
    out = combine("*", a, b)
    if isinstance(a, MatrixBase) and isinstance(b, MatrixBase):
        return collapse(out)
    return out


def block_share(value: Any, *, sums: bool) -> Any:
    """A product of one block's vectors to a number (``u^T v``, an inner product): with ``sums``, the block's
    share of the sum over every block (:data:`BLOCK_MARK` times it); else a ClaimLimitError."""
    if not sums:
        raise ClaimLimitError(BLOCK_SUM, "reading")
    return BLOCK_MARK * value


def _plus(a: Any, b: Any) -> Any:
    return combine("+", a, b)


def _matrix_order(factors: list[Any]) -> list[Any]:
    """Scalars first, matrices after in their written order (the parser keeps written order)."""
    return [f for f in factors if not isinstance(f, MatrixBase)] + [f for f in factors if isinstance(f, MatrixBase)]


def antlr_runtime_problem(exc: BaseException) -> str:
    """One line saying why SymPy's LaTeX parser cannot run here and how to fix it.

    SymPy's LaTeX parser runs on the ANTLR runtime and accepts only the release line its
    grammar was generated with (``4.11`` for SymPy 1.12-1.14); it raises ImportError naming
    that line when the runtime is missing or of another line. The package metadata cannot
    require that line without an upper bound, so the runtime comes from the ``latex`` extra
    plus the user's pin, and this message says which of the two cases this is.

    Example:
        >>> antlr_runtime_problem(ImportError("... version 4.11"))  # doctest: +SKIP
        "LaTeX claims need SymPy's ANTLR runtime, antlr4-python3-runtime 4.11.x, which is not installed: ..."
    """
    import importlib.metadata  # used only on this error path

    match = re.search(r"version (\d+(?:\.\d+)*)", str(exc))
    line = match.group(1) if match else "4.11"
    try:
        found: str | None = importlib.metadata.version("antlr4-python3-runtime")
    except importlib.metadata.PackageNotFoundError:
        found = None
    fix = f"pip install 'antlr4-python3-runtime=={line}.*' (or write the claim in SymPy syntax)"
    if found is None:
        return f"LaTeX claims need SymPy's ANTLR runtime (antlr4-python3-runtime {line}.x), not installed: {fix}"
    if found != line and not found.startswith(f"{line}."):
        return (
            f"LaTeX claims need antlr4-python3-runtime {line}.x (SymPy {sympy.__version__}'s LaTeX parser accepts "
            f"only that line), and {found} is installed: {fix}"
        )
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"LaTeX claims need antlr4-python3-runtime {line}.x, installed as {found} but not usable ({first}): {fix}"


_SUBSCRIPTED = re.compile(r"^(.+?)_\{?([^{}]+?)\}?$")


def _entry_conditions(expr: Any, entries: Mapping[str, Definition], known: dict[str, Any]) -> Any:
    """Each sequence entry ``x[i]`` whose value a definition gives at some index (``x_0 = 0``) as a Piecewise."""
    replaced: dict[Any, Any] = {}
    for entry in expr.atoms(sympy.Indexed):
        base = str(entry.base.label)
        cases = []
        for name, d in entries.items():
            m = _SUBSCRIPTED.match(name)
            if not m or m.group(1).lstrip("\\") != base or isinstance(d.body, MatrixBase):
                continue
            try:
                at = sympy.sympify(m.group(2), locals=dict(known))
            except (sympy.SympifyError, SyntaxError, TypeError, AttributeError):
                continue
            cases.append((d.body, sympy.Eq(entry.indices[0], at)))
        if cases:
            replaced[entry] = sympy.Piecewise(*cases, (entry, True))
    return expr.xreplace(replaced) if replaced else expr


def _entry_index(sub: str, known: Mapping[str, Any]) -> Any:
    """A subscript as the index of a sequence's entry (``j + 1``), or the indices of a table's (``i, j``: a name
    met only inside such subscripts is an index there), or None where it reads as neither."""
    try:
        index = sympy.sympify(sub, locals=dict(known))
    except (sympy.SympifyError, SyntaxError, TypeError, AttributeError):
        return None
    parts = list(index) if isinstance(index, (tuple, sympy.Tuple)) else [index]
    if len(parts) > 1:  # a_{i,j}: i given only in subscripts is an index, as j is
        unknown = {x: Symbol(x.name, integer=True) for p in parts for x in getattr(p, "free_symbols", ())
                   if x.name not in known}  # fmt: skip
        parts = [p.xreplace(unknown) if isinstance(p, sympy.Basic) else p for p in parts]
    for p in parts:
        if not isinstance(p, sympy.Expr) or not all(x.is_integer for x in p.free_symbols) or p.is_integer is False:
            return None
    return tuple(parts) if len(parts) > 1 else parts[0]


def index_sums(
    lhs: Any, rhs: Any, domains: dict[str, str] | None = None, entries: Mapping[str, Definition] | None = None
) -> tuple[Any, Any]:
    """Read what SymPy's LaTeX parser leaves ambiguous, looking at both sides together.

    * ``n(n+1)`` where ``n`` is also a symbol of the claim is a product, not a call.
    * Summation variables and the symbols in summation limits are integers.
    * Every symbol ``x_{...}`` whose base x is subscripted by a summation variable somewhere
      becomes the entry ``x[...]`` of a sequence (real, or of x's stated domain), so
      ``\\sum_{i=0}^{2} x_i = x_0 + x_1 + x_2`` reads as intended; other subscripted symbols stay
      plain symbols.
    * ``entries``: definitions of single entries (``S_0 = 0``, ``h_{d/2} = 0``, as a document
      states its boundary conditions) hold inside the sums too: ``S[i]`` becomes ``S_0``'s value
      where ``i = 0``.
    """
    lhs, rhs = _raised_calls(lhs, rhs)
    sides = [_bound_by_name(e) for e in (lhs, rhs) if not isinstance(e, MatrixBase)]
    names = {a.name: a for e in sides for a in e.free_symbols if isinstance(a, Symbol)}
    applied = [f for e in sides for f in e.atoms(sympy.core.function.AppliedUndef)]
    calls = {f: names[f.func.__name__] * sympy.Mul(*f.args) for f in applied
             if f.func.__name__ in names and len(f.args) == 1}  # fmt: skip
    raised = [p.base for e in sides for p in e.atoms(sympy.Pow) if p.base in calls]
    if raised:
        raise ClaimParseError(_BRACKET_POWER.format(name=raised[0].func.__name__))
    sides = [e.xreplace(calls) for e in sides]
    check_related([a.name for e in sides for a in e.free_symbols if isinstance(a, Symbol)]
                  + [str(b.label) for e in sides for b in e.atoms(sympy.IndexedBase)])  # fmt: skip
    sums = [s for e in sides for s in e.atoms(sympy.Sum, sympy.Product)]
    if not sums:
        out0 = iter(sides)
        return tuple(e if isinstance(e, MatrixBase) else next(out0) for e in (lhs, rhs))  # type: ignore[return-value]
    bound = {str(lim[0]) for s in sums for lim in s.limits}
    limit_symbols = {a for s in sums for lim in s.limits for x in lim for a in x.free_symbols}
    integer = {a: Symbol(a.name, integer=True) for a in limit_symbols if not a.is_integer}
    sides = [e.xreplace(integer) for e in sides]
    known: dict[str, Any] = {a.name: a for e in sides for a in e.atoms(Symbol)}
    known.update({str(lim[0]): lim[0] for e in sides for s in e.atoms(sympy.Sum, sympy.Product) for lim in s.limits})
    split = {a: _SUBSCRIPTED.match(a.name) for e in sides for a in e.atoms(Symbol)}
    bound_names = "|".join(re.escape(b) for b in bound)
    bases = {
        m.group(1) for m in split.values() if m and re.search(rf"(?<![A-Za-z])({bound_names})(?![A-Za-z])", m.group(2))
    }
    mapping = {}
    for a, m in split.items():
        if not m or m.group(1) not in bases:
            continue
        index = _entry_index(m.group(2), known)
        if index is None:
            if re.search(rf"(?<![A-Za-z])({bound_names})(?![A-Za-z])", m.group(2)):
                # read as a name of its own, it would be one number for every term of the sum
                raise ClaimParseError(f"{a.name} in a sum over its subscript: the subscript is not read as an index")
            continue
        base = m.group(1).lstrip("\\")  # an index _entry_index has checked: integer entries, one or a table's
        plain = "complex" if a.is_complex and a.is_real is None else "real"  # a pair of entries is complex
        domain = (domains or {}).get(domain_key(base), plain)
        mapping[a] = sympy.IndexedBase(base, **DOMAINS[domain])[index]
    sides = [e.xreplace(mapping) for e in sides]
    if entries:
        sides = [_entry_conditions(e, entries, known) for e in sides]
    out = iter(sides)
    return tuple(e if isinstance(e, MatrixBase) else next(out) for e in (lhs, rhs))  # type: ignore[return-value]


def _bound_by_name(e: Any) -> Any:
    """Each sum's summand with the names spelled as its index made that index (``\\sum_j \\theta_j``).

    The parser binds its own plain symbol; a definition applied inside the summand (``\\theta_j`` as
    ``b^{-2j/d}``) brings the name with a domain, which is then a different symbol of the same name: the text
    means the index.
    """

    def bind(s: Any) -> Any:
        limits = [lim[0] for lim in s.limits]
        same = {x: v for v in limits for x in s.function.free_symbols if isinstance(x, Symbol) and x.name == v.name}
        same = {x: v for x, v in same.items() if x != v}
        return s.func(s.function.xreplace(same), *s.limits) if same else s

    return e.replace(lambda x: isinstance(x, sympy.Sum | sympy.Product), bind) if isinstance(e, sympy.Basic) else e


def _raised_calls(lhs: Any, rhs: Any) -> tuple[Any, Any]:
    """The sides with each marked ``x(G)^E`` of an undefined x read (:meth:`_Converter._raised_call`).

    x used alone elsewhere in the step (``a m^b`` beside ``a(m-1)^b``, or inside a bracket) is a number: x times
    the bracket raised. Otherwise x may be a function or a number, and the readings differ: not read (a
    ClaimParseError). Marks inside marks are read from the inside out.
    """
    parts = [e for side in (lhs, rhs) for e in (side if isinstance(side, MatrixBase) else [side])]
    parts = [e for e in parts if isinstance(e, sympy.Basic)]
    marks = {f for e in parts for f in e.atoms(sympy.core.function.AppliedUndef) if _is_mark(f)}
    if not marks:
        return lhs, rhs
    headless = [e.replace(_is_mark, lambda f: sympy.Function("ZQHEADLESS")(*f.args[1:])) for e in parts]
    names = {a.name: a for e in headless for a in e.free_symbols if isinstance(a, Symbol)}
    for f in marks:
        if getattr(f.args[0], "name", None) not in names:
            raise ClaimParseError(_RAISED_UNKNOWN.format(name=getattr(f.args[0], "name", f.args[0])))

    def read(e: Any) -> Any:
        return e.replace(_is_mark, lambda f: names[f.args[0].name] * power(f.args[1], f.args[2]))

    sides = [s.applyfunc(read) if isinstance(s, MatrixBase) else read(s) for s in (lhs, rhs)]
    return sides[0], sides[1]


def _is_mark(e: Any) -> bool:
    return isinstance(e, sympy.core.function.AppliedUndef) and e.func.__name__ == RAISED_CALL
