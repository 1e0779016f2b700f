"""A number written with a unit is no number; a counterexample that breaks an equation stated before refutes
nothing, but an earlier statement of the step itself, or one with a name the counterexample leaves free, keeps
the verdict."""

from __future__ import annotations

import pytest

from ropecheck.symbolic.audit.run import audit_document
from ropecheck.symbolic.audit.units import number_with_unit


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("32\\text{MB}", "32\\text{MB}"),
        ("32\\,\\text{GB}", "32\\,\\text{GB}"),
        ("5\\mathrm{ms}", "5\\mathrm{ms}"),
        ("10\\%", "10\\%"),
        ("6 \\text{(for dims 0,1)}", ""),
        ("6 ~\\text{ for all } i", ""),
        ("2\\mathrm{e}", ""),
        ("x_2\\text{MB}", ""),
        ("3\\text{if}", ""),
        ("2\\mathrm{Re}(z)", ""),
        ("\\mathrm{Attention} + \\mathrm{Attention} = 2 \\, \\mathrm{Attention}", ""),
    ],
)
def test_a_word_right_after_a_number_is_its_unit(text: str, unit: str) -> None:
    assert number_with_unit(text) == unit


def _verdicts(text: str) -> list[tuple[int, str, str]]:
    return [(s.line, s.status, s.reason) for s in audit_document(text, path="t.md", timeout=30.0).steps]


def test_an_earlier_statement_of_the_step_itself_keeps_it_refuted() -> None:
    text = "# Sines\n\nWe use $\\sin(a + b) = \\sin a + \\sin b$, that is\n\n$$ \\sin(a + b) = \\sin a + \\sin b $$\n"
    found = _verdicts(text)
    assert [(line, status) for line, status, _ in found] == [(5, "REFUTED")], found


def test_a_broken_statement_makes_the_step_undecided_and_names_its_line() -> None:
    text = "# Sines\n\nThe angles are tied: $\\cos a = \\cos(2 b)$, so\n\n$$ \\cos a = 2 \\cos^2 b - 1 $$\n"
    found = _verdicts(text)
    assert [(line, status) for line, status, _ in found] == [(5, "UNDECIDED")], found
    assert "breaks line 3, \\cos a = \\cos(2 b)" in found[0][2]


def test_a_name_with_a_value_before_a_parenthesis_in_a_statement_is_a_product() -> None:
    text = "# Scale\n\nThe angles are tied: $r(\\cos a + 1) = \\cos b$, so\n\n$$ r\\cos a = \\cos b - r $$\n"
    found = _verdicts(text)
    assert [(line, status) for line, status, _ in found] == [(5, "UNDECIDED")], found
    assert "breaks line 3, r(\\cos a + 1) = \\cos b" in found[0][2]


def test_a_word_the_document_writes_as_a_name_is_no_unit() -> None:
    assert number_with_unit("2\\,\\mathrm{dim} + 2", "\\mathrm{dim} = 31") == ""
    assert number_with_unit("2\\,\\mathrm{dim} + 2", "\\mathrm{span} = 4") == "2\\,\\mathrm{dim}"
