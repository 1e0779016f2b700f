"""New names a line introduces (decorated, glued, with a set after them), and ``\\approx`` read as rounding.

Each reading is shown on a document of ``tests/fixtures/audit/world/`` and on its twin, where the
verdict must differ: a line that introduces a name is a definition, not a step, while a line that
only looks like one stays a step; ``\\approx`` is PROVED within the digits written and never REFUTED;
a name given only with ``\\approx`` refutes a step only beyond every rounding.
"""

from __future__ import annotations

import pytest
from worldaudit import TIMEOUT, audited

from ropecheck.symbolic.audit.approx import within_digits
from ropecheck.symbolic.audit.names import decorated_head, glued_head, without_membership, without_set_labels
from ropecheck.symbolic.audit.reading import head as head_of
from ropecheck.symbolic.audit.reading import mentions
from ropecheck.symbolic.audit.run import audit_document
from ropecheck.symbolic.readers.decorations import apply_aliases, decorated_alias
from ropecheck.symbolic.readers.latex_text import Src
from ropecheck.symbolic.readers.scope import Scope


def verdicts(result) -> list[tuple[int, str]]:  # type: ignore[no-untyped-def]
    return [(s.line, s.status) for s in result.steps]


def test_decorated_names_a_word_and_a_set_after_a_name_are_definitions() -> None:
    r = audited("decorated_names.md")
    assert verdicts(r) == [(19, "PROVED"), (21, "PROVED")]
    heads = {d.line: d.head for d in r.definitions}
    # a tilde makes a new name, read as one in later steps; a calligraphic capital is a letter of its own, read
    assert heads[5] == "utilde_t" and heads[7] == "calP_t"
    assert [d.head for d in r.definitions if d.line == 11] == ["wprime", "gain"]
    assert "new name, written \\tilde" in next(d.reason for d in r.definitions if d.line == 5)
    (weights,) = [d for d in r.definitions if d.line == 15]  # the range after the comma is no step
    assert weights.read and str(weights.body) == "1 - j/h"


def test_twin_a_derivative_an_equation_about_a_name_and_slips_stay_steps() -> None:
    r = audited("decorated_names_twin.md")
    # \tilde{w} = 2\tilde{w} - \tilde{w}: a step, the name one of its own, true for every value of it
    assert verdicts(r) == [(8, "PROVED"), (12, "PROVED"), (20, "REFUTED"), (22, "REFUTED")]
    assert "first derivative of f" in r.steps[0].reason  # f' of a defined f called: its derivative, not a new name


def test_a_prime_defined_as_a_new_name_is_never_read_as_a_transpose() -> None:
    doc = (
        "$$q = \\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}$$\n\n$$q' = 2 q$$\n\n"
        "$$q' = \\begin{pmatrix} 2 & 4 \\end{pmatrix}$$\n"
    )
    r = audit_document(doc, timeout=TIMEOUT)
    assert r.steps == []  # the second q' = ... defines q' again (same form), not q transposed
    assert [d.head for d in r.definitions] == ["q", "qprime", "qprime"]
    doc = "$$q = \\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}, \\quad q' = 2 q$$\n\n$$q'_1 + 1 = 3$$\n"
    (s,) = audit_document(doc, timeout=TIMEOUT).steps
    assert s.status == "UNREAD" and "decoration" in s.reason


@pytest.mark.parametrize(
    ("tex", "plain"),
    [
        ("\\tilde{\\boldsymbol{q}}_m", "q_m"),
        ("\\lambda^{\\prime}_d", "\\lambda_d"),
        ("\\theta_i^{'}", "\\theta_i"),
        ("f'(x, m)", "f(x, m)"),
    ],
    ids=["tilde", "prime-command", "prime-braces", "primed-function"],
)
def test_decorated_heads(tex: str, plain: str) -> None:
    found = decorated_head(tex, Scope())
    assert found is not None and found[2].replace(" ", "") == plain.replace(" ", "")


def test_plain_names_are_not_decorated_and_a_primed_name_is_found_in_later_steps() -> None:
    assert decorated_head("q_m", Scope()) is None and decorated_head("x + y'", Scope()) is None
    assert decorated_head("\\boldsymbol{\\mathcal{R}}_n", Scope()) is None  # a letter of its own, not R_n
    mark, _, _ = decorated_head("q'", Scope())  # type: ignore[misc]
    assert mentions(mark, "q'_p \\cdot k'_p") and not mentions(mark, "q_p \\cdot k_p")
    assert without_membership("R_{\\Theta,m}^d \\in \\mathbb{R}^{d\\times d}") == "R_{\\Theta,m}^d"


def test_glued_names_are_definitions_by_cases_but_the_same_family_later_is_a_step() -> None:
    r = audited("glued_definitions.md")
    # the 2-vector is a family over its place and its label: at loc + s it is its body there
    assert verdicts(r) == [(15, "PROVED"), (19, "PROVED")]
    assert [d.line for d in r.definitions if "glued" in d.reason] == [7, 7]
    vector = next(d for d in r.definitions if d.line == 11)
    assert vector.kind == "pattern" and vector.params == ("loc", "j")
    assert vector.body.shape == (2, 1)  # a row break written \\[2pt] is still a row break
    assert glued_head("x_1", Scope()) is None


def test_twin_a_sign_slip_in_the_rotation_is_refuted_and_labels_are_not_powers() -> None:
    r = audited("glued_definitions_twin.md")
    assert verdicts(r) == [(5, "REFUTED"), (9, "UNDECIDED")]
    assert r.definitions[0].line == 3 and len(r.definitions) == 1


def test_approx_is_proved_within_the_digits_written() -> None:
    r = audited("approx_rounding.md")
    assert verdicts(r) == [(5, "PROVED"), (9, "PROVED"), (15, "UNDECIDED")]
    assert all(s.method == "rounded" and "rounding to the digits written" in s.reason for s in r.steps[:2])
    (s4,) = [d for d in r.definitions if d.line == 13]
    assert s4.read and "known to the digits written" in s4.reason


def test_twin_approx_is_never_refuted_but_a_name_given_with_it_refutes_beyond_rounding() -> None:
    r = audited("approx_rounding_twin.md")
    assert verdicts(r) == [(5, "UNDECIDED"), (7, "UNDECIDED"), (13, "REFUTED"), (19, "UNREAD")]
    assert "uses S_4" in next(d.reason for d in r.definitions if d.line == 17)  # k = S_4 v has no value
    refuted = r.steps[2]
    assert refuted.counterexample is not None and refuted.counterexample.entry == (1, 0)
    assert "whatever values round to the digits written" in refuted.reason


def test_within_digits_counts_each_number_by_its_own_digits() -> None:
    import sympy

    assert within_digits(sympy.sqrt(3) / 2, sympy.Float("0.866"), "0.866")[0] == "PROVED"  # type: ignore[index]
    assert within_digits(sympy.sqrt(3) / 2, sympy.Float("0.87"), "0.87")[0] == "PROVED"  # type: ignore[index]
    assert within_digits(sympy.sqrt(3) / 2, sympy.Float("0.867"), "0.867")[0] == "UNDECIDED"  # type: ignore[index]
    assert within_digits(sympy.Symbol("x"), sympy.Float("0.5"), "0.5") is None


@pytest.mark.parametrize(
    ("exact", "written", "verdict"),
    [
        ("sqrt(3)/2", "0.90", "UNDECIDED"),  # loose: a factor of 1.04
        ("1/10000", "0.0002", "UNDECIDED"),  # a factor of 2, but only a unit of the last digit away
        ("1/10000", "0.0003", "REFUTED"),  # a factor of 3, two units away
        ("1/10000", "0.0100", "REFUTED"),
        ("1/100", "0.0001", "REFUTED"),  # a factor of 100, smaller
        ("1/100", "0.0000", "UNDECIDED"),  # a written 0 is never off by a factor
        ("1/100", "0.0", "PROVED"),
        ("1/10", "0.00", "UNDECIDED"),
        ("-sqrt(3)/2", "0.87", "REFUTED"),  # the other sign
        ("0", "0.50", "REFUTED"),
    ],
)
def test_an_approximation_off_by_a_factor_beyond_two_or_the_sign_is_refuted(
    exact: str, written: str, verdict: str
) -> None:
    import sympy

    assert within_digits(sympy.sympify(exact), sympy.Float(written), written)[0] == verdict  # type: ignore[index]


def test_a_sequence_entry_used_before_the_sequence_is_defined_takes_its_value() -> None:
    doc = (
        "$$g = \\lambda_0 + 1$$\n\n$$\\lambda_j = 1 - \\frac{j}{h}$$\n\n"
        "$$g - 1 = \\lambda_0$$\n\n$$g = \\lambda_0 + 2$$\n"
    )
    r = audit_document(doc, timeout=TIMEOUT)
    assert verdicts(r) == [(5, "PROVED")]  # line 7 defines g again; line 5 is never refuted with lambda_0 free


def test_only_approx_gives_digits_and_a_taint_on_an_entry_spares_the_other_entries() -> None:
    doc = "$$x \\propto 0.5$$\n\n$$2 x = 1.1$$\n"
    (s,) = audit_document(doc, timeout=TIMEOUT).steps  # proportional to 0.5 is no value near 0.5
    assert s.status == "UNREAD" and "\\propto" in s.reason
    doc = (
        "$$R_2 = \\begin{pmatrix} 1 & 0 \\\\ 0 & 1 \\end{pmatrix}$$\n\n"
        "$$R_3 \\approx \\begin{pmatrix} 0.5 & 0 \\\\ 0 & 0.5 \\end{pmatrix}$$\n\n"
        "$$R_2 R_2 = R_2$$\n\n$$R_m R_2 = R_m$$\n"
    )
    steps = audit_document(doc, timeout=TIMEOUT).steps
    assert [(s.line, s.status) for s in steps] == [(5, "PROVED"), (7, "UNREAD")]  # R_m may be R_3


def _steps(doc: str) -> list[tuple[str, str]]:
    r = audit_document(doc, timeout=TIMEOUT)
    return [(s.rhs_tex.strip(), s.status) for s in r.steps]


def test_a_name_indexed_by_a_parameter_follows_the_argument() -> None:
    """``f(a, m) = a c_m`` called at 0 is ``a c_0``: the body's index moves with the parameter. Kept as ``c_m``, the
    true step was REFUTED (c_m = -1, c_0 = 1/2); the wrong index is still refuted, and an argument that cannot be
    written into an index leaves the step unread, never decided on the unmoved name. An expression (``m + 1``) is
    written into it as SymPy writes indices."""
    head = "$$\nf(a, m) = a c_{m}\n$$\n\n"
    assert _steps(head + "$$\nf(a, 0) = a c_{0}\n$$\n") == [("a c_{0}", "PROVED")]
    assert _steps(head + "$$\na c_n = f(a, n)\n$$\n") == [("f(a, n)", "PROVED")]
    assert _steps(head + "$$\nf(a, 0) = a c_{1}\n$$\n") == [("a c_{1}", "REFUTED")]
    # an argument that is an expression moves the index as well (c_{m} at m + 1 is c_{m + 1}); a slip is refuted
    assert _steps(head + "$$\nf(a, m + 1) = a c_{m+1}\n$$\n") == [("a c_{m+1}", "PROVED")]
    assert _steps(head + "$$\nf(a, m + 1) = 2 a c_{m+1}\n$$\n") == [("2 a c_{m+1}", "REFUTED")]


def test_decorated_names_a_document_defines_are_read_as_their_values() -> None:
    r = audited("decorated_names_read.md")
    assert verdicts(r) == [(15, "PROVED"), (17, "PROVED"), (19, "PROVED"), (23, "PROVED")]
    assert [d.head for d in r.definitions] == ["aprime", "muprime_j", "ytilde"]
    assert "written \\mu^{\\prime}_j" in r.definitions[1].reason


def test_twin_slips_with_decorated_names_are_refuted_and_other_spellings_stay_unread() -> None:
    r = audited("decorated_names_read_twin.md")
    assert verdicts(r) == [(15, "REFUTED"), (17, "REFUTED"), (21, "UNREAD"), (23, "UNREAD"), (27, "REFUTED")]
    assert "decoration" in r.steps[2].reason  # mu' without the subscript its family was defined with


@pytest.mark.parametrize(
    ("tex", "left"),
    [
        ("\\lambda'_d", "\\mathrm{lambdaprime}_d"),
        ("\\theta_i^{'}", "\\mathrm{thetaprime}_i"),
        ("\\tilde{k }", "\\mathrm{ktilde}"),
        ("b''", "\\mathrm{bprimeprime}"),
        ("q'_1", "\\mathrm{qprime}_1"),
        ("x'_{2j + 1}", "\\mathrm{xprime}_{2j+1}"),
        ("\\tilde{x}_{m+1}", None),
        ("x + y'", None),
    ],
    ids=[
        "prime-family",
        "prime-before-subscript",
        "tilde",
        "two-primes",
        "entry",
        "entry-compound",
        "compound",
        "not-a-name",
    ],
)
def test_decorated_alias(tex: str, left: str | None) -> None:
    found = decorated_alias(tex)
    assert (found[0] if found else None) == left


def test_aliases_rewrite_only_the_spelling_defined() -> None:
    _, family, name = decorated_alias("\\lambda'_d")  # type: ignore[misc]
    text = apply_aliases(Src.of("\\lambda'_{d+1} + \\lambda_d^{'} - \\lambda' + \\lambda_d"), ((family, name),)).text
    assert text.count("\\mathrm{lambdaprime}") == 2 and "\\lambda'" in text and "\\lambda_d" in text


def test_a_primed_entry_is_rewritten_only_where_written_with_its_subscript() -> None:
    _, entry, name = decorated_alias("x'_{2j+1}")  # type: ignore[misc]
    uses = "x'_{2j+1} + x'_{2 j + 1} + x_{2j+1}' - x'_{2j} - x' - x'_{2j+12}"
    text = apply_aliases(Src.of(uses), ((entry, name),)).text
    assert text.count("\\mathrm{xprime}") == 3 and "x'_{2j}" in text and "x'_{2j+12}" in text and "x' " in text


def test_primed_entries_are_read_side_by_side_and_another_entry_stays_unread() -> None:
    lines = ["x'_{1} = 2a", "x'_{2} = 3a", "x'_{1} + x'_{2} = 5a", "x'_{3} - a = a", "x'_{1} - a = 2a"]
    doc = "\n\n".join(f"$${line}$$" for line in lines) + "\n"
    r = audit_document(doc, timeout=TIMEOUT)
    assert verdicts(r) == [(5, "PROVED"), (7, "UNREAD"), (9, "REFUTED")]


def test_a_primed_length_closing_a_fraction_before_a_name_is_read() -> None:
    # the name the prime is read as, then the brace of the fraction: one name, never prose inside the formula
    prose = "The text runs at the length $L'$ and not $L$.\n\n"
    right = r"$$e^{i m \frac{L}{L'}\theta} = e^{i m \theta L / L'}$$"
    slip = r"$$e^{i m \frac{L'}{L}\theta} = e^{i m \theta L / L'}$$"
    r = audit_document(prose + right + "\n\n" + slip + "\n", timeout=TIMEOUT)
    assert verdicts(r) == [(3, "PROVED"), (5, "REFUTED")]


def test_a_decorated_name_defined_again_is_read_as_its_new_value() -> None:
    doc = "$$c' = 2a$$\n\n$$c' - a = a$$\n\n$$c' = 3a$$\n\n$$c' - a = 2a$$\n\n$$c' - a = a$$\n"
    r = audit_document(doc, timeout=TIMEOUT)
    assert verdicts(r) == [(3, "PROVED"), (7, "PROVED"), (9, "REFUTED")]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("e^{i\\Theta_{q}(x, m)} + \\Theta_k", False),  # the set's name with a subscript: names of their own
        ("R_{\\Theta,m} x", False),  # the set in a subscript labels R
        ("m\\Theta + 1", True),  # the set itself, as a value
        ("\\Theta ^{2}_{q}", True),  # a power first: not read as a name of its own
    ],
)
def test_without_set_labels(text: str, kept: bool) -> None:
    seen = without_set_labels("\\Theta", text)
    assert ("\\Theta" in seen) is kept


@pytest.mark.parametrize(
    ("text", "used"),
    [
        ("k_{\\text{turn}_0} + 1", True),  # the label at another index: the same name
        ("k_{\\mathrm{turn}_{d/2-1}}", True),
        ("k_{turn_j}", True),
        ("k_{\\text{turn}}(n)", True),  # the label without its index: maybe the whole, so taken as it too
        ("k_1 + k_{\\text{avg}}", False),  # the bare letter and another label are other names
        ("\\bar{k}_{\\text{complex}}", False),
        ("q_{\\text{turn}_0}", False),
    ],
)
def test_a_word_label_with_an_index_is_found_only_under_its_letter_and_word(text: str, used: bool) -> None:
    found = head_of("k_{\\text{turn}_j}", Scope())
    assert found is not None and mentions(found, text) is used
