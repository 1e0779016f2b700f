"""A step that states a posed function's value is read through the requirement that poses it
(``audit/posed_requirements.py``)."""

from __future__ import annotations

import pytest
import sympy
from worldaudit import TIMEOUT

from ropecheck.symbolic.audit.document import Link
from ropecheck.symbolic.audit.posed_requirements import (
    Requirement,
    certain_form,
    posed_requirement,
    read_through,
    renaming,
)
from ropecheck.symbolic.audit.run import audit_document
from ropecheck.symbolic.readers.scope import Definition, Scope

m, n, a, b, i = sympy.symbols("m n a b i")
XM, XN, XA, XB = sympy.symbols("x_{m} x_{n} x_{a} x_{b}")
YM = sympy.Symbol("y_{m}")
INNER = r"\langle f_q(x_m, m), f_k(x_n, n) \rangle"
POSED = Requirement("g", "g(x_m, x_n, m - n)", INNER, 4, (XM, XN, m - n))

RENAMINGS = [
    ("the same arguments", (XM, XN, m - n), {"m": "m", "n": "n"}),
    ("both positions renamed", (XA, XB, a - b), {"m": "a", "n": "b"}),
    ("the two swapped everywhere", (XN, XM, n - m), {"m": "n", "n": "m"}),
    ("the gap turned the other way", (XM, XN, n - m), None),
    ("a subscript that does not follow its letter", (XB, XA, a - b), None),
    ("the base of a name changed", (YM, XN, m - n), None),
    ("a sum for a difference", (XM, XN, m + n), None),
    ("the imaginary unit's letter brought in", (sympy.Symbol("x_{i}"), XN, i - n), None),
    ("a number for a name", (XM, XN, sympy.Integer(2)), None),
]


@pytest.mark.parametrize(("stated", "letters"), [c[1:] for c in RENAMINGS], ids=[c[0] for c in RENAMINGS])
def test_only_a_one_to_one_renaming_of_the_letters_matches(stated: tuple, letters: dict | None) -> None:
    assert renaming(POSED.args, stated, Scope()) == letters


def test_a_letter_with_a_value_is_not_brought_in() -> None:
    scope = Scope(symbols={"a": Definition("symbol", "a", sympy.Integer(3))})
    assert renaming(POSED.args, (XA, XB, a - b), scope) is None


def test_the_requirement_poses_only_a_new_function_beside_unknowns() -> None:
    found = posed_requirement("g(x_m, x_n, m - n)", INNER, 4, Scope())
    assert found is not None and (found.name, found.call, found.side, found.line) == ("g", *[POSED.call, INNER, 4])
    assert [str(x) for x in found.args] == ["x_{m}", "x_{n}", "m - n"]
    defined = Scope(functions={"f_{q}": Definition("function", "f_{q}", XM * sympy.exp(sympy.I * m), (XM, m))})
    assert posed_requirement("g(x_m, x_n, m - n)", INNER, 4, defined) is None  # f_q already has a value
    assert posed_requirement("g(x_m, x_n, m - n)", r"\langle x_m, x_n \rangle", 4, Scope()) is None  # no function
    assert posed_requirement("g(x_m, x_n, m - n)", r"\langle g(x_m, m), x_n \rangle", 4, Scope()) is None


def test_a_step_is_read_through_with_its_letters_renamed_and_says_so() -> None:
    found = read_through((Link("g(x_a, x_b, a - b)", 9), Link("c", 9)), [POSED], Scope())
    assert found is not None and found.sides is not None
    sides, said = found.sides, found.said
    assert sides[0].text == r"\langle f_q(x_a, a), f_k(x_b, b) \rangle" and sides[1].text == "c"
    assert said.startswith("g(x_a, x_b, a - b) read through the requirement at line 4") and "m as a, n as b" in said
    assert read_through((Link("c", 9), Link("g(x_m, x_n, n - m)", 9)), [POSED], Scope()) is None


def test_a_product_of_complex_values_is_not_read_through() -> None:
    value = Definition("function", "f", XM * sympy.exp(sympy.I * m), (XM, m))
    scope = Scope(functions={"f": value})
    assert certain_form(INNER, scope) and not certain_form("f(x_m, m) \\cdot f(x_n, n)", scope)
    x, p = sympy.symbols("x_{m} m", real=True)
    real = Scope(functions={"f": Definition("function", "f", x * sympy.cos(p), (x, p))})
    assert certain_form("f(x_m, m) \\cdot f(x_n, n)", real)


DOCUMENT = r"""Here the inner product is the real one:

$$
\langle u, v \rangle = \mathrm{Re}[u \overline{v}]
$$

We require

$$
\langle f_q(x_m, m), f_k(x_n, n) \rangle = g(x_m, x_n, m - n)
$$

Take

$$
f_q(x_m, m) = (W_q x_m) e^{i m \theta}
$$

$$
f_k(x_n, n) = (W_k x_n) e^{i n \theta}
$$

so that

$$
g(x_m, x_n, m - n) = \mathrm{Re}[(W_q x_m)(W_k x_n)^* e^{i(m + n)\theta}]
$$
"""


def test_the_step_read_through_is_refuted_where_the_gap_is_wrong() -> None:
    steps = {s.line: s for s in audit_document(DOCUMENT, timeout=TIMEOUT).steps}
    assert steps[26].status == "REFUTED" and "read through the requirement at line 10" in steps[26].reason


def test_without_the_convention_the_reading_decides_it() -> None:
    stated = "$$\n\\langle u, v \\rangle = \\mathrm{Re}[u \\overline{v}]\n$$"
    assert stated in DOCUMENT
    text = DOCUMENT.replace(stated, "nothing more.").replace("(m + n)", "(m - n)")
    last = audit_document(text, timeout=TIMEOUT).steps[-1]
    assert last.status == "UNDECIDED" and "read through the requirement" in last.reason
    assert "the reading decides it" in last.reason


@pytest.mark.parametrize(
    "change",
    [
        (  # g listed beside the functions of its display, its value not read: g has a value elsewhere
            "$$\nf_k(x_n, n) = (W_k x_n) e^{i n \\theta}\n$$",
            "$$\n\\begin{gather}\nf_k(x_n, n) = (W_k x_n) e^{i n \\theta} \\\\\n"
            "g(x_m, x_n, m - n) = \\mathrm{Re}[(W_q x_m)(W_k x_n)^* e^{i(m - n)\\theta}]\n\\end{gather}\n$$",
        ),
        ("$$\nf_q(x_m, m) = (W_q x_m) e^{i m \\theta}\n$$", "$$\nf_q(x_m, m) \\doteq (W_q x_m) e^{i m \\theta}\n$$"),
        (INNER + " = g", "f_q(x_m, m) \\cdot f_k(x_n, n) = g"),  # complex values: a product, or a dot product
        (  # g's value stated in inline math, as one of a solution's parts: g has a value elsewhere
            "so that",
            "with $g(x_m, x_n, m - n) = \\mathrm{Re}[(W_q x_m)(W_k x_n)^* e^{i(m - n)\\theta}]$, so that",
        ),
        (  # posed twice, the second time at the gap turned the other way
            "Take",
            "We require\n\n$$\n" + INNER + " = g(x_m, x_n, n - m)\n$$\n\nTake",
        ),
    ],
    ids=[
        "g listed as a definition",
        "f_q not read",
        "a product of complex values",
        "g stated inline",
        "posed twice differently",
    ],
)
def test_the_step_is_not_refuted_through_an_unsound_reading(change: tuple[str, str]) -> None:
    text = DOCUMENT.replace(*change)
    assert text != DOCUMENT
    last = audit_document(text, timeout=TIMEOUT).steps[-1]
    assert last.status != "REFUTED", last.reason


def test_a_requirement_posed_by_its_new_call_alone_is_read_through_too() -> None:
    text = DOCUMENT.replace("We require", "Consider")
    result = audit_document(text, timeout=TIMEOUT)
    assert [c.line for c in result.conditions] == [10] and "written here for the first time" in result.conditions[
        0
    ].reason
    assert result.steps[-1].status == "REFUTED" and "read through the requirement at line 10" in result.steps[-1].reason


def test_a_letter_that_labels_a_function_is_not_renamed() -> None:
    q, k = sympy.symbols("q k")
    posed = Requirement("g", "g(q, k, m - n)", r"\langle f_q(q, m), f_k(k, n) \rangle", 4, (q, k, m - n))
    assert read_through((Link("g(a, b, m - n)", 9), Link("c", 9)), [posed], Scope()) is None  # f_q would be f_a
    found = read_through((Link("g(q, k, a - b)", 9), Link("c", 9)), [posed], Scope())
    assert found is not None and found.sides is not None
    assert found.sides[0].text == r"\langle f_q(q, a), f_k(k, b) \rangle"


def test_nothing_is_read_through_a_requirement_the_definitions_do_not_meet() -> None:
    # f_k turned the other way: the inner product depends on m + n, so no g of the gap exists to be read
    text = DOCUMENT.replace("(W_k x_n) e^{i n \\theta}", "(W_k x_n) e^{-i n \\theta}")
    assert text != DOCUMENT
    last = audit_document(text, timeout=TIMEOUT).steps[-1]
    assert last.status == "UNDECIDED" and "not shown to stay the same with the positions moved" in last.reason
