"""Where a trig argument without parentheses ends (``ropecheck.symbolic.readers.trig_bounds``), and a row break's
spacing: spellings that once read a true step as false. The audit of a document that writes them is in
``tests/fixtures/audit/world/`` (``spaced_rows_and_remarks`` and its twin)."""

from __future__ import annotations

import pytest

from ropecheck.errors import ClaimParseError
from ropecheck.symbolic.engine.proof import Verdict
from ropecheck.symbolic.readers.claim import check_claim


def _claim(text: str) -> Verdict:
    return check_claim(text, syntax="latex").verdict


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        # a braced argument then \cdot: once cos(m theta cos(n theta)), the true step refuted
        (r"\cos{(m+n)\theta} = \cos{m\theta}\cdot \cos{n\theta} - \sin{m\theta}\cdot \sin{n\theta}", Verdict.PROVED),
        (r"\cos{(m+n)\theta} = \cos{m\theta}\cdot \cos{n\theta} + \sin{m\theta}\cdot \sin{n\theta}", Verdict.REFUTED),
        (r"\sin{2\theta}\cdot x = x\sin 2\theta", Verdict.PROVED),
        (r"e^{i\theta} = \cos{\theta} + \sin{\theta}\cdot i", Verdict.PROVED),
        (r"e^{i\theta} = \cos{\theta} - \sin{\theta}\cdot i", Verdict.REFUTED),
        # braces are invisible in print: \sin{x}^2 is set as sin x^2, and read so, as without them
        (r"\sin{x}^2 = \sin(x^2)", Verdict.PROVED),
        (r"\cos^2{\theta} + \sin^2{\theta} = 1", Verdict.PROVED),
        # a component after the argument still ends it
        (r"\cos m\theta\, q_1 = q_1 \cos(m\theta)", Verdict.PROVED),
    ],
)
def test_a_braced_trig_argument_is_one_atom_of_the_argument(claim: str, verdict: Verdict) -> None:
    assert _claim(claim) is verdict


@pytest.mark.parametrize(
    ("claim", "words"),
    [
        (r"\sin\theta\, x = x\sin\theta", "a space written after a trig argument"),
        (r"\cos\theta~x = x\cos\theta", "a space written after a trig argument"),
        (r"e^{i\theta} = \cos\theta + \sin\theta\, i", "a space written after a trig argument"),
        (r"e^{i\theta} = \cos\theta + \sin\theta i", "i after a trig argument"),
    ],
)
def test_a_factor_after_a_space_or_the_unit_after_a_trig_argument_is_refused(claim: str, words: str) -> None:
    # once sin(theta x) and sin(theta i) = i sinh(theta): true steps refuted
    with pytest.raises(ClaimParseError, match=words):
        check_claim(claim, syntax="latex")


@pytest.mark.parametrize("spacing", [r"\\[2pt]", r"\\[1ex]", r"\\ [3mm]", r"\\[0.5em]"])
def test_a_row_break_with_its_spacing_is_the_row_break(spacing: str) -> None:
    # once read as the factor 2 p t (1 e x, 3 m^2) of the next entry
    rotated = r"\begin{pmatrix} \cos a & -\sin a " + spacing + r" \sin a & \cos a \end{pmatrix}"
    column = r"\begin{pmatrix} x " + spacing + r" y \end{pmatrix}"
    assert _claim(rotated + column + r" = \begin{pmatrix} x\cos a - y\sin a \\ x\sin a + y\cos a \end{pmatrix}") is (
        Verdict.PROVED
    )
    assert _claim(rotated + column + r" = \begin{pmatrix} x\cos a + y\sin a \\ x\sin a + y\cos a \end{pmatrix}") is (
        Verdict.REFUTED
    )
