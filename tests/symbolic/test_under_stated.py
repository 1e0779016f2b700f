"""Solving a relation the document stated, so that a step is decided under it (:mod:`.audit.under_stated`)."""

from __future__ import annotations

import sympy

from ropecheck.symbolic.audit.under_stated import solve_relation

alpha, beta, theta, r, phi, q0, q1 = sympy.symbols("alpha beta theta r phi q0 q1", real=True)
m = sympy.Symbol("m", integer=True)


def test_a_linear_relation_is_solved_for_the_first_name_it_is_linear_in() -> None:
    solved = solve_relation(beta - alpha - theta, [alpha, beta, theta])
    assert solved == {alpha: beta - theta}


def test_a_complex_relation_between_real_names_is_its_real_and_imaginary_parts() -> None:
    solved = solve_relation(q0 + sympy.I * q1 - r * sympy.exp(sympy.I * phi), [phi, q0, q1, r])
    assert solved == {q0: r * sympy.cos(phi), q1: r * sympy.sin(phi)}


def test_a_relation_not_linear_in_any_name_of_the_step_or_only_in_an_integer_is_not_used() -> None:
    assert solve_relation(sympy.cos(alpha) - theta**2, [alpha, theta]) is None
    assert solve_relation(m - 2 * theta, [m]) is None
    assert solve_relation(r * alpha - theta**2, [alpha, theta]) is None  # coefficient r may be 0


def test_a_complex_relation_with_a_name_not_known_real_is_not_split() -> None:
    z = sympy.Symbol("z")
    assert solve_relation(z - sympy.I * theta, [theta, z]) is None
