"""The eight theorem families reach their intended verdicts, with the rewrites recorded."""

from __future__ import annotations

import pytest
import sympy

from ropecheck.errors import UsageError
from ropecheck.proofs import FAMILIES, THEOREMS, resolve, run_proofs
from ropecheck.proofs.context_extension import context_extension
from ropecheck.proofs.layouts import layouts_agree
from ropecheck.proofs.long_term_decay import long_term_decay
from ropecheck.proofs.relative_position_general import concrete_d_check, relative_position_general
from ropecheck.symbolic import Verdict

_NAMES = list(THEOREMS)


@pytest.mark.parametrize("name", _NAMES)
def test_theorem_as_intended(name: str) -> None:
    proof = THEOREMS[name][1]()
    assert proof.as_intended, [(s.name, s.verdict, s.method) for s in proof.steps]
    assert proof.verdict == Verdict.PROVED
    for step in proof.steps:
        assert step.method, step.name
        if step.verdict == Verdict.PROVED:
            assert step.counterexample is None and step.method not in ("none", "counterexample")


def test_families_cover_one_to_eight() -> None:
    assert sorted(num for num, _, _ in FAMILIES.values()) == list(range(1, 9))


def test_general_d_is_structural() -> None:
    proof = relative_position_general()
    block_sum = proof.steps[-1]
    assert block_sum.method.startswith("termwise(")
    upper = block_sum.lhs.limits[0][2]
    assert upper.free_symbols and next(iter(upper.free_symbols)).name == "h"  # symbolic d/2


@pytest.mark.parametrize("d", [2, 6, 16])
def test_concrete_d_expansion(d: int) -> None:
    proof = concrete_d_check(d)
    assert proof.verdict == Verdict.PROVED
    assert f"x {d // 2}" in proof.steps[0].method


@pytest.mark.parametrize("d", [0, 3, -2])
def test_concrete_d_rejects_odd(d: int) -> None:
    with pytest.raises(UsageError):
        concrete_d_check(d)


def test_dynamic_ntk_refuted_as_intended_but_theorem_proved() -> None:
    proof = context_extension()
    refuted = proof.intended_refutations
    assert [s.name for s in refuted] == ["dynamic_ntk_cross_length", "longrope_cross_length"]
    assert refuted[0].verdict == Verdict.REFUTED
    assert proof.verdict == Verdict.PROVED and proof.as_intended
    assert proof.data["dynamic_ntk"]["theta_query"] == "1/300"


def test_decay_curve_decays_on_average_not_monotonically() -> None:
    proof = long_term_decay(small=(1, 2))
    curve = proof.data["decay_curve"]
    means = [b["mean"] for b in curve["bands"]]
    assert means[-2] < means[0] / 5 and not curve["decreasing_band_means"]  # measured: the last band rises again
    assert curve["measured"]["steps_up"] > 0
    assert curve["points"][0] == (0, 32.5)  # (1/64) * sum_{j=1}^{64} j


def test_wrong_permutation_makes_layouts_fail() -> None:
    """Odd-first instead of even-first: the coordinates and the scores are refuted, for every d."""
    proof = layouts_agree(permutation=(lambda i: (i, 1), lambda i: (i, 0)))
    assert proof.verdict == Verdict.REFUTED and not proof.as_intended
    refuted = {s.name for s in proof.steps if s.verdict == Verdict.REFUTED}
    assert refuted == {"conjugate_first", "conjugate_second", "scores"}


def test_resolve_names() -> None:
    assert [b.__name__ for b in resolve(["relative-position"])] == ["rotation_2d", "relative_position_2d"]
    assert [b.__name__ for b in resolve(["layouts_agree", "forms"])] == ["forms_agree", "layouts_agree"]
    with pytest.raises(UsageError, match="unknown theorem"):
        resolve(["nope"])


def test_run_proofs_with_d_only() -> None:
    proofs = run_proofs([], d=4)
    assert [p.name for p in proofs] == ["relative_position_d4"]


def test_concrete_d_negative_twin_refuted() -> None:
    import sympy

    proof = concrete_d_check(8, sign=-1)
    step = proof.steps[0]
    assert proof.verdict == Verdict.REFUTED and step.counterexample is not None
    left, right = complex(sympy.N(step.counterexample.lhs, 30)), complex(sympy.N(step.counterexample.rhs, 30))
    assert abs(left - right) > 1e-9


def test_theorem_7_covers_every_schedule_of_the_spec_with_its_own_formulas() -> None:
    """Each schedule of RopeSpec has an example, a step, and exact thetas that match the spec's fp64 values."""
    from ropecheck.proofs.context_extension import EXAMPLES
    from ropecheck.schedules import ROPE_TYPES

    assert set(EXAMPLES) == set(ROPE_TYPES)
    assert all(isinstance(EXAMPLES[k].scaling, ROPE_TYPES[k]) for k in EXAMPLES)
    proof = context_extension()
    names = {s.name for s in proof.steps}
    assert {f"{k.replace('-', '_')}_same_length" for k in ROPE_TYPES} <= names
    assert max(proof.data["schedule_agreement"].values()) < 1e-12


def test_a_wrong_symbolic_schedule_is_caught_by_the_agreement_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """If the symbolic form drifted from the spec's formula (here: Linear without its factor), the check says so."""
    from ropecheck.schedules import Linear
    from ropecheck.symbolic.engine import schedules as symbolic_schedules

    monkeypatch.setitem(symbolic_schedules.SYMBOLIC_SCHEDULES, Linear, lambda spec, sch, i, length:
                        symbolic_schedules.exact(spec.base) ** sympy.Rational(-2 * i, spec.rotary_dim))  # fmt: skip
    proof = context_extension()
    assert proof.data["schedule_agreement"]["linear"] > 0.5
    assert any("differs from the fp64 values of `RopeSpec`" in n for n in proof.notes)


def test_multi_axis_partition_step_fails_on_a_scheme_that_is_not_a_partition() -> None:
    """Broken input: an axis table where pair 1 rotates by two axes and pair 3 by none."""
    from ropecheck.axes import Axis, MultiAxis
    from ropecheck.proofs.multi_axis import partition_matrices
    from ropecheck.symbolic.engine.decide import decide

    bad = MultiAxis("custom", (Axis("t", (0, 1), (0, 1), 8), Axis("h", (1, 2), (1, 2), 8)))
    verdict, _, _ = decide(*partition_matrices(bad, 4))
    assert verdict.value == "REFUTED"


def test_multi_axis_examples_are_the_specs_axes() -> None:
    """Theorem 8's examples are RopeSpec.axes of configs shaped like the published ones (the fixture files)."""
    from fixtures import CONFIGS
    from ropecheck import RopeSpec
    from ropecheck.axes import axial, mrope
    from ropecheck.proofs.multi_axis import EXAMPLES

    files = {
        "qwen2_vl": ("qwen2-vl-7b.json", None, mrope((16, 24, 24), 128)),
        "qwen3_vl": ("qwen3-vl-8b.json", None, mrope((24, 20, 20), 128, interleaved=True)),
        "qwen2_vl_vision": ("qwen2-vl-7b.json", "vision_config", axial(80, "shared")),
        "pixtral": ("pixtral-12b.json", "vision_config", axial(64, "alternating")),
    }
    assert set(EXAMPLES) == set(files)
    for key, (file, config_key, built) in files.items():
        assert EXAMPLES[key][1] == RopeSpec.from_hf_config(CONFIGS / file, config_key=config_key).axes == built
