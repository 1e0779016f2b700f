"""Every theorem's negative twin is REFUTED, and its counterexample is re-verified numerically.

The twins live in ``tests/fixtures/wrong_claims.py``. The re-verification is independent of
the decision procedure: the counterexample's values are substituted and both sides are
evaluated in floating point through ``lambdify`` (mpmath, 30 digits).
"""

from __future__ import annotations

from typing import Any

import mpmath
import pytest
import sympy

from fixtures.wrong_claims import WRONG
from ropecheck.symbolic import Verdict, decide


def numeric_value(expr: Any, values: dict[Any, Any]) -> complex:
    """Evaluate ``expr`` at ``values`` in floating point, independently of the decider."""
    ints = {k: v for k, v in values.items() if isinstance(k, sympy.Symbol) and k.is_integer}
    expr = sympy.sympify(expr).xreplace(ints)
    if expr.has(sympy.Sum):
        expr = expr.doit()
    rest = [k for k in values if k not in ints]
    dummies = [sympy.Dummy() for _ in rest]
    expr = expr.xreplace(dict(zip(rest, dummies)))
    assert not (expr.free_symbols - set(dummies)), f"unassigned symbols {expr.free_symbols - set(dummies)}"
    fn = sympy.lambdify(dummies, expr, "mpmath")
    with mpmath.workdps(30):
        return complex(fn(*[mpmath.mpf(float(sympy.N(values[k], 40))) for k in rest]))


@pytest.mark.parametrize("name,theorem,build", WRONG, ids=[w[0] for w in WRONG])
def test_negative_twin_refuted_with_verified_counterexample(name: str, theorem: int, build: Any) -> None:
    lhs, rhs = build()
    verdict, method, cex = decide(lhs, rhs)
    assert verdict == Verdict.REFUTED, f"{name} (theorem {theorem}): {verdict} by {method}"
    assert cex is not None and method == "counterexample"
    if cex.entry is not None:
        lhs, rhs = lhs[cex.entry], rhs[cex.entry]
    left, right = numeric_value(lhs, cex.values), numeric_value(rhs, cex.values)
    assert abs(left - right) > 1e-9, (
        f"{name}: counterexample does not separate the sides numerically ({left} vs {right})"
    )
    assert abs((left - right) - complex(sympy.N(cex.difference, 30))) < 1e-9 * max(1.0, abs(left - right))


def test_every_theorem_has_a_negative_twin() -> None:
    assert {t for _, t, _ in WRONG} == set(range(1, 9))


def test_intended_dynamic_ntk_refutation_verified() -> None:
    from ropecheck.proofs.context_extension import context_extension

    step = next(s for s in context_extension().steps if s.name == "dynamic_ntk_cross_length")
    assert step.verdict == Verdict.REFUTED and step.as_intended and step.counterexample is not None
    left, right = (
        numeric_value(step.lhs, step.counterexample.values),
        numeric_value(step.rhs, step.counterexample.values),
    )
    assert abs(left - right) > 1e-6
