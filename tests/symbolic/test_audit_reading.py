"""How an audit reads a document: conjugated names, chains over several displays, quoted math, sets and
upright names, honest counts, and equalities stated in sentences.

The documents are the ``readings`` of ``tests/fixtures/audit/expected.json``: each lists the
steps the audit must find (line and verdict) and the definitions it must make.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
import sympy

from ropecheck.symbolic.audit.render import render_audit_markdown, render_audit_text
from ropecheck.symbolic.audit.run import audit_document
from ropecheck.symbolic.audit.steps import AuditResult

AUDIT = Path(__file__).resolve().parents[1] / "fixtures" / "audit"
READINGS = {k: v for k, v in json.loads((AUDIT / "expected.json").read_text())["readings"].items() if k != "about"}
TIMEOUT = 30.0


@functools.cache
def audited(name: str) -> AuditResult:
    return audit_document((AUDIT / name).read_text(), path=name, timeout=TIMEOUT)


def _steps(text: str, **kwargs: object) -> list[tuple[int, str]]:
    r = audit_document(text, timeout=TIMEOUT, **kwargs)  # type: ignore[arg-type]
    return [(s.line, s.status) for s in r.steps]


@pytest.mark.parametrize("name", sorted(READINGS))
def test_each_reading_document_gives_its_steps_and_definitions(name: str) -> None:
    r = audited(name)
    table = [(s.line, s.status, s.reason) for s in r.steps]
    assert [[s.line, s.status] for s in r.steps] == READINGS[name]["steps"], table
    assert [d.head for d in r.definitions] == READINGS[name]["definitions"]
    for s in r.steps:  # each refutation holds at its values, independently of its certificate
        if s.status == "REFUTED":
            cex = s.counterexample
            assert cex is not None and cex.entry is None
            diff = (s.lhs - s.rhs).xreplace(cex.values).doit().xreplace(cex.values)
            assert abs(complex(sympy.N(diff, 40))) > 1e-12
    json.dumps(r.to_dict())


# --------------------------------------------------------------------------- 1. conjugated names


def test_a_conjugated_name_is_complex_in_the_whole_document() -> None:
    r = audited("conjugation.md")
    assert r.inferred == {"q": "\\bar{q}", "k": "\\bar{k}"}
    assert r.declared == {}
    step = r.steps[2]
    assert {"symbol": "q", "domain": "complex", "source": "inferred from \\bar{q}"} in step.domains
    text = render_audit_text(r, verbose=True)
    assert "inferred from \\bar{q}" in text and "(declared)" not in text
    data = r.to_dict()
    assert data["inferred_domains"] == {
        "q": {"domain": "complex", "from": "\\bar{q}"},
        "k": {"domain": "complex", "from": "\\bar{k}"},
    }


def test_a_declaration_wins_over_a_conjugation() -> None:
    assert _steps("$$\\bar{z} = z$$") == [(1, "REFUTED")]
    assert _steps("$$z^* = z$$") == [(1, "UNDECIDED")]  # z^* alone may name an optimum: read both ways
    assert _steps("Here $\\bar{z} \\ne 0$.\n\n$$z^* = z$$") == [(3, "REFUTED")]  # conjugated with a bar too
    assert _steps("Let $z \\in \\mathbb{R}$.\n\n$$\\bar{z} = z$$") == [(3, "PROVED")]
    assert _steps("$$\\bar{z} = z$$", domains={"z": "real"}) == [(1, "PROVED")]
    # a conjugation in inline math counts too, and makes the name complex before it is written conjugated
    assert _steps("$$\\Re[z] = z$$\n\nwhere $\\bar z$ is its conjugate.") == [(1, "REFUTED")]


# --------------------------------------------------------------------------- 2. and 3. chains over displays, quotes


def test_a_chain_goes_on_in_the_next_display() -> None:
    r = audited("continued_blocks.md")
    second = r.steps[1]
    assert (second.lhs_tex, second.rhs_tex) == ("(a + b)(a + b)", "a^2 + 2ab + b^2")
    assert r.steps[-1].reason == "one side of the step is empty"


@pytest.mark.parametrize(
    "between,joined",
    [("\n\n", True), ("\nand\n", True), ("\nthen,\n", True), ("\n即\n", True), ("\nwhich gives\n", True),
     ("\n**Step 2**: regroup.\n", True), ("\nSince $a = a$:\n", True),
     ("\nA paragraph that says much more than a title: it runs on past a line, so the display after it, which "
      "starts with a relation, is not read as going on.\n", False),
     ("\n$x$\n", False), ("\n## Next\n", False)],
    ids=["blank", "and", "then", "ji", "which-gives", "a-title", "inline-fact", "a-paragraph", "inline-math",
         "heading"],
)  # fmt: skip
def test_only_a_short_connecting_word_joins_two_displays(between: str, joined: bool) -> None:
    # a display that opens with '=' also goes on across a short title or reason (inline math there states facts)
    doc = "$$a + a = 2a$$" + between + "$$= a \\cdot 2$$"
    assert _steps(doc)[-1][1] == ("PROVED" if joined else "UNREAD")


def test_a_display_that_ends_open_is_not_continued() -> None:
    assert _steps("$$a = a +$$\n\n$$= 2a$$")[-1][1] == "UNREAD"


def test_math_in_a_blockquote_is_read() -> None:
    assert _steps("> $$\n> a + a\n> = 2a\n> $$\n") == [(3, "PROVED")]
    assert _steps("> Let $z \\in \\mathbb{C}$.\n>\n> $$\\Re[z] = z$$\n") == [(3, "REFUTED")]


# --------------------------------------------------------------------------- 4. sets and upright names


def test_a_set_is_a_definition_and_its_member_defines_the_sequence() -> None:
    r = audited("sets_and_names.md")
    theta = r.definitions[0]
    assert theta.kind == "set" and not theta.read and "set" in theta.reason
    assert r.definitions[1].kind == "pattern"
    # a step that uses the set's name is not decided: the name is not a number
    (s,) = audit_document(r"$$\Theta = \{\theta_i = 2^{-i}, i = 1, 2\}$$ $$\Theta + 1 = 1 + \Theta$$").steps
    assert s.status == "UNREAD" and "\\Theta" in s.reason


def test_upright_and_set_subscripted_names_are_one_name() -> None:
    r = audited("sets_and_names.md")
    upright = r.steps[3]
    assert upright.lhs == 2 * sympy.Symbol("Attention", real=True)
    family = r.steps[2]
    assert sympy.Symbol("W_{\\{q,k\\}}", real=True) in family.rhs.free_symbols


# --------------------------------------------------------------------------- 5. honest counts


def test_a_document_with_nothing_to_decide_says_so() -> None:
    r = audited("nothing_to_decide.md")
    assert r.steps == [] and r.decided_fraction is None
    text = render_audit_text(r)
    assert "nothing to decide" in text and "100%" not in text and "inline" in text
    assert "nothing to decide" in render_audit_markdown(r)
    data = r.to_dict()
    assert data["decided_fraction"] is None and "nothing to decide" in data["nothing_to_decide"]
    only_inline = audit_document("A rotation by $m\\theta$ of $x$.", timeout=TIMEOUT)
    assert "nothing to decide" in render_audit_text(only_inline)


def test_unread_steps_are_counted_by_reason() -> None:
    r = audit_document("$$\\foo{x} = 1$$\n$$\\foo{y} = 2$$\n\n## No\n\n$$= 3$$\n$$a + 1 \\cong b$$", timeout=TIMEOUT)
    assert r.unread_by_reason() == {
        "unknown LaTeX command \\foo": 2,
        "one side of the step is empty": 1,
        "\\cong is not an equality": 1,
    }
    assert r.to_dict()["unread_by_reason"] == r.unread_by_reason()
    text = render_audit_text(r)
    assert "UNREAD by reason: 2 unknown LaTeX command \\foo; 1 " in text and "; 1 one side of the step is empty" in text


def test_definitions_are_not_counted_as_steps() -> None:
    r = audit_document("$$q = a + i b$$\n$$\\Re[q] = a$$", timeout=TIMEOUT)
    assert len(r.steps) == 1 and r.decided_fraction == 1.0
    assert "1 step: 1 PROVED" in render_audit_text(r) and "1 definition" in render_audit_text(r)


# --------------------------------------------------------------------------- 6. equalities in sentences


def test_an_equality_stated_in_a_sentence_is_decided_only_when_its_structure_is_plain() -> None:
    r = audited("sentences.md")
    assert [s.lhs_tex for s in r.steps] == ["\\cos^2 x + \\sin^2 x", "e^{i \\pi}", "(a + b)^2", "e^{i 0}"]
    assert _steps("Let $u$ equal $v$.") == []  # a supposition, not a claim
    assert _steps("$(a+b)^2$ equals $a^2 + b^2$ when $b = 0$.") == []  # a condition follows
    assert _steps("Thus $(a+b)^2$ equals $a^2 + 2ab + b^2$, as expected.") == []  # the sentence goes on
    assert _steps("Thus $x = 1$ equals $y$.") == []  # a side that is itself an equation


def test_block_entries_of_a_vector_written_with_dots() -> None:
    """Block j of an undefined vector is the two entries one apart that the written column's block holds, in order;
    entries of the halves layout (j, j + d/2), one entry, or entries in two block indices are no block of it."""
    from ropecheck.symbolic.audit.reading import _block_entries

    assert _block_entries("x", r"R x = \begin{pmatrix} -x_{2 j + 1} \\ x_{2 j} \end{pmatrix}") == ["2 j", "2 j + 1"]
    assert _block_entries("x", r"x_{2 l + 2} + x_{2 l + 1}") == ["2 l + 1", "2 l + 2"]
    assert _block_entries("x", r"x_{j} + x_{j + d/2}") == []
    assert _block_entries("x", r"x_{2 j} + x_{2 k + 1}") == []
    assert _block_entries("x", r"x_{2 j}") == []
