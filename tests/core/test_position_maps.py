"""Axes with position maps (``(scale * p + offset) * theta_i``), own frequency tables and inert axes (scale 0).

The spec validates them and serialises them only where they differ from the defaults; the fp64 reference turns
each pair by its mapped position exactly (against a 60-digit evaluation), in every form and both directions;
integer-position specs are unchanged, down to their serialisation and tolerances.
"""

from __future__ import annotations

import json
import math

import mpmath
import numpy as np
import pytest

from ropecheck import RopeSpec
from ropecheck.axes import Axis, MultiAxis, axial, ltx_axes, ltx_frequencies, mrope
from ropecheck.errors import SpecError
from ropecheck.reference import FORMS, angle_extent, angles, apply_rope, phases


def _mapped(direction: int = 1) -> RopeSpec:
    """t: LTX-like (0.1 p - 1) on an own rising table; h: integer positions; w: inert at a fixed angle."""
    table = ltx_frequencies(10000.0, 2)
    axes = MultiAxis(
        "custom",
        (
            Axis("t", (0, 3), (0, 1), 4, scale=0.1, offset=-1.0, freqs=table),
            Axis("h", (1, 4), (0, 1), 4),
            Axis("w", (2, 5), (0, 1), 4, scale=0.0, offset=0.5),
        ),
        text_same_position=False,
    )
    return RopeSpec(head_dim=12, layout="interleaved", axes=axes, direction=direction)


def test_ltx_frequencies_follow_the_published_formula() -> None:
    got = ltx_frequencies(10000.0, 5)
    want = [math.pi / 2 * 10000.0 ** (k / 4) for k in range(5)]
    assert np.allclose(got, want, rtol=1e-15, atol=0)
    assert ltx_frequencies(10000.0, 1) == (math.pi / 2,)


def test_ltx_axes_take_turns_over_the_pairs() -> None:
    axes = ltx_axes(10000.0, 2, (20, 2048, 2048))
    assert axes.axis_of_pair() == (0, 1, 2, 0, 1, 2)
    assert [a.scale for a in axes.axes] == [0.1, 2 / 2048, 2 / 2048]
    assert {a.offset for a in axes.axes} == {-1.0}
    spec = RopeSpec(head_dim=12, layout="interleaved", axes=axes)
    assert np.allclose(spec.inv_freq(), np.repeat(ltx_frequencies(10000.0, 2), 3), rtol=0, atol=0)


@pytest.mark.parametrize("direction", [1, -1])
def test_reference_phase_is_exact_at_mapped_positions(direction: int) -> None:
    spec = _mapped(direction)
    pos = np.array([[0, 5, -7, 123456, 2**32 - 1], [3, 0, 9, 2**31, 1], [4, 4, 4, 99, 0]])
    got = phases(spec, pos, axes_at="first")
    scale, offset = spec.position_map()
    theta = spec.inv_freq_mp()
    for k in range(pos.shape[1]):
        per_pair = pos[:, k][spec.axis_of_pair()]
        for i in range(spec.half):
            with mpmath.workdps(60):
                exact = direction * (mpmath.mpf(scale[i]) * int(per_pair[i]) + mpmath.mpf(offset[i])) * theta[i]
                exact = float(exact - 2 * mpmath.pi * mpmath.floor(exact / (2 * mpmath.pi)))
            assert abs(math.remainder(got[k, i] - exact, 2 * math.pi)) < 1e-12, (k, i)


def test_inert_axis_never_turns_and_forms_agree() -> None:
    spec = _mapped()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 12))
    pos = np.array([[0, 1, 2], [7, 8, 9], [0, 100, 5000]])  # (axes, tokens)
    outs = [apply_rope(x, pos, spec, form=f, axes_at="first") for f in FORMS]
    assert all(np.allclose(o, outs[0], atol=1e-12) for o in outs)
    still = phases(spec, pos, axes_at="first")[:, [2, 5]]  # the w pairs: offset 0.5 times theta, at any w
    assert np.allclose(still, still[0], atol=1e-15) and np.allclose(still[0], 0.5 * spec.inv_freq()[[2, 5]])
    apart = angles(spec, pos, axes_at="first") - phases(spec, pos, axes_at="first")
    assert np.allclose(np.angle(np.exp(1j * apart)), 0, atol=1e-9)  # the same angles, modulo a turn


def test_offsets_cancel_in_scores() -> None:
    spec = _mapped()
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal((2, 12))
    p, r, t = np.array([3, 5, 7]), np.array([11, 2, 40]), np.array([6, 9, 1000])
    score = apply_rope(q, p, spec, axes_at="last") @ apply_rope(k, r, spec, axes_at="last")
    moved = apply_rope(q, p + t, spec, axes_at="last") @ apply_rope(k, r + t, spec, axes_at="last")
    assert abs(score - moved) < 1e-12


def test_integer_position_specs_are_unchanged() -> None:
    for axes in (mrope((2, 1, 1), 8), axial(8, "split", names=("t", "h"), sections=(2, 2))):
        spec = RopeSpec(head_dim=8, axes=axes)
        assert spec.integer_positions and spec.axes is not None and not spec.axes.own_tables
        text = json.dumps(spec.to_dict())
        assert "scale" not in text and "offset" not in text and "freqs" not in text
        assert "positions" not in spec.describe() and angle_extent(spec, 4096) == 4096
    assert angle_extent(RopeSpec(head_dim=8), 100) == 100


def test_mapped_specs_serialise_their_maps() -> None:
    axes = _mapped().to_dict()["axes"]["axes"]
    assert axes[0]["scale"] == 0.1 and axes[0]["offset"] == -1.0 and len(axes[0]["freqs"]) == 2
    assert "scale" not in axes[1] and "freqs" not in axes[1]
    assert axes[2]["scale"] == 0.0 and "freqs" not in axes[2]
    words = _mapped().describe()
    assert "positions t: 0.1 p - 1, h: p, w: 0.5 (inert)" in words and "own frequency tables t" in words
    # angles up to (|scale| P + |offset|) theta, with two roundings more than p * theta
    assert angle_extent(_mapped(), 64) == math.ceil((0.1 * 64 + 1) * ltx_frequencies(10000.0, 2)[1] * 5 / 3)


@pytest.mark.parametrize(
    ("kwargs", "field", "words"),
    [
        ({"scale": math.nan}, "axes.t.scale", "finite number"),
        ({"offset": math.inf}, "axes.t.offset", "finite number"),
        ({"scale": True}, "axes.t.scale", "finite number"),
        ({"freqs": (1.0,)}, "axes.t.freqs", "needs 2 values"),
        ({"freqs": (1.0, -2.0)}, "axes.t.freqs", "finite positive"),
        ({"freqs": (1.0, 2.0), "base": 100.0}, "axes.t.freqs", "not both"),
    ],
    ids=["scale-nan", "offset-inf", "scale-bool", "freqs-short", "freqs-negative", "freqs-and-base"],
)
def test_bad_position_maps(kwargs: dict[str, object], field: str, words: str) -> None:
    with pytest.raises(SpecError, match=words) as info:
        Axis("t", (0, 1), (0, 1), 4, **kwargs)  # type: ignore[arg-type]
    assert info.value.field == field


def test_a_slope_too_fast_for_float32_is_refused() -> None:
    axes = MultiAxis("custom", (Axis("x", (0,), (0,), 2, scale=1e30),), text_same_position=False)
    with pytest.raises(SpecError, match="above") as info:
        RopeSpec(head_dim=2, axes=axes)
    assert info.value.field == "axes.x.scale"


def test_spec_table_shows_the_position_maps_only_where_set() -> None:
    from ropecheck.cli.spec import spec_table

    mapped = spec_table(_mapped())["pairs"]
    assert mapped[0]["position_map"] == {"scale": 0.1, "offset": -1.0}
    assert mapped[2]["position_map"] == {"scale": 0.0, "offset": 0.5}
    plain = spec_table(RopeSpec(head_dim=8, axes=mrope((2, 1, 1), 8)))["pairs"]
    assert all("position_map" not in row for row in plain)
