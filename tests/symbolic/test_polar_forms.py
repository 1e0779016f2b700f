"""A name written in polar form, ``q = \\|q\\| e^{i\\theta_q}``: its norm is the modulus the form writes, in a
definition (``readers/written_norms.polar_modulus``) and where a step states it (``audit/polar_forms.py``)."""

from __future__ import annotations

import pytest
import sympy
from worldaudit import TIMEOUT

from ropecheck.symbolic.audit.polar_forms import stated_polar
from ropecheck.symbolic.audit.run import audit_document
from ropecheck.symbolic.readers.scope import Scope

MODULUS = sympy.Symbol("\u2016q\u2016", positive=True)
ANGLE = sympy.Symbol("t", real=True)
Q = sympy.Symbol("q")

OPENING = "$$\nq_m = f(x, m)\n$$\n\n$$\nq = f(x, 0)\n$$\n\n$$\nq = \\|q\\| e^{i t}\n$$\n\n"


def _statuses(text: str) -> dict[int, tuple[str, str]]:
    return {s.line: (s.status, s.reason) for s in audit_document(text, timeout=TIMEOUT).steps}


def test_a_step_of_the_bare_name_and_its_norm_times_a_turn_states_its_polar_form() -> None:
    found = stated_polar((Q, MODULUS * sympy.exp(sympy.I * ANGLE)), 7, Scope(), before="q = f(x, 0)")
    assert found is not None and found.definition.name == "q" and found.angle_new
    assert not stated_polar((Q, MODULUS * sympy.exp(sympy.I * ANGLE)), 7, Scope(), before="t = 1").angle_new  # type: ignore[union-attr]
    real = sympy.Symbol("q", real=True)
    for name, other in (
        (Q, MODULUS * sympy.exp(ANGLE)),  # no turn
        (Q, 2 * MODULUS * sympy.exp(sympy.I * ANGLE)),  # another factor
        (Q, sympy.exp(sympy.I * ANGLE)),  # no norm
        (real, MODULUS * sympy.exp(sympy.I * 10000 ** (-real))),  # the name in its angle (theta_q read at q)
    ):
        assert stated_polar((name, other), 7, Scope(), before="") is None


@pytest.mark.parametrize(
    ("step", "status", "says"),
    [
        (r"\|q\| e^{i(t + m a)} = q e^{i m a}", "PROVED", "the polar form line 10 states"),
        (r"\|q\| e^{i t + m a} = q e^{i m a}", "REFUTED", "the polar form line 10 states"),
        (r"\|q\| e^{i t / 2} = q", "UNDECIDED", "turns by 2 pi"),  # false only for some branch of the angle
    ],
)
def test_a_later_step_with_the_name_and_its_norm_is_read_through_the_stated_form(
    step: str, status: str, says: str
) -> None:
    found = _statuses(OPENING + f"with $a$ real:\n\n$$\n{step}\n$$\n")
    assert found[16][0] == status and says in found[16][1], found


def test_a_polar_form_stated_holds_in_its_section_only() -> None:
    step = "$$\n\\|q\\| e^{i t + m a} = q e^{i m a}\n$$\n"
    found = _statuses("## Plane\n\n" + OPENING + "## Any size\n\n" + step)
    assert found[18][0] == "UNDECIDED" and "polar form" not in found[18][1], found


def test_a_step_read_through_no_polar_form_keeps_its_verdict() -> None:
    from ropecheck.symbolic.audit.polar_forms import refuted_polar_doubt

    assert refuted_polar_doubt(object(), []) == ""  # a refuted matrix step, with no polar form in it


def test_an_angle_written_before_the_statement_refutes_nothing() -> None:
    text = (
        "The angle $t$ of $q$ comes later.\n\n"
        + OPENING
        + "with $a$ real:\n\n$$\n\\|q\\| e^{i t + m a} = q e^{i m a}\n$$\n"
    )
    status, reason = _statuses(text)[18]
    assert status == "UNDECIDED" and "whose angle the text wrote before" in reason
