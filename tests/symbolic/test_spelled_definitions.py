"""A step that is a definition written out, a function at a gap of positions written again, and an expectation of
equal quantities: when each is read so."""

from __future__ import annotations

import pytest

from ropecheck.symbolic.audit.equal_expectations import equal_expectations
from ropecheck.symbolic.audit.spelled_definitions import as_defined, redefined_since

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


CALL, BODY = "h(u_m, u_n, m - n)", r"Re[(A u_m)(B u_n)^* e^{i(m - n)\phi}]"


@pytest.mark.parametrize(
    ("later", "redefined"),
    [
        pytest.param([], False, id="nothing-since"),
        pytest.param(["u_{m}", "u_{n}", "m", "n"], False, id="the-call-binds-them"),
        pytest.param(["c", "q_{m}", "p_{q}(u_{m}, m)"], False, id="names-the-body-does-not-write"),
        pytest.param([r"\phi"], True, id="a-command-in-the-body"),
        pytest.param(["A"], True, id="a-letter-in-the-body"),
        pytest.param(["B_{1}", "B"], True, id="one-of-several"),
        pytest.param(["h(u_m, u_n, m - n)"], True, id="the-function-again"),
    ],
)
def test_a_definition_written_again_holds_only_while_nothing_in_it_is_defined_again(
    later: list[str], redefined: bool
) -> None:
    assert redefined_since(CALL, BODY, later) is redefined


SOLVED = (
    "We want\n\n$$\n\\langle p_q(u_m, m), p_k(u_n, n) \\rangle = h(u_m, u_n, m - n)\n$$\n\nOne answer:\n\n"
    "$$\n\\begin{gather}\np_q(u_m, m) = (A u_m) e^{im\\phi} \\\\\np_k(u_n, n) = (B u_n) e^{in\\phi} \\\\\n"
    f"{CALL} = {BODY}\n\\end{{gather}}\n$$\n\n"
)


@pytest.mark.parametrize(
    ("between", "status"),
    [
        pytest.param("", "PROVED", id="written-again"),
        pytest.param("Now let\n\n$$\n\\phi = 2\n$$\n\n", "UNDECIDED", id="a-name-of-its-body-given-a-value"),
    ],
)
def test_a_solved_function_written_again_is_that_definition(between: str, status: str) -> None:
    from ropecheck.symbolic.audit.run import audit_document

    doc = SOLVED + between + f"As above,\n\n$$\n{CALL} = {BODY}\n$$\n"
    steps = audit_document(doc, timeout=30.0).steps
    assert [s.status for s in steps] == [status], [s.reason for s in steps]
