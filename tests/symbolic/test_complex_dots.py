"""``a \\cdot b`` of two values that may stand for pairs: their product, or the dot product of the pairs."""

from __future__ import annotations

import pytest
import sympy

from ropecheck.symbolic import Verdict, check_claim
from ropecheck.symbolic.audit.stated_inner import states_dot
from ropecheck.symbolic.readers.complex_dots import dot_spans, stands_for_pair

TURNED = r"(a + i b) e^{i m x} \cdot (c + i d) e^{i n x}"


def _operands(text: str) -> list[tuple[str, str]]:
    return [(text[s:d].strip(), text[e:r].strip()) for s, d, e, r in dot_spans(text)]


def test_the_operands_are_the_factors_side_by_side_up_to_a_sign_an_operator_or_a_bracket() -> None:
    assert _operands(r"2 q e^{i s} \cdot k e^{i t} + 1") == [("2 q e^{i s}", "k e^{i t}")]
    assert _operands(r"\left(u \cdot v \right)^2 - x \cdot y") == [("u", "v"), ("x", "y")]
    assert _operands(r"\frac{a \cdot b}{2}") == [("a", "b")]
    assert _operands(r"\sum_{j} a_j \cdot b_j") == []  # a big operator's body: the product, as before
    assert _operands(r"x_1 \cdots x_n") == []


def test_a_pair_holds_a_complex_factor_other_than_a_turn() -> None:
    a, b = sympy.symbols("a b", real=True)
    z = sympy.Symbol("z", complex=True)
    assert stands_for_pair(z) and stands_for_pair((a + sympy.I * b) * sympy.exp(sympy.I * a))
    assert not stands_for_pair(sympy.exp(sympy.I * a) * b)  # a turn, scaled
    assert not stands_for_pair(sympy.cos(a) + sympy.I * sympy.sin(a))  # a turn in Euler's form
    assert not stands_for_pair(sympy.sqrt(a)) and not stands_for_pair(2 * sympy.I)
    assert not stands_for_pair(sympy.Function("f")(z))  # a function with no definition: its values are unknown


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        (TURNED + r" = \mathrm{Re}[(a + i b)(c - i d) e^{i(m-n)x}]", Verdict.UNDECIDED),  # true only as pairs
        (TURNED + r" = (a + i b)(c + i d) e^{i(m+n)x}", Verdict.UNDECIDED),  # true only as the product
        (TURNED + r" = \mathrm{Re}[(a + i b)(c - i d) e^{i(m+n)x}]", Verdict.REFUTED),  # false both ways
        (r"z \cdot e^{i m x} \cdot e^{i n x} = z e^{i(m+n)x}", Verdict.PROVED),  # turns: the product
        (r"\mathrm{Re}[(a + i b) \cdot (c - i d)] = a c + b d", Verdict.PROVED),  # inside a real part: the product
        (r"2 \cdot x \cdot y = 2 x y", Verdict.PROVED),
    ],
)
def test_a_dot_between_two_pairs_is_decided_only_where_both_readings_agree(claim: str, verdict: Verdict) -> None:
    assert check_claim(claim).verdict == verdict


def test_a_line_that_writes_the_dot_as_a_real_part_is_found_with_the_conjugate_on_the_second() -> None:
    assert states_dot(r"a \cdot b = \mathrm{Re}[a \bar{b}]") and states_dot(r"z \cdot w = \Re(z w^*)")
    assert states_dot(r"u \cdot v = \text{Re}\left( u \, \overline{v} \right)")
    assert not states_dot(r"a \cdot b = \mathrm{Re}[\bar{a} b]")
    assert not states_dot(r"a \cdot b = \mathrm{Re}[a \bar{c}]")
