"""JAX targets under the canonical protocol: judged like torch ones (bfloat16 through ml_dtypes, backward through
jax.vjp), their planted bugs named with the torch twins' codes. Skipped when jax is not installed."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("jax")

from ropecheck import RopeSpec
from ropecheck.target import load_target
from ropecheck.verify import verify

PATH = Path(__file__).resolve().parents[1] / "fixtures" / "jax" / "rope_jax.py"
SPEC = RopeSpec(head_dim=64, layout="interleaved", max_position_embeddings=4096)
DTYPES = ("float32", "bfloat16")


def test_a_correct_jax_rope_conforms_forward_and_backward() -> None:
    report = verify(load_target(f"{PATH}:rope"), SPEC, device="cpu", dtypes=DTYPES)
    assert report.conforms, [f.message for f in report.findings]
    passed = {(c.name, c.dtype) for c in report.checks if c.category == "backward" and c.status == "pass"}
    assert {("backward", dt) for dt in DTYPES} <= passed


@pytest.mark.parametrize(
    ("attr", "label"),
    [("rope_half_layout", "layout"), ("rope_backward_wrong_way", "backward/backward_direction")],
)
def test_planted_bugs_get_the_torch_twins_codes(attr: str, label: str) -> None:
    report = verify(load_target(f"{PATH}:{attr}"), SPEC, device="cpu", dtypes=DTYPES)
    assert not report.conforms
    assert report.findings[0].label == label, [f.label for f in report.findings]
