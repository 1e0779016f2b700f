"""The matrix exponential of a written-out square matrix, computed and checked exactly (``readers/matrix_powers``)."""

from __future__ import annotations

import sympy

from ropecheck.symbolic.readers.matrix_powers import written_exponential

T = sympy.Symbol("t", real=True)


def test_the_turn_generator_exponentiates_to_the_turn() -> None:
    turn = sympy.Matrix([[sympy.cos(T), -sympy.sin(T)], [sympy.sin(T), sympy.cos(T)]])
    assert (written_exponential(sympy.Matrix([[0, -T], [T, 0]])) - turn).applyfunc(sympy.simplify).is_zero_matrix


def test_a_nilpotent_matrix_stops_after_its_powers() -> None:
    assert written_exponential(sympy.Matrix([[0, T], [0, 0]])) == sympy.Matrix([[1, T], [0, 1]])


def test_what_is_not_a_written_square_matrix_is_not_computed() -> None:
    assert written_exponential(sympy.Matrix([[T]])) is None  # a column of one entry may stand for any size
    assert written_exponential(sympy.Matrix([[T], [1]])) is None
    assert written_exponential(sympy.eye(5)) is None
    assert written_exponential(T) is None
