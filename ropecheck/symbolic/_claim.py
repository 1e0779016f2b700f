"""The claim checker: parse a user's ``LHS == RHS`` and decide it.

Two syntaxes:

* **SymPy** (Python expression syntax): free names are real symbols; ``I``, ``re``,
  ``im``, ``conjugate``, ``exp``, ``cos``, ``sin``, ``tan``, ``sqrt``, ``log``, ``pi``,
  ``E``, ``Matrix`` and ``R(phi)`` (the 2x2 rotation matrix) are known; ``^`` is a power;
  decimal numbers become exact rationals; ``M.T`` transposes. The text is evaluated as a
  Python expression by SymPy's parser, like any SymPy input -- check claims you wrote or
  read, on your own machine.
* **LaTeX** as written in papers and tutorials, through SymPy's LaTeX parser: one ``=``
  between the sides; ``i`` is the imaginary unit and ``e`` Euler's number; ``\\Re``,
  ``\\mathrm{Re}``, ``\\operatorname{Re}`` (and Im) are real/imaginary parts; ``\\bar{k}``,
  ``\\overline{k}`` and ``k^*`` are conjugates; ``R(\\phi)`` is the rotation matrix and
  ``^T`` / ``^\\top`` transposes it (matrices in LaTeX claims are products of rotations,
  which commute, so the parser's ordering of factors cannot change a verdict).

Matrices compare entrywise. Unparsable text raises
:class:`~ropecheck.errors.ClaimParseError` with the 0-based column of the problem.

Design constraints: parsing only builds expressions; deciding is :func:`._decide.decide`,
so a claim gets the same verdicts and counterexamples as the proof steps.
"""

from __future__ import annotations

import functools
import operator
import re as _re
import time
import tokenize
from dataclasses import dataclass
from typing import Any, Literal

import sympy
from sympy import E, I, ImmutableMatrix, Matrix, MatrixBase, Symbol, pi

from ..errors import ClaimParseError, UsageError
from ._decide import decide
from ._proof import Counterexample, Verdict
from ._rope import rot

__all__ = ["ClaimResult", "Syntax", "check_claim", "parse_claim"]

Syntax = Literal["auto", "sympy", "latex"]


@dataclass
class ClaimResult:
    """A decided claim: the parsed sides, the verdict, the deciding rewrite, any counterexample."""

    text: str
    syntax: str
    lhs: Any
    rhs: Any
    verdict: Verdict
    method: str
    counterexample: Counterexample | None
    seconds: float

    @property
    def exit_code(self) -> int:
        """0 PROVED, 1 REFUTED, 3 UNDECIDED (2 is a parse error, raised before a result exists)."""
        return {Verdict.PROVED: 0, Verdict.REFUTED: 1, Verdict.UNDECIDED: 3}[self.verdict]

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim": self.text,
            "syntax": self.syntax,
            "lhs": str(self.lhs),
            "rhs": str(self.rhs),
            "lhs_latex": sympy.latex(self.lhs),
            "rhs_latex": sympy.latex(self.rhs),
            "verdict": self.verdict.value,
            "method": self.method,
            "counterexample": self.counterexample.to_dict() if self.counterexample else None,
            "seconds": round(self.seconds, 6),
        }


def _rotation(phi: Any) -> ImmutableMatrix:
    return ImmutableMatrix(rot(phi))


def _realify(expr: Any) -> Any:
    """Every free symbol without assumptions becomes a real symbol of the same name."""
    if isinstance(expr, MatrixBase):
        return ImmutableMatrix(expr.applyfunc(_realify))
    if not isinstance(expr, sympy.Basic):
        return sympy.sympify(expr)
    mapping = {s: Symbol(s.name, real=True) for s in expr.free_symbols if isinstance(s, Symbol) and s.is_real is None}
    return expr.xreplace(mapping)


# --------------------------------------------------------------------------- SymPy syntax

_NAMESPACE: dict[str, Any] = {
    "I": I, "E": E, "pi": pi,
    "re": sympy.re, "im": sympy.im, "conjugate": sympy.conjugate, "Abs": sympy.Abs,
    "exp": sympy.exp, "cos": sympy.cos, "sin": sympy.sin, "tan": sympy.tan, "sqrt": sympy.sqrt, "log": sympy.log,
    "Matrix": lambda *a: ImmutableMatrix(Matrix(*a)), "R": _rotation, "Rational": sympy.Rational, "eye": lambda n: ImmutableMatrix(sympy.eye(n)),
}  # fmt: skip


def _split(text: str, sep: str) -> tuple[str, str, int]:
    """Split at the one top-level ``sep``; returns (left, right, column where right starts)."""
    depth, hits = 0, []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and text.startswith(sep, i) and (sep != "=" or (text[i - 1 : i] not in ("=", "<", ">", "!", "\\") and text[i + 1 : i + 2] != "=")):
            hits.append(i)
            i += len(sep)
            continue
        i += 1
    if len(hits) != 1:
        what = "none" if not hits else f"{len(hits)}"
        raise ClaimParseError(f"a claim needs exactly one '{sep}' between its two sides, found {what}", hits[1] if len(hits) > 1 else len(text))
    k = hits[0]
    return text[:k], text[k + len(sep) :], k + len(sep)


def _parse_sympy_side(side: str, offset: int) -> Any:
    from sympy.parsing.sympy_parser import convert_xor, parse_expr, rationalize, standard_transformations

    if not side.strip():
        raise ClaimParseError("empty side of the claim", offset)
    try:
        expr = parse_expr(side, local_dict=dict(_NAMESPACE), transformations=standard_transformations + (convert_xor, rationalize))
    except SyntaxError as exc:
        col = (exc.offset or 1) - 1
        raise ClaimParseError(f"cannot parse {side.strip()!r}: {exc.msg}", offset + max(col, 0)) from None
    except tokenize.TokenError as exc:
        raise ClaimParseError(f"cannot parse {side.strip()!r}: {exc.args[0]}", offset + len(side)) from None
    except (TypeError, ValueError, AttributeError, NameError, sympy.SympifyError) as exc:
        raise ClaimParseError(f"cannot evaluate {side.strip()!r}: {exc}", offset) from None
    return _realify(expr)


# --------------------------------------------------------------------------- LaTeX syntax

_PART = _re.compile(r"\\(?:operatorname|mathrm|text|textrm|mathit)\{(Re|Im)\}|\\(Re|Im)(?![A-Za-z])")
_TOP = _re.compile(r"\^\s*(?:\{\s*(?:\\top|T|\\intercal|\\mathsf\{T\})\s*\}|\\top|\\intercal|T(?![A-Za-z]))")
_STAR = _re.compile(r"((?:\\[A-Za-z]+|[A-Za-z])(?:_\{[^{}]*\}|_[A-Za-z0-9])?)\s*\^\s*(?:\{\s*\*\s*\}|\*)")
_BAR = _re.compile(r"\\bar\{")
_TRANSPOSE = Symbol("TRANSPOSE")


def _preprocess_latex(side: str) -> str:
    side = _PART.sub(lambda m: r"\mathit{" + (m.group(1) or m.group(2)) + "}", side)
    side = _STAR.sub(lambda m: r"\overline{" + m.group(1) + "}", side)
    side = _BAR.sub(r"\\overline{", side)
    side = _TOP.sub(r"^{\\mathit{TRANSPOSE}}", side)
    side = side.replace(r"\cdot", " ").replace(r"\,", " ").replace(r"\!", " ")
    return side


def _convert_latex(expr: Any) -> Any:
    """Rebuild a parsed LaTeX tree with i, e, Re/Im, R(phi) and transposes interpreted."""
    if isinstance(expr, Symbol):
        return {"i": I, "e": E, "TRANSPOSE": _TRANSPOSE}.get(expr.name, expr)
    if isinstance(expr, sympy.core.function.AppliedUndef):
        args = [_convert_latex(a) for a in expr.args]
        name = expr.func.__name__
        if name == "R" and len(args) == 1:
            return _rotation(args[0])
        if name in ("i", "e") and len(args) == 1:  # i(m-n) is i*(m-n), not a function
            return (I if name == "i" else E) * args[0]
        return expr.func(*args)
    if not expr.args:
        return expr
    if isinstance(expr, sympy.Mul):
        factors = [_convert_latex(a) for a in expr.args]
        for part, fn in (("Re", sympy.re), ("Im", sympy.im)):
            if Symbol(part) in factors:
                factors.remove(Symbol(part))
                return fn(functools.reduce(operator.mul, _matrix_order(factors), sympy.S.One))
        return functools.reduce(operator.mul, _matrix_order(factors), sympy.S.One)
    if isinstance(expr, sympy.Add):
        return functools.reduce(operator.add, [_convert_latex(a) for a in expr.args])
    if isinstance(expr, sympy.Pow):
        base, exp_ = _convert_latex(expr.base), _convert_latex(expr.exp)
        if exp_ == _TRANSPOSE:
            if not isinstance(base, MatrixBase):
                raise ClaimParseError("^T (transpose) applies to a matrix, e.g. R(\\phi)^T")
            return base.T
        if exp_ == -_TRANSPOSE and isinstance(base, MatrixBase):
            return base.T.inv()
        return base**exp_
    return expr.func(*[_convert_latex(a) for a in expr.args])


def _matrix_order(factors: list[Any]) -> list[Any]:
    """Scalars first, matrices after in their written order (the parser keeps written order for them)."""
    return [f for f in factors if not isinstance(f, MatrixBase)] + [f for f in factors if isinstance(f, MatrixBase)]


def _parse_latex_side(side: str, offset: int) -> Any:
    try:
        from sympy.parsing.latex import LaTeXParsingError, parse_latex
    except ImportError as exc:  # pragma: no cover
        raise UsageError(f"LaTeX claims need antlr4-python3-runtime 4.11: install it ({exc})") from None
    if not side.strip():
        raise ClaimParseError("empty side of the claim", offset)
    text = _preprocess_latex(side)
    try:
        parsed = parse_latex(text)
    except LaTeXParsingError as exc:
        raise ClaimParseError(f"cannot parse LaTeX {side.strip()!r}: {str(exc).splitlines()[0]}", offset + _caret(str(exc), side)) from None
    except ImportError as exc:  # pragma: no cover - antlr missing or wrong version
        raise UsageError(f"LaTeX claims need antlr4-python3-runtime 4.11: install it ({exc})") from None
    try:
        return _realify(_convert_latex(parsed))
    except ClaimParseError as exc:
        if exc.position is not None:
            raise
        raise ClaimParseError(str(exc), offset) from None


def _caret(message: str, side: str) -> int:
    for line in message.splitlines():
        if line.strip().endswith("^") and set(line.strip()) <= {"~", "^"}:
            return min(len(line.rstrip()) - 1, len(side))
    return 0


# --------------------------------------------------------------------------- API


def _detect(text: str) -> str:
    return "latex" if ("\\" in text or ("{" in text and "==" not in text) or ("==" not in text and "=" in text)) else "sympy"


def parse_claim(text: str, *, syntax: Syntax = "auto") -> tuple[Any, Any, str]:
    """Parse ``"LHS == RHS"`` (SymPy) or ``"LHS = RHS"`` (LaTeX) into two expressions.

    Returns:
        (lhs, rhs, syntax actually used).

    Raises:
        ClaimParseError: the text is not a claim, with the column of the problem.

    Example:
        >>> lhs, rhs, syntax = parse_claim("cos(a)**2 + sin(a)**2 == 1")
        >>> syntax, rhs
        ('sympy', 1)
    """
    if not isinstance(text, str) or not text.strip():
        raise ClaimParseError("the claim is empty; write it as 'LHS == RHS'", 0)
    used = _detect(text) if syntax == "auto" else syntax
    if used not in ("sympy", "latex"):
        raise UsageError(f"syntax must be 'auto', 'sympy' or 'latex', got {syntax!r}")
    if used == "sympy":
        left, right, col = _split(text, "==")
        lhs, rhs = _parse_sympy_side(left, 0), _parse_sympy_side(right, col)
    else:
        sep = "==" if "==" in text else "="
        left, right, col = _split(text, sep)
        lhs, rhs = _parse_latex_side(left, 0), _parse_latex_side(right, col)
    if isinstance(lhs, MatrixBase) != isinstance(rhs, MatrixBase) or (isinstance(lhs, MatrixBase) and lhs.shape != rhs.shape):
        shape = lambda e: f"a {e.rows}x{e.cols} matrix" if isinstance(e, MatrixBase) else "a scalar"
        raise ClaimParseError(f"cannot compare {shape(lhs)} with {shape(rhs)}", col)
    return lhs, rhs, used


def check_claim(text: str, *, syntax: Syntax = "auto") -> ClaimResult:
    """Decide a claimed identity: PROVED, REFUTED (with a counterexample) or UNDECIDED.

    Example:
        >>> check_claim("R(a).T * R(b) == R(b - a)").verdict.value
        'PROVED'
        >>> check_claim("R(a).T * R(b) == R(a - b)").verdict.value
        'REFUTED'
    """
    t0 = time.perf_counter()
    lhs, rhs, used = parse_claim(text, syntax=syntax)
    verdict, method, cex = decide(lhs, rhs)
    return ClaimResult(text, used, lhs, rhs, verdict, method, cex, time.perf_counter() - t0)
