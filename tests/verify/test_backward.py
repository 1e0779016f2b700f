"""The backward checks: a hand-written autograd RoPE conforms, each one-line mutant of its backward is caught
with the finding that names its bug, and targets without autograd or double backward are SKIP, never FAIL."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from ropecheck import RopeSpec
from ropecheck.diagnosis import CAUSES
from ropecheck.gradients import check_backward
from ropecheck.hf import scaling_from_dict
from ropecheck.protocol import as_implementation, reference_impl, torch_reference
from ropecheck.target import load_target
from ropecheck.verify import verify

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "backward"
MUTANTS = sorted((FOLDER / "mutants").glob("*.py"))
DTYPES = ("float32", "bfloat16", "float16")


def _literal(path: Path, name: str) -> Any:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    return None


def _spec(path: Path) -> RopeSpec:
    fields = dict(_literal(path, "SPEC"))
    scaling = scaling_from_dict(fields.pop("rope_scaling", None))
    return RopeSpec(scaling=scaling, **fields)


def _backward_checks(report: Any) -> dict[tuple[str, str], str]:
    return {(c.name, c.dtype): c.status for c in report.checks if c.category == "backward"}


def test_the_correct_function_conforms_forward_and_backward() -> None:
    path = FOLDER / "rope_function.py"
    report = verify(load_target(f"{path}:rope"), _spec(path), device="cpu", dtypes=DTYPES)
    assert report.conforms, [f.message for f in report.findings]
    statuses = _backward_checks(report)
    assert all(statuses[("backward", dt)] == "pass" for dt in DTYPES)
    assert all(statuses[("backward:double", dt)] == "pass" for dt in DTYPES)


def test_there_are_enough_mutants() -> None:
    assert len(MUTANTS) >= 6
    assert {_literal(p, "EXPECTED_CAUSE") for p in MUTANTS} >= {
        "backward_direction",
        "backward_attention_factor",
        "backward_passthrough",
        "backward_not_transpose",
        "backward_dtype",
    }


def _changed_lines(path: Path) -> list[tuple[str, str]]:
    def code(p: Path) -> list[str]:
        return [
            ln for ln in p.read_text().split('"""', 2)[2].splitlines() if not ln.startswith(("ORIGINAL", "EXPECTED"))
        ]

    a, b = code(FOLDER / "rope_function.py"), code(path)
    a = [ln for ln in a if ln != "EXPECTED = None"]
    return [(x, y) for x, y in zip(a, b) if x != y]


@pytest.mark.parametrize("path", MUTANTS, ids=[p.stem for p in MUTANTS])
def test_mutant_is_caught_with_its_finding(path: Path) -> None:
    assert len(_changed_lines(path)) == 1, "a mutant changes exactly one line"
    cause = _literal(path, "EXPECTED_CAUSE")
    assert _literal(path, "EXPECTED") == "backward" and CAUSES[cause][0] == "backward"
    report = verify(load_target(f"{path}:rope"), _spec(path), device="cpu", dtypes=DTYPES)
    assert not report.conforms and report.exit_code == 1
    first = report.findings[0]
    assert (first.code, first.cause) == ("backward", cause), [(f.label, f.message) for f in report.findings]
    assert first.hint
    # the forward is untouched: every forward check passes
    assert not [c.name for c in report.checks if c.status == "fail" and c.category != "backward"]


def test_no_backward_skips_the_checks() -> None:
    path = MUTANTS[0]
    report = verify(load_target(f"{path}:rope"), _spec(path), device="cpu", dtypes=("float32",), backward=False)
    assert report.conforms and not _backward_checks(report)


def test_double_backward_not_supported_is_skip_not_fail() -> None:
    from torch.autograd.function import once_differentiable

    spec = RopeSpec(head_dim=8)
    inner = torch_reference(spec)
    inv = as_implementation(torch_reference(RopeSpec(head_dim=8, direction=-1)))

    class Once(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
            ctx.save_for_backward(positions)
            return inner(x, positions)

        @staticmethod
        @once_differentiable
        def backward(ctx: Any, g: torch.Tensor) -> Any:
            (positions,) = ctx.saved_tensors
            return inv.fn(g, positions), None

    def rope(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        return Once.apply(x, positions)

    results = {r.name: r for r in check_backward(as_implementation(rope), spec)}
    assert results["backward"].status == "pass"
    assert results["backward:double"].status == "skip" and "double backward" in results["backward:double"].evidence


def test_targets_without_autograd_are_skip() -> None:
    spec = RopeSpec(head_dim=8)
    numpy_target = as_implementation(reference_impl(spec), backend="numpy")
    (res,) = check_backward(numpy_target, spec)
    assert res.status == "skip" and "numpy" in res.evidence

    def detached(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return torch_reference(spec)(x, positions)

    (res,) = check_backward(as_implementation(detached), spec)
    assert res.status == "skip" and "autograd" in res.evidence


def test_the_reference_passes_in_every_dtype_with_partial_rotary_and_interleaved() -> None:
    for spec in (RopeSpec(head_dim=16, rotary_dim=8), RopeSpec(head_dim=16, layout="interleaved")):
        for dt in DTYPES:
            assert [r.status for r in check_backward(as_implementation(torch_reference(spec)), spec, dtype=dt)] == [
                "pass",
                "pass",
            ]


def test_a_wrong_forward_with_its_own_autograd_is_left_to_the_forward_checks() -> None:
    spec = RopeSpec(head_dim=8)
    wrong = torch_reference(RopeSpec(head_dim=8, base=500000.0))
    res = check_backward(as_implementation(wrong), spec)
    assert [r.status for r in res] == ["pass", "pass"] and "forward itself deviates" in res[0].evidence
    assert np.isfinite(res[0].details["worst_over_bound"])


@pytest.mark.parametrize("name", ["hf-llama", "torchtune"])
def test_library_autograd_paths_pass_backward_in_every_dtype(name: str) -> None:
    from ropecheck.adapters import get_adapter

    adapter = get_adapter(name)
    reason = adapter.unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    fn, spec = adapter.load()
    report = verify(fn, spec, device="cpu", dtypes=DTYPES)
    assert report.conforms, [f.message for f in report.findings]
    statuses = _backward_checks(report)
    assert all(statuses[("backward", dt)] == "pass" for dt in DTYPES), statuses


def test_the_adapters_matrix_cell_states_the_backward_verdict() -> None:
    from ropecheck.verify.batch import backward_cell, dtype_cell

    good = FOLDER / "rope_function.py"
    bad = FOLDER / "mutants" / "backward_rotates_forward.py"
    report = verify(load_target(f"{good}:rope"), _spec(good), device="cpu", dtypes=("float32",))
    assert dtype_cell(report, "float32") == "PASS; backward: PASS"
    report = verify(load_target(f"{bad}:rope"), _spec(bad), device="cpu", dtypes=("float32",))
    assert backward_cell(report, "float32") == "FAIL backward_direction"
    assert dtype_cell(report, "float32").startswith("FAIL backward")
    report = verify(load_target(f"{bad}:rope"), _spec(bad), device="cpu", dtypes=("float32",), backward=False)
    assert backward_cell(report, "float32") == "not run"
