"""Precision of RoPE in fp32/bf16/fp16: policies, measurement by source, the error model, sweeps.

* :mod:`.policies` -- how an implementation forms angles, caches cos/sin and rotates
  (the careful policies the model bounds, the careless ones real code was reported to use);
* :mod:`.measure` -- the error of a policy or a black-box implementation by source (angle,
  cos/sin, rotation, output, score, relative position) against the exact fp64 reference;
* :mod:`.model` -- the error model: what a careful implementation achieves, by position;
* :mod:`.sweep` -- every position up to N in chunks, band tables, CSV, plots;
* :mod:`.repro` -- reproductions of reported precision failures;
* :mod:`.pages` -- the one writer of ``reports/precision/``.
"""

from .measure import measure, measure_impl
from .model import error_bound, fp32_angle_limit, tolerance_at
from .policies import (
    DEVICE_ROWS,
    DTYPES,
    KINDS,
    MAX_ROWS,
    POLICIES,
    SOURCES,
    Policy,
    apply_policy,
    one_torch_thread,
    policy,
    policy_angles,
    round_np,
    round_tf32,
    wrap_angle,
)
from .sweep import Sweep, run_sweep

__all__ = [
    "DTYPES",
    "DEVICE_ROWS",
    "KINDS",
    "MAX_ROWS",
    "POLICIES",
    "SOURCES",
    "Policy",
    "Sweep",
    "apply_policy",
    "error_bound",
    "fp32_angle_limit",
    "measure",
    "measure_impl",
    "one_torch_thread",
    "policy",
    "policy_angles",
    "round_np",
    "round_tf32",
    "run_sweep",
    "tolerance_at",
    "wrap_angle",
]
