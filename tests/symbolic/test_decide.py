"""The sum rewrite, the concrete-d check on broken definitions, the benchmark's verdict, proof verdicts.

Each check here is shown failing on a deliberately broken input kept in this file: a false
peeling identity, RoPE matrices that are not rotations or not block-diagonal, a benchmark
run that never measured the naive side at d = 512, a proof with an undecided step.
"""

from __future__ import annotations

from typing import Any

import pytest
import sympy
from sympy import IndexedBase, Sum, Symbol

from ropecheck.proofs.long_term_decay import long_term_decay
from ropecheck.proofs.relative_position_general import concrete_d_check, relative_position_general
from ropecheck.symbolic import Verdict, decide, rope_entries

i = Symbol("i", integer=True, nonnegative=True)
j = Symbol("j", integer=True, nonnegative=True)
N = Symbol("N", integer=True, nonnegative=True)
M = Symbol("M", integer=True, nonnegative=True)
f = IndexedBase("f", real=True)

# (id, lhs, rhs, verdict): what the peel rewrite may and may not conclude
PEEL = [
    ("last-term", Sum(f[i], (i, 0, N)) - Sum(f[i], (i, 0, N - 1)), f[N], Verdict.PROVED),
    ("renamed-variable", Sum(f[i], (i, 0, N + 2)) - Sum(f[j], (j, 0, N)), f[N + 1] + f[N + 2], Verdict.PROVED),
    ("wrong-last-term", Sum(f[i], (i, 0, N)) - Sum(f[i], (i, 0, N - 1)), f[N - 1], Verdict.REFUTED),
    ("one-term-missing", Sum(f[i], (i, 0, N + 2)) - Sum(f[i], (i, 0, N)), f[N + 1], Verdict.REFUTED),
    ("unrelated-limits", Sum(f[i], (i, 0, N)) - Sum(f[i], (i, 0, M)), sympy.S.Zero, Verdict.REFUTED),
    ("different-lower-limit", Sum(f[i], (i, 1, N)), Sum(f[i], (i, 0, N)), Verdict.REFUTED),
]


g = IndexedBase("g", real=True)
#: summation by parts: what is left are the boundary terms, g_N T_N - g_0 T_0, never a sum
BY_PARTS = Sum(g[i] * (f[i + 1] - f[i]), (i, 0, N - 1)) + Sum(f[i + 1] * (g[i + 1] - g[i]), (i, 0, N - 1))


def test_telescope_leaves_the_boundary_terms_of_summation_by_parts() -> None:
    from ropecheck.symbolic.engine.decide import telescope

    assert sympy.expand(telescope(BY_PARTS) - (g[N] * f[N] - g[0] * f[0])) == 0
    # the sign slipped: the sums do not cancel, and no boundary term alone is claimed
    slipped = Sum(g[i] * (f[i + 1] - f[i]), (i, 0, N - 1)) - Sum(f[i + 1] * (g[i + 1] - g[i]), (i, 0, N - 1))
    assert telescope(slipped).has(Sum)
    got, _, cex = decide(BY_PARTS, g[N] * f[N] - g[0] * f[0] + g[0])
    assert got == Verdict.REFUTED and cex is not None


@pytest.mark.parametrize("lhs,rhs,verdict", [p[1:] for p in PEEL], ids=[p[0] for p in PEEL])
def test_peel_proves_only_true_identities(lhs: Any, rhs: Any, verdict: Verdict) -> None:
    got, method, cex = decide(lhs, rhs)
    assert got == verdict, (method, cex)
    if verdict == Verdict.PROVED:
        assert method == "peel"
    else:
        assert cex is not None
        left, right = (sympy.sympify(e).xreplace(cex.values).doit().xreplace(cex.values) for e in (lhs, rhs))
        assert abs(complex(sympy.N(left - right, 30))) > 1e-12


def test_general_d_proof_contains_the_regrouping_induction() -> None:
    steps = {s.name: s for s in relative_position_general().steps}
    assert steps["regroup_base"].method == "doit" and steps["regroup_step"].method == "peel"
    assert steps["regroup_step"].lhs.has(Sum) and steps["regroup_step"].rhs.has(Sum)


def test_decay_induction_is_decided_not_assumed() -> None:
    steps = {s.name: s for s in long_term_decay(small=(1,)).steps}
    assert steps["by_parts_step"].method == "peel" and steps["partial_sums_increment"].method == "peel"
    # the step states L(N+1) - L(N) = R(N+1) - R(N): both sides still hold sums, nothing was cancelled by hand
    assert steps["by_parts_step"].lhs.has(Sum) and steps["by_parts_step"].rhs.has(Sum)


# --------------------------------------------------------------------------- concrete d on broken definitions


def not_a_rotation(
    freqs: Any, m: Any, layout: str = "interleaved", *, evaluate: bool = True
) -> dict[tuple[int, int], Any]:
    """R(m theta) with the sign of one sine flipped in the last pair: a reflection-like block."""
    out = rope_entries(freqs, m, layout, evaluate=evaluate)
    a = 2 * (len(freqs) - 1)
    out[a, a + 1] = -out[a, a + 1]
    return out


def coupled_pairs(
    freqs: Any, m: Any, layout: str = "interleaved", *, evaluate: bool = True
) -> dict[tuple[int, int], Any]:
    """A stray entry couples pair 0 to pair 1: not block-diagonal in 2x2 blocks any more."""
    out = rope_entries(freqs, m, layout, evaluate=evaluate)
    out[0, 2] = sympy.sin(m * freqs[1])
    return out


def shifted_phase(
    freqs: Any, m: Any, layout: str = "interleaved", *, evaluate: bool = True
) -> dict[tuple[int, int], Any]:
    """Correct, but written as cos(m theta - pi/2) for the sine: outside the fast fragment."""
    out = rope_entries(freqs, m, layout, evaluate=evaluate)
    for r, c in list(out):
        if r != c:
            s = 1 if r > c else -1
            out[r, c] = s * sympy.cos(m * freqs[min(r, c) // 2] - sympy.pi / 2, evaluate=False)
    return out


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_concrete_d_builds_from_the_definition(layout: str) -> None:
    proof = concrete_d_check(12, layout=layout)
    assert proof.verdict == Verdict.PROVED and proof.steps[0].method == "blockwise(expand_trig, ZZ[...]) x 6"


@pytest.mark.parametrize("broken", [not_a_rotation, coupled_pairs], ids=["not-a-rotation", "coupled-pairs"])
def test_concrete_d_refutes_broken_matrices(broken: Any) -> None:
    proof = concrete_d_check(6, entries=broken)
    step = proof.steps[0]
    assert proof.verdict == Verdict.REFUTED and step.counterexample is not None, step.method
    cex = step.counterexample
    assert abs(complex(sympy.N(cex.lhs - cex.rhs, 30))) > 1e-9
    if broken is coupled_pairs:
        assert step.method.startswith("block [0, 1, 2, 3]")


def test_concrete_d_outside_the_fragment_uses_the_general_rewrites() -> None:
    proof = concrete_d_check(6, entries=shifted_phase)
    assert proof.verdict == Verdict.PROVED
    assert "(3 by the general rewrites)" in proof.steps[0].method


# --------------------------------------------------------------------------- the benchmark's verdict


def _benchmark() -> Any:
    from ropecheck.bench import proofs

    return proofs


def _data(**row512: Any) -> dict[str, Any]:
    row = {
        "d": 512,
        "blockwise_s": 0.3,
        "blockwise_proved": True,
        "naive_s": 9.0,
        "naive_proved": True,
        "speedup": 30.0,
    }
    row.update(row512)
    general = {"runs": 5, "median_s": 0.1, "max_s": 0.2, "verdicts": ["PROVED"], "target_s": 2.0}
    return {
        "python": "3",
        "sympy": "1",
        "machine": "x",
        "general_d": general,
        "naive_cap_s": 120.0,
        "concrete_d": [row],
    }


@pytest.mark.parametrize(
    "row,met",
    [
        ({}, True),
        ({"naive_s": None, "naive_proved": None, "speedup": None}, False),
        ({"speedup": 19.0}, False),
        ({"naive_proved": False}, False),
        ({"blockwise_proved": False}, False),
    ],
    ids=["measured-and-met", "naive-never-ran-at-512", "too-slow", "naive-not-proved", "blockwise-not-proved"],
)
def test_benchmark_targets_need_a_measurement(row: dict[str, Any], met: bool) -> None:
    bench = _benchmark()
    data = _data(**row)
    assert bench.targets_met(data) is met
    page = bench.render(data)
    assert ("meets the 20× target" in page) is met


def test_benchmark_general_d_over_two_seconds_fails() -> None:
    bench = _benchmark()
    data = _data()
    data["general_d"]["max_s"] = 2.5
    assert not bench.targets_met(data)


def test_spec_cross_check_reports_a_disagreement() -> None:
    from ropecheck.proofs.context_extension import spec_dynamic_check

    assert spec_dynamic_check(sympy.Rational(1, 300), sympy.Rational(1, 100))["agrees"]
    assert not spec_dynamic_check(sympy.Rational(1, 300), sympy.Rational(1, 99))["agrees"]


# --------------------------------------------------------------------------- verdicts of a whole proof


def _step(verdict: Verdict, expect: Verdict = Verdict.PROVED) -> Any:
    from ropecheck.symbolic import Step

    return Step("s", "a step", sympy.S.Zero, sympy.S.Zero, verdict, "none", None, expect)


@pytest.mark.parametrize(
    "steps,verdict,intended",
    [
        ([Verdict.PROVED, Verdict.PROVED], Verdict.PROVED, True),
        ([Verdict.PROVED, Verdict.UNDECIDED], Verdict.UNDECIDED, False),
        ([Verdict.UNDECIDED, Verdict.REFUTED], Verdict.REFUTED, False),
        ([], Verdict.UNDECIDED, False),
    ],
    ids=["all-proved", "one-undecided", "one-refuted", "no-steps"],
)
def test_undecided_is_never_proved(steps: list[Verdict], verdict: Verdict, intended: bool) -> None:
    from ropecheck.symbolic import Proof

    proof = Proof("p", "f", "t", "s", [_step(v) for v in steps])
    assert (proof.verdict, proof.as_intended) == (verdict, intended)


@pytest.mark.parametrize("got", [Verdict.PROVED, Verdict.UNDECIDED], ids=["proved", "undecided"])
def test_an_intended_refutation_that_is_not_refuted_spoils_the_proof(got: Verdict) -> None:
    from ropecheck.symbolic import Proof

    proof = Proof("p", "f", "t", "s", [_step(Verdict.PROVED), _step(got, expect=Verdict.REFUTED)])
    assert proof.verdict == Verdict.UNDECIDED and not proof.as_intended


def test_inequalities_are_proved_only_when_manifest_and_refuted_with_values() -> None:
    """``decide_le`` proves a slack it can show nonnegative by form, refutes a false bound with exact values."""
    import sympy

    from ropecheck.symbolic import decide_le, manifestly_nonnegative

    x, y = sympy.symbols("x y", real=True)
    assert decide_le(2 * x * y, x**2 + y**2)[0] == Verdict.PROVED  # (x - y)^2 >= 0, after factoring
    verdict, method, cex = decide_le(x**2 + y**2, 2 * x * y)  # the reverse: false
    assert verdict == Verdict.REFUTED and cex is not None and sympy.N(cex.difference) > 0
    u1, u2, v1, v2 = sympy.symbols("u_1 u_2 v_1 v_2", real=True)
    nu, nv = sympy.sqrt(u1**2 + u2**2), sympy.sqrt(v1**2 + v2**2)
    nuv = sympy.sqrt((u1 + v1) ** 2 + (u2 + v2) ** 2)
    assert decide_le(nu + nv, nuv)[0] == Verdict.REFUTED  # the triangle inequality the wrong way round
    i, n = sympy.Symbol("i", integer=True, nonnegative=True), sympy.Symbol("N", integer=True, nonnegative=True)
    s, d = sympy.IndexedBase("S"), sympy.IndexedBase("D", nonnegative=True)
    m = sympy.Symbol("M", nonnegative=True)
    wrong = sympy.Sum(sympy.Abs(s[i + 1]) * (m + d[i]), (i, 0, n - 1))  # "min" for "max": exceeds the bound
    assert decide_le(wrong, m * sympy.Sum(sympy.Abs(s[i + 1]), (i, 0, n - 1)))[0] == Verdict.REFUTED
    assert not manifestly_nonnegative(x) and not manifestly_nonnegative(x ** sympy.Rational(1, 2))
    assert manifestly_nonnegative(sympy.Abs(x) / sympy.sqrt(x**2 + 1))
