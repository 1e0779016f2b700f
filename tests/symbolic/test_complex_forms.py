"""Where the form of complex arithmetic reads a step's bare ``i`` as the unit (``readers/complex_forms.py``)."""

from __future__ import annotations

import pytest
from worldaudit import audited

from ropecheck.symbolic.audit.notation_doubts import i_given_value
from ropecheck.symbolic.readers.complex_forms import (
    EULER_FORM,
    PART_OR_CONJUGATE,
    PRODUCT_OF_FORMS,
    said_by_form,
    unit_form,
)

FORMS = [
    # Euler's form: i multiplies the sine of the cosine's argument
    (r"(a + bi)(cos(m\theta) + i\sin(m\theta)) = (a\cos(m\theta) - b\sin(m\theta)) + i(a\sin(m\theta))", EULER_FORM),
    (r"(q^1 + i\ q^2)(\cos m\theta + i\ \sin m\theta) = q^1\cos m\theta + i\ q^2\cos m\theta", EULER_FORM),
    (r"r(\cos\theta - i \cdot \sin\theta) = r(\cos(-\theta) + i\sin(-\theta))", EULER_FORM),
    (r"\cos(x) + \sin(x)\, i = w", EULER_FORM),
    # a real or imaginary part, a conjugate
    (r"\operatorname{Re}[x_1x_2 + y_1y_2 + i(y_1x_2 - x_1y_2)] = x_1x_2 + y_1y_2", PART_OR_CONJUGATE),
    (r"\mathrm{Im}\left(a + ib\right) = b", PART_OR_CONJUGATE),
    (r"\operatorname{Re}[a + bi] = a", PART_OR_CONJUGATE),
    (r"Re((ac+bd) + i(bc-ad)) = ac + bd", PART_OR_CONJUGATE),
    (r"\overline{c + di} = c - di", PART_OR_CONJUGATE),
    (r"(k^1 - i\ k^2)^{*} = k^1 + i\ k^2", PART_OR_CONJUGATE),
    # a product of two complex numbers written from their parts
    (r"(a + bi)(c + di) = (ac - bd) + (ad + bc)i", PRODUCT_OF_FORMS),
    (r"(x_1 + iy_1)\cdot(x_2 - iy_2) = x_1x_2 + y_1y_2 + i(y_1x_2 - x_1y_2)", PRODUCT_OF_FORMS),
    # i also an index in the step: both readings stay
    (r"(a + bi)(\cos\theta_i + i\sin\theta_i) = a\cos\theta_i", None),
    (r"10000^{-2i/d}(\cos x + i\sin x) = w", None),
    (r"x^{(i)}\,\overline{c + di} = w", None),
    (r"\sum_i (a + bi)(c + di) = w", None),
    (r"f(x, i) + (a + bi)(c + di) = w", None),
    (r"x[2i] + (a + bi)(c + di) = w", None),
    (r"x_{m}[i] + (a + bi)(c + di) = w", None),
    # i where the unit is not written: an argument of a trig function, a numerator alone
    (r"\cos(i\omega) + i\sin(i\omega) = 1", None),
    (r"\frac{i}{d}(\cos x + i\sin x) = w", None),
    # the form is not there: another argument, the sine read over the i after it, a square, a lone bracket
    (r"\cos x + i\sin y = w", None),
    (r"\cos\theta + \sin\theta\, i = w", None),
    (r"(a + ib)^2 = a^2 - b^2 + 2iab", None),
    (r"(a + bi) c = ac + bci", None),
    (r"a + bi = w", None),
]


@pytest.mark.parametrize(("step", "form"), FORMS, ids=[s for s, _ in FORMS])
def test_the_form_of_complex_arithmetic_reads_i_as_the_unit_only_where_nothing_indexes_with_it(
    step: str, form: str | None
) -> None:
    assert unit_form(step) == form


def test_a_reason_says_the_form_that_read_its_i() -> None:
    assert said_by_form(f"read with i the imaginary unit (as in {PRODUCT_OF_FORMS} in this step)")
    assert not said_by_form("read with i the imaginary unit (as in the exponent of e in this step)")


def test_the_value_a_document_gives_i() -> None:
    assert i_given_value(r"\theta_i = b^{-2i/d}, \quad i = 2") == "2"
    assert i_given_value(r"i = 0, 1, \dots, d/2 - 1") is None
    assert i_given_value(r"i = \sqrt{-1}") is None


def test_each_form_decides_its_steps_and_says_so() -> None:
    right = {s.line: s for s in audited("complex_forms_unit.md").steps}
    wrong = {s.line: s for s in audited("complex_forms_unit_twin.md").steps}
    for line, form in ((7, EULER_FORM), (15, PART_OR_CONJUGATE), (23, PRODUCT_OF_FORMS)):
        assert right[line].status == "PROVED" and form in right[line].reason
        assert wrong[line].status == "REFUTED" and form in wrong[line].reason
    assert wrong[19].status == "REFUTED" and PART_OR_CONJUGATE in wrong[19].reason
    assert right[27].status == "UNDECIDED" and "as i a real index" in right[27].reason


def test_a_value_the_text_gives_i_outweighs_the_form() -> None:
    steps = audited("complex_forms_valued_i.md").steps
    assert [s.status for s in steps] == ["UNDECIDED"] * 3
    assert all("gives i the value 2" in s.reason for s in steps)
