"""A new name introduced by giving an old one in terms of it: "let $d = 2k$", d a size the steps above use.

k is d/2 up to the end of the section and d stays free; a number, one name, a name with a domain of its own or
a name the section already uses is a value given in passing, as before. Shown on a document where the old
reading left a definition with d unread, beside one where the same notation carries a real error.
"""

from __future__ import annotations

import pytest
import sympy
from worldaudit import TIMEOUT

from ropecheck.symbolic.audit.document import math_blocks
from ropecheck.symbolic.audit.introduced_names import introduced_value, introduces, section_extent, uses_free
from ropecheck.symbolic.audit.run import audit_document
from ropecheck.symbolic.readers.scope import Definition, Scope

D, K, N = sympy.Symbol("d", real=True), sympy.Symbol("k", real=True), sympy.Symbol("n", real=True)


@pytest.mark.parametrize(
    ("body", "scope", "expected"),
    [
        (2 * K, Scope(), ("k", D / 2)),
        (2 * K + 1, Scope(), ("k", (D - 1) / 2)),
        (sympy.Integer(64), Scope(), None),
        (N, Scope(), None),
        (K**2, Scope(), None),
        (2 * K * N, Scope(), None),
        (2 * sympy.Symbol("k", integer=True), Scope(), None),
        (2 * K, Scope(domains={"k": "integer"}), None),
        (2 * K, Scope(symbols={"k": Definition("symbol", "k", sympy.Integer(3))}), None),
    ],
    ids=["half", "odd", "number", "one-name", "square", "two-names", "integer", "domain", "defined"],
)
def test_only_a_linear_expression_in_one_new_plain_real_name_introduces_it(
    body: sympy.Expr, scope: Scope, expected: tuple[str, sympy.Expr] | None
) -> None:
    assert introduced_value(D, body, scope) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("Let $d = 2k$.", True), ("设 $d = 2k$，则", True), ("令$d = 2k$", True), ("假设 $d = 2k$", False),
     ("When $d = 2k$,", False), ("Here $d = 2k$.", False)],
)  # fmt: skip
def test_the_word_before_the_math_must_introduce(text: str, expected: bool) -> None:
    blocks, _ = math_blocks(text)
    assert introduces(text, blocks, 0) is expected


def test_a_use_before_in_the_section_or_a_bold_or_subscripted_use_after_keeps_the_old_reading() -> None:
    levels = [(1, 2), (5, 2), (9, 2)]
    assert section_extent("k", [(2, "(-1)^k"), (6, "d = 2k"), (7, "v_{k-1}")], 1, levels) == 9
    assert section_extent("k", [(6, "(-1)^k"), (7, "d = 2k")], 1, levels) == -1
    assert section_extent("k", [(6, "d = 2k"), (7, r"\boldsymbol{k}")], 0, levels) == -1
    assert section_extent("k", [(6, "d = 2k"), (7, r"q^T k_n")], 0, levels) == -1
    assert not uses_free("k", r"\sum_{k=0}^{3} k") and not uses_free("k", "k _n") and uses_free("k", "2^{k}")


def _statuses(text: str) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for s in audit_document(text, timeout=TIMEOUT).steps:
        out.setdefault(s.line, []).append(s.status)
    return out


_SIZE = """# Pairs

A head has $d$ entries, with angles

$$\\theta_j = 10000^{-2j/d}$$

$$\\theta_{d/2} = 10000^{-1}$$

{sentence} $d = {value}$.

$$\\theta_{{k-1}} = 10000^{{-(d-2)/d}}$$
"""


@pytest.mark.parametrize(
    ("sentence", "value", "expected"),
    [("Let", "2k", "PROVED"), ("Let", "64", "UNDECIDED"), ("When", "2k", "UNDECIDED")],
)
def test_let_introduces_the_new_name_and_a_number_is_still_a_value(sentence: str, value: str, expected: str) -> None:
    text = _SIZE.replace("{sentence}", sentence).replace("{value}", value).replace("{{", "{").replace("}}", "}")
    assert _statuses(text)[11] == [expected]
