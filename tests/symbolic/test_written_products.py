"""Adjacent written-out matrices among general ones, multiplied out: equal products meet, nothing else moves."""

from __future__ import annotations

import sympy
from sympy import Symbol, cos, sin

from ropecheck.symbolic.audit.general import general_step
from ropecheck.symbolic.audit.written_products import merged_written
from ropecheck.symbolic.readers.general_matrices import general_name, written_symbol
from ropecheck.symbolic.readers.scope import Definition, Scope

_S, _T, _A, _B = (Symbol(n, real=True) for n in "stab")


def _turn(angle: sympy.Expr) -> sympy.Matrix:
    return sympy.Matrix([[cos(angle), -sin(angle)], [sin(angle), cos(angle)]])


def _difference(lhs: sympy.Expr, rhs: sympy.Expr) -> sympy.Expr:
    return sympy.expand((lhs - rhs).doit())


def _merged_to_zero(lhs: sympy.Expr, rhs: sympy.Expr) -> bool:
    merged = merged_written(_difference(lhs, rhs), {})
    return merged is not None and (merged[0] == 0 or getattr(merged[0], "is_ZeroMatrix", False))


x, y, a, b, c = (general_name(n) for n in ("x", "y", "A", "B", "C"))


def _w(angle: sympy.Expr) -> sympy.MatrixSymbol:
    return written_symbol(_turn(angle))


def test_a_turn_and_its_way_back_leave_the_general_factors_to_meet() -> None:
    assert _merged_to_zero(x.T * a.T * _w(_S).T * _w(_S) * b * y, x.T * a.T * b * y)


def test_runs_on_each_side_of_a_general_matrix_merge_each_on_its_own() -> None:
    lhs = x.T * a.T * _w(_S).T * _w(_T) * c * _w(_A).T * _w(_B) * y
    assert _merged_to_zero(lhs, x.T * a.T * _w(_T - _S) * c * _w(_B - _A) * y)
    # the merged turns on the wrong sides of the middle matrix
    assert not _merged_to_zero(lhs, x.T * a.T * _w(_B - _A) * c * _w(_T - _S) * y)


def test_a_number_is_its_own_transpose_so_either_reading_of_the_score_meets() -> None:
    lhs = x.T * a.T * _w(_S).T * _w(_T) * b * y
    assert _merged_to_zero(lhs, y.T * b.T * _w(_S - _T) * a * x)
    assert not _merged_to_zero(lhs, y.T * b.T * _w(_T - _S) * a * x)


def test_a_general_matrix_between_written_ones_is_never_moved_past_them() -> None:
    # T_s^T C T_s is not C, whatever the turns are
    assert not _merged_to_zero(x.T * _w(_S).T * c * _w(_S) * y, x.T * c * y)


def test_the_turns_in_the_wrong_order_or_the_weights_swapped_do_not_meet() -> None:
    assert not _merged_to_zero(x.T * a.T * _w(_T).T * _w(_S) * b * y, x.T * a.T * _w(_T - _S) * b * y)
    assert not _merged_to_zero(x.T * a.T * _w(_S).T * _w(_S) * b * y, x.T * b.T * a * y)


def test_blocks_of_different_sizes_are_not_multiplied() -> None:
    three = written_symbol(sympy.diag(1, _turn(_S)))
    difference = _difference(x.T * three * _w(_S) * y, x.T * y)
    merged = merged_written(difference, {})
    assert merged is None or merged[0] != 0


def test_a_difference_without_written_matrices_is_left_as_it_was() -> None:
    assert merged_written(_difference(x.T * a * y, x.T * b * y), {}) is None


_ROTATION = Definition(
    "pattern",
    "T",
    _turn(Symbol("s") * Symbol("phi")),
    (Symbol("s"),),
    r"T_s = \begin{pmatrix} \cos s\phi & -\sin s\phi \\ \sin s\phi & \cos s\phi \end{pmatrix}",
    body_source=r"\begin{pmatrix} \cos s\phi & -\sin s\phi \\ \sin s\phi & \cos s\phi \end{pmatrix}",
)


def _general(lhs: str, rhs: str) -> str | None:
    scope = Scope(patterns={"T": _ROTATION}, array_names=frozenset({"x", "y", "A", "B", "C"}))
    found = general_step(lhs, rhs, scope)
    return None if found is None else found.status


def test_the_general_reading_proves_merged_turns_and_says_so() -> None:
    scope = Scope(patterns={"T": _ROTATION}, array_names=frozenset({"x", "y", "A", "B", "C"}))
    found = general_step("x^T A^T T_s^T T_t C T_a^T T_b y", "x^T A^T T_{t-s} C T_{b-a} y", scope)
    assert found is not None and found.status == "PROVED"
    assert "adjacent written-out matrices multiplied out" in found.reason


def test_the_general_reading_never_refutes_what_does_not_merge() -> None:
    assert _general("x^T A^T T_s^T T_t B y", "x^T A T_{t-s} B y") == "UNDECIDED"
    assert _general("x^T A^T T_t^T T_s B y", "x^T A^T T_{t-s} B y") == "UNDECIDED"


def test_a_written_matrix_met_twice_in_a_row_is_multiplied_out() -> None:
    assert _merged_to_zero(x.T * a.T * _w(_S) * _w(_S) * b * y, x.T * a.T * _w(2 * _S) * b * y)
    assert not _merged_to_zero(x.T * a.T * _w(_S) * _w(_S) * b * y, x.T * a.T * _w(_S) * b * y)
