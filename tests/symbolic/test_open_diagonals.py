"""Open-ended block-diagonal matrices with their blocks written out: which drawings are read as blocks."""

from __future__ import annotations

from ropecheck.symbolic.audit.blocks import BlockStep, block_step, open_vector_definition, written_block
from ropecheck.symbolic.audit.open_diagonals import diagonal_name, open_block_diagonal

TURN = (
    r"\begin{pmatrix} \cos(t\omega_1) & -\sin(t\omega_1) & 0 & 0 & \cdots \\"
    r" \sin(t\omega_1) & \cos(t\omega_1) & 0 & 0 & \cdots \\"
    r" 0 & 0 & \cos(t\omega_2) & -\sin(t\omega_2) & \cdots \\"
    r" 0 & 0 & \sin(t\omega_2) & \cos(t\omega_2) & \cdots \\"
    r" \vdots & \vdots & \vdots & \vdots & \ddots \end{pmatrix}"
)


def test_the_blocks_shown_fix_block_j_and_where_the_blocks_start() -> None:
    block, start = open_block_diagonal(TURN)  # type: ignore[misc]
    assert start == 1
    assert block == (
        r"\begin{pmatrix} \cos(t\omega_{j}) & -\sin(t\omega_{j}) \\ \sin(t\omega_{j}) & \cos(t\omega_{j}) \end{pmatrix}"
    )


def test_blank_cells_are_zeros_and_short_rows_are_padded() -> None:
    blank = r"\begin{bmatrix} a_0 & & \\ & a_1 \\ & & \ddots \end{bmatrix}"
    assert open_block_diagonal(blank) == ("a_{j}", 0)


def test_drawings_that_fix_no_block_are_not_read() -> None:
    assert open_block_diagonal(TURN.replace(r"\omega_2", r"\omega_3")) is None  # moves by two
    assert open_block_diagonal(TURN.replace("0 & 0 & \\cos", "1 & 0 & \\cos", 1)) is None  # not zero off the blocks
    assert open_block_diagonal(TURN.replace(r"\ddots", r"\cos(t\omega_3)")) is None  # a last block: a size
    assert (
        open_block_diagonal(
            r"\begin{pmatrix} a^0 & 0 & \cdots \\ 0 & a^1 & \cdots \\ \vdots & \vdots & \ddots \end{pmatrix}"
        )
        is None
    )  # a power


def test_a_name_is_defined_only_over_a_subscript_its_blocks_use() -> None:
    assert diagonal_name(r"\mathbf{G}_{t}") == (r"\mathbf{G}", "t")
    assert open_vector_definition(r"\boldsymbol{\mathcal{G}}_t", TURN) is not None
    assert open_vector_definition(r"\boldsymbol{\mathcal{G}}_s", TURN) is None


def test_a_transpose_is_read_block_by_block_for_a_matrix_never_for_a_vector() -> None:
    g = open_vector_definition(r"\mathbf{G}_t", TURN)
    assert g is not None
    found = block_step(r"\mathbf{G}_s^{\top} \mathbf{G}_t", r"\mathbf{G}_{t-s}", {g.base: g}, "j")
    assert found is not None and found.left.count("^T") == 1
    column = r"\begin{bmatrix} u_0 \\ u_1 \\ \vdots \end{bmatrix}"
    assert block_step(column + r"^{\top} \mathbf{G}_t", r"\mathbf{G}_{t}", {g.base: g}, "j") is None


def test_a_step_is_written_at_a_block_the_text_writes_out() -> None:
    found = BlockStep(r"\cos(t\omega_j) x^{(j)}", r"y_{j}", "j", 1)
    assert written_block(found.left, found.right, found, 2) == (r"\cos(t\omega_{2}) x^{(2)}", "y_{2}")
