"""Vectors the document never writes out, sized by the written-out matrices they meet (``audit.sized_vectors``)."""

from __future__ import annotations

import sympy
from sympy import Symbol

from ropecheck.symbolic.audit.sized_vectors import sized_step
from ropecheck.symbolic.readers.general_matrices import general_name, written_symbol
from ropecheck.symbolic.readers.scope import Definition, Scope

QUARTER_TURN = sympy.Matrix([[0, -1], [1, 0]])


def test_a_vector_a_written_matrix_multiplies_is_sized_and_decided() -> None:
    u, t = general_name("u"), written_symbol(QUARTER_TURN)
    proved = sized_step((t * u).T * (t * u), u.T * u, Scope())
    assert proved is not None and proved.status == "PROVED" and "u a column of 2" in proved.reason
    refuted = sized_step(t * u, u, Scope())
    assert refuted is not None and refuted.status == "REFUTED" and refuted.counterexample is not None


def test_a_vector_whose_letter_names_other_things_refutes_nothing() -> None:
    u, t = general_name("u"), written_symbol(QUARTER_TURN)
    scope = Scope(symbols={"u_1": Definition("symbol", "u_1", Symbol("c"), ())})
    tied = sized_step(t * u, u, scope)
    assert tied is not None and tied.status == "UNDECIDED" and "u also names other things" in tied.reason


def test_no_size_without_a_written_matrix_and_no_general_matrix_sized() -> None:
    u, v, w = general_name("u"), general_name("v"), general_name("W")
    assert sized_step(u.T * v, v.T * u, Scope()) is None  # nothing fixes the size
    t = written_symbol(QUARTER_TURN)
    assert sized_step(t * w * u, w * t * u, Scope()) is None  # W may have any shape
