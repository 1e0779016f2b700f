"""Every property holds for the reference in every form, dtype and calling convention.

Hypothesis draws specs (every schedule, both layouts, partial rotary) and samples; each
property is run on the fp64 reference (matrix, elementwise and complex forms, numpy and
torch inputs), on the plain torch implementation, and on wrappers using the offset and
no-positions conventions. Also here: the result's message, the tolerance table, the
protocol adapter and the all-at-once helpers.
"""

from __future__ import annotations

import inspect
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from ropecheck import DynamicNTK, LongRoPE, RopeSpec, YaRN
from ropecheck import strategies as rst
from ropecheck.errors import UsageError
from ropecheck.properties import (
    PROPERTIES,
    PropertyResult,
    assert_rope_properties,
    draw_sample,
    reference_impl,
    run_all,
    torch_reference,
)
from ropecheck.protocol import Implementation, as_implementation, detect_convention
from ropecheck.reference import apply_rope
from ropecheck.tolerance import TOLERANCES, UNIT_ROUNDOFF, tolerance

DTYPES = ("float64", "float32", "bfloat16", "float16")
IMPLS = {
    "reference-elementwise": lambda spec: reference_impl(spec, "elementwise"),
    "reference-matrix": lambda spec: reference_impl(spec, "matrix"),
    "reference-complex": lambda spec: reference_impl(spec, "complex"),
    "torch": torch_reference,
}


@pytest.mark.parametrize("impl", list(IMPLS))
@pytest.mark.parametrize("name", list(PROPERTIES))
@given(dtype=st.sampled_from(DTYPES), data=st.data())
def test_property_holds_for_reference(name: str, impl: str, dtype: str, data: st.DataObject) -> None:
    spec = data.draw(rst.rope_specs(max_head_dim=32), label="spec")
    # the matrix form builds one matrix per distinct position: keep its long calls short
    if impl == "reference-matrix" and isinstance(spec.scaling, (DynamicNTK, LongRoPE)):
        spec = spec.with_(scaling=replace(spec.scaling, original_max_position_embeddings=64))
    sample = data.draw(
        rst.samples(spec, dtype=dtype, max_position=64 if impl == "reference-matrix" else None), label="sample"
    )
    result = PROPERTIES[name](IMPLS[impl](spec), spec, dtype=dtype, sample=sample)
    assert result.passed, result.message()


def _offset_form(spec: RopeSpec) -> Any:
    inner = torch_reference(spec)

    def rope(x: torch.Tensor, offset: int) -> torch.Tensor:
        pos = (torch.arange(x.shape[1]) + offset).expand(x.shape[0], -1)
        return inner(x, pos)

    return rope


def _no_positions_form(spec: RopeSpec) -> Any:
    inner = torch_reference(spec)

    def rope(x: torch.Tensor) -> torch.Tensor:
        return inner(x, torch.arange(x.shape[1]).expand(x.shape[0], -1))

    return rope


def _numpy_only_form(spec: RopeSpec) -> Any:
    def rope(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        if not isinstance(x, np.ndarray):
            raise TypeError("numpy arrays only")
        return apply_rope(x, positions[..., None], spec).astype(x.dtype)

    return rope


@pytest.mark.parametrize("form", [_offset_form, _no_positions_form, _numpy_only_form], ids=["offset", "none", "numpy"])
@pytest.mark.parametrize("name", list(PROPERTIES))
@settings(max_examples=20)
@given(dtype=st.sampled_from(("float64", "float32", "float16")), data=st.data())
def test_property_holds_in_every_convention(name: str, form: Any, dtype: str, data: st.DataObject) -> None:
    spec = data.draw(rst.rope_specs(max_head_dim=16), label="spec")
    sample = data.draw(rst.samples(spec, dtype=dtype, max_position=96), label="sample")
    result = PROPERTIES[name](form(spec), spec, dtype=dtype, sample=sample)
    assert result.passed, result.message()


@pytest.mark.parametrize("dtype", DTYPES)
def test_run_all_passes_for_real_implementation_at_moderate_positions(dtype: str) -> None:
    spec = RopeSpec(head_dim=128, base=500000.0)
    results = run_all(torch_reference(spec), spec, dtype=dtype, seed=3)
    assert [r.name for r in results] == list(PROPERTIES)
    assert all(r.passed for r in results), "\n".join(r.message() for r in results if not r.passed)


def test_yarn_partial_rotary_scales_rotated_dims_only() -> None:
    spec = RopeSpec(head_dim=16, rotary_dim=8, scaling=YaRN(4.0, 64))
    assert spec.attention_factor > 1
    assert_rope_properties(torch_reference(spec), spec, dtype="float32")


# --------------------------------------------------------------------------- API shape


def test_registry_checks_share_one_keyword_only_signature() -> None:
    for name, check in PROPERTIES.items():
        assert check.__name__ == f"check_{name}"
        params = inspect.signature(check).parameters
        assert list(params)[:2] == ["fn", "spec"]
        for option, default in (("dtype", "float32"), ("device", "cpu"), ("rng", None), ("sample", None)):
            assert params[option].kind is inspect.Parameter.KEYWORD_ONLY
            assert params[option].default == default


def test_same_seed_same_result_and_rng_forms() -> None:
    spec = RopeSpec(head_dim=8)
    fn = torch_reference(spec)
    a = PROPERTIES["matches_reference"](fn, spec, rng=5)
    b = PROPERTIES["matches_reference"](fn, spec, rng=np.random.default_rng(5))
    assert a == b


def _failing() -> PropertyResult:
    spec = RopeSpec(head_dim=8, layout="interleaved")

    def wrong(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        return torch_reference(spec)(x, positions + 1)

    return PROPERTIES["matches_reference"](wrong, spec, dtype="bfloat16")


def test_message_reads_like_assert_close_then_rope_context() -> None:
    result = _failing()
    assert not result.passed
    text = result.message()
    order = [
        "matches_reference:",
        "not close!",
        "Mismatched elements:",
        "Greatest absolute difference:",
        "Greatest relative difference:",
        "RoPE context: position",
        "dimension pair (",
        "dtype bfloat16",
        "layout interleaved",
        "Spec: interleaved RoPE",
        "How to fix:",
    ]
    positions = [text.index(piece) for piece in order]
    assert positions == sorted(positions), text
    assert {"position", "pair", "dtype", "layout", "head", "batch"} <= set(result.context)
    assert result.max_abs_err > result.tolerance[1]


def test_passing_result_message_is_one_line() -> None:
    spec = RopeSpec(head_dim=4)
    result = PROPERTIES["norm_preservation"](torch_reference(spec), spec)
    assert result.passed and result.message().startswith("norm_preservation: passed")


def test_assert_rope_properties_raises_with_every_failure() -> None:
    spec = RopeSpec(head_dim=8)

    def twice(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        return torch_reference(spec)(x, 2 * positions)

    with pytest.raises(AssertionError, match=r"RoPE properties failed \(\d+ of 12\): matches_reference"):
        assert_rope_properties(twice, spec)


def test_an_implementation_that_raises_is_a_failed_result() -> None:
    spec = RopeSpec(head_dim=4)

    def broken(x: Any, positions: Any) -> Any:
        raise RuntimeError("boom")

    result = PROPERTIES["norm_preservation"](broken, spec)
    assert not result.passed and "RuntimeError: boom" in result.evidence and result.code == "raised"
    assert "canonical protocol" not in result.message()  # the target raised inside: not a calling problem

    def two_args(x: Any) -> Any:  # called as fn(x, positions): the protocol is the fix
        return x

    result = PROPERTIES["norm_preservation"](Implementation(two_args, "positions", "torch"), spec)
    assert not result.passed and "canonical protocol" in result.message()


def test_wrong_shape_is_a_failed_result() -> None:
    spec = RopeSpec(head_dim=4)
    result = PROPERTIES["identity_at_zero"](lambda x, positions: x[..., :2], spec)
    assert not result.passed and "returned shape" in result.evidence


def test_unknown_property_and_bad_dtype_are_usage_errors() -> None:
    spec = RopeSpec(head_dim=4)
    with pytest.raises(UsageError, match="unknown properties"):
        run_all(torch_reference(spec), spec, properties=["nope"])
    with pytest.raises(UsageError, match="dtype must be one of"):
        run_all(torch_reference(spec), spec, dtype="int8")


# --------------------------------------------------------------------------- protocol


@pytest.mark.parametrize(
    ("fn", "expected"),
    [
        (lambda x, positions: x, "positions"),
        (lambda x, pos=None: x, "positions"),
        (lambda x, offset=0: x, "offset"),
        (lambda x, start_pos: x, "offset"),
        (lambda x: x, "none"),
        (lambda *args: args[0], "positions"),
    ],
    ids=["positions", "pos-default", "offset", "start_pos", "none", "varargs"],
)
def test_detect_convention(fn: Any, expected: str) -> None:
    assert detect_convention(fn) == expected


def test_convention_and_backend_can_be_overridden() -> None:
    impl = as_implementation(lambda x, p: x, convention="offset", backend="numpy", name="mine")
    assert (impl.convention, impl.backend, impl.name) == ("offset", "numpy", "mine")
    assert as_implementation(impl) is impl
    with pytest.raises(UsageError, match="convention must be"):
        as_implementation(lambda x: x, convention="sideways")
    with pytest.raises(UsageError, match="must be callable"):
        as_implementation(42)  # type: ignore[arg-type]


def test_auto_backend_falls_back_to_numpy() -> None:
    spec = RopeSpec(head_dim=4)
    impl = as_implementation(_numpy_only_form(spec))
    sample = draw_sample(spec, 0)
    out = impl.run(sample.x, sample.positions, dtype="float64")
    assert impl.resolved_backend == "numpy"
    np.testing.assert_allclose(out, apply_rope(sample.x, sample.positions[..., None], spec), atol=1e-12)


def test_emulated_positions_match_native_ones() -> None:
    spec = RopeSpec(head_dim=6, layout="interleaved")
    sample = draw_sample(spec, 1, max_position=200)
    native = Implementation(torch_reference(spec), "positions", "torch").run(
        sample.x, sample.positions, dtype="float64"
    )
    for form in (_offset_form, _no_positions_form):
        emulated = as_implementation(form(spec)).run(sample.x, sample.positions, dtype="float64")
        np.testing.assert_allclose(emulated, native, atol=1e-12)


# --------------------------------------------------------------------------- tolerance table


def test_tolerance_table_is_unit_roundoff_times_growth() -> None:
    assert set(TOLERANCES) == set(UNIT_ROUNDOFF) == set(DTYPES)
    # the module docstring's rule: rtol = 4u; atol = 11u where cos/sin may be 2 ulps off (fp32, fp64 on CUDA), else 8u
    atol_units = {"float64": 11, "float32": 11, "bfloat16": 8, "float16": 8}
    for name, (rtol, atol) in TOLERANCES.items():
        assert rtol == 4 * UNIT_ROUNDOFF[name] and atol == atol_units[name] * UNIT_ROUNDOFF[name], name
    assert tolerance("float32") == TOLERANCES["float32"]
    assert tolerance(torch.bfloat16) == TOLERANCES["bfloat16"]
    assert tolerance(np.float16) == TOLERANCES["float16"]


def test_tolerance_grows_with_position_kind_and_head_dim() -> None:
    base = tolerance("float32")
    assert tolerance("float32", max_position=4096)[1] > base[1]
    assert tolerance("float32", "self")[0] == 3 * base[0]
    assert tolerance("float16", "score", head_dim=128)[1] > tolerance("float16", "score")[1]
    with pytest.raises(UsageError, match="kind must be one of"):
        tolerance("float32", "vibes")


@pytest.mark.parametrize(
    "bug, dtype, label",
    [
        ("positions_ignored", "float32", "positions/positions_ignored"),
        ("positions_off_by_one", "float32", "positions/positions_shifted"),
        ("positions_from_first_row", "float32", "positions/positions_from_row0"),
        ("sign_reversed", "float32", "direction"),
        ("exponent_i_over_d", "float32", "frequencies/exponent_wrong"),
        ("rotated_twice", "bfloat16", "frequencies/angle_scaled"),
    ],
)
def test_a_failed_match_names_its_cause_with_the_verifiers_code(bug: str, dtype: str, label: str) -> None:
    from fixtures import broken

    spec = RopeSpec(head_dim=64)
    result = PROPERTIES["matches_reference"](getattr(broken, bug)(spec), spec, dtype=dtype)
    assert not result.passed and result.label == label and result.diagnosis
    assert f"Diagnosis [{label}]" in result.message()
