"""A decorated name whose right side is not read as a value, read in later steps as that side written out.

Shown on documents of ``tests/fixtures/audit/world/``: the rotated query and key written with a tilde over an
undefined column (PROVED, and REFUTED in the twin with the offset reversed), and a prime the document also uses
as a transpose, which stays unread.
"""

from __future__ import annotations

import re

import pytest
from worldaudit import TIMEOUT, audited

from ropecheck.symbolic.audit.primed_names import prime_read_otherwise
from ropecheck.symbolic.audit.run import audit_document
from ropecheck.symbolic.readers.decorated_values import alias_word, expand_use, expansion_alias
from ropecheck.symbolic.readers.decorations import apply_aliases, decorated_alias
from ropecheck.symbolic.readers.latex_text import Src
from ropecheck.symbolic.readers.scope import Scope


def verdicts(result) -> list[tuple[int, str]]:  # type: ignore[no-untyped-def]
    return [(s.line, s.status) for s in result.steps]


def test_a_tilde_over_an_unread_side_is_read_as_that_side_at_each_position() -> None:
    r = audited("decorated_rotated_pair.md")
    assert verdicts(r) == [(22, "PROVED"), (32, "PROVED")]
    assert "written out in brackets" in r.definitions[1].reason and "written out" in r.definitions[2].reason


def test_twin_the_offset_reversed_is_refuted() -> None:
    r = audited("decorated_rotated_pair_twin.md")
    assert verdicts(r) == [(22, "REFUTED"), (32, "UNDECIDED")]


def test_a_prime_the_document_also_uses_as_a_transpose_stays_unread() -> None:
    r = audited("decorated_prime_transposed.md")
    assert verdicts(r) == [(19, "UNREAD")] and "decoration" in r.steps[0].reason


def _alias(left: str, side: str) -> tuple[str, str]:
    found = decorated_alias(left)
    assert found is not None
    alias = expansion_alias(found, side)
    assert alias is not None
    return alias


def test_a_family_is_written_out_at_the_letter_its_use_writes() -> None:
    alias = _alias("\\tilde{q }_m", "R_{\\Theta,m} q_m")
    text = apply_aliases(Src.of("\\tilde{q}_n^T \\tilde{q}_{m} + \\tilde{q}_{n+1} + \\tilde q"), (alias,)).text
    assert "( R_{\\Theta,n} q_n ) ^T" in " ".join(text.split()) and "( R_{\\Theta,m} q_m )" in text
    assert "\\tilde{q}_{n+1}" in text and text.rstrip().endswith("\\tilde q")  # other spellings: left as written
    assert alias_word(alias[1]) == "qtilde"
    upright = _alias("\\tilde{q }_m", "\\mathrm{calR}_m q_m")  # an upright name without the letter in it
    assert "\\mathrm{calR}_n q_n" in apply_aliases(Src.of("\\tilde{q}_n"), (upright,)).text


def test_a_primed_name_without_a_subscript_is_written_out_only_without_one() -> None:
    pattern, name = _alias("b'", "b s^{2}")
    assert expand_use(name, re.search(pattern, "x b' y")) == " ( b s^{2} ) "  # type: ignore[arg-type]
    assert re.search(pattern, "b'_1") is None and re.search(pattern, "b''") is None


@pytest.mark.parametrize(
    "side",
    ["\\sum_{m} x_m", "\\int_0^m f", "\\text{the m-th} x", "a = b", "\\frac{h}{\\log m} \\in [0, 1]", "  "],
    ids=["sum", "integral", "word", "relation", "set", "empty"],
)
def test_a_side_with_a_bound_letter_or_a_relation_is_not_written_out(side: str) -> None:
    found = decorated_alias("\\tilde{x }_m")
    assert found is not None and expansion_alias(found, side) is None


def test_a_prime_is_read_otherwise_where_the_document_differentiates_or_transposes_the_letter() -> None:
    assert not prime_read_otherwise(["b' = b s^2", "\\frac{b}{b'}"], "bprime", Scope())
    assert prime_read_otherwise(["b' = b s^2", "\\frac{d f}{d x}"], "bprime", Scope())
    assert prime_read_otherwise(["q' = R q"], "qprime", Scope(matrix_names=frozenset({"q"})))
    assert prime_read_otherwise(["\\lambda' = 2", "\\lambda(x)"], "lambdaprime", Scope())


def test_a_name_written_before_its_definition_is_not_written_out() -> None:
    doc = "$$\\tilde{y} + 1 = 2$$\n\n$$\\tilde{y} = R v$$\n\n$$\\tilde{y} = R v$$\n"
    r = audit_document(doc, timeout=TIMEOUT)
    assert all(s.status in ("UNREAD", "UNDECIDED") for s in r.steps)
    assert not any("written out" in d.reason for d in r.definitions)
