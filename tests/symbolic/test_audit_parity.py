"""A function defined by the parity of an argument (``PE(p, 2i)``, ``PE(p, 2i+1)``): two definitions, not steps,
read at a later call only where the argument's parity is certain."""

from __future__ import annotations

import pytest
import sympy
from worldaudit import TIMEOUT, audited

from ropecheck.errors import ClaimParseError
from ropecheck.symbolic.audit.parity_calls import (
    ParityHead,
    merged,
    parity_half_in_child,
    parity_head,
    parity_step_scope,
    parity_twin,
)
from ropecheck.symbolic.audit.run import audit_document
from ropecheck.symbolic.readers.scope import Scope

EVEN, ODD = r"\sin(p / 10000^{2i/d})", r"\cos(p / 10000^{2i/d})"


@pytest.mark.parametrize(
    ("tex", "found"),
    [
        ("PE(p, 2i)", ParityHead("PE", ("p", "i"), 1, "i", False)),
        (r"\text{PE}(m, 2i + 1)", ParityHead("PE", ("m", "i"), 1, "i", True)),
        ("PE(pos, 2t+1)", ParityHead("PE", ("pos", "t"), 1, "t", True)),
        ("PE(p+k, 2i)", None),  # an argument that is no name: a call, not a definition
        ("PE(p, i)", None),  # no parity written
        ("PE(p, 2i, 2j)", None),  # two parity arguments
        ("PE(i, 2i)", None),  # the letter is also a parameter
        (r"\sin(2i)", None),
        ("PE(p, 2i+2)", None),
    ],
    ids=["even", "odd-upright", "glued-param", "call", "no-parity", "two", "letter-twice", "sin", "not-odd"],
)
def test_what_a_left_side_defines_by_parity(tex: str, found: ParityHead | None) -> None:
    assert parity_head(tex) == found


def _both() -> Scope:
    even = parity_half_in_child(parity_head("PE(p, 2i)"), EVEN, Scope(), 3).definition  # type: ignore[arg-type]
    odd = parity_half_in_child(parity_head("PE(p, 2i+1)"), ODD, Scope(), 4).definition  # type: ignore[arg-type]
    assert even is not None and odd is not None
    both, note = merged(even, odd)
    assert both.given == (True, True) and "even half (line 3)" in note
    return Scope(functions={"PE": both})


def test_a_call_reads_the_half_its_arguments_parity_picks_and_no_other() -> None:
    d = _both().functions["PE"]
    p, k = sympy.symbols("p k", real=True)
    j = sympy.Symbol("j", integer=True)
    assert d.apply([p + k, 2 * j + 1]) == sympy.cos((p + k) / 10000 ** (2 * j / sympy.Symbol("d", real=True)))
    assert d.apply([p, sympy.Integer(4)]).func == sympy.sin  # 4 = 2 * 2: the even half at index 2
    for arg in (sympy.Symbol("j", real=True) * 2, j, 2 * j + sympy.Rational(1, 2)):  # parity not certain
        with pytest.raises(ClaimParseError, match="not certain"):
            d.apply([p, arg])


def test_a_half_given_again_replaces_both_halves_until_the_other_is_given() -> None:
    scope = _both()
    again = parity_half_in_child(parity_head("PE(p, 2i)"), r"\sin(p)", Scope(), 9).definition
    assert again is not None
    now, note = merged(scope.functions["PE"], again)
    assert now.given == (True, False) and "defined again" in note
    with pytest.raises(ClaimParseError, match="not defined at an odd argument"):
        now.apply([sympy.Symbol("p"), sympy.Integer(1)])


def test_a_step_reads_the_definitions_letter_as_an_integer_index_only() -> None:
    scope = _both()
    found = parity_step_scope(("PE(p + k, 2i)", r"\sin((p+k) 10000^{-2i/d})"), scope)
    assert found is not None and found[0].domains["i"] == "integer" and "integer index" in found[1]
    assert parity_step_scope(("PE(p, 2j)", "0"), scope) is None  # another letter: its parity is not known
    assert parity_step_scope(("PE(p, 2i)", r"e^{i p}"), scope) is None  # i also the unit in this step
    assert parity_step_scope(("PE(p, 2i)", "0"), Scope(functions=scope.functions, domains={"i": "real"})) is None


def test_the_halves_of_a_glued_name_are_twins() -> None:
    assert parity_twin("PE_{(pos,2i)}", "PE_{(pos, 2i+1)}") and parity_twin("p_{i,2t+1}", "p_{i,2t}")
    assert not parity_twin("PE_{(pos,2i)}", "PE_{(pos,2i)}") and not parity_twin("PE_{(pos,2i)}", "PE_{(q,2i+1)}")


def test_the_pair_is_listed_as_definitions_and_a_right_shift_is_proved() -> None:
    r = audited("parity_encoding.md")
    assert [(d.line, d.head) for d in r.definitions] == [(8, "PE(p, 2i)"), (9, "PE(p, 2i+1)")]
    assert [s.status for s in r.steps] == ["PROVED"] * 3
    assert "i read as an integer index" in r.steps[0].reason


def test_a_sign_slip_in_the_shift_is_refuted_at_an_integer_index() -> None:
    (s,) = [s for s in audited("parity_encoding_twin.md").steps if s.status == "REFUTED"]
    assert s.line == 20 and s.counterexample is not None
    (i,) = [x for x in s.counterexample.values if str(x) == "i"]
    assert i.is_integer  # the index of the definition, never a fraction


def test_a_name_in_use_before_is_no_new_name_and_a_restated_half_is_never_refuted() -> None:
    doc = "$PE(p)$ is the code.\n\n$$\nPE(p, 2i) = " + EVEN + r", \quad PE(p, 2i+1) = " + ODD + "\n$$\n"
    r = audit_document(doc, timeout=TIMEOUT)
    assert [s.line for s in r.steps] == [4, 4] and not r.definitions  # PE was written above: steps, as before
    restated = audited("parity_encoding_restated.md")
    by_line = {s.line: s for s in restated.steps}
    assert by_line[10].status == "UNDECIDED" and "not refuted" in by_line[10].reason
    assert by_line[16].status == "UNREAD" and "written again at line 10" in by_line[16].reason
