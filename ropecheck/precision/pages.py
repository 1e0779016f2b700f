"""The one writer of a precision folder (``reports/precision/``): sweeps, reproductions, README.

Both ``ropecheck precision`` and ``ropecheck report`` take the folder's files from here:
:func:`sweep_files` (``<target>-d<head_dim>-<device>-n<positions>.csv`` per sweep, plus its
JSON and plots where asked) and :func:`reproduction_files` (``README.md``,
``reproductions.json``, ``violation.svg``), so the two commands name files the same way and a
sweep of another length never overwrites the report's.

Design constraints: pure functions return ``{relative path: content}``; the callers write
(atomically, :mod:`ropecheck.io`); everything is deterministic (fixed seeds, deterministic
SVG), so a rerun on the same machine rewrites identical bytes; measured figures are written to
:data:`DIGITS` significant digits, so another machine's rerun does too.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

from ..spec import RopeSpec
from . import repro as R
from .model import fp32_angle_limit, tolerance_at
from .policies import POLICIES, one_torch_thread
from .sweep import PLOT_DIGITS, Sweep, json_safe, render_plot, violation_plot

__all__ = [
    "DIGITS",
    "collect",
    "render_readme",
    "reproduction_files",
    "reproductions_json",
    "stable_csv",
    "stable_floats",
    "sweep_files",
    "sweep_stem",
]

#: Significant digits of the measured figures in the folder's CSV and JSON files, and in the plots
#: (:data:`~.sweep.PLOT_DIGITS`, the one definition): their last bits differ from one CPU to another.
DIGITS = PLOT_DIGITS


def collect() -> dict[str, Any]:
    """Run every reproduction, the fp32 limit and the tolerance table; plain data (~5 s on CPU).

    Keys: ``bf16_positions`` (a), ``fp16_table`` (b), ``inv_freq_bf16`` / ``inv_freq_bf16_d64``
    / ``inv_freq_bf16_fp32`` (c), ``violation`` (d), ``tf32`` (the TF32 matmul), ``fp32_limit``
    and ``tolerances`` (the verifier's atol by dtype and position, head_dim 128).
    """
    with one_torch_thread():
        return _collect()


def _collect() -> dict[str, Any]:
    return {
        "bf16_positions": R.bf16_position_collapse(),
        "fp16_table": R.fp16_angle_table(),
        "inv_freq_bf16": R.inv_freq_bf16_crossing(head_dim=128, dtype="bfloat16"),
        "inv_freq_bf16_d64": R.inv_freq_bf16_crossing(head_dim=64, dtype="bfloat16"),
        "inv_freq_bf16_fp32": R.inv_freq_bf16_crossing(head_dim=128, dtype="float32"),
        "violation": R.relative_violation_curve(),
        "tf32": R.tf32_matmul_angles(),
        "fp32_limit": fp32_angle_limit(RopeSpec(head_dim=128), measured_up_to=1 << 19),
        "tolerances": {
            dt: {str(p): tolerance_at(dt, p, 128)[1] for p in (4096, 32768, 131072)}
            for dt in ("float32", "bfloat16", "float16")
        },
    }


def _f(v: float) -> str:
    return f"{v:.3g}"


def render_readme(d: dict[str, Any]) -> str:
    """The Markdown page of ``reports/precision/`` from :func:`collect`'s data (pure)."""
    b, f, v, t, lim = d["bf16_positions"], d["fp16_table"], d["violation"], d["tf32"], d["fp32_limit"]
    inv, inv64, inv32 = d["inv_freq_bf16"], d["inv_freq_bf16_d64"], d["inv_freq_bf16_fp32"]
    b_cols = (
        "position",
        "as bf16",
        "θ₀ angle error (rad)",
        "worst-pair angle error (rad)",
        "output error / ρ",
        "autocast: worst angle error",
        "autocast: output error / ρ",
        "careful output error / ρ",
        "careful bound",
    )
    b_keys = (
        "pair0_angle_error_rad",
        "angle_error_rad",
        "output_error",
        "autocast_angle_error_rad",
        "autocast_output_error",
        "careful_output_error",
        "careful_bound",
    )
    rows = "\n".join(
        f"| {r['position']} | {r['bf16_position']:.0f} | " + " | ".join(_f(r[k]) for k in b_keys) + " |"
        for r in b["rows"]
    )
    curves, bounds = v["curves"], v["bounds"]
    vrows = "\n".join(
        f"| {length} | "
        + " | ".join(_f(x[i]) for x in (curves["bf16"], curves["bf16-careful"], curves["fp32"], bounds["fp32"]))
        + " |"
        for i, length in enumerate(v["lengths"])
    )
    nearest, truncate = t["modes"]["nearest"], t["modes"]["truncate"]
    tpos = " · ".join(
        f"{p} → {n:.0f} / {tr:.0f}"
        for p, n, tr in zip(t["positions"], nearest["tf32_positions"], truncate["tf32_positions"])
    )
    fp32_ok = (
        "within its error-model bound at every length"
        if all(x <= y for x, y in zip(curves["fp32"], bounds["fp32"]))
        else "**above its error-model bound at some length**"
    )
    tol = "\n".join(
        f"| {dt} | " + " | ".join(_f(x) for x in row.values()) + " |" for dt, row in d["tolerances"].items()
    )
    pol = "\n".join(
        f"| `{p.name}` | {p.summary} | {'careful' if p.careful else 'careless'} |" for p in POLICIES.values()
    )
    values = {
        "pol": pol,
        "tol": tol,
        "rows": rows,
        "vrows": vrows,
        "tpos": tpos,
        "fp32_ok": fp32_ok,
        "b_header": "| " + " | ".join(b_cols) + " |",
        "inv32_first": inv32["first_position"],
        "inv64_first": inv64["first_position"],
        "inv64_slope": _f(inv64["phase_error_slope_rad_per_position"]),
    }
    for part in (
        _limit_values(lim),
        _bf16_values(b),
        _fp16_values(f),
        _inv_freq_values(inv, inv64, inv32),
        _violation_values(v, curves),
        _tf32_values(t, nearest, truncate),
    ):
        values.update(part)
    return _README_TEMPLATE.format_map(values)


def _limit_values(lim: dict[str, Any]) -> dict[str, Any]:
    return {
        "lim_threshold": lim["threshold_rad"],
        "lim_bound": f"{lim['bound']:,}",
        "lim_measured": f"{lim['measured']:,}",
        "lim_slope": f"{lim['slope_u32']:.2f}",
        "lim_at_2_20": f"{lim['slope_u32'] * 2.0**-24 * 2**20:.2g}",
    }


def _bf16_values(b: dict[str, Any]) -> dict[str, Any]:
    return {
        "b_from": b["collapsed_to_8192"][0],
        "b_to": b["collapsed_to_8192"][1],
        "b_head_dim": b["params"]["head_dim"],
        "b_base": f"{b['params']['base']:g}",
    }


def _fp16_values(f: dict[str, Any]) -> dict[str, Any]:
    return {
        "f_head_dim": f["params"]["head_dim"],
        "f_base": f"{f['params']['base']:g}",
        "f_theta": f"{f['params']['theta']:.6f}",
        "f_theta16": f"{f['params']['theta_fp16']:g}",
        "f_position": f["position"],
        "f_index": f["params"]["theta_index"],
        "f_exact": f"{f['angle_exact']:.4f}",
        "f_fp16": f"{f['angle_fp16']:.0f}",
        "f_length": f["params"]["length"],
        "f_dcos": f"{f['max_abs_dcos']:.4f}",
        "f_dcos_pos": f["max_abs_dcos_at"]["position"],
        "f_dcos_index": f["max_abs_dcos_at"]["index"],
        "f_careful": _f(f["careful_max_abs_dcos"]),
    }


def _inv_freq_values(inv: dict[str, Any], inv64: dict[str, Any], inv32: dict[str, Any]) -> dict[str, Any]:
    return {
        "inv_head_dim": inv["params"]["head_dim"],
        "inv_slope": _f(inv["phase_error_slope_rad_per_position"]),
        "inv_measured": _f(inv["measured_angle_slope_rad_per_position"]),
        "inv_first": inv["first_position"],
        "inv_careful": _f(inv["careful_level"]),
        "inv_first_bound": inv["first_position_vs_bound"],
    }


def _violation_values(v: dict[str, Any], curves: dict[str, Any]) -> dict[str, Any]:
    return {
        "v_n": v["params"]["n_vectors"],
        "v_seed": v["params"]["seed"],
        "v_head_dim": v["params"]["head_dim"],
        "v_bf16_growth": f"{curves['bf16'][-1] / curves['bf16'][0]:.0f}",
        "v_first": v["lengths"][0],
        "v_last": v["lengths"][-1],
        "v_gap": f"{min(x / y for x, y in zip(curves['bf16'], curves['fp32'])):.0f}",
        "v_fp32_growth": f"{curves['fp32'][-1] / curves['fp32'][0]:.0f}",
        "v_fp32_first": _f(curves["fp32"][0]),
        "v_fp32_last": _f(curves["fp32"][-1]),
        "v_careful_growth": f"{curves['bf16-careful'][-1] / curves['bf16-careful'][0]:.1f}",
    }


def _tf32_values(t: dict[str, Any], nearest: dict[str, Any], truncate: dict[str, Any]) -> dict[str, Any]:
    return {
        "t_near_low": _f(nearest["max_angle_error_rad_0_2047"]),
        "t_trunc_low": _f(truncate["max_angle_error_rad_0_2047"]),
        "t_out_low": _f(t["output_error_max_0_2047"]),
        "t_near_high": _f(nearest["max_angle_error_rad_2048_8191"]),
        "t_out_high": _f(t["output_error_max_2048_8191"]),
        "t_careful_high": _f(t["careful_output_error_max_2048_8191"]),
        "t_careful_bound": _f(t["careful_output_bound_8191"]),
    }


_README_TEMPLATE = """# Precision of RoPE in fp32 / bf16 / fp16

Generated by `ropecheck precision --reproduce`. Errors are measured against the exact
reference (phases reduced mod 2π in exact integer arithmetic), split by source: **angle**
(phase applied − m·θ_i, rad), **cos_sin** (stored cos/sin − cos/sin of the applied angle),
**rotation** (output in the dtype − exact rotation by the stored cos/sin, per element, relative
to the pair norm ρ), **output** (whole pair error / ρ), **score** (q at m, k at m−1, fp32 sum,
relative to |q||k|) and **relative** (|s(m, m−1) − s(1, 0)| / |q||k|: the same q, k shifted).
A non-finite output counts as an infinite error.

## Policies

| name | what it models | |
|---|---|---|
{pol}

`input-dtype-angles` is careful in float32 (there it *is* fp32 angles), careless in bf16/fp16.

## The error model

u_X is the unit roundoff of X (fp32 2⁻²⁴, bf16 2⁻⁸, fp16 2⁻¹¹, TF32 2⁻¹¹), γ_k = ku/(1−ku),
A the angle format, C the cos/sin cache format, R the rotation format, D the output dtype,
k = 1 ulp for cos/sin on CPU, 2 on CUDA.

1. angle: fl(fl(m)·fl(θ)) = mθ(1+δ₁)(1+δ₂)(1+δ₃) ⇒ |Δφ| ≤ (γ₃(u_A) + 2u₆₄)·p·θ_max (capped at π);
2. cos/sin: within k ulps in A, then stored in C ⇒ ε_cs = 2k·u_A + u_C(1 + 2k·u_A);
3. rotation: ε_rot = [γ₂(u_R) + u_D(1+γ₂(u_R))](1+√2·ε_cs) (no u_D term when R = D; an FMA rounds less);
4. output per pair: E(p) = min(2, |Δφ(p)|) + √2·(ε_cs + ε_rot) (a rotation is 1-Lipschitz in its angle);
5. score: 2E + E² + γ_r(u₃₂)(1+E)²; relative violation: score(p) + score(1).

The tests check every careful policy stays within it on every band tested, in all three
dtypes, and every careless one exceeds it (`tests/precision/test_precision.py`).

**Where fp32 angles stop being enough** (phase error > {lim_threshold} rad, head_dim 128,
base 10000, θ_max = 1): the bound guarantees it below position **{lim_bound}**; the first
position measured past it is **{lim_measured}** (measured slope {lim_slope}·u₃₂ rad per position:
the three roundings rarely add up). Past {lim_measured} tokens a careful fp32 implementation is off
by more than
{lim_threshold} rad in its fastest pairs, and the error keeps growing linearly (about {lim_at_2_20}
rad at 2²⁰ by that slope).

Tolerances the verifier uses (`tolerance_at(dtype, max_position, head_dim)[1]`, atol for
unit-scale data, rtol = 0), head_dim 128:

| dtype | p = 4096 | p = 32768 | p = 131072 |
|---|---|---|---|
{tol}

## Reproductions

### bf16 positions (autocast): 8188–8191 all become 8192

bf16 has 8 significant bits: integers in [4096, 8192) are 32 apart, so every position in
{b_from}…{b_to} rounds to 8192 (head_dim {b_head_dim}, base {b_base}, output bf16).
`bf16-positions` rounds only the positions (fp32 angles); `input-dtype-angles` is the whole autocast
matmul (operands and product in bf16, as in transformers' Llama/Gemma RoPE before it disabled
autocast there). The θ₀ = 1 pair is off by 8192 − m rad.

{b_header}
|---|---|---|---|---|---|---|---|---|
{rows}

### fp16 cos/sin tables (GPT-NeoX under `.half()`)

Policy `fp16-cache`: rotary width **{f_head_dim}**, base {f_base}, so θ₁ = 10000^(−2/32) =
{f_theta} (fp16: {f_theta16}); positions t and inv_freq in fp16, the table t ⊗ inv_freq formed in
fp16, cos in fp16.
Position {f_position}, frequency index {f_index}: exact angle **{f_exact}**, fp16 angle **{f_fp16}**
(fp16's spacing in [1024, 2048) is 1). Max |Δcos| over the {f_length}-position table:
**{f_dcos}** (at position {f_dcos_pos}, index {f_dcos_index}); with fp32 angles and an fp16 cache
(`input-dtype-cache`) it is {f_careful}.

### inv_freq rounded to bf16 (`model.to(bfloat16)`)

A 64-entry inv_freq buffer (head_dim {inv_head_dim}), base 10000, rounded to bf16: the phase error grows
linearly, slope max_i |θ̂_i − θ_i| = {inv_slope} rad per position (measured {inv_measured}).
The output error first exceeds 10× the careful policy's (`input-dtype-cache`, same dtype and q/k, its largest
error up to that position) at position **{inv_first}** in bf16 (careful level {inv_careful}; 10× the careful
bound at {inv_first_bound}), and at position **{inv32_first}** in fp32. With head_dim 64 (32
entries): position
{inv64_first} (slope {inv64_slope}).

### Relative-position violation vs context length

Fixed random q/k set ({v_n} pairs, seed {v_seed}, head_dim {v_head_dim}), distance 1;
max over m < L of |s(m, m−1) − s(1, 0)| / (|q||k|):

| L | bf16 (bf16 angles) | bf16 (fp32 angles, careful) | fp32 | fp32 bound |
|---|---|---|---|---|
{vrows}

bf16 angles grow with the length (×{v_bf16_growth} from {v_first} to {v_last}); fp32 stays at least
×{v_gap} lower, {fp32_ok} (its floor is the fp32 rounding of the angle,
growing as p·u₃₂: ×{v_fp32_growth} over the same lengths, from {v_fp32_first} to {v_fp32_last});
fp32 angles with a bf16 cache stay at bf16's rounding floor (×{v_careful_growth}). See `violation.svg`.

### TF32 matmul of positions (CUDA with TF32 on)

`inv_freq @ position_ids` (transformers' form) run as a TF32 matmul keeps 11 significant bits of
each position: exact up to 2048 only. Position → TF32 (nearest / truncated): {tpos}.
Below 2048 only inv_freq's rounding shows (worst angle error {t_near_low} rad
rounding to nearest, {t_trunc_low} truncating; output error {t_out_low} of ρ); over 2048–8191
(head_dim 128, fp32) the worst angle error is {t_near_high} rad and the output error
{t_out_high} of ρ, against {t_careful_high} for the careful policy (bound {t_careful_bound}).
Policy `tf32-matmul-angles` simulates it on the CPU.

## CPU vs CUDA

- cos/sin: SLEEF/libm on CPU are within 1 ulp; CUDA's cosf/sinf within 2 — the bound takes the
  device (`error_bound(..., device="cuda")`).
- FMA: CUDA (and compiled kernels that keep `x·cos − y·sin` in fp32) round once less than eager
  CPU ops; that stays inside the bound.
- TF32: with `torch.backends.cuda.matmul.allow_tf32 = True` (or `set_float32_matmul_precision("high")`)
  a matmul forming the angles loses 13 bits of each position (above); whether cuBLAS uses TF32 for
  a K = 1 matmul depends on the GPU and batch size, so form the angles with an elementwise product.
  The gpu-marked test runs the real matmul and compares it with the simulation.
"""


def stable_floats(obj: Any) -> Any:
    """``obj`` (JSON-ready data) with every measured float rounded to :data:`DIGITS` significant digits.

    Integral floats (positions, bases, positions rounded to TF32) are exact on every machine and kept.

    Example:
        >>> stable_floats({"error": 0.0770601234, "position": 16376.0})
        {'error': 0.07706, 'position': 16376.0}
    """
    if isinstance(obj, float):
        return obj if not math.isfinite(obj) or obj.is_integer() else float(f"{obj:.{DIGITS}g}")
    if isinstance(obj, dict):
        return {k: stable_floats(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [stable_floats(v) for v in obj]
    return obj


def stable_csv(sw: Sweep) -> str:
    """One sweep's band table as CSV, each float to :data:`DIGITS` significant digits."""
    rows = sw.rows()
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: (f"{v:.{DIGITS}g}" if isinstance(v, float) else v) for k, v in r.items()})
    return buf.getvalue()


def reproductions_json(d: dict[str, Any]) -> str:
    """``reproductions.json``: strict JSON (NaN as null, an infinite error as "inf"), floats :func:`stable_floats`."""
    return json.dumps(stable_floats(json_safe(d)), indent=1, default=float, allow_nan=False) + "\n"


def sweep_stem(sw: Sweep) -> str:
    """The file name stem of one sweep: ``<target>-d<head_dim>-<device>-n<positions>``."""
    target = sw.target.replace("/", "_").replace(":", "-").replace(".py", "")
    return f"{target}-d{sw.spec.head_dim}-{sw.device.replace(':', '')}-n{sw.max_position}"


def sweep_files(sw: Sweep, *, plots: bool = False) -> dict[str, str | bytes]:
    """One sweep's files: the band table as CSV, and with ``plots`` its JSON and output/angle plots."""
    stem = sweep_stem(sw)
    files: dict[str, str | bytes] = {f"{stem}.csv": stable_csv(sw)}
    if plots:
        stable = {k: v for k, v in sw.to_dict().items() if k != "seconds"}  # byte-identical across reruns
        files[f"{stem}.json"] = json.dumps(stable_floats(stable), indent=1) + "\n"
        for src in ("output", "angle"):
            files[f"{stem}-{src}.svg"] = render_plot([sw], src)
    return files


def reproduction_files(d: dict[str, Any]) -> dict[str, str | bytes]:
    """The folder's page, its data and its plot, from :func:`collect`'s data."""
    return {
        "README.md": render_readme(d),
        "reproductions.json": reproductions_json(d),
        "violation.svg": violation_plot(d["violation"]),
    }
