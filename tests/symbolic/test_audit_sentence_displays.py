"""``$$ ... $$`` set inside a sentence: audited as a display where it holds a step, inline math in passing else."""

from __future__ import annotations

import pytest

from ropecheck.symbolic.audit.document import math_blocks
from ropecheck.symbolic.audit.run import audit_document
from ropecheck.symbolic.audit.sentence_displays import bare_side, sentence_displays

TIMEOUT = 30.0


@pytest.mark.parametrize(
    ("side", "bare"),
    [
        (r"\theta_j", True),
        (r"f_q(\mathbf{x}_m, m)", True),
        ("PE(pos, 2i)", True),
        (r"R^d_{\Theta,m}", True),
        (r"\mathbf{x}^{(1)}_m", True),
        (r"\dots", True),
        (r"e^{i\theta}", False),
        ("q_m^T k_n", False),
        (r"\text{Re}(q^* k)", False),
        ("x^2", False),
        ("3", False),
        (r"\lambda_1\lambda_2", False),
    ],
)
def test_a_bare_name_is_a_name_with_its_scripts_and_arguments_only(side: str, bare: bool) -> None:
    assert bare_side(side) is bare


def test_only_a_formula_in_a_sentence_that_relates_two_expressions_is_a_display() -> None:
    doc = (
        "So $$\\cos^2 x + \\sin^2 x = 1$$ holds, with $$r = \\sqrt{a^2 + b^2}$$ and $$m = 2$$, for $$q_m$$; "
        "also $$\\lambda_1 = \\lambda_2 = \\dots = 1$$ and $$a + b := c + d$$, $$e^{x} \\sim 1 + x$$ here.\n"
    )
    found, lines = math_blocks(doc)
    shown, promoted = sentence_displays(doc, found, lines)
    assert [b.kind for b in shown] == ["display"] + ["inline"] * 6 and promoted == {0}


def test_a_value_in_a_formula_read_as_a_display_stays_in_passing() -> None:
    doc = (
        "For instance $$\\rho = 2, \\quad \\rho^2 + \\rho = 6$$ in this example.\n\n"
        "$$\\sigma = 2, \\quad \\sigma^2 + \\sigma = 6$$\n"
    )
    r = audit_document(doc, timeout=TIMEOUT)
    assert [(s.line, s.status) for s in r.steps] == [(1, "UNDECIDED"), (3, "PROVED")]
    assert "given the value 2" in r.steps[0].reason


def test_a_condition_word_poses_a_formula_in_a_sentence_as_it_poses_a_display() -> None:
    r = audit_document("If $$m - n = 0$$ then the positions coincide.\n", timeout=TIMEOUT)
    assert r.steps == [] and [c.line for c in r.conditions] == [1]


def test_latex_keeps_double_dollars_as_displays_and_reads_nothing_twice() -> None:
    doc = "\\documentclass{article}\nso $$(a + b)^2 = a^2 + 2ab + b^2$$ holds.\n"
    r = audit_document(doc, timeout=TIMEOUT)
    assert [(s.line, s.status) for s in r.steps] == [(2, "PROVED")]


def test_the_steps_of_a_chain_that_names_a_value_are_posed_with_it() -> None:
    doc = "If $$\\phi = 2\\alpha + \\alpha = 4\\alpha$$ then nothing follows.\n"
    r = audit_document(doc, timeout=TIMEOUT)
    assert r.steps == [] and [c.line for c in r.conditions] == [1]
    (s,) = audit_document(doc.replace("If", "Here"), timeout=TIMEOUT).steps
    assert s.status == "REFUTED" and s.lhs_tex == "2\\alpha + \\alpha"
