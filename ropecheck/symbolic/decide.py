"""The decision procedure: is ``lhs == rhs`` an identity, false, or beyond reach?

An equality is PROVED when one targeted rewrite of ``lhs - rhs`` reduces it *exactly* to
the zero expression; the rewrites are tried cheapest first and the one that decided is
recorded:

``identity`` (the difference is already 0), ``expand``, ``expand_trig`` (expand, then
expand trig functions of sums, then expand), ``expand_complex`` (real and imaginary parts
of every sub-expression, then ``expand_trig``), ``doit`` (evaluate finite sums, then
``expand_trig``), ``peel`` (sums with the same summand and lower limit whose upper limits
differ by integers are each written as the one with the smallest upper limit plus their
last terms, explicitly -- ``Sum_{a}^{b+c} f = Sum_{a}^{b} f + f(b+1) + ... + f(b+c)``, an
identity for all integers under SymPy's (Karr's) summation convention -- then
``expand_trig``; this is what decides the inductive steps over a symbolic d/2),
``pythagoras`` (``expand_trig``, then sin^2 -> 1 - cos^2 and expand), ``trigsimp`` and
``fu``. Matrices are
decided entrywise (``entrywise(<hardest rewrite used>)``); two ``Sum`` objects with the
same limits are decided termwise (``termwise(<rewrite>)``): equal summands give equal
sums, whatever the (symbolic) upper limit.

When no rewrite reaches 0, the procedure looks for a counterexample: small exact values
(integers for integer symbols; pi/3, pi/4, pi/6 -- which give exact algebraic cos
and sin -- for symbols named as angles (theta, phi, alpha, ...); small rationals otherwise) are
substituted, the difference is evaluated in exact arithmetic, and it counts only when it is
certified nonzero (an exact nonzero rational, or a ``strict`` 50-digit evaluation whose
magnitude is far above its error).
Then the verdict is REFUTED with that substitution; otherwise UNDECIDED.

Design constraints: numbers never prove anything here -- they can only refute; and
``equals()``-style "None" answers map to UNDECIDED, never to PROVED.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import sympy
from sympy import Indexed, MatrixBase, Rational, S, Sum, pi
from sympy.core.evalf import PrecisionExhausted
from sympy.simplify.fu import fu

from .proof import Counterexample, Step, Verdict

__all__ = ["REWRITES", "decide", "decide_step", "expand_trig_rewrite", "find_counterexample", "reduce_to_zero"]


def expand_trig_rewrite(e: Any) -> Any:
    return sympy.expand(sympy.expand_trig(sympy.expand(e)))


def _expand_complex(e: Any) -> Any:
    return sympy.expand(sympy.expand_trig(sympy.expand_complex(e)))


def _pythagoras(e: Any) -> Any:
    """``expand_trig``, then sin(x)^2 -> 1 - cos(x)^2 everywhere, then expand (a polynomial reduction)."""
    e = expand_trig_rewrite(e)

    def is_sin_power(x: Any) -> bool:
        return bool(x.is_Pow and isinstance(x.base, sympy.sin) and x.exp.is_Integer and x.exp >= 2)

    def reduce(x: Any) -> Any:
        k = int(x.exp)
        return (1 - sympy.cos(x.base.args[0]) ** 2) ** (k // 2) * x.base ** (k % 2)

    return sympy.expand(e.replace(is_sin_power, reduce))


_PEEL_VARS: dict[tuple[tuple[str, bool], ...], sympy.Dummy] = {}
_PEEL_MAX = 64  # at most this many terms peeled off one sum


def _canonical_var(v: Any) -> sympy.Dummy:
    """One bound variable per set of assumptions (a Dummy: it cannot clash with a user's name)."""
    key = tuple(sorted(v.assumptions0.items()))
    if key not in _PEEL_VARS:
        _PEEL_VARS[key] = sympy.Dummy("k", **v.assumptions0)
    return _PEEL_VARS[key]


def _peel(e: Any) -> Any:
    """Align sums whose upper limits differ by integers, peeling their last terms off; then ``expand_trig``.

    Only single-limit sums whose summand holds no other sum are touched. Within one group
    (same summand up to the name of the bound variable, same lower limit) the smallest upper
    limit b is the base, and Sum_{a}^{b+c} f becomes Sum_{a}^{b} f + sum_{t=1}^{c} f(b+t):
    an identity for every integer a, b and c >= 0 under Karr's convention, which SymPy's
    ``Sum`` follows (Sum_{a}^{b} = -Sum_{b+1}^{a-1} when b < a - 1).
    """
    e = sympy.sympify(e)
    sums = [s for s in e.atoms(Sum) if len(s.limits) == 1 and not s.function.has(Sum)]
    groups: dict[tuple[Any, Any, Any], list[list[Any]]] = {}
    for s in sums:
        v, lo, up = s.limits[0]
        if lo.has(v) or up.has(v):  # pragma: no cover - malformed
            continue
        k = _canonical_var(v)
        classes = groups.setdefault((s.function.xreplace({v: k}), lo, k), [])
        for cls in classes:  # cls = [base upper limit, members...]
            if (up - cls[0]).is_Integer and abs(up - cls[0]) <= _PEEL_MAX:
                cls.append(s)
                if (up - cls[0]).is_negative:
                    cls[0] = up
                break
        else:
            classes.append([up, s])
    mapping: dict[Any, Any] = {}
    for (f, lo, k), classes in groups.items():
        for base, *members in classes:
            for s in members:
                extra = int(s.limits[0][2] - base)
                tail = sum((f.xreplace({k: base + t}) for t in range(1, extra + 1)), S.Zero)
                mapping[s] = Sum(f, (k, lo, base)) + tail
    return expand_trig_rewrite(e.xreplace(mapping)) if mapping else e


def _trigsimp(e: Any) -> Any:
    return sympy.trigsimp(sympy.expand(e))


def _fu(e: Any) -> Any:
    return sympy.expand(fu(e))


#: The rewrites, cheapest first: (name, function of the difference).
REWRITES: tuple[tuple[str, Callable[[Any], Any]], ...] = (
    ("identity", lambda e: e),
    ("expand", sympy.expand),
    ("expand_trig", expand_trig_rewrite),
    ("expand_complex", _expand_complex),
    ("doit", lambda e: expand_trig_rewrite(e.doit())),
    ("peel", _peel),
    ("pythagoras", _pythagoras),
    ("trigsimp", _trigsimp),
    ("fu", _fu),
)
_RANK = {name: i for i, (name, _) in enumerate(REWRITES)}


_CHEAP = 7  # rewrites before trigsimp and fu: a quick counterexample probe runs between


def reduce_to_zero(diff: Any, *, rewrites: tuple[tuple[str, Callable[[Any], Any]], ...] = REWRITES) -> str | None:
    """The name of the first rewrite that turns ``diff`` into exactly 0, or None."""
    diff = sympy.sympify(diff)
    for name, fn in rewrites:
        try:
            if fn(diff) == 0:
                return name
        except (TypeError, ValueError, NotImplementedError, RecursionError):  # pragma: no cover
            continue
    return None


def _same_limits(lhs: Any, rhs: Any) -> bool:
    return isinstance(lhs, Sum) and isinstance(rhs, Sum) and lhs.limits == rhs.limits


def _prove(lhs: Any, rhs: Any, rewrites: tuple[tuple[str, Callable[[Any], Any]], ...] = REWRITES) -> str | None:
    if isinstance(lhs, MatrixBase) or isinstance(rhs, MatrixBase):
        if not (isinstance(lhs, MatrixBase) and isinstance(rhs, MatrixBase)) or lhs.shape != rhs.shape:
            return None
        worst = -1
        for a, b in zip(lhs, rhs):
            method = _prove(a, b, rewrites)
            if method is None:
                return None
            worst = max(worst, _RANK.get(method.split("(")[-1].rstrip(")"), 0))
        return f"entrywise({REWRITES[max(worst, 0)][0]})"
    if _same_limits(lhs, rhs):
        inner = reduce_to_zero(lhs.function - rhs.function, rewrites=rewrites)
        return None if inner is None else f"termwise({inner})"
    return reduce_to_zero(sympy.sympify(lhs) - sympy.sympify(rhs), rewrites=rewrites)


# --------------------------------------------------------------------------- refutation

_INT_POOL = (1, 2, 3, -1, 0, 5, 4, -2)
_POS_INT_POOL = (1, 2, 3, 4)
_REAL_POOL = (S(1), S(2), Rational(1, 2), S(-1), S(3), Rational(2, 3), S(-2), pi / 3, pi / 4)
_MAX_TRIALS = 40
_QUICK_TRIALS = 6
_PREC = 50


def _free(expr: Any) -> list[Any]:
    """Free symbols and concrete indexed symbols (``q[0]``) of ``expr``, sorted (deterministic)."""
    labels = {b.label for b in expr.atoms(sympy.IndexedBase)}
    atoms: set[Any] = {a for a in expr.free_symbols if isinstance(a, sympy.Symbol) and a not in labels}
    atoms |= {a for a in expr.atoms(Indexed) if all(i.is_number for i in a.indices)}
    return sorted(atoms, key=lambda a: (isinstance(a, Indexed), str(a)))


_ANGLE_POOL = (pi / 3, pi / 4, pi / 6, pi / 2, 2 * pi / 3, S(1), Rational(1, 2))
_ANGLE_NAMES = ("theta", "phi", "alpha", "beta", "gamma", "omega", "psi", "angle", "vartheta", "varphi")


def _is_angle(sym: Any) -> bool:
    name = str(sym.base.label if isinstance(sym, Indexed) else sym).lstrip("\\").split("_")[0].lower()
    return name in _ANGLE_NAMES


def _pool(sym: Any) -> tuple[Any, ...]:
    if sym.is_integer and sym.is_positive:
        return _POS_INT_POOL
    if sym.is_integer and sym.is_nonnegative:
        return tuple(v for v in _INT_POOL if v >= 0)
    if sym.is_integer:
        return _INT_POOL
    pool = _ANGLE_POOL if _is_angle(sym) else _REAL_POOL
    if sym.is_positive:
        return tuple(v for v in pool if v > 0)
    return pool


def _assignments(symbols: list[Any], trial: int) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for j, sym in enumerate(symbols):
        pool = _pool(sym)
        out[sym] = (
            sympy.sympify(pool[(trial * (j + 1) + j * (trial // len(pool))) % len(pool)])
            if trial
            else sympy.sympify(pool[0])
        )
    return out


def _evaluate(expr: Any, values: dict[Any, Any]) -> Any:
    """Substitute and evaluate exactly, resolving finite sums; loops for indexed atoms."""
    out = expr.xreplace(values)
    return out.doit().xreplace(values) if out.has(Sum) else out


def _certified_nonzero(value: Any) -> tuple[bool, str]:
    value = sympy.sympify(value)
    if value.free_symbols:
        return False, ""
    if value.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
        return False, ""
    if value.is_Rational:
        return value != 0, str(sympy.N(value, 20)) if value != 0 else "0"  # N: no int-to-text limit
    try:
        approx = sympy.N(value, _PREC, strict=True)
    except (PrecisionExhausted, ArithmeticError, TypeError, ValueError):  # 0, or too close to call
        return False, ""
    if approx == 0 or not approx.is_number:
        return False, ""
    re_, im_ = approx.as_real_imag()
    mag = max(abs(sympy.Float(re_, _PREC)), abs(sympy.Float(im_, _PREC)))
    if mag > sympy.Float(10) ** (-(_PREC // 2)):
        return True, str(sympy.N(approx, 20))
    return False, ""


def _counter_in(lhs: Any, rhs: Any, trial: int) -> Counterexample | None:
    values: dict[Any, Any] = {}
    left, right = lhs, rhs
    for _ in range(4):  # symbols, then indexed atoms revealed by finite sums
        diff_free = (
            _free(sympy.Tuple(left, right)) if not isinstance(left, MatrixBase) else _free(sympy.Tuple(*left, *right))
        )
        diff_free = [s for s in diff_free if s not in values]
        if not diff_free:
            break
        values.update(_assignments(diff_free, trial))
        try:  # every value again: a finite sum may have revealed atoms assigned in an earlier round
            left, right = _evaluate(left, values), _evaluate(right, values)
        except (ZeroDivisionError, ValueError, TypeError):
            return None
    if isinstance(left, MatrixBase):
        for r in range(left.rows):
            for c in range(left.cols):
                d = sympy.expand(left[r, c] - right[r, c])
                ok, approx = _certified_nonzero(d)
                if ok:
                    return Counterexample(values, left[r, c], right[r, c], d, approx, (r, c))
        return None
    d = sympy.expand(sympy.sympify(left) - sympy.sympify(right))
    ok, approx = _certified_nonzero(d)
    return Counterexample(values, left, right, d, approx) if ok else None


def find_counterexample(lhs: Any, rhs: Any, *, trials: int = _MAX_TRIALS) -> Counterexample | None:
    """Exact values at which ``lhs`` and ``rhs`` certifiably differ, or None."""
    if isinstance(lhs, MatrixBase) != isinstance(rhs, MatrixBase):
        return None
    if isinstance(lhs, MatrixBase) and lhs.shape != rhs.shape:
        return None
    for trial in range(trials):
        try:
            found = _counter_in(lhs, rhs, trial)
        except (ZeroDivisionError, RecursionError):  # pragma: no cover
            continue
        if found is not None:
            return found
    return None


def decide(lhs: Any, rhs: Any) -> tuple[Verdict, str, Counterexample | None]:
    """Decide ``lhs == rhs``: (verdict, deciding rewrite or "counterexample"/"none", counterexample).

    Example:
        >>> import sympy
        >>> a, b = sympy.symbols("a b", real=True)
        >>> decide(sympy.cos(a + b), sympy.cos(a) * sympy.cos(b) - sympy.sin(a) * sympy.sin(b))[:2]
        (<Verdict.PROVED: 'PROVED'>, 'expand_trig')
    """
    method = _prove(lhs, rhs, REWRITES[:_CHEAP])
    if method is not None:
        return Verdict.PROVED, method, None
    # a false claim is cheaper to refute than to push through trigsimp and fu
    cex = find_counterexample(lhs, rhs, trials=_QUICK_TRIALS)
    if cex is None:
        method = _prove(lhs, rhs, REWRITES)
        if method is not None:
            return Verdict.PROVED, method, None
        cex = find_counterexample(lhs, rhs)
    if cex is not None:
        return Verdict.REFUTED, "counterexample", cex
    return Verdict.UNDECIDED, "none", None


def decide_step(name: str, statement: str, lhs: Any, rhs: Any, *, expect: Verdict = Verdict.PROVED) -> Step:
    """Decide one equality and wrap it as a :class:`Step` (with its timing)."""
    t0 = time.perf_counter()
    verdict, method, cex = decide(lhs, rhs)
    return Step(name, statement, lhs, rhs, verdict, method, cex, expect, time.perf_counter() - t0)
