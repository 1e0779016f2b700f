"""Families drawn as block-diagonal matrices: a name given again with its size, turns with glued functions, and
patterns in size names the math never relates."""

from __future__ import annotations

import pytest
import sympy

from ropecheck.errors import ClaimLimitError
from ropecheck.symbolic.audit.family_names import raised_sibling, without_raised
from ropecheck.symbolic.readers.ellipsis import concrete_sizes, find_patterns
from ropecheck.symbolic.readers.latex_syntax import read_latex_side
from ropecheck.symbolic.readers.scope import Scope


def test_a_family_with_a_raised_size_is_the_sibling_of_the_same_family_without_it() -> None:
    assert raised_sibling(r"R_{\Theta,*}", r"R^d_{\Theta,*}") == ("R", "d", r"\Theta")
    assert raised_sibling(r"R_{\Theta,*}", r"R^{d}_{\Theta,*}") == ("R", "d", r"\Theta")
    assert raised_sibling(r"R_{\Theta,*}", r"R^d_{\Omega,*}") is None  # another label
    assert raised_sibling(r"R_{\Theta,*}", r"S^d_{\Theta,*}") is None  # another letter
    assert raised_sibling(r"R^d_{\Theta,*}", r"R^d_{\Theta,*}") is None  # the name itself


def test_only_the_members_with_the_raised_size_are_set_apart() -> None:
    text = r"(R _{\Theta, m}^d)^{T} R ^d_{\Theta, n} = R_{\Theta, n-m}^{d\top} R_{\Theta,m} R^d_{\Omega,m}"
    assert without_raised(text, "R", "d", r"\Theta") == r"(0)^{T} 0 = 0 R_{\Theta,m} R^d_{\Omega,m}"


TURN = (
    r"\begin{pmatrix} cosm\theta_1 & -sinm\theta_1 \\ sinm\theta_1 & cosm\theta_1 \end{pmatrix}"
    r"\begin{pmatrix} cosn\theta_1 & -sinn\theta_1 \\ sinn\theta_1 & cosn\theta_1 \end{pmatrix}"
)


def test_a_turn_with_its_functions_glued_to_one_letter_reads_as_the_functions() -> None:
    value = read_latex_side(TURN.split(r"\begin{pmatrix} cosn")[0], 0, Scope())
    m, theta = sympy.Symbol("m"), sympy.Symbol("theta_{1}")
    assert isinstance(value, sympy.MatrixBase) and {str(e) for e in value} >= {str(sympy.cos(m * theta))}


@pytest.mark.parametrize(
    "text",
    [
        TURN,  # glued to two letters: m and n
        r"\begin{pmatrix} cosm\theta_1 & -sinm\theta_2 \\ sinm\theta_2 & cosm\theta_1 \end{pmatrix}",  # two angles
        r"\begin{pmatrix} cosm\theta_1 & 0 \\ 0 & cosm\theta_1 \end{pmatrix}",  # no sine beside the cosine
        r"cosm\theta_1 - sinm\theta_1",  # no matrix drawn
        r"\begin{pmatrix} cosm\theta_1 & -sinm\theta_1 \\ sinm\theta_1 & cosmx \end{pmatrix}",  # another glued run
    ],
    ids=["two-letters", "two-angles", "no-sine", "no-matrix", "another-run"],
)
def test_glued_functions_that_draw_no_turn_are_not_read(text: str) -> None:
    with pytest.raises(ClaimLimitError, match="without a backslash"):
        read_latex_side(text, 0, Scope())


def test_size_names_the_math_never_relates_are_written_out_only_when_asked() -> None:
    found = [
        *find_patterns(r"D = \text{diag}\left(e^{i\omega_1 t}, e^{i\omega_2 t}, \cdots, e^{i\omega_{h/2} t}\right)")[0],
        *find_patterns(r"b = [\beta_1, \beta_2, \ldots, \beta_G]")[0],
    ]
    assert concrete_sizes(found) == []
    h, g = sympy.Symbol("h"), sympy.Symbol("G")
    # each at a size of its own: a step mixing the two is never proved where they happen to agree
    assert concrete_sizes(found, apart=True) == [{g: 8, h: 12}, {g: 12, h: 16}]
    # a name a relation ties to another is never set apart: it keeps the relation or is not written out
    assert concrete_sizes(found, {h: 2 * g}, apart=True) == [{g: 8, h: 16}, {g: 12, h: 24}]
