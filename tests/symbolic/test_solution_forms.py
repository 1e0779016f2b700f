"""A function at a difference of positions, given beside the other functions of its display, read as a definition
(``audit/solution_forms.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy

from ropecheck.symbolic.audit.run import audit_document
from ropecheck.symbolic.audit.solution_forms import (
    OFFSET_ONLY,
    OFFSET_OTHERWISE,
    SOLVED_REASON,
    depends_through_offsets,
    solution_form,
)

WORLD = Path(__file__).resolve().parents[1] / "fixtures" / "audit" / "world"
m, n, k, theta, x = sympy.symbols("m n k theta x", real=True)

THROUGH = [
    ("cos of the gap", sympy.cos((m - n) * theta) * x, [m - n], True),
    ("exponential of the gap", sympy.re(x * sympy.exp(sympy.I * (m - n) * theta)), [m - n], True),
    ("the gap the other way", sympy.sin((n - m) * theta), [m - n], True),
    ("sum of positions", sympy.cos((m + n) * theta), [m - n], False),
    ("one position alone", sympy.cos(m * theta) * sympy.cos(n * theta), [m - n], False),
    ("a third name", sympy.cos((m - n) * theta) + k, [m - n - k], False),
    ("no position at all", x, [m - n], False),
    ("a matrix", sympy.Matrix([[sympy.cos((m - n) * theta)]]), [m - n], False),
]


@pytest.mark.parametrize(("value", "offsets", "expected"), [t[1:] for t in THROUGH], ids=[t[0] for t in THROUGH])
def test_a_body_depends_on_the_gap_only_through_it(value: object, offsets: list[object], expected: bool) -> None:
    assert depends_through_offsets(value, offsets) is expected


LISTED = [(13, "f_{q}", "function", True), (14, "f_{k}", "function", True)]
FORMS = [
    ("beside two functions", OFFSET_ONLY, LISTED, False, True),
    ("a body that depends otherwise", OFFSET_OTHERWISE, LISTED, False, False),
    ("written in an earlier step", OFFSET_ONLY, LISTED, True, False),
    ("listed before", OFFSET_ONLY, [*LISTED, (9, "g(x, y, m - n)", "function", False)], False, False),
    ("alone in its display", OFFSET_ONLY, [(3, "f_{q}", "function", True)], False, False),
    ("beside a function not read", OFFSET_ONLY, [(13, "f_{q}", "function", False)], False, False),
    ("beside a symbol only", OFFSET_ONLY, [(13, "c", "symbol", True)], False, False),
]


@pytest.mark.parametrize(("reason", "defined", "before", "expected"), [t[1:] for t in FORMS], ids=[t[0] for t in FORMS])
def test_only_a_set_given_in_one_display_defines_the_function(
    reason: str, defined: list[tuple[int, str, str, bool]], before: bool, expected: bool
) -> None:
    assert solution_form("g", 15, reason, display_start=12, defined=defined, written_before=before) is expected


def test_the_solution_line_is_a_definition_and_its_twin_with_m_plus_n_a_step() -> None:
    right = audit_document((WORLD / "solution_at_offset.md").read_text(), path="solution_at_offset.md")
    assert [(s.line, s.status) for s in right.steps] == [(23, "UNDECIDED")]
    assert any(d.line == 16 and d.reason == SOLVED_REASON for d in right.definitions)
    twin = audit_document((WORLD / "solution_at_offset_twin.md").read_text(), path="solution_at_offset_twin.md")
    # a step, read through the requirement that poses g (.posed_requirements): m + n is wrong in every reading
    assert [(s.line, s.status) for s in twin.steps] == [(16, "REFUTED"), (23, "UNDECIDED")]
    assert "read through the requirement at line 7" in twin.steps[0].reason


def test_the_definition_proves_no_instance_read_with_its_conjugate_gone() -> None:
    # read with every name real, Re[a b^* e^{-2i theta}] is Re[a b^* e^{2i theta}]: not so for the complex numbers meant
    text = (WORLD / "solution_at_offset.md").read_text().replace(r"e^{2i\theta}]", r"e^{-2i\theta}]")
    assert r"e^{-2i\theta}]" in text
    result = audit_document(text, path="flipped.md")
    assert [(s.line, s.status) for s in result.steps] == [(23, "UNDECIDED")]
