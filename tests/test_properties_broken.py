"""The properties have teeth: every deliberately broken implementation is caught.

* The bug table (``broken_impls.BROKEN``): each bug fails at least the properties listed
  for it, on seeded samples, in float32 and bfloat16.
* No bug survives all properties, and every property catches at least one bug.
* Hypothesis finds each property's bug by itself and shrinks it to a readable
  counterexample: the smallest head_dim, a basis vector, positions next to 0.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import broken_impls as bugs
import numpy as np
import pytest
from broken_impls import BROKEN
from hypothesis import find, given, settings

from ropecheck import Default, RopeSpec
from ropecheck import strategies as rst
from ropecheck.properties import PROPERTIES, Sample, run_all


@pytest.mark.parametrize("bug", list(BROKEN))
def test_bug_is_caught_by_the_properties_expected_to_catch_it(bug: str) -> None:
    factory, spec, expected = BROKEN[bug]
    for seed in (0, 1):
        failed = {r.name for r in run_all(factory(spec), spec, seed=seed) if not r.passed}
        assert expected <= failed, f"{bug} (seed {seed}) escaped {sorted(expected - failed)}"


@pytest.mark.parametrize("dtype", ["float64", "bfloat16", "float16"])
def test_no_bug_survives_in_any_dtype(dtype: str) -> None:
    for bug, (factory, spec, expected) in BROKEN.items():
        failed = {r.name for r in run_all(factory(spec), spec, dtype=dtype, seed=0) if not r.passed}
        assert failed, f"{bug} survives every property in {dtype}"


def test_no_bug_survives_and_every_property_catches_one() -> None:
    assert len(BROKEN) >= 12
    caught_by: dict[str, set[str]] = {name: set() for name in PROPERTIES}
    for bug, (factory, spec, _) in BROKEN.items():
        failed = {r.name for r in run_all(factory(spec), spec, seed=2) if not r.passed}
        assert failed, f"{bug} survives every property"
        for name in failed:
            caught_by[name].add(bug)
    assert all(caught_by.values()), {name: sorted(b) for name, b in caught_by.items() if not b}


def test_bugs_are_bugs_on_other_specs_too() -> None:
    """Spec-independent bugs also fail for interleaved, partial and YaRN specs."""
    specs = [RopeSpec(head_dim=16, layout="interleaved", base=500000.0), RopeSpec(head_dim=12, rotary_dim=8),
             RopeSpec.from_hf_config({"head_dim": 16, "rope_theta": 10000.0,
                                      "rope_scaling": {"rope_type": "yarn", "factor": 4.0,
                                                       "original_max_position_embeddings": 256}})]
    for bug, (factory, _, _) in BROKEN.items():
        for spec in specs:
            if bug in ("rotates_all_dims", "rotates_last_dims") and spec.rotary_dim == spec.head_dim:
                continue  # these bugs only exist under partial rotary
            failed = [r.name for r in run_all(factory(spec), spec, seed=0) if not r.passed]
            assert failed, f"{bug} survives on {spec.describe()}"


# --------------------------------------------------------------------------- Hypothesis finds them

TEETH: dict[str, Callable[[RopeSpec], Any]] = {
    "matches_reference": bugs.wrong_sign,
    "layout_equivalence": bugs.swapped_layout,
    "translation_invariance": bugs.cache_too_short,
    "translation_invariance_attention": bugs.cache_too_short,
    "relative_position": bugs.scaled,
    "norm_preservation": bugs.scaled,
    "identity_at_zero": bugs.positions_off_by_one,
    "composition": bugs.positions_off_by_one,
    "inverse": bugs.cos_sin_squared,
    "head_batch_independence": bugs.row0_positions,
    "passthrough": bugs.rotates_all_dims,
    "consistency": bugs.dynamic_ntk_cache,
}
_FIND = settings(derandomize=True, database=None, max_examples=1000, deadline=None)


@pytest.mark.parametrize("name", list(PROPERTIES))
def test_hypothesis_finds_a_readable_counterexample(name: str) -> None:
    factory = TEETH[name]

    def fails(drawn: tuple[RopeSpec, Sample]) -> bool:
        spec, sample = drawn
        return not PROPERTIES[name](factory(spec), spec, sample=sample).passed

    spec, sample = find(rst.spec_and_sample(max_head_dim=8, max_seq=2, kinds=["default"]), fails, settings=_FIND)
    # the smallest d, basis-like vectors, positions next to 0: what a person can check by hand
    assert isinstance(spec.scaling, Default) and spec.base == 10000.0
    assert spec.head_dim <= 8
    nonzero = np.concatenate([sample.x[sample.x != 0], sample.y[sample.y != 0]])
    assert 1 <= nonzero.size <= 6 and set(np.abs(nonzero)) == {1.0}, sample
    assert sample.positions.max() <= 2 and sample.positions_b.max() <= 2, sample
    assert sample.shift <= 64, sample


def test_falsifying_example_printed_by_hypothesis_is_small() -> None:
    @settings(derandomize=True, database=None, max_examples=100, deadline=None, print_blob=False)
    @given(rst.spec_and_sample(max_head_dim=8, max_seq=3))
    def inner(drawn: tuple[RopeSpec, Sample]) -> None:
        spec, sample = drawn
        result = PROPERTIES["identity_at_zero"](bugs.positions_off_by_one(spec), spec, sample=sample)
        assert result.passed, result.message()

    with pytest.raises(AssertionError) as info:
        inner()
    # what a person reads: the spec, one unit vector at position 0, then the assert_close-like message
    notes = "\n".join(getattr(info.value, "__notes__", []))
    flat = notes.replace("\n", "").replace(" ", "")
    assert "Falsifying example" in notes or "Failing test case" in notes, notes
    assert "head_dim=2," in flat and "positions=array([[0]])" in flat, notes
    assert "x=array([[[[1.,0.]]]])" in flat or "x=array([[[[0.,1.]]]])" in flat, notes
    assert "identity_at_zero: fn(x, 0) and x are not close!" in str(info.value)
    assert "RoPE context: position 0, dimension pair (0, 1)" in str(info.value)
