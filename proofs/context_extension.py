"""Theorem 7: which context-extension schedules keep the relative property, built from the spec's schedules.

Every schedule :class:`ropecheck.RopeSpec` knows (``ropecheck.schedules.ROPE_TYPES``) is taken
from the spec itself: its theta_i at the current length L is the exact expression of
:func:`ropecheck.symbolic.engine.schedules.theta_expression`, which agrees with the spec's fp64
values (checked, and recorded beside the proof). The relative property holds for any angle
m theta' with theta' independent of the positions (one block, symbolic theta'); each
schedule's theta_i(L) involves the pair and the length only, never m or n, so it keeps the
property whenever the query and the keys use the same L. A schedule whose frequencies depend
on L (dynamic NTK, LongRoPE across its threshold) breaks it when keys are cached at another
length than the query's: that refutation is intended, with an exact counterexample.

Run ``python proofs/context_extension.py``.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from sympy import Matrix, Symbol, latex, log

from ropecheck.schedules import ROPE_TYPES, DynamicNTK, Linear, Llama3, LongRoPE, Proportional, StaticNTK, YaRN
from ropecheck.spec import RopeSpec
from ropecheck.symbolic.engine.decide import decide_step
from ropecheck.symbolic.engine.proof import Proof, Verdict, timed
from ropecheck.symbolic.engine.rope import dot, positions, real_symbols, rot
from ropecheck.symbolic.engine.schedules import agreement, theta_expression
from ropecheck.symbolic.pages.mathlines import aligned_latex
from ropecheck.symbolic.pages.render import print_family

__all__ = [
    "EXAMPLES",
    "NUMBER",
    "THEOREMS",
    "TITLE",
    "context_extension",
    "dynamic_ntk_theta",
    "spec_dynamic_check",
]

NUMBER = 7
TITLE = "Context-extension schedules: relative or not"

#: One spec per schedule, as a model config would give it (a test checks every schedule has one).
EXAMPLES: dict[str, RopeSpec] = {
    "default": RopeSpec(head_dim=8),
    "linear": RopeSpec(head_dim=8, scaling=Linear(4.0)),
    "static-ntk": RopeSpec(head_dim=8, scaling=StaticNTK(4.0)),
    "dynamic": RopeSpec(head_dim=4, scaling=DynamicNTK(2.0, 4)),
    "yarn": RopeSpec(head_dim=64, scaling=YaRN(4.0, 4096)),
    "llama3": RopeSpec(head_dim=128, base=500000.0, scaling=Llama3(8.0, 1.0, 4.0, 8192)),
    "longrope": RopeSpec(head_dim=4, scaling=LongRoPE((1.0, 2.0), (4.0, 8.0), 4), max_position_embeddings=16),
    # Gemma 4's global layers: 6 of 8 pairs turn (theta_4 below is one of them); pairs 6 and 7 turn by 0
    "proportional": RopeSpec(head_dim=16, base=1e6, scaling=Proportional(1.0, 0.75)),
}

#: For the length-dependent schedules: (query length, key length) on either side of where theta changes.
_CROSS = {"dynamic": (8, 4), "longrope": (8, 4)}


def dynamic_ntk_theta(i: int, length: int) -> Any:
    """Exact dynamic-NTK theta_i of ``EXAMPLES["dynamic"]`` at length L (r = 4, base 10000, factor 2, L0 = 4)."""
    return theta_expression(EXAMPLES["dynamic"], i, length)


@timed
def context_extension() -> Proof:
    """Which schedules keep the relative property, which break it, and YaRN's factor -- from the spec's schedules."""
    m, n = positions("m", "n")
    u, v = Matrix(real_symbols("u_0", "u_1")), Matrix(real_symbols("v_0", "v_1"))
    theta = Symbol("theta_*", real=True)  # printed θ_*: any angle free of the positions
    length = Symbol("L", integer=True, positive=True)
    p = Proof(
        "context_extension",
        "context_extension",
        "Context extension: which schedules stay relative",
        r"A schedule keeps the relative property if every angle is linear in the position, "
        r"$\varphi_i(m) = m\,\theta'_i$ with $\theta'_i$ independent of $m$ (the sufficient condition proved here; "
        r"it is not claimed to be necessary: affine angles $m\,\theta'_i + c_i$ keep the property too). "
        r"Every schedule of `RopeSpec` -- default, "
        r"linear/PI, static NTK, dynamic NTK and LongRoPE at one length, YaRN, Llama 3, proportional -- gives such "
        r"$\theta'_i(L)$ (proportional RoPE's pairs that do not turn have $\theta'_i = 0$); dynamic NTK and "
        r"LongRoPE with keys cached at another length than the query's do not. "
        r"YaRN's attention factor multiplies every score by the same constant.",
        formula="\n".join(
            [
                r"\left\langle R(m\theta'_i(L))\,u,\ R(n\theta'_i(L))\,v \right\rangle",
                r"= u^{\top} R\big((n-m)\theta'_i(L)\big)\, v",
                r"\text{for every schedule, at one length } L",
                r"\text{(not for keys cached at } L' \ne L)",
            ]
        ),
        assumptions=[
            "\\theta'_i(L) \\text{ the schedule's frequency at length } L \\text{ (from RopeSpec)}",
            "u, v \\in \\mathbb{R}^2,\\ m, n, t \\in \\mathbb{Z}",
        ],
        scope="every pair, so every d",
        every_d=True,
    )
    p.steps.append(
        decide_step(
            "any_position_free_theta",
            r"For any angle $\theta_*$ that does not involve the positions: "
            r"$\langle R(m\theta_*)\,u, R(n\theta_*)\,v \rangle = u^{\top} R((n-m)\theta_*)\,v$ "
            r"(one block; the block-diagonal sum is theorem 2).",
            dot(rot(m * theta) * u, rot(n * theta) * v),
            (u.T * rot((n - m) * theta) * v)[0, 0],
        )
    )
    agreements: dict[str, float] = {}
    for rope_type in ROPE_TYPES:
        spec = EXAMPLES[rope_type]
        i = spec.half // 2  # a pair inside the schedule's interesting band
        th = theta_expression(spec, i, length)
        label = Symbol(rf"\theta_{{{i}}}(L)")  # printed as is: the schedule's frequency at length L
        agreements[rope_type] = agreement(spec, (None, 2, spec.max_position_embeddings or 4096, 1 << 16))
        p.steps.append(
            decide_step(
                f"{rope_type.replace('-', '_')}_same_length",
                rf"`{rope_type}` (`{spec.describe()}`): the spec gives "
                f"$${aligned_latex(label, '==', th)}$$ "
                "which involves the length $L$ but not the positions, so at one length the score depends on "
                "$n - m$ only.",
                dot(rot(m * th) * u, rot(n * th) * v),
                (u.T * rot((n - m) * th) * v)[0, 0],
                shown={th: label},
            )
        )
    tt = Symbol("t", integer=True)
    for rope_type, (lq, lk) in _CROSS.items():
        spec = EXAMPLES[rope_type]
        tq, tk = theta_expression(spec, 1, lq), theta_expression(spec, 1, lk)

        def cross(mq: Any, nk: Any, tq: Any = tq, tk: Any = tk) -> Any:
            return dot(rot(mq * tq) * u, rot(nk * tk) * v)

        name = "dynamic_ntk_cross_length" if rope_type == "dynamic" else f"{rope_type}_cross_length"
        p.steps.append(
            decide_step(
                name,
                rf"`{rope_type}` (`{spec.describe()}`): query at length {lq} ($\theta_1 = {latex(tq)}$), keys cached "
                rf"at length {lk} ($\theta_1 = {latex(tk)}$). Claim: the score is unchanged by shifting both "
                "positions by $t$. Refuted: the score depends on more than $n - m$.",
                cross(m, n),
                cross(m + tt, n + tt),
                expect=Verdict.REFUTED,
            )
        )
    s = Symbol("s", positive=True)
    a = log(s) / 10 + 1
    p.steps.append(
        decide_step(
            "yarn_attention_factor",
            r"YaRN multiplies $\cos$ and $\sin$ by $a = 0.1 \ln s + 1$ for $q$ and $k$: every score is scaled by "
            r"$a^2$, the same constant at every $(m, n)$.",
            dot(a * rot(m * theta) * u, a * rot(n * theta) * v),
            a**2 * (u.T * rot((n - m) * theta) * v)[0, 0],
        )
    )
    tq, tk = dynamic_ntk_theta(1, 8), dynamic_ntk_theta(1, 4)
    check = spec_dynamic_check(tq, tk)
    p.data["dynamic_ntk"] = {"theta_query": str(tq), "theta_key": str(tk), "spec_check": check}
    p.data["schedule_agreement"] = agreements
    worst = max(agreements.values())
    p.notes.append(
        rf"Each schedule's exact $\theta_i(L)$ agrees with the fp64 `inv_freq` of `RopeSpec` at every pair and the "
        f"lengths tried to a relative {worst:.1e} (rounding only)."
        if worst < 1e-12
        else rf"A schedule's exact $\theta_i(L)$ differs from the fp64 values of `RopeSpec` by {worst:.1e}: "
        "see the data."
    )
    return p


def spec_dynamic_check(tq: Any, tk: Any) -> dict[str, Any]:
    """Do the exact thetas above agree with RopeSpec's DynamicNTK schedule (fp64)? Reported, not asserted."""
    spec = EXAMPLES["dynamic"]
    got_q, got_k = float(spec.inv_freq(8)[1]), float(spec.inv_freq(4)[1])
    agrees = math.isclose(got_q, float(tq), rel_tol=1e-14) and math.isclose(got_k, float(tk), rel_tol=1e-14)
    return {"spec_theta_query": got_q, "spec_theta_key": got_k, "agrees": agrees}


THEOREMS = (context_extension,)


if __name__ == "__main__":
    sys.exit(print_family(THEOREMS))
