"""Reading one side of a claim written in SymPy (Python expression) syntax, within the claim limits.

Free names are real symbols (``alpha``, ``beta``, ``gamma``, ``N``, ``S`` ... included);
``I``, ``E``, ``pi`` and the functions ``re``, ``im``, ``conjugate``, ``Abs``, ``exp``,
``cos``, ``sin``, ``tan``, ``sqrt``, ``log``, ``Rational``, ``eye(n)``, ``Matrix``,
``R(phi)`` (the 2x2 rotation matrix) and ``diag(A, B, ...)`` (block-diagonal: multi-axis RoPE,
each block turned by its own axis's position) are known; any other ``f(x)`` is an undefined
function; ``^`` is a power; decimal numbers become exact rationals; ``M.T`` transposes.

Design constraints:

* The text is parsed with :func:`ast.parse` and only arithmetic, calls of plain names,
  ``.T``, numbers and bracketed lists are accepted (anything else is refused with its
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
import re as _re
from collections.abc import Callable
from typing import Any

import sympy
from sympy import E, I, ImmutableMatrix, Matrix, MatrixBase, Symbol, pi

from ..errors import ClaimLimitError, ClaimParseError
from .limits import MAX_MATRIX_SIZE, MAX_NESTING, MAX_NUMBER_DIGITS, check_matrix, check_number, power
from .rope import rot

__all__ = ["CONSTANTS", "FUNCTIONS", "check_expression", "combine", "read_side", "rotation"]


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


#: The constants a claim may name.
CONSTANTS: dict[str, Any] = {"I": I, "E": E, "pi": pi}

#: The functions a claim may call; any other name called is an undefined function.
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "re": sympy.re, "im": sympy.im, "conjugate": sympy.conjugate, "Abs": sympy.Abs,
    "exp": sympy.exp, "cos": sympy.cos, "sin": sympy.sin, "tan": sympy.tan, "sqrt": sympy.sqrt, "log": sympy.log,
    "Matrix": _matrix, "R": rotation, "Rational": sympy.Rational, "eye": _eye, "diag": _diag,
}  # fmt: skip


_NODES = (
    ast.Expression, ast.BinOp, ast.UnaryOp, ast.Call, ast.Name, ast.Constant, ast.Attribute, ast.List, ast.Tuple,
    ast.Load,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.BitXor, ast.UAdd, ast.USub,
)  # fmt: skip
_FAMILY = {ast.Add: "add", ast.Sub: "add", ast.Mult: "mul", ast.Div: "mul", ast.Pow: "pow", ast.BitXor: "pow"}
_FLOAT = _re.compile(r"^[0-9_]*\.?[0-9_]*(?:[eE]([+-]?[0-9_]+))?$")


def _family(node: ast.AST) -> str | None:
    return _FAMILY.get(type(node.op)) if isinstance(node, ast.BinOp) else None


def _xor_to_pow(text: str) -> tuple[str, list[int]]:
    """``^`` becomes ``**`` (with ``**``'s precedence, as in SymPy's ``convert_xor``); and each column's origin."""
    out: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        piece = "**" if ch == "^" else ch
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

    Anything else (attribute access other than ``.T``, names with underscores at the ends,
    strings, subscripts, lambdas, comparisons, keywords) is refused here, with its column.
    """
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        at = col(max(min((exc.offset or 1) - 1, len(text)), 0))
        raise ClaimParseError(f"cannot parse {text!r}: {exc.msg}", at) from None
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes; a parser stack exhausted
        raise ClaimParseError(f"cannot parse {text[:40]!r}: {type(exc).__name__}: {exc}", col(0)) from None
    _check_nesting(tree, col)
    for node in ast.walk(tree):
        at = col(getattr(node, "col_offset", 0))
        if not isinstance(node, _NODES):
            raise ClaimParseError(
                f"{type(node).__name__.lower()} is not allowed in a claim (only arithmetic, functions, "
                "numbers, Matrix([...]) and .T)",
                at,
            )
        if isinstance(node, ast.Attribute) and node.attr != "T":
            dot = col((node.end_col_offset or 0) - len(node.attr) - 1)
            raise ClaimParseError(
                f"'.{node.attr}' is not allowed in a claim; the only attribute is .T (transpose)", dot
            )
        if isinstance(node, ast.Name) and (node.id.startswith("_") or node.id.endswith("_")):
            raise ClaimParseError(
                f"the name {node.id!r} is not allowed in a claim (no leading or trailing underscores)", at
            )
        if isinstance(node, ast.Call) and (node.keywords or not isinstance(node.func, ast.Name)):
            raise ClaimParseError("only plain function calls f(x, ...) are allowed in a claim", at)
        if isinstance(node, ast.Constant) and (
            not isinstance(node.value, (int, float)) or isinstance(node.value, bool)
        ):
            raise ClaimParseError(f"the constant {node.value!r} is not allowed in a claim (numbers only)", at)
    return tree


def combine(op: str, a: Any, b: Any) -> Any:
    """``a op b`` for one of ``+ - * /``, with the number and matrix-size limits checked on the result."""
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        raise ValueError("[...] lists may appear only inside Matrix(...)")
    if op == "+":
        out = a + b
    elif op == "-":
        out = a - b
    elif op == "*":
        out = a * b
    else:
        out = a / b
    if isinstance(out, MatrixBase):
        return check_matrix(out)
    return check_number(out) if isinstance(out, sympy.Rational) else out


class _Reader:
    """Evaluates an accepted syntax tree; limits raise ClaimLimitError with the column of the node."""

    def __init__(self, text: str, col: Callable[[int], int]) -> None:
        self.text, self.col = text, col

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
            assert isinstance(node.func, ast.Name)
            args = [self.value(a) for a in node.args]
            fn = FUNCTIONS.get(node.func.id)
            if fn is None:
                if node.func.id in CONSTANTS:
                    raise ValueError(f"{node.func.id} is a constant, not a function")
                fn = sympy.Function(node.func.id)
            try:
                return fn(*args)
            except ClaimLimitError as exc:
                raise self.at(node, exc) from None
        if isinstance(node, ast.Name):
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]
            if node.id in FUNCTIONS:
                return FUNCTIONS[node.id]
            return Symbol(node.id, real=True)
        if isinstance(node, ast.Constant):
            return self.number(node)
        if isinstance(node, ast.Attribute):  # .T, the only attribute allowed
            inner = self.value(node.value)
            if not isinstance(inner, MatrixBase):
                raise ValueError(".T transposes a matrix, e.g. R(a).T")
            return inner.T
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
            links.append(({ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}[type(cur.op)], cur.right))
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


def read_side(side: str, offset: int) -> Any:
    """One side of a SymPy-syntax claim as a SymPy expression or matrix; ``offset`` is its column in the claim."""
    if not side.strip():
        raise ClaimParseError("empty side of the claim", offset)
    lead = len(side) - len(side.lstrip())
    text = side.strip()
    source, origin = _xor_to_pow(text)

    def col(c: int) -> int:
        return offset + lead + origin[max(0, min(c, len(origin) - 1))]

    tree = _check_python_syntax(source, col)
    try:
        expr = _Reader(source, col).value(tree.body)
    except (ClaimLimitError, ClaimParseError, MemoryError):
        raise
    except RecursionError:
        raise ClaimParseError(f"{text[:40]!r}... nests too deeply to evaluate", offset + lead) from None
    except Exception as exc:
        raise ClaimParseError(f"cannot evaluate {text!r}: {exc}", offset + lead) from None
    return check_expression(expr, text, offset + lead)
