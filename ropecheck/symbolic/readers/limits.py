"""The limits that keep deciding a claim bounded: size, nesting, exponents, matrices, work, time, memory.

A claim is text a user typed, so it can ask for anything: ``2**(10000*10000*10000)``,
``eye(10000)``, ``(a+b+c+d)**9999``. Every limit below is checked *before* the work it
bounds is done, and each one that is hit is named in the answer:

==========================  ===========  ===================================================
limit                       value        past it
==========================  ===========  ===================================================
``MAX_CLAIM_CHARS``         2000         exit 2: the claim is too long to read (with column)
``MAX_NESTING``             30           exit 2: brackets, calls, signs or powers nested too
                                         deep to read (with column)
``MAX_EXPONENT``            10000        UNDECIDED: a numeric exponent (or an exponent's
                                         numeric coefficient) larger in magnitude
``MAX_NUMBER_DIGITS``       4000         UNDECIDED: a number the claim builds with more
                                         digits (Python prints at most 4300 by default)
``MAX_MATRIX_SIZE``         64           UNDECIDED: a matrix with more rows or columns
``MAX_MATRIX_POWER``        64           UNDECIDED: a matrix raised to a larger power
``MAX_TERMS``               10000        UNDECIDED: the rewrites would expand the claim to
                                         about this many terms or more (:func:`expansion_size`)
``CLAIM_TIMEOUT``           5 s          UNDECIDED: reading and deciding took longer
``CLAIM_MEMORY_LIMIT``      2 GiB        UNDECIDED: the decision needed more memory
==========================  ===========  ===================================================

``timeout`` may be raised up to ``MAX_TIMEOUT`` (3600 s); ``memory_limit`` is extra address
space for the child beyond what the caller had mapped when it forked.

Why these values: every claim in this project's tests and guides is under 200 characters,
nests brackets at most 4 deep and decides in under 1.1 s; ``R(a)**64 == R(64*a)`` decides
in about 1.1 s and ``(a+b+c+d)**20`` (1771 terms) in 0.8 s on a 2-core machine, while the
time grows faster than the term count past that (5456 terms: 2.8 s; the 4096 products of
cos(x0 + ... + x12): 6 s). The time and memory limits are the backstop for whatever the
static limits do not foresee: the decision runs in a forked child
(:func:`ropecheck.isolate.run_isolated`) that is stopped when either is reached.

Design constraints: the checks are cheap and never recurse on the claim's depth (the
estimate walks the expression with an explicit stack); a limit that is hit raises
:class:`~ropecheck.errors.ClaimLimitError` (UNDECIDED) or
:class:`~ropecheck.errors.ClaimParseError` (too large to read), never anything else.
"""

from __future__ import annotations

import math
from typing import Any

import sympy
from sympy import MatrixBase

from ...errors import ClaimLimitError, ClaimParseError

__all__ = [
    "CLAIM_MEMORY_LIMIT",
    "CLAIM_TIMEOUT",
    "MAX_CLAIM_CHARS",
    "MAX_EXPONENT",
    "MAX_MATRIX_POWER",
    "MAX_MATRIX_SIZE",
    "MAX_NESTING",
    "MAX_NUMBER_DIGITS",
    "MAX_TERMS",
    "MAX_TIMEOUT",
    "check_matrix",
    "check_number",
    "check_text",
    "check_work",
    "describe_number",
    "expansion_size",
    "power",
]

MAX_CLAIM_CHARS = 2000
MAX_NESTING = 30
MAX_EXPONENT = 10_000
MAX_NUMBER_DIGITS = 4000
MAX_MATRIX_SIZE = 64
MAX_MATRIX_POWER = 64
MAX_TERMS = 10_000
CLAIM_TIMEOUT = 5.0
CLAIM_MEMORY_LIMIT = 2 << 30
#: The longest time limit a claim may be given (seconds): an hour.
MAX_TIMEOUT = 3600.0

_OPEN, _CLOSE = "([{", ")]}"
_LOG10_2 = math.log10(2)


def check_text(text: str) -> None:
    """Refuse a claim too long or too deeply bracketed to read (exit 2), with the column."""
    if len(text) > MAX_CLAIM_CHARS:
        raise ClaimParseError(
            f"the claim has {len(text)} characters; the limit is {MAX_CLAIM_CHARS} (split it into shorter claims)",
            MAX_CLAIM_CHARS,
        )
    depth = 0
    for pos, ch in enumerate(text):
        if ch in _OPEN:
            depth += 1
            if depth > MAX_NESTING:
                raise ClaimParseError(
                    f"brackets nested more than {MAX_NESTING} deep; the limit is {MAX_NESTING} "
                    "(write the claim with fewer nested brackets)",
                    pos,
                )
        elif ch in _CLOSE:
            depth = max(depth - 1, 0)


def describe_number(value: Any) -> str:
    """A number for a message: ``10^12`` for a power of ten, digits if short, else its size."""
    if isinstance(value, sympy.Integer) or isinstance(value, int):
        n = abs(int(value))
        sign = "-" if int(value) < 0 else ""
        if n >= 10**6:
            k = _digits(n) - 1
            if n == 10**k:
                return f"{sign}10^{k}"
        if n < 10**15:
            return f"{sign}{n}"
        return f"a {_digits(n)}-digit number"
    if isinstance(value, sympy.Rational):
        return f"{describe_number(value.p)}/{describe_number(value.q)}"
    try:
        return sympy.sstr(sympy.N(value, 6))
    except (TypeError, ValueError, ArithmeticError):  # pragma: no cover - numbers always evaluate
        return "a number"


def _digits(n: int) -> int:
    """Decimal digits of a nonnegative int without converting it to text (no int-str limit)."""
    if n < 10:
        return 1
    estimate = int(n.bit_length() * _LOG10_2)
    return estimate + 1 if n >= 10**estimate else estimate


def _log10(r: sympy.Rational) -> float:
    """log10 of the larger of |numerator| and denominator (how many digits the number takes)."""
    n = max(abs(int(r.p)), abs(int(r.q)), 1)
    return n.bit_length() * _LOG10_2 if n.bit_length() > 1000 else math.log10(n)


def check_number(value: Any) -> Any:
    """``value``, unless it is a rational number with more than ``MAX_NUMBER_DIGITS`` digits."""
    if isinstance(value, sympy.Rational):
        digits = max(_digits(abs(int(value.p))), _digits(int(value.q)))
        if digits > MAX_NUMBER_DIGITS:
            raise ClaimLimitError(
                f"a number with {digits} digits exceeds the limit of {MAX_NUMBER_DIGITS} digits", "number"
            )
    return value


def _magnitude(x: Any) -> float | None:
    """|x| for a numeric SymPy expression (inf when huge), or None when it is not a number."""
    if isinstance(x, sympy.Rational):
        return math.inf if _log10(x) > 300 else abs(float(x))
    if not getattr(x, "is_number", False):
        return None
    try:
        return abs(complex(sympy.N(x, 15)))
    except (TypeError, ValueError, OverflowError, ArithmeticError):
        return None


def _check_exponent(exp: Any) -> None:
    """The exponent (or, if symbolic, each term's numeric coefficient) must be at most ``MAX_EXPONENT``."""
    if isinstance(exp, MatrixBase) or not isinstance(exp, sympy.Basic):
        return
    if exp.is_number:
        parts = [exp]
    else:
        parts = [term.as_coeff_Mul()[0] for term in sympy.Add.make_args(exp)]
    for part in parts:
        mag = _magnitude(part)
        if mag is not None and mag > MAX_EXPONENT:
            raise ClaimLimitError(f"exponent {describe_number(part)} exceeds the limit {MAX_EXPONENT}", "exponent")


def power(base: Any, exp: Any) -> Any:
    """``base ** exp``, refused (``ClaimLimitError``) past the exponent, number or matrix-power limit."""
    _check_exponent(exp)
    if isinstance(base, MatrixBase):
        if not (isinstance(exp, sympy.Integer) or isinstance(exp, int)):
            raise ValueError("a matrix power needs a whole-number exponent, e.g. R(a)**3")
        if abs(int(exp)) > MAX_MATRIX_POWER:
            raise ClaimLimitError(
                f"matrix power {describe_number(exp)} exceeds the limit {MAX_MATRIX_POWER}", "matrix_power"
            )
        return check_matrix(base ** int(exp))
    if isinstance(base, sympy.Basic) and isinstance(exp, sympy.Rational) and not isinstance(exp, MatrixBase):
        # every number in the base is raised to |exp|: refuse before computing a huge one
        numbers = base.atoms(sympy.Rational) if not isinstance(base, sympy.Rational) else {base}
        widest = max((_log10(r) for r in numbers), default=0.0)
        digits = widest * abs(float(exp))
        if digits > MAX_NUMBER_DIGITS:
            raise ClaimLimitError(
                f"a number with about {digits:.0f} digits exceeds the limit of {MAX_NUMBER_DIGITS} digits", "number"
            )
    result = base**exp
    return check_number(result) if isinstance(result, sympy.Rational) else result


def check_matrix(m: Any) -> Any:
    """``m``, unless it has more than ``MAX_MATRIX_SIZE`` rows or columns."""
    if isinstance(m, MatrixBase) and max(m.shape) > MAX_MATRIX_SIZE:
        raise ClaimLimitError(
            f"a {m.rows}x{m.cols} matrix exceeds the matrix size limit {MAX_MATRIX_SIZE}x{MAX_MATRIX_SIZE}",
            "matrix_size",
        )
    return m


# --------------------------------------------------------------------------- the work estimate

_CAP = 1e300
_SPREADING = (sympy.cos, sympy.sin, sympy.tan, sympy.cot, sympy.sec, sympy.csc, sympy.exp,
              sympy.cosh, sympy.sinh, sympy.tanh)  # fmt: skip


def _comb(n: float, k: float) -> float:
    """C(n, k) in floats (capped), for the multinomial count of an expanded power."""
    if k <= 0 or n <= k:
        return 1.0
    try:
        return min(math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)), _CAP)
    except OverflowError:
        return _CAP


def _integer_coefficient(term: Any) -> float:
    """k for a term k*x of a trig or exp argument: f(k x) expands to about k products (f(3) does not expand)."""
    coeff, rest = term.as_coeff_Mul()
    if isinstance(coeff, sympy.Rational) and rest.free_symbols:
        mag = _magnitude(coeff)
        return max(1.0, math.ceil(mag)) if mag is not None and mag < _CAP else _CAP
    return 1.0


def _node_size(node: Any, sizes: list[float]) -> float:
    if not node.args:
        return 1.0
    if isinstance(node, sympy.Add):
        return min(sum(sizes), _CAP)
    if isinstance(node, sympy.Mul):
        return min(math.prod(sizes), _CAP)
    if isinstance(node, sympy.Pow):
        base, exp = sizes
        if isinstance(node.exp, sympy.Integer) and base > 1:
            n = abs(int(node.exp)) if abs(node.exp) < 10**12 else 10**12
            return _comb(n + base - 1, base - 1)  # monomials of degree n in `base` terms
        return min(base * exp, _CAP)
    if isinstance(node, (sympy.Sum, sympy.Product)):
        body, count = sizes[0], 1.0
        for limit in node.limits:
            if len(limit) == 3 and (limit[2] - limit[1]).is_Integer:
                count *= max(float(limit[2] - limit[1]) + 1, 1.0)
        if isinstance(node, sympy.Product):
            return min(body ** min(count, 1e6), _CAP) if body > 1 else 1.0
        return min(body * count, _CAP)
    if isinstance(node, _SPREADING):
        # expand_trig / expand_complex write f(a + b) and f(k x) as products of f(a), f(b), f(x): ~2^terms * k
        arg = node.args[0]
        spread = 2.0 ** min(sizes[0] - 1, 1000)
        for term in sympy.Add.make_args(arg):
            spread *= _integer_coefficient(term)
        return min(spread, _CAP)
    return min(max(sum(sizes), 1.0), _CAP)


def expansion_size(expr: Any) -> float:
    """About how many terms the rewrites may expand ``expr`` to (an over-estimate; matrices: all entries).

    Powers of sums count their monomials (``(a+b+c+d)**n``: C(n+3, 3)), trig and exp of sums
    and of integer multiples count the products they expand to, finite sums their terms.
    The walk uses an explicit stack, so a deep expression cannot exhaust the recursion limit.

    Example:
        >>> import sympy
        >>> a, b, c, d = sympy.symbols("a b c d")
        >>> round(expansion_size((a + b + c + d) ** 20))
        1771
    """
    if isinstance(expr, MatrixBase):
        return min(sum(expansion_size(e) for e in expr), _CAP)
    if not isinstance(expr, sympy.Basic):
        return 1.0
    sizes: dict[Any, float] = {}
    stack: list[tuple[Any, bool]] = [(expr, False)]
    while stack:
        node, ready = stack.pop()
        if node in sizes:
            continue
        if not ready:
            stack.append((node, True))
            stack.extend((a, False) for a in node.args if a not in sizes)
            continue
        sizes[node] = _node_size(node, [sizes[a] for a in node.args])
    return sizes[expr]


def check_work(lhs: Any, rhs: Any) -> None:
    """Refuse (``ClaimLimitError``) a claim whose sides would expand past ``MAX_TERMS`` terms."""
    size = min(expansion_size(lhs) + expansion_size(rhs), _CAP)
    if size > MAX_TERMS:
        shown = f"about {size:,.0f}" if size < 1e9 else (f"about {size:.2g}" if size < _CAP else "more than 1e300")
        raise ClaimLimitError(f"expanding the claim would give {shown} terms, over the limit of {MAX_TERMS}", "terms")
