"""The one per-dtype tolerance table for comparing RoPE outputs.

Every comparison in :mod:`ropecheck.properties` promotes both sides to float64 and then asks
``|actual - expected| <= atol + rtol * |expected|`` elementwise, as
``torch.testing.assert_close`` does, with ``(rtol, atol)`` taken together from
:func:`tolerance`. Values are for data of unit scale; the caller multiplies ``atol`` by the
scale of its data (the largest |x| times the spec's attention factor).

Where the numbers come from (u is the unit roundoff of the dtype):

* The floor is the precision error model's (:mod:`ropecheck.precision`, items 2-4) for a
  careful implementation -- fp32 angles, cos/sin cached in the dtype, rotation in it -- per
  element: sqrt(2) * sqrt(2) (eps_cs + eps_rot) = 2 (eps_cs + eps_rot) of the scale, with
  eps_cs = 2k u_angle + u and eps_rot ~ 2u (k = 1 ulp on CPU, 2 on CUDA). That is ~6u for
  bf16/fp16 (fp32 angles make cos/sin all but exact) and up to 14u for fp32 and fp64 on
  CUDA (2 (5u + 2u), plus O(u^2)). ``rtol + atol`` covers it: (4u, 8u) for bf16/fp16,
  (4u, 11u) for fp32 and fp64 ("rotation").
* The angle m*theta is formed in float32 by careful low-precision implementations (float64
  for float64 data): theta, m and the product are rounded, so the phase is off by at most
  ``(gamma_3(u_angle) + 2 u_64) |m| theta_max`` (model item 1; theta_max = theta_0 = 1 by
  default, <= 1 for schedules that only divide frequencies: linear, NTK, YaRN, Llama 3),
  which moves a pair by as much times its norm, and one element by as much times sqrt(2)
  times the scale: ``atol`` grows by ``sqrt(2) (gamma_3(u_angle) + 2 u_64) |m|``.
  The properties keep positions moderate (below 4096 by default) for that reason.
* Checks that compare the implementation with itself after several applications
  (composition, relative position) carry the error of every application ("self": 3x).
* Scores are compared normalised by ``|q| |k|``; the error of a normalised score is at most
  the relative errors of q and k together, plus the float64 dot product's ``head_dim * u64``
  ("score": 4x, both sides computed by the implementation).
* Norms are compared relatively; one rotation's rounding bounds the change ("norm").

``tests/precision/test_precision.py`` checks that ``tolerance(dtype, "rotation", max_position=m)``
covers the error model's bound (:func:`ropecheck.precision.tolerance_at`) on both devices.

Design constraints: pure data and arithmetic, no numpy/torch import; rtol and atol always
come together; a precision error model may refine the numbers without changing the API.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import UsageError

__all__ = [
    "ANGLE_ROUNDINGS",
    "ANGLE_ROUNDOFF",
    "COMPARE_U64",
    "KINDS",
    "TOLERANCES",
    "UNIT_ROUNDOFF",
    "cos_sin_ulps",
    "dtype_name",
    "gamma",
    "round_bfloat16",
    "tolerance",
]

# Unit roundoff u = 2^-p for a p-bit significand (including the implicit bit).
UNIT_ROUNDOFF: dict[str, float] = {
    "float64": 2.0**-53,
    "float32": 2.0**-24,
    "bfloat16": 2.0**-8,
    "float16": 2.0**-11,
}

# The precision the angle m*theta is formed in by a careful implementation of each dtype.
ANGLE_ROUNDOFF: dict[str, float] = {
    "float64": 2.0**-53,
    "float32": 2.0**-24,
    "bfloat16": 2.0**-24,
    "float16": 2.0**-24,
}

# Error model constants (ropecheck.precision, model items 1-2).
# The angle fl(fl(m) * fl(theta)) carries three roundings of the angle format.
ANGLE_ROUNDINGS = 3
# The fp64 comparison a - phi of an angle a ~ m*theta costs <= u_64 |a|; 2 leaves margin.
COMPARE_U64 = 2.0
# cos/sin accuracy in ulps: SLEEF (vectorised) and libm on CPU are within 1 ulp; the CUDA
# math library's cosf/sinf/cos/sin within 2 (CUDA C Programming Guide, math accuracy tables).
COS_SIN_ULPS: dict[str, float] = {"cpu": 1.0, "cuda": 2.0}

# (rtol, atol) of one rotation for unit-scale data (see the module docstring): rtol + atol
# covers the error model's per-element floor 2 (eps_cs + eps_rot) on either device.
# float64: 4u, 11u = 4.4e-16, 1.2e-15 -- floor 10u on CPU, 14u (+ O(u^2)) on CUDA.
# float32: 4u, 11u = 2.4e-7,  6.6e-7  -- the same in u_32.
# bfloat16: 4u, 8u = 1.6e-2,  3.1e-2  -- floor ~6u (8 significand bits).
# float16: 4u, 8u  = 2.0e-3,  3.9e-3  -- floor ~6u (11 significand bits).
TOLERANCES: dict[str, tuple[float, float]] = {
    name: (4 * u, (11 if name in ("float64", "float32") else 8) * u) for name, u in UNIT_ROUNDOFF.items()
}

SQRT2 = 2.0**0.5

# How many roundings of one rotation each kind of comparison carries (see the module docstring).
KINDS: dict[str, float] = {"rotation": 1.0, "norm": 1.0, "self": 3.0, "score": 4.0}


def gamma(k: float, u: float) -> float:
    """gamma_k(u) = k u / (1 - k u), the classical bound of k roundings."""
    return k * u / (1.0 - k * u)


def cos_sin_ulps(device: str) -> float:
    """How many ulps cos/sin may be off on ``device`` ("cpu", "cuda", "cuda:N")."""
    return COS_SIN_ULPS["cuda" if str(device).startswith("cuda") else "cpu"]


def round_bfloat16(x: Any) -> np.ndarray:
    """``x`` rounded to bfloat16 as torch's ``.to(torch.bfloat16)`` does, as float64.

    torch converts float64 through float32 (two roundings, each to nearest even); so does this,
    with numpy: float32 first, then 8 significant bits, quantum ``2^(e-7)`` for a value in
    ``[2^e, 2^(e+1))``, never finer than the smallest subnormal ``2^-133``; beyond the largest
    finite bfloat16 the result is an infinity.

    Example:
        >>> round_bfloat16([1.0 + 2**-8, 1.0 + 3 * 2**-8, 1e39]).tolist()
        [1.0, 1.015625, inf]
    """
    with np.errstate(over="ignore"):
        v = np.asarray(x, dtype=np.float64).astype(np.float32).astype(np.float64)
    out = v.copy()
    finite = np.isfinite(v) & (v != 0)
    if finite.any():
        _, e = np.frexp(v[finite])  # v = m 2^e with 0.5 <= |m| < 1: 8 bits means quantum 2^(e-8)
        q = np.maximum(e - 8, -133)
        r = np.ldexp(np.rint(np.ldexp(v[finite], -q)), q)
        r[np.abs(r) >= 2.0**128 * (1 - 2.0**-9)] = np.inf * np.sign(r[np.abs(r) >= 2.0**128 * (1 - 2.0**-9)])
        out[finite] = r
    return out


def dtype_name(dtype: Any) -> str:
    """The canonical name ('float32', ...) of a dtype given as a string, numpy or torch dtype.

    Example:
        >>> dtype_name("torch.bfloat16")
        'bfloat16'
    """
    name = str(dtype).replace("torch.", "")
    name = {
        "float": "float32",
        "double": "float64",
        "half": "float16",
        "fp32": "float32",
        "fp64": "float64",
        "fp16": "float16",
        "bf16": "bfloat16",
    }.get(name, name)
    if name.startswith("<class 'numpy."):  # np.float32 the type
        name = name[len("<class 'numpy.") : -2]
    if name not in UNIT_ROUNDOFF:
        raise UsageError(f"dtype must be one of {', '.join(UNIT_ROUNDOFF)}, got {dtype!r}")
    return name


def tolerance(
    dtype: Any,
    kind: str = "rotation",
    *,
    max_position: int = 0,
    head_dim: int | None = None,
) -> tuple[float, float]:
    """``(rtol, atol)`` for comparing outputs of the given dtype, for unit-scale data.

    Args:
        dtype: the dtype the implementation ran in (name, numpy or torch dtype).
        kind: ``"rotation"`` (implementation vs the fp64 reference), ``"norm"``,
            ``"self"`` (implementation vs itself after several applications) or ``"score"``
            (dot products normalised by ``|q| |k|``).
        max_position: the largest |position| involved; adds the angle error
            ``sqrt(2) (gamma_3(u_angle) + 2 u_64) m`` (taking theta_max = 1).
        head_dim: for ``"score"``, adds the float64 dot product's ``head_dim * 2^-53``.

    Example:
        >>> rtol, atol = tolerance("float32")
        >>> f"{rtol:.1e} {atol:.1e}"
        '2.4e-07 6.6e-07'
    """
    name = dtype_name(dtype)
    if kind not in KINDS:
        raise UsageError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    growth = KINDS[kind]
    rtol, atol = TOLERANCES[name]
    angle = (
        SQRT2
        * (gamma(ANGLE_ROUNDINGS, ANGLE_ROUNDOFF[name]) + COMPARE_U64 * UNIT_ROUNDOFF["float64"])
        * abs(int(max_position))
    )
    rtol, atol = growth * rtol, growth * (atol + angle)
    if kind == "score" and head_dim:
        atol += head_dim * UNIT_ROUNDOFF["float64"]
    return rtol, atol
