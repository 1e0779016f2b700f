"""Leibniz notation is a derivative, never a quotient; a fraction with the head dimension d is no derivative;
``\\max``/``\\min`` of a bracketed list read exactly, any other one refused with its reason."""

from __future__ import annotations

import pytest
import sympy

from ropecheck.errors import ClaimParseError
from ropecheck.symbolic.readers.derivatives import leibniz_at
from ropecheck.symbolic.readers.latex_syntax import read_latex_side


@pytest.mark.parametrize(
    "text",
    [r"\frac{dy}{dx}", r"\frac{d}{dt} f", r"\partial_x f", r"\dfrac{dL}{d\theta}"],
)
def test_leibniz_notation_is_found(text: str) -> None:
    assert leibniz_at(text) is not None


@pytest.mark.parametrize(
    "text", [r"\frac{d}{2}", r"\frac{d}{d-2}", r"\frac{d_{model}}{d_k}", r"\frac{2i}{d}", r"\frac{d}{d}"]
)
def test_a_fraction_of_the_dimension_is_no_derivative(text: str) -> None:
    assert leibniz_at(text) is None


def test_a_derivative_is_read_where_the_function_is_known() -> None:
    x = sympy.Symbol("x", real=True)
    assert sympy.simplify(read_latex_side(r"\frac{d}{dx}\left(x \ln x\right)") - (sympy.log(x) + 1)) == 0


@pytest.mark.parametrize(
    "text",
    [r"\frac{dy}{dx}", r"\frac{d}{dt}\cos(\omega t)", r"1 + \frac{d}{dx}(x^2)", r"\frac{\partial y}{\partial x}"],
)
def test_a_derivative_of_an_unknown_function_is_not_read(text: str) -> None:
    with pytest.raises(ClaimParseError, match="derivative"):
        read_latex_side(text)


def test_a_maximum_of_a_list_is_read_exactly() -> None:
    assert read_latex_side(r"\max(3, 5, 4) - \min\left(2, 7\right)") == 3


def test_a_maximum_that_is_not_read_says_why() -> None:
    with pytest.raises(ClaimParseError, match=r"\\max is read only"):
        read_latex_side(r"\max \mathbf{x}")


def test_a_maximum_in_a_subscript_is_a_label_not_read() -> None:
    with pytest.raises(ClaimParseError, match="in a subscript"):
        read_latex_side(r"\lambda_{\max}(A)")
