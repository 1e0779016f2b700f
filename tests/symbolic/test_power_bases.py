"""The late rewrite ``power_bases``: powers of products and of powers where the bases are positive, never else."""

from __future__ import annotations

import sympy

from ropecheck.symbolic.audit.stated_signs import positive_from_bound, sign_note
from ropecheck.symbolic.engine.decide import decide
from ropecheck.symbolic.engine.power_bases import positive_by_form, power_bases_rewrite
from ropecheck.symbolic.engine.proof import Verdict

b, d, j, x, y, D = sympy.symbols("b d j x y D", real=True)
k, s = sympy.symbols("k s", positive=True)


def test_a_power_of_a_product_with_a_positive_factor_is_the_product_of_the_powers() -> None:
    c = 10000 ** (2 / D)  # positive wherever defined (SymPy cannot tell: D may be 0); x of any sign
    for z in (-2 * j / (D - 2), -2 * sympy.I / (D - 2)):  # a real exponent, and one with the imaginary unit
        lhs, rhs = (c * x) ** z, x**z * c**z
        assert power_bases_rewrite(lhs - rhs) == 0
        assert decide(lhs, rhs)[:2] == (Verdict.PROVED, "power_bases")


def test_a_power_of_a_positive_power_multiplies_the_exponents() -> None:
    lhs = (10000 * k ** (d / (d - 2))) ** (-2 * j / d)
    rhs = 10000 ** (-2 * j / d) * k ** (-2 * j / (d - 2))
    assert decide(lhs, rhs)[:2] == (Verdict.PROVED, "power_bases")


def test_a_wrong_exponent_is_refuted_not_proved() -> None:
    lhs = (10000 * k ** (d / (d - 2))) ** (-2 * j / d)
    wrong = 10000 ** (-2 * j / d) * k ** (-2 * j / d)
    assert power_bases_rewrite(lhs - wrong) != 0
    assert decide(lhs, wrong)[0] is Verdict.REFUTED


def test_bases_of_unknown_sign_are_left_alone() -> None:
    e = (x * y) ** j - x**j * y**j  # false at x = y = -1, j = 1/2
    assert power_bases_rewrite(e) == e
    assert decide((x * y) ** j, x**j * y**j)[0] is not Verdict.PROVED
    assert decide((x**2) ** j, x ** (2 * j))[0] is not Verdict.PROVED  # ((-1)^2)^(1/2) = 1, not -1


def test_positive_by_form_is_sound_on_sums_products_and_real_powers() -> None:
    assert positive_by_form(k ** (d / (d - 2)) + 3 * s)
    assert not positive_by_form(k**sympy.I)  # a complex exponent: not a positive number
    assert not positive_by_form(k - s)


def test_a_bound_by_a_number_makes_a_name_positive_only_where_it_says_so() -> None:
    assert positive_from_bound("k", "\\gt", "1") == "k"
    assert positive_from_bound("s", "\\gt", "0") == "s"
    assert positive_from_bound("\\alpha", "\\geq", "2") == "alpha"
    assert positive_from_bound("k", "\\ge", "0") is None  # k may be 0
    assert positive_from_bound("k", "\\gt", "-1") is None
    assert positive_from_bound("k", "\\lt", "1") is None
    assert positive_from_bound("p", "\\gt", "L") is None  # a bound by a name: its sign is unknown
    assert sign_note({"d"}, {"k": ("k > 1", 3)}) == ""


STEP = "$$\n\\left(10000 \\cdot k^{d/(d-2)}\\right)^{-2j/d} = 10000^{-2j/d} \\cdot k^{-2j/(d-2)}\n$$\n"


def test_a_step_that_needs_a_positive_scale_rests_on_the_bound_the_text_states() -> None:
    from ropecheck.symbolic.audit.run import audit_document

    (s,) = audit_document(f"The scale is $k > 1$.\n\n{STEP}", timeout=30.0).steps
    assert s.status == "PROVED" and "k > 1 (line 1)" in s.reason
    for bound in ("k \\ge 0", "k > -1", "k < 1"):  # no bound that makes k positive: not proved
        (s,) = audit_document(f"The scale is ${bound}$.\n\n{STEP}", timeout=30.0).steps
        assert s.status == "UNDECIDED", bound
