"""A bracket of two matrices read as their commutator where the document defines it so (``readers/commutators.py``),
and inline math after the "such that" of an existence statement read as a condition (``audit/wanted.py``)."""

from __future__ import annotations

import pytest

from ropecheck.symbolic.audit.wanted import existence_before
from ropecheck.symbolic.readers.commutators import commutators_written_out, defines_commutator
from ropecheck.symbolic.readers.latex_text import Src

MATRICES = frozenset({"A", "B", "W_{Q}", "q"})

WRITTEN = [
    ("[A , B ]^{T}", "((A)(B) - (B)(A))^{T}"),
    ("[-mB , nB ]", "((-mB)(nB) - (nB)(-mB))"),
    ("[W_{Q} , A ]", "((W_{Q})(A) - (A)(W_{Q}))"),
    # what stays as written: numbers, vectors, slices, sized brackets, three parts, one part
    ("[3, 4]^{T}", "[3, 4]^{T}"),
    ("[q , q ]", "[q , q ]"),
    ("q_{[2i:2i+1]}", "q_{[2i:2i+1]}"),
    (r"\left[A , B \right]", r"\left[A , B \right]"),
    ("[A , B , A ]", "[A , B , A ]"),
    ("[A ]", "[A ]"),
]


@pytest.mark.parametrize(("text", "expected"), WRITTEN, ids=[t for t, _ in WRITTEN])
def test_a_bracket_of_two_matrices_is_written_out_as_their_commutator(text: str, expected: str) -> None:
    assert commutators_written_out(Src.of(text), MATRICES).text == expected


def test_nested_brackets_open_innermost_first() -> None:
    assert commutators_written_out(Src.of("[A , [A , B ]]"), MATRICES).text == (
        "((A)(((A)(B) - (B)(A))) - (((A)(B) - (B)(A)))(A))"
    )


@pytest.mark.parametrize(
    ("text", "arrays", "defines"),
    [
        ("[A , B ] = A B  - B A ", frozenset("AB"), True),
        ("[A, B] := AB - BA", frozenset("AB"), True),
        ("[A, B] = BA - AB", frozenset("AB"), False),  # another sign: not the commutator as read
        ("[a, b] = ab - ba", frozenset(), False),  # numbers: a bracket of them is a column
        ("[A, B] = AB - BA + C", frozenset("ABC"), False),
    ],
)
def test_the_definition_is_the_commutator_of_two_matrices(text: str, arrays: frozenset[str], defines: bool) -> None:
    assert defines_commutator([text], arrays) is defines


@pytest.mark.parametrize(
    ("prose", "word"),
    [
        ("也就是说，存在可逆矩阵$P$，使得$", "存在"),
        ("存在正交矩阵$P$满足$", "存在"),
        ("there exists an invertible $Q$ such that $", "there exists"),
        ("There exist $P$ and $D$ such that $A = P D$ and $", "There exist"),
        # the inline math is the thing found, or a consequence, or no existence is stated
        ("存在$", ""),
        ("存在可逆矩阵$P$，使得$B$可以对角化，于是$", ""),
        ("there exists an invertible $Q$ such that $B = Q$, hence $", ""),
        ("存在如下关系：$", ""),
        ("Let $P$ be such that $", ""),
    ],
)
def test_inline_math_after_such_that_of_an_existence_statement_is_a_condition(prose: str, word: str) -> None:
    assert existence_before(prose) == word
