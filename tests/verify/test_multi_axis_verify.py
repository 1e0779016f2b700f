"""Multi-axis verification (``--positions axes``): the broken corpus, the correct twins, the adapters.

Each file of ``tests/fixtures/broken_axes`` must fail with its expected finding code and cause
(and its correct twin pass); the transformers adapters (Qwen2-VL, Qwen2.5-VL, Qwen3-VL text,
Qwen2-VL's and Pixtral's vision) must conform in float32 and raise no finding in bf16/fp16.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fixtures.broken_axes import TARGET_FILES
from ropecheck import RopeSpec
from ropecheck.axes import mrope
from ropecheck.errors import UsageError
from ropecheck.verify import verify
from ropecheck.verify.multiaxis import describe_mismatch

torch = pytest.importorskip("torch", reason="torch is a test extra")

MULTI_AXIS_ADAPTERS = ("hf-qwen2-vl", "hf-qwen2.5-vl", "hf-qwen3-vl", "hf-qwen2-vl-vision", "hf-pixtral-vision")


def _load(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"broken_axes_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", TARGET_FILES, ids=[p.stem for p in TARGET_FILES])
def test_broken_axes_corpus(path: Path) -> None:
    module = _load(path)
    spec = RopeSpec.from_hf_config(module.CONFIG, config_key=getattr(module, "CONFIG_KEY", None))
    report = verify(module.rope, spec, dtypes=("float32",), device="cpu", positions_mode="axes", name=path.stem)
    if module.EXPECTED is None:
        assert report.conforms, [f.message for f in report.findings]
        return
    assert not report.conforms and report.findings
    first = report.findings[0]
    assert (first.code, first.cause) == (module.EXPECTED, module.EXPECTED_CAUSE), first.message


def test_swapped_sections_named_in_words() -> None:
    module = _load(next(p for p in TARGET_FILES if p.stem == "sections_swapped"))
    spec = RopeSpec.from_hf_config(module.CONFIG)
    report = verify(module.rope, spec, dtypes=("float32",), device="cpu", positions_mode="axes")
    message = report.findings[0].message
    assert "pairs 16\u201339 rotate by the width position; the spec says height" in message
    assert "pairs 40\u201363 rotate by the height position; the spec says width" in message


def test_clamped_column_table_names_the_axis_whose_pairs_turn_wrong() -> None:
    module = _load(next(p for p in TARGET_FILES if p.stem == "width_table_clamped"))
    spec = RopeSpec.from_hf_config(module.CONFIG, config_key=module.CONFIG_KEY)
    report = verify(module.rope, spec, dtypes=("float32",), device="cpu", positions_mode="axes")
    message = report.findings[0].message
    assert "position 64 is rotated as position 63 on the w pairs (16 of 32 pairs); the h pairs turn by 64" in message


def test_describe_mismatch() -> None:
    axes = mrope((16, 24, 24), 128)
    expected = list(axes.axis_of_pair())
    got: list[int | None] = [0] * 16 + [1] * 24 + [None] * 24
    assert describe_mismatch(got, expected, axes) == ["pairs 40\u201363 turn by no position axis; the spec says width"]


def test_axes_mode_needs_a_multi_axis_spec() -> None:
    with pytest.raises(UsageError, match="multi-axis spec"):
        verify(lambda x, positions: x, RopeSpec(head_dim=8), positions_mode="axes", dtypes=("float32",))


@pytest.mark.parametrize("name", MULTI_AXIS_ADAPTERS)
def test_multi_axis_adapters(name: str) -> None:
    pytest.importorskip("transformers", reason="transformers is a test extra")
    from ropecheck.adapters import get_adapter

    fn, spec = get_adapter(name).load()
    report = verify(fn, spec, dtypes=("float32", "bfloat16", "float16"), device="cpu", name=name)
    assert report.convention == "axes"
    assert report.conforms, [(f.dtype, f.label, f.message) for f in report.findings]
    names = {c.name for c in report.checks if c.status == "pass"}
    assert {"multiaxis:zero", "multiaxis:pairs", "multiaxis:reference", "property:axis_relative_position"} <= names


def test_text_view_reduces_to_1d() -> None:
    """The correct M-RoPE at one position on every axis is the 1-D RoPE with the same frequencies."""
    from ropecheck.reference import apply_rope

    module = _load(next(p for p in TARGET_FILES if p.stem == "correct_qwen2_vl"))
    spec = RopeSpec.from_hf_config(module.CONFIG)
    x = np.random.default_rng(0).standard_normal((1, 6, 2, 128))
    p = np.arange(6)[None]
    out = module.rope(torch.tensor(x), torch.tensor(np.stack([p] * 3))).numpy()
    np.testing.assert_allclose(out, apply_rope(x, p[..., None], spec.with_(axes=None)), atol=1e-5)


def test_numpy_target_in_axes_mode() -> None:
    """A numpy multi-axis target (the fp64 reference itself) conforms under --positions axes."""
    from ropecheck.reference import apply_rope

    spec = RopeSpec(head_dim=16, base=1e6, axes=mrope((2, 3, 3), 16), max_position_embeddings=4096)

    def fn(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return apply_rope(x, positions[..., None], spec, axes_at="first").astype(x.dtype)

    fn.rope_backend = "numpy"  # type: ignore[attr-defined]
    report = verify(fn, spec, dtypes=("float32",), device="cpu", positions_mode="axes")
    assert report.conforms, [f.message for f in report.findings]


@pytest.mark.parametrize(
    ("name", "reference_fails", "relative_fails"),
    [
        ("correct_qwen2_vl", False, False),
        ("correct_pixtral", False, False),
        ("sections_swapped", True, False),
        ("rows_columns_transposed", True, False),
        ("width_table_clamped", True, True),
    ],
)
def test_per_axis_checks_bite(name: str, reference_fails: bool, relative_fails: bool) -> None:
    """The per-axis reference and relative-position checks on their own (verify runs them after the identification)."""
    from ropecheck.protocol import as_implementation
    from ropecheck.verify.model import RunContext, VerifyReport
    from ropecheck.verify.multiaxis import check_axes_reference, check_axes_relative

    module = _load(next(p for p in TARGET_FILES if p.stem == name))
    spec = RopeSpec.from_hf_config(module.CONFIG, config_key=getattr(module, "CONFIG_KEY", None))
    impl = as_implementation(module.rope, convention="positions")
    report = VerifyReport(name, spec, "given", ("float32",), "cpu", 4096, "axes", 0)
    ctx = RunContext(impl, spec, spec.head_dim, ("float32",), "cpu", 4095)
    check_axes_reference(report, ctx, "float32")
    check_axes_relative(report, ctx, "float32")
    status = {c.name: c.status for c in report.checks}
    assert status["multiaxis:reference"] == ("fail" if reference_fails else "pass")
    assert status["property:axis_relative_position"] == ("fail" if relative_fails else "pass")


def _rounded_theta_target(spec: RopeSpec, *, swap_axes: bool = False) -> Any:
    """An axial target whose theta_i is rounded to x's dtype when it is low-precision (a buffer cast with the model),
    exact in float32; ``swap_axes`` also reads the axes in the other order (a real axes bug)."""
    from ropecheck.diagnosis.output import rotate_by, round_to
    from ropecheck.reference import pair_positions

    def fn(x: Any, positions: Any) -> Any:
        low = {torch.bfloat16: "bfloat16", torch.float16: "float16"}.get(x.dtype)
        theta = spec.inv_freq() if low is None else round_to(spec.inv_freq(), low)
        pos = positions.numpy()[::-1] if swap_axes else positions.numpy()
        per_pair = pair_positions(spec, pos, "first")[:, :, None, :]
        return torch.from_numpy(rotate_by(x.double().numpy(), spec, per_pair * theta)).to(x.dtype)

    return fn


@pytest.mark.parametrize(("swap", "cause"), [(False, "inv_freq_low_precision"), (True, "axes_wrong")])
def test_a_rounded_theta_per_axis_is_named_as_precision_not_axes(swap: bool, cause: str) -> None:
    """theta_i rounded to bfloat16 misses the exact per-axis reference at far positions; the output is the
    reference with the rounded theta_i, so the finding is precision (each pair turns by its spec axis). The twin
    with the axes read in the other order is still an axes finding."""
    from ropecheck.axes import axial
    from ropecheck.protocol import as_implementation
    from ropecheck.verify.model import RunContext, VerifyReport
    from ropecheck.verify.multiaxis import check_axes_reference

    spec = RopeSpec(head_dim=32, layout="interleaved", axes=axial(32, "split", sections=(8, 8)))
    impl = as_implementation(_rounded_theta_target(spec, swap_axes=swap), convention="positions")
    report = VerifyReport("t", spec, "given", ("bfloat16",), "cpu", 4096, "axes", 0)
    check_axes_reference(report, RunContext(impl, spec, spec.head_dim, ("bfloat16",), "cpu", 4095), "bfloat16")
    (check,) = [c for c in report.checks if c.name == "multiaxis:reference"]
    assert (check.status, check.cause) == ("fail", cause)
    assert ("rounded to bfloat16" in check.evidence) == (not swap)


def _rounded_positions_target(spec: RopeSpec, *, swap_axes: bool = False) -> Any:
    """A target with mapped positions (``scale * p``) held in x's dtype when it is low-precision (a float position
    buffer cast with the model), exact in float32; ``swap_axes`` also reads the axes in the other order."""
    from ropecheck.diagnosis.output import rotate_by, round_to
    from ropecheck.reference import pair_positions

    scale, offset = spec.position_map()

    def fn(x: Any, positions: Any) -> Any:
        low = {torch.bfloat16: "bfloat16", torch.float16: "float16"}.get(x.dtype)
        pos = positions.numpy()[::-1] if swap_axes else positions.numpy()
        mapped = scale * pair_positions(spec, pos, "first")[:, :, None, :] + offset
        mapped = mapped if low is None else round_to(round_to(mapped, "float32"), low)
        return torch.from_numpy(rotate_by(x.double().numpy(), spec, mapped * spec.inv_freq())).to(x.dtype)

    return fn


@pytest.mark.parametrize(("swap", "cause"), [(False, "positions_low_precision"), (True, "axes_wrong")])
def test_mapped_positions_rounded_per_axis_are_named_as_precision_not_axes(swap: bool, cause: str) -> None:
    """Positions p / 3 (SAM 3's global layers) kept in a bfloat16 buffer miss the exact per-axis reference; the
    output is the reference at the rounded positions, so the finding is the positions' precision. The twin with the
    axes read in the other order is still an axes finding."""
    from dataclasses import replace

    from ropecheck.axes import axial
    from ropecheck.protocol import as_implementation
    from ropecheck.verify.model import RunContext, VerifyReport
    from ropecheck.verify.multiaxis import check_axes_reference

    shared = axial(64, "shared", names=("x", "y"))
    axes = replace(shared, axes=tuple(replace(a, scale=1 / 3) for a in shared.axes))
    spec = RopeSpec(head_dim=64, layout="interleaved", axes=axes)
    impl = as_implementation(_rounded_positions_target(spec, swap_axes=swap), convention="positions")
    report = VerifyReport("t", spec, "given", ("bfloat16",), "cpu", 72, "axes", 0)
    check_axes_reference(report, RunContext(impl, spec, spec.head_dim, ("bfloat16",), "cpu", 71), "bfloat16")
    (check,) = [c for c in report.checks if c.name == "multiaxis:reference"]
    assert (check.status, check.cause) == ("fail", cause), check.evidence


def test_a_partial_multi_axis_spec_is_diagnosed_without_a_whole_head_variant() -> None:
    """Partial multi-axis RoPE (MiniMax H3's 96 of 128 dims over t, h, w): the precision diagnosis has no
    whole-head variant to try (no axis would own the rest), and names the rounded theta_i."""
    from ropecheck.axes import axial

    axes = axial(24, "split", names=("t", "h", "w"), sections=(4, 4, 4))
    spec = RopeSpec(head_dim=32, rotary_dim=24, layout="half", axes=axes)
    report = verify(
        _rounded_theta_target(spec), spec, dtypes=("float32", "bfloat16"), device="cpu", positions_mode="axes"
    )
    assert report.dtype_verdict("float32")["labels"] == []
    assert report.dtype_verdict("bfloat16")["labels"] == ["precision/inv_freq_low_precision"]
