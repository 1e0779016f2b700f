"""Names a word gives a written column only as a case ("if $c = [...]^T$", "当 ... 时"): steps read with them free."""

from __future__ import annotations

import pytest
import sympy
from worldaudit import TIMEOUT, audited

from ropecheck.symbolic.audit.inline_conditions import case_outcome, cases_said, condition_taint, without_values
from ropecheck.symbolic.audit.reading import Head, Outcome
from ropecheck.symbolic.audit.run import audit_document
from ropecheck.symbolic.engine.proof import Counterexample
from ropecheck.symbolic.readers.scope import Definition, Scope

#: names given columns in conditions: by "当" at line 3, by "if" at line 9
CASES = [("a", "当", 3), ("b", "当", 3), ("c", "if", 9)]
#: the condition every document below opens with: c is a column only in it
CASE = "If $\\boldsymbol{c} = [1, 0, 1, 0, \\cdots]^{\\top}$, the weights are flat.\n\n"


def test_a_step_true_for_every_value_says_which_names_a_condition_gives() -> None:
    by_line = {s.line: s for s in audited("condition_case.md").steps}
    said = (
        "proved for every value of \\boldsymbol{s} and \\boldsymbol{t}, which line 3 gives values only in a condition"
    )
    assert by_line[7].status == "PROVED" and by_line[7].reason.startswith(said)
    assert "and of \\boldsymbol{r}, whose definition (line 23) uses \\boldsymbol{t}" in by_line[25].reason
    # f_n's value in a worked example (line 27) is no value once its definition (line 29) uses the condition's name
    assert (
        by_line[31].status == "PROVED" and "and of \\boldsymbol{f}_n, whose definition (line 29)" in by_line[31].reason
    )
    # s^T P t = t^T P s holds where s = t, as in the condition, and not for every s and t
    assert by_line[15].status == "UNDECIDED" and "the step may hold under the condition" in by_line[15].reason


@pytest.mark.parametrize(
    ("display", "says"),
    [
        # a written matrix that fixes the second entry: true under the condition, false at other columns
        ("\\begin{pmatrix} 1 & 0 \\\\ 0 & 2 \\end{pmatrix}\\boldsymbol{c} = \\boldsymbol{c}", "false at"),
        # holds with c a number; the condition gives c a column, which that reading does not cover
        (
            "e^{\\boldsymbol{g}\\cdot(\\boldsymbol{h} + \\boldsymbol{c})} = "
            "e^{\\boldsymbol{g}\\cdot\\boldsymbol{h}} e^{\\boldsymbol{g}\\cdot\\boldsymbol{c}}",
            "read as a number",
        ),
    ],
    ids=["refuted-elsewhere", "number-reading"],
)
def test_a_step_not_proved_for_every_value_is_undecided_never_refuted(display: str, says: str) -> None:
    (s,) = audit_document(CASE + f"$${display}$$\n", timeout=TIMEOUT).steps
    assert s.status == "UNDECIDED" and says in s.reason and s.counterexample is None
    assert "which line 1 gives a value only in a condition (posed by 'If')" in s.reason


def test_a_later_definition_of_the_name_is_in_force() -> None:
    column = "$$\\boldsymbol{c} = \\begin{pmatrix} 1 \\\\ 0 \\end{pmatrix}$$\n\n"
    doc = CASE + column + "$$\\boldsymbol{c}^{\\top}\\boldsymbol{c} = 2$$\n"
    (s,) = audit_document(doc, timeout=TIMEOUT).steps
    assert s.status == "REFUTED"


def test_a_name_in_a_condition_loses_a_value_given_before() -> None:
    given = {name: Definition("symbol", name, sympy.Integer(1)) for name in ("c", "d")}
    scope = without_values(Scope(symbols=given), [Head("symbol", "c")])
    assert list(scope.symbols) == ["d"]


def test_the_reasons_name_each_condition_and_each_definition_through_one() -> None:
    column = "[1, 0, 1, 0, \\cdots]^T"
    said = cases_said([(name, condition_taint(word, line, column)) for name, word, line in CASES])
    assert said == (
        "a and b, which line 3 gives values only in a condition (posed by '当'); and of c, which line 9 gives a value "
        "only in a condition (posed by 'if')"
    )
    two = sympy.Integer(2)
    refuted = Outcome("REFUTED", counterexample=Counterexample({sympy.Symbol("c"): two}, two, two, two, "0"))
    o = case_outcome(refuted, "c")
    assert o is not None and o.status == "UNDECIDED" and "false at c = 2" in o.reason and o.counterexample is None
    proved = case_outcome(Outcome("PROVED"), "c", unsettled="read as a number")
    assert proved is not None and proved.status == "UNDECIDED" and "read as a number" in proved.reason
    assert case_outcome(Outcome("UNREAD"), "c") is None


def test_a_name_the_condition_draws_as_a_matrix_is_never_proved_as_a_vector() -> None:
    drawn = "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}"
    turned = "\\boldsymbol{w}^{\\top}\\boldsymbol{A}\\boldsymbol{w} = "
    turned += "\\boldsymbol{w}^{\\top}\\boldsymbol{A}^{\\top}\\boldsymbol{w}"
    doc = f"When $\\boldsymbol{{w}} = {drawn}$ the map is fixed.\n\n$${turned}$$\n"
    (s,) = audit_document(doc, timeout=TIMEOUT).steps  # w^T A w is 1 x 1 only where w is a vector
    assert s.status == "UNDECIDED"
    product = "(\\boldsymbol{A}\\boldsymbol{W})^{\\top} = \\boldsymbol{W}^{\\top}\\boldsymbol{A}^{\\top}"
    (s,) = audit_document(doc.replace("w", "W").replace(turned.replace("w", "W"), product), timeout=TIMEOUT).steps
    assert s.status == "PROVED" and "proved for every value of \\boldsymbol{W}" in s.reason


def test_a_bold_name_after_a_one_character_subscript_is_a_factor_of_its_own() -> None:
    from ropecheck.symbolic.readers.latex_syntax import normalize_latex

    assert normalize_latex(r"\boldsymbol{P}_n\boldsymbol{t} + x_\mathbf{q}").split() == ["P", "_n", "t", "+", "x_q"]
    # glued into the subscript (P_nt), t went unseen: read as a number free of the condition, the step was REFUTED
    condition = "当 $\\boldsymbol{t} = [1, 0]^{\\top}$ 时，\n\n"
    doc = condition + "$$\n\\boldsymbol{P}_n\\boldsymbol{t} = \\boldsymbol{P}_n\\boldsymbol{t}^2\n$$\n"
    (s,) = audit_document(doc, timeout=TIMEOUT).steps
    assert s.status == "UNDECIDED" and "only in a condition" in s.reason


#: a case posed in its own section, then a step that holds under it and not for every column
_ENDED = (
    "## A case\n\nWhen $\\boldsymbol{c} = [1, 0, 1, 0, \\cdots]^{\\top}$ the even slots carry the shift.\n\n{between}"
    "The turn that fixes the first entry and doubles the second is said to leave the shift alone:\n\n"
    "$$\n\\begin{pmatrix} 1 & 0 \\\\ 0 & 2 \\end{pmatrix}\\boldsymbol{c} = \\boldsymbol{c}\n$$\n"
)


@pytest.mark.parametrize(
    ("between", "status"),
    [
        ("## In general\n\nThe shift is learned; nothing fixes it.\n\n", "REFUTED"),  # the case has ended
        ("```\n# a comment in code, no heading\nx = 1\n```\n\n", "UNDECIDED"),  # still the case's section
        ("", "UNDECIDED"),
    ],
)
def test_a_condition_ends_with_its_section(between: str, status: str) -> None:
    steps = audit_document(_ENDED.replace("{between}", between), latex=False, timeout=TIMEOUT).steps
    assert [s.status for s in steps] == [status]
