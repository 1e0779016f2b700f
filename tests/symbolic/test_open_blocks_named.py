"""Columns that repeat one pair, blocks named by a letter the next display defines, and columns given in a condition."""

from __future__ import annotations

import pytest

from ropecheck.symbolic.audit.blocks import block_step, open_vector_definition, periodic_column
from ropecheck.symbolic.audit.blocks_named_after import blocks_named_after
from ropecheck.symbolic.audit.document import math_blocks
from ropecheck.symbolic.audit.inline_conditions import conditional_column, inline_condition
from ropecheck.symbolic.readers.scope import Scope

PAIR = r"\begin{pmatrix} \sqrt{\mu} \\ 0 \end{pmatrix}"
TURN = (
    r"\begin{pmatrix} \cos(t\omega_0) & -\sin(t\omega_0) & 0 & 0 & \cdots \\"
    r" \sin(t\omega_0) & \cos(t\omega_0) & 0 & 0 & \cdots \\"
    r" 0 & 0 & \cos(t\omega_1) & -\sin(t\omega_1) & \cdots \\"
    r" 0 & 0 & \sin(t\omega_1) & \cos(t\omega_1) & \cdots \\"
    r" \vdots & \vdots & \vdots & \vdots & \ddots \end{pmatrix}"
)


@pytest.mark.parametrize(
    "column",
    [
        r"[\sqrt{\mu}, 0, \sqrt{\mu}, 0, \ldots]^{\top}",
        r"[\sqrt{\mu},0,\sqrt{\mu},0,\cdots,\sqrt{\mu},0]^T",
        r"\begin{bmatrix} \sqrt{\mu} \\ 0 \\ \sqrt{\mu} \\ 0 \\ \vdots \end{bmatrix}",
    ],
    ids=["open", "last-pair-after-dots", "bmatrix"],
)
def test_a_column_repeating_a_pair_has_that_pair_as_its_block_j(column: str) -> None:
    assert periodic_column(column) == PAIR


@pytest.mark.parametrize(
    "column",
    [
        r"[\sqrt{\mu}, 0, 0, \sqrt{\mu}, \ldots]^{\top}",  # the period broken
        r"[\sqrt{\mu}, 0, \ldots]^{\top}",  # the pair shown once: no period to see
        r"[\sqrt{\mu}, 0, \sqrt{\mu}, 0, \cdots, 0, \sqrt{\mu}]^{\top}",  # a last pair off the period
        r"[\sqrt{\mu}, 0, \sqrt{\mu}, 0, \sqrt{\mu}, \ldots]^{\top}",  # an odd number of entries before the dots
        r"[x_0, 0, x_0, 0, \ldots]^{\top}",  # a subscript: a number that may move
        r"[\sqrt{\mu}, 0, \sqrt{\mu}, 0]^{\top}",  # no dots: a column of four
    ],
    ids=["broken", "once", "last-off", "odd", "subscript", "no-dots"],
)
def test_a_column_off_the_period_is_not_read_as_repeating(column: str) -> None:
    assert periodic_column(column) is None


def test_a_repeating_column_meets_only_blocks_written_two_by_two() -> None:
    turn = open_vector_definition(r"\mathbf{G}_t", TURN)
    bias = open_vector_definition(r"\boldsymbol{c}", r"[\sqrt{\mu}, 0, \sqrt{\mu}, 0, \cdots]^{\top}")
    assert turn is not None and bias is not None and bias.periodic and bias.start is None
    known = {turn.base: turn, bias.base: bias}
    found = block_step(r"\mathbf{G}_0 \boldsymbol{c}", r"\boldsymbol{c}", known, "j")
    assert found is not None and found.start == 0 and PAIR in found.right
    scalars = r"\begin{bmatrix} \cos(t\phi_0) & & \\ & \cos(t\phi_1) & \\ & & \ddots \end{bmatrix}"
    phases = open_vector_definition(r"P_t", scalars)
    assert phases is not None
    # 1x1 phases beside a column of pairs would pair the wrong coordinates: not read block by block
    assert block_step(r"P_0 \boldsymbol{c}", r"\boldsymbol{c}", {phases.base: phases, bias.base: bias}, "j") is None


DRAWN = (
    "$$\\mathbf{T}_{\\Omega, t}^h = \\begin{pmatrix} \\mathbf{B}_1 & \\mathbf{0} & \\cdots & \\mathbf{0} \\\\ "
    "\\mathbf{0} & \\mathbf{B}_2 & \\cdots & \\mathbf{0} \\\\ \\vdots & \\vdots & \\ddots & \\vdots \\\\ "
    "\\mathbf{0} & \\mathbf{0} & \\cdots & \\mathbf{B}_{h/2} \\end{pmatrix}$$\n\n"
)
BLOCK = (
    "$$\\mathbf{B}_k = \\begin{pmatrix} \\cos t\\omega_k & -\\sin t\\omega_k \\\\ "
    "\\sin t\\omega_k & \\cos t\\omega_k \\end{pmatrix}$$\n"
)


def _early(text: str) -> int | None:
    blocks, lines = math_blocks(text, latex=False)
    at = next(k for k, b in enumerate(blocks) if b.kind == "display")
    return blocks_named_after(text, blocks, at, lines, Scope())


def test_blocks_named_in_a_drawing_are_read_from_the_display_after_it() -> None:
    assert _early(DRAWN + "where the block $\\mathbf{B}_k$ turns pair $k$:\n\n" + BLOCK) == 3  # inline math between
    assert _early(DRAWN + "where\n\n" + BLOCK) == 1


def test_blocks_are_read_early_only_where_the_text_says_what_they_are() -> None:
    assert _early(DRAWN + "Next we compute a product of two turns.\n\n" + BLOCK) is None  # the prose says nothing
    assert _early("Each $\\mathbf{B}_k$ is a turn.\n\n" + DRAWN + "where\n\n" + BLOCK) is None  # written before
    itself = BLOCK.replace("\\cos t\\omega_k & -", "\\mathbf{B}_1 \\cos t\\omega_k & -")
    assert _early(DRAWN + "where\n\n" + itself) is None  # the value uses the name
    constant = BLOCK.replace("\\omega_k", "\\omega")
    assert _early(DRAWN + "where\n\n" + constant) is None  # the value does not use its index


@pytest.mark.parametrize(
    ("prose", "word"),
    [
        ("可以证明，当$b=[1, 0, 1, 0, \\cdots]^T$时成立。", "当"),
        ("One can show that when $b=[1, 0, 1, 0, \\cdots]^T$ it holds.", "when"),
        ("Let $b=[1, 0, 1, 0, \\cdots]^T$ be the bias.", ""),
        ("The bias is fixed to $b=[1, 0, 1, 0, \\cdots]^T$ here.", ""),
    ],
    ids=["dang", "when", "let", "plain"],
)
def test_a_word_that_poses_a_case_makes_inline_math_a_condition(prose: str, word: str) -> None:
    blocks, _ = math_blocks(prose, latex=False)
    assert inline_condition(prose, blocks, 0) == word


def test_only_a_written_column_or_matrix_is_kept_from_being_a_definition() -> None:
    assert conditional_column(r"[\sqrt{\lambda}, 0, \cdots]^{\top}")
    assert conditional_column(r"\begin{pmatrix} 1 \\ 0 \end{pmatrix}")
    assert not conditional_column("n")
    assert not conditional_column(r"\frac{1}{2}")


def test_blocks_sharing_the_drawings_letter_are_read_in_order() -> None:
    drawn = DRAWN.replace("\\mathbf{T}_{\\Omega, t}^h", "\\mathbf{B}_{t}")
    assert _early(drawn + "where\n\n" + BLOCK) is None
