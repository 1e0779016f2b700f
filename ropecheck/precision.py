"""Precision of RoPE in fp32/bf16/fp16: measured error by source, and the error model.

What is measured, for an implementation policy (or a black-box implementation), an output
dtype D, a device and a set of integer positions, against the exact reference
(:func:`ropecheck.reference.phases`, exact to ~1e-15 rad for |m| < 2^32):

* ``angle`` -- the phase actually applied minus m*theta_i, wrapped to [-pi, pi], in rad;
* ``cos_sin`` -- the stored cos/sin minus cos/sin of the applied angle (rounding only);
* ``rotation`` -- the rotated output in D minus the exact rotation by the *stored* cos/sin,
  per element, relative to the pair's norm rho = |(x_a, x_b)|;
* ``output`` -- the whole 2-vector error of each pair relative to rho;
* ``score`` -- |s_hat(m, n) - s(m, n)| / (|q| |k|) for q at m and k at n = m - 1 (adjacent
  tokens), the score summed in fp32 (as attention kernels accumulate);
* ``relative`` -- the relative-position violation |s_hat(m, m-1) - s_hat(1, 0)| / (|q| |k|):
  the same q, k at (1, 0) and shifted by t = m - 1 (arXiv 2411.13476 measures this in bf16).

A non-finite output (fp16 positions overflow past 65504) counts as an infinite error.

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
verifier's (rtol, atol); :func:`ropecheck._tolerance.tolerance` is checked to cover it.

Design constraints: vectorised torch (bf16/fp16 arithmetic rounds like the device op by
op); the sweep (:mod:`ropecheck._precision_sweep`) measures in chunks, never a full
positions x pairs fp64 array; the angle and cos/sin tables of a chunk are formed once for
q, k and the shifted q, and shared between dtypes whose formats agree; measurements are in
the pair form, so the spec's layout does not matter; the attention factor is left out
(pure rotation).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from ._spec import RopeSpec
from ._tolerance import ANGLE_ROUNDINGS, COMPARE_U64, UNIT_ROUNDOFF, cos_sin_ulps, dtype_name, gamma
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
    "one_torch_thread",
    "policy",
    "policy_angles",
    "round_tf32",
    "tolerance_at",
    "wrap_angle",
]

DTYPES: tuple[str, ...] = ("float32", "bfloat16", "float16")
SOURCES: tuple[str, ...] = ("angle", "cos_sin", "rotation", "output", "score", "relative")
KINDS = SOURCES

# ----------------------------------------------------------------------- constants table
# Unit roundoffs: from ropecheck._tolerance (u = 2^-p, p significand bits incl. the implicit
# one); TF32 keeps fp32's exponent and 10 stored mantissa bits -> p = 11, u = 2^-11.
U: dict[str, float] = {**UNIT_ROUNDOFF, "tfloat32": 2.0**-11}
# "fp32 angles stop being enough" threshold on the phase error, rad.
PHASE_LIMIT_RAD = 1e-2
# measure() works on at most this many positions at a time (a 2k x 64 fp64 table is 1 MiB).
MAX_ROWS = 1 << 11
# The score pairs q at m with k at m - SCORE_DISTANCE (adjacent tokens).
SCORE_DISTANCE = 1
# 2*pi split for an accurate reduction: _TWO_PI_HI has 24 significant bits, so k * HI is
# exact for |k| < 2^29 (every angle below ~3e9 rad); HI + LO = 2*pi to ~1e-22.
_TWO_PI_HI = float(np.float32(2 * math.pi))
with mpmath.workprec(200):  # from 2*pi itself, not from 2*pi rounded to fp64
    _TWO_PI_LO = float(2 * mpmath.pi - _TWO_PI_HI)


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
        Policy("fp32-angles", "angles in fp32, cos/sin cached in fp32, rotation in fp32 (x.float(), cast back)", "float32", "float32", "float32", "float32", "float32", careful=True),
        Policy("input-dtype-cache", "angles in fp32, cos/sin cast to the input dtype, rotation in it (transformers Llama)", "float32", "float32", "float32", "input", "input", careful=True),
        Policy("input-dtype-angles", "positions, inv_freq, angles, cos/sin and rotation in the input dtype (inv_freq @ positions under autocast)", "input", "input", "input", "input", "input"),
        Policy("bf16-inv-freq", "inv_freq buffer rounded to bf16 (model.to(bfloat16)), then fp32 angles", "bfloat16", "float32", "float32", "input", "input"),
        Policy("fp16-inv-freq", "inv_freq buffer rounded to fp16 (model.half()), then fp32 angles", "float16", "float32", "float32", "input", "input"),
        Policy("bf16-positions", "positions rounded to bf16 (autocast casts the matmul operands), fp32 angles", "float32", "bfloat16", "float32", "input", "input"),
        Policy("fp16-cache", "t and inv_freq in fp16, t (x) inv_freq formed in fp16, cos/sin cached in fp16 (GPT-NeoX under .half())", "float16", "float16", "float16", "float16", "input"),
        Policy("tf32-matmul-angles", "inv_freq @ positions as a TF32 matmul (operands to 10 mantissa bits; CUDA with TF32 on)", "float32", "float32", "float32", "input", "input", tf32=True),
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


@contextlib.contextmanager
def one_torch_thread() -> Iterator[None]:
    """Run torch ops single-threaded inside (restored after).

    The measurements work on cache-sized chunks, where a second intra-op thread gains little
    and, on a loaded machine, spins: several times the CPU for the same result. The sweep
    gets its parallelism from worker threads instead. Process-wide while active.
    """
    torch = _torch()
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(old)


def _tdtype(name: str) -> Any:
    torch = _torch()
    return {"float64": torch.float64, "float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[name]


def round_tf32(t: Any, mode: str = "nearest") -> Any:
    """Round an fp32 tensor to TF32 (10 stored mantissa bits).

    ``mode="nearest"``: to nearest, ties to even (CUTLASS's default conversion);
    ``"truncate"``: drop the 13 low bits (tensor cores fed fp32 registers directly).
    """
    torch = _torch()
    bits = t.to(torch.float32).contiguous().view(torch.int32)
    base = bits & ~0x1FFF
    if mode == "truncate":
        return base.view(torch.float32)
    if mode != "nearest":
        raise UsageError(f"mode must be 'nearest' or 'truncate', got {mode!r}")
    low = bits & 0x1FFF
    half = 0x1000
    up = (low > half) | ((low == half) & ((bits & 0x2000) != 0))
    out = torch.where(up, base + 0x2000, base)
    return out.view(torch.float32)


def policy_angles(pol: Policy, inv_freq: np.ndarray, positions: np.ndarray, dtype: str, device: str = "cpu", *, tf32_mode: str = "nearest") -> Any:
    """The angle table m*theta_i the policy forms, shape (n, h), as a tensor in its angle format."""
    torch = _torch()
    inv = torch.as_tensor(np.asarray(inv_freq, dtype=np.float64), device=device).to(_tdtype(pol.fmt("inv_freq", dtype)))
    pos = torch.as_tensor(np.asarray(positions, dtype=np.int64), device=device).to(_tdtype(pol.fmt("positions", dtype)))
    if pol.tf32:
        inv, pos = round_tf32(inv.float(), tf32_mode), round_tf32(pos.float(), tf32_mode)
    adt = _tdtype(pol.fmt("angle", dtype))
    return pos.to(adt)[:, None] * inv.to(adt)[None, :]


@dataclass
class Applied:
    """What a policy computed: float64 numpy arrays, tables (n, h) and outputs (n, k, h)."""

    angle: np.ndarray  # applied angle (n, h)
    cos: np.ndarray  # stored cos (n, h)
    sin: np.ndarray
    ya: np.ndarray  # outputs (n, k, h) in D, as float64
    yb: np.ndarray


def apply_policy(pol: Policy, inv_freq: np.ndarray, positions: np.ndarray, xa: np.ndarray, xb: np.ndarray, dtype: str, device: str = "cpu") -> Applied:
    """Run a policy on pairs ``(xa, xb)`` of shape (n, k, h) (rounded to D first) at ``positions`` (n,)."""
    torch = _torch()
    dtype = dtype_name(dtype)
    ang = policy_angles(pol, inv_freq, positions, dtype, device)
    cdt, rdt, ddt = _tdtype(pol.fmt("cache", dtype)), _tdtype(pol.fmt("rotate", dtype)), _tdtype(dtype)
    c, s = ang.cos().to(cdt), ang.sin().to(cdt)
    cr, sr = c.to(rdt)[:, None, :], s.to(rdt)[:, None, :]
    ta = torch.as_tensor(np.asarray(xa, dtype=np.float64), device=device).to(ddt).to(rdt)
    tb = torch.as_tensor(np.asarray(xb, dtype=np.float64), device=device).to(ddt).to(rdt)
    f64 = lambda t: t.to(torch.float64).cpu().numpy()  # noqa: E731
    return Applied(f64(ang), f64(c), f64(s), f64((ta * cr - tb * sr).to(ddt)), f64((tb * cr + ta * sr).to(ddt)))


# ----------------------------------------------------------------------------- measuring


def wrap_angle(d: Any) -> Any:
    """d reduced to [-pi, pi] (torch float64 tensor or numpy array), with a two-part 2*pi.

    The reduction itself is exact up to ~1e-14 rad for |d| < 3e9 (k * _TWO_PI_HI is exact
    and d - k * _TWO_PI_HI cancels exactly), so the only error left is the caller's d.
    """
    if isinstance(d, np.ndarray):
        k = np.round(d / (2 * math.pi))
        return (d - k * _TWO_PI_HI) - k * _TWO_PI_LO
    k = (d / (2 * math.pi)).round_()
    return (d - k * _TWO_PI_HI).sub_(k * _TWO_PI_LO)


def round_np(x: np.ndarray, dtype: str) -> np.ndarray:
    """x rounded to ``dtype`` (any of the four), returned as float64."""
    torch = _torch()
    return torch.from_numpy(np.ascontiguousarray(x, dtype=np.float64)).to(_tdtype(dtype)).double().numpy()


def _rows(idx: np.ndarray) -> Any:
    """An index into table rows: a slice when the rows are consecutive (no copy), else a tensor."""
    torch = _torch()
    if idx.size and np.all(idx == idx[0] + np.arange(idx.size)):
        return slice(int(idx[0]), int(idx[0]) + idx.size)
    if idx.size and np.all(idx == idx[0]):
        return slice(int(idx[0]), int(idx[0]) + 1)  # one row, broadcast
    return torch.from_numpy(idx)


def _red(e: Any) -> tuple[np.ndarray, np.ndarray]:
    """(max, mean) over the last axis as float64 numpy; NaN (a non-finite output) counts as inf."""
    torch = _torch()
    mx, mean = e.amax(dim=-1).double(), e.mean(dim=-1).double()
    inf = torch.tensor(math.inf, dtype=torch.float64)
    return torch.where(mx.isnan(), inf, mx).numpy(), torch.where(mean.isnan(), inf, mean).numpy()


def measure(
    spec: RopeSpec,
    pol: str | Policy,
    dtype: Any,
    positions: np.ndarray,
    *,
    device: str = "cpu",
    seed: int = 0,
    phi: np.ndarray | None = None,
    x: Any = None,
    trig: tuple[Any, Any] | None = None,
    memo: dict[Any, Any] | None = None,
    seq_len: int | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per-position errors of one policy, each source reduced over pairs.

    Args:
        spec: the RoPE spec (pure rotation: the attention factor is left out).
        pol: a built-in policy name or a :class:`Policy`.
        dtype: output dtype D (the inputs are rounded to it first, so input rounding never
            counts as error).
        positions: integer positions, shape (n,).
        device: where the policy runs (measurement is on the CPU).
        seed: seeds the random q/k when ``x`` is not given.
        phi: the exact phases of ``positions`` (shape (n, h)), when already computed.
        x: q and k values, float array (n, 2, h, 2): [position, q/k, pair, a/b], or a float64
            tensor already laid out as (2, 2, n, h): [q/k, a/b, position, pair] (the sweep's).
        trig: (cos, sin) of ``phi`` (float64 tensors or arrays), shared by several dtypes.
        memo: a dict kept across calls on the same positions and x (the sweep's chunk): the
            tables, exact values and format-only sources are computed once.
        seq_len: the length seen by length-dependent schedules (default max(positions)+1).

    Returns:
        ``{source: (max over pairs, mean over pairs)}``, float64 arrays of shape (n,), for
        the sources in :data:`SOURCES`. The score pairs q at m with k at
        n = max(m - SCORE_DISTANCE, 0); the violation compares it with the same q, k at (m - n, 0).

    Example:
        >>> m = measure(RopeSpec(head_dim=64), "fp32-angles", "bfloat16", np.arange(8))
        >>> bool((m["output"][0] < 0.01).all())
        True
    """
    torch = _torch()
    pol = policy(pol)
    dtype = dtype_name(dtype)
    if dtype == "float64":
        raise UsageError("dtype float64 is the reference itself; measure float32, bfloat16 or float16")
    positions = np.asarray(positions, dtype=np.int64).reshape(-1)
    n, h = positions.size, spec.half
    if seq_len is None and spec.depends_on_length and n:
        seq_len = int(np.abs(positions).max()) + 1
    memo = {} if memo is None else memo
    if n > MAX_ROWS:  # cache-sized pieces (the sweep's chunk size): much faster than one big array
        parts = []
        for i in range(0, n, MAX_ROWS):
            sl = slice(i, i + MAX_ROWS)
            parts.append(measure(spec, pol, dtype, positions[sl], device=device, seed=seed + i,
                                 phi=None if phi is None else phi[sl],
                                 x=None if x is None else (x[sl] if isinstance(x, np.ndarray) else x[:, :, sl]),
                                 trig=None if trig is None else (trig[0][sl], trig[1][sl]),
                                 memo=memo.setdefault(("part", i), {}), seq_len=seq_len))
        return {src: (np.concatenate([p[src][0] for p in parts]), np.concatenate([p[src][1] for p in parts])) for src in SOURCES}
    ddt = _tdtype(dtype)
    wdt = torch.float64 if dtype == "float32" else torch.float32  # measurement format (item 6)

    # -- shared by every dtype: table positions, exact phases
    if "tab" not in memo:
        kpos = np.maximum(positions - SCORE_DISTANCE, 0)
        tab, inv = np.unique(np.concatenate([positions, kpos, positions - kpos]), return_inverse=True)
        memo["tab"] = (tab, _rows(inv[:n]), _rows(inv[n:2 * n]), _rows(inv[2 * n:]), torch.from_numpy(positions - kpos))
        if phi is None:
            phi = phases(spec, positions, seq_len=seq_len)
        memo["phi"] = torch.from_numpy(np.ascontiguousarray(phi, dtype=np.float64))
        if trig is None:
            trig = (memo["phi"].cos(), memo["phi"].sin())
        memo["trig64"] = tuple(torch.as_tensor(np.asarray(t, dtype=np.float64)) for t in trig)
        if x is None:
            x = np.random.default_rng(seed).standard_normal((n, 2, h, 2))
        if isinstance(x, np.ndarray) or not hasattr(x, "dtype"):  # (q/k, a/b, n, h), contiguous
            x = torch.from_numpy(np.ascontiguousarray(np.moveaxis(np.asarray(x, dtype=np.float64), (1, 3), (0, 1))))
        elif tuple(x.shape) != (2, 2, n, h):
            raise UsageError(f"x as a tensor must have the (q/k, a/b, position, pair) shape {(2, 2, n, h)}, got {tuple(x.shape)}")
        memo["x"] = x.to(torch.float64)
    tab, iq, ik, it, delta = memo["tab"]

    # -- the policy's tables (shared by dtypes whose formats agree)
    fmts = tuple(pol.fmt(w, dtype) for w in ("inv_freq", "positions", "angle", "cache")) + (pol.tf32, device)
    tkey = ("tables", fmts)
    if tkey not in memo:
        ang = policy_angles(pol, spec.inv_freq(seq_len), tab, dtype, device)
        cdt = _tdtype(pol.fmt("cache", dtype))
        c, s = ang.cos().to(cdt), ang.sin().to(cdt)
        a64 = ang[iq].to(device="cpu", dtype=torch.float64)
        e_ang = wrap_angle(a64 - memo["phi"]).abs_()
        # cos/sin of the applied angle in fp64, or in fp32 for a bf16/fp16 cache (item 6)
        mdt = torch.float64 if cdt in (torch.float32, torch.float64) else torch.float32
        am = a64.to(mdt)
        cm, sm = c[iq].to(device="cpu", dtype=mdt), s[iq].to(device="cpu", dtype=mdt)
        e_cs = torch.maximum((cm - am.cos()).abs_(), (sm - am.sin()).abs_())
        memo[tkey] = (c, s, _red(e_ang), _red(e_cs))
    c, s, r_ang, r_cs = memo[tkey]

    # -- exact values in the measurement format (shared by dtypes with the same D)
    xkey = ("exact", dtype)
    if xkey not in memo:
        xd = memo["x"].to(ddt)
        xw = xd.to(wdt)
        qa, qb, ka, kb = xw[0, 0], xw[0, 1], xw[1, 0], xw[1, 1]
        cphi, sphi = (t.to(wdt) for t in memo["trig64"])
        rho2 = qa * qa + qb * qb
        rho = rho2.sqrt()
        rho = torch.where(rho == 0, torch.ones_like(rho), rho)
        ea, eb = qa * cphi - qb * sphi, qb * cphi + qa * sphi
        # exact score Re(z_q conj(z_k) e^{i theta (m - n)}), m - n in {0, .., SCORE_DISTANCE}
        dphi = torch.from_numpy(phases(spec, np.arange(SCORE_DISTANCE + 1), seq_len=seq_len))
        dsel = delta[:1] if bool((delta == delta[0]).all()) else delta  # one row, broadcast, when all alike
        dc, ds = dphi.cos().to(wdt)[dsel], dphi.sin().to(wdt)[dsel]
        exact = ((qa * ka + qb * kb) * dc - (qb * ka - qa * kb) * ds).sum(-1).double()
        denom = (rho2.sum(-1).double() * (ka * ka + kb * kb).sum(-1).double()).sqrt()
        kf = xd[1].float()  # k at position 0 (the shifted score): no rotation in any format
        memo[xkey] = (xd.to(device), (qa, qb), rho, (ea, eb), exact, denom, kf)
    xd, (qa, qb), rho, (ea, eb), exact, denom, kf = memo[xkey]

    # -- the policy's rotations: q at m, k at m - 1, q at 1 (k at 0 is x itself)
    rdt = _tdtype(pol.fmt("rotate", dtype))
    cr, sr = c.to(rdt), s.to(rdt)

    def rot(xa: Any, xb: Any, rows: Any) -> tuple[Any, Any]:
        a, b, c_, s_ = xa.to(rdt), xb.to(rdt), cr[rows], sr[rows]
        return (a * c_ - b * s_).to(ddt), (b * c_ + a * s_).to(ddt)

    ya, yb = rot(xd[0, 0], xd[0, 1], iq)
    ka_hat, kb_hat = rot(xd[1, 0], xd[1, 1], ik)
    ta, tb = rot(xd[0, 0], xd[0, 1], it)
    cpu = lambda t, dt: t.to(device="cpu", dtype=dt)  # noqa: E731

    out: dict[str, tuple[np.ndarray, np.ndarray]] = {"angle": r_ang, "cos_sin": r_cs}
    yaw, ybw = cpu(ya, wdt), cpu(yb, wdt)
    cw, sw = cpu(c[iq], wdt), cpu(s[iq], wdt)
    ra = (yaw - (qa * cw - qb * sw)).abs_()
    rb = (ybw - (qb * cw + qa * sw)).abs_()
    out["rotation"] = _red(torch.maximum(ra, rb).div_(rho))
    out["output"] = _red(torch.hypot(yaw - ea, ybw - eb).div_(rho))
    f32 = torch.float32
    s_hat = ((cpu(ya, f32) * cpu(ka_hat, f32)).sum(-1) + (cpu(yb, f32) * cpu(kb_hat, f32)).sum(-1)).double()
    s_shift = ((cpu(ta, f32) * kf[0]).sum(-1) + (cpu(tb, f32) * kf[1]).sum(-1)).double()
    err = (s_hat - exact).abs_().div_(denom).numpy()
    rel = (s_hat - s_shift).abs_().div_(denom).numpy()
    err, rel = np.where(np.isnan(err), np.inf, err), np.where(np.isnan(rel), np.inf, rel)
    out["score"], out["relative"] = (err, err), (rel, rel)
    return out


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
    cannot be separated from outside, so those two sources are NaN; so is ``relative``
    (it needs a second call pattern). The score pairs q at m with k at position 0.
    """
    from ._protocol import as_implementation

    dtype = dtype_name(dtype)
    positions = np.asarray(positions, dtype=np.int64).reshape(-1)
    n = positions.size
    if phi is None:
        phi = phases(spec, positions)
    x = round_np(np.random.default_rng(seed).standard_normal((n, 2, spec.head_dim)), dtype)
    impl = as_implementation(fn)
    # (batch=n, seq=1, heads=2, head_dim): q and k as two heads at each position
    y = impl.run(x[:, None, :, :], positions[:, None], dtype=dtype, device=device)[:, 0] / spec.attention_factor
    a, b = spec.pairs().T
    xa, xb, ya, yb = x[..., a], x[..., b], y[..., a], y[..., b]
    with np.errstate(invalid="ignore", divide="ignore"):
        zq, zx = ya[:, 0] + 1j * yb[:, 0], xa[:, 0] + 1j * xb[:, 0]
        ang = np.abs(np.angle(zq / zx) - wrap_angle(phi))
        ang = np.minimum(ang, 2 * np.pi - ang)
        rho = np.abs(zx)
        rho = np.where(rho == 0, 1.0, rho)
        out_err = np.abs(zq - zx * np.exp(1j * phi)) / rho
        s_hat = np.sum((ya[:, 0].astype(np.float32) * xa[:, 1].astype(np.float32)), -1, dtype=np.float32) + np.sum(
            (yb[:, 0].astype(np.float32) * xb[:, 1].astype(np.float32)), -1, dtype=np.float32)
        zk = xa[:, 1] + 1j * xb[:, 1]
        exact = np.real(zx * np.exp(1j * phi) * np.conj(zk)).sum(-1)
        denom = np.sqrt((np.abs(zx) ** 2).sum(-1) * (np.abs(zk) ** 2).sum(-1))
        score = np.abs(s_hat.astype(np.float64) - exact) / denom

    def red(e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        e = np.where(np.isnan(e), np.inf, e)
        return e.max(axis=-1), e.mean(axis=-1)

    nan = np.full(n, np.nan)
    score = np.where(np.isnan(score), np.inf, score)
    return {"angle": red(ang), "cos_sin": (nan, nan), "rotation": (nan, nan), "output": red(out_err),
            "score": (score, score), "relative": (nan, nan.copy())}


# -------------------------------------------------------------------------- error model


def _careful_formats(pol: Policy, dtype: str) -> tuple[float, float, float, float]:
    return U[pol.fmt("angle", dtype)], U[pol.fmt("cache", dtype)], U[pol.fmt("rotate", dtype)], U[dtype]


def error_bound(spec: RopeSpec, dtype: Any, positions: Any, *, kind: str = "output", policy_name: str = "fp32-angles", device: str = "cpu") -> np.ndarray:
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
        raise UsageError(f"policy {pol.name!r} is not careful in {dtype}: it has no bound (it is what the bound catches)")
    if kind not in KINDS:
        raise UsageError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    u_a, u_c, u_r, u_d = _careful_formats(pol, dtype)
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


def tolerance_at(dtype: Any, max_position: int, head_dim: int, base: float = 10000.0, *, kind: str = "output", device: str = "cpu") -> tuple[float, float]:
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


def fp32_angle_limit(spec: RopeSpec | None = None, *, threshold: float = PHASE_LIMIT_RAD, measured_up_to: int = 0) -> dict[str, Any]:
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
    out: dict[str, Any] = {"threshold_rad": threshold, "theta_max": theta_max, "bound": math.ceil(threshold / (coeff * theta_max)),
                           "measured": None, "measured_up_to": measured_up_to, "slope_u32": None}
    pol = POLICIES["fp32-angles"]
    chunk = 1 << 15
    slope = 0.0
    for start in range(0, measured_up_to, chunk):
        pos = np.arange(max(start, 1), min(start + chunk, measured_up_to), dtype=np.int64)
        ang = policy_angles(pol, inv, pos, "float32").double()
        err = wrap_angle(ang - _torch().from_numpy(phases(spec, pos))).abs_().amax(dim=1).numpy()
        slope = max(slope, float((err / (pos * theta_max)).max()) / U["float32"])
        hit = np.nonzero(err > threshold)[0]
        if hit.size:
            out["measured"] = int(pos[hit[0]])
            break
    out["slope_u32"] = slope if measured_up_to else None
    return out
