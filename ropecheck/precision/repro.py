"""Reproductions of precision failures reported against real RoPE code, from the policies.

Each function returns plain data (numbers and lists) that the tests assert and the
precision report prints; the parameters are part of the returned data, so every figure in
``reports/precision/`` says what produced it.

Design constraints: deterministic (fixed seeds), a few seconds each on CPU, computed only
through :mod:`ropecheck.precision` (the same policies, measurement and error model the
sweeps and the verifier's tolerances use) -- no figure here is typed in by hand.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..reference import phases
from ..spec import RopeSpec
from .measure import measure
from .model import error_bound
from .policies import POLICIES, U, policy_angles, round_np, round_tf32, wrap_angle

__all__ = [
    "bf16_position_collapse",
    "fp16_angle_table",
    "inv_freq_bf16_crossing",
    "relative_violation_curve",
    "tf32_matmul_angles",
]


def _np(t: Any) -> np.ndarray:
    return t.double().cpu().numpy()


def bf16_position_collapse(
    head_dim: int = 128, base: float = 10000.0, positions: tuple[int, int] = (8184, 8193)
) -> dict[str, Any]:
    """bf16 has 8 significant bits: in [4096, 8192) integers are 32 apart, so 8176..8191 all round to 8192.

    Two policies: ``bf16-positions`` (only the positions rounded, fp32 angles: isolates the
    collapse) and ``input-dtype-angles`` in bf16 (what autocast does to transformers'
    ``inv_freq @ position_ids`` before the fix: operands and product in bf16, cos/sin of the
    bf16 angle), against the careful ``input-dtype-cache`` (fp32 angles, bf16 cos/sin).
    """
    spec = RopeSpec(head_dim=head_dim, base=base)
    pos = np.arange(*positions, dtype=np.int64)
    as_bf16 = round_np(pos.astype(np.float64), "bfloat16")
    near = np.arange(8128, 8257, dtype=np.int64)
    collapsed = near[round_np(near.astype(np.float64), "bfloat16") == 8192]
    inv = spec.inv_freq()
    ms = {
        name: measure(spec, name, "bfloat16", pos, seed=0)
        for name in ("bf16-positions", "input-dtype-angles", "input-dtype-cache")
    }
    theta0 = {
        name: _np(policy_angles(POLICIES[name], inv, pos, "bfloat16")[:, 0])
        for name in ("bf16-positions", "input-dtype-angles")
    }
    bound = error_bound(spec, "bfloat16", pos, kind="output", policy_name="input-dtype-cache")
    rows = []
    for i, (p, b) in enumerate(zip(pos, as_bf16)):
        rows.append(
            {
                "position": int(p),
                "bf16_position": float(b),
                "pair0_angle_error_rad": float(theta0["bf16-positions"][i] - p * inv[0]),  # unwrapped, theta_0 = 1
                "angle_error_rad": float(ms["bf16-positions"]["angle"][0][i]),  # worst pair, wrapped
                "output_error": float(ms["bf16-positions"]["output"][0][i]),
                "autocast_pair0_angle_error_rad": float(theta0["input-dtype-angles"][i] - p * inv[0]),
                "autocast_angle_error_rad": float(ms["input-dtype-angles"]["angle"][0][i]),
                "autocast_output_error": float(ms["input-dtype-angles"]["output"][0][i]),
                "careful_output_error": float(ms["input-dtype-cache"]["output"][0][i]),
                "careful_bound": float(bound[i]),
            }
        )
    return {
        "params": {
            "head_dim": head_dim,
            "base": base,
            "dtype": "bfloat16",
            "policy": "bf16-positions",
            "autocast_policy": "input-dtype-angles",
            "careful_policy": "input-dtype-cache",
            "seed": 0,
        },
        "collapsed_to_8192": [int(collapsed[0]), int(collapsed[-1])],
        "rows": rows,
    }


def fp16_angle_table(
    head_dim: int = 32, base: float = 10000.0, length: int = 2048, position: int = 1857, index: int = 1
) -> dict[str, Any]:
    """The GPT-NeoX fp16 table: t and inv_freq in fp16, t (x) inv_freq in fp16, cos in fp16.

    ``head_dim`` is the rotated width (GPT-NeoX/Pythia rotate 32 dims of each head:
    rotary_pct 0.25 of 128).
    """
    spec = RopeSpec(head_dim=head_dim, base=base)
    pos = np.arange(length, dtype=np.int64)
    inv = spec.inv_freq()
    ang = policy_angles(POLICIES["fp16-cache"], inv, pos, "float16")
    cos16 = _np(ang.cos())
    exact = np.cos(phases(spec, pos))
    dcos = np.abs(cos16 - exact)
    worst = np.unravel_index(int(np.argmax(dcos)), dcos.shape)
    careful = _np(policy_angles(POLICIES["input-dtype-cache"], inv, pos, "float16").cos().half())
    return {
        "params": {
            "head_dim": head_dim,
            "base": base,
            "length": length,
            "policy": "fp16-cache",
            "theta_index": index,
            "theta": float(inv[index]),
            "theta_fp16": float(round_np(inv[index : index + 1], "float16")[0]),
        },
        "position": position,
        "angle_fp16": float(ang[position, index]),
        "angle_exact": float(position * inv[index]),
        "max_abs_dcos": float(dcos.max()),
        "max_abs_dcos_at": {"position": int(worst[0]), "index": int(worst[1])},
        "careful_max_abs_dcos": float(np.abs(careful - exact).max()),
    }


def inv_freq_bf16_crossing(
    head_dim: int = 128, base: float = 10000.0, dtype: str = "bfloat16", factor: float = 10.0, max_position: int = 16384
) -> dict[str, Any]:
    """First position where bf16-rounded inv_freq's output error exceeds factor x the careful one's.

    ``head_dim`` 128 is a 64-entry inv_freq buffer (Llama). The careful error at p is the
    largest output error of the careful policy (``input-dtype-cache``, same dtype, same q/k)
    at positions 0..p, so the crossing depends only on what came before it; the crossing of
    ``factor`` times the error model's careful bound is given too.
    """
    spec = RopeSpec(head_dim=head_dim, base=base)
    pos = np.arange(max_position, dtype=np.int64)
    phi = phases(spec, pos)
    x = np.random.default_rng(0).standard_normal((pos.size, 2, head_dim // 2, 2))
    memo_x: dict[str, Any] = {}
    bad_m = measure(spec, "bf16-inv-freq", dtype, pos, phi=phi, x=x, memo=memo_x)
    good = measure(spec, "input-dtype-cache", dtype, pos, phi=phi, x=x, memo=memo_x)["output"][0]
    bad = bad_m["output"][0]
    level = np.maximum.accumulate(good)
    hit = np.nonzero(bad > factor * level)[0]
    bound = error_bound(spec, dtype, pos, kind="output", policy_name="input-dtype-cache")
    hit_b = np.nonzero(bad > factor * bound)[0]
    inv = spec.inv_freq()
    delta = round_np(inv, "bfloat16") - inv
    # linear growth: the phase error of pair i is m * delta_i (mod 2 pi); fit the worst pair's
    slope = float(np.abs(delta).max())
    ang = bad_m["angle"][0]
    lin = (pos > 0) & (pos * slope < 1.0)  # before the worst pair's error wraps
    fit = float(np.polyfit(pos[lin], ang[lin], 1)[0]) if lin.sum() > 2 else float("nan")
    return {
        "params": {
            "head_dim": head_dim,
            "inv_freq_entries": head_dim // 2,
            "base": base,
            "dtype": dtype,
            "factor": factor,
            "max_position": max_position,
            "policy": "bf16-inv-freq",
            "careful_policy": "input-dtype-cache",
            "seed": 0,
        },
        "careful_level": float(level[hit[0]]) if hit.size else float(level[-1]),
        "first_position": int(pos[hit[0]]) if hit.size else None,
        "first_position_vs_bound": int(pos[hit_b[0]]) if hit_b.size else None,
        "phase_error_slope_rad_per_position": slope,
        "measured_angle_slope_rad_per_position": fit,
        "angle_error_at": {str(p): float(ang[p]) for p in (100, 1000, 2000, 4000) if p < max_position},
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
    angles with bf16 cos/sin and rotation (input-dtype-cache), for contrast. ``bounds``: the
    error model's relative-violation bound at L - 1 for the two careful curves.
    """
    spec = RopeSpec(head_dim=head_dim, base=base)
    length = max(lengths)
    pos = np.repeat(np.arange(length, dtype=np.int64), n_vectors)
    qk = np.random.default_rng(seed).standard_normal((n_vectors, 2, head_dim // 2, 2))
    x = np.tile(qk, (length, 1, 1, 1))
    phi = phases(spec, pos)
    curves: dict[str, list[float]] = {}
    memo: dict[str, Any] = {}
    for label, pol, dt in (
        ("bf16", "input-dtype-angles", "bfloat16"),
        ("fp32", "input-dtype-angles", "float32"),
        ("bf16-careful", "input-dtype-cache", "bfloat16"),
    ):
        rel = measure(spec, pol, dt, pos, phi=phi, x=x, memo=memo)["relative"][0]
        per_pos = rel.reshape(length, n_vectors).max(axis=1)
        run = np.maximum.accumulate(per_pos)
        curves[label] = [float(run[L - 1]) for L in lengths]
    ends = np.array(lengths) - 1
    bounds = {
        "fp32": error_bound(spec, "float32", ends, kind="relative", policy_name="input-dtype-angles").tolist(),
        "bf16-careful": error_bound(spec, "bfloat16", ends, kind="relative", policy_name="input-dtype-cache").tolist(),
    }
    return {
        "params": {"head_dim": head_dim, "base": base, "n_vectors": n_vectors, "seed": seed, "distance": 1},
        "lengths": list(lengths),
        "curves": curves,
        "bounds": bounds,
    }


def tf32_matmul_angles(
    head_dim: int = 128, base: float = 10000.0, positions: tuple[int, ...] = (2047, 2049, 2051, 4095, 4097, 8191, 16383)
) -> dict[str, Any]:
    """``inv_freq @ position_ids`` as a TF32 matmul (CUDA, TF32 on): operands keep 11 significant bits.

    Simulated on the CPU by rounding both operands to TF32 (the product of two TF32 numbers
    is exact in fp32, so a K=1 matmul is exactly that); "nearest" (ties to even) and
    "truncate" (low 13 bits dropped) bracket what the hardware does. Integers are exact in
    TF32 only up to 2048: below it only inv_freq's rounding (~2^-12 relative) shows, above it
    the positions themselves move.
    """
    import torch  # heavy: imported when used

    spec = RopeSpec(head_dim=head_dim, base=base)
    inv = spec.inv_freq()
    pos = np.asarray(positions, dtype=np.int64)
    band = np.arange(0, 8192, dtype=np.int64)
    low = band < 2048
    modes: dict[str, Any] = {}
    for mode in ("nearest", "truncate"):
        tpos = round_tf32(torch.as_tensor(pos, dtype=torch.float32), mode).double().numpy()
        ang = _np(policy_angles(POLICIES["tf32-matmul-angles"], inv, band, "float32", tf32_mode=mode))
        err = np.abs(wrap_angle(ang - phases(spec, band))).max(axis=1)
        modes[mode] = {
            "tf32_positions": [float(v) for v in tpos],
            "max_angle_error_rad_0_2047": float(err[low].max()),
            "max_angle_error_rad_2048_8191": float(err[~low].max()),
        }
    m = measure(spec, "tf32-matmul-angles", "float32", band, seed=0)
    careful = measure(spec, "input-dtype-cache", "float32", band, seed=0)
    return {
        "params": {
            "head_dim": head_dim,
            "base": base,
            "policy": "tf32-matmul-angles",
            "dtype": "float32",
            "u_tf32": U["tfloat32"],
        },
        "positions": [int(p) for p in pos],
        "modes": modes,
        "output_error_max_0_2047": float(m["output"][0][low].max()),
        "output_error_max_2048_8191": float(m["output"][0][~low].max()),
        "careful_output_error_max_2048_8191": float(careful["output"][0][~low].max()),
        "careful_output_bound_8191": float(
            error_bound(spec, "float32", 8191, kind="output", policy_name="input-dtype-cache")
        ),
    }
