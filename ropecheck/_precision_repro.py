"""Reproductions of precision failures reported against real RoPE code, from the policies.

Each function returns plain data (numbers and lists) that the tests assert and the
precision report prints; the parameters are part of the returned data, so every figure in
``reports/precision/`` says what produced it.

Design constraints: deterministic (fixed seeds), a few seconds each on CPU, computed only
through :mod:`ropecheck.precision` (the same code the sweeps and the verifier's tolerances
use).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._spec import RopeSpec
from .precision import POLICIES, measure, phases, policy_angles, round_np

__all__ = ["bf16_position_collapse", "fp16_angle_table", "inv_freq_bf16_crossing", "relative_violation_curve"]


def bf16_position_collapse(head_dim: int = 128, base: float = 10000.0) -> dict[str, Any]:
    """bf16 holds no integer between 8184 and 8192 but 8188 ties to 8192: 8188..8191 all become 8192."""
    spec = RopeSpec(head_dim=head_dim, base=base)
    pos = np.arange(8184, 8193, dtype=np.int64)
    as_bf16 = round_np(pos.astype(np.float64), "bfloat16")
    m = measure(spec, "bf16-positions", "bfloat16", pos, seed=0)
    careful = measure(spec, "input-dtype-cache", "bfloat16", pos, seed=0)
    applied0 = policy_angles(POLICIES["bf16-positions"], spec.inv_freq(), pos, "bfloat16")[:, 0].double().numpy()
    return {
        "params": {"head_dim": head_dim, "base": base, "policy": "bf16-positions", "dtype": "bfloat16"},
        "rows": [
            {
                "position": int(p),
                "bf16_position": float(b),
                "pair0_angle_error_rad": float(applied0[i] - p * spec.inv_freq()[0]),  # unwrapped, theta_0
                "angle_error_rad": float(m["angle"][0][i]),  # worst pair, wrapped to [0, pi]
                "output_error": float(m["output"][0][i]),
                "careful_output_error": float(careful["output"][0][i]),
            }
            for i, (p, b) in enumerate(zip(pos, as_bf16))
        ],
    }


def fp16_angle_table(head_dim: int = 32, base: float = 10000.0, length: int = 2048, position: int = 1857, index: int = 1) -> dict[str, Any]:
    """The GPT-NeoX fp16 table: t and inv_freq in fp16, t (x) inv_freq in fp16, cos in fp16."""
    spec = RopeSpec(head_dim=head_dim, base=base)
    pos = np.arange(length, dtype=np.int64)
    ang = policy_angles(POLICIES["fp16-cache"], spec.inv_freq(), pos, "float16")
    cos16 = ang.cos().double().numpy()
    dcos = np.abs(cos16 - np.cos(phases(spec, pos)))
    worst = np.unravel_index(int(np.argmax(dcos)), dcos.shape)
    return {
        "params": {"head_dim": head_dim, "base": base, "length": length, "policy": "fp16-cache",
                   "theta_index": index, "theta": float(spec.inv_freq()[index])},
        "position": position,
        "angle_fp16": float(ang[position, index]),
        "angle_exact": float(position * spec.inv_freq()[index]),
        "max_abs_dcos": float(dcos.max()),
        "max_abs_dcos_at": {"position": int(worst[0]), "index": int(worst[1])},
    }


def inv_freq_bf16_crossing(head_dim: int = 64, base: float = 10000.0, dtype: str = "bfloat16", factor: float = 10.0, max_position: int = 16384) -> dict[str, Any]:
    """First position where bf16-rounded inv_freq's output error exceeds factor x the careful one's.

    The careful level is the careful policy's (``input-dtype-cache``, same dtype) largest
    output error over all positions scanned -- its floor, set by the dtype's rounding.
    """
    spec = RopeSpec(head_dim=head_dim, base=base)
    pos = np.arange(max_position, dtype=np.int64)
    phi = phases(spec, pos)
    x = np.random.default_rng(0).standard_normal((pos.size, 2, head_dim // 2, 2))
    bad = measure(spec, "bf16-inv-freq", dtype, pos, phi=phi, x=x)["output"][0]
    good = measure(spec, "input-dtype-cache", dtype, pos, phi=phi, x=x)["output"][0]
    level = float(good.max())
    hit = np.nonzero(bad > factor * level)[0]
    inv = spec.inv_freq()
    rel = np.abs(round_np(inv, "bfloat16") - inv) / inv
    # linear growth: slope of the phase error, max_i theta_i |delta_i|
    return {
        "params": {"head_dim": head_dim, "base": base, "dtype": dtype, "factor": factor, "max_position": max_position},
        "careful_level": level,
        "first_position": int(pos[hit[0]]) if hit.size else None,
        "phase_error_slope_rad_per_position": float((inv * rel).max()),
    }


def relative_violation_curve(
    lengths: tuple[int, ...] = (64, 128, 256, 512, 1024, 2048, 4096, 8192),
    head_dim: int = 128,
    base: float = 10000.0,
    n_vectors: int = 8,
    seed: int = 0,
) -> dict[str, Any]:
    """max over m < L of |s(m, m-1) - s(1, 0)| / (|q||k|) for a fixed random q/k set, per length L.

    ``bf16``: the input-dtype-angles policy in bfloat16 (angles formed in bf16, as under bf16
    training); ``fp32``: the same policy in float32 (fp32 angles); ``bf16-careful``: fp32
    angles with bf16 cos/sin and rotation (input-dtype-cache), for contrast.
    """
    spec = RopeSpec(head_dim=head_dim, base=base)
    length = max(lengths)
    pos = np.repeat(np.arange(length, dtype=np.int64), n_vectors)
    qk = np.random.default_rng(seed).standard_normal((n_vectors, 2, head_dim // 2, 2))
    x = np.tile(qk, (length, 1, 1, 1))
    phi = phases(spec, pos)
    curves: dict[str, list[float]] = {}
    for label, pol, dt in (("bf16", "input-dtype-angles", "bfloat16"), ("fp32", "input-dtype-angles", "float32"),
                           ("bf16-careful", "input-dtype-cache", "bfloat16")):
        rel = measure(spec, pol, dt, pos, phi=phi, x=x)["relative"][0]
        per_pos = rel.reshape(length, n_vectors).max(axis=1)
        run = np.maximum.accumulate(per_pos)
        curves[label] = [float(run[L - 1]) for L in lengths]
    return {"params": {"head_dim": head_dim, "base": base, "n_vectors": n_vectors, "seed": seed, "distance": 1},
            "lengths": list(lengths), "curves": curves}
