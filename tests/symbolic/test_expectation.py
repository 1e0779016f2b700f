"""An expectation read as a linear functional: PROVED by linearity alone, never refuted by values no distribution
gives, REFUTED only where the expectations cancel (false for every distribution)."""

from __future__ import annotations

import pytest
import sympy
from worldaudit import audited

from ropecheck.errors import ClaimParseError
from ropecheck.symbolic.readers.claim import check_claim
from ropecheck.symbolic.readers.expectation import expectation, expectations_in, random_names
from ropecheck.symbolic.readers.latex_syntax import read_latex_side


def test_linearity_takes_constants_out_and_leaves_each_random_factor_an_unknown() -> None:
    a, q, k = sympy.symbols("a q k", real=True)
    value = expectation(a * (q + 1) ** 2 + k, ("q", "k"), "q,k")
    unknowns = {str(u.args[0]) for u in expectations_in(value)}
    assert unknowns == {"q**2", "q", "k"} and value.subs(dict.fromkeys(expectations_in(value), 0)) == a


def test_a_name_indexed_by_the_variable_averaged_over_is_random() -> None:
    value = read_latex_side(r"\mathbb{E}_j[c\, k_j + c]")
    assert [str(u.args[0]) for u in expectations_in(value)] == ["k_{j}"]  # never c * k_j
    assert random_names(r"q ,k ,\varepsilon ") == ("q", "k", "varepsilon") and random_names("x+1") == ()


@pytest.mark.parametrize(
    "tex",
    [r"\mathbb{E}[q] + 1", r"\mathbb{E}_{q}[a]", r"\mathbb{E}_{q}\left[\begin{pmatrix} q \\ 1 \end{pmatrix}\right]"],
    ids=["no-subscript", "nothing-random", "a-vector"],
)
def test_expectations_not_read(tex: str) -> None:
    with pytest.raises(ClaimParseError):
        read_latex_side(tex)


def test_steps_by_linearity_are_proved_and_steps_needing_the_distribution_say_what_they_need() -> None:
    r = audited("expectation_linearity.md")
    assert [(s.line, s.status) for s in r.steps] == [
        (5, "PROVED"), (7, "PROVED"), (11, "PROVED"), (15, "UNDECIDED"), (17, "UNDECIDED")
    ]  # fmt: skip
    assert "differ by 𝔼_{u,w}(u*w) - 𝔼_{u}(u)*𝔼_{w}(w)" in r.steps[4].reason


def test_twin_a_dropped_constant_is_refuted_and_a_slip_some_distribution_satisfies_is_not() -> None:
    r = audited("expectation_linearity_twin.md")
    assert [(s.line, s.status) for s in r.steps] == [(5, "REFUTED"), (9, "UNDECIDED"), (13, "REFUTED"), (17, "UNREAD")]
    assert "false for every distribution" in r.steps[0].reason and "c*𝔼_{u}(u)" in r.steps[1].reason


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        (r"\mathbb{E}_q[a q + b] = a\mathbb{E}_q[q] + b", "PROVED"),
        (r"\mathbb{E}_q[q + 1] = \mathbb{E}_q[q]", "REFUTED"),
        (r"\mathbb{E}_q[q] = 2\mathbb{E}_q[q]", "UNDECIDED"),  # true where the mean is 0
        (r"\mathbb{E}_{q}[q^2] = \mathbb{E}_q[q]^2", "UNDECIDED"),  # true where the variance is 0
    ],
    ids=["linear", "constant-dropped", "needs-a-mean", "needs-a-variance"],
)
def test_a_claim_about_expectations(claim: str, verdict: str) -> None:
    assert check_claim(claim).verdict.value == verdict
