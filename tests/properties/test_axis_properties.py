"""The multi-axis properties and strategies: the exact reference passes on every drawn spec; each bug fails.

Hypothesis draws multi-axis specs (M-RoPE sections or interleaved, 2-D axial) and per-axis
positions; the fp64 reference (a numpy ``fn(x, positions)`` with positions ``(axes, batch,
seq)``) passes every property. The broken multi-axis corpus fails the properties that name
its bug, and the correct twins pass them.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fixtures import BROKEN_AXES
from ropecheck import RopeSpec
from ropecheck import strategies as rst
from ropecheck.axis_properties import (
    check_axis_matches_reference,
    check_axis_relative_position,
    check_axis_section_coverage,
    check_axis_text_reduction,
)
from ropecheck.errors import UsageError
from ropecheck.reference import apply_rope


def _reference(spec: RopeSpec) -> Any:
    def fn(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return apply_rope(np.asarray(x, dtype=np.float64), np.asarray(positions)[..., None], spec, axes_at="first")

    fn.rope_backend = "numpy"  # type: ignore[attr-defined]
    return fn


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_reference_has_every_property(data: st.DataObject) -> None:
    spec = data.draw(rst.multi_axis_specs())
    pos = data.draw(rst.axis_positions(spec, batch=1, seq=4))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 4, 1, spec.head_dim))
    fn = _reference(spec)
    assert check_axis_matches_reference(fn, spec, x, pos, dtype="float64").passed
    assert check_axis_section_coverage(fn, spec, dtype="float64").passed
    assert check_axis_text_reduction(fn, spec, x, pos[0], dtype="float64").passed
    k = rng.standard_normal(x.shape)
    shift = data.draw(st.integers(0, 1000))
    axis = data.draw(st.none() | st.integers(0, len(spec.axis_names) - 1))
    assert check_axis_relative_position(fn, spec, x, k, pos, shift, axis=axis, dtype="float64").passed


@given(spec=rst.multi_axis_specs(), data=st.data())
@settings(max_examples=10, deadline=None)
def test_strategies_draw_valid_specs_and_positions(spec: RopeSpec, data: st.DataObject) -> None:
    assert spec.axes is not None
    spec.axes.check(spec.half)
    same = data.draw(rst.axis_positions(spec, batch=2, seq=3, same=True))
    assert same.shape == (len(spec.axis_names), 2, 3) and (same == same[0]).all()


def test_strategies_shrink_to_small_mrope() -> None:
    from hypothesis import find

    spec = find(rst.multi_axis_specs(), lambda s: True, settings=settings(derandomize=True, database=None))
    assert spec.axes is not None and spec.head_dim <= 6 and spec.base == 10000 and spec.layout == "half"


@pytest.mark.parametrize(
    "kwargs", [{"schemes": ["spiral"]}, {"max_pairs": 2}, {"layout": "diagonal"}], ids=["scheme", "pairs", "layout"]
)
def test_bad_strategy_arguments(kwargs: dict[str, Any]) -> None:
    with pytest.raises(UsageError):
        rst.multi_axis_specs(**kwargs)


def _fixture(name: str) -> tuple[Any, RopeSpec]:
    path = BROKEN_AXES / f"{name}.py"
    spec_ = importlib.util.spec_from_file_location(f"axes_prop_{name}", path)
    assert spec_ is not None and spec_.loader is not None
    module = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(module)
    return module.rope, RopeSpec.from_hf_config(module.CONFIG, config_key=getattr(module, "CONFIG_KEY", None))


# fixture -> the properties that must fail on it (the others pass)
EXPECTED_FAILURES = {
    "correct_qwen2_vl": set(),
    "correct_qwen3_vl": set(),
    "correct_pixtral": set(),
    "sections_swapped": {"reference", "coverage"},
    "sections_off_by_one": {"reference", "coverage"},
    "chunked_as_interleaved": {"reference", "coverage"},
    "interleaved_as_chunked": {"reference", "coverage"},
    "axis_ignored": {"reference", "coverage"},
    "rows_columns_transposed": {"reference", "coverage"},
    "text_positions_differ": {"reference", "text", "coverage"},
    "width_table_clamped": {"reference", "text", "relative"},
    "axes_collapsed_max": {"reference", "coverage"},
    # no pair is a rotation: the relative-position property breaks too, text tokens (one position) are fine
    "pair_halves_on_two_axes": {"reference", "coverage", "relative"},
}


@pytest.mark.parametrize("name", sorted(EXPECTED_FAILURES))
def test_properties_on_the_corpus(name: str) -> None:
    pytest.importorskip("torch", reason="the corpus is torch code")
    fn, spec = _fixture(name)
    rng = np.random.default_rng(1)
    n = len(spec.axis_names)
    x = rng.standard_normal((1, 6, 1, spec.head_dim))
    pos = rng.integers(0, 500, size=(n, 1, 6))
    results = {
        "reference": check_axis_matches_reference(fn, spec, x, pos),
        "coverage": check_axis_section_coverage(fn, spec),
        "text": check_axis_text_reduction(fn, spec, x, pos[0]),
        "relative": check_axis_relative_position(fn, spec, x, rng.standard_normal(x.shape), pos % 60, 37),
    }
    failed = {k for k, r in results.items() if not r.passed}
    assert failed == EXPECTED_FAILURES[name], {k: r.evidence for k, r in results.items()}


def test_fixture_names_are_covered() -> None:
    assert {p.stem for p in Path(BROKEN_AXES).glob("*.py") if not p.name.startswith("_")} == set(EXPECTED_FAILURES)
