"""Self-checks of the fp64 reference: the three forms agree and each is what it claims.

Used by ``ropecheck report`` and by the tests; every check returns a verdict with the
figure it was decided on, so the report shows evidence, not only a tick.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..reference import FORMS, apply_rope, layout_permutation, rope_matrix
from ..schedules import Linear, Llama3, YaRN
from ..spec import RopeSpec

__all__ = ["CheckResult", "reference_checks", "render_reference_markdown", "FORMS_TOL"]

FORMS_TOL = 1e-12  # the three forms are algebraically equal; fp64 reorderings differ by ~1e-15


@dataclass(frozen=True)
class CheckResult:
    name: str
    passed: bool
    evidence: str


def _specs() -> Iterator[RopeSpec]:
    for d in (2, 4, 8, 64, 128, 256):
        for layout in ("interleaved", "half"):
            yield RopeSpec(head_dim=d, layout=layout)
    yield RopeSpec(head_dim=64, rotary_dim=16, layout="half")
    yield RopeSpec(head_dim=64, rotary_dim=32, layout="interleaved")
    yield RopeSpec(head_dim=128, base=500000.0, scaling=Llama3(8.0, 1.0, 4.0, 8192))
    yield RopeSpec(head_dim=64, scaling=YaRN(factor=4.0, original_max_position_embeddings=4096))
    yield RopeSpec(head_dim=32, scaling=Linear(factor=2.0))


def reference_checks(seed: int = 0) -> Iterator[CheckResult]:
    """Yield one result per (spec, property) of the reference."""
    rng = np.random.default_rng(seed)
    positions = np.array([0, 1, 7, 4095, 65537, 10**6])
    for spec in _specs():
        label = f"d={spec.head_dim} r={spec.rotary_dim} {spec.layout} {spec.rope_type}"
        x = rng.standard_normal((len(positions), 2, spec.head_dim))
        p = positions[:, None]
        outs = {form: apply_rope(x, p, spec, form=form) for form in FORMS}
        worst = max(float(np.abs(outs[f] - outs["matrix"]).max()) for f in FORMS)
        yield CheckResult(f"forms agree ({label})", worst <= FORMS_TOL, f"max |diff| {worst:.1e} <= {FORMS_TOL:.0e}")
        m = rope_matrix(spec, 4095, scaled=False)
        orth = float(np.abs(m.T @ m - np.eye(spec.head_dim)).max())
        yield CheckResult(f"R is orthogonal ({label})", orth <= FORMS_TOL, f"max |RᵀR - I| {orth:.1e}")
    for d, r in ((8, 8), (64, 64), (64, 16)):
        perm = layout_permutation(r, d)
        inter, half = (
            RopeSpec(head_dim=d, rotary_dim=r, layout="interleaved"),
            RopeSpec(head_dim=d, rotary_dim=r, layout="half"),
        )
        x = rng.standard_normal((len(positions), d))
        diff = float(np.abs(apply_rope(x[:, perm], positions, half) - apply_rope(x, positions, inter)[:, perm]).max())
        yield CheckResult(f"half(Px) = P interleaved(x) (d={d} r={r})", diff <= FORMS_TOL, f"max |diff| {diff:.1e}")


def render_reference_markdown(results: list[CheckResult]) -> str:
    lines = [
        "# The fp64 reference",
        "",
        "The three forms of the reference (block-diagonal matrix, elementwise "
        "`x·cos + rotate(x)·sin`, complex) checked against each other at positions up to 10^6.",
        "",
        "| check | verdict | evidence |",
        "|---|---|---|",
    ]
    lines += [f"| {r.name} | {'PASS' if r.passed else 'FAIL'} | {r.evidence} |" for r in results]
    return "\n".join(lines) + "\n"
