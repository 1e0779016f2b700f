"""The public Hypothesis strategies: valid values, every schedule reachable, readable shrinking, bad arguments."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from ropecheck import ROPE_TYPES, DynamicNTK, RopeSpec
from ropecheck import strategies as rst
from ropecheck.errors import UsageError
from ropecheck.properties import position_limit
from ropecheck.protocol import round_to_dtype
from ropecheck.reference import MAX_EXACT_POSITION

# no explain phase (a traced re-run that only annotates failures): find() needs none of it
_FIND = settings(
    derandomize=True,
    database=None,
    max_examples=300,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
    report_multiple_bugs=False,  # stop generating at the first hit: no wall-clock limit decides what is shrunk
)


@given(d=rst.head_dims(min_value=4, max_value=64))
def test_head_dims_are_even_and_in_range(d: int) -> None:
    assert d % 2 == 0 and 4 <= d <= 64


@given(data=st.data(), d=rst.head_dims(max_value=32))
def test_rotary_dims_are_even_and_fit(data: st.DataObject, d: int) -> None:
    r = data.draw(rst.rotary_dims(d))
    assert r % 2 == 0 and 2 <= r <= d


@given(spec=rst.rope_specs(max_head_dim=64))
def test_specs_are_valid_and_have_finite_frequencies(spec: RopeSpec) -> None:
    assert spec.rotary_dim <= spec.head_dim and spec.layout in ("half", "interleaved")
    inv = spec.inv_freq()
    k = spec.turning_pairs()  # all pairs turn, except proportional RoPE's last ones (theta 0)
    assert 1 <= k <= spec.half and inv.shape == (spec.half,) and np.all(np.isfinite(inv))
    assert np.all(inv[:k] > 0) and np.all(inv[k:] == 0), (spec, inv)


@pytest.mark.parametrize("kind", list(ROPE_TYPES))
def test_every_schedule_is_reachable(kind: str) -> None:
    spec = find(rst.rope_specs(max_head_dim=16), lambda s: s.rope_type == kind, settings=_FIND)
    assert spec.rope_type == kind
    only = find(rst.rope_specs(kinds=[kind]), lambda s: True, settings=_FIND)
    assert only.rope_type == kind


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_layouts_and_partial_rotary_are_reachable(layout: str) -> None:
    spec = find(rst.rope_specs(), lambda s: s.layout == layout and s.rotary_dim < s.head_dim, settings=_FIND)
    assert spec.layout == layout


@given(p=rst.positions(batch=2, seq=5, kind="contiguous"))
def test_contiguous_positions(p: np.ndarray) -> None:
    assert p.dtype == np.int64 and p.tolist() == [list(range(5))] * 2


@given(p=rst.positions(batch=3, seq=4, kind="offset", max_value=100))
def test_offset_positions_are_one_run_for_every_row(p: np.ndarray) -> None:
    assert np.all(p == p[0, 0] + np.arange(4)) and p.max() <= 100


@given(p=rst.positions(batch=3, seq=4, kind="row-offsets", max_value=100))
def test_row_offsets_are_one_run_per_row(p: np.ndarray) -> None:
    assert np.all(p == p[:, :1] + np.arange(4)) and p.min() >= 0 and p.max() <= 100


def test_default_positions_reach_rows_with_different_positions() -> None:
    # what a bug that uses row 0's positions for every row needs
    p = find(rst.positions(batch=2, seq=2), lambda p: (p[0] != p[1]).all(), settings=_FIND)
    assert p.shape == (2, 2)


@given(p=rst.positions(batch=st.integers(1, 3), seq=st.integers(1, 6), kind="arbitrary", max_value=50))
def test_arbitrary_positions_in_range(p: np.ndarray) -> None:
    assert p.ndim == 2 and p.min() >= 0 and p.max() <= 50


def test_large_positions_reach_past_fp32_exactness() -> None:
    p = find(rst.positions(kind="large"), lambda p: p.max() > 2**24, settings=_FIND)
    assert p.max() <= MAX_EXACT_POSITION


@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16", "float16"])
@given(data=st.data())
def test_tensors_are_finite_and_representable(dtype: str, data: st.DataObject) -> None:
    x = data.draw(rst.tensors(shape=(2, 3, 1, 4), dtype=dtype))
    assert x.shape == (2, 3, 1, 4) and x.dtype == np.float64 and np.all(np.isfinite(x))
    assert np.array_equal(round_to_dtype(x, dtype), x)
    assert np.all((x == 0) | (np.abs(x) >= 2.0**-6))


@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16", "float16"])
@given(data=st.data())
def test_tensors_stay_finite_at_the_widest_bounds(dtype: str, data: st.DataObject) -> None:
    top = float(torch.finfo(getattr(torch, dtype)).max)
    x = data.draw(rst.tensors(shape=(4,), dtype=dtype, min_value=-top, max_value=top))
    assert np.all(np.isfinite(x)) and np.array_equal(round_to_dtype(x, dtype), x)


def test_torch_tensors_have_the_dtype() -> None:
    t = find(rst.tensors(shape=(1, 2, 1, 2), dtype="bfloat16", backend="torch"), lambda t: True, settings=_FIND)
    assert t.dtype == torch.bfloat16


@given(data=st.data())
def test_samples_keep_sums_and_shifts_within_the_limit(data: st.DataObject) -> None:
    spec = data.draw(rst.rope_specs(max_head_dim=8))
    s = data.draw(rst.samples(spec))
    limit = position_limit(spec)
    assert (s.positions + s.positions_b).max() <= limit and (s.positions + s.shift).max() <= limit
    assert s.x.shape == s.y.shape and s.x.shape[-1] == spec.head_dim and s.positions.shape == s.x.shape[:2]


def test_length_dependent_specs_stay_below_the_original_context() -> None:
    spec = RopeSpec(head_dim=8, scaling=DynamicNTK(2.0, 16))
    s = find(rst.samples(spec), lambda s: s.positions.max() + s.shift > 8, settings=_FIND)
    assert (s.positions + s.shift).max() <= 15 and (s.positions + s.positions_b).max() <= 15


# --------------------------------------------------------------------------- shrinking


def test_specs_shrink_to_the_simplest() -> None:
    spec = find(rst.rope_specs(), lambda s: True, settings=_FIND)
    assert spec == RopeSpec(head_dim=2)


def test_samples_shrink_to_one_unit_token_at_position_zero() -> None:
    s = find(rst.samples(RopeSpec(head_dim=4)), lambda s: True, settings=_FIND)
    assert s.x.shape == (1, 1, 1, 4) and s.x.tolist() == s.y.tolist() == [[[[1.0, 0.0, 0.0, 0.0]]]]
    assert s.positions.tolist() == [[0]] and s.positions_b.tolist() == [[0]] and s.shift == 0


@given(data=st.data())
def test_sample_tensors_are_never_all_zero(data: st.DataObject) -> None:
    # on an all-zero q or k every property holds: such an example would test nothing
    spec = data.draw(rst.rope_specs(max_head_dim=8))
    s = data.draw(rst.samples(spec))
    assert s.x.any() and s.y.any()


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@given(data=st.data())
def test_min_nonzero_entries_are_nonzero_and_normal(dtype: str, data: st.DataObject) -> None:
    x = data.draw(
        rst.tensors(shape=(2, 3), dtype=dtype, min_nonzero=3, min_magnitude=0.0, min_value=-1e-4, max_value=1e-4)
    )
    nonzero = x[x != 0]
    assert nonzero.size >= 3 and np.all(
        np.abs(nonzero) >= float(np.finfo(np.float32 if dtype == "float32" else np.float16).tiny)
    )


def test_head_dims_shrink_to_two() -> None:
    assert find(rst.head_dims(), lambda d: True, settings=_FIND) == 2


# --------------------------------------------------------------------------- profiles


def test_profiles_are_registered_for_third_parties() -> None:
    ci = settings.get_profile(rst.CI_PROFILE)
    assert ci.derandomize and ci.database is None and ci.deadline is None and ci.max_examples >= 50
    dev = settings.get_profile(rst.DEV_PROFILE)
    assert dev.max_examples < ci.max_examples and dev.deadline is None
    assert settings.get_profile("ci").derandomize  # the suite's alias (tests/conftest.py)


# --------------------------------------------------------------------------- bad arguments

BAD: list[tuple[str, Callable[[], Any], str]] = [
    ("head_dims-odd-min", lambda: rst.head_dims(min_value=3), "min_value must be an even integer"),
    ("head_dims-max-below-min", lambda: rst.head_dims(min_value=8, max_value=4), "max_value must be >= min_value"),
    ("rotary_dims-odd-head", lambda: rst.rotary_dims(7), "head_dim must be even"),
    ("rotary_dims-min-too-big", lambda: rst.rotary_dims(4, min_value=6), "min_value must be even, in"),
    ("bases-at-one", lambda: rst.bases(min_value=1.0), "need 1 < min_value <= max_value"),
    ("schedules-unknown", lambda: rst.schedules(8, kinds=["ntk-by-vibes"]), "kinds must be a non-empty subset"),
    ("schedules-empty", lambda: rst.schedules(8, kinds=[]), "kinds must be a non-empty subset"),
    ("positions-kind", lambda: rst.positions(kind="diagonal"), "kind must be one of"),
    ("positions-negative-max", lambda: rst.positions(max_value=-1), "max_value must be >= 0"),
    ("tensors-dtype", lambda: rst.tensors(shape=(1,), dtype="int8"), "dtype must be one of"),
    ("tensors-bounds", lambda: rst.tensors(shape=(1,), min_value=2, max_value=1), "need min_value <= max_value"),
    ("tensors-backend", lambda: rst.tensors(shape=(1,), backend="jax"), "backend must be 'numpy' or 'torch'"),
    ("tensors-min-nonzero-negative", lambda: rst.tensors(shape=(2,), min_nonzero=-1), "min_nonzero must be >= 0"),
    ("tensors-min-nonzero-too-many", lambda: rst.tensors(shape=(2,), min_nonzero=3), "does not fit in shape"),
    (
        "tensors-min-nonzero-no-value",
        lambda: rst.tensors(shape=(2,), min_nonzero=1, min_value=-1e-3, max_value=1e-3),
        "needs a value with",
    ),
    (
        "tensors-past-float16",
        lambda: rst.tensors(shape=(1,), dtype="float16", max_value=1e6),
        "must be finite in float16",
    ),
    (
        "tensors-past-bfloat16",
        lambda: rst.tensors(shape=(1,), dtype="bfloat16", min_value=-1e39),
        "must be finite in bfloat16",
    ),
    ("rope_specs-layout", lambda: rst.rope_specs(layout="diagonal"), "layout must be"),
    ("rope_specs-kinds", lambda: rst.rope_specs(kinds=["nope"]), "kinds must be a non-empty subset"),
    ("samples-sizes", lambda: rst.samples(RopeSpec(head_dim=2), max_seq=0), "must be >= 1"),
    ("samples-max-position", lambda: rst.samples(RopeSpec(head_dim=2), max_position=-1), "max_position must be >= 0"),
    ("spec_and_sample-sizes", lambda: rst.spec_and_sample(max_heads=0), "must be >= 1"),
    ("spec_and_sample-head-dim", lambda: rst.spec_and_sample(max_head_dim=1), "max_value must be >= min_value"),
    ("spec_and_sample-dtype", lambda: rst.spec_and_sample(dtype="int8"), "dtype must be one of"),
]


@pytest.mark.parametrize(("call", "message"), [(c, m) for _, c, m in BAD], ids=[i for i, _, _ in BAD])
def test_bad_arguments_raise_usage_error(call: Callable[[], Any], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        call()


def test_options_are_keyword_only() -> None:
    import inspect

    # at most one required positional (what the strategy is for: head_dim, rotary_dim, spec), options keyword-only
    leading = {"rotary_dims": "head_dim", "schedules": "rotary_dim", "samples": "spec", "axis_positions": "spec"}
    public = [n for n in rst.__all__ if callable(getattr(rst, n)) and n != "register_profiles"]
    assert len(public) == 12, public
    for name in public:
        params = list(inspect.signature(getattr(rst, name)).parameters.values())
        if name in leading:
            first = params.pop(0)
            assert first.name == leading[name] and first.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, name
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params), name
