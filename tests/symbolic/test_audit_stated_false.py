"""Displays the text marks as false, upright operators with a subscript, entries given two values, decimals
beside large numbers read exactly, and letters written both decorated and bare."""

from __future__ import annotations

import pytest
import sympy

from ropecheck.symbolic import check_claim
from ropecheck.symbolic.audit.run import audit_document
from ropecheck.symbolic.audit.stated_false import (
    asked_or_conditional_after,
    stated_false_after,
    stated_false_before,
    stated_false_tag,
)
from ropecheck.symbolic.readers.decorated_plain import as_own_name, decorated_beside_plain
from ropecheck.symbolic.readers.operator_subscripts import subscripted_operator

TIMEOUT = 30.0


@pytest.mark.parametrize(
    ("prose", "marked"),
    [
        ("We expand it. It is false that", True),
        ("A common mistake is to write", True),
        ("This is wrong:", True),
        ("Incorrect:", True),
        ("One might wrongly write", True),
        ("下面的等式不成立：", True),
        ("错误的是", True),
        ("It is not false that", False),
        ("If this is wrong:", False),
        ("It is false that the sum grows, as we show. Expanding gives", False),
        ("如果这一步是错误的，我们就重新推导。倍角公式给出", False),
        ("Therefore", False),
        ("## Incorrect", True),
        ("## Incorrect results follow", False),
        ("~~", True),
        ("The code:\n\n~~~\nx = 1\n~~~\n\n", False),
        ("The code:\n\n~~~~\nx = 1\n~~~~", False),
    ],
)
def test_only_a_marker_right_before_the_display_marks_it_false(prose: str, marked: bool) -> None:
    assert (stated_false_before(prose) is not None) == marked


def test_a_display_marked_false_is_listed_with_its_words_and_is_no_step() -> None:
    doc = "# S\n\nIt is false that\n\n$$(a + b)^2 = a^2 + b^2$$\n\nbut\n\n$$(a + b)^2 = a^2 + 2ab + b^2$$\n"
    r = audit_document(doc, timeout=TIMEOUT)
    assert [(s.line, s.status) for s in r.steps] == [(9, "PROVED")]
    (c,) = r.conditions
    assert c.line == 5 and c.kind == "stated false" and "It is false that" in c.reason
    # the same display without the words is a step of the document, and a false one
    (s, _) = audit_document(doc.replace("It is false that", "Expanding gives"), timeout=TIMEOUT).steps
    assert s.status == "REFUTED"


@pytest.mark.parametrize(
    ("tex", "found"),
    [
        (r"k = \operatorname{argmax}_j s_j", True),
        (r"\mathrm{argmax}_{j} s_j", True),
        (r"\operatorname{softmax}_j s_j", True),
        (r"\operatorname{Attn}_h x", True),
        (r"\operatorname{Attn}_h(x)", False),
        (r"\mathrm{PE}_{pos} + 1", False),
        (r"s_{\mathrm{max}} + 1", False),
    ],
)
def test_an_upright_operator_with_a_subscript_is_an_operator_applied(tex: str, found: bool) -> None:
    assert (subscripted_operator(tex) is not None) == found


def test_an_entry_given_two_values_says_both() -> None:
    doc = "Let $c_j = 2j$ for every $j$. We take $c_4=1$.\n\n$$c_4 + 2 = 3$$\n"
    (s,) = audit_document(doc, timeout=TIMEOUT).steps
    assert s.status == "UNDECIDED" and "two values: 1 (line 1) and 8" in s.reason


def test_decimals_beside_a_large_number_are_read_exactly() -> None:
    (s,) = audit_document("$$(10^{20} + 0.25) - 10^{20} = 0.5$$\n", timeout=TIMEOUT).steps
    assert s.status == "REFUTED" and s.counterexample is not None
    assert (s.counterexample.lhs, s.counterexample.rhs) == (sympy.Rational(1, 4), sympy.Rational(1, 2))
    r = check_claim("(10^{20} + 0.3) - 10^{20} = 0")
    assert r.verdict.value == "REFUTED" and r.counterexample is not None
    assert r.counterexample.lhs == sympy.Rational(3, 10)
    assert check_claim("(10^{20} + 0.3) - 10^{20} = 0.3").verdict.value == "PROVED"


def test_a_letter_decorated_and_bare_is_found_and_renamed() -> None:
    assert decorated_beside_plain(r"\vec z \cdot \vec z = z^2") == "z"
    assert decorated_beside_plain(r"\mathbf{q}_m = q_m") is None
    assert decorated_beside_plain(r"\mathbf{q} + \mathbf{k} = \mathbf{k} + \mathbf{q}") is None
    assert as_own_name(r"\vec{z} - z", "z") == r" \mathrm{vecz}  - z"


def test_a_claim_with_a_letter_decorated_and_bare_keeps_only_what_holds_either_way() -> None:
    assert check_claim(r"\vec z - z = 0").verdict.value == "UNDECIDED"
    assert check_claim(r"\vec z + z = z + \vec z").verdict.value == "PROVED"
    # \vec z unbraced is the decorated z, never vec times z
    assert check_claim(r"\vec z + \vec{z} = 2\vec z").verdict.value == "PROVED"


def test_words_after_a_display_or_a_tag_in_it_mark_it() -> None:
    assert stated_false_after(" is a common mistake; in fact") is not None
    assert stated_false_after(" is wrong unless a = 0") is None
    assert stated_false_tag(r"(a-b)^2 = a^2 - b^2 \quad \text{(wrong)}") is not None
    assert stated_false_tag(r"(a-b)^2 = a^2 - 2ab + b^2 \quad \text{(see above)}") is None
    assert asked_or_conditional_after(" hold? No.") == ("hold?", "asked")
    assert asked_or_conditional_after(" only when m = 0.") == ("only when", "conditional")
    assert asked_or_conditional_after(" for every m.") is None
