"""The report's planted-bug rows (ropecheck.report.engines.planted_rows): a bug caught with its finding holds; a
'bug' the verifier passes, or names otherwise, does not."""

from __future__ import annotations

from pathlib import Path

from ropecheck.report.engines import planted_rows

MODULE = """
from ropecheck.properties import torch_reference
from ropecheck.spec import RopeSpec

HALF = RopeSpec(head_dim=16, max_position_embeddings=4096)
OTHER = HALF.with_(layout="interleaved")
MUTANTS = {
    "interleaved_for_half": (lambda: torch_reference(OTHER), HALF, ("float32",), "layout", None),
    "not_a_bug": (lambda: torch_reference(HALF), HALF, ("float32",), "layout", None),
    "named_otherwise": (lambda: torch_reference(HALF.with_(base=500.0)), HALF, ("float32",), "layout", None),
    "needs_a_runtime": (lambda: None, HALF, ("float32",), "layout", None),
}
RUNTIME = {"interleaved_for_half": "torch", "not_a_bug": "torch", "named_otherwise": "torch",
           "needs_a_runtime": "no_such_runtime_here"}
"""


def test_planted_rows_hold_only_for_the_planted_finding(tmp_path: Path) -> None:
    (tmp_path / "toy_mutants.py").write_text(MODULE)
    rows = {r.name: r for r in planted_rows(lambda _: None, str(tmp_path))}
    assert (
        rows["planted: interleaved_for_half"].held
        and "first finding layout" in rows["planted: interleaved_for_half"].evidence
    )
    assert not rows["planted: not_a_bug"].held and rows["planted: not_a_bug"].verdict == "PASS"
    assert not rows["planted: named_otherwise"].held and "frequencies" in rows["planted: named_otherwise"].evidence
    assert (
        rows["planted: needs_a_runtime"].verdict == "SKIP"
        and "no_such_runtime_here" in rows["planted: needs_a_runtime"].evidence
    )
