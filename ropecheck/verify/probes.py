"""What the verifier's checks share: random inputs, the per-position error bound, torch on demand.

Design constraints: no check logic here; torch is imported on first use (heavy), so
importing ropecheck stays light.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..protocol import round_to_dtype
from ..tolerance import tolerance

__all__ = ["identification_dtype", "per_position_bound", "random_x", "torch_module"]


def torch_module() -> Any:
    """torch, imported on first use (heavy)."""
    import torch  # heavy: imported when used

    return torch


def identification_dtype(dtypes: Sequence[str]) -> str:
    """The dtype identification probes in: float32 when asked for, else the most precise one asked for."""
    for pref in ("float32", "float64", "bfloat16", "float16"):
        if pref in dtypes:
            return pref
    return dtypes[0]


def random_x(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """Standard-normal values clipped to [-4, 4], rounded to ``dtype`` (returned as float64)."""
    return round_to_dtype(np.clip(rng.standard_normal(shape), -4, 4), dtype)


def per_position_bound(dtype: str, positions: np.ndarray, scale: float) -> np.ndarray:
    """The error model's bound for one element at each position (unit-scale data times ``scale``).

    ``tolerance`` is affine in the position (its angle term grows linearly), so the bound is
    evaluated from its value at 0 and 1 for every element at once.
    """
    rtol, atol0 = tolerance(dtype, "rotation", max_position=0)
    _, atol1 = tolerance(dtype, "rotation", max_position=1)
    return ((rtol + atol0) + (atol1 - atol0) * np.abs(np.asarray(positions, dtype=np.float64))) * scale
