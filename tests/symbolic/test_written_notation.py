"""Notation this literature writes plainly that the LaTeX reader reads with its standard meaning: a sum whose range
is not written, or only its upper end (``ropecheck.symbolic.readers.open_sums``), a norm with its subscript
(``\\|q\\|_2``), ``\\pm`` on both sides of a claim (``.sign_pairs``) and ``\\det`` of a matrix (``.determinants``).
The audit of documents that write them is in ``tests/fixtures/audit/world/`` (``open_range_softmax``,
``named_norm_subscript``, ``sign_pair_angles``, ``determinant_of_rotation``, ``labelled_calls`` and their twins)."""

from __future__ import annotations

import pytest
import sympy

from ropecheck.errors import ClaimParseError
from ropecheck.symbolic.engine.proof import Verdict
from ropecheck.symbolic.readers.claim import check_claim
from ropecheck.symbolic.readers.latex_syntax import read_latex_side
from ropecheck.symbolic.readers.open_sums import false_over_every_range, open_range_names
from ropecheck.symbolic.readers.sign_pairs import sign_pair, sign_sides


def _claim(text: str) -> Verdict:
    return check_claim(text, syntax="latex").verdict


@pytest.mark.parametrize("written", [r"\sum_j e^{s_j}", r"\sum_{j} e^{s_j}", r"\sum_\mathrm{j} e^{s_j}"])
def test_a_sum_with_no_range_runs_from_first_to_last_of_its_index(written: str) -> None:
    value = read_latex_side(written)
    (total,) = value.atoms(sympy.Sum)
    j, first, last = total.limits[0]
    assert str(j) == "j" and (str(first), str(last)) == ("first(j)", "last(j)")
    assert first.is_integer and last.is_integer and open_range_names(value) == ["j"]


@pytest.mark.parametrize("written", [r"\sum_{j=1}^{n} x_j", r"\sum_{i,j} x_j"])
def test_a_sum_that_writes_more_than_its_index_is_not_read_as_open(written: str) -> None:
    try:
        value = read_latex_side(written)
    except ClaimParseError:
        return  # \sum_{i,j}: not read, as before
    assert open_range_names(value) == []


@pytest.mark.parametrize("written", [r"\sum_j^{d/2} x_j", r"\sum_{j}^{d/2} x_j", r"\sum_\mathrm{j}^{d/2} x_j"])
def test_a_sum_with_only_its_upper_end_runs_from_first_of_its_index(written: str) -> None:
    (total,) = read_latex_side(written).atoms(sympy.Sum)
    j, first, last = total.limits[0]
    assert (str(j), str(first), str(last)) == ("j", "first(j)", "d/2") and first.is_integer


def test_sums_to_different_upper_ends_are_never_refuted_over_every_range() -> None:
    # true where j counts from 0, false where it counts from 1: refuted only over a range the text may not mean
    verdict = _claim(r"\sum_j^{N} h_j = h_0 + \sum_j^{N-1} h_{j+1}")
    assert verdict is Verdict.UNDECIDED
    # false over every range: a scale squared by mistake
    assert _claim(r"\sum_j^{N} c\, h_j = c^2 \sum_j^{N} h_j") is Verdict.REFUTED
    assert _claim(r"\sum_j^{N} h_j = h_N + \sum_j^{N-1} h_j") is Verdict.PROVED


def test_the_softmax_is_proved_unchanged_by_a_constant_added_to_every_score() -> None:
    shifted = r"\frac{e^{s_n + c}}{\sum_j e^{s_j + c}}"
    assert _claim(shifted + r" = \frac{e^c e^{s_n}}{e^c \sum_j e^{s_j}}") is Verdict.PROVED
    assert _claim(r"\frac{e^c e^{s_n}}{e^c \sum_j e^{s_j}} = \frac{e^{s_n}}{\sum_j e^{s_j}}") is Verdict.PROVED


def test_a_claim_false_over_every_range_is_refuted_and_one_false_over_some_is_not() -> None:
    assert _claim(r"\frac{e^{s_n + c}}{\sum_j e^{s_j + c}} = \frac{e^c e^{s_n}}{\sum_j e^{s_j}}") is Verdict.REFUTED
    assert _claim(r"\sum_j c\, x_j = c^2 \sum_j x_j") is Verdict.REFUTED
    # true when the range has three members, or when n runs over the same keys as j: never refuted
    assert _claim(r"\sum_j 1 = 3") is Verdict.UNDECIDED
    assert _claim(r"\sum_j 1 = N") is Verdict.UNDECIDED  # N may be the count the text means
    assert _claim(r"\sum_j s_j = s_n") is Verdict.UNDECIDED  # true over the one key n
    assert _claim(r"\sum_j 2 s_j = 3 \sum_j s_j") is Verdict.REFUTED
    assert _claim(r"\sum_n \frac{e^{s_n}}{\sum_j e^{s_j}} = 1") is Verdict.UNDECIDED
    # a term that depends on its index (not only through a family's entries) is not counted
    lhs, rhs = read_latex_side(r"\sum_j j"), read_latex_side(r"\sum_j 2 j")
    assert not false_over_every_range(lhs, rhs, {})


def test_a_norm_keeps_its_subscript_and_stays_apart_from_the_norm_without_one() -> None:
    assert str(read_latex_side(r"\|q\|_2\|k\|_2")) == "‖k‖_{2}*‖q‖_{2}"
    assert str(read_latex_side(r"\|q\|_{2}^2")) == "‖q‖_{2}**2"
    assert str(read_latex_side(r"\|x\|_\infty")) == "‖x‖_{\\infty}"
    assert read_latex_side(r"\|q\|_2") != read_latex_side(r"\|q\|")
    assert _claim(r"\frac{\|q\|_2^2 \|k\|_2^2}{\|q\|_2 \|k\|_2} = \|q\|_2 \|k\|_2") is Verdict.PROVED
    assert _claim(r"\frac{\|q\|_2^2 \|k\|_2^2}{\|q\|_2 \|k\|_2} = \|q\|_2^2 \|k\|_2") is Verdict.REFUTED


def test_plus_minus_on_both_sides_is_the_claim_for_each_sign() -> None:
    upper, lower = sign_pair(r"\cos(a \pm b) = \cos a\cos b \mp \sin a\sin b") or ("", "")
    assert "+" in upper.split("=")[0] and "-" in upper.split("=")[1]
    assert "-" in lower.split("=")[0] and "+" in lower.split("=")[1]
    assert len(upper) == len(r"\cos(a \pm b) = \cos a\cos b \mp \sin a\sin b")  # columns kept
    assert _claim(r"\sin(a \pm b) = \sin a\cos b \pm \cos a\sin b") is Verdict.PROVED
    assert _claim(r"\cos(a \pm b) = \cos a\cos b \mp \sin a\sin b") is Verdict.PROVED
    assert _claim(r"\cos(a \pm b) = \cos a\cos b \pm \sin a\sin b") is Verdict.REFUTED


@pytest.mark.parametrize("text", [r"x = 1 \pm 2", r"x \pm 1 = y", r"\pm x"])
def test_plus_minus_on_one_side_only_is_not_read_as_two_claims(text: str) -> None:
    assert sign_pair(text) is None
    lhs, _, rhs = text.partition("=")
    assert sign_sides(lhs, rhs) is None


def test_a_determinant_is_read_of_a_square_matrix_only() -> None:
    a, b = sympy.symbols("a b", real=True)
    assert read_latex_side(r"\det(\begin{pmatrix} a & -b \\ b & a \end{pmatrix})") == a**2 + b**2
    assert read_latex_side(r"\det\left(\begin{bmatrix} a & 0 \\ 0 & b \end{bmatrix}\right) + 1") == a * b + 1
    phi = r"\begin{pmatrix} \cos\phi & -\sin\phi \\ \sin\phi & \cos\phi \end{pmatrix}"
    assert _claim(rf"\det({phi}) = 1") is Verdict.PROVED
    assert _claim(rf"\det({phi}) = \cos^2\phi - \sin^2\phi") is Verdict.REFUTED
    for text in (r"\det(R)", r"\det(a)", r"\det(\begin{pmatrix} a \\ b \end{pmatrix})"):
        with pytest.raises(ClaimParseError, match="not a square matrix"):
            read_latex_side(text)


@pytest.mark.parametrize("written", [r"\mathbf{0} = 0", r"\mathrm{x_{\text{q}}} + 1 = x_q + 1"])
def test_a_font_command_no_rule_reads_is_refused_never_a_factor(written: str) -> None:
    # the parser keeps \mathbf{0} as mathbf*0 (zero): refused now, never decided so
    with pytest.raises(ClaimParseError, match=r"\\(mathrm|mathbf)\{\.\.\.\} around"):
        read_latex_side(written.split("=")[0])
    with pytest.raises(ClaimParseError, match=r"\\(mathrm|mathbf)\{\.\.\.\} around"):
        _claim(written)  # not read, so never REFUTED


def test_an_upright_letter_with_its_subscript_inside_is_that_name() -> None:
    # \mathrm{x_i} was read as mathrm*x_i: x_i x_i = x_i^2 set upright was REFUTED
    assert _claim(r"\mathrm{x_i} \mathrm{x_i} = \mathrm{x_i}^2") == Verdict.PROVED
    assert _claim(r"\mathrm{a_{i,j}} + \mathrm{a_{i,j}} = 2 a_{i,j}") == Verdict.PROVED
    assert _claim(r"\mathrm{x_i} \mathrm{x_i} = 2 \mathrm{x_i}^2") == Verdict.REFUTED


def test_a_label_before_a_one_letter_subscript_is_the_name_tex_sets() -> None:
    assert read_latex_side(r"x^{(1)}_mx^{(1)}_n") == read_latex_side(r"x_m^{(1)} x_n^{(1)}")
    assert _claim(r"x^{(1)}_m x^{(2)}_n = x_n^{(2)} x_m^{(1)}") == Verdict.PROVED
    assert _claim(r"x^{(1)}_m x^{(2)}_n = x_n^{(1)} x_m^{(2)}") == Verdict.REFUTED
