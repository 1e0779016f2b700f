"""Theorem 7: which context-extension schedules keep the relative property, which break it.

Contains one *intended* refutation: dynamic NTK with the keys' angles cached at another
length than the query's breaks the relative property, and the counterexample is exact.
Run ``python proofs/context_extension.py``.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from sympy import Matrix, Rational, Symbol, log

from ropecheck.schedules import DynamicNTK
from ropecheck.spec import RopeSpec
from ropecheck.symbolic.decide import decide_step
from ropecheck.symbolic.proof import Proof, Verdict, timed
from ropecheck.symbolic.render import print_family
from ropecheck.symbolic.rope import dot, positions, real_symbols, rot

__all__ = [
    "NUMBER",
    "THEOREMS",
    "TITLE",
    "context_extension",
    "dynamic_ntk_theta",
    "spec_dynamic_check",
]

NUMBER = 7
TITLE = "Context-extension schedules: relative or not"


def dynamic_ntk_theta(i: int, length: int, *, r: int = 4, base: int = 10000, factor: int = 2, original: int = 4) -> Any:
    """Exact dynamic-NTK theta_i at current length L: (base (s L/L0 - (s-1))^{r/(r-2)})^{-2i/r}."""
    grow = Rational(factor * max(length, original), original) - (factor - 1)
    return (base * grow ** Rational(r, r - 2)) ** Rational(-2 * i, r)


@timed
def context_extension() -> Proof:
    """Which schedules keep the relative property, which break it, and YaRN's factor."""
    m, n = positions("m", "n")
    u, v = Matrix(real_symbols("u_0", "u_1")), Matrix(real_symbols("v_0", "v_1"))
    theta = Symbol("theta", positive=True)
    s, b, dd = (Symbol(x, positive=True) for x in ("s", "b", "d"))
    i = Symbol("i", integer=True, nonnegative=True)
    gamma, sigma, lam = Symbol("gamma", real=True), Symbol("sigma", real=True), Symbol("lambda", positive=True)
    schedules = {
        "linear": ("linear / position interpolation: theta_i / s", theta / s),
        "static_ntk": ("static NTK: (b s^{d/(d-2)})^{-2i/d}", (b * s ** (dd / (dd - 2))) ** (-2 * i / dd)),
        "yarn": ("YaRN: theta_i ((1 - gamma_i)/s + gamma_i), ramp gamma_i", theta * ((1 - gamma) / s + gamma)),
        "llama3": (
            "Llama 3: theta_i ((1 - sigma_i)/s + sigma_i) (sigma_i = 0, 1 or the smooth ramp)",
            theta * ((1 - sigma) / s + sigma),
        ),
        "longrope": ("LongRoPE, one factor set: theta_i / lambda_i", theta / lam),
        "dynamic_ntk_same_length": (
            "dynamic NTK, query and keys at the same length L: theta_i(L)",
            Symbol("theta_L", positive=True),
        ),
    }
    p = Proof(
        "context_extension",
        "context_extension",
        "Context extension: which schedules stay relative",
        "A schedule keeps the relative property exactly when every angle is linear in the position, "
        "phi_i(m) = m theta'_i with theta'_i independent of m. Linear/PI, static NTK, YaRN, Llama 3 and LongRoPE "
        "(within one factor set) do; dynamic NTK with keys cached at another length does not. YaRN's attention "
        "factor multiplies every score by the same constant.",
    )
    for key, (label, tp) in schedules.items():
        p.steps.append(
            decide_step(
                key,
                f"{label}: <R(m theta') u, R(n theta') v> = u^T R((n-m) theta') v.",
                dot(rot(m * tp) * u, rot(n * tp) * v),
                (u.T * rot((n - m) * tp) * v)[0, 0],
            )
        )
    tq, tk = dynamic_ntk_theta(1, 8), dynamic_ntk_theta(1, 4)
    tt = Symbol("t", integer=True)

    def cross(mq: Any, nk: Any) -> Any:
        return dot(rot(mq * tq) * u, rot(nk * tk) * v)

    p.steps.append(
        decide_step(
            "dynamic_ntk_cross_length",
            f"Dynamic NTK (r=4, base 10000, factor 2, L0 = 4): query at length 8 (theta_1 = {tq}), keys cached at "
            f"length 4 (theta_1 = {tk}). Claim: the score is unchanged by shifting both positions by t. "
            "Refuted: the score depends on more than n - m.",
            cross(m, n),
            cross(m + tt, n + tt),
            expect=Verdict.REFUTED,
        )
    )
    a = log(s) / 10 + 1
    p.steps.append(
        decide_step(
            "yarn_attention_factor",
            "YaRN multiplies cos and sin by a = 0.1 ln s + 1 for q and k: every score is scaled by a^2, the same "
            "constant at every (m, n).",
            dot(a * rot(m * theta) * u, a * rot(n * theta) * v),
            a**2 * (u.T * rot((n - m) * theta) * v)[0, 0],
        )
    )
    check = spec_dynamic_check(tq, tk)
    p.data["dynamic_ntk"] = {"theta_query": str(tq), "theta_key": str(tk), "spec_check": check}
    if not check["agrees"]:
        p.notes.append(
            "RopeSpec's DynamicNTK schedule gives other thetas than the exact ones used here (see the cross-check)."
        )
    return p


def spec_dynamic_check(tq: Any, tk: Any) -> dict[str, Any]:
    """Do the exact thetas above agree with RopeSpec's DynamicNTK schedule (fp64)? Reported, not asserted."""
    spec = RopeSpec(head_dim=4, base=10000.0, scaling=DynamicNTK(2.0, 4))
    got_q, got_k = float(spec.inv_freq(8)[1]), float(spec.inv_freq(4)[1])
    agrees = math.isclose(got_q, float(tq), rel_tol=1e-14) and math.isclose(got_k, float(tk), rel_tol=1e-14)
    return {"spec_theta_query": got_q, "spec_theta_key": got_k, "agrees": agrees}


THEOREMS = (context_extension,)


if __name__ == "__main__":
    sys.exit(print_family(THEOREMS))
