"""Diagonal and block-diagonal matrices written as a list (``ropecheck.symbolic.readers.diag_lists``): read entry by
entry, numbers or square blocks of one size, never a mix; with dots, read as a pattern only where the entries fix
one (the audit of such documents is in ``tests/fixtures/audit/world/diag_*.md``)."""

from __future__ import annotations

import pytest
import sympy

from ropecheck.symbolic.readers.diag_lists import (
    DIAGONAL_BLOCK,
    DIAGONAL_SCALARS,
    diag_word_before,
    diagonal_call,
    write_diagonal_block,
)
from ropecheck.symbolic.readers.ellipsis import expand, find_patterns, layouts_for
from ropecheck.symbolic.readers.latex_syntax import read_latex_side
from ropecheck.symbolic.readers.scope import Scope

GENERAL = sympy.MatrixSymbol("M", sympy.Symbol("d"), sympy.Symbol("d"))

a, b = sympy.symbols("a b")
ROT = sympy.ImmutableMatrix([[sympy.cos(a), -sympy.sin(a)], [sympy.sin(a), sympy.cos(a)]])
BLOCKS = r"R_m = \mathrm{blockdiag}\big(R(m\theta_1), R(m\theta_2), \dots, R(m\theta_{d/2})\big)"


def test_numbers_give_the_diagonal_matrix_and_blocks_the_block_diagonal_one() -> None:
    assert diagonal_call("diag", [a, b]) == sympy.diag(a, b)
    assert diagonal_call("blockdiag", [ROT, ROT]) == sympy.diag(ROT, ROT)
    assert diagonal_call("diag", [ROT, ROT]).shape == (4, 4)


@pytest.mark.parametrize(
    "name, args",
    [
        ("diag", [ROT, a]),  # a block and a number
        ("diag", [sympy.ImmutableMatrix([a, b])]),  # a vector: its entries are not what the list holds
        ("diag", [ROT, sympy.eye(3)]),  # blocks of two sizes
        ("diag", []),
        (DIAGONAL_SCALARS, [ROT, ROT]),  # block j of matrices exists by pairs of neighbours only
        (DIAGONAL_BLOCK, [sympy.eye(3), a, b]),  # a 3x3 block is no block of a pair
        ("diag", [sympy.Symbol("B_{t,1}"), sympy.Symbol("B_{t,2}")]),  # named as matrices are, with no value
        (DIAGONAL_SCALARS, [sympy.Function("G")(a), b]),
        ("diag", [GENERAL.T * GENERAL, GENERAL]),  # general matrices (of any size): no written entries to place
        (DIAGONAL_BLOCK, [GENERAL.T * GENERAL, a, b]),
    ],
    ids=[
        "mixed",
        "vector",
        "two-sizes",
        "empty",
        "scalars-layout-with-blocks",
        "block-of-three",
        "capital-names",
        "capital-call",
        "general-product",
        "general-block",
    ],  # fmt: skip
)
def test_what_is_no_diagonal_is_refused(name: str, args: list[object]) -> None:
    with pytest.raises(ValueError):
        diagonal_call(name, args)


def test_block_j_is_the_entry_where_it_is_a_two_by_two_block_else_two_numbers() -> None:
    assert diagonal_call(DIAGONAL_BLOCK, [ROT, a, b]) == ROT
    assert diagonal_call(DIAGONAL_BLOCK, [a, a, b]) == sympy.diag(a, b)
    assert "diagpatternscalars" in write_diagonal_block("strided", ["x_j", "x_{j+4}"], "x_j")


def test_the_reader_reads_an_upright_diag_and_refuses_a_mix() -> None:
    for text in (r"\operatorname{diag}(a, b)", r"\text{diag}\left(a, b\right)"):
        assert str(read_latex_side(text, scope=Scope())) == str(sympy.diag(a, b))  # the reader's a is real
    # a capital's name with no value may be a block: not read as a number
    with pytest.raises(Exception, match="a block or a number"):
        read_latex_side(r"\text{diag}\left(B_{t, 1}^{(2)}, B_{t, 2}^{(2)}\right)", scope=Scope())
    assert str(read_latex_side(r"\text{diag}(\phi_1, \phi_2)", scope=Scope())) == "Matrix([[phi_{1}, 0], [0, phi_{2}]])"
    with pytest.raises(Exception, match="not all square matrices"):
        read_latex_side(r"\mathrm{diag}\left(\begin{pmatrix} a \\ b \end{pmatrix}, a\right)", scope=Scope())


def test_a_list_with_dots_is_a_diagonal_pattern_from_its_head() -> None:
    found, unread = find_patterns(BLOCKS)
    assert not unread and len(found) == 1
    f = found[0]
    assert f.kind == "diagonal" and f.block == 1 and BLOCKS[f.span[0] : f.span[1]].startswith(r"\mathrm{blockdiag}")
    assert str(f.segments[0].last) == "d/2 - 1"
    assert diag_word_before(BLOCKS, BLOCKS.index(r"\big(") + 4) == BLOCKS.index(r"\mathrm")
    written = expand(BLOCKS, found, size={sympy.Symbol("d"): 8})
    assert r"\operatorname{diag}\left(R(m\theta_{1}), R(m\theta_{2}), R(m\theta_{3}), R(m\theta_{4})\right)" in written
    assert "contiguous" in layouts_for(found)


@pytest.mark.parametrize(
    "text",
    [
        r"\operatorname{diag}(a_1, b_2, \dots, a_n)",  # two kinds of entry: no pattern
        r"\mathrm{blockdiag}(R(m\theta_1), R(m\theta_2), \dots)",  # no last entry: where it ends is not written
        r"g(R(m\theta_1), R(m\theta_2), \dots, R(m\theta_n))",  # not a diagonal: the arguments of g
    ],
    ids=["no-pattern", "open-ended", "other-function"],
)
def test_a_list_whose_entries_fix_no_pattern_is_not_read(text: str) -> None:
    found, unread = find_patterns(text)
    assert not found and unread
