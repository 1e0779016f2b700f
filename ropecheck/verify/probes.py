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
    """The error model's bound for one element at each position (unit-scale data times ``scale``)."""
    flat = np.asarray(positions).reshape(-1)
    out = np.empty(flat.shape, dtype=np.float64)
    for p in np.unique(flat):
        rtol, atol = tolerance(dtype, "rotation", max_position=int(abs(p)))
        out[flat == p] = atol * scale + rtol * scale
    return out.reshape(np.shape(positions))
