"""An inner product's field subscript: ``\\rangle_\\mathbb{R}``, ``\\rangle_{\\mathbb{C}}``, read from the text."""

from __future__ import annotations

from ropecheck.symbolic.readers.inner_fields import (
    in_inner_field_mark,
    inner_field_at,
    inner_field_options,
    real_part_of_hermitian,
)


def test_a_field_subscript_is_read_only_right_after_a_closing_bracket() -> None:
    text = r"\langle a, b \rangle_{\mathbb{R}^2} + x_{\mathbb{R}}"
    assert inner_field_at(text, text.index("_")) == ("R", text.index(" +"))
    assert inner_field_at(text, 5) == ("", 5)  # no subscript there
    assert in_inner_field_mark(text, text.index("\\mathbb"))
    assert not in_inner_field_mark(text, text.rindex("\\mathbb"))  # a subscript of a name: still refused


def test_only_a_complex_mark_adds_the_two_hermitian_readings_and_an_unmarked_product_keeps_its_three() -> None:
    notes = {"p": "plain p", "q": "plain q", "r": "plain r"}
    marked_r = inner_field_options(r"\langle a, b \rangle_\mathbb{R} = c", ("p", "q", "r"), notes)
    assert [(u, c) for u, c, _ in marked_r] == [("real", "conjugate-second")]
    marked_c = inner_field_options(r"\langle a, b \rangle_\mathbb{C} = c", ("p", "q", "r"), notes)
    assert [c for _, c, _ in marked_c] == ["conjugate-second", "conjugate-first"]
    mixed = inner_field_options(r"\langle a, b \rangle_\mathbb{C} = \langle a, b \rangle", ("p", "q", "r"), notes)
    assert len(mixed) == 6 and {u for u, _, _ in mixed} == {"p", "q", "r"}


def test_the_real_part_of_the_hermitian_product_is_the_real_one_only_of_the_same_arguments() -> None:
    hermitian = r"\text{Re}(\langle f(x), g(y) \rangle_{\mathbb{C}})"
    assert real_part_of_hermitian(r"\langle f(x), g(y) \rangle_{\mathbb{R}}", hermitian)
    assert real_part_of_hermitian(hermitian, r"\left< f(x), g(y) \right>_\mathbb{R}")
    assert not real_part_of_hermitian(r"\langle f(x), g(z) \rangle_{\mathbb{R}}", hermitian)
    assert not real_part_of_hermitian(r"\langle f(x), g(y) \rangle_{\mathbb{R}}", hermitian.replace("Re", "Im"))
    assert not real_part_of_hermitian(r"\langle f(x), g(y) \rangle", hermitian)  # no field: not this identity
