"""Reading one side of a claim written in SymPy (Python expression) syntax, within the claim limits.

Free names are real symbols (``alpha``, ``beta``, ``gamma``, ``N``, ``S`` ... included)
unless a domain is stated for them (:mod:`.scope`); ``I``, ``E``, ``pi`` and the functions
``re``, ``im``, ``conjugate``, ``Abs``, ``exp``, ``cos``, ``sin``, ``tan``, ``sqrt``, ``log``,
``Rational``, ``eye(n)``, ``Matrix``, ``R(phi)`` (the 2x2 rotation matrix), ``diag(A, B, ...)``
(block-diagonal: multi-axis RoPE, each block turned by its own axis's position) and ``inner(a, b)``
are known; ``^`` is a power; decimal numbers become exact rationals; ``M.T`` transposes,
``M.H`` conjugate-transposes, ``u.dot(v)`` is SymPy's ``sum u_i v_i``, ``<u, v>`` (or
``inner(u, v)``) the real inner product ``Re(sum u_i conj(v_i))``; ``v[0]`` is an entry of a
matrix, or of the sequence v when v is a name. A call of a name close to a known one
(``Re(x)``, ``cosine(x)``) is an error that names the known one; any other ``f(x)`` is an
undefined function.

Design constraints:

* The text is parsed with :func:`ast.parse` and only arithmetic, calls of plain names,
  ``.T``, ``.H``, ``.dot(...)``, subscripts, numbers and bracketed lists are accepted (anything else is refused with its
  column), so a claim cannot run other code.
* The accepted tree is then evaluated here, node by node -- not by ``eval`` -- so that
  every power, number, matrix and function call is checked against the limits of
  :mod:`.limits` *before* it is computed (``2**(10000*10000*10000)`` is refused, not
  computed). Chains of ``+``/``-``, ``*``/``/``, ``**`` and signs are walked in loops, so
  a long sum never exhausts Python's recursion limit; other nesting is bounded by
  :data:`~.limits.MAX_NESTING`.
"""

from __future__ import annotations

import ast
import difflib
import re as _re
from collections.abc import Callable
from typing import Any

import sympy
from sympy import E, I, ImmutableMatrix, Matrix, MatrixBase, Symbol, pi

from ...errors import ClaimLimitError, ClaimParseError
from ..engine.rope import rot
from .limits import MAX_MATRIX_SIZE, MAX_NESTING, MAX_NUMBER_DIGITS, check_matrix, check_number, power
from .scope import Scope, domain_key, domain_symbol

__all__ = [
    "CONSTANTS",
    "FUNCTIONS",
    "INNER_PRODUCTS",
    "check_expression",
    "combine",
    "inner_product",
    "read_side",
    "rotation",
    "suggest_function",
]


def rotation(phi: Any) -> ImmutableMatrix:
    """R(phi), the 2x2 rotation matrix, as an immutable SymPy matrix."""
    return ImmutableMatrix(rot(phi))


def _matrix(*args: Any) -> ImmutableMatrix:
    for a in args[:2]:
        if isinstance(a, (int, sympy.Integer)) and int(a) > MAX_MATRIX_SIZE:
            raise ClaimLimitError(
                f"a matrix with {int(a)} rows or columns exceeds the matrix size limit "
                f"{MAX_MATRIX_SIZE}x{MAX_MATRIX_SIZE}",
                "matrix_size",
            )
    return check_matrix(ImmutableMatrix(Matrix(*args)))


def _eye(*args: Any) -> ImmutableMatrix:
    if not args or not all(isinstance(a, (int, sympy.Integer)) for a in args):
        raise ValueError("eye(n) needs a whole number n, e.g. eye(2)")
    for a in args:
        if int(a) > MAX_MATRIX_SIZE:
            raise ClaimLimitError(
                f"eye({int(a)}) exceeds the matrix size limit {MAX_MATRIX_SIZE}x{MAX_MATRIX_SIZE}", "matrix_size"
            )
    return ImmutableMatrix(sympy.eye(*(int(a) for a in args)))


def _diag(*blocks: Any) -> ImmutableMatrix:
    if not blocks:
        raise ValueError("diag(...) needs at least one block, e.g. diag(R(a), R(b))")
    size = sum(b.shape[0] if isinstance(b, MatrixBase) else 1 for b in blocks)
    if size > MAX_MATRIX_SIZE:
        raise ClaimLimitError(
            f"diag(...) of {size} rows exceeds the matrix size limit {MAX_MATRIX_SIZE}x{MAX_MATRIX_SIZE}", "matrix_size"
        )
    return check_matrix(ImmutableMatrix(sympy.diag(*blocks)))


#: The conventions an inner product of complex values is read in (all agree on real values).
INNER_PRODUCTS = ("real", "conjugate-second", "conjugate-first")


def inner_product(a: Any, b: Any, convention: str = "real") -> Any:
    """The inner product; by default the real one, ``Re(sum a_i conj(b_i))``.

    For real vectors it is ``a^T b``; for two complex numbers (points of the plane) it is
    ``Re(a conj(b))``, the dot product of the 2-vectors they stand for; for complex vectors
    it is the dot product of the real vectors of their real and imaginary parts. The other
    conventions, ``conjugate-second`` (``sum a_i conj(b_i)``, mathematics) and
    ``conjugate-first`` (``sum conj(a_i) b_i``, physics), differ only on complex values.

    Raises:
        ValueError: the two sides are not two vectors of one shape, or two numbers (of numbers).
    """
    if isinstance(a, MatrixBase) and isinstance(b, MatrixBase):
        if a.shape != b.shape or min(a.shape) != 1:
            raise ValueError(f"an inner product of a {a.rows}x{a.cols} and a {b.rows}x{b.cols}: needs two vectors")
        pairs = list(zip(a, b))
    elif isinstance(a, MatrixBase) or isinstance(b, MatrixBase):
        raise ValueError("an inner product of a vector and a number")
    else:
        pairs = [(a, b)]
    if any(sympy.sympify(x).has(sympy.MatrixExpr) for pair in pairs for x in pair):
        # a matrix inside an entry (cos(theta m), m a general matrix): not two vectors of numbers
        raise ValueError("an inner product of vectors whose entries hold matrices: needs two vectors of numbers")
    if convention == "conjugate-first":
        return sympy.Add(*[sympy.conjugate(x) * y for x, y in pairs])
    total = sympy.Add(*[x * sympy.conjugate(y) for x, y in pairs])
    return total if convention == "conjugate-second" else sympy.re(total)


#: The constants a claim may name.
CONSTANTS: dict[str, Any] = {"I": I, "E": E, "pi": pi}

#: The functions a claim may call; any other name called is an undefined function.
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "re": sympy.re, "im": sympy.im, "conjugate": sympy.conjugate, "Abs": sympy.Abs,
    "exp": sympy.exp, "cos": sympy.cos, "sin": sympy.sin, "tan": sympy.tan, "sqrt": sympy.sqrt, "log": sympy.log,
    "Matrix": _matrix, "R": rotation, "Rational": sympy.Rational, "eye": _eye, "diag": _diag,
    "inner": inner_product,
}  # fmt: skip


def suggest_function(name: str, known: list[str]) -> str | None:
    """The known function an unknown name was probably meant as (``Re`` -> ``re``, ``cosine`` -> ``cos``), or None.

    A name that differs only in case, or (three letters or more) is close by :mod:`difflib`.

    Example:
        >>> suggest_function("cosine", list(FUNCTIONS))
        'cos'
    """
    for k in known:
        if k.lower() == name.lower() and len(name) > 1:
            return k
    if len(name) < 3:
        return None
    prefixed = [k for k in known if len(k) > 2 and (name.startswith(k) or k.startswith(name))]
    if prefixed:  # cosine -> cos, not sin (both are as close by difflib's ratio)
        return max(prefixed, key=len)
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return close[0] if close else None


_NODES = (
    ast.Expression, ast.BinOp, ast.UnaryOp, ast.Call, ast.Name, ast.Constant, ast.Attribute, ast.List, ast.Tuple,
    ast.Load, ast.Subscript,
    ast.Add, ast.Sub, ast.Mult, ast.MatMult, ast.Div, ast.Pow, ast.BitXor, ast.UAdd, ast.USub,
)  # fmt: skip
_FAMILY = {ast.Add: "add", ast.Sub: "add", ast.Mult: "mul", ast.MatMult: "mul", ast.Div: "mul", ast.Pow: "pow",
           ast.BitXor: "pow"}  # fmt: skip
_FLOAT = _re.compile(r"^[0-9_]*\.?[0-9_]*(?:[eE]([+-]?[0-9_]+))?$")


def _family(node: ast.AST) -> str | None:
    return _FAMILY.get(type(node.op)) if isinstance(node, ast.BinOp) else None


def _angle_pairs(text: str) -> dict[int, tuple[int, int]]:
    """``<a, b>`` inner products: {index of '<': (index of its one top-level ',', index of '>')}."""
    out: dict[int, tuple[int, int]] = {}
    for start, ch in enumerate(text):
        if ch != "<" or text[start + 1 : start + 2] in ("=", "<") or text[start - 1 : start] == "<":
            continue
        depth, nest, commas = 0, 0, []
        for i in range(start + 1, len(text)):
            c = text[i]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
                if depth < 0:
                    break
            elif c == "<" and depth == 0:
                nest += 1
            elif c == "," and depth == 0 and nest == 0:
                commas.append(i)
            elif c == ">" and depth == 0 and text[i + 1 : i + 2] != "=":
                if nest:
                    nest -= 1
                    continue
                if len(commas) == 1:
                    out[start] = (commas[0], i)
                break
    return out


def _xor_to_pow(text: str) -> tuple[str, list[int]]:
    """``^`` becomes ``**`` (with ``**``'s precedence, as in SymPy's ``convert_xor``), ``<a, b>`` becomes
    ``inner(a, b)``; and each column's origin."""
    out: list[str] = []
    origin: list[int] = []
    angles = _angle_pairs(text)
    closers = {close for _, close in angles.values()}
    for i, ch in enumerate(text):
        piece = "**" if ch == "^" else ch
        if i in angles:
            piece = "inner("
        elif i in closers:
            piece = ")"
        out.append(piece)
        origin.extend([i] * len(piece))
    origin.append(len(text))
    return "".join(out), origin


def _check_nesting(tree: ast.Expression, col: Callable[[int], int]) -> None:
    """Calls, signs, powers and brackets may nest at most MAX_NESTING deep (a chain of + or * is one level)."""
    stack: list[tuple[ast.AST, int]] = [(tree.body, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            raise ClaimParseError(
                f"the claim nests more than {MAX_NESTING} levels deep (calls, signs, powers, brackets); "
                f"the limit is {MAX_NESTING}",
                col(getattr(node, "col_offset", 0)),
            )
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.expr):
                continue
            same_chain = _family(node) in ("add", "mul") and _family(node) == _family(child)
            stack.append((child, depth if same_chain else depth + 1))


def _check_python_syntax(text: str, col: Callable[[int], int]) -> ast.Expression:
    """Parse ``text``; only arithmetic, calls of plain names, ``.T``, numbers and bracketed lists may appear.

    Anything else (attribute access other than ``.T``, ``.H`` and ``.dot(...)``, names with
    underscores at the ends, strings, slices, lambdas, comparisons, keywords) is refused here,
    with its column.
    """
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        at = col(max(min((exc.offset or 1) - 1, len(text)), 0))
        raise ClaimParseError(f"cannot parse {text!r}: {exc.msg}", at) from None
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes; a parser stack exhausted
        raise ClaimParseError(f"cannot parse {text[:40]!r}: {type(exc).__name__}: {exc}", col(0)) from None
    _check_nesting(tree, col)
    problems: list[ClaimParseError] = []
    for node in ast.walk(tree):
        try:
            _check_node(tree, node, col)
        except ClaimParseError as exc:
            problems.append(exc)
    if problems:  # the leftmost problem is the one to fix first
        raise min(problems, key=lambda e: e.position if e.position is not None else 0)
    return tree


def _check_node(tree: ast.Expression, node: ast.AST, col: Callable[[int], int]) -> None:
    """One node of the tree: is it allowed in a claim? (a ClaimParseError with its column if not)"""
    at = col(getattr(node, "col_offset", 0))
    if not isinstance(node, _NODES):
        raise ClaimParseError(
            f"{type(node).__name__.lower()} is not allowed in a claim (only arithmetic, functions, "
            "numbers, Matrix([...]), v[i], .T, .H, @ and .dot(...))",
            at,
        )
    if isinstance(node, ast.Attribute) and node.attr not in ("T", "H", "dot"):
        dot = col((node.end_col_offset or 0) - len(node.attr) - 1)
        raise ClaimParseError(
            f"'.{node.attr}' is not allowed in a claim; the attributes are .T (transpose), .H (conjugate "
            "transpose) and .dot(v)",
            dot,
        )
    if isinstance(node, ast.Name) and (node.id.startswith("_") or node.id.endswith("_")):
        raise ClaimParseError(
            f"the name {node.id!r} is not allowed in a claim (no leading or trailing underscores)", at
        )
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ("T", "H"):
            raise ClaimParseError(f"'.{func.attr}' is not called: write M.{func.attr}", at)
        if isinstance(func, ast.Attribute) and func.attr == "dot" and len(node.args) != 1:
            raise ClaimParseError("'.dot' takes one vector: u.dot(v)", at)
        if node.keywords or not isinstance(func, (ast.Name, ast.Attribute)):  # other attributes: refused below
            raise ClaimParseError("only plain function calls f(x, ...) and u.dot(v) are allowed in a claim", at)
    if isinstance(node, ast.Attribute) and node.attr == "dot" and not _called(tree, node):
        raise ClaimParseError("'.dot' is called with one vector: u.dot(v)", at)
    if isinstance(node, ast.Constant) and (not isinstance(node.value, (int, float)) or isinstance(node.value, bool)):
        raise ClaimParseError(f"the constant {node.value!r} is not allowed in a claim (numbers only)", at)


def combine(op: str, a: Any, b: Any) -> Any:
    """``a op b`` for one of ``+ - * @ /``, with the number and matrix-size limits checked on the result."""
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        raise ValueError("[...] lists may appear only inside Matrix(...)")
    if op == "+":
        out = a + b
    elif op == "-":
        out = a - b
    elif op == "*":
        out = a * b
    elif op == "@":  # Python's matrix product, as numpy and torch code write it
        if not (isinstance(a, MatrixBase) and isinstance(b, MatrixBase)):
            raise ValueError("@ multiplies two matrices or vectors, e.g. R(a).T @ R(b); use * for numbers")
        out = a * b
    else:
        out = a / b
    if isinstance(out, MatrixBase):
        return check_matrix(out)
    return check_number(out) if isinstance(out, sympy.Rational) else out


def _called(tree: ast.AST, attribute: ast.Attribute) -> bool:
    return any(isinstance(n, ast.Call) and n.func is attribute for n in ast.walk(tree))


_SUBSCRIPTED_NAME = _re.compile(r"^([A-Za-z][A-Za-z0-9]*?)_([A-Za-z0-9]+)$")


class _Reader:
    """Evaluates an accepted syntax tree; limits raise ClaimLimitError with the column of the node."""

    def __init__(self, text: str, col: Callable[[int], int], scope: Scope | None = None) -> None:
        self.text, self.col = text, col
        self.scope = scope or Scope()

    def name(self, name: str) -> Any:
        """A free name: a definition of the scope (also a pattern ``theta_1``), else a symbol of its domain."""
        for d in self.scope.symbols.values():
            if domain_key(d.name) == domain_key(name):
                return d.body
        m = _SUBSCRIPTED_NAME.match(name)
        if m:
            for base, d in self.scope.patterns.items():
                if domain_key(base) == m.group(1):
                    index = sympy.Integer(m.group(2)) if m.group(2).isdigit() else self.name(m.group(2))
                    return d.apply([index])
        return domain_symbol(name, self.scope.domains)

    def call(self, node: ast.Call, args: list[Any]) -> Any:
        assert isinstance(node.func, ast.Name)
        name = node.func.id
        fn = FUNCTIONS.get(name)
        if fn is not None:
            return fn(*args)
        defined = {d.name: d for d in self.scope.functions.values()}
        if name in self.scope.functions or name in defined:
            d = self.scope.functions.get(name) or defined[name]
            return d.apply(args)
        if name in CONSTANTS:
            raise ValueError(f"{name} is a constant, not a function")
        hint = suggest_function(name, [*FUNCTIONS, *defined])
        if hint is not None:
            raise ClaimParseError(f"unknown function {name!r}; did you mean {hint}?", self.col(node.col_offset))
        if any(isinstance(a, MatrixBase) for a in args):
            raise ValueError(f"{name}(...) of a vector or matrix: {name} is not defined")
        end = getattr(node.func, "end_col_offset", None)
        if end is not None and self.text[end : end + 1].isspace():  # a (m - 1): a product as it is written in math
            raise ClaimParseError(
                f"'{name} (' with a space: a call of an undefined function {name} or {name} times the bracket? "
                f"write {name}*(...) for a product, {name}(...) for a call",
                self.col(node.col_offset),
            )
        return sympy.Function(name)(*args)

    def subscript(self, node: ast.Subscript) -> Any:
        if isinstance(node.slice, ast.Slice) or (
            isinstance(node.slice, ast.Tuple) and any(isinstance(e, ast.Slice) for e in node.slice.elts)
        ):
            raise ClaimParseError("slices are not allowed in a claim; index one entry, v[0]", self.col(node.col_offset))
        inner = self.value(node.value)
        index = self.value(node.slice)
        if isinstance(inner, MatrixBase):
            idx = index if isinstance(index, list) else [index]
            if not all(isinstance(i, sympy.Integer) for i in idx) or len(idx) > 2:
                raise ValueError("a matrix entry needs whole-number indices, v[0] or M[0, 1]")
            try:
                return inner[tuple(int(i) for i in idx)] if len(idx) == 2 else inner[int(idx[0])]
            except IndexError:
                raise ValueError(f"index {index} is outside the {inner.rows}x{inner.cols} matrix") from None
        if isinstance(inner, Symbol):
            if isinstance(index, list) or index.is_integer is False:
                raise ValueError("a sequence entry needs one whole-number index, v[0] or v[i]")
            return sympy.IndexedBase(inner.name, **inner.assumptions0)[index]
        raise ValueError("only a matrix or a name can be indexed, v[0]")

    def at(self, node: ast.AST, exc: ClaimLimitError) -> ClaimLimitError:
        if exc.position is not None:
            return exc
        return ClaimLimitError(str(exc), exc.limit, self.col(getattr(node, "col_offset", 0)))

    def value(self, node: ast.AST) -> Any:
        if isinstance(node, ast.BinOp):
            family = _family(node)
            return self.power_chain(node) if family == "pow" else self.chain(node, family)
        if isinstance(node, ast.UnaryOp):
            negate = False
            while isinstance(node, ast.UnaryOp):
                negate ^= isinstance(node.op, ast.USub)
                node = node.operand
            operand = self.value(node)
            return combine("*", sympy.S.NegativeOne, operand) if negate else operand
        if isinstance(node, ast.Call):
            args = [self.value(a) for a in node.args]
            if isinstance(node.func, ast.Attribute):  # u.dot(v)
                inner = self.value(node.func.value)
                if not (isinstance(inner, MatrixBase) and isinstance(args[0], MatrixBase)):
                    raise ValueError(".dot takes two vectors: u.dot(v)")
                return inner.dot(args[0])
            try:
                return self.call(node, args)
            except ClaimLimitError as exc:
                raise self.at(node, exc) from None
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.Name):
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]
            if node.id in FUNCTIONS:
                return FUNCTIONS[node.id]
            return self.name(node.id)
        if isinstance(node, ast.Constant):
            return self.number(node)
        if isinstance(node, ast.Attribute):  # .T or .H
            inner = self.value(node.value)
            if not isinstance(inner, MatrixBase):
                raise ValueError(f".{node.attr} transposes a matrix, e.g. R(a).{node.attr}")
            return inner.T if node.attr == "T" else inner.H
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self.value(e) for e in node.elts]
        raise ValueError(f"unexpected {type(node).__name__}")  # pragma: no cover - refused by the syntax check

    def number(self, node: ast.Constant) -> Any:
        try:
            if isinstance(node.value, int):
                return check_number(sympy.Integer(node.value))
            segment = (ast.get_source_segment(self.text, node) or repr(node.value)).replace("_", "")
            match = _FLOAT.match(segment)
            if match and match.group(1) and abs(int(match.group(1))) > MAX_NUMBER_DIGITS:
                raise ClaimLimitError(
                    f"the number {segment} has more than {MAX_NUMBER_DIGITS} digits, the limit", "number"
                )
            return check_number(sympy.Rational(segment))  # exact: 0.1 is 1/10
        except ClaimLimitError as exc:
            raise self.at(node, exc) from None

    def chain(self, node: ast.BinOp, family: str | None) -> Any:
        """``a + b - c + ...`` or ``a * b / c ...``, left to right, in a loop."""
        links: list[tuple[str, ast.AST]] = []
        cur: ast.AST = node
        while isinstance(cur, ast.BinOp) and _family(cur) == family:
            links.append(
                ({ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.MatMult: "@", ast.Div: "/"}[type(cur.op)], cur.right)
            )
            cur = cur.left
        acc = self.value(cur)
        for op, operand in reversed(links):
            try:
                acc = combine(op, acc, self.value(operand))
            except ClaimLimitError as exc:
                raise self.at(operand, exc) from None
        return acc

    def power_chain(self, node: ast.BinOp) -> Any:
        """``a ** b ** c``: right to left, in a loop; each exponent checked before the power is computed."""
        operands: list[ast.AST] = [node.left]
        cur: ast.AST = node.right
        while isinstance(cur, ast.BinOp) and _family(cur) == "pow":
            operands.append(cur.left)
            cur = cur.right
        operands.append(cur)
        acc = self.value(operands[-1])
        exponent_node = operands[-1]
        for operand in reversed(operands[:-1]):
            base = self.value(operand)
            try:
                acc = power(base, acc)
            except ClaimLimitError as exc:
                raise self.at(exponent_node, exc) from None
            exponent_node = operand
        return acc


def check_expression(expr: Any, text: str, offset: int) -> Any:
    """A side must be a scalar expression or a matrix of them, not a function, a list or a relation."""
    if isinstance(expr, MatrixBase):
        if all(isinstance(e, sympy.Expr) for e in expr):
            return expr
    elif isinstance(expr, sympy.Expr):
        return expr
    what = type(expr).__name__ if not isinstance(expr, type) else f"the name {getattr(expr, '__name__', expr)!s}"
    if callable(expr) and not isinstance(expr, sympy.Basic):
        what = f"the function {getattr(expr, '__name__', text.strip())}"
    raise ClaimParseError(f"{text.strip()!r} is not an expression (it is {what}); write e.g. cos(a) or R(a)", offset)


def read_side(side: str, offset: int, scope: Scope | None = None) -> Any:
    """One side of a SymPy-syntax claim as a SymPy expression or matrix; ``offset`` is its column in the claim.

    ``scope`` gives the names' domains and a document's definitions (:class:`~.scope.Scope`).

    Example:
        >>> read_side("Matrix([a, b]).dot(Matrix([c, d]))", 0)
        a*c + b*d
    """
    if not side.strip():
        raise ClaimParseError("empty side of the claim", offset)
    lead = len(side) - len(side.lstrip())
    text = side.strip()
    source, origin = _xor_to_pow(text)

    def col(c: int) -> int:
        return offset + lead + origin[max(0, min(c, len(origin) - 1))]

    tree = _check_python_syntax(source, col)
    try:
        expr = _Reader(source, col, scope).value(tree.body)
    except (ClaimLimitError, ClaimParseError, MemoryError):
        raise
    except RecursionError:
        raise ClaimParseError(f"{text[:40]!r}... nests too deeply to evaluate", offset + lead) from None
    except Exception as exc:
        raise ClaimParseError(f"cannot evaluate {text!r}: {exc}", offset + lead) from None
    return check_expression(expr, text, offset + lead)
