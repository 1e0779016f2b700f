"""The one per-dtype tolerance table for comparing RoPE outputs.

Every comparison in :mod:`ropecheck.properties` promotes both sides to float64 and then asks
``|actual - expected| <= atol + rtol * |expected|`` elementwise, as
``torch.testing.assert_close`` does, with ``(rtol, atol)`` taken together from
:func:`tolerance`. Values are for data of unit scale; the caller multiplies ``atol`` by the
scale of its data (the largest |x| times the spec's attention factor).

Where the numbers come from (u is the unit roundoff of the dtype):

* One rotation ``y_a = x_a cos - x_b sin`` in the storage dtype rounds cos and sin, two
  products and one sum: at most about ``3u (|x_a| + |x_b|)``, i.e. ``6u`` of the scale.
  ``rtol = 4u`` and ``atol = 8u`` leave a small margin over that ("rotation").
* The angle m*theta is formed in float32 by careful low-precision implementations (float64
  for float64 data). Rounding theta and the product gives an angle error of about
  ``2 m u_angle`` rad, which moves each output by as much times the scale. This grows with
  the position, so the properties keep positions moderate (below 4096 by default) and add
  ``2 * max_position * u_angle`` to ``atol``.
* Checks that compare the implementation with itself after several applications
  (composition, relative position) carry the error of every application ("self": 3x).
* Scores are compared normalised by ``|q| |k|``; the error of a normalised score is at most
  the relative errors of q and k together, plus the float64 dot product's ``head_dim * u64``
  ("score": 4x, both sides computed by the implementation).
* Norms are compared relatively; one rotation's rounding bounds the change ("norm").

Design constraints: pure data and arithmetic, no numpy/torch import; rtol and atol always
come together; a precision error model may refine the numbers without changing the API.
"""

from __future__ import annotations

from typing import Any

from .errors import UsageError

__all__ = ["ANGLE_ROUNDOFF", "KINDS", "TOLERANCES", "UNIT_ROUNDOFF", "dtype_name", "tolerance"]

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

# (rtol, atol) of one rotation for unit-scale data: rtol = 4u, atol = 8u (see the module docstring).
# float64: 4*2^-53 = 4.4e-16, 8*2^-53 = 8.9e-16 -- libm cos/sin are within 1 ulp.
# float32: 4*2^-24 = 2.4e-7,  8*2^-24 = 4.8e-7.
# bfloat16: 4*2^-8 = 1.6e-2,  8*2^-8 = 3.1e-2 -- 8 significand bits.
# float16: 4*2^-11 = 2.0e-3,  8*2^-11 = 3.9e-3 -- 11 significand bits.
TOLERANCES: dict[str, tuple[float, float]] = {name: (4 * u, 8 * u) for name, u in UNIT_ROUNDOFF.items()}

# How many roundings of one rotation each kind of comparison carries (see the module docstring).
KINDS: dict[str, float] = {"rotation": 1.0, "norm": 1.0, "self": 3.0, "score": 4.0}


def dtype_name(dtype: Any) -> str:
    """The canonical name ('float32', ...) of a dtype given as a string, numpy or torch dtype.

    Example:
        >>> dtype_name("torch.bfloat16")
        'bfloat16'
    """
    name = str(dtype).replace("torch.", "")
    name = {"float": "float32", "double": "float64", "half": "float16", "fp32": "float32", "fp64": "float64",
            "fp16": "float16", "bf16": "bfloat16"}.get(name, name)
    if name.startswith("<class 'numpy."):  # np.float32 the type
        name = name[len("<class 'numpy."):-2]
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
        max_position: the largest |position| involved; adds the angle error ``2 m u_angle``.
        head_dim: for ``"score"``, adds the float64 dot product's ``head_dim * 2^-53``.

    Example:
        >>> rtol, atol = tolerance("float32")
        >>> f"{rtol:.1e} {atol:.1e}"
        '2.4e-07 4.8e-07'
    """
    name = dtype_name(dtype)
    if kind not in KINDS:
        raise UsageError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    growth = KINDS[kind]
    rtol, atol = TOLERANCES[name]
    angle = 2.0 * abs(int(max_position)) * ANGLE_ROUNDOFF[name]
    rtol, atol = growth * rtol, growth * (atol + angle)
    if kind == "score" and head_dim:
        atol += head_dim * UNIT_ROUNDOFF["float64"]
    return rtol, atol
