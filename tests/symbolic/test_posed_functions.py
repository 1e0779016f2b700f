"""An equation one side of which calls a function written there for the first time poses it: a condition, no step
(``audit/posed_functions.py``)."""

from __future__ import annotations

import pytest
import sympy
from worldaudit import TIMEOUT

from ropecheck.symbolic.audit.posed_functions import posed_call, writes
from ropecheck.symbolic.audit.run import audit_document
from ropecheck.symbolic.readers.scope import Definition, Scope

INNER = r"\langle f(q, m), f(k, n) \rangle"
CALLS = [
    ("new on the right", INNER, "g(q, k, m - n)", "", "g"),
    ("new on the left", "g(q, k, m - n)", r"\mathrm{Re}[q k e^{i(m - n)\theta}]", "", "g"),
    ("bold name", INNER, r"\boldsymbol{g}(\mathbf{q}, \mathbf{k}, m-n)", "", "g"),
    ("only named before with a placeholder", INNER, "g(q, k, m - n)", r"a function g(\cdot)", "g"),
    ("called before", INNER, "g(q, k, m - n)", "g(x, y, 0) = 1", None),
    ("the bare letter before", INNER, "g(q, k, m - n)", "g = 2", None),
    ("a subscript before", INNER, "g(q, k, m - n)", "W_g x", None),
    ("the other side writes it", "g(q, k, 0) + 1", "g(q, k, m - n)", "", None),
    ("not a bare call", INNER, "2 g(q, k, m - n)", "", None),
    ("a number as an argument", INNER, "g(q, k, 2)", "", None),
    ("one argument, maybe a product", INNER, "g(m - n)", "", None),
    ("a new call on the left makes the line about it", "f_q(x, m)", "W_q(x, m)", "", "f_{q}"),
    ("the left a call of one argument", "W(x + p)", "g(x, p)", "", "g"),
    ("an empty side", "", "g(q, k, m - n)", "", None),
]


@pytest.mark.parametrize(("left", "right", "before", "name"), [c[1:] for c in CALLS], ids=[c[0] for c in CALLS])
def test_only_a_function_never_written_before_is_posed(left: str, right: str, before: str, name: str | None) -> None:
    found = posed_call(left, right, line=3, before=before, scope=Scope())
    assert (found.name if found else None) == name


def test_a_function_the_scope_defines_is_not_posed() -> None:
    x = sympy.Symbol("x", real=True)
    scope = Scope(functions={"g": Definition("function", "g", x, (x,))})
    assert posed_call(INNER, "g(q, k, m - n)", line=3, before="", scope=scope) is None


def test_a_placeholder_names_the_function_and_uses_nothing() -> None:
    assert not writes("g", r"we want g(\cdot) and f_k(\cdot, \cdot)")
    assert writes("g", r"g(\cdot) + g(x)") and writes("f_{q}", r"f_k(\cdot) \cdot f_q(x)")


def _audit(text: str) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    r = audit_document(text, timeout=TIMEOUT)
    return [(s.line, s.status) for s in r.steps], [(c.line, c.reason) for c in r.conditions]


def test_a_requirement_poses_its_function_and_a_later_use_is_a_step() -> None:
    steps, conditions = _audit(
        "$$\nF(u, m) F(v, n) = G(u, v, m - n)\n$$\n\nso\n\n$$\nF(u, m) F(v, m) = G(u, v, 0)\n$$\n"
    )
    assert [line for line, _ in conditions] == [2]
    assert "poses G, a function written here for the first time" in conditions[0][1]
    assert steps == [(8, "PROVED")]  # the requirement at n = m, as the document states it


@pytest.mark.parametrize(
    "text",
    [
        "$$\nF(u, m) F(v, n) = u v \\cos((m - n)\\theta) = G(u, v, m - n)\n$$\n",  # a chain: the first equality claims
        "$$\nF(u, m) F(v, n) = G(u, v, m - n)\n$$\n\nwhere $G(u, v, t) = u v t$.\n",  # defined right after
        "Let $G$ be the score.\n\n$$\nF(u, m) F(v, n) = G(u, v, m - n)\n$$\n",  # named before
    ],
    ids=["chain", "defined after", "named before"],
)
def test_an_equation_is_still_a_step_where_the_function_is_not_new_or_the_chain_claims_more(text: str) -> None:
    steps, conditions = _audit(text)
    assert steps and not any("first time" in why for _, why in conditions)


def test_a_requirement_posed_in_words_keeps_their_reason() -> None:
    _, conditions = _audit("We want\n\n$$\nF(u, m) F(v, n) = G(u, v, m - n)\n$$\n")
    assert conditions == [(4, "a condition or an equation to solve (posed by 'We want'), not a step")]


def test_a_new_function_given_a_body_is_posed_only_where_the_body_is_a_function_of_the_offset() -> None:
    steps, conditions = _audit("$$\nh(a, b, m - n) = a b \\cos((m - n)\\theta)\n$$\n")
    assert steps == [] and "what the new function is" in conditions[0][1]
    steps, conditions = _audit("$$\nh(a, b, m - n) = a b \\cos((m + n)\\theta)\n$$\n")  # no function of m - n
    assert steps == [(2, "UNDECIDED")] and conditions == []
