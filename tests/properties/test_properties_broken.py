"""The properties have teeth: every deliberately broken implementation is caught.

* The property x bug matrix (``fixtures.broken.BROKEN``): each bug fails exactly the
  properties listed for it, on two seeded samples in float32.
* Every step of a multi-step property (``fixtures.broken.STEPS``) fails on its own bug.
* No bug survives all properties (in every dtype), and every property catches a bug.
* Hypothesis finds each property's bug by itself and shrinks it to a readable
  counterexample: the smallest head_dim, a basis vector, positions next to 0.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import Phase, find, given, settings

import fixtures.broken as bugs
from fixtures.broken import BROKEN, STEPS
from isolated import run_isolated
from ropecheck import Default, RopeSpec
from ropecheck import strategies as rst
from ropecheck.properties import PROPERTIES, Sample, run_all


@pytest.mark.parametrize("bug", list(BROKEN))
def test_property_by_bug_matrix_is_exact(bug: str) -> None:
    factory, spec, expected = BROKEN[bug]
    assert expected <= set(PROPERTIES)
    for seed in (0, 1):
        failed = {r.name for r in run_all(factory(spec), spec, seed=seed) if not r.passed}
        assert failed == expected, (
            f"{bug} (seed {seed}): escaped {sorted(expected - failed)}, also caught by {sorted(failed - expected)}"
        )


@pytest.mark.parametrize(("name", "step"), list(STEPS), ids=[f"{n}-{s}" for n, s in STEPS])
def test_every_step_of_a_property_fails_on_its_bug(name: str, step: str) -> None:
    factory, spec, _ = BROKEN[STEPS[name, step]]
    result = PROPERTIES[name](factory(spec), spec, rng=0)
    assert not result.passed and result.context["check"] == step, result.message()
    assert "RoPE context: position" in result.message(), result.message()


@pytest.mark.parametrize("dtype", ["float64", "bfloat16", "float16"])
def test_no_bug_survives_in_any_dtype(dtype: str) -> None:
    for bug, (factory, spec, _expected) in BROKEN.items():
        failed = {r.name for r in run_all(factory(spec), spec, dtype=dtype, seed=0) if not r.passed}
        assert failed, f"{bug} survives every property in {dtype}"


def test_no_bug_survives_and_every_property_catches_one() -> None:
    assert len(BROKEN) >= 12
    assert set().union(*(props for _, _, props in BROKEN.values())) == set(PROPERTIES)
    caught_by: dict[str, set[str]] = {name: set() for name in PROPERTIES}
    for bug, (factory, spec, _) in BROKEN.items():
        failed = {r.name for r in run_all(factory(spec), spec, seed=2) if not r.passed}
        assert failed, f"{bug} survives every property"
        for name in failed:
            caught_by[name].add(bug)
    assert all(caught_by.values()), {name: sorted(b) for name, b in caught_by.items() if not b}


def test_bugs_are_bugs_on_other_specs_too() -> None:
    """Spec-independent bugs also fail for interleaved, partial and YaRN specs."""
    specs = [
        RopeSpec(head_dim=16, layout="interleaved", base=500000.0),
        RopeSpec(head_dim=12, rotary_dim=8),
        RopeSpec.from_hf_config(
            {
                "head_dim": 16,
                "rope_theta": 10000.0,
                "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 256},
            }
        ),
    ]
    for bug, (factory, _, _) in BROKEN.items():
        for spec in specs:
            if bug in ("partial_rotary_all_dims", "partial_rotary_last_dims") and spec.rotary_dim == spec.head_dim:
                continue  # these bugs only exist under partial rotary
            failed = [r.name for r in run_all(factory(spec), spec, seed=0) if not r.passed]
            assert failed, f"{bug} survives on {spec.describe()}"


# --------------------------------------------------------------------------- Hypothesis finds them

TEETH: dict[str, Callable[[RopeSpec], Any]] = {
    "matches_reference": bugs.sign_reversed,
    "layout_equivalence": bugs.layout_swapped,
    "translation_invariance": bugs.cache_clamped,
    "translation_invariance_attention": bugs.cos_sin_squared,
    "relative_position": bugs.cos_sin_scaled,
    "norm_preservation": bugs.cos_sin_scaled,
    "identity_at_zero": bugs.positions_off_by_one,
    "composition": bugs.positions_off_by_one,
    "inverse": bugs.cos_sin_squared,
    "head_batch_independence": bugs.positions_from_first_row,
    "passthrough": bugs.partial_rotary_all_dims,
    "consistency": bugs.dynamic_ntk_cache_never_reset,
}
# no explain phase: it re-runs the failure under a tracer to list the lines only failures reach,
# which costs most of the time here and says nothing about the counterexample
_QUICK = [Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink]
# one bug: after a first hit Hypothesis otherwise looks for more for up to ten seconds of wall-clock time,
# so on a loaded machine it would shrink a different counterexample
_FIND = settings(
    derandomize=True, database=None, max_examples=1000, deadline=None, phases=_QUICK, report_multiple_bugs=False
)


# the smallest head_dim that can show each property's bug: the layouts coincide at d = 2, a pass-through
# dim needs d >= 4, and at d = 2 the only frequency is base^0 = 1 whatever a cache does to the base
SMALLEST_D = {"layout_equivalence": 4, "passthrough": 4, "consistency": 4}


def search_counterexample(name: str) -> tuple[RopeSpec, Sample]:
    """Hypothesis's shrunk counterexample for the property's bug (run by :func:`run_isolated`)."""
    factory = TEETH[name]

    def fails(drawn: tuple[RopeSpec, Sample]) -> bool:
        spec, sample = drawn
        return not PROPERTIES[name](factory(spec), spec, sample=sample).passed

    return find(rst.spec_and_sample(max_head_dim=8, max_seq=2, kinds=["default"]), fails, settings=_FIND)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PROPERTIES))
def test_hypothesis_finds_a_readable_counterexample(name: str) -> None:
    # in a fresh interpreter: what Hypothesis draws depends on the modules imported before it (see isolated.py)
    spec, sample = run_isolated(search_counterexample, name)
    # the smallest d, basis vectors, at most two tokens, positions next to 0: what a person can check by hand
    assert isinstance(spec.scaling, Default) and spec.base == 10000.0
    assert spec.head_dim == SMALLEST_D.get(name, 2), (spec, sample)
    nonzero = np.concatenate([sample.x[sample.x != 0], sample.y[sample.y != 0]])
    assert 2 <= nonzero.size <= 3 and set(np.abs(nonzero)) == {1.0}, sample  # q and k are never all zero
    assert int(np.prod(sample.x.shape[:3])) <= 2, sample
    assert sample.positions.max() <= 1 and sample.positions_b.max() <= 1, sample
    assert sample.shift <= 64, sample


PRINTED = {
    # property: (bug, what the printed sample must show, the message's RoPE context line)
    "identity_at_zero": (
        bugs.positions_off_by_one,
        ["x=np.array([[[[1.0,0.0]]]])", "positions=np.array([[0]])"],
        "RoPE context: position 0, dimension pair (0, 1)",
    ),
    "head_batch_independence": (
        bugs.positions_from_first_row,
        # two rows, the second a basis vector; the first shrinks to a basis vector or to zeros (both minimal:
        # which one Hypothesis reaches depends on the examples it tried before, not on wall-clock time)
        [
            re.compile(r"x=np\.array\(\[\[\[\[[01]\.0,0\.0\]\]\],\[\[\[1\.0,0\.0\]\]\]\]\)"),
            "positions=np.array([[0],[1]])",
        ],
        "RoPE context: position 1, dimension pair (0, 1), head 0, batch row 1",
    ),
}


def printed_failure(name: str) -> tuple[str, str]:
    """(Hypothesis's notes, the error's text) for the property's bug under @given (run by :func:`run_isolated`)."""
    bug = PRINTED[name][0]

    @settings(
        derandomize=True,
        database=None,
        max_examples=100,
        deadline=None,
        print_blob=False,
        phases=_QUICK,
        report_multiple_bugs=False,
    )
    @given(rst.spec_and_sample(max_head_dim=8, max_seq=3))
    def inner(drawn: tuple[RopeSpec, Sample]) -> None:
        spec, sample = drawn
        result = PROPERTIES[name](bug(spec), spec, sample=sample)
        assert result.passed, result.message()

    try:
        inner()
    except AssertionError as exc:
        return "\n".join(getattr(exc, "__notes__", [])), str(exc)
    raise AssertionError(f"{name}: Hypothesis found no failure for {bug.__name__}")


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PRINTED))
def test_falsifying_example_printed_by_hypothesis_is_small(name: str) -> None:
    _, shown, context = PRINTED[name]
    notes, message = run_isolated(printed_failure, name)
    # what a person reads: the spec, unit vectors, small positions, then the assert_close-like message
    flat = notes.replace("\n", "").replace(" ", "")
    assert "Falsifying example" in notes or "Failing test case" in notes, notes
    assert "head_dim=2," in flat, notes
    assert all(piece.search(flat) if isinstance(piece, re.Pattern) else piece in flat for piece in shown), notes
    assert f"{name}: " in message and "are not close!" in message
    assert context in message, message
