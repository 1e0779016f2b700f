"""Measuring RoPE's error in fp32/bf16/fp16 by source, against the exact reference.

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

The error model these measurements are held to is :mod:`ropecheck.precision.model`.

Design constraints: vectorised torch (bf16/fp16 arithmetic rounds like the device op by
op); the sweep (:mod:`ropecheck.precision.sweep`) measures in chunks, never a full
positions x pairs fp64 array; the angle and cos/sin tables of a chunk are formed once for
q, k and the shifted q, and shared between dtypes whose formats agree; measurements are in
the pair form, so the spec's layout does not matter; the attention factor is left out
(pure rotation).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import UsageError
from ..protocol import as_implementation
from ..reference import phases
from ..spec import RopeSpec
from ..tolerance import dtype_name
from .policies import (
    MAX_ROWS,
    SCORE_DISTANCE,
    SOURCES,
    Policy,
    policy,
    policy_angles,
    round_np,
    torch_dtype,
    wrap_angle,
)

__all__ = ["measure", "measure_impl"]

# ----------------------------------------------------------------------------- measuring


def _rows(idx: np.ndarray) -> Any:
    """An index into table rows: a slice when the rows are consecutive (no copy), else a tensor."""
    import torch  # heavy: imported when used

    if idx.size and np.all(idx == idx[0] + np.arange(idx.size)):
        return slice(int(idx[0]), int(idx[0]) + idx.size)
    if idx.size and np.all(idx == idx[0]):
        return slice(int(idx[0]), int(idx[0]) + 1)  # one row, broadcast
    return torch.from_numpy(idx)


def _red(e: Any) -> tuple[np.ndarray, np.ndarray]:
    """(max, mean) over the last axis as float64 numpy; NaN (a non-finite output) counts as inf."""
    import torch  # heavy: imported when used

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
    import torch  # heavy: imported when used

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
            parts.append(
                measure(
                    spec,
                    pol,
                    dtype,
                    positions[sl],
                    device=device,
                    seed=seed + i,
                    phi=None if phi is None else phi[sl],
                    x=None if x is None else (x[sl] if isinstance(x, np.ndarray) else x[:, :, sl]),
                    trig=None if trig is None else (trig[0][sl], trig[1][sl]),
                    memo=memo.setdefault(("part", i), {}),
                    seq_len=seq_len,
                )
            )
        return {
            src: (np.concatenate([p[src][0] for p in parts]), np.concatenate([p[src][1] for p in parts]))
            for src in SOURCES
        }
    ddt = torch_dtype(dtype)
    wdt = torch.float64 if dtype == "float32" else torch.float32  # measurement format (item 6)

    # -- shared by every dtype: table positions, exact phases
    if "tab" not in memo:
        kpos = np.maximum(positions - SCORE_DISTANCE, 0)
        tab, inv = np.unique(np.concatenate([positions, kpos, positions - kpos]), return_inverse=True)
        memo["tab"] = (
            tab,
            _rows(inv[:n]),
            _rows(inv[n : 2 * n]),
            _rows(inv[2 * n :]),
            torch.from_numpy(positions - kpos),
        )
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
            raise UsageError(
                f"x as a tensor must have the (q/k, a/b, position, pair) shape {(2, 2, n, h)}, got {tuple(x.shape)}"
            )
        memo["x"] = x.to(torch.float64)
    tab, iq, ik, it, delta = memo["tab"]

    # -- the policy's tables (shared by dtypes whose formats agree)
    fmts = tuple(pol.fmt(w, dtype) for w in ("inv_freq", "positions", "angle", "cache")) + (pol.tf32, device)
    tkey = ("tables", fmts)
    if tkey not in memo:
        ang = policy_angles(pol, spec.inv_freq(seq_len), tab, dtype, device)
        cdt = torch_dtype(pol.fmt("cache", dtype))
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
    rdt = torch_dtype(pol.fmt("rotate", dtype))
    cr, sr = c.to(rdt), s.to(rdt)

    def rot(xa: Any, xb: Any, rows: Any) -> tuple[Any, Any]:
        a, b, c_, s_ = xa.to(rdt), xb.to(rdt), cr[rows], sr[rows]
        return (a * c_ - b * s_).to(ddt), (b * c_ + a * s_).to(ddt)

    ya, yb = rot(xd[0, 0], xd[0, 1], iq)
    ka_hat, kb_hat = rot(xd[1, 0], xd[1, 1], ik)
    ta, tb = rot(xd[0, 0], xd[0, 1], it)
    cpu = lambda t, dt: t.to(device="cpu", dtype=dt)

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
            (yb[:, 0].astype(np.float32) * xb[:, 1].astype(np.float32)), -1, dtype=np.float32
        )
        zk = xa[:, 1] + 1j * xb[:, 1]
        exact = np.real(zx * np.exp(1j * phi) * np.conj(zk)).sum(-1)
        denom = np.sqrt((np.abs(zx) ** 2).sum(-1) * (np.abs(zk) ** 2).sum(-1))
        score = np.abs(s_hat.astype(np.float64) - exact) / denom

    def red(e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        e = np.where(np.isnan(e), np.inf, e)
        return e.max(axis=-1), e.mean(axis=-1)

    nan = np.full(n, np.nan)
    score = np.where(np.isnan(score), np.inf, score)
    return {
        "angle": red(ang),
        "cos_sin": (nan, nan),
        "rotation": (nan, nan),
        "output": red(out_err),
        "score": (score, score),
        "relative": (nan, nan.copy()),
    }
