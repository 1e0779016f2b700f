"""Each frequency schedule of :mod:`ropecheck.schedules` as an exact SymPy expression.

:func:`theta_expression` gives theta_i of a :class:`~ropecheck.spec.RopeSpec` at the current
length L (a symbol or a number) exactly: the spec's numbers become rationals, logarithms and
pi stay symbolic, and the schedule's case analysis (YaRN's ramp, Llama 3's wavelength bands,
LongRoPE's short/long factors, dynamic NTK's growth) is carried out in exact arithmetic or
kept as a ``Piecewise`` in L. Theorem 7 (``proofs/context_extension.py``) builds its steps
from these expressions for every schedule the spec knows (:data:`ropecheck.schedules.ROPE_TYPES`),
and :func:`agreement` checks each against the spec's own fp64 values, so the symbolic
theorem and the numeric code are about the same formulas.

Design constraints: one function per schedule class, dispatched by type; a schedule with no
symbolic form raises ``KeyError`` (the theorem then says which); no floating point enters an
expression (a float parameter is read as the exact rational it prints as).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import sympy
from sympy import Max, Min, Piecewise, Rational, log, pi

from ...schedules import Default, DynamicNTK, Linear, Llama3, LongRoPE, Proportional, StaticNTK, YaRN
from ...spec import RopeSpec

__all__ = ["SYMBOLIC_SCHEDULES", "agreement", "exact", "theta_expression"]


def exact(value: Any) -> Any:
    """A spec parameter as an exact SymPy number (a float as the rational it prints as)."""
    if isinstance(value, bool):  # pragma: no cover - never a schedule parameter
        raise TypeError("a boolean is not a number here")
    if isinstance(value, int):
        return sympy.Integer(value)
    return sympy.Rational(repr(float(value)))


def _default(spec: RopeSpec, i: int) -> Any:
    return exact(spec.base) ** Rational(-2 * i, spec.rotary_dim)


def _linear(spec: RopeSpec, sch: Any, i: int, length: Any) -> Any:
    return _default(spec, i) / exact(sch.factor)


def _static_ntk(spec: RopeSpec, sch: Any, i: int, length: Any) -> Any:
    r = spec.rotary_dim
    if r == 2:
        return sympy.Integer(1)
    return (exact(spec.base) * exact(sch.factor) ** Rational(r, r - 2)) ** Rational(-2 * i, r)


def _dynamic_ntk(spec: RopeSpec, sch: Any, i: int, length: Any) -> Any:
    r, l0, s = spec.rotary_dim, sympy.Integer(sch.original_max_position_embeddings), exact(sch.factor)
    if r == 2:
        return sympy.Integer(1)
    current = l0 if length is None else Max(length, l0)  # no length: the original context (as the spec)
    grow = s * current / l0 - (s - 1)
    return (exact(spec.base) * grow ** Rational(r, r - 2)) ** Rational(-2 * i, r)


def _yarn(spec: RopeSpec, sch: Any, i: int, length: Any) -> Any:
    r, base, l0, s = (
        spec.rotary_dim,
        exact(spec.base),
        sympy.Integer(sch.original_max_position_embeddings),
        exact(sch.factor),
    )

    def dim_for(rotations: Any) -> Any:
        return r * log(l0 / (exact(rotations) * 2 * pi)) / (2 * log(base))

    low, high = dim_for(sch.beta_fast), dim_for(sch.beta_slow)
    if sch.truncate:
        low, high = sympy.floor(low), sympy.ceiling(high)
    low, high = Max(low, 0), Min(high, r - 1)
    if sympy.simplify(high - low) == 0:
        high = high + Rational(1, 1000)  # as transformers: no zero-width ramp
    ramp = Min(Max((i - low) / (high - low), 0), 1)
    theta = _default(spec, i)
    return theta / s * ramp + theta * (1 - ramp)


def _llama3(spec: RopeSpec, sch: Any, i: int, length: Any) -> Any:
    s, lo, hi = exact(sch.factor), exact(sch.low_freq_factor), exact(sch.high_freq_factor)
    old = sympy.Integer(sch.original_max_position_embeddings)
    theta = _default(spec, i)
    wavelen = 2 * pi / theta
    if bool(wavelen < old / hi):
        return theta
    if bool(wavelen > old / lo):
        return theta / s
    smooth = (old / wavelen - lo) / (hi - lo)
    return (1 - smooth) * theta / s + smooth * theta


def _longrope(spec: RopeSpec, sch: Any, i: int, length: Any) -> Any:
    theta, l0 = _default(spec, i), sympy.Integer(sch.original_max_position_embeddings)
    short, long_ = exact(sch.short_factor[i]), exact(sch.long_factor[i])
    if length is None:
        return theta / short
    return Piecewise((theta / long_, sympy.Gt(length, l0)), (theta / short, True))


def _proportional(spec: RopeSpec, sch: Any, i: int, length: Any) -> Any:
    if i >= sch.turning(spec.rotary_dim):  # a pair that does not turn
        return sympy.Integer(0)
    return _default(spec, i) / exact(sch.factor)


#: schedule class -> its theta_i(L) as an exact expression
SYMBOLIC_SCHEDULES: dict[type, Callable[[RopeSpec, Any, int, Any], Any]] = {
    Default: lambda spec, sch, i, length: _default(spec, i),
    Linear: _linear,
    StaticNTK: _static_ntk,
    DynamicNTK: _dynamic_ntk,
    YaRN: _yarn,
    Llama3: _llama3,
    LongRoPE: _longrope,
    Proportional: _proportional,
}


def theta_expression(spec: RopeSpec, i: int, length: Any = None) -> Any:
    """theta_i of ``spec`` at the current length ``length`` (a symbol, a number, or None), exactly.

    Example:
        >>> from ropecheck import RopeSpec, Linear
        >>> theta_expression(RopeSpec(head_dim=4, scaling=Linear(2.0)), 1)
        1/200

    Raises:
        KeyError: the spec's schedule has no symbolic form here.
    """
    return SYMBOLIC_SCHEDULES[type(spec.scaling)](spec, spec.scaling, i, length)


def agreement(spec: RopeSpec, lengths: tuple[int | None, ...] = (None,)) -> float:
    """The largest relative difference between the exact expressions and ``spec.inv_freq`` (fp64)."""
    worst = 0.0
    for length in lengths:
        got = np.array([float(sympy.N(theta_expression(spec, i, length), 30)) for i in range(spec.half)])
        want = spec.inv_freq(length)
        if not np.array_equal(got == 0, want == 0):  # a pair that turns in one and not in the other
            return math.inf
        worst = max(worst, float(np.max(np.abs(got - want) / np.where(want == 0, 1.0, np.abs(want)))))
    return worst
