"""Precision of RoPE in fp32/bf16/fp16: measured error by source, and the error model.

What is measured, for an implementation policy (or a black-box implementation), an output
dtype D, a device and a set of integer positions, against the exact reference
(:func:`ropecheck.reference.phases`, exact to ~1e-15 rad for |m| < 2^32):

* ``angle`` -- the phase actually applied minus m*theta_i, wrapped to (-pi, pi], in rad;
* ``cos_sin`` -- the stored cos/sin minus cos/sin of the applied angle (rounding only);
* ``rotation`` -- the rotated output in D minus the exact rotation by the *stored* cos/sin,
  per element, relative to the pair's norm rho = |(x_a, x_b)|;
* ``output`` -- the whole 2-vector error of each pair relative to rho;
* ``score`` -- |s_hat(m, n) - s(m, n)| / (|q| |k|) for q at m and k at n = m - 1 (adjacent
  tokens), the score summed in fp32 (as attention kernels accumulate);
* ``relative`` -- the relative-position violation |s_hat(m, m-1) - s_hat(1, 0)| / (|q| |k|):
  the same q, k at (1, 0) and shifted by t = m - 1 (arXiv 2411.13476 measures this in bf16).

The error model (derivation; u_X is the unit roundoff of format X, gamma_k(u) = ku/(1-ku)):

1. Angle. A careful implementation stores theta_i in the angle format A (one rounding),
   converts m to A (exact while m < 2^p_A, one rounding after) and forms fl(m * theta):
   theta_hat*m_hat*(1+d) = m*theta*(1+d1)(1+d2)(1+d3), so
   |dphi| <= gamma_3(u_A) * m * theta_i  (+ 2 u_64 m theta_i for the fp64 comparison).
   The worst pair is theta_max (1 for the default schedule), so the phase error grows
   linearly in p * theta_max: fp32 angles pass 1e-2 rad at p = 1e-2 / (gamma_3(u_32)
   theta_max) = 55,924 by the bound; measured with theta_max = 1 (theta_0 = 1 is exact, so
   the worst pair is theta_1), the first position measured past 1e-2 rad is 151,363
   (head_dim 128, base 10000; :func:`fp32_angle_limit`).
2. cos/sin. Evaluated in A (libm/SLEEF within 1 ulp <= 2 u_A absolute for |.| <= 1) and
   stored in the cache format C: eps_cs = 2 u_A + u_C.
3. Rotation. y_a = x_a c - x_b s in format R, then stored in D:
   |y_hat - y(c_hat, s_hat)| <= [gamma_2(u_R) + u_D (1 + gamma_2(u_R))] (1 + eps_cs) rho,
   the u_D term only when R != D (a fused multiply-add, as on CUDA, rounds once less and
   stays inside the bound).
4. Output, per pair, relative to rho: the exact rotation is 1-Lipschitz in the angle
   (|R(a) - R(b)| = 2|sin((a-b)/2)| <= |a-b|), the cos/sin perturbation matrix has norm
   <= sqrt(2) eps_cs and the two elements' rounding <= sqrt(2) eps_rot:
   E(p) = min(2, |dphi(p)| + sqrt(2) eps_cs + sqrt(2) eps_rot).
5. Score, relative to |q||k|: E_q + E_k + E_q E_k plus the fp32 sum of r products,
   gamma_r(u_32) (1 + E)^2, with E = E(p) for both (E is monotone in p). Relative
   violation: score(p) + score(1) (position 0 is exact in every format: cos 0 = 1, sin 0 = 0).
6. Measurement: rotation/output/score of bf16/fp16 outputs are evaluated in fp32 (noise
   ~1e-7 of the pair norm, < 1/1000 ulp of those formats); everything else in fp64.

Careless policies (angles in bf16/fp16, inv_freq rounded to bf16, positions rounded to
bf16, fp16 angle tables, TF32 operands) have no bound of this form: each exceeds the
careful bound, which the tests check on every band.

Design constraints: vectorised torch on CPU (bf16/fp16 arithmetic rounds like the device
op by op); positions are processed in chunks by the sweep (:mod:`ropecheck._precision_sweep`),
never as a full positions x pairs fp64 array; measurements are in the pair form, so the
spec's layout does not matter; the attention factor is left out (pure rotation).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._spec import RopeSpec
from ._tolerance import UNIT_ROUNDOFF, dtype_name
from .errors import UsageError
from .reference import phases

__all__ = [
    "DTYPES",
    "KINDS",
    "POLICIES",
    "SOURCES",
    "Policy",
    "apply_policy",
    "error_bound",
    "fp32_angle_limit",
    "measure",
    "measure_impl",
    "policy",
    "round_tf32",
    "tolerance_at",
]

DTYPES: tuple[str, ...] = ("float32", "bfloat16", "float16")
SOURCES: tuple[str, ...] = ("angle", "cos_sin", "rotation", "output", "score", "relative")
KINDS = SOURCES

# ----------------------------------------------------------------------- constants table
# Unit roundoffs: from ropecheck._tolerance (u = 2^-p, p significand bits incl. the implicit
# one); TF32 keeps fp32's exponent and 10 stored mantissa bits -> p = 11, u = 2^-11.
U: dict[str, float] = {**UNIT_ROUNDOFF, "tfloat32": 2.0**-11}
# Angle: inv_freq rounding, position rounding, product rounding (model item 1).
ANGLE_ROUNDINGS = 3
# libm / SLEEF cos and sin are within 1 ulp: <= 2u absolute on [-1, 1] (model item 2).
COS_SIN_ULPS = 2.0
# The fp64 comparison a - phi of an angle a ~ m*theta costs <= 2 u_64 * |a| (model item 1).
COMPARE_U64 = 2.0
# "fp32 angles stop being enough" threshold on the phase error, rad.
PHASE_LIMIT_RAD = 1e-2
# The score pairs q at m with k at m - SCORE_DISTANCE (adjacent tokens).
SCORE_DISTANCE = 1


def gamma(k: float, u: float) -> float:
    """gamma_k(u) = k u / (1 - k u), the classical bound of k roundings."""
    return k * u / (1.0 - k * u)


# ----------------------------------------------------------------------------- policies


@dataclass(frozen=True)
class Policy:
    """How an implementation forms angles, caches cos/sin and rotates.

    Each format is a dtype name or ``"input"`` (the output dtype D).
    """

    name: str
    summary: str
    inv_freq: str  # format inv_freq is stored in
    positions: str  # format positions are converted to before the product
    angle: str  # format of the product m*theta (and of cos/sin evaluation)
    cache: str  # format cos/sin are stored in
    rotate: str  # format the rotation is computed in
    tf32: bool = False  # operands rounded to TF32 before an fp32 product (CUDA matmul)
    careful: bool = False

    def fmt(self, which: str, dtype: str) -> str:
        f = getattr(self, which)
        return dtype if f == "input" else f

    def is_careful(self, dtype: str) -> bool:
        """True when the policy is careful in this dtype (input-dtype angles are careful in fp32)."""
        if self.careful:
            return True
        return self.name == "input-dtype-angles" and dtype_name(dtype) == "float32"


POLICIES: dict[str, Policy] = {
    p.name: p
    for p in (
        Policy("fp64-angles", "angles in fp64, cos/sin cached in fp32, rotation in fp32", "float64", "float64", "float64", "float32", "float32", careful=True),
        Policy("fp32-angles", "angles in fp32, cos/sin cached in fp32, rotation in fp32", "float32", "float32", "float32", "float32", "float32", careful=True),
        Policy("input-dtype-cache", "angles in fp32, cos/sin cast to the input dtype, rotation in it (transformers)", "float32", "float32", "float32", "input", "input", careful=True),
        Policy("input-dtype-angles", "positions, inv_freq, angles, cos/sin and rotation all in the input dtype", "input", "input", "input", "input", "input"),
        Policy("bf16-inv-freq", "inv_freq buffer rounded to bf16 (model.to(bfloat16)), then fp32 angles", "bfloat16", "float32", "float32", "input", "input"),
        Policy("fp16-inv-freq", "inv_freq buffer rounded to fp16 (model.half()), then fp32 angles", "float16", "float32", "float32", "input", "input"),
        Policy("bf16-positions", "positions rounded to bf16 (autocast), fp32 angles", "float32", "bfloat16", "float32", "input", "input"),
        Policy("fp16-cache", "angle table t (x) inv_freq built in fp16 and cos/sin cached in fp16 (GPT-NeoX under .half())", "float16", "float16", "float16", "float16", "input"),
        Policy("tf32-matmul-angles", "inv_freq @ positions as a TF32 matmul (operands to 10-bit mantissa)", "float32", "float32", "float32", "input", "input", tf32=True),
    )
}


def policy(name: str | Policy) -> Policy:
    """Look a built-in policy up by name (a Policy is returned as is)."""
    if isinstance(name, Policy):
        return name
    try:
        return POLICIES[name]
    except KeyError:
        raise UsageError(f"unknown policy {name!r}; choose one of {', '.join(POLICIES)}") from None


def _torch() -> Any:
    import torch

    return torch


def _tdtype(name: str) -> Any:
    torch = _torch()
    return {"float64": torch.float64, "float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[name]


def round_tf32(t: Any) -> Any:
    """Round an fp32 tensor to TF32 (10 mantissa bits), to nearest, ties to even."""
    torch = _torch()
    bits = t.to(torch.float32).contiguous().view(torch.int32)
    low = bits & 0x1FFF
    base = bits & ~0x1FFF
    half = 0x1000
    up = (low > half) | ((low == half) & ((bits & 0x2000) != 0))
    out = torch.where(up, base + 0x2000, base)
    return out.view(torch.float32)


@dataclass
class Applied:
    """What a policy computed for a chunk: float64 numpy arrays, shape (n, k, h)."""

    angle: np.ndarray  # applied angle (n, h)
    cos: np.ndarray  # stored cos (n, h)
    sin: np.ndarray
    ya: np.ndarray  # outputs (n, k, h) in D, as float64
    yb: np.ndarray


def policy_angles(pol: Policy, inv_freq: np.ndarray, positions: np.ndarray, dtype: str, device: str = "cpu") -> Any:
    """The angle table m*theta_i the policy forms, as a tensor in its angle format."""
    torch = _torch()
    a_fmt = pol.fmt("angle", dtype)
    inv = torch.as_tensor(inv_freq, dtype=torch.float64, device=device).to(_tdtype(pol.fmt("inv_freq", dtype)))
    pos = torch.as_tensor(positions, device=device).to(_tdtype(pol.fmt("positions", dtype)))
    if pol.tf32:
        inv, pos = round_tf32(inv.float()), round_tf32(pos.float())
    adt = _tdtype(a_fmt)
    return pos.to(adt)[:, None] * inv.to(adt)[None, :]


def apply_policy(pol: Policy, inv_freq: np.ndarray, positions: np.ndarray, xa: np.ndarray, xb: np.ndarray, dtype: str, device: str = "cpu",
                 *, memo: dict[Any, Any] | None = None, tag: str = "") -> Applied:
    """Run a policy on pairs ``(xa, xb)`` of shape (n, k, h) (values already in D) at ``positions`` (n,).

    ``memo`` (with a ``tag`` naming the positions) shares the angle and cos/sin tables between
    dtypes whose formats for them agree (the sweep measures several dtypes per chunk).
    """
    torch = _torch()
    dtype = dtype_name(dtype)
    cdt, rdt, ddt = _tdtype(pol.fmt("cache", dtype)), _tdtype(pol.fmt("rotate", dtype)), _tdtype(dtype)
    key = (tag, pol.name, pol.fmt("inv_freq", dtype), pol.fmt("positions", dtype), pol.fmt("angle", dtype), str(cdt))
    if memo is not None and tag and key in memo:
        ang, c, s, f64tables = memo[key]
    else:
        ang = policy_angles(pol, inv_freq, positions, dtype, device)
        c, s = ang.cos().to(cdt), ang.sin().to(cdt)
        f64tables = tuple(t.to(torch.float64).cpu().numpy() for t in (ang, c, s))
        if memo is not None and tag:
            memo[key] = (ang, c, s, f64tables)
    cr, sr = c.to(rdt)[:, None, :], s.to(rdt)[:, None, :]
    ta = torch.as_tensor(xa, device=device).to(ddt).to(rdt)
    tb = torch.as_tensor(xb, device=device).to(ddt).to(rdt)
    ya = (ta * cr - tb * sr).to(ddt)
    yb = (tb * cr + ta * sr).to(ddt)
    f64 = lambda t: t.to(torch.float64).cpu().numpy()  # noqa: E731
    return Applied(*f64tables, f64(ya), f64(yb))


# ----------------------------------------------------------------------------- measuring


def _wrap(d: np.ndarray) -> np.ndarray:
    return np.remainder(d + np.pi, 2 * np.pi) - np.pi


def round_np(x: np.ndarray, dtype: str) -> np.ndarray:
    torch = _torch()
    return torch.from_numpy(np.ascontiguousarray(x, dtype=np.float64)).to(_tdtype(dtype)).double().numpy()


def measure(
    spec: RopeSpec,
    pol: str | Policy,
    dtype: Any,
    positions: np.ndarray,
    *,
    device: str = "cpu",
    seed: int = 0,
    phi: np.ndarray | None = None,
    x: np.ndarray | None = None,
    trig: tuple[np.ndarray, np.ndarray] | None = None,
    memo: dict[Any, Any] | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per-position errors of one policy, each source reduced over pairs.

    Returns ``{source: (max over pairs, mean over pairs)}`` arrays of shape (n,), for the
    sources in :data:`SOURCES`. ``x`` (n, 2, h, 2) fp64 values (q and k per position) may be
    given; they are rounded to D first, so input rounding never counts as error. ``phi`` may
    pass precomputed exact phases and ``trig`` their (cos, sin) (shared across dtypes by the
    sweep). The score pairs q at
    m with k at n = max(m - SCORE_DISTANCE, 0); the violation compares it with the same q, k
    at (m - n, 0).
    """
    pol = policy(pol)
    dtype = dtype_name(dtype)
    positions = np.asarray(positions, dtype=np.int64)
    n, h = positions.shape[0], spec.rotary_dim // 2
    if phi is None:
        phi = phases(spec, positions)
    if x is None:
        x = np.random.default_rng(seed).standard_normal((n, 2, h, 2))
    x = round_np(x, dtype)
    inv = spec.inv_freq()
    kpos = np.maximum(positions - SCORE_DISTANCE, 0)
    q = apply_policy(pol, inv, positions, x[:, :1, :, 0], x[:, :1, :, 1], dtype, device, memo=memo, tag="q")
    k = apply_policy(pol, inv, kpos, x[:, 1:, :, 0], x[:, 1:, :, 1], dtype, device, memo=memo, tag="k")
    q0 = apply_policy(pol, inv, positions - kpos, x[:, :1, :, 0], x[:, :1, :, 1], dtype, device, memo=memo, tag="q0")
    return _errors(spec, q, k, q0, phi, positions, kpos, x, with_split=True, trig=trig, wide=dtype in ("float32", "float64"))


def _red(e: Any) -> tuple[np.ndarray, np.ndarray]:
    e = e.reshape(e.shape[0], -1)
    return e.amax(dim=1).double().numpy(), e.mean(dim=1).double().numpy()


def _errors(spec: RopeSpec, q: Applied, k: Applied, q0: Applied, phi: np.ndarray, positions: np.ndarray, kpos: np.ndarray, x: np.ndarray, *, with_split: bool,
            trig: tuple[np.ndarray, np.ndarray] | None = None, wide: bool = True) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The sources from what a policy computed; float64 torch ops (threaded) on CPU."""
    torch = _torch()
    T = lambda a: torch.from_numpy(np.asarray(a, dtype=np.float64))
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    xa, xb = T(x[:, 0, :, 0]), T(x[:, 0, :, 1])
    ya, yb = T(q.ya[:, 0]), T(q.yb[:, 0])
    rho = torch.sqrt(xa * xa + xb * xb)
    rho = torch.where(rho == 0, torch.ones_like(rho), rho)
    ang, tphi = T(q.angle), T(phi)
    out["angle"] = _red(torch.remainder(ang - tphi + math.pi, 2 * math.pi).sub_(math.pi).abs_())
    # Rotation, output and score sources of a bf16/fp16 output are measured in fp32: the
    # measurement noise (~1e-7 of the pair norm) is < 1/1000 of one ulp of those formats.
    wd = torch.float64 if q.ya.dtype == np.float64 and wide else torch.float32
    xa, xb, ya, yb, rho = (t.to(wd) for t in (xa, xb, ya, yb, rho))
    if with_split:
        c64, s64 = T(q.cos), T(q.sin)
        out["cos_sin"] = _red(torch.maximum((c64 - ang.cos()).abs_(), (s64 - ang.sin()).abs_()))
        c, s = c64.to(wd), s64.to(wd)
        ra = (ya - (xa * c - xb * s)).abs_()
        rb = (yb - (xb * c + xa * s)).abs_()
        out["rotation"] = _red(torch.maximum(ra, rb) / rho)
    else:
        nan = np.full(phi.shape[0], np.nan)
        out["cos_sin"] = out["rotation"] = (nan, nan)
    cphi, sphi = (T(trig[0]), T(trig[1])) if trig is not None else (tphi.cos(), tphi.sin())
    cphi, sphi = cphi.to(wd), sphi.to(wd)
    ea, eb = xa * cphi - xb * sphi, xb * cphi + xa * sphi
    out["output"] = _red(torch.hypot(ya - ea, yb - eb) / rho)
    # scores, normalised by |q| |k|
    ka, kb = T(x[:, 1, :, 0]).to(wd), T(x[:, 1, :, 1]).to(wd)
    denom = torch.sqrt((xa * xa + xb * xb).sum(-1) * (ka * ka + kb * kb).sum(-1)).double().numpy()
    # exact score: Re(z_q conj(z_k) e^{i theta (m - n)}), m - n in {0, .., SCORE_DISTANCE}
    delta = torch.from_numpy(positions - kpos)
    dphi = T(phases(spec, np.arange(int(delta.max()) + 1 if delta.numel() else 1)))
    dc, ds = dphi.cos()[delta].to(wd), dphi.sin()[delta].to(wd)
    re, im = xa * ka + xb * kb, xb * ka - xa * kb
    exact = (re * dc - im * ds).sum(-1).double().numpy()
    s_hat = _score_fp32(q.ya[:, 0], q.yb[:, 0], k.ya[:, 0], k.yb[:, 0])
    s_shift = _score_fp32(q0.ya[:, 0], q0.yb[:, 0], x[:, 1, :, 0], x[:, 1, :, 1])  # k at position 0: no rotation
    err = np.abs(s_hat - exact) / denom
    out["score"] = (err, err)
    rel = np.abs(s_hat - s_shift) / denom
    out["relative"] = (rel, rel)
    return out


def _score_fp32(qa: np.ndarray, qb: np.ndarray, ka: np.ndarray, kb: np.ndarray) -> np.ndarray:
    """q.k summed in fp32 over the pairs (last axis), as attention kernels accumulate."""
    torch = _torch()
    f = lambda a: torch.from_numpy(np.asarray(a)).float()
    return ((f(qa) * f(ka)).sum(-1) + (f(qb) * f(kb)).sum(-1)).double().numpy()


def measure_impl(
    spec: RopeSpec,
    fn: Callable[..., Any],
    dtype: Any,
    positions: np.ndarray,
    *,
    device: str = "cpu",
    seed: int = 0,
    phi: np.ndarray | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per-position errors of a black-box implementation under the canonical protocol.

    The applied angle is read off each pair as arg(y / x); cos/sin and rotation rounding
    cannot be separated from outside, so those two sources are NaN.
    """
    from ._protocol import as_implementation

    dtype = dtype_name(dtype)
    positions = np.asarray(positions, dtype=np.int64)
    n, h = positions.shape[0], spec.rotary_dim // 2
    if phi is None:
        phi = phases(spec, positions)
    x = round_np(np.random.default_rng(seed).standard_normal((n, 2, spec.head_dim)), dtype)
    impl = as_implementation(fn)
    # (batch=n, seq=1, heads=2, head_dim): q and k as two heads at each position
    y = impl.run(x[:, None, :, :], positions[:, None], dtype=dtype, device=device)[:, 0] / spec.attention_factor
    a, b = spec.pairs().T
    xa, xb, ya, yb = x[..., a], x[..., b], y[..., a], y[..., b]
    ang = np.angle((ya[:, 0] + 1j * yb[:, 0]) / (xa[:, 0] + 1j * xb[:, 0]))
    nan = np.full((n, h), np.nan)
    q = Applied(ang, nan, nan, ya[:, :1], yb[:, :1])
    zero = np.zeros_like(positions)
    k = Applied(nan, nan, nan, xa[:, 1:], xb[:, 1:])  # k at position 0: the identity
    xpairs = np.stack([xa, xb], axis=-1)
    out = _errors(spec, q, k, q, phi, positions, zero, xpairs, with_split=False)
    out["relative"] = (np.full(n, np.nan), np.full(n, np.nan))  # needs a second call pattern
    return out


# -------------------------------------------------------------------------- error model


def _careful_formats(pol: Policy, dtype: str) -> tuple[float, float, float, float]:
    return U[pol.fmt("angle", dtype)], U[pol.fmt("cache", dtype)], U[pol.fmt("rotate", dtype)], U[dtype]


def error_bound(spec: RopeSpec, dtype: Any, positions: Any, *, kind: str = "output", policy_name: str = "fp32-angles") -> np.ndarray:
    """The error model's bound at each position (worst pair), for a careful policy.

    Args:
        spec: the RoPE spec (its largest inverse frequency sets the angle growth).
        dtype: output dtype D.
        positions: integer positions (any shape); the bound is monotone in |p|.
        kind: one of :data:`KINDS` (units as in :func:`measure`).
        policy_name: a careful policy (``fp64-angles``, ``fp32-angles``, ``input-dtype-cache``,
            or ``input-dtype-angles`` for float32).

    Example:
        >>> float(error_bound(RopeSpec(head_dim=64), "float32", 1000, kind="angle")) < 2e-4
        True
    """
    dtype = dtype_name(dtype)
    pol = policy(policy_name)
    if not pol.is_careful(dtype):
        raise UsageError(f"policy {pol.name!r} is not careful in {dtype}: it has no bound (it is what the bound catches)")
    if kind not in KINDS:
        raise UsageError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    u_a, u_c, u_r, u_d = _careful_formats(pol, dtype)
    p = np.abs(np.asarray(positions, dtype=np.float64))
    theta_max = float(np.max(spec.inv_freq()))
    e_phi = np.minimum(np.pi, (gamma(ANGLE_ROUNDINGS, u_a) + COMPARE_U64 * U["float64"]) * p * theta_max)
    if kind == "angle":
        return e_phi
    e_cs = COS_SIN_ULPS * u_a + u_c
    if kind == "cos_sin":
        return np.full_like(p, e_cs)
    cast = u_d if pol.fmt("rotate", dtype) != dtype else 0.0
    e_rot = (gamma(2, u_r) + cast * (1 + gamma(2, u_r))) * (1 + e_cs)
    if kind == "rotation":
        return np.full_like(p, e_rot)
    e_out = np.minimum(2.0, e_phi + math.sqrt(2) * (e_cs + e_rot))
    if kind == "output":
        return e_out
    e_dot = gamma(spec.rotary_dim, U["float32"])
    e_score = 2 * e_out + e_out * e_out + e_dot * (1 + e_out) ** 2
    if kind == "score":
        return e_score
    # kind == "relative": score(p, p - t) + score(t, 0), t = SCORE_DISTANCE; at position 0
    # the rotation is exact in every format (cos 0 = 1, sin 0 = 0).
    e_t = float(error_bound(spec, dtype, SCORE_DISTANCE, kind="output", policy_name=policy_name))
    return e_score + e_t + e_dot * (1 + e_t)


def tolerance_at(dtype: Any, max_position: int, head_dim: int, base: float = 10000.0, *, kind: str = "output") -> tuple[float, float]:
    """(rtol, atol) for comparing a low-precision RoPE output with the fp64 reference.

    The bound of the careful ``input-dtype-cache`` policy (fp32 angles for fp32/bf16/fp16,
    fp64 angles for float64; cos/sin and rotation in the input dtype) at ``max_position``,
    for unit-scale data: every pair's 2-vector error is <= E * rho and rho <= sqrt(2) max|x|,
    so ``atol = sqrt(2) * E`` times the caller's scale (max |x| times the attention factor)
    and ``rtol = 0`` (the bound is absolute).

    Example:
        >>> rtol, atol = tolerance_at("bfloat16", 4096, 128)
        >>> rtol, round(atol, 4)
        (0.0, 0.0247)
    """
    name = dtype_name(dtype)
    spec = RopeSpec(head_dim=head_dim, base=base)
    pol = "fp64-angles" if name == "float64" else "input-dtype-cache"
    if name == "float64":
        # fp64 everywhere: model the float64 case with the same formulas in fp64.
        u = U["float64"]
        e_phi = (gamma(ANGLE_ROUNDINGS, u) + COMPARE_U64 * u) * max_position * float(np.max(spec.inv_freq()))
        e = e_phi + math.sqrt(2) * (COS_SIN_ULPS * u + gamma(2, u))
        return 0.0, math.sqrt(2) * e if kind == "output" else e
    e = float(error_bound(spec, name, max_position, kind=kind, policy_name=pol))
    return 0.0, math.sqrt(2) * e if kind == "output" else e


def fp32_angle_limit(spec: RopeSpec | None = None, *, threshold: float = PHASE_LIMIT_RAD, measured_up_to: int = 0) -> dict[str, Any]:
    """Where fp32 angles stop being enough: the position past which the phase error > threshold.

    ``bound``: from the error model (guaranteed: below it no careful fp32 implementation
    exceeds ``threshold``). ``measured``: the first position whose fp32-angles phase error
    exceeds it, scanning ``[0, measured_up_to)`` in chunks (0 skips the scan).
    """
    spec = spec or RopeSpec(head_dim=128)
    theta_max = float(np.max(spec.inv_freq()))
    coeff = gamma(ANGLE_ROUNDINGS, U["float32"]) + COMPARE_U64 * U["float64"]
    out: dict[str, Any] = {"threshold_rad": threshold, "bound": math.ceil(threshold / (coeff * theta_max)), "measured": None}
    pol = POLICIES["fp32-angles"]
    chunk = 1 << 15
    for start in range(0, measured_up_to, chunk):
        pos = np.arange(start, min(start + chunk, measured_up_to), dtype=np.int64)
        ang = policy_angles(pol, spec.inv_freq(), pos, "float32").double().numpy()
        err = np.abs(_wrap(ang - phases(spec, pos))).max(axis=1)
        hit = np.nonzero(err > threshold)[0]
        if hit.size:
            out["measured"] = int(pos[hit[0]])
            break
    return out
