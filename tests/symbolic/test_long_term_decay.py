"""Theorem 6: the score tied to q and k, the bound's inequalities, and the measured curve behind the plot.

Each check is also run on a broken input it must catch: the conjugate on the wrong side, an
inequality turned round, an envelope drawn from a subsampled curve.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sympy
from sympy import Sum, conjugate

from ropecheck.cli.main import main
from ropecheck.proofs.long_term_decay import (
    DISTANCES,
    FAR,
    decay_envelope,
    decay_figures,
    dense_decay,
    long_term_decay,
)
from ropecheck.symbolic import decay_svg, render_proof_markdown
from ropecheck.symbolic.engine.decide import decide_le
from ropecheck.symbolic.engine.proof import Verdict

COMMITTED = Path(__file__).resolve().parents[2] / "reports" / "proofs"
SCORE_STEPS = ("score_pair", "score_regroup_base", "score_regroup_step", "score_sum")


@pytest.fixture(scope="module")
def proof() -> Any:
    return long_term_decay(small=(1, 2))


@pytest.fixture(scope="module")
def dense() -> np.ndarray:
    """The curve at every integer r, computed here the plain way (one r at a time), not by the module's code.

    It agrees with the module's to about 1e-11 (r * theta_i is rounded differently), hence rtol=1e-9 below.
    """
    d, base = 128, 10000
    theta = np.array([base ** (-2.0 * i / d) for i in range(d // 2)])
    return np.array([np.abs(np.cumsum(np.exp(1j * r * theta))).mean() for r in range(DISTANCES)])


def _holds_dense_extremes(envelope: list[tuple[int, int, float, float]], dense: np.ndarray) -> bool:
    """Whether the bins cover r = 1 .. len - 1 once, in order, each with the dense curve's own min and max."""
    if [lo for lo, *_ in envelope] != [1] + [hi + 1 for _, hi, *_ in envelope[:-1]] or envelope[-1][1] != len(
        dense
    ) - 1:
        return False
    return all(
        np.isclose(lo_v, dense[lo : hi + 1].min(), rtol=1e-9) and np.isclose(hi_v, dense[lo : hi + 1].max(), rtol=1e-9)
        for lo, hi, lo_v, hi_v in envelope
    )


# --------------------------------------------------------------------------- what is proved


def test_the_score_is_re_of_the_sum_for_every_d(proof: Any) -> None:
    steps = {s.name: s for s in proof.steps}
    assert proof.verdict == Verdict.PROVED and proof.every_d
    for name in (*SCORE_STEPS, "real_part_sum_base", "real_part_sum_step", "score_d2", "score_d4"):
        assert steps[name].verdict == Verdict.PROVED, name
    # the sum over the pairs has a symbolic upper limit: it is every d, not some d
    assert isinstance(steps["score_sum"].lhs, Sum) and steps["score_sum"].lhs.limits[0][2].free_symbols
    assert steps["score_regroup_step"].method == "peel" and steps["real_part_sum_step"].method == "peel"


@pytest.mark.parametrize(
    "pairing",
    [
        pytest.param(lambda zq, zk: conjugate(zq) * zk, id="conjugate-on-q"),
        pytest.param(lambda zq, zk: zq * zk, id="no-conjugate"),
    ],
)
def test_a_wrong_h_is_refuted_with_a_counterexample(pairing: Any) -> None:
    broken = long_term_decay(small=(1, 2), pairing=pairing)
    steps = {s.name: s for s in broken.steps}
    assert broken.verdict == Verdict.REFUTED and not broken.as_intended
    for name in ("score_pair", "score_sum", "score_d2", "score_d4"):
        assert steps[name].verdict == Verdict.REFUTED and steps[name].counterexample is not None, name
    assert steps["by_parts_step"].verdict == Verdict.PROVED  # the Abel identity does not depend on h


def test_the_inequalities_are_decided_as_inequalities(proof: Any) -> None:
    steps = {s.name: s for s in proof.steps}
    for name in ("real_part_bound", "triangle", "bound_max"):
        assert steps[name].relation == "<=" and steps[name].method.startswith("nonnegative("), name
    # the same procedure turned round (|z| <= |Re z|) is refuted, not proved
    x, y = sympy.symbols("x y", real=True)
    assert decide_le(sympy.sqrt(x**2 + y**2), sympy.Abs(x))[0] == Verdict.REFUTED


# --------------------------------------------------------------------------- what is measured


def test_the_module_curve_is_the_dense_curve(dense: np.ndarray) -> None:
    assert np.allclose(dense_decay(), dense, rtol=1e-9, atol=0)
    assert dense[0] == 32.5  # (1/64) * sum_{j=1}^{64} j


def test_the_envelope_holds_every_dense_extreme(proof: Any, dense: np.ndarray) -> None:
    envelope = proof.data["decay_curve"]["envelope"]
    assert _holds_dense_extremes(envelope, dense)
    assert len(envelope) >= 360  # at least one bin per pixel column of the ~360 px wide axes


def test_an_envelope_of_a_subsampled_curve_is_caught(dense: np.ndarray) -> None:
    """The curve drawn through 0..255 and 64 log-spaced points hides the excursions between them."""
    sampled = np.unique(np.r_[np.arange(256), np.geomspace(256, DISTANCES - 1, 64).astype(int)])
    drawn = np.interp(np.arange(DISTANCES), sampled, dense[sampled])
    assert not _holds_dense_extremes(decay_envelope(drawn), dense)
    assert drawn[FAR:].max() < dense[FAR:].max() - 1


def test_the_measured_figures_are_computed() -> None:
    got = decay_figures(np.array([5.0, 4.0, 6.0, 3.0, 7.0, 2.0]), far=2)
    assert (got["steps"], got["steps_up"], got["first_rise"]) == (5, 2, 1)
    assert (got["max_past_far"], got["argmax_past_far"], got["min_past_far"], got["argmin_past_far"]) == (7, 4, 2, 5)
    assert decay_figures(np.array([3.0, 2.0, 1.0]), far=0)["first_rise"] is None


def test_the_page_prints_the_measured_figures_and_not_fixed_ones(proof: Any, dense: np.ndarray) -> None:
    got = proof.data["decay_curve"]["measured"]
    assert got["steps_up"] == int((np.diff(dense) > 0).sum()) and got["max_past_far"] == pytest.approx(
        dense[FAR:].max()
    )
    page = render_proof_markdown(proof)
    assert f"{got['steps_up']:,} of the {got['steps']:,} steps" in page and "**not** monotonically" in page
    assert f"{got['max_past_far']:.4f}, at r = {got['argmax_past_far']:,}" in page
    changed = {**proof.data["decay_curve"], "measured": {**got, "steps_up": 0, "max_past_far": 1.25}}
    page = render_proof_markdown(dataclasses.replace(proof, data={"decay_curve": changed}))
    assert "decreases at each of the" in page and "1.2500" in page and "not** monotonically" not in page


def test_the_plot_is_drawn_from_the_envelope_and_deterministic(proof: Any) -> None:
    curve = proof.data["decay_curve"]
    svg = decay_svg(curve)
    assert svg == decay_svg(curve) and svg.startswith("<svg") and "Date" not in svg
    lo, hi, vmin, vmax = curve["envelope"][-1]
    raised = {**curve, "envelope": [*curve["envelope"][:-1], (lo, hi, vmin, vmax + 5)]}
    assert decay_svg(raised) != svg


def test_the_committed_page_and_plot_are_what_the_code_writes(tmp_path: Path) -> None:
    assert main(["prove", "long_term_decay", "--out", str(tmp_path)]) == 0
    for name in ("long_term_decay.md", "decay.svg"):
        assert (COMMITTED / name).read_text() == (tmp_path / name).read_text(), (
            f"reports/proofs/{name} is stale: run `ropecheck prove long_term_decay`"
        )
