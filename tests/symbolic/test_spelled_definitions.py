"""A step that is a definition written out, and an expectation of equal quantities: when each is read so."""

from __future__ import annotations

import pytest

from ropecheck.symbolic.audit.equal_expectations import equal_expectations
from ropecheck.symbolic.audit.spelled_definitions import as_defined

BODIES = {"h_t": ("W x_t + c", 8)}


@pytest.mark.parametrize(
    ("left", "right", "read"),
    [
        pytest.param(r"P_t(W x_t + c)", r"P_t h_t", True, id="in-brackets"),
        pytest.param(r"W x_t + c", r"h_t", True, id="a-whole-side"),
        pytest.param(r"(W x_t + c)^2", r"h_t^2", True, id="squared"),
        pytest.param(r"h_t^{\top} u", r"(W x_t + c)^T u", True, id="transposed"),
        pytest.param(r"P_t(W x_t - c)", r"P_t h_t", False, id="another-sign"),
        pytest.param(r"W x_t + c", r"P_t", False, id="name-not-written"),
        pytest.param(r"\tilde{h}_t", r"\tilde{W x_t + c}", False, id="under-a-decoration"),
        pytest.param(r"\bar h_t", r"\bar (W x_t + c)", False, id="decorated-without-braces"),
        pytest.param(r"h_t'", r"(W x_t + c)'", False, id="primed"),
        pytest.param(r"h_t^*", r"(W x_t + c)^*", False, id="starred"),
        pytest.param(r"h_t^{(1)}", r"(W x_t + c)^{(1)}", False, id="labelled"),
    ],
)
def test_a_definition_is_put_in_place_only_where_the_name_is_its_value(left: str, right: str, read: bool) -> None:
    assert (as_defined(left, right, BODIES) is not None) is read


@pytest.mark.parametrize(
    ("left", "right", "read"),
    [
        pytest.param(r"\mathbb{E}[a^T u]", r"\mathbb{E}\left[a^T v\right]", True, id="same-operator"),
        pytest.param(r"E(a^T u)", r"E(a^T v)", True, id="plain-letter-round-brackets"),
        pytest.param(r"\mathbb{E}[a^T u]", r"\mathrm{E}[a^T v]", False, id="two-spellings"),
        pytest.param(r"\mathbb{E}_{q}[a^T u]", r"\mathbb{E}_{q}[a^T v]", False, id="subscript"),
        pytest.param(r"\mathbb{E}[a] + 1", r"\mathbb{E}[b] + 1", False, id="more-than-the-expectation"),
        pytest.param(r"\mathbb{E}[a^T u]", r"0", False, id="one-side-only"),
        pytest.param(r"\mathbb{E}[a^T u", r"\mathbb{E}[a^T v]", False, id="unclosed"),
    ],
)
def test_equal_expectations_are_read_only_as_one_operator_of_one_bracket(left: str, right: str, read: bool) -> None:
    assert (equal_expectations(left, right) is not None) is read
