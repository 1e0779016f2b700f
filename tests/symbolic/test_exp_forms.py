"""The late rewrites ``exp_form`` and ``cancel``: each proves its family of identities and never a false step."""

from __future__ import annotations

import sympy

from ropecheck.symbolic.engine.decide import decide
from ropecheck.symbolic.engine.exp_forms import cancel_rewrite, exp_form_rewrite
from ropecheck.symbolic.engine.proof import Verdict

k, d, x, y = sympy.symbols("k d x y", real=True)
a, b, s, m = sympy.symbols("a b s m", real=True)
THETA = 10000 ** (-2 * k / d)  # not known real: d may be 0


def test_a_power_of_a_positive_number_is_the_exponential_of_its_logarithm() -> None:
    assert exp_form_rewrite(1 / 10000 ** (2 * k / d) - sympy.exp(-2 * k * sympy.log(10000) / d)) == 0
    assert decide(1 / 10000 ** (2 * k / d), sympy.exp(-2 * k * sympy.log(10000) / d))[:2] == (
        Verdict.PROVED,
        "exp_form",
    )


def test_logarithms_of_rationals_are_split_into_primes() -> None:
    lhs, rhs = 10000 ** (k / d), 2 ** (4 * k / d) * 5 ** (4 * k / d)
    assert exp_form_rewrite(lhs - rhs) == 0
    assert exp_form_rewrite(sympy.exp(k * sympy.log(sympy.Rational(8, 9))) - 2 ** (3 * k) / 3 ** (2 * k)) == 0


def test_eulers_formula_holds_for_an_angle_not_known_real() -> None:
    z = x + sympy.I * y
    lhs, rhs = z * sympy.exp(sympy.I * THETA), z * (sympy.cos(THETA) + sympy.I * sympy.sin(THETA))
    assert exp_form_rewrite(lhs - rhs) == 0
    assert decide(lhs, rhs)[0] is Verdict.PROVED


def test_a_wrong_exponent_or_a_wrong_sign_is_refuted_not_proved() -> None:
    assert exp_form_rewrite(1 / 10000 ** (2 * k / d) - sympy.exp(-k * sympy.log(10000) / d)) != 0
    assert decide(1 / 10000 ** (2 * k / d), sympy.exp(-k * sympy.log(10000) / d))[0] is Verdict.REFUTED
    wrong = sympy.cos(THETA) - sympy.I * sympy.sin(THETA)
    assert exp_form_rewrite(sympy.exp(sympy.I * THETA) - wrong) != 0
    assert decide(sympy.exp(sympy.I * THETA), wrong)[0] is Verdict.REFUTED


def test_a_power_of_a_base_not_known_positive_is_left_alone() -> None:
    e = x**k - sympy.exp(k * sympy.log(x))  # false at x = -1, k = 1/2 on the principal branch
    assert exp_form_rewrite(e) == e


def test_a_quotient_whose_factor_cancels_is_proved_wherever_defined() -> None:
    lhs = (s - a) * (b - s) / (2 * (b - a)) * (m * (s - a) + m * (b - s))
    rhs = m / 2 * (s - a) * (b - s)
    assert cancel_rewrite(lhs - rhs) == 0
    assert decide(lhs, rhs)[:2] == (Verdict.PROVED, "cancel")


def test_a_quotient_with_a_wrong_factor_is_refuted() -> None:
    lhs = (s - a) * (b - s) / (2 * (b - a)) * (m * (s - a) + m * (b - s))
    rhs = m / 4 * (s - a) * (b - s)
    assert cancel_rewrite(lhs - rhs) != 0
    assert decide(lhs, rhs)[0] is Verdict.REFUTED


def test_cancel_leaves_a_difference_without_a_symbolic_denominator_unchanged() -> None:
    e = x / 2 - y
    assert cancel_rewrite(e) is e
