"""What the verifier's checks share: random inputs, the per-position error bound, ropecheck's own memory need.

:func:`check_own_memory` sizes ropecheck's own allocations from the spec before the target
runs: identification holds (probes, d, d) float64 matrices, which at head_dim 65536 no memory
limit holds -- that is the caller's usage error (exit 2), never the target's finding.

Design constraints: no check logic here; numpy only (the judging process imports no torch).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from ..errors import UsageError
from ..protocol import round_to_dtype
from ..spec import RopeSpec
from ..tolerance import tolerance
from .identify import own_memory_bytes, position_cap, probe_positions
from .model import VERIFY_MAX_POSITION
from .ranges import valid_range

__all__ = [
    "available_memory",
    "check_own_memory",
    "identification_dtype",
    "per_position_bound",
    "random_x",
]


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


def available_memory() -> int | None:
    """The machine's available memory in bytes (``MemAvailable``), or None where it cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        return None


def check_own_memory(
    spec: RopeSpec | None,
    head_dim: int | None,
    max_position: int | None,
    context: int | None,
    memory_limit: int | None,
) -> None:
    """A :class:`UsageError` when identifying the target would need more memory than ropecheck may use.

    The need is :func:`~.identify.own_memory_bytes` at the spec's head_dim (or ``head_dim`` when
    identifying) for the probe positions the valid range gives; the bound is ``memory_limit``
    (``--memory-limit``; None: no limit) and the machine's available memory. Nothing to check
    when the head_dim is not known yet (an adapter's spec).
    """
    d = spec.head_dim if spec is not None else head_dim
    if d is None:
        return
    top = valid_range(spec, max_position, context, default=VERIFY_MAX_POSITION)[0] - 1
    probes = len(probe_positions(position_cap(spec, top)))
    need = own_memory_bytes(d, probes)
    free = available_memory()
    bounds = [(b, why) for b, why in ((memory_limit, "--memory-limit"), (free, "the available memory")) if b]
    for bound, why in bounds:
        if need > bound:
            raise UsageError(
                f"ropecheck itself needs {need / (1 << 30):.1f} GiB to identify the target at head_dim {d} "
                f"({probes} probed positions), more than {why} ({bound / (1 << 30):.1f} GiB): raise --memory-limit "
                "(0 for none) on a machine with that much memory, or verify a smaller --head-dim"
            )
