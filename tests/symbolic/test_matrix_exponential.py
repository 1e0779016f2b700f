"""The exponential of a general matrix: read as a matrix, with only the rules that hold for every square matrix."""

from __future__ import annotations

import pytest
import sympy
from sympy import Symbol

from ropecheck.symbolic.audit.general import general_step
from ropecheck.symbolic.readers.general_matrices import (
    MatrixExponential,
    exponential,
    exponential_form,
    general_name,
)
from ropecheck.symbolic.readers.scope import Definition, Scope

SCOPE = Scope(array_names=frozenset({"A", "B", "I", "u", "v"}))

PROVED = [
    (r"\exp(m B)\exp(n B)", r"\exp((m+n)B)"),
    (r"e^{m B} e^{n B}", r"e^{(n+m)B}"),
    (r"(\exp(B))^\top", r"\exp(B^\top)"),
    (r"\big(\exp m B\big)^{\top}", r"\exp m B^{\top}"),
    (r"\exp(-B)\exp(B)", r"\mathbf{I}"),
    (r"\exp(-B)\exp(B)", r"I"),
    (r"\exp(-B)\exp(B)", r"\exp(-B + B)"),
    (r"\exp(A)\exp(B)\exp(-B)\exp(-A)", r"\mathbf{I}"),
    (r"(\exp(m B) u)^\top \exp(n B) v", r"u^\top \exp(m B^\top)\exp(n B) v"),
    (r"u^\top \exp(B) v", r"v^\top \exp(B^\top) u"),
]

NOT_PROVED = [
    (r"\exp(A)\exp(B)", r"\exp(A+B)"),  # A and B need not commute
    (r"\exp(B)\exp(A)", r"\exp(A)\exp(B)"),
    (r"(\exp m B)^{\top} \exp(n B)", r"\exp((n-m)B)"),  # needs B^T = -B, which nothing states
    (r"\exp(B)\exp(B^\top)", r"\exp(B + B^\top)"),  # B and B^T need not commute
    (r"\exp(-B)\exp(B)", r"\exp(2B)"),
    (r"\exp(m B)\exp(n B)", r"\exp((m-n)B)"),
    (r"\exp(A + B)", r"\exp(B + A + A)"),
]


@pytest.mark.parametrize(("lhs", "rhs"), PROVED, ids=lambda v: v[:28])
def test_steps_that_hold_for_every_square_matrix_are_proved(lhs: str, rhs: str) -> None:
    found = general_step(lhs, rhs, SCOPE)
    assert found is not None and found.status == "PROVED", found
    assert "matrix exponential" in found.reason or "identity" in found.reason


@pytest.mark.parametrize(("lhs", "rhs"), NOT_PROVED, ids=lambda v: v[:28])
def test_steps_that_need_more_than_the_rules_are_never_proved(lhs: str, rhs: str) -> None:
    found = general_step(lhs, rhs, SCOPE)
    assert found is not None and found.status == "UNDECIDED", found  # general matrices never refute


def test_exponents_merge_only_when_they_are_multiples_of_one_matrix() -> None:
    a, b = general_name("A"), general_name("B")
    m, n = Symbol("m"), Symbol("n")
    assert exponential_form(exponential(m * b) * exponential(n * b)) == exponential((m + n) * b)
    assert exponential_form(exponential(m * (a + b)) * exponential(a + b)) == exponential((m + 1) * (a + b))
    kept = exponential_form(exponential(a) * exponential(b))
    assert isinstance(kept, sympy.MatMul) and len(kept.args) == 2
    # proportional only at some values (m = 1) is not proportional: A + B and A + m B need not commute
    assert isinstance(exponential_form(exponential(a + b) * exponential(a + m * b)), sympy.MatMul)


def test_a_zero_exponent_is_the_identity_and_a_transpose_goes_inside() -> None:
    b = general_name("B")
    assert exponential(b - b) == sympy.Identity(b.shape[0])
    assert exponential(Symbol("t") * b).T == exponential(Symbol("t") * b.T)
    assert exponential_form(exponential(b).T * exponential(b)) != sympy.Identity(b.shape[0])


def test_only_square_exponents_of_more_than_one_row_are_read() -> None:
    u = general_name("u")
    with pytest.raises(Exception, match="not square"):
        exponential(u)
    with pytest.raises(Exception, match="not square"):
        exponential(u.T * u)  # e^{u^T v} is a number: left to the other readings


def test_a_substitution_reaches_the_exponent() -> None:
    b, m, n = general_name("B"), Symbol("m"), Symbol("n")
    moved = exponential(m * b).subs(m, n)
    assert isinstance(moved, MatrixExponential) and exponential_form(moved) == exponential(n * b)
    assert m not in moved.free_symbols and n in moved.free_symbols


def test_a_letter_used_only_in_an_exponent_is_a_number_there() -> None:
    scope = Scope(array_names=frozenset({"B", "m"}))  # m also met as a vector elsewhere in the document
    found = general_step(r"\exp(m B)^{\top}", r"\exp(m B^{\top})", scope)
    assert found is not None and found.status == "PROVED" and "m read as a number in an exponent" in found.reason


def test_an_undefined_i_alone_on_a_side_is_the_identity_and_said_so() -> None:
    scope = Scope(array_names=frozenset({"B"}))  # I never written in bold: read as a number first
    found = general_step(r"\exp(-B)\exp(B)", "I", scope)
    assert found is not None and found.status == "PROVED" and "read as the identity" in found.reason
    defined = Scope(array_names=frozenset({"B"}), symbols={"I": Definition("symbol", "I", sympy.Integer(3), ())})
    assert general_step(r"\exp(-B)\exp(B)", "I", defined) is None  # I has a value: not the identity
