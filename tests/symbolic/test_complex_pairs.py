"""A column read as the complex number the document identifies it with, only while the name keeps that column."""

from __future__ import annotations

import sympy

from ropecheck.symbolic.audit.complex_pairs import paired_verdict, stated_pair
from ropecheck.symbolic.readers.scope import Definition, Scope

A, B, C, D = sympy.symbols("a b c d", real=True)  # as the reader reads a name with no domain
STEP = (r"u e^{i\phi}", r"(a + i\ b)(\cos\phi + i\ \sin\phi)")


def _scope(column: sympy.Matrix) -> Scope:
    u = Definition("symbol", "u", sympy.ImmutableMatrix(column), (), "u = [a \\\\ b]", 1)
    return Scope(symbols={"u": u}, complex_sums="document")


def test_a_pair_written_as_entry_plus_i_entry_is_stated_and_read_so() -> None:
    scope = _scope(sympy.Matrix([A, B]))
    value = stated_pair(scope, "u", r"a + i\ b")
    assert value is not None and sympy.expand(value - (A + sympy.I * B)) == 0
    assert stated_pair(scope, "u", r"b + i\ a") is None  # not the column's entries in order
    paired = Scope(symbols=scope.symbols, complex_sums="document", complex_pairs=(("u", value, 2),))
    verdict = paired_verdict(*STEP, paired)
    assert verdict is not None and verdict[0] == "PROVED" and "identifies the column" in verdict[2]


def test_a_name_defined_again_as_another_column_is_no_longer_that_number() -> None:
    scope = _scope(sympy.Matrix([C, D]))
    again = Scope(symbols=scope.symbols, complex_sums="document", complex_pairs=(("u", A + sympy.I * B, 2),))
    assert paired_verdict(*STEP, again) is None
