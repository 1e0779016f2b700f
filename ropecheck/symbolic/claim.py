"""The claim checker: parse a user's ``LHS == RHS`` and decide it, within limits of size, work, time and memory.

Two syntaxes:

* **SymPy** (Python expression syntax, read by :mod:`.sympy_syntax`): free names are real
  symbols (``alpha``, ``beta``, ``gamma``, ``N``, ``S`` ... included); ``I``, ``re``,
  ``im``, ``conjugate``, ``Abs``, ``exp``, ``cos``, ``sin``, ``tan``, ``sqrt``, ``log``,
  ``pi``, ``E``, ``Rational``, ``eye(n)``, ``Matrix``, ``R(phi)`` (the 2x2 rotation
  matrix) and ``diag(A, B, ...)`` (block-diagonal) are known; any other ``f(x)`` is an
  undefined function; ``^`` is a power;
  decimal numbers become exact rationals; ``M.T`` transposes. Only arithmetic, calls,
  numbers, ``[...]`` lists and ``.T`` are accepted (checked on the syntax tree, which is
  then evaluated node by node, never by ``eval``), so a claim cannot run other code.
* **LaTeX** as written in papers and tutorials, through SymPy's LaTeX parser: one ``=``
  between the sides; ``i`` is the imaginary unit and ``e`` Euler's number; ``\\Re``,
  ``\\mathrm{Re}``, ``\\operatorname{Re}`` (and Im) are real/imaginary parts; ``\\bar{k}``,
  ``\\overline{k}`` and ``k^*`` are conjugates; ``R(\\phi)`` is the rotation matrix and
  ``^T`` / ``^\\top`` transposes it (matrices in LaTeX claims are products of rotations,
  which commute, so the parser's ordering of factors cannot change a verdict). In
  ``\\sum_{i=0}^{N}`` the summation variable stays a variable (not the imaginary unit), it
  and the limits are integers, and ``x_i``, ``x_0``, ``x_{N+1}`` are entries of one
  sequence x; ``n(n+1)`` is a product when n is a symbol of the claim. The parse is
  strict (nothing is silently dropped), brackets must balance, and a command the parser
  would read as a product of letters (``\\begin``, ``\\mathbf``) is refused.

Without ``syntax=``: a claim with a backslash or braces is LaTeX; otherwise it is SymPy
syntax (``==`` or one ``=``), and LaTeX only if that fails (``2x = x + x``). Matrices
compare entrywise. Unparsable text raises :class:`~ropecheck.errors.ClaimParseError` with
the 0-based column of the problem.

**Limits** (the constants of :mod:`.limits`): a claim longer than ``MAX_CLAIM_CHARS``
(2000) characters or nested deeper than ``MAX_NESTING`` (30) cannot be read
(``ClaimParseError``, exit 2, with the column). A claim past ``MAX_EXPONENT`` (10000),
``MAX_NUMBER_DIGITS`` (4000), ``MAX_MATRIX_SIZE`` (64), ``MAX_MATRIX_POWER`` (64) or
``MAX_TERMS`` (10000 terms after expansion, estimated) is UNDECIDED, and the result names the
limit (``ClaimResult.limit``). :func:`check_claim` reads and decides the claim in a forked
child (:func:`ropecheck.isolate.run_isolated`) stopped after ``timeout`` seconds
(``CLAIM_TIMEOUT``, 5 s) or past ``memory_limit`` bytes (``CLAIM_MEMORY_LIMIT``, 2 GiB):
UNDECIDED, naming the limit. A ``RecursionError`` never escapes.

Design constraints: parsing only builds expressions; deciding is :func:`.decide.decide`,
so a claim gets the same verdicts and counterexamples as the proof steps.
"""

from __future__ import annotations

import functools
import re as _re
import signal
import time
import warnings
from dataclasses import dataclass
from typing import Any, Literal

import sympy
from sympy import E, I, ImmutableMatrix, MatrixBase, Symbol

from .. import isolate
from ..errors import ClaimLimitError, ClaimParseError, RopeCheckError, UsageError
from .decide import decide
from .limits import (
    CLAIM_MEMORY_LIMIT,
    CLAIM_TIMEOUT,
    MAX_EXPONENT,
    MAX_TIMEOUT,
    check_matrix,
    check_number,
    check_text,
    check_work,
    describe_number,
    power,
)
from .proof import Counterexample, Verdict, expr_text
from .sympy_syntax import check_expression, combine, read_side, rotation

__all__ = ["ClaimResult", "Syntax", "antlr_runtime_problem", "check_claim", "parse_claim"]

Syntax = Literal["auto", "sympy", "latex"]


@dataclass
class ClaimResult:
    """A decided claim: the parsed sides, the verdict, the deciding rewrite, any counterexample.

    ``limit`` names the limit that stopped the decision (``"time"``, ``"memory"``,
    ``"exponent"``, ``"number"``, ``"matrix_size"``, ``"matrix_power"``, ``"terms"``,
    ``"recursion"``), and ``limit_message`` says it in a sentence; both are None when
    no limit was hit. ``lhs``/``rhs`` are None when the claim was stopped before it was read.
    """

    text: str
    syntax: str
    lhs: Any
    rhs: Any
    verdict: Verdict
    method: str
    counterexample: Counterexample | None
    seconds: float
    limit: str | None = None
    limit_message: str | None = None

    @property
    def exit_code(self) -> int:
        """0 PROVED, 1 REFUTED, 3 UNDECIDED (2 is a parse error, raised before a result exists)."""
        return {Verdict.PROVED: 0, Verdict.REFUTED: 1, Verdict.UNDECIDED: 3}[self.verdict]

    def to_dict(self) -> dict[str, Any]:
        read = self.lhs is not None
        return {
            "claim": self.text,
            "syntax": self.syntax,
            "lhs": expr_text(self.lhs) if read else None,
            "rhs": expr_text(self.rhs) if read else None,
            "lhs_latex": expr_text(self.lhs, latex=True) if read else None,
            "rhs_latex": expr_text(self.rhs, latex=True) if read else None,
            "verdict": self.verdict.value,
            "method": self.method,
            "counterexample": self.counterexample.to_dict() if self.counterexample else None,
            "limit": None if self.limit is None else {"name": self.limit, "message": self.limit_message},
            "seconds": round(self.seconds, 6),
        }


def _realify(expr: Any) -> Any:
    """Every free symbol without assumptions becomes a real symbol of the same name."""
    if isinstance(expr, MatrixBase):
        return ImmutableMatrix(expr.applyfunc(_realify))
    if not isinstance(expr, sympy.Basic):
        return sympy.sympify(expr)
    mapping = {s: Symbol(s.name, real=True) for s in expr.free_symbols if isinstance(s, Symbol) and s.is_real is None}
    return expr.xreplace(mapping)


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
        elif (
            depth == 0
            and text.startswith(sep, i)
            and (sep != "=" or (text[i - 1 : i] not in ("=", "<", ">", "!", "\\") and text[i + 1 : i + 2] != "="))
        ):
            hits.append(i)
            i += len(sep)
            continue
        i += 1
    if len(hits) != 1:
        what = "none" if not hits else f"{len(hits)}"
        need = "'==' (or '=')" if not hits else f"exactly one '{sep}'"
        raise ClaimParseError(
            f"a claim needs {need} between its two sides, found {what}", hits[1] if len(hits) > 1 else len(text)
        )
    k = hits[0]
    return text[:k], text[k + len(sep) :], k + len(sep)


# --------------------------------------------------------------------------- LaTeX syntax

_PART = _re.compile(r"\\(?:operatorname|mathrm|text|textrm|mathit)\{(Re|Im)\}|\\(Re|Im)(?![A-Za-z])")
_TOP = _re.compile(r"\^\s*(?:\{\s*(?:\\top|T|\\intercal|\\mathsf\{T\})\s*\}|\\top|\\intercal|T(?![A-Za-z]))")
_STAR = _re.compile(r"((?:\\[A-Za-z]+|[A-Za-z])(?:_\{[^{}]*\}|_[A-Za-z0-9])?)\s*\^\s*(?:\{\s*\*\s*\}|\*)")
_BAR = _re.compile(r"\\bar\{")
_TRANSPOSE = Symbol("TRANSPOSE")


_GREEK = (
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi omicron pi varpi rho "
    "varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon "
    "Phi Psi Omega"
).split()
_KNOWN_COMMANDS = frozenset(_GREEK) | frozenset(
    "sin cos tan csc sec cot sinh cosh tanh arcsin arccos arctan arccot arccsc arcsec arsinh arcosh artanh exp "
    "log ln lg "
    "sqrt frac dfrac tfrac binom dbinom tbinom sum prod int lim to infty cdot times div left right langle "
    "rangle lfloor "
    "rfloor lceil rceil quad qquad mathit mathrm operatorname text textrm mathsf bar overline top intercal Re Im "
    "thinspace medspace thickspace negthinspace negmedspace negthickspace le leq ge geq neq big Big bigg Bigg".split()
)
_COMMAND = _re.compile(r"\\([A-Za-z]+)")


def _check_latex_commands(side: str, offset: int) -> None:
    """Refuse commands SymPy's parser would silently read as a product of letters (``\\begin``)."""
    for m in _COMMAND.finditer(side):
        if m.group(1) not in _KNOWN_COMMANDS:
            raise ClaimParseError(
                f"unknown LaTeX command \\{m.group(1)} (matrices: write R(\\phi) products, or use the SymPy syntax)",
                offset + m.start(),
            )


_OPEN, _CLOSE = "([{", ")]}"


def _check_brackets(side: str, offset: int) -> None:
    """Parentheses, brackets and braces must balance (escaped ``\\{ \\}`` count as brackets too)."""
    stack: list[tuple[str, int]] = []
    for pos, ch in enumerate(side):
        if ch in _OPEN:
            stack.append((ch, pos))
        elif ch in _CLOSE:
            if not stack or _OPEN.index(stack[-1][0]) != _CLOSE.index(ch):
                raise ClaimParseError(f"unmatched '{ch}'", offset + pos)
            stack.pop()
    if stack:
        ch, pos = stack[-1]
        raise ClaimParseError(f"'{ch}' is never closed", offset + pos)


def _preprocess_latex(side: str) -> str:
    side = _PART.sub(lambda m: r"\mathit{" + (m.group(1) or m.group(2)) + "}", side)
    side = _STAR.sub(lambda m: r"\overline{" + m.group(1) + "}", side)
    side = _BAR.sub(r"\\overline{", side)
    side = _TOP.sub(r"^{\\mathit{TRANSPOSE}}", side)
    side = side.replace(r"\,", " ").replace(r"\!", " ")
    return side


def _convert_latex(expr: Any, bound: frozenset[str] = frozenset()) -> Any:
    """Rebuild a parsed LaTeX tree with i, e, Re/Im, R(phi) and transposes interpreted.

    ``bound``: names of summation (product) variables in scope; they stay variables, so
    ``\\sum_{i} x_i`` sums over i rather than over the imaginary unit.
    """
    conv = functools.partial(_convert_latex, bound=bound)
    if isinstance(expr, Symbol):
        if expr.name in bound:
            return expr
        return {"i": I, "e": E, "TRANSPOSE": _TRANSPOSE}.get(expr.name, expr)
    if isinstance(expr, (sympy.Sum, sympy.Product)):
        inner = bound | {str(lim[0]) for lim in expr.limits}
        limits = [(lim[0], *[conv(x) for x in lim[1:]]) for lim in expr.limits]
        return expr.func(_convert_latex(expr.function, inner), *limits)
    if isinstance(expr, sympy.core.function.AppliedUndef):
        args = [conv(a) for a in expr.args]
        name = expr.func.__name__
        if name == "R" and len(args) == 1:
            return rotation(args[0])
        if name in ("i", "e") and name not in bound and len(args) == 1:  # i(m-n) is i*(m-n), not a function
            return (I if name == "i" else E) * args[0]
        return expr.func(*args)
    if not expr.args:
        return expr
    if isinstance(expr, sympy.Mul):
        factors = [conv(a) for a in expr.args]
        for part, fn in (("Re", sympy.re), ("Im", sympy.im)):
            if Symbol(part) in factors:
                factors.remove(Symbol(part))
                return fn(functools.reduce(_times, _matrix_order(factors), sympy.S.One))
        return functools.reduce(_times, _matrix_order(factors), sympy.S.One)
    if isinstance(expr, sympy.Add):
        return functools.reduce(_plus, [conv(a) for a in expr.args])
    if isinstance(expr, sympy.Pow):
        base, exp_ = conv(expr.base), conv(expr.exp)
        if exp_ == _TRANSPOSE:
            if not isinstance(base, MatrixBase):
                raise ClaimParseError("^T (transpose) applies to a matrix, e.g. R(\\phi)^T")
            return base.T
        if exp_ == -_TRANSPOSE and isinstance(base, MatrixBase):
            return base.T.inv()
        return power(base, exp_)
    args = [conv(a) for a in expr.args]
    if isinstance(expr, _COMBINATORIAL):  # 10^{9}! would be computed digit by digit: refused past the limit
        for a in args:
            if isinstance(a, sympy.Rational) and abs(a) > MAX_EXPONENT:
                raise ClaimLimitError(
                    f"{type(expr).__name__} of {describe_number(a)} exceeds the limit {MAX_EXPONENT}", "number"
                )
    out = expr.func(*args)
    return check_number(out) if isinstance(out, sympy.Rational) else check_matrix(out)


def _times(a: Any, b: Any) -> Any:
    return combine("*", a, b)


def _plus(a: Any, b: Any) -> Any:
    return combine("+", a, b)


_COMBINATORIAL = (sympy.factorial, sympy.factorial2, sympy.subfactorial, sympy.binomial, sympy.gamma,
                  sympy.RisingFactorial, sympy.FallingFactorial)  # fmt: skip
_SUBSCRIPTED = _re.compile(r"^(.+?)_\{?([^{}]+?)\}?$")


def _index_sums(lhs: Any, rhs: Any) -> tuple[Any, Any]:
    """Read what SymPy's LaTeX parser leaves ambiguous, looking at both sides together.

    * ``n(n+1)`` where ``n`` is also a symbol of the claim is a product, not a call.
    * Summation variables and the symbols in summation limits are integers.
    * Every symbol ``x_{...}`` whose base x is subscripted by a summation variable somewhere
      becomes the entry ``x[...]`` of a real sequence, so ``\\sum_{i=0}^{2} x_i = x_0 + x_1 + x_2``
      reads as intended; other subscripted symbols stay plain symbols.
    """
    sides = [e for e in (lhs, rhs) if not isinstance(e, MatrixBase)]
    # n(n+1) where n is also a plain symbol of the claim is a product, not a function call
    names = {a.name: a for e in sides for a in e.free_symbols if isinstance(a, Symbol)}
    applied = [f for e in sides for f in e.atoms(sympy.core.function.AppliedUndef)]
    calls = {f: names[f.func.__name__] * sympy.Mul(*f.args) for f in applied
             if f.func.__name__ in names and len(f.args) == 1}  # fmt: skip
    sides = [e.xreplace(calls) for e in sides]
    sums = [s for e in sides for s in e.atoms(sympy.Sum, sympy.Product)]
    if not sums:
        out0 = iter(sides)
        return tuple(e if isinstance(e, MatrixBase) else next(out0) for e in (lhs, rhs))  # type: ignore[return-value]
    bound = {str(lim[0]) for s in sums for lim in s.limits}
    # summation variables and limits are integers: those symbols become integer symbols everywhere
    limit_symbols = {a for s in sums for lim in s.limits for x in lim for a in x.free_symbols}
    integer = {a: Symbol(a.name, integer=True) for a in limit_symbols if not a.is_integer}
    sides = [e.xreplace(integer) for e in sides]
    known: dict[str, Any] = {a.name: a for e in sides for a in e.atoms(Symbol)}
    known.update({str(lim[0]): lim[0] for e in sides for s in e.atoms(sympy.Sum, sympy.Product) for lim in s.limits})
    split = {a: _SUBSCRIPTED.match(a.name) for e in sides for a in e.atoms(Symbol)}
    bound_names = "|".join(_re.escape(b) for b in bound)
    bases = {
        m.group(1) for m in split.values() if m and _re.search(rf"(?<![A-Za-z])({bound_names})(?![A-Za-z])", m.group(2))
    }
    mapping = {}
    for a, m in split.items():
        if not m or m.group(1) not in bases:
            continue
        try:
            index = sympy.sympify(m.group(2), locals=dict(known))
        except (sympy.SympifyError, SyntaxError, TypeError, AttributeError):
            continue
        if (
            isinstance(index, sympy.Expr)
            and all(x.is_integer for x in index.free_symbols)
            and index.is_integer is not False
        ):
            mapping[a] = sympy.IndexedBase(m.group(1).lstrip("\\"), real=True)[index]
    out = iter(e.xreplace(mapping) for e in sides)
    return tuple(e if isinstance(e, MatrixBase) else next(out) for e in (lhs, rhs))  # type: ignore[return-value]


def _matrix_order(factors: list[Any]) -> list[Any]:
    """Scalars first, matrices after in their written order (the parser keeps written order for them)."""
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

    match = _re.search(r"version (\d+(?:\.\d+)*)", str(exc))
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


def _parse_latex_side(side: str, offset: int) -> Any:
    try:
        from sympy.parsing.latex import (  # needs the ANTLR runtime: imported when a LaTeX claim is read
            LaTeXParsingError,
            parse_latex,
        )
    except ImportError as exc:  # pragma: no cover - SymPy without its LaTeX parser package
        raise UsageError(antlr_runtime_problem(exc)) from None
    if not side.strip():
        raise ClaimParseError("empty side of the claim", offset)
    _check_latex_commands(side, offset)
    _check_brackets(side, offset)
    text = _preprocess_latex(side)
    try:  # strict: text the grammar cannot consume is an error, not silently dropped
        with warnings.catch_warnings():
            # SymPy warns on import when the ANTLR runtime is missing, then raises ImportError:
            # the one-line message below says it instead
            warnings.filterwarnings("ignore", message=r"antlr4\..* is not installed", category=UserWarning)
            parsed = parse_latex(text, strict=True)
    except LaTeXParsingError as exc:
        raise ClaimParseError(
            f"cannot parse LaTeX {side.strip()!r}: {str(exc).splitlines()[0]}", offset + _caret(str(exc), side)
        ) from None
    except ImportError as exc:  # the ANTLR runtime is missing or of another release line
        raise UsageError(antlr_runtime_problem(exc)) from None
    except (RecursionError, MemoryError):
        raise
    except Exception as exc:
        raise ClaimParseError(f"cannot parse LaTeX {side.strip()!r}: {str(exc).splitlines()[0]}", offset) from None
    try:
        converted = _convert_latex(parsed)
    except ClaimParseError as exc:
        if exc.position is not None:
            raise
        raise ClaimParseError(str(exc), offset) from None
    except (ClaimLimitError, RecursionError, MemoryError):
        raise
    except Exception as exc:
        raise ClaimParseError(f"cannot read LaTeX {side.strip()!r}: {exc}", offset) from None
    return _realify(check_expression(converted, side, offset))


def _caret(message: str, side: str) -> int:
    for line in message.splitlines():
        if line.strip().endswith("^") and set(line.strip()) <= {"~", "^"}:
            return min(len(line.rstrip()) - 1, len(side))
    return 0


# --------------------------------------------------------------------------- API


def _detect(text: str) -> str:
    """LaTeX when the text has a backslash or braces; SymPy syntax otherwise."""
    return "latex" if ("\\" in text or ("{" in text and "==" not in text)) else "sympy"


def _parse(text: str, used: str) -> tuple[Any, Any, int]:
    sep = "==" if "==" in text else "="
    left, right, col = _split(text, sep)
    try:
        if used == "sympy":
            return read_side(left, 0), read_side(right, col), col
        lhs, rhs = _index_sums(_parse_latex_side(left, 0), _parse_latex_side(right, col))
    except RecursionError:
        raise ClaimParseError(
            "the claim nests too deeply to read; write it with fewer nested brackets or terms", 0
        ) from None
    return lhs, rhs, col


def parse_claim(text: str, *, syntax: Syntax = "auto") -> tuple[Any, Any, str]:
    """Parse ``"LHS == RHS"`` (SymPy) or ``"LHS = RHS"`` (LaTeX) into two expressions.

    With ``syntax="auto"`` a claim with a backslash or braces is LaTeX; any other is read
    as SymPy syntax (``==`` or a single ``=``) and, only if that fails, as LaTeX
    (``2x = x + x``); when both fail the SymPy error is raised.

    Returns:
        (lhs, rhs, syntax actually used).

    Raises:
        ClaimParseError: the text is not a claim, or too long or too deeply nested to read
            (:data:`~.limits.MAX_CLAIM_CHARS`, :data:`~.limits.MAX_NESTING`), with the column.
        ClaimLimitError: the claim is past a limit of :mod:`.limits` (an exponent, a number,
            a matrix size or power); :func:`check_claim` reports it as UNDECIDED.

    Example:
        >>> lhs, rhs, syntax = parse_claim("cos(a)**2 + sin(a)**2 == 1")
        >>> syntax, rhs
        ('sympy', 1)
    """
    if not isinstance(text, str) or not text.strip():
        raise ClaimParseError("the claim is empty; write it as 'LHS == RHS'", 0)
    check_text(text)
    used = _detect(text) if syntax == "auto" else syntax
    if used not in ("sympy", "latex"):
        raise UsageError(f"syntax must be 'auto', 'sympy' or 'latex', got {syntax!r}")
    try:
        lhs, rhs, col = _parse(text, used)
    except ClaimParseError:
        if syntax != "auto" or used != "sympy" or "==" in text:
            raise
        try:
            lhs, rhs, col = _parse(text, "latex")
            used = "latex"
        except (ClaimParseError, UsageError):
            raise ClaimParseError(*_first_error(text)) from None
    if isinstance(lhs, MatrixBase) != isinstance(rhs, MatrixBase) or (
        isinstance(lhs, MatrixBase) and lhs.shape != rhs.shape
    ):
        shape = lambda e: f"a {e.rows}x{e.cols} matrix" if isinstance(e, MatrixBase) else "a scalar"
        raise ClaimParseError(f"cannot compare {shape(lhs)} with {shape(rhs)}", col)
    return lhs, rhs, used


def _first_error(text: str) -> tuple[str, int | None]:
    """The SymPy-syntax error for ``text`` (message without the column suffix, and the column)."""
    try:
        _parse(text, "sympy")
    except ClaimParseError as exc:
        message = str(exc)
        if exc.position is not None:
            message = message.rsplit(" (at column ", 1)[0]
        return message, exc.position
    return "cannot parse the claim", None  # pragma: no cover


def _limited(text: str, syntax: str, limit: str, message: str, t0: float, sides: tuple[Any, ...] = ()) -> ClaimResult:
    lhs, rhs, used = sides if sides else (None, None, syntax)
    return ClaimResult(text, used, lhs, rhs, Verdict.UNDECIDED, "none", None, time.perf_counter() - t0, limit, message)


def _read_and_decide(text: str, syntax: Syntax) -> ClaimResult:
    """Parse, check the limits, decide (in the child, or in-process); user errors are raised."""
    t0 = time.perf_counter()
    try:
        lhs, rhs, used = parse_claim(text, syntax=syntax)
    except ClaimLimitError as exc:
        return _limited(text, syntax if syntax != "auto" else _detect(text), exc.limit, str(exc), t0)
    sides = (lhs, rhs, used)
    try:  # the caller keeps the sides even if the time runs out
        isolate.send(("read", lhs, rhs, used))
    except Exception:  # pragma: no cover - sides too deep to pickle: the caller just will not show them
        pass
    try:
        if lhs != rhs:  # a claim identical on both sides is decided at once, whatever its size
            check_work(lhs, rhs)
    except ClaimLimitError as exc:
        return _limited(text, used, exc.limit, str(exc), t0, sides)
    try:
        verdict, method, cex = decide(lhs, rhs)
    except MemoryError:
        raise
    except RecursionError:
        return _limited(text, used, "recursion", "the rewrites nested deeper than Python's recursion limit", t0, sides)
    except Exception as exc:  # a rewrite that fails decides nothing: not a proof, not a refutation
        verdict, method, cex = Verdict.UNDECIDED, f"none ({type(exc).__name__} in the rewrites)", None
    return ClaimResult(text, used, lhs, rhs, verdict, method, cex, time.perf_counter() - t0)


@functools.cache
def _load_latex_parser() -> None:
    """Import SymPy's LaTeX parser and its ANTLR grammar (0.4 s) in this process, before forking."""
    try:
        with warnings.catch_warnings():  # a missing runtime: the child reports it in one line
            warnings.filterwarnings("ignore", message=r"antlr4\..* is not installed", category=UserWarning)
            from sympy.parsing.latex import parse_latex  # the ANTLR runtime: imported when a LaTeX claim may come

            parse_latex("x", strict=True)
    except Exception:  # pragma: no cover - missing runtime: the child reports it as a usage error
        pass


def _in_child(text: str, syntax: Syntax) -> ClaimResult | RopeCheckError:
    """What runs in the forked child: the result, or the user error to raise in the caller."""
    try:
        return _read_and_decide(text, syntax)
    except RopeCheckError as exc:
        return exc


def _memory_words(limit: int) -> str:
    return f"{limit / 2**30:g} GiB" if limit >= 2**30 else f"{limit / 2**20:g} MiB"


def check_claim(
    text: str,
    *,
    syntax: Syntax = "auto",
    timeout: float | None = CLAIM_TIMEOUT,
    memory_limit: int | None = CLAIM_MEMORY_LIMIT,
) -> ClaimResult:
    """Decide a claimed identity: PROVED, REFUTED (with a counterexample) or UNDECIDED.

    The claim is read and decided in a forked child (:func:`ropecheck.isolate.run_isolated`)
    that is stopped after ``timeout`` seconds or once it maps ``memory_limit`` more bytes:
    the claim is then UNDECIDED and ``result.limit`` is ``"time"`` or ``"memory"``. The
    limits of :mod:`.limits` (exponents, numbers, matrix sizes and powers, expansion size)
    make a claim UNDECIDED the same way, before the work. With ``timeout=None`` and
    ``memory_limit=None`` (or where ``fork`` is missing) it runs in this process, unbounded
    in time.

    Raises:
        ClaimParseError: the claim cannot be read (also: longer than ``MAX_CLAIM_CHARS``,
            nested deeper than ``MAX_NESTING``), with the column.
        UsageError: a bad ``syntax``, ``timeout`` or ``memory_limit``.

    Example:
        >>> check_claim("R(a).T * R(b) == R(b - a)").verdict.value
        'PROVED'
        >>> check_claim("R(a).T * R(b) == R(a - b)").verdict.value
        'REFUTED'
        >>> check_claim("x**(10**10) == 1").limit_message
        'exponent 10^10 exceeds the limit 10000 (at column 5)'
    """
    t0 = time.perf_counter()
    if not isinstance(text, str) or not text.strip():
        raise ClaimParseError("the claim is empty; write it as 'LHS == RHS'", 0)
    check_text(text)  # too long or too deep to read: exit 2 before any work
    if syntax not in ("auto", "sympy", "latex"):
        raise UsageError(f"syntax must be 'auto', 'sympy' or 'latex', got {syntax!r}")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= MAX_TIMEOUT
    ):
        raise UsageError(f"timeout must be a number of seconds in (0, {MAX_TIMEOUT:g}], got {timeout!r}")
    if memory_limit is not None and (
        isinstance(memory_limit, bool) or not isinstance(memory_limit, int) or memory_limit <= 0
    ):
        raise UsageError(f"memory_limit must be a positive number of bytes, got {memory_limit!r}")
    if (timeout is None and memory_limit is None) or not isolate.available():
        try:
            return _read_and_decide(text, syntax)
        except MemoryError:
            return _limited(text, syntax if syntax != "auto" else _detect(text), "memory", "out of memory", t0)
    if syntax == "latex" or (syntax == "auto" and "==" not in text):
        _load_latex_parser()  # once, here: not again in every child
    outcome = isolate.run_isolated(_in_child, text, syntax, timeout=timeout, memory_limit=memory_limit)
    if outcome.ok:
        if isinstance(outcome.value, RopeCheckError):
            raise outcome.value
        result: ClaimResult = outcome.value
        result.seconds = time.perf_counter() - t0
        return result
    read = [m[1:] for m in outcome.messages if isinstance(m, tuple) and m and m[0] == "read"]
    sides = tuple(read[0]) if read else ()
    used = sides[2] if sides else (syntax if syntax != "auto" else _detect(text))
    if outcome.status == "timeout":
        return _limited(text, used, "time", f"time limit of {timeout:g} s reached", t0, sides)
    if outcome.status == "memory" or (outcome.status == "signaled" and outcome.signal_number == signal.SIGKILL):
        words = _memory_words(memory_limit) if memory_limit else "the machine's memory"
        return _limited(text, used, "memory", f"memory limit of {words} reached", t0, sides)
    # a crash or an escape in the decision: nothing was decided, and the reason is kept
    lhs, rhs = sides[:2] if sides else (None, None)
    method = f"none ({isolate.describe_outcome(outcome, 'the decision')})"
    return ClaimResult(text, used, lhs, rhs, Verdict.UNDECIDED, method, None, time.perf_counter() - t0)
