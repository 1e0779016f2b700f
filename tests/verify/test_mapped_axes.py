"""Axes with position maps (``scale * p + offset``), own frequency tables and inert axes, under ``--positions axes``.

The correct forms must conform; each planted-bug twin (``tests/fixtures/mapped_axes``) must fail with its expected
finding first. LTX-Video's copy is driven through the survey's own driver, so a bug the driver's source reading
does not see is the verifier's to catch.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from fixtures.mapped_axes import inert, ltx_video, minimax_video
from ropecheck import RopeSpec
from ropecheck.axes import ltx_axes
from ropecheck.verify import verify

torch = pytest.importorskip("torch", reason="torch is a test extra")

#: LTX's shape at a small size: 20 dims (3 frequencies per axis, the leading 2 dims held still).
DIM, THETA, LENGTHS = 20, 10000.0, (20.0, 2048.0, 2048.0)


def _ltx_target(sign: float, *, reversed_table: bool = False) -> Any:
    """LTX's rotary written directly: pair (k, a) at (2 p / L_a + sign) * f_k (sign -1 is LTX's)."""
    n = DIM // 6

    def rope(x: Any, positions: Any) -> Any:
        grid = torch.stack([positions[a].float() / LENGTHS[a] for a in range(3)], dim=-1)
        freqs = THETA ** torch.linspace(0.0, 1.0, n, dtype=torch.float64) * math.pi / 2
        if reversed_table:
            freqs = freqs.flip(0)
        ang = (freqs.float() * (grid.unsqueeze(-1) * 2 + sign)).transpose(-1, -2).flatten(2)
        cos = torch.cat([torch.ones_like(ang[..., :1]), ang.cos()], -1).repeat_interleave(2, -1)[:, :, None]
        sin = torch.cat([torch.zeros_like(ang[..., :1]), ang.sin()], -1).repeat_interleave(2, -1)[:, :, None]
        real, imag = x.unflatten(-1, (-1, 2)).unbind(-1)
        rotated = torch.stack([-imag, real], -1).flatten(-2)
        return (x.float() * cos + rotated.float() * sin).to(x.dtype)

    return rope


def _ltx_spec() -> RopeSpec:
    axes = ltx_axes(THETA, DIM // 6, LENGTHS)
    return RopeSpec(head_dim=DIM, rotary_dim=DIM - DIM % 6, layout="interleaved", rotary_dims="last", axes=axes)


def _verify(fn: Any, spec: RopeSpec, dtypes: tuple[str, ...] = ("float32",), max_position: int = 64) -> Any:
    return verify(fn, spec, dtypes=dtypes, device="cpu", positions_mode="axes", max_position=max_position)


def test_ltx_form_conforms_in_every_dtype() -> None:
    report = _verify(_ltx_target(-1.0), _ltx_spec(), ("float32", "bfloat16", "float16"))
    assert report.conforms, [f.message for f in report.findings]
    skipped = [c for c in report.checks if c.status == "skip"]
    assert [c.name for c in skipped] == ["identification"] and "1-D view is not run" in skipped[0].evidence
    assert {c.name for c in report.checks if c.status == "pass"} >= {
        "multiaxis:zero", "multiaxis:pairs", "multiaxis:reference", "property:axis_relative_position"
    }  # fmt: skip


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        (_ltx_target(+1.0), ("positions", "positions_shifted")),
        (_ltx_target(-1.0, reversed_table=True), ("axes", "axes_wrong")),
    ],
    ids=["offset_flipped", "frequencies_reversed"],
)
def test_ltx_form_twins_fail(target: Any, expected: tuple[str, str]) -> None:
    report = _verify(target, _ltx_spec())
    assert not report.conforms
    first = report.findings[0]
    assert (first.code, first.cause) == expected, first.message


def test_inert_axis_conforms_and_its_turning_twin_fails() -> None:
    spec = inert.spec()
    assert "t: 0 (inert)" in spec.describe()
    good = _verify(inert.rope, spec)
    assert good.conforms, [f.message for f in good.findings]
    bad = _verify(inert.rope_turning, spec)
    assert not bad.conforms
    first = bad.findings[0]
    assert (first.code, first.cause) == ("axes", "axes_wrong")
    assert "the spec holds them still" in first.message and "temporal" in first.message


def _ltx_module() -> SimpleNamespace:
    return SimpleNamespace(LTXVideoRotaryPosEmbed=ltx_video.LTXVideoRotaryPosEmbed,
                           apply_rotary_emb=ltx_video.apply_rotary_emb)  # fmt: skip


def _driven_ltx(bug: str | None) -> Any:
    from ropecheck.survey.diffusers_fractional import prepare_ltx

    args = {"dim": 62, "base_num_frames": 20, "base_height": 2048, "base_width": 2048, "theta": 10000.0, "bug": bug}
    (driven,) = prepare_ltx(_ltx_module(), (args, "the test's arguments"))
    return driven


def test_ltx_copy_conforms_through_the_survey_driver() -> None:
    driven = _driven_ltx(None)
    assert driven.spec.rotary_dim == 60 and driven.spec.rotary_dims == "last"
    for mode in driven.modes:
        report = _verify(driven.make(mode), driven.spec, ("float32", "bfloat16"), driven.max_position)
        assert report.conforms, (mode, [f.message for f in report.findings])
    assert any("(2 p / L_a - 1) * f_k" in note for note in driven.notes)


@pytest.mark.parametrize("bug", ltx_video.BUGS)
def test_ltx_copy_twins_fail_through_the_survey_driver(bug: str) -> None:
    driven = _driven_ltx(bug)
    report = _verify(driven.make("fp32"), driven.spec, ("float32",), driven.max_position)
    assert not report.conforms
    first = report.findings[0]
    assert (first.code, first.cause) == ltx_video.EXPECTED[bug], first.message
    if bug == "axes_swapped":
        assert "rotate by the temporal position; the spec says height" in first.message


def test_driver_refuses_a_source_it_cannot_read() -> None:
    from ropecheck.survey.diffusers_fractional import prepare_ltx
    from ropecheck.survey.drive import NotDriven

    class LTXVideoRotaryPosEmbed(ltx_video.LTXVideoRotaryPosEmbed):  # its own source says none of the lines read
        pass

    module = SimpleNamespace(LTXVideoRotaryPosEmbed=LTXVideoRotaryPosEmbed, apply_rotary_emb=ltx_video.apply_rotary_emb)
    with pytest.raises(NotDriven, match="no longer says"):
        prepare_ltx(module, ({"dim": 62}, "the test's arguments"))


def _driven_minimax(bug: str | None) -> Any:
    from diffusers.models.autoencoders import autoencoder_kl_minimax_h3 as published

    from ropecheck.survey.diffusers_fractional import prepare_minimax_video

    module = SimpleNamespace(
        **{**vars(published), "MiniMaxH3VideoRotaryPosEmbed": minimax_video.MiniMaxH3VideoRotaryPosEmbed}
    )
    (driven,) = prepare_minimax_video(module, ({"dim": 48, "theta": 100.0, "bug": bug}, "the test's arguments"))
    return driven


def test_minimax_video_copy_conforms_through_the_survey_driver() -> None:
    pytest.importorskip("diffusers", reason="diffusers is a survey extra")
    driven = _driven_minimax(None)
    assert driven.spec.axes is not None and {a.scale for a in driven.spec.axes.axes} == {4 * math.pi / 32}
    report = _verify(driven.make("fp32"), driven.spec, ("float32", "bfloat16"), driven.max_position)
    assert report.conforms, [f.message for f in report.findings]


@pytest.mark.parametrize("bug", minimax_video.BUGS)
def test_minimax_video_copy_twins_fail_through_the_survey_driver(bug: str) -> None:
    pytest.importorskip("diffusers", reason="diffusers is a survey extra")
    driven = _driven_minimax(bug)
    report = _verify(driven.make("fp32"), driven.spec, ("float32",), driven.max_position)
    assert not report.conforms
    first = report.findings[0]
    assert (first.code, first.cause) == minimax_video.EXPECTED[bug], first.message
    if bug == "axes_reversed":
        assert "rotate by the width position; the spec says temporal" in first.message


def test_a_range_too_wide_for_the_mapped_angles_is_a_usage_error() -> None:
    """At positions up to 4095 LTX's frame axis turns by ~6e6 rad, where float32's angle error passes any angle:
    no comparison can judge there, so the run is refused with the largest range that can be, never a PASS."""
    from ropecheck.errors import UsageError

    with pytest.raises(UsageError, match=r"give max_position \d+ or less"):
        verify(_ltx_target(-1.0), _ltx_spec(), dtypes=("float32",), device="cpu", positions_mode="axes",
               max_position=4096)  # fmt: skip


def test_probes_where_float32_cannot_tell_say_nothing() -> None:
    """The identification's slack grows with the angle's size, so a correct target at the edge of the range is
    never told apart from the spec by float32's rounding alone."""
    from ropecheck.verify.multiaxis import MAPPED_ANGLE_SLACK, _mapped_slack

    spec = _ltx_spec()
    pos = np.zeros((3, 1, 2), dtype=np.int64)
    pos[0, 0, 1] = 10**6
    slack = _mapped_slack(spec, pos)
    assert np.all(slack[0] >= MAPPED_ANGLE_SLACK) and slack[1].max() > math.pi


def _cast_target(bug: str) -> Any:
    """Every axis at (0.5 p + 3) theta_j on its own base-10000 table, the angles formed in float32 -- with theta
    rounded to bfloat16 (a buffer cast with the model), or the axes' positions read wrong (h for w)."""

    def rope(x: Any, positions: Any) -> Any:
        angles = []
        for a, size in enumerate(inert.SECTIONS):
            inv = 1.0 / (10000.0 ** (torch.arange(0, 2 * size, 2, dtype=torch.float32) / (2 * size)))
            if bug == "inv_freq_bf16":
                inv = inv.to(torch.bfloat16).float()
            axis = 1 if (bug == "w_reads_h" and a == 2) else a
            angles.append((0.5 * positions[axis].float() + 3.0)[..., None] * inv)
        ang = torch.cat(angles, -1)
        ang = torch.cat([ang, ang], -1)[:, :, None]
        d = x.shape[-1]
        rot = torch.cat([-x[..., d // 2 :], x[..., : d // 2]], -1)
        return (x.float() * ang.cos() + rot.float() * ang.sin()).to(x.dtype)

    return rope


def _cast_spec() -> RopeSpec:
    from dataclasses import replace

    from ropecheck.axes import axial

    plain = axial(16, "split", names=("t", "h", "w"), sections=inert.SECTIONS)
    axes = replace(plain, axes=tuple(replace(a, scale=0.5, offset=3.0) for a in plain.axes))
    return RopeSpec(head_dim=16, axes=axes)


def test_a_bfloat16_cast_of_theta_is_a_precision_finding_not_an_axes_one() -> None:
    """Judged in bfloat16 alone (identification too), theta rounded to bfloat16 is named as such: the probes'
    slack holds the dtype's rounding, and the reference check's model of it matches."""
    spec = _cast_spec()
    assert _verify(_cast_target("none"), spec, ("bfloat16",)).conforms
    report = verify(_cast_target("inv_freq_bf16"), spec, dtypes=("bfloat16",), device="cpu", positions_mode="axes",
                    max_position=4096)  # fmt: skip
    assert not report.conforms
    first = report.findings[0]
    assert (first.code, first.cause) == ("precision", "inv_freq_low_precision"), first.message
    wrong = _verify(_cast_target("w_reads_h"), spec, ("bfloat16",))
    assert wrong.findings and wrong.findings[0].code == "axes", [f.message for f in wrong.findings]
