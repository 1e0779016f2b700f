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
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UsageError
from ..protocol import as_implementation
from ..reference import phases
from ..spec import RopeSpec
from ..tolerance import dtype_name
from .policies import (
    DEVICE_ROWS,
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

__all__ = ["max_rows", "measure", "measure_impl"]

# ----------------------------------------------------------------------------- measuring


def _rows(idx: np.ndarray, device: str) -> Any:
    """An index into table rows: a slice when the rows are consecutive (no copy), else a tensor on ``device``."""
    import torch  # heavy: imported when used

    if idx.size and np.all(idx == idx[0] + np.arange(idx.size)):
        return slice(int(idx[0]), int(idx[0]) + idx.size)
    if idx.size and np.all(idx == idx[0]):
        return slice(int(idx[0]), int(idx[0]) + 1)  # one row, broadcast
    return torch.from_numpy(idx).to(device)


def max_rows(device: str) -> int:
    """Positions :func:`measure` takes in one piece: cache-sized on the CPU, large on a GPU (fewer launches)."""
    return MAX_ROWS if device == "cpu" else DEVICE_ROWS


def _red(e: Any) -> tuple[np.ndarray, np.ndarray]:
    """(max, mean) over the last axis as float64 numpy; NaN (a non-finite output) counts as inf."""
    import torch  # heavy: imported when used

    mx, mean = e.amax(dim=-1).double(), e.mean(dim=-1).double()
    inf = torch.tensor(math.inf, dtype=torch.float64, device=e.device)
    return torch.where(mx.isnan(), inf, mx).cpu().numpy(), torch.where(mean.isnan(), inf, mean).cpu().numpy()


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
        device: where the policy runs, and where it is measured (the exact phases are formed on the
            CPU and moved there once per chunk).
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
    pol = policy(pol)
    dtype = dtype_name(dtype)
    if dtype == "float64":
        raise UsageError("dtype float64 is the reference itself; measure float32, bfloat16 or float16")
    positions = np.asarray(positions, dtype=np.int64).reshape(-1)
    n = positions.size
    if seq_len is None and spec.depends_on_length and n:
        seq_len = int(np.abs(positions).max()) + 1
    memo = {} if memo is None else memo
    if n > max_rows(device):  # cache-sized pieces on the CPU (the sweep's chunk size): faster than one big array
        return _measure_in_parts(spec, pol, dtype, positions, device, seed, phi, x, trig, memo, seq_len)
    if "chunk" not in memo:
        memo["chunk"] = _chunk(spec, positions, phi=phi, x=x, trig=trig, seed=seed, seq_len=seq_len, device=device)
    chunk: _Chunk = memo["chunk"]
    tables = _policy_tables(spec, pol, dtype, device, seq_len, chunk, memo)
    xkey = ("exact", dtype)
    if xkey not in memo:
        memo[xkey] = _exact(spec, dtype, seq_len, chunk)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {"angle": tables.angle, "cos_sin": tables.cos_sin}
    out.update(_rotated_errors(pol, dtype, tables, chunk, memo[xkey]))
    return out


def _measure_in_parts(
    spec: RopeSpec,
    pol: Policy,
    dtype: str,
    positions: np.ndarray,
    device: str,
    seed: int,
    phi: np.ndarray | None,
    x: Any,
    trig: tuple[Any, Any] | None,
    memo: dict[Any, Any],
    seq_len: int | None,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """:func:`measure` over pieces of :func:`max_rows` positions, each with its own memo, concatenated."""
    parts = []
    rows = max_rows(device)
    for i in range(0, positions.size, rows):
        sl = slice(i, i + rows)
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
        src: (np.concatenate([p[src][0] for p in parts]), np.concatenate([p[src][1] for p in parts])) for src in SOURCES
    }


@dataclass(frozen=True)
class _Chunk:
    """What every dtype and policy of one chunk shares: table positions, exact phases, q/k.

    ``tab`` holds every position a table is needed at (q's, k's and the shifted q's, each
    once); ``iq``, ``ik``, ``it`` index its rows for q at m, k at m - SCORE_DISTANCE (clamped
    at 0) and q at their difference; ``delta`` is that difference.
    """

    tab: np.ndarray
    iq: Any
    ik: Any
    it: Any
    delta: Any
    phi: Any  # exact phases, float64 tensor (n, h)
    trig64: tuple[Any, Any]  # their cos and sin, float64 tensors
    x: Any  # q and k, float64 tensor (q/k, a/b, position, pair)


def _chunk(
    spec: RopeSpec,
    positions: np.ndarray,
    *,
    phi: np.ndarray | None,
    x: Any,
    trig: tuple[Any, Any] | None,
    seed: int,
    seq_len: int | None,
    device: str,
) -> _Chunk:
    """The chunk's shared values, on ``device``: the exact phases are formed on the CPU and moved once."""
    import torch  # heavy: imported when used

    n = positions.size
    kpos = np.maximum(positions - SCORE_DISTANCE, 0)
    tab, inv = np.unique(np.concatenate([positions, kpos, positions - kpos]), return_inverse=True)
    if phi is None:
        phi = phases(spec, positions, seq_len=seq_len)
    phi_t = torch.from_numpy(np.ascontiguousarray(phi, dtype=np.float64)).to(device)
    if trig is None:  # fp64 cos/sin (within an ulp of 1 on any device: far below what is measured)
        trig = (phi_t.cos(), phi_t.sin())
    trig64 = tuple(torch.as_tensor(np.asarray(t, dtype=np.float64) if isinstance(t, np.ndarray) else t).to(device)
                   for t in trig)  # fmt: skip
    return _Chunk(
        tab=tab,
        iq=_rows(inv[:n], device),
        ik=_rows(inv[n : 2 * n], device),
        it=_rows(inv[2 * n :], device),
        delta=torch.from_numpy(positions - kpos).to(device),
        phi=phi_t,
        trig64=(trig64[0], trig64[1]),
        x=_qk_tensor(x, n, spec.half, seed).to(device),
    )


def _qk_tensor(x: Any, n: int, h: int, seed: int) -> Any:
    """q and k as a float64 tensor (q/k, a/b, position, pair): random, from an array, or checked."""
    import torch  # heavy: imported when used

    if x is None:
        x = np.random.default_rng(seed).standard_normal((n, 2, h, 2))
    if isinstance(x, np.ndarray) or not hasattr(x, "dtype"):  # (q/k, a/b, n, h), contiguous
        x = torch.from_numpy(np.ascontiguousarray(np.moveaxis(np.asarray(x, dtype=np.float64), (1, 3), (0, 1))))
    elif tuple(x.shape) != (2, 2, n, h):
        raise UsageError(
            f"x as a tensor must have the (q/k, a/b, position, pair) shape {(2, 2, n, h)}, got {tuple(x.shape)}"
        )
    return x.to(torch.float64)


@dataclass(frozen=True)
class _Tables:
    """A policy's cos/sin tables at the chunk's table positions, and the two sources they decide."""

    cos: Any
    sin: Any
    angle: tuple[np.ndarray, np.ndarray]
    cos_sin: tuple[np.ndarray, np.ndarray]


def _policy_tables(
    spec: RopeSpec, pol: Policy, dtype: str, device: str, seq_len: int | None, chunk: _Chunk, memo: dict[Any, Any]
) -> _Tables:
    """The policy's tables, memoised by their formats: dtypes whose formats agree share them."""
    import torch  # heavy: imported when used

    fmts = tuple(pol.fmt(w, dtype) for w in ("inv_freq", "positions", "angle", "cache")) + (pol.tf32, device)
    tkey = ("tables", fmts)
    if tkey not in memo:
        ang = policy_angles(pol, spec.inv_freq(seq_len), chunk.tab, dtype, device)
        cdt = torch_dtype(pol.fmt("cache", dtype))
        c, s = ang.cos().to(cdt), ang.sin().to(cdt)
        a64 = ang[chunk.iq].to(dtype=torch.float64)
        e_ang = wrap_angle(a64 - chunk.phi).abs_()
        # cos/sin of the applied angle in fp64, or in fp32 for a bf16/fp16 cache (item 6)
        mdt = torch.float64 if cdt in (torch.float32, torch.float64) else torch.float32
        am = a64.to(mdt)
        cm, sm = c[chunk.iq].to(dtype=mdt), s[chunk.iq].to(dtype=mdt)
        e_cs = torch.maximum((cm - am.cos()).abs_(), (sm - am.sin()).abs_())
        memo[tkey] = _Tables(c, s, _red(e_ang), _red(e_cs))
    tables: _Tables = memo[tkey]
    return tables


def _formats(dtype: str) -> tuple[Any, Any]:
    """(D, the measurement format): fp64 for float32 outputs, fp32 for bf16/fp16 ones (item 6)."""
    import torch  # heavy: imported when used

    return torch_dtype(dtype), (torch.float64 if dtype == "float32" else torch.float32)


@dataclass(frozen=True)
class _Exact:
    """q, k rounded to D and the exact values they are measured against (shared by dtypes with one D)."""

    xd: Any  # q and k in D, on the device
    qa: Any  # q's pair components and norm, in the measurement format
    qb: Any
    rho: Any  # zero norms replaced by 1
    ea: Any  # q exactly rotated by the exact phases
    eb: Any
    exact: Any  # exact score of q at m and k at m - SCORE_DISTANCE, float64
    denom: Any  # |q| |k|, float64
    kf: Any  # k at position 0 (the shifted score) in fp32: no rotation in any format


def _exact(spec: RopeSpec, dtype: str, seq_len: int | None, chunk: _Chunk) -> _Exact:
    import torch  # heavy: imported when used

    ddt, wdt = _formats(dtype)
    xd = chunk.x.to(ddt)
    xw = xd.to(wdt)
    qa, qb, ka, kb = xw[0, 0], xw[0, 1], xw[1, 0], xw[1, 1]
    cphi, sphi = (t.to(wdt) for t in chunk.trig64)
    rho2 = qa * qa + qb * qb
    rho = rho2.sqrt()
    rho = torch.where(rho == 0, torch.ones_like(rho), rho)
    ea, eb = qa * cphi - qb * sphi, qb * cphi + qa * sphi
    # exact score Re(z_q conj(z_k) e^{i theta (m - n)}), m - n in {0, .., SCORE_DISTANCE}
    dphi = torch.from_numpy(phases(spec, np.arange(SCORE_DISTANCE + 1), seq_len=seq_len)).to(xw.device)
    delta = chunk.delta
    dsel = delta[:1] if bool((delta == delta[0]).all()) else delta  # one row, broadcast, when all alike
    dc, ds = dphi.cos().to(wdt)[dsel], dphi.sin().to(wdt)[dsel]
    exact = ((qa * ka + qb * kb) * dc - (qb * ka - qa * kb) * ds).sum(-1).double()
    denom = (rho2.sum(-1).double() * (ka * ka + kb * kb).sum(-1).double()).sqrt()
    return _Exact(xd, qa, qb, rho, ea, eb, exact, denom, xd[1].float())


def _rotated_errors(
    pol: Policy, dtype: str, tables: _Tables, chunk: _Chunk, ex: _Exact
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The rotation, output, score and relative sources of the policy's rotations.

    q is rotated at m, k at m - SCORE_DISTANCE and q at their difference (k at 0 is x itself).
    """
    import torch  # heavy: imported when used

    ddt, wdt = _formats(dtype)
    rdt = torch_dtype(pol.fmt("rotate", dtype))
    cr, sr = tables.cos.to(rdt), tables.sin.to(rdt)

    def rot(xa: Any, xb: Any, rows: Any) -> tuple[Any, Any]:
        a, b, c_, s_ = xa.to(rdt), xb.to(rdt), cr[rows], sr[rows]
        return (a * c_ - b * s_).to(ddt), (b * c_ + a * s_).to(ddt)

    xd, qa, qb = ex.xd, ex.qa, ex.qb
    ya, yb = rot(xd[0, 0], xd[0, 1], chunk.iq)
    ka_hat, kb_hat = rot(xd[1, 0], xd[1, 1], chunk.ik)
    ta, tb = rot(xd[0, 0], xd[0, 1], chunk.it)
    cpu = lambda t, dt: t.to(dtype=dt)  # the measurement runs where the policy did (the chunk is there)

    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    yaw, ybw = cpu(ya, wdt), cpu(yb, wdt)
    cw, sw = cpu(tables.cos[chunk.iq], wdt), cpu(tables.sin[chunk.iq], wdt)
    ra = (yaw - (qa * cw - qb * sw)).abs_()
    rb = (ybw - (qb * cw + qa * sw)).abs_()
    out["rotation"] = _red(torch.maximum(ra, rb).div_(ex.rho))
    out["output"] = _red(torch.hypot(yaw - ex.ea, ybw - ex.eb).div_(ex.rho))
    f32, kf = torch.float32, ex.kf
    s_hat = ((cpu(ya, f32) * cpu(ka_hat, f32)).sum(-1) + (cpu(yb, f32) * cpu(kb_hat, f32)).sum(-1)).double()
    s_shift = ((cpu(ta, f32) * kf[0]).sum(-1) + (cpu(tb, f32) * kf[1]).sum(-1)).double()
    err = (s_hat - ex.exact).abs_().div_(ex.denom).cpu().numpy()
    rel = (s_hat - s_shift).abs_().div_(ex.denom).cpu().numpy()
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
