"""Sides given by cases, sums split where the cases change, bounded cosines, and sums bound by their index."""

from __future__ import annotations

import pytest
import sympy
from sympy import Piecewise, Sum, cos, sin

from ropecheck.errors import ClaimParseError
from ropecheck.symbolic import Verdict, decide, decide_le, manifestly_nonnegative
from ropecheck.symbolic.engine.cases_sums import split_at_cases
from ropecheck.symbolic.engine.decide import find_counterexample
from ropecheck.symbolic.engine.termwise import real_where_defined
from ropecheck.symbolic.readers.latex_syntax import read_latex_side
from ropecheck.symbolic.readers.latex_tree import index_sums
from ropecheck.symbolic.readers.scope import Definition, Scope

b, x, y = sympy.symbols("b x y", real=True)
i, d, m = sympy.symbols("i d m", integer=True)
QUARTER = Piecewise((b ** (-4 * i / d), i < d / 4), (0, True))


def test_a_number_outweighing_bounded_cosines_is_nonnegative_and_nothing_less() -> None:
    assert manifestly_nonnegative(1 + cos(x))
    assert manifestly_nonnegative(3 - 2 * sin(x) + cos(y) + x**2)
    assert manifestly_nonnegative(2 + cos(m * b ** (-4 * i / d)))  # real where defined: b >= 0 under a root
    assert not manifestly_nonnegative(1 + cos(x) - sin(y))  # 1 < 2: may be negative
    assert not manifestly_nonnegative(1 + cos(1 + sympy.I * x))  # a complex argument: unbounded
    assert not manifestly_nonnegative(1 + x * cos(x))  # a coefficient that is no number
    assert not real_where_defined((-2) ** sympy.Rational(1, 3) * x)  # SymPy's value is complex


def test_a_written_sum_of_nonnegative_terms_is_nonnegative_over_any_range() -> None:
    total = Sum(1 + cos(m * b ** (-4 * i / d)), (i, 0, d / 4 - 1))
    verdict, method, _ = decide_le(0, total)
    assert verdict == Verdict.PROVED and "a sum over no index is 0" in method
    assert not manifestly_nonnegative(total)  # under SymPy's convention a reversed range subtracts
    assert decide_le(0, Sum(sympy.Rational(1, 2) + cos(m * b ** (-4 * i / d)), (i, 0, d / 4 - 1)))[0] != Verdict.PROVED


def test_a_sum_given_by_cases_is_split_where_they_change() -> None:
    lhs = Sum(cos(m * QUARTER), (i, 0, d / 2 - 1))
    rhs = Sum(1 + cos(m * b ** (-4 * i / d)), (i, 0, d / 4 - 1))
    assert decide(lhs, rhs)[:2] == (Verdict.PROVED, "cases_split")
    wrong = Sum(cos(m * b ** (-4 * i / d)), (i, 0, d / 4 - 1))  # the resting pairs forgotten
    verdict, _, cex = decide(lhs, wrong)
    assert verdict == Verdict.REFUTED and cex is not None and (cex.values[d] / 4).is_integer


@pytest.mark.parametrize(
    "expr",
    [
        Sum(cos(m * QUARTER), (i, 0, d / 2 - 1)) - d / 4,  # no sum stops at d/4: a whole d/4 is not presupposed
        Sum(cos(m * Piecewise((b, i < d / 3), (0, True))), (i, d, d + 1)) - Sum(1, (i, 0, d / 3 - 1)),  # out of range
        Sum(cos(m * Piecewise((b, i < x), (0, True))), (i, 0, d)) - Sum(1, (i, 0, x - 1)),  # x is no whole number
    ],
    ids=["no-sum-at-threshold", "threshold-outside-range", "threshold-not-whole"],
)
def test_a_split_that_is_not_an_identity_is_not_made(expr: object) -> None:
    assert split_at_cases(expr) is expr


def test_values_that_make_a_sum_limit_fractional_are_no_counterexample() -> None:
    """At d = 2 the sum to d/4 - 1 means nothing; only values where every limit is whole may refute."""
    lhs, rhs = Sum(1, (i, 0, d / 4 - 1)), d / 4
    assert find_counterexample(lhs, rhs) is None


def test_a_side_given_by_cases_is_read_on_the_index_only() -> None:
    bound = frozenset({"i"})
    got = read_latex_side(r"\begin{cases} b^{-4i/d}, & i < d/4 \\ 0, & \text{otherwise} \end{cases}", bound=bound)
    ir, dr = sympy.Symbol("i", real=True), sympy.Symbol("d", real=True)
    assert got == Piecewise((b ** (-4 * ir / dr), ir < dr / 4), (0, True))
    aligned = r"\left\{\begin{aligned} &b^{-4i/d}, & i < d/4 \\ &0, & i \geq d/4 \end{aligned}\right."
    assert read_latex_side(aligned, bound=bound) == got
    worded = r"\begin{cases} b^{-4i/d} & \text{if } i < d/4 \\ 0 & \text{if } i \ge d/4 \end{cases}"
    assert read_latex_side(worded, bound=bound) == got
    for refused in (
        r"\begin{cases} 1, & b < 2 \\ 0, & \text{otherwise} \end{cases}",  # not on the index
        r"\begin{cases} 1, & \text{if rotated} \\ 0, & \text{otherwise} \end{cases}",  # a condition in words
        r"\begin{cases} 1, & \text{otherwise} \\ 0, & i < 2 \end{cases}",  # otherwise first
        r"\begin{cases} 1, & 0 < i < 2 \\ 0, & \text{otherwise} \end{cases}",  # two comparisons
        r"\begin{cases} 1, & i < 2 \\ 0, & i < 3 \end{cases}",  # overlapping: which one holds at i = 1?
        r"\begin{cases} 1, & i < 2 \\ 2, & i > 3 \\ 0, & \text{otherwise} \end{cases}",  # three cases
    ):
        with pytest.raises(ClaimParseError):
            read_latex_side(refused, bound=bound)


def test_a_letter_raised_to_a_negative_power_is_part_of_the_angle() -> None:
    br, mr = sympy.Symbol("b", real=True), sympy.Symbol("m", real=True)
    assert read_latex_side(r"\cos m b^{-s}") == cos(mr * br ** -sympy.Symbol("s", real=True))
    q1 = sympy.Symbol("q_{1}", real=True)
    assert read_latex_side(r"\cos m q_1") == cos(mr) * q1  # a component stays outside


def test_a_definition_applied_in_a_sum_uses_the_sum_index() -> None:
    """``\\sum_j \\theta_j`` with ``\\theta_j`` defined: the j of the definition's body is the sum's index."""
    jr = sympy.Symbol("j", real=True)
    theta = Definition("pattern", "\\theta", b ** (-2 * jr / d), (jr,), r"\theta_j", 1)
    scope = Scope(patterns={"\\theta": theta})
    left = read_latex_side(r"\sum_{j=0}^{2} \theta_j", 0, scope)
    right = read_latex_side(r"\theta_0 + \theta_1 + \theta_2", 0, scope)
    left, right = index_sums(left, right, {})
    assert sympy.simplify(left.doit() - right) == 0 and not left.free_symbols & {jr}


@pytest.mark.parametrize(
    "given,status",
    [(r"b^* = \inf \{ b : b > 1 \}", "PROVED"), (r"b^* = 2 b + 1", "UNDECIDED")],
    ids=["optimum: b real", "maybe a conjugate: b complex"],
)
def test_a_starred_name_given_as_an_optimum_leaves_its_letter_real(given: str, status: str) -> None:
    """``b^* = \\inf ...`` is real whether b^* is a name or b's conjugate; elsewhere b^* may make b complex."""
    from ropecheck.symbolic.audit.run import audit_document

    doc = f"$${given}$$\n\nSo\n\n$$1 + \\cos b \\geq 0$$\n"
    steps = [s for s in audit_document(doc, timeout=None, memory_limit=None).steps if s.line == 5]
    assert [s.status for s in steps] == [status]


def test_an_inequality_posed_by_a_wish_is_a_condition_not_a_step() -> None:
    from ropecheck.symbolic.audit.run import audit_document

    posed = audit_document("We would like\n\n$$a^2 \\geq a + 1$$\n", timeout=None, memory_limit=None)
    assert not posed.steps and [c.relation for c in posed.conditions] == ["\\geq"]
    stated = audit_document("So\n\n$$a^2 \\geq a + 1$$\n", timeout=None, memory_limit=None)
    assert [s.status for s in stated.steps] == ["UNDECIDED"] and not stated.conditions


def test_a_sum_equal_to_its_length_times_a_constant_is_decided_term_by_term() -> None:
    """``Sum_{l < d/2} (cos^2 x_l + sin^2 x_l) = d/2``: each term is 1; with each term 2 the step is false."""
    xs = sympy.IndexedBase("x", real=True)
    k = sympy.Symbol("l", integer=True)
    ones = Sum(cos(xs[k]) ** 2 + sin(xs[k]) ** 2, (k, 0, d / 2 - 1))
    assert decide(ones, d / 2)[:2] == (Verdict.PROVED, "termwise(pythagoras)")
    assert decide(Sum(2 * ones.function, (k, 0, d / 2 - 1)), d / 2)[0] == Verdict.REFUTED
