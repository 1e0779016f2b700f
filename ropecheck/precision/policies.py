"""Precision policies: how an implementation forms angles, caches cos/sin and rotates.

A :class:`Policy` names the format of each step (inverse frequencies, positions, angles,
the cos/sin cache, the rotation); :data:`POLICIES` holds the careful ones the error model
bounds and the careless ones real code was reported to use. :func:`policy_angles` and
:func:`apply_policy` compute exactly what such an implementation computes, rounding op by
op as the device does. Also the constants the measurement and the model share (unit
roundoffs, sources, the two-part 2*pi of :func:`wrap_angle`).

Design constraints: torch is imported inside the functions that use it (heavy), so
importing ropecheck stays light; formats are dtype names or ``"input"`` (the output dtype).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from ..errors import UsageError
from ..tolerance import UNIT_ROUNDOFF, dtype_name

__all__ = [
    "DTYPES",
    "KINDS",
    "DEVICE_ROWS",
    "MAX_ROWS",
    "PHASE_LIMIT_RAD",
    "POLICIES",
    "SCORE_DISTANCE",
    "SOURCES",
    "TWO_PI_HI",
    "TWO_PI_LO",
    "U",
    "Applied",
    "Policy",
    "apply_policy",
    "one_torch_thread",
    "policy",
    "policy_angles",
    "round_np",
    "round_tf32",
    "torch_dtype",
    "wrap_angle",
]

DTYPES: tuple[str, ...] = ("float32", "bfloat16", "float16")
SOURCES: tuple[str, ...] = ("angle", "cos_sin", "rotation", "output", "score", "relative")
KINDS = SOURCES

# ----------------------------------------------------------------------- constants table
# Unit roundoffs: from ropecheck.tolerance (u = 2^-p, p significand bits incl. the implicit
# one); TF32 keeps fp32's exponent and 10 stored mantissa bits -> p = 11, u = 2^-11.
U: dict[str, float] = {**UNIT_ROUNDOFF, "tfloat32": 2.0**-11}
# "fp32 angles stop being enough" threshold on the phase error, rad.
PHASE_LIMIT_RAD = 1e-2
# measure() works on at most this many positions at a time (a 2k x 64 fp64 table is 1 MiB).
MAX_ROWS = 1 << 11
# ... and this many on a GPU, where every op is one launch: large pieces (a 64k x 64 fp64 table is 32 MiB).
DEVICE_ROWS = 1 << 16
# The score pairs q at m with k at m - SCORE_DISTANCE (adjacent tokens).
SCORE_DISTANCE = 1
# 2*pi split for an accurate reduction: TWO_PI_HI has 24 significant bits, so k * HI is
# exact for |k| < 2^29 (every angle below ~3e9 rad); HI + LO = 2*pi to ~1e-22.
TWO_PI_HI = float(np.float32(2 * math.pi))
with mpmath.workprec(200):  # from 2*pi itself, not from 2*pi rounded to fp64
    TWO_PI_LO = float(2 * mpmath.pi - TWO_PI_HI)


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
        Policy(
            "fp64-angles",
            "angles in fp64, cos/sin cached in fp32, rotation in fp32",
            "float64",
            "float64",
            "float64",
            "float32",
            "float32",
            careful=True,
        ),
        Policy(
            "fp32-angles",
            "angles in fp32, cos/sin cached in fp32, rotation in fp32 (x.float(), cast back)",
            "float32",
            "float32",
            "float32",
            "float32",
            "float32",
            careful=True,
        ),
        Policy(
            "input-dtype-cache",
            "angles in fp32, cos/sin cast to the input dtype, rotation in it (transformers Llama)",
            "float32",
            "float32",
            "float32",
            "input",
            "input",
            careful=True,
        ),
        Policy(
            "input-dtype-angles",
            "positions, inv_freq, angles, cos/sin and rotation in the input dtype (inv_freq @ positions under "
            "autocast)",
            "input",
            "input",
            "input",
            "input",
            "input",
        ),
        Policy(
            "bf16-inv-freq",
            "inv_freq buffer rounded to bf16 (model.to(bfloat16)), then fp32 angles",
            "bfloat16",
            "float32",
            "float32",
            "input",
            "input",
        ),
        Policy(
            "fp16-inv-freq",
            "inv_freq buffer rounded to fp16 (model.half()), then fp32 angles",
            "float16",
            "float32",
            "float32",
            "input",
            "input",
        ),
        Policy(
            "bf16-positions",
            "positions rounded to bf16 (autocast casts the matmul operands), fp32 angles",
            "float32",
            "bfloat16",
            "float32",
            "input",
            "input",
        ),
        Policy(
            "fp16-cache",
            "t and inv_freq in fp16, t (x) inv_freq formed in fp16, cos/sin cached in fp16 (GPT-NeoX under .half())",
            "float16",
            "float16",
            "float16",
            "float16",
            "input",
        ),
        Policy(
            "tf32-matmul-angles",
            "inv_freq @ positions as a TF32 matmul (operands to 10 mantissa bits; CUDA with TF32 on)",
            "float32",
            "float32",
            "float32",
            "input",
            "input",
            tf32=True,
        ),
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


@contextlib.contextmanager
def one_torch_thread() -> Iterator[None]:
    """Run torch ops single-threaded inside (restored after).

    The measurements work on cache-sized chunks, where a second intra-op thread gains little
    and, on a loaded machine, spins: several times the CPU for the same result. The sweep
    gets its parallelism from worker threads instead. Process-wide while active.
    """
    import torch  # heavy: imported when used

    old = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(old)


def torch_dtype(name: str) -> Any:
    """The torch dtype of a dtype name (``float64``, ``float32``, ``bfloat16``, ``float16``)."""
    import torch  # heavy: imported when used

    return {"float64": torch.float64, "float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[
        name
    ]


def round_tf32(t: Any, mode: str = "nearest") -> Any:
    """Round an fp32 tensor to TF32 (10 stored mantissa bits).

    ``mode="nearest"``: to nearest, ties to even (CUTLASS's default conversion);
    ``"truncate"``: drop the 13 low bits (tensor cores fed fp32 registers directly).
    """
    import torch  # heavy: imported when used

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


def policy_angles(
    pol: Policy,
    inv_freq: np.ndarray,
    positions: np.ndarray,
    dtype: str,
    device: str = "cpu",
    *,
    tf32_mode: str = "nearest",
) -> Any:
    """The angle table m*theta_i the policy forms, shape (n, h), as a tensor in its angle format."""
    import torch  # heavy: imported when used

    inv = torch.as_tensor(np.asarray(inv_freq, dtype=np.float64), device=device).to(
        torch_dtype(pol.fmt("inv_freq", dtype))
    )
    pos = torch.as_tensor(np.asarray(positions, dtype=np.int64), device=device).to(
        torch_dtype(pol.fmt("positions", dtype))
    )
    if pol.tf32:
        inv, pos = round_tf32(inv.float(), tf32_mode), round_tf32(pos.float(), tf32_mode)
    adt = torch_dtype(pol.fmt("angle", dtype))
    return pos.to(adt)[:, None] * inv.to(adt)[None, :]


@dataclass
class Applied:
    """What a policy computed: float64 numpy arrays, tables (n, h) and outputs (n, k, h)."""

    angle: np.ndarray  # applied angle (n, h)
    cos: np.ndarray  # stored cos (n, h)
    sin: np.ndarray
    ya: np.ndarray  # outputs (n, k, h) in D, as float64
    yb: np.ndarray


def apply_policy(
    pol: Policy,
    inv_freq: np.ndarray,
    positions: np.ndarray,
    xa: np.ndarray,
    xb: np.ndarray,
    dtype: str,
    device: str = "cpu",
) -> Applied:
    """Run a policy on pairs ``(xa, xb)`` of shape (n, k, h) (rounded to D first) at ``positions`` (n,)."""
    import torch  # heavy: imported when used

    dtype = dtype_name(dtype)
    ang = policy_angles(pol, inv_freq, positions, dtype, device)
    cdt, rdt, ddt = torch_dtype(pol.fmt("cache", dtype)), torch_dtype(pol.fmt("rotate", dtype)), torch_dtype(dtype)
    c, s = ang.cos().to(cdt), ang.sin().to(cdt)
    cr, sr = c.to(rdt)[:, None, :], s.to(rdt)[:, None, :]
    ta = torch.as_tensor(np.asarray(xa, dtype=np.float64), device=device).to(ddt).to(rdt)
    tb = torch.as_tensor(np.asarray(xb, dtype=np.float64), device=device).to(ddt).to(rdt)
    f64 = lambda t: t.to(torch.float64).cpu().numpy()
    return Applied(f64(ang), f64(c), f64(s), f64((ta * cr - tb * sr).to(ddt)), f64((tb * cr + ta * sr).to(ddt)))


def wrap_angle(d: Any) -> Any:
    """d reduced to [-pi, pi] (torch float64 tensor or numpy array), with a two-part 2*pi.

    The reduction itself is exact up to ~1e-14 rad for |d| < 3e9 (k * TWO_PI_HI is exact
    and d - k * TWO_PI_HI cancels exactly), so the only error left is the caller's d.
    """
    if isinstance(d, np.ndarray):
        k = np.round(d / (2 * math.pi))
        return (d - k * TWO_PI_HI) - k * TWO_PI_LO
    k = (d / (2 * math.pi)).round_()
    return (d - k * TWO_PI_HI).sub_(k * TWO_PI_LO)


def round_np(x: np.ndarray, dtype: str) -> np.ndarray:
    """x rounded to ``dtype`` (any of the four), returned as float64."""
    import torch  # heavy: imported when used

    return torch.from_numpy(np.ascontiguousarray(x, dtype=np.float64)).to(torch_dtype(dtype)).double().numpy()
