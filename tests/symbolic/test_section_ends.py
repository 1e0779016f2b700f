"""Where what the prose says stops: a domain said in words, a supposition, and a T raised before a subscript.

A domain said in words ("for complex $z$") lasts to the end of its section; a supposition ("suppose $x + y = 1$")
ends where the text speaks of every x, y or its section ends; ``R^T_m`` is a transpose only where the document has
no number T. Each end is shown on a document where the old reading gave a wrong verdict, beside one where the same
notation carries a real error and stays refuted.
"""

from __future__ import annotations

import pytest
from worldaudit import audited

from ropecheck.symbolic.audit.document import MathBlock, math_blocks
from ropecheck.symbolic.audit.raised_t import raised_t_reading, t_as_number, transposes_before_subscript
from ropecheck.symbolic.audit.supposition_ends import generalised_over, math_names, supposes
from ropecheck.symbolic.audit.worded_sections import worded_real
from ropecheck.symbolic.readers.scope import Scope


def _blocks(text: str) -> list[MathBlock]:
    blocks, _ = math_blocks(text)
    return blocks


def _status(name: str) -> dict[int, str]:
    return {s.line: s.status for s in audited(name).steps}


@pytest.mark.parametrize(
    ("text", "real"),
    [
        ("Now let $z$ be real. Then", {"z"}),
        ("For real $z$ we have", {"z"}),
        ("Here $z$ is real, so", {"z"}),
        ("If $z$ is real, then", set()),  # a case, not a declaration
        ("Here $z$ is not real.", set()),  # negated
        ("The real part of $z$ is", set()),  # "real" not beside the math
        ("Take $z = 1$ real.", set()),  # not names only
    ],
    ids=["let-be", "for-real", "is-real", "if", "not", "real-part", "equation"],
)
def test_real_in_words(text: str, real: set[str]) -> None:
    assert worded_real(text, _blocks(text), 0) == real


def test_a_complex_domain_said_in_words_ends_with_its_section() -> None:
    steps = {s.line: s for s in audited("complex_in_words_one_section.md").steps}
    assert steps[7].status == "PROVED" and "complex, as the text says in words" in steps[7].reason
    # the next section does not say what z is: read both ways, no false REFUTED
    assert steps[13].status == "UNDECIDED" and "a section that has ended" in steps[13].reason
    assert steps[19].status == "PROVED"  # "now let $z$ be real"


def test_a_complex_domain_said_before_the_first_heading_holds_everywhere() -> None:
    assert _status("complex_in_words_one_section_twin.md") == {5: "PROVED", 11: "REFUTED", 17: "REFUTED", 21: "PROVED"}


@pytest.mark.parametrize(
    ("text", "supposed"),
    [
        ("Suppose $x + y = 1$. Then", True),
        ("If $x + y = 1$, then", True),
        ("假设 $x + y = 1$，则", True),
        ("Here $x + y = 1$ holds.", False),
        ("Suppose $x + y = 1$ were not so.", False),
        ("Suppose $x$ is large.", False),  # no equation
        ("If we set $x = 1 - y$, then", False),  # a definition
        ("若令 $x = 1 - y$，则", False),
    ],
    ids=["suppose", "if", "zh", "statement", "negated", "no-equation", "if-we-set", "zh-let"],
)
def test_suppositions(text: str, supposed: bool) -> None:
    assert supposes(text, _blocks(text), 0) is supposed


@pytest.mark.parametrize(
    ("text", "over"),
    [
        ("For any $x, y$:\n\n$$ (x+y)^2 = 1 $$", {"x", "y"}),
        ("for all positions $m, n$ we have\n\n$$ f(m) = f(n) $$", {"m", "n"}),
        ("对任意 $x$ 有\n\n$$ x = 1 $$", {"x"}),
        ("In general\n\n$$ (x+y)^2 = 1 $$", set()),
        ("Then\n\n$$ (x+y)^2 = 1 $$", None),
        ("For any $x$. So\n\n$$ (x+y)^2 = 1 $$", None),  # another sentence leads into the display
        ("For any $x + y = 1$\n\n$$ (x+y)^2 = 1 $$", None),  # not names
    ],
    ids=["for-any", "for-all-words", "zh", "in-general", "none", "sentence-before", "not-names"],
)
def test_generalised_over(text: str, over: set[str] | None) -> None:
    blocks = _blocks(text)
    assert generalised_over(text, blocks, len(blocks) - 1) == over


def test_math_names() -> None:
    # commands other than Greek letters are no names, and glued letters are not read as names here
    assert math_names(r"\frac{p}{2 q_m} = \cos\theta + ab") == {"p", "q_m", "theta"}


def test_a_supposition_ends_where_the_text_speaks_in_general_or_its_section_ends() -> None:
    steps = {s.line: s for s in audited("supposition_left_behind.md").steps}
    assert steps[5].status == "PROVED"  # under the supposition
    assert steps[9].status == "REFUTED" and steps[9].counterexample is not None  # "for any $x, y$"
    assert steps[15].status == "UNDECIDED" and "spoke in general" in steps[15].reason
    assert steps[21].status == "PROVED"
    assert steps[25].status == "UNDECIDED" and "p is given the value" in steps[25].reason  # its section ended


def test_a_supposition_in_force_still_decides() -> None:
    assert _status("supposition_left_behind_twin.md") == {7: "REFUTED", 11: "PROVED", 15: "PROVED", 21: "PROVED",
                                                          25: "PROVED"}  # fmt: skip


def test_t_as_a_number() -> None:
    assert "uses T as a number" in t_as_number([r"\sum_{t=1}^{T} x_t", "q^T k"], Scope(), {})
    assert "uses T as a number" in t_as_number([r"t \le T"], Scope(), {})
    assert "declares T integer" in t_as_number(["q^T k"], Scope(), {"T": "integer"})
    # only ever a transpose, another name (T_0, T(s)), or a transpose spelt another way: no number
    assert t_as_number([r"q^T k", r"R^{T}_m", r"T_0(s) + T(s)", r"x^{\mathsf{T}}"], Scope(), {}) == ""


def test_the_power_reading_of_a_transpose_before_the_subscript() -> None:
    assert transposes_before_subscript(r"R^T_m q = R_n^T k") == ["R^T_m"]
    assert raised_t_reading(r"R^{T}_{m+1} = R_{4m}", "4") == "R_{m+1}^{4} = R_{4m}"


def test_a_transpose_before_the_subscript_where_t_is_a_number_is_read_both_ways() -> None:
    steps = {s.line: s for s in audited("transpose_or_power_of_t.md").steps}
    assert [steps[9].status, steps[13].status] == ["UNDECIDED", "UNDECIDED"]
    assert "PROVED read as a power T = 4" in steps[9].reason and "REFUTED read as a transpose" in steps[9].reason
    (wrong,) = audited("transpose_or_power_of_t_twin.md").steps  # false both ways: still refuted
    assert wrong.status == "REFUTED" and "REFUTED too with it raised to the power T = 4" in wrong.reason
