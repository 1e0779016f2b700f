"""The error model: what a careful RoPE implementation achieves in each format, by position.

The error model (derivation; u_X is the unit roundoff of format X, 2^-p for p significand
bits, gamma_k(u) = ku/(1-ku); A is the angle format, C the cos/sin cache format, R the
rotation format, D the output dtype):

1. Angle. A careful implementation stores theta_i in A (one rounding), converts m to A
   (exact while |m| < 2^p_A, one rounding after) and forms fl(m * theta):
   theta_hat * m_hat * (1+d3) = m theta (1+d1)(1+d2)(1+d3), so
   |dphi| <= gamma_3(u_A) m theta_i, plus 2 u_64 m theta_i for the fp64 comparison
   (:func:`wrap_angle` loses at most u_64 |a| in a - phi and ~1e-14 rad in the reduction).
   The worst pair is theta_max (1 for the default schedule), so the phase error grows
   linearly in p theta_max: fp32 angles may pass 1e-2 rad from
   p = 1e-2 / ((gamma_3(u_32) + 2 u_64) theta_max) = 55,925 on (:func:`fp32_angle_limit`);
   measured (head_dim 128, base 10000), the first position past 1e-2 rad is 151,363 (the
   three roundings rarely add up: the measured slope is at most ~1.4 u_32 per position).
2. cos/sin. Evaluated in A within k ulps (k = 1 on CPU: SLEEF/libm; k = 2 on CUDA: the
   CUDA math library's cosf/sinf/cos/sin), one ulp <= 2 u_A absolute for |v| <= 1, then
   stored in C: eps_cs = 2k u_A + u_C (1 + 2k u_A).
3. Rotation. y_a = x_a c - x_b s in R (x, c, s exact in R), then stored in D:
   fl(fl(x_a c) - fl(x_b s)) is off by <= gamma_2(u_R)(|x_a c| + |x_b s|)
   <= gamma_2(u_R) rho |(c, s)| (Cauchy-Schwarz) and |(c, s)| <= 1 + sqrt(2) eps_cs, so
   eps_rot = [gamma_2(u_R) + u_D (1 + gamma_2(u_R))] (1 + sqrt(2) eps_cs),
   the u_D term only when R != D. A fused multiply-add (CUDA, or a compiled kernel that
   keeps x_a c - x_b s in fp32) rounds once less and stays inside it.
4. Output, per pair, relative to rho: the exact rotation is 1-Lipschitz in the angle and
   bounded (|R(a) - R(b)| = 2 |sin((a-b)/2)| <= min(|a-b|, 2)), the cos/sin perturbation
   [[dc, -ds], [ds, dc]] has norm sqrt(dc^2 + ds^2) <= sqrt(2) eps_cs, and the two elements'
   rounding is <= sqrt(2) eps_rot: E(p) = min(2, |dphi(p)|) + sqrt(2) (eps_cs + eps_rot).
5. Score, relative to |q||k|: |q_hat - q| <= E_q |q| pair by pair, so
   |q_hat.k_hat - q.k| <= (E_q + E_k + E_q E_k) |q||k|; the fp32 sum of r = rotary_dim
   products adds gamma_r(u_32) sum |q_hat_i k_hat_i| <= gamma_r(u_32)(1+E_q)(1+E_k)|q||k|
   (any summation order); E = E(p) for both (E is monotone in p). Relative violation:
   score(p) + score(1) (position 0 is exact in every format: cos 0 = 1, sin 0 = 0).
6. Measurement: rotation/output/score of bf16/fp16 outputs are evaluated in fp32 (noise
   ~1e-7 of the pair norm, < 1/1000 ulp of those formats); everything else in fp64.

Careless policies (angles in bf16/fp16, inv_freq rounded to bf16/fp16, positions rounded
to bf16, fp16 angle tables, TF32 operands) have no bound of this form: each exceeds the
careful bound, which the tests check. :func:`tolerance_at` turns the bound into the
verifier's (rtol, atol); :func:`ropecheck.tolerance.tolerance` is checked to cover it.

Design constraints: closed-form bounds from the formats alone (no measurement decides a
bound); :func:`tolerance_at` is what the verifier compares with.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import UsageError
from ..reference import phases
from ..spec import RopeSpec
from ..tolerance import ANGLE_ROUNDINGS, COMPARE_U64, cos_sin_ulps, dtype_name, gamma
from .policies import KINDS, PHASE_LIMIT_RAD, POLICIES, SCORE_DISTANCE, Policy, U, policy, policy_angles, wrap_angle

__all__ = ["careful_formats", "error_bound", "fp32_angle_limit", "tolerance_at"]


def careful_formats(pol: Policy, dtype: str) -> tuple[float, float, float, float]:
    return U[pol.fmt("angle", dtype)], U[pol.fmt("cache", dtype)], U[pol.fmt("rotate", dtype)], U[dtype]


def error_bound(
    spec: RopeSpec,
    dtype: Any,
    positions: Any,
    *,
    kind: str = "output",
    policy_name: str = "fp32-angles",
    device: str = "cpu",
) -> np.ndarray:
    """The error model's bound at each position (worst pair), for a careful policy.

    Args:
        spec: the RoPE spec (its largest inverse frequency sets the angle growth).
        dtype: output dtype D.
        positions: integer positions (any shape); the bound is monotone in |p|.
        kind: one of :data:`KINDS` (units as in :func:`measure`).
        policy_name: a careful policy (``fp64-angles``, ``fp32-angles``, ``input-dtype-cache``,
            or ``input-dtype-angles`` for float32).
        device: ``cpu`` (cos/sin within 1 ulp) or ``cuda`` (within 2 ulps); model item 2.

    Example:
        >>> float(error_bound(RopeSpec(head_dim=64), "float32", 1000, kind="angle")) < 2e-4
        True
    """
    dtype = dtype_name(dtype)
    pol = policy(policy_name)
    if not pol.is_careful(dtype):
        raise UsageError(
            f"policy {pol.name!r} is not careful in {dtype}: it has no bound (it is what the bound catches)"
        )
    if kind not in KINDS:
        raise UsageError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    u_a, u_c, u_r, u_d = careful_formats(pol, dtype)
    p = np.abs(np.asarray(positions, dtype=np.float64))
    theta_max = float(np.max(spec.inv_freq()))
    e_phi = np.minimum(np.pi, (gamma(ANGLE_ROUNDINGS, u_a) + COMPARE_U64 * U["float64"]) * p * theta_max)
    if kind == "angle":
        return e_phi
    cs_ulp = 2.0 * cos_sin_ulps(device) * u_a  # k ulps of |v| <= 1 in A, absolute (item 2)
    e_cs = cs_ulp + u_c * (1 + cs_ulp)
    if kind == "cos_sin":
        return np.full_like(p, e_cs)
    cast = u_d if pol.fmt("rotate", dtype) != dtype else 0.0
    e_rot = (gamma(2, u_r) + cast * (1 + gamma(2, u_r))) * (1 + math.sqrt(2) * e_cs)
    if kind == "rotation":
        return np.full_like(p, e_rot)
    e_out = np.minimum(2.0, e_phi) + math.sqrt(2) * (e_cs + e_rot)
    if kind == "output":
        return e_out
    e_dot = gamma(2 * spec.half, U["float32"])
    e_score = 2 * e_out + e_out * e_out + e_dot * (1 + e_out) ** 2
    if kind == "score":
        return e_score
    # kind == "relative": score(p, p - t) + score(t, 0), t = SCORE_DISTANCE; at position 0
    # the rotation is exact in every format (cos 0 = 1, sin 0 = 0).
    e_t = float(error_bound(spec, dtype, SCORE_DISTANCE, kind="output", policy_name=policy_name, device=device))
    return e_score + e_t + e_dot * (1 + e_t)


def tolerance_at(
    dtype: Any, max_position: int, head_dim: int, base: float = 10000.0, *, kind: str = "output", device: str = "cpu"
) -> tuple[float, float]:
    """(rtol, atol) for comparing a low-precision RoPE output with the fp64 reference.

    The bound of the careful ``input-dtype-cache`` policy (fp32 angles for fp32/bf16/fp16,
    the loosest careful policy; fp64 angles for float64) at ``max_position``, for
    unit-scale data: every pair's 2-vector error is <= E * rho and rho <= sqrt(2) max|x|,
    so ``atol = sqrt(2) * E`` times the caller's scale (max |x| times the attention factor)
    and ``rtol = 0`` (the bound is absolute). Other kinds return E itself as atol.

    Example:
        >>> rtol, atol = tolerance_at("bfloat16", 4096, 128)
        >>> rtol, round(atol, 4)
        (0.0, 0.0247)
    """
    name = dtype_name(dtype)
    if name == "float64":
        # fp64 everywhere: the same formulas with u_64 in every format.
        u = U["float64"]
        theta_max = float(np.max(RopeSpec(head_dim=head_dim, base=base).inv_freq()))
        e_phi = min(2.0, (gamma(ANGLE_ROUNDINGS, u) + COMPARE_U64 * u) * max_position * theta_max)
        cs = 2.0 * cos_sin_ulps(device) * u
        e_cs = cs + u * (1 + cs)
        e = e_phi + math.sqrt(2) * (e_cs + gamma(2, u) * (1 + math.sqrt(2) * e_cs))
        return 0.0, math.sqrt(2) * e if kind == "output" else e
    spec = RopeSpec(head_dim=head_dim, base=base)
    e = float(error_bound(spec, name, max_position, kind=kind, policy_name="input-dtype-cache", device=device))
    return 0.0, math.sqrt(2) * e if kind == "output" else e


def fp32_angle_limit(
    spec: RopeSpec | None = None, *, threshold: float = PHASE_LIMIT_RAD, measured_up_to: int = 0
) -> dict[str, Any]:
    """Where fp32 angles stop being enough: the position past which the phase error > threshold.

    ``bound``: from the error model (guaranteed: below it no careful fp32 implementation
    exceeds ``threshold``). ``measured``: the first position whose fp32-angles phase error
    exceeds it, scanning ``[0, measured_up_to)`` in chunks (0 skips the scan); ``slope``:
    the measured max phase error / (p theta_max) over the scan, in units of u_32.

    Example:
        >>> fp32_angle_limit(RopeSpec(head_dim=128))["bound"]
        55925
    """
    spec = spec or RopeSpec(head_dim=128)
    inv = spec.inv_freq()
    theta_max = float(np.max(inv))
    coeff = gamma(ANGLE_ROUNDINGS, U["float32"]) + COMPARE_U64 * U["float64"]
    out: dict[str, Any] = {
        "threshold_rad": threshold,
        "theta_max": theta_max,
        "bound": math.ceil(threshold / (coeff * theta_max)),
        "measured": None,
        "measured_up_to": measured_up_to,
        "slope_u32": None,
    }
    pol = POLICIES["fp32-angles"]
    chunk = 1 << 15
    slope = 0.0
    import torch  # heavy: imported when used

    for start in range(0, measured_up_to, chunk):
        pos = np.arange(max(start, 1), min(start + chunk, measured_up_to), dtype=np.int64)
        ang = policy_angles(pol, inv, pos, "float32").double()
        err = wrap_angle(ang - torch.from_numpy(phases(spec, pos))).abs_().amax(dim=1).numpy()
        slope = max(slope, float((err / (pos * theta_max)).max()) / U["float32"])
        hit = np.nonzero(err > threshold)[0]
        if hit.size:
            out["measured"] = int(pos[hit[0]])
            break
    out["slope_u32"] = slope if measured_up_to else None
    return out
