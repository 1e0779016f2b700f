"""子 and 母 for the parts of the fraction before them, sums split and factored, ranges and roots no text means.

Each reading is shown failing where it must: sides with two different fractions, a bare sum with no sum to take
its range from, a placeholder with no side before it, a sum factored wrongly, a counterexample only at a range
that runs backwards or at a negative name under a root (:mod:`ropecheck.symbolic.audit.placeholders`,
:mod:`ropecheck.symbolic.engine.finite_sums`, :func:`ropecheck.symbolic.audit.doubts.negative_under_root`).
"""

from __future__ import annotations

import sympy
from sympy import IndexedBase, Sum, Symbol

from ropecheck.symbolic import Verdict, decide
from ropecheck.symbolic.audit.document import Link
from ropecheck.symbolic.audit.doubts import negative_under_root
from ropecheck.symbolic.audit.placeholders import fill_placeholders
from ropecheck.symbolic.audit.result import AuditStep
from ropecheck.symbolic.engine.decide import find_counterexample
from ropecheck.symbolic.engine.finite_sums import factor_sums, runs_backwards
from ropecheck.symbolic.engine.proof import Counterexample

j = Symbol("j", integer=True)
n = Symbol("n", integer=True)
s = IndexedBase("s", real=True)
ENTROPY_SIDE = r"-\sum_{j=1}^n \frac{e^{s_j}}{\sum_{j=1}^n e^{s_j}} \log \frac{e^{s_j}}{\sum_{j=1}^n e^{s_j}}"


def test_placeholders_are_the_parts_of_the_one_fraction_before_them() -> None:
    sides = [Link(ENTROPY_SIDE, 3), Link(r"\frac{\sum 子 \log 母}{母}", 4), Link(r"\log 母", 4)]
    filled = fill_placeholders(sides)
    assert filled is not None and not any(f.unread for f in filled)
    assert filled[0].text == ENTROPY_SIDE and filled[0].note == ""
    want = r"\frac{\sum_{j=1}^{n} \left(e^{s_j}\right) \log \left(\sum_{j=1}^n e^{s_j}\right)}"
    assert filled[1].text == want + r"{\left(\sum_{j=1}^n e^{s_j}\right)}"
    # the side after takes them from the nearest side that writes none, the side before it writing them too
    assert filled[2].text == r"\log \left(\sum_{j=1}^n e^{s_j}\right)"
    assert "numerator e^{s_j}" in filled[1].note and "line 3" in filled[2].note
    assert "子" in filled[1].note and "\\sum_{j=1}^{n}" in filled[1].note
    # 分子 and 分母 written out, or set upright, are the same parts
    (_, whole) = fill_placeholders([Link(r"\frac{a_j}{b}", 1), Link(r"\text{分子} + 分母", 1)]) or []
    assert whole.text == r"\left(a_j\right) + \left(b\right)"


def test_placeholders_that_do_not_name_one_pair_are_not_read() -> None:
    assert fill_placeholders([Link("a = b", 1), Link("c", 1)]) is None
    (_, two) = fill_placeholders([Link(r"\frac{a}{b} + \frac{c}{d}", 7), Link(r"\frac{子}{母}", 7)]) or []
    assert "2 different fractions" in two.unread and "line 7" in two.unread
    (_, none) = fill_placeholders([Link("a + b", 2), Link("子", 2)]) or []
    assert "no fraction" in none.unread
    (first, _) = fill_placeholders([Link("子", 2), Link("a", 2)]) or []
    assert "no side before" in first.unread
    # a bare sum, where the side before writes no one sum around its fraction to take the range from
    (_, bare) = fill_placeholders([Link(r"\frac{a_j}{b}", 5), Link(r"\sum 子", 5)]) or []
    assert "bare \\sum" in bare.unread
    # two sums around the fractions: which one the bare sum is, the text does not say
    both = r"\sum_{j=1}^n \frac{a_j}{b} + \sum_{k=1}^m \frac{a_j}{b}"
    (_, bare) = fill_placeholders([Link(both, 5), Link(r"\sum 子", 5)]) or []
    assert "bare \\sum" in bare.unread
    # a placeholder inside a longer Chinese word is that word, not a placeholder
    assert fill_placeholders([Link(r"\frac{a}{b}", 1), Link(r"\text{子空间}", 1)]) is None


def test_sums_are_split_and_their_constant_factors_taken_out() -> None:
    k = Symbol("k", integer=True)
    c = Symbol("c", real=True)
    total = Sum(sympy.exp(s[k]), (k, 1, n))
    mean = Sum(sympy.exp(s[j]) * (c + sympy.log(total)), (j, 1, n)) / total
    assert factor_sums(mean - c - sympy.log(total)) == 0
    assert decide(mean, c + sympy.log(total))[:2] == (Verdict.PROVED, "sum_factor")
    # an inner sum that depends on the outer index stays inside, and the value is unchanged
    inner = Sum(Sum(s[k], (k, 1, j)) * s[j], (j, 1, n))
    assert (factor_sums(inner) - inner).subs(n, 3).doit() == 0
    # a wrong factoring is not proved: the constant counted once, not n times
    assert decide(Sum(c * s[j], (j, 1, n)), c * Sum(s[j], (j, 1, n)) + c)[0] is Verdict.REFUTED


def test_a_counterexample_only_at_a_range_that_runs_backwards_is_not_taken() -> None:
    total = Sum(sympy.exp(s[j]), (j, 1, n))
    assert runs_backwards([total], {n: -1}) and not runs_backwards([total], {n: 0})
    assert not runs_backwards([total], {})
    # sqrt(S^2) = S for a sum of positive terms: false under Karr's convention at n = -1 alone
    assert find_counterexample(sympy.sqrt(total**2), total) is None
    assert decide(sympy.sqrt(total**2), total)[0] is Verdict.UNDECIDED
    # the same claim with a real error is still refuted, at a range that runs forward
    cex = find_counterexample(sympy.sqrt(total**2), 2 * total)
    assert cex is not None and cex.values[n] >= 0


def test_a_counterexample_with_a_negative_name_under_a_root_is_doubted() -> None:
    h, x = Symbol("h", real=True), Symbol("x", real=True)
    lhs, rhs = sympy.log(sympy.exp(6 * x / sympy.sqrt(h))), 6 * x / sympy.sqrt(h)

    def refuted(values: dict[object, object]) -> AuditStep:
        cx = Counterexample(values, lhs.subs(values), rhs.subs(values), 1, "1")
        return AuditStep(1, 1, "", "", "REFUTED", "counterexample", "", cx, lhs, rhs)

    assert negative_under_root(refuted({h: -1, x: 1})) == "h"
    # at a positive h the root is real: the counterexample stands
    assert negative_under_root(refuted({h: 2, x: 1})) == ""
