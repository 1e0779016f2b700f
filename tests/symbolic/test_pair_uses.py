"""A name the document identifies both as a 2-vector and as a complex number: each step takes the value its own uses
call for, said in the reason."""

from __future__ import annotations

import pytest
import sympy

from ropecheck.symbolic.audit.notation_doubts import called_and_bare
from ropecheck.symbolic.audit.pair_uses import pair_uses, scope_by_use
from ropecheck.symbolic.readers.scope import Definition, Scope

A, B = sympy.symbols("a b", real=True)
NUMBER = A + sympy.I * B
ROTATION = sympy.ImmutableMatrix([[sympy.cos(A), -sympy.sin(A)], [sympy.sin(A), sympy.cos(A)]])


def _scope() -> Scope:
    q = Definition("symbol", "q_{m}", sympy.ImmutableMatrix([A, B]), (), "q_m = [a \\\\ b]", 1)
    r = Definition("symbol", "R", ROTATION, (), "R = ...", 1)
    return Scope(symbols={"q_{m}": q, "R": r}, complex_sums="document", complex_pairs=(("q_{m}", NUMBER, 2),))


@pytest.mark.parametrize(
    ("text", "vector", "complex_"),
    [
        (r"R q_m", ["a matrix multiplies it"], []),
        (r"\begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix} q_{m}", ["a matrix multiplies it"], []),
        (r"R^T(m\theta) q_m", ["a matrix multiplies it"], []),
        (r"q_m^T k", ["it is transposed"], []),
        (r"\langle q_m, k \rangle", ["it sits inside an inner product"], []),
        (r"q_m e^{im\theta}", [], ["a phase e^{i...} multiplies it"]),
        (r"e^{i\phi} q_m", [], ["a phase e^{i...} multiplies it"]),
        (r"Re[q_m k^*]", [], ["it sits inside Re or Im"]),
        (r"\overline{q_m} k", [], ["it is conjugated"]),
        (r"k q_m^*", [], ["it is conjugated"]),
        (r"q_m^1 + i q_m^2", [], []),  # its entries, not the name
        (r"q_m + 1", [], []),
    ],
)
def test_each_use_of_the_name_is_a_vector_use_or_a_complex_one(text: str, vector: list, complex_: list) -> None:
    assert pair_uses(text, "q_{m}", _scope()) == (vector, complex_)


def test_a_name_beside_another_pair_is_not_multiplied_by_a_matrix() -> None:
    scope = _scope()
    k = Definition("symbol", "k", sympy.ImmutableMatrix([B, A]), (), "k = [b \\\\ a]", 1)
    scope = Scope(symbols={**scope.symbols, "k": k}, matrix_names=frozenset({"k"}), complex_pairs=scope.complex_pairs)
    assert pair_uses(r"Re[k q_m^*]", "q_{m}", scope) == ([], ["it is conjugated", "it sits inside Re or Im"])


def test_a_vector_use_keeps_the_column_and_drops_the_number_reading() -> None:
    read = scope_by_use(r"R q_m", r"[a \\ b]", _scope())
    assert read.scope.symbols["q_{m}"].body == sympy.ImmutableMatrix([A, B]) and not read.scope.complex_pairs
    assert "read as the column" in read.note and "(line 2)" in read.note


def test_a_complex_use_reads_the_number() -> None:
    read = scope_by_use(r"q_m e^{i\phi}", r"(a + i b)(\cos\phi + i \sin\phi)", _scope())
    assert read.scope.symbols["q_{m}"].body == NUMBER and read.scope.complex_pairs
    assert "read as the complex number" in read.note and "(line 2)" in read.note


def test_both_uses_in_one_step_write_the_number_where_it_is_complex() -> None:
    read = scope_by_use(r"q_m^T R q_m", r"Re[q_m^* q_m]", _scope())
    assert read.lhs == r"q_m^T R q_m" and read.rhs == r"Re[\varpi_{1}^* \varpi_{1}]"
    assert read.scope.symbols["varpi_{1}"].body == NUMBER and read.scope.symbols["q_{m}"].body.shape == (2, 1)
    assert "where it is transposed" in read.note and "where it is conjugated" in read.note


def test_a_step_with_no_such_name_is_left_as_it_is() -> None:
    scope = _scope()
    read = scope_by_use(r"a + b", r"b + a", scope)
    assert read.scope is scope and read.note == ""


def test_re_and_im_are_no_bare_use_of_a_function_r_or_i() -> None:
    assert called_and_bare(r"q^T R(a) k = \mathrm{Re}[q k^*]", ["R"]) is None
    assert called_and_bare(r"q^T R(a) k = Re[q k^*] + Im(q)", ["R", "I"]) is None
    assert called_and_bare(r"R(a) k = R k", ["R"]) == "R"  # written bare: still a doubt


def test_a_written_complex_number_beside_the_name_is_a_complex_use() -> None:
    scope = _scope()
    said = ["a complex number written with i multiplies it"]
    assert pair_uses(r"q_m (\cos x + i \sin x)", "q_{m}", scope) == ([], said)
    assert pair_uses(r"(a + i b) q_m", "q_{m}", scope) == ([], said)
    assert pair_uses(r"q_m (a + b)", "q_{m}", scope) == ([], [])


def test_one_use_both_a_vector_and_a_complex_one_is_read_as_the_number_throughout() -> None:
    read = scope_by_use(r"R q_m e^{i\phi}", r"q_m^T R", _scope())
    assert "varpi" not in read.lhs + read.rhs and read.scope.symbols["q_{m}"].body == NUMBER


def test_a_call_or_an_index_i_beside_the_name_is_no_complex_number() -> None:
    scope = _scope()
    assert pair_uses(r"R(i\theta) q_m", "q_{m}", scope) == (["a matrix multiplies it"], [])
    assert pair_uses(r"q_m (\theta_i + \theta_{i})", "q_{m}", scope) == ([], [])
