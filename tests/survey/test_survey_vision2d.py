"""The vision rotaries the project reads itself (:mod:`ropecheck.survey.vision2d`): SAM 2 video's memory attention
(and its copies), SAM 3's ViT backbone, MiniMax-M3-VL's vision tower.

Each is driven from the installed transformers and must conform built in float32; each planted-bug twin -- the
family's own code monkeypatched before the verdict forks (axes swapped, the grid stacked the other way, the pairs
half-split, a wrong table, the global layers' positions not scaled), or the reader told the wrong layout -- must
fail on the axes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

pytest.importorskip("transformers", reason="the survey drives the installed transformers")

from ropecheck.survey import Driven, code_path, discover, vision2d
from ropecheck.survey.vision2d import prepare_vision

#: the modules that survey transformers run on one xdist worker (``--dist loadgroup``): the first call of
#: ``discover()`` in a process imports every model family (most of a survey test's time), later calls reuse it
pytestmark = pytest.mark.xdist_group("transformers-survey")


def _labels(driven: Driven, mode: str = "fp32", dtype: str = "float32") -> list[str]:
    """The findings of one driven row in one mode and dtype, verified as the survey verifies it (in a child)."""
    from ropecheck.verify.supervise import Loaded, verify_isolated

    report = verify_isolated(
        lambda: Loaded(driven.make(mode), driven.rotary_class),
        spec=driven.spec,
        dtypes=(dtype,),
        device="cpu",
        max_position=min(256, driven.max_position or 256),
    )
    return list(report.dtype_verdict(dtype)["labels"])


def _sam2() -> Driven:
    drivens = prepare_vision(discover()["sam2_video"])
    assert drivens is not None and len(drivens) == 1
    return drivens[0]


def test_sam2_video_is_driven_on_its_memory_attention_grid_and_conforms() -> None:
    driven = _sam2()
    spec = driven.spec
    assert (spec.head_dim, spec.layout, spec.base) == (256, "interleaved", 10000.0)
    assert spec.axes is not None and spec.axes.scheme == "axial-shared" and spec.axes.names == ("x", "y")
    assert driven.max_position == 64  # memory_attention_rope_feat_sizes: the grid the model feeds its rotary
    assert driven.apply_function == "apply_rotary_pos_emb_2d"
    assert any("Sam2VideoMemoryAttention.precompute_positions" in n for n in driven.notes)
    assert _labels(driven) == []


def _swap_axes(m: Any, mp: pytest.MonkeyPatch) -> None:
    def recompose(self: Any, freq: Any) -> Any:  # y's block first where x's should be
        return torch.cat([freq[:, 1], freq[:, 0]], dim=-1)[None].repeat_interleave(2, dim=-1)

    mp.setattr(m.Sam2VideoVisionRotaryEmbedding, "recomposition_frequencies", recompose)


def _grid_rows_first(m: Any, mp: pytest.MonkeyPatch) -> None:
    def grid(config: Any) -> Any:  # (row, column) per cell where the model stacks (column, row)
        w, h = config.memory_attention_rope_feat_sizes
        rows, cols = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
        return torch.stack([rows.flatten(), cols.flatten()], dim=-1)

    mp.setattr(m.Sam2VideoMemoryAttention, "precompute_positions", staticmethod(grid))


def _half_split(m: Any, mp: pytest.MonkeyPatch) -> None:
    def rotate_half(x: Any) -> Any:  # NeoX's pairing where SAM's pairs are complex (adjacent)
        a, b = x.chunk(2, dim=-1)
        return torch.cat((-b, a), dim=-1)

    mp.setattr(m, "rotate_pairwise", rotate_half)


def _wrong_table(m: Any, mp: pytest.MonkeyPatch) -> None:
    honest = m.Sam2VideoVisionRotaryEmbedding.compute_axial_rope_parameters

    def params(config: Any, device: Any = None, **kwargs: Any) -> Any:
        inv_freq, factor = honest(config, device)
        return inv_freq**1.1, factor

    mp.setattr(m.Sam2VideoVisionRotaryEmbedding, "compute_axial_rope_parameters", staticmethod(params))


@pytest.mark.parametrize(
    "plant",
    [_swap_axes, _grid_rows_first, _half_split, _wrong_table],
    ids=["axes_swapped", "grid_rows_first", "pairs_half_split", "table_wrong"],
)
def test_sam2_video_twins_fail_on_the_axes(plant: Callable[[Any, pytest.MonkeyPatch], None]) -> None:
    import transformers.models.sam2_video.modeling_sam2_video as m

    with pytest.MonkeyPatch.context() as mp:
        plant(m, mp)
        labels = _labels(_sam2())
    assert labels and all(label.startswith("axes/") for label in labels), labels


def test_the_reader_s_layout_has_teeth(monkeypatch: pytest.MonkeyPatch) -> None:
    """SAM 2's reading told half-split pairs (the code's are complex): the honest code fails against it."""
    honest = vision2d.READINGS["sam2_video"]
    monkeypatch.setitem(
        vision2d.READINGS,
        "sam2_video",
        vision2d.Reading(lambda c: honest.spec(c).with_(layout="half"), honest.grids, honest.call, honest.words),
    )
    assert _labels(_sam2())


def test_the_sam2_copies_share_its_code_and_say_so() -> None:
    """SAM 3 tracker's class and apply function are SAM 2 video's, name for name; EdgeTAM applies the same class
    with its own self-attention function, so its code path differs."""
    found = {name: prepare_vision(discover()[name]) for name in ("sam2_video", "sam3_tracker_video", "edgetam_video")}
    paths = {name: code_path(discover()[name], d[0]) for name, d in found.items() if d}
    assert paths["sam2_video"] == paths["sam3_tracker_video"] != paths["edgetam_video"]
    assert found["edgetam_video"] and found["edgetam_video"][0].apply_function == "apply_rotary_pos_emb_2d_self_attn"
    assert all(any("copied unchanged by EdgeTAM" in n for n in d[0].notes) for d in found.values() if d)


def _sam3() -> dict[str, Driven]:
    drivens = prepare_vision(discover()["sam3_vit_model"])
    assert drivens is not None
    return {d.layer_type: d for d in drivens}


def test_sam3_global_layers_turn_by_positions_scaled_to_the_window() -> None:
    """SAM 3's windowed layers turn by the position in their 24 x 24 window; its global layers by the 72 x 72 grid
    scaled by 24 / 72. Both conform built in float32, and the family row of sam3 is the same class."""
    layers = _sam3()
    assert set(layers) == {"windowed_attention", "global_attention"}
    glob = layers["global_attention"].spec.axes
    assert glob is not None and all(a.scale == pytest.approx(1 / 3) for a in glob.axes)
    assert layers["windowed_attention"].spec.axes is not None
    assert layers["windowed_attention"].spec.axes.integer_positions
    assert [d.max_position for d in layers.values()] == [24, 72]
    assert _labels(layers["windowed_attention"]) == [] and _labels(layers["global_attention"]) == []
    family_row = prepare_vision(discover()["sam3"])
    assert family_row is not None and {d.rotary_class for d in family_row} == {"Sam3ViTRotaryEmbedding"}


def test_sam3_twin_with_unscaled_global_positions_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    import transformers.models.sam3.modeling_sam3 as m

    honest = m.Sam3ViTLayer.precompute_positions

    def unscaled(config: Any, window_size: int) -> Any:
        positions = honest(config, window_size)
        return positions if window_size else positions * (config.image_size // config.patch_size) / config.window_size

    monkeypatch.setattr(m.Sam3ViTLayer, "precompute_positions", staticmethod(unscaled))
    layers = _sam3()
    assert _labels(layers["windowed_attention"]) == []
    assert any(label.startswith("axes/") for label in _labels(layers["global_attention"]))


def test_sam3_cast_global_positions_are_a_precision_finding() -> None:
    """model.to(torch.bfloat16) casts the global layers' float grid (positions p / 3) with the model: the finding is
    the positions' precision, never the axes (each pair still turns by its spec axis)."""
    assert _labels(_sam3()["global_attention"], "cast", "bfloat16") == ["precision/positions_low_precision"]


def _minimax() -> Driven:
    drivens = prepare_vision(discover()["minimax_m3_vl"], "MiniMaxM3VLVisionRotaryEmbedding")
    assert drivens is not None and len(drivens) == 1
    return drivens[0]


def test_minimax_vision_is_a_partial_3d_rotary_and_conforms() -> None:
    driven = _minimax()
    spec = driven.spec
    assert (spec.head_dim, spec.rotary_dim, spec.layout) == (80, 78, "half")
    assert spec.axes is not None and spec.axes.describe() == "axial-split t:13 h:13 w:13"
    assert driven.apply_function == "apply_rotary_pos_emb_vision"
    assert _labels(driven) == []


def test_minimax_vision_twin_with_the_axes_interleaved_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    import transformers.models.minimax_m3_vl.modeling_minimax_m3_vl as m

    def interleaved(self: Any, freq: Any) -> Any:  # (t, h, w) taking turns over the pairs, not in blocks
        return torch.cat([freq.transpose(1, 2).flatten(1)] * 2, dim=-1)

    monkeypatch.setattr(m.MiniMaxM3VLVisionRotaryEmbedding, "recomposition_frequencies", interleaved)
    assert any(label.startswith("axes/") for label in _labels(_minimax()))


def test_rows_the_table_does_not_know_are_left_to_the_other_drivers() -> None:
    """A family with no such class (Llama), and MiniMax-M3-VL's own row (its text rotary), are not read here."""
    assert prepare_vision(discover()["llama"]) is None
    assert prepare_vision(discover()["minimax_m3_vl"]) is None
    assert prepare_vision(discover()["minimax_m3_vl"], "MiniMaxM3VLRotaryEmbedding") is None


def test_the_survey_runner_asks_the_table_first() -> None:
    """run_units drives SAM 2 video's family row through this table (it was SKIP: no layout the reader knew): one
    row, its only class, no separate class row."""
    from ropecheck.survey import cells, run_units

    (row,) = run_units(discover()["sam2_video"], dtypes=("float32",), max_position=64)
    assert (row.status, row.rotary_class) == ("driven", "Sam2VideoVisionRotaryEmbedding")
    assert cells(row, ("float32",))["fp32/float32"] == []


def _llama4() -> Driven:
    drivens = prepare_vision(discover()["llama4"], "Llama4VisionRotaryEmbedding")
    assert drivens is not None and len(drivens) == 1
    return drivens[0]


def test_llama4_vision_is_driven_on_its_own_table_and_conforms_in_fp32() -> None:
    """Llama 4's vision rotary holds its whole 32 x 32 grid (plus a CLS row) as a complex buffer: each token reads
    the row of its cell, turning by its 1-based (x, y); built in float32 it conforms in every dtype."""
    driven = _llama4()
    spec = driven.spec
    assert (spec.head_dim, spec.layout) == (48, "interleaved")  # 768 / 16
    assert spec.axes is not None and spec.axes.scheme == "axial-shared" and spec.axes.names == ("x", "y")
    assert [(a.scale, a.offset) for a in spec.axes.axes] == [(1.0, 1.0), (1.0, 1.0)]
    assert driven.max_position == 32 and driven.modes == ("fp32",)
    assert driven.apply_function == "vision_apply_rotary_emb"
    assert _labels(driven) == [] and _labels(driven, dtype="bfloat16") == []


def _llama4_table(plant: str) -> Callable[[Any], Any]:
    """Llama 4's table rebuilt with one planted slip: cells counted from 0, x and y swapped, or the x pairs at the
    y pairs' frequencies shifted by one."""

    def table(config: Any) -> Any:
        side = config.image_size // config.patch_size
        cells = torch.arange(side * side)
        x, y = cells % side, cells // side
        if plant == "x_y_swapped":
            x, y = y, x
        start = 0 if plant == "zero_based" else 1
        head_dim = config.hidden_size // config.num_attention_heads
        theta = config.rope_parameters["rope_theta"] ** (-torch.arange(0, head_dim // 2, 2).float() / (head_dim // 2))
        if plant == "table_shifted":
            theta = torch.roll(theta, 1)
        angles = torch.cat([(x + start)[:, None] * theta, (y + start)[:, None] * theta], dim=-1)
        angles = torch.cat([angles, torch.zeros(1, angles.shape[1])])[:, None, :]  # the CLS row turns by nothing
        return torch.polar(torch.ones_like(angles), angles)

    return table


@pytest.mark.parametrize("plant", ["zero_based", "x_y_swapped", "table_shifted"])
def test_llama4_vision_twins_fail(plant: str) -> None:
    import transformers.models.llama4.modeling_llama4 as m

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(m.Llama4VisionRotaryEmbedding, "_compute_freqs_ci", staticmethod(_llama4_table(plant)))
        labels = _labels(_llama4())
    assert labels, plant


def test_llama4_vision_twin_table_written_honestly_conforms() -> None:
    """The twins' table builder with no slip is Llama 4's table: the twins fail for their slip alone."""
    import transformers.models.llama4.modeling_llama4 as m

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(m.Llama4VisionRotaryEmbedding, "_compute_freqs_ci", staticmethod(_llama4_table("none")))
        assert _labels(_llama4()) == []


def test_llama4_vision_row_holds_the_complex_table_cast_in_its_cast_cells() -> None:
    """Driven in the fp32 mode only, the row still carries what module.to(dtype) does to its complex table."""
    from ropecheck.survey.render import cells
    from ropecheck.survey.run import run_units

    rows = {r.rotary_class: r for r in run_units(discover()["llama4"], dtypes=("float32", "bfloat16"), max_position=64)}
    row = rows["Llama4VisionRotaryEmbedding"]
    assert row.status == "driven"
    found = cells(row, ("float32", "bfloat16"))
    assert found["fp32/float32"] == [] and found["fp32/bfloat16"] == []
    assert found["cast/bfloat16"] == ["precision/complex_buffer_cast"]
