"""The survey of diffusers: discovery from the sources, one driver per code shape, each shown to fail when broken.

A handful of classes are driven (float32, positions up to 512): Flux (``ids``), Wan and CogView4 (``grid``,
split and shared axes), ``get_1d_rotary_pos_embed`` (``helper``), the grid helpers (``get_3d_rotary_pos_embed``,
Lumina's paired pairs), Anima (``positions``), MiniMax Music 3 and LongCat-Audio (``length``, partial and whole
head), Helios, Sana-WM and HunyuanVideo-Framepack (``sizes``), MiniMax H3 (``ids``, one table for three axes),
PRX (``ids`` with a batch dim), Qwen-Image (``fhw``, centred h and w), Kandinsky 5's and 6's 3-D rotaries
(``axes``; Kandinsky 6 at forward's default scale), Cosmos and EasyAnimate (dims and bases read as data,
EasyAnimate's default repaired), Kandinsky 5 (its expected finding), and the dedicated drivers (Kolors' ChatGLM,
Lumina 2's and Qwen-Image 2.1's mask-built positions, AnyFlow's layouts; LTX-Video's, LTX 2's, Sana-WM's and MiniMax
H3's video decoder's fractional positions, driven with axes that map them). A broken rotary is made by monkeypatching
diffusers' own code before the verdict forks, so the child runs the broken version. Every test that drives
diffusers skips when it is not installed (it is optional); discovery from given sources needs nothing.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from ropecheck.survey.diffusers_discover import discover_diffusers

needs_diffusers = pytest.mark.skipif(importlib.util.find_spec("diffusers") is None, reason="diffusers not installed")

FLUX_LIKE = """
class NewPosEmbed(nn.Module):
    def forward(self, ids):
        return get_1d_rotary_pos_embed(16, ids[:, 0], 10000.0, use_real=True)

class NewRoPEInputsStep(ModularPipelineBlocks):  # named so, computes nothing
    def __call__(self, components, state):
        return state

def apply_rotary_emb(x, freqs_cis):
    return x
"""
F32 = ("float32",)


def _row(name: str) -> Any:
    from ropecheck.survey.run import run_units

    (row,) = run_units(discover_diffusers()[name], dtypes=F32, max_position=512)
    return row


def _labels(row: Any) -> list[str]:
    from ropecheck.survey.render import cells

    return [label for cell, labels in cells(row, F32).items() if cell.startswith("fp32") for label in labels]


def test_a_class_that_computes_rotary_frequencies_is_found_from_its_source() -> None:
    sources = {
        "diffusers.models.transformers.transformer_new": FLUX_LIKE,
        "diffusers.models.embeddings": "def get_1d_rotary_pos_embed(dim, pos):\n    pass\n",
        "diffusers.pipelines.kolors.text_encoder": "class RotaryEmbedding:\n    def f(self, x):\n"
        "        return x.cos(), x.sin()\n",
    }
    found = discover_diffusers(sources)
    assert list(found) == [
        "embeddings/get_1d_rotary_pos_embed",
        "kolors.text_encoder/RotaryEmbedding",
        "transformer_new/NewPosEmbed",
    ]
    assert found["transformer_new/NewPosEmbed"].library == "diffusers"


@needs_diffusers
def test_the_installed_classes_are_found() -> None:
    found = discover_diffusers()
    classes = [n for n, f in found.items() if f.rotary_classes]
    assert len(classes) >= 45
    for name in (
        "transformer_flux/FluxPosEmbed",
        "transformer_wan/WanRotaryPosEmbed",
        "transformer_hunyuan_video/HunyuanVideoRotaryPosEmbed",
        "transformer_cogview4/CogView4RotaryPosEmbed",
        "transformer_z_image/RopeEmbedder",
        "embeddings/get_1d_rotary_pos_embed",
        "embeddings/apply_rotary_emb",
    ):
        assert name in found
    assert not any("InputsStep" in n for n in found)  # named RoPE, computes nothing


@needs_diffusers
def test_the_constructor_arguments_are_the_model_s_defaults() -> None:
    import diffusers.models.transformers.transformer_flux as flux

    from ropecheck.survey.diffusers_drive import constructor_args

    args, where = constructor_args(flux, "FluxPosEmbed")
    assert args == {"theta": 10000, "axes_dim": (16, 56, 56)} and "FluxTransformer2DModel" in where


@needs_diffusers
@pytest.mark.parametrize(
    "name, scheme",
    [
        ("transformer_flux/FluxPosEmbed", "axial-split t:8 h:28 w:28"),
        ("transformer_wan/WanRotaryPosEmbed", "axial-split t:22 h:21 w:21"),
        ("transformer_cogview4/CogView4RotaryPosEmbed", "axial-shared h:10 w:10"),
        ("condition_embedder_anima/AnimaRotaryEmbedding", "head_dim=64, rotary_dim=64, base=10000"),
        ("transformer_minimax_music3/MiniMaxMusic3RotaryEmbedding", "head_dim=64, rotary_dim=32, base=10000"),
        ("transformer_helios/HeliosRotaryPosEmbed", "axial-split t:22 h:21 w:21"),
        ("transformer_sana_wm/SanaWMRotaryPosEmbed", "axial-split t:20 h:18 w:18"),
        (
            "transformer_minimax_h3/MiniMaxH3RotaryPosEmbed",
            "rotary_dim=96, base=10000, schedule=default, axes=axial-split t:16 h:16 w:16",
        ),
        ("embeddings/get_3d_rotary_pos_embed", "axial-split t:16 h:24 w:24"),
        ("embeddings/get_2d_rotary_pos_embed_lumina", "axial-paired w:32 h:32"),
        ("transformer_qwenimage/QwenEmbedRope", "axial-split t:8 h:28 w:28"),
        ("transformer_qwenimage/QwenEmbedLayer3DRope", "axial-split t:8 h:28 w:28"),
        ("transformer_cosmos/CosmosRotaryPosEmbed", "half-split RoPE, head_dim=128"),
        ("transformer_prx/PRXEmbedND", "axial-split h:16 w:16"),
        ("transformer_hunyuan_video_framepack/HunyuanVideoFramepackRotaryPosEmbed", "base=256"),
        ("transformer_bria/BriaPosEmbed", "axial-split t:8 h:28 w:28"),
        ("embeddings/apply_rotary_emb_allegro", "axial-shared t:16 h:16 w:16"),
        ("kolors.text_encoder/RotaryEmbedding", "head_dim=128, rotary_dim=64, base=10000"),
        ("transformer_lumina2/Lumina2RotaryPosEmbed", "axial-split t:16 h:16 w:16"),
        ("transformer_anyflow/AnyFlowRotaryPosEmbed", "axial-split t:22 h:21 w:21"),
        ("transformer_anyflow_far/AnyFlowCausalRotaryPosEmbed", "axial-split t:22 h:21 w:21"),
        ("transformer_qwenimage21/QwenImage21Rope", "axial-split t:8 h:28 w:28"),
        ("transformer_ltx/LTXVideoRotaryPosEmbed", "custom t:341 h:341 w:341 (positions t: 0.1 p - 1"),
        ("transformer_ltx2/LTX2AudioVideoRotaryPosEmbed", "custom t:682 h:682 w:682 (positions t: 0.1 p - 1"),
        ("transformer_sana_wm_refiner/SanaWMLTX2AudioVideoRotaryPosEmbed", "custom t:682 h:682 w:682"),
        ("ltx2.connectors/LTX2RotaryPosEmbed1d", "custom x:1920 (positions x: 0.000488281 p - 1"),
        ("autoencoder_kl_minimax_h3/MiniMaxH3VideoRotaryPosEmbed", "axial-split t:8 h:8 w:8 (positions t: 0.392699 p"),
    ],
    ids=[
        "ids",
        "grid-split",
        "grid-shared",
        "positions",
        "length-partial",
        "sizes",
        "sizes-fhw",
        "ids-shared-table",
        "helper-grid",
        "helper-grid-paired",
        "fhw-centred",
        "fhw-layered",
        "grid-derived-axes",
        "ids-batched",
        "sizes-sibling-apply",
        "same-constructor",
        "helper-thirds-gathered",
        "dedicated-chatglm",
        "dedicated-mask-positions",
        "dedicated-layout",
        "dedicated-layout-causal",
        "dedicated-pad-mask-centred",
        "fractional-ltx",
        "fractional-ltx2",
        "fractional-ltx2-copy",
        "fractional-ltx2-1d",
        "fractional-inline-processor",
    ],
)
def test_each_driver_shape_conforms_on_diffusers_code(name: str, scheme: str) -> None:
    row = _row(name)
    assert row.status == "driven", row.reason
    assert scheme in next(iter(row.specs.values()))
    assert _labels(row) == []


@needs_diffusers
def test_the_helpers_conform_in_each_form() -> None:
    row = _row("embeddings/get_1d_rotary_pos_embed")
    assert sorted(row.specs) == ["complex", "half", "interleaved"] and _labels(row) == []


@needs_diffusers
def test_ids_with_two_axes_swapped_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    import diffusers.models.transformers.transformer_flux as flux

    honest = flux.FluxPosEmbed.forward
    monkeypatch.setattr(flux.FluxPosEmbed, "forward", lambda self, ids: honest(self, ids[:, [0, 2, 1]]))
    assert any(label.startswith("axes/") for label in _labels(_row("transformer_flux/FluxPosEmbed")))


@needs_diffusers
def test_a_grid_with_height_and_width_swapped_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    import diffusers.models.transformers.transformer_wan as wan

    honest = wan.WanRotaryPosEmbed.forward

    def swapped(self, hidden_states):  # type: ignore[no-untyped-def]  # the rows read along the width
        cos, sin = honest(self, hidden_states.transpose(-1, -2))
        side = round((cos.shape[1] // hidden_states.shape[2]) ** 0.5)
        flip = lambda t: t.reshape(-1, side, side, t.shape[-1]).transpose(1, 2).reshape(t.shape)
        return flip(cos), flip(sin)

    monkeypatch.setattr(wan.WanRotaryPosEmbed, "forward", swapped)
    assert any(label.startswith("axes/") for label in _labels(_row("transformer_wan/WanRotaryPosEmbed")))


@needs_diffusers
def test_a_grid_with_the_dims_split_wrong_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wan's head split off by one pair: the tables were built for [44, 42, 42], the forward splits [46, 40, 42]."""
    import diffusers.models.transformers.transformer_wan as wan

    honest = wan.WanRotaryPosEmbed.__init__

    @functools.wraps(honest)  # the signature kept: the model's call still maps onto it
    def split_wrong(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        honest(self, *args, **kwargs)
        self.t_dim, self.h_dim = self.t_dim + 2, self.h_dim - 2

    monkeypatch.setattr(wan.WanRotaryPosEmbed, "__init__", split_wrong)
    assert _labels(_row("transformer_wan/WanRotaryPosEmbed"))


@needs_diffusers
def test_a_shared_grid_with_its_halves_swapped_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch
    from diffusers.models.transformers import transformer_cogview4 as cogview4

    honest = cogview4.CogView4RotaryPosEmbed.forward

    def swapped(self, hidden_states):  # type: ignore[no-untyped-def]  # the width's frequencies first
        q = self.dim // 4
        return tuple(torch.cat([t[:, q : 2 * q], t[:, :q], t[:, 3 * q :], t[:, 2 * q : 3 * q]], -1) for t in
                     honest(self, hidden_states))  # fmt: skip

    monkeypatch.setattr(cogview4.CogView4RotaryPosEmbed, "forward", swapped)
    assert any(label.startswith("axes/") for label in _labels(_row("transformer_cogview4/CogView4RotaryPosEmbed")))


@needs_diffusers
def test_a_helper_with_the_wrong_base_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    from diffusers.models import embeddings

    honest = embeddings.get_1d_rotary_pos_embed
    monkeypatch.setattr(
        embeddings, "get_1d_rotary_pos_embed", lambda d, p, theta, **kw: honest(d, p, theta * 1.5, **kw)
    )
    assert _labels(_row("embeddings/get_1d_rotary_pos_embed"))


@needs_diffusers
def test_positions_with_the_wrong_base_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """Anima's text rotary built with 1.5x the base its model gives it: the positions it is called with are right."""
    from diffusers.models.condition_embedders import condition_embedder_anima as anima

    honest = anima.AnimaRotaryEmbedding.__init__

    @functools.wraps(honest)  # the signature kept: the model's call still maps onto it
    def wrong_base(self, head_dim, rope_theta=10000.0):  # type: ignore[no-untyped-def]
        honest(self, head_dim, rope_theta * 1.5)

    monkeypatch.setattr(anima.AnimaRotaryEmbedding, "__init__", wrong_base)
    assert _labels(_row("condition_embedder_anima/AnimaRotaryEmbedding"))


@needs_diffusers
def test_a_length_table_off_by_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """LongCat-Audio's table read one row late: token p takes the angles of p + 1."""
    from diffusers.models.transformers import transformer_longcat_audio_dit as longcat

    honest = longcat.AudioDiTRotaryEmbedding.forward

    def shifted(self, hidden_states, seq_len=None):  # type: ignore[no-untyped-def]
        n = hidden_states.shape[1] if seq_len is None else seq_len
        return tuple(t[1 : n + 1] for t in honest(self, hidden_states, n + 1))

    monkeypatch.setattr(longcat.AudioDiTRotaryEmbedding, "forward", shifted)
    assert _labels(_row("transformer_longcat_audio_dit/AudioDiTRotaryEmbedding"))


@needs_diffusers
def test_sizes_with_the_frames_off_by_one_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """Helios' grid built from frame indices one late: the time axis is off, height and width are right."""
    from diffusers.models.transformers import transformer_helios as helios

    honest = helios.HeliosRotaryPosEmbed.forward

    def late(self, frame_indices, height, width, device):  # type: ignore[no-untyped-def]
        return honest(self, frame_indices + 1, height, width, device)

    monkeypatch.setattr(helios.HeliosRotaryPosEmbed, "forward", late)
    assert _labels(_row("transformer_helios/HeliosRotaryPosEmbed"))


@needs_diffusers
def test_a_shared_table_with_its_axes_swapped_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """MiniMax H3's (t, h, w) rows read as (t, w, h)."""
    from diffusers.models.transformers import transformer_minimax_h3 as h3

    honest = h3.MiniMaxH3RotaryPosEmbed.forward
    monkeypatch.setattr(h3.MiniMaxH3RotaryPosEmbed, "forward", lambda self, ids: honest(self, ids[:, [0, 2, 1]]))
    assert any(label.startswith("axes/") for label in _labels(_row("transformer_minimax_h3/MiniMaxH3RotaryPosEmbed")))


@needs_diffusers
def test_a_bfloat16_apply_is_its_expected_finding() -> None:
    """Kandinsky 5's apply_rotary rounds q to bfloat16 in a float32 run: the one diffusers finding, with its why."""
    from ropecheck.survey.expected import load_expected

    row = _row("transformer_kandinsky/Kandinsky5RoPE1D")
    assert row.status == "driven" and _labels(row) == ["precision/cache_low_precision"]
    expected = load_expected("0.42.1", library="diffusers")
    assert expected.labels("transformer_kandinsky/Kandinsky5RoPE1D", "fp32/float32") == _labels(row)
    assert "bfloat16" in expected.explain("precision/cache_low_precision", "fp32")


@needs_diffusers
def test_a_grid_helper_with_its_halves_swapped_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """get_2d_rotary_pos_embed with the grid's rows swapped: its first half turns by h, not w as its meshgrid says."""
    from diffusers.models import embeddings

    honest = embeddings.get_2d_rotary_pos_embed_from_grid
    monkeypatch.setattr(
        embeddings, "get_2d_rotary_pos_embed_from_grid", lambda d, grid, **kw: honest(d, grid.flip(0), **kw)
    )
    assert any(label.startswith("axes/") for label in _labels(_row("embeddings/get_2d_rotary_pos_embed")))


@needs_diffusers
def test_a_centred_grid_read_from_zero_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Qwen-Image's h and w positions taken from 0 (`scale_rope` dropped) where its model centres them."""
    from diffusers.models.transformers import transformer_qwenimage as qwen

    honest = qwen.QwenEmbedRope._compute_video_freqs

    def from_zero(self, *args, **kwargs):  # type: ignore[no-untyped-def]  # the table computed uncentred
        saved, self.scale_rope = self.scale_rope, False
        try:
            return honest(self, *args, **kwargs)
        finally:
            self.scale_rope = saved

    monkeypatch.setattr(qwen.QwenEmbedRope, "_compute_video_freqs", from_zero)
    assert _labels(_row("transformer_qwenimage/QwenEmbedRope"))


@needs_diffusers
def test_a_derived_base_off_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cosmos' height frequencies taken with 1.5x the base its __init__ derives: the read table catches it."""
    from diffusers.models.transformers import transformer_cosmos as cosmos

    honest = cosmos.CosmosRotaryPosEmbed.forward

    def wrong_h(self, hidden_states, fps=None):  # type: ignore[no-untyped-def]
        saved, self.h_ntk_factor = self.h_ntk_factor, self.h_ntk_factor * 1.5
        try:
            return honest(self, hidden_states, fps)
        finally:
            self.h_ntk_factor = saved

    monkeypatch.setattr(cosmos.CosmosRotaryPosEmbed, "forward", wrong_h)
    assert _labels(_row("transformer_cosmos/CosmosRotaryPosEmbed"))


@needs_diffusers
@pytest.mark.parametrize("swap", [False, True], ids=["as-built", "h-w-swapped"])
def test_per_axis_indices_with_two_axes_swapped_fail(monkeypatch: pytest.MonkeyPatch, swap: bool) -> None:
    """Kandinsky 5's 3-D rotary: as built, only its expected finding (the bfloat16 apply); its h and w indices
    swapped, an axes finding (the root cause, found before the precision one)."""
    from diffusers.models.transformers import transformer_kandinsky as k5

    if swap:
        honest = k5.Kandinsky5RoPE3D.forward

        def swapped(self, shape, pos, scale_factor=(1.0, 1.0, 1.0)):  # type: ignore[no-untyped-def]
            out = honest(self, shape, pos, scale_factor)
            return out.transpose(2, 3)  # (batch, t, h, w, ...): rows read along the width

        monkeypatch.setattr(k5.Kandinsky5RoPE3D, "forward", swapped)
    labels = _labels(_row("transformer_kandinsky/Kandinsky5RoPE3D"))
    if swap:
        assert any(label.startswith("axes/") for label in labels)
    else:
        assert labels == ["precision/cache_low_precision"]


@needs_diffusers
def test_allegro_judged_without_gathering_its_thirds_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Allegro's thirds half-split within themselves, read as if half-split over the whole head: the gather is
    what makes the honest code conform, so leaving it out must fail."""
    from ropecheck.survey import diffusers_helpers

    monkeypatch.setattr(diffusers_helpers, "part_channels", lambda head_dim, axes: list(range(head_dim)))
    assert _labels(_row("embeddings/get_3d_rotary_pos_embed_allegro"))


@needs_diffusers
@pytest.mark.parametrize("bug", ["h-w-swapped", "theta-1.5x"])
def test_allegro_with_a_planted_bug_fails(monkeypatch: pytest.MonkeyPatch, bug: str) -> None:
    """apply_rotary_emb_allegro given the h and w positions swapped, or its helper 1.5x the base: each fails."""
    from diffusers.models import embeddings

    if bug == "h-w-swapped":
        honest_apply = embeddings.apply_rotary_emb_allegro
        monkeypatch.setattr(
            embeddings,
            "apply_rotary_emb_allegro",
            lambda x, freqs, pos: honest_apply(x, freqs, (pos[0], pos[2], pos[1])),
        )
    else:
        honest_get = embeddings.get_3d_rotary_pos_embed_allegro
        monkeypatch.setattr(
            embeddings, "get_3d_rotary_pos_embed_allegro", lambda *a, **kw: honest_get(*a, **kw, theta=15000)
        )
    labels = _labels(_row("embeddings/apply_rotary_emb_allegro"))
    assert labels and (bug != "h-w-swapped" or any(label.startswith("axes/") for label in labels))


@needs_diffusers
@pytest.mark.parametrize("bug", ["theta-1.5x", "turned-backwards"])
def test_chatglm_with_a_planted_bug_fails(monkeypatch: pytest.MonkeyPatch, bug: str) -> None:
    """Kolors' ChatGLM rotary with 1.5x its base, or its table's sines negated (every pair turned the other way)."""
    import torch
    from diffusers.pipelines.kolors import text_encoder

    honest = text_encoder.RotaryEmbedding.forward_impl

    def planted(self, seq_len, n_elem, dtype, device, base=10000):  # type: ignore[no-untyped-def]
        if bug == "theta-1.5x":
            return honest(self, seq_len, n_elem, dtype, device, base=int(base * 1.5))
        return honest(self, seq_len, n_elem, dtype, device, base=base) * torch.tensor([1.0, -1.0])

    monkeypatch.setattr(text_encoder.RotaryEmbedding, "forward_impl", planted)
    assert _labels(_row("kolors.text_encoder/RotaryEmbedding"))


@needs_diffusers
@pytest.mark.parametrize("bug", ["t-h-swapped", "frame-off-by-one"])
def test_ltx2_video_with_a_planted_bug_fails(monkeypatch: pytest.MonkeyPatch, bug: str) -> None:
    """LTX 2's video rotary reading the height coordinate as the frame one (and back), or every frame one past the
    coordinate given: the driver passes the positions as its coords, so each must fail."""
    from diffusers.models.transformers import transformer_ltx2 as ltx2

    honest = ltx2.LTX2AudioVideoRotaryPosEmbed.forward

    def planted(self, coords, device=None):  # type: ignore[no-untyped-def]
        if bug == "t-h-swapped":
            return honest(self, coords[:, [1, 0, 2]], device)
        return honest(self, coords + coords.new_tensor([1.0, 0.0, 0.0])[None, :, None], device)

    monkeypatch.setattr(ltx2.LTX2AudioVideoRotaryPosEmbed, "forward", planted)
    labels = _labels(_row("transformer_ltx2/LTX2AudioVideoRotaryPosEmbed"))
    assert labels and all(label.startswith(("axes/", "positions/")) for label in labels), labels


@needs_diffusers
def test_ltx2_connector_table_off_by_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """LTX 2's 1-D connector rotary whose table starts at position 1: the driver gathers row p for position p, so
    every token is rotated one position on and the verdict must fail."""
    from diffusers.pipelines.ltx2 import connectors

    honest = connectors.LTX2RotaryPosEmbed1d.forward

    def planted(self, batch_size, pos, device):  # type: ignore[no-untyped-def]
        cos, sin = honest(self, batch_size, pos + 1, device)
        return cos[:, 1:], sin[:, 1:]

    monkeypatch.setattr(connectors.LTX2RotaryPosEmbed1d, "forward", planted)
    assert _labels(_row("ltx2.connectors/LTX2RotaryPosEmbed1d"))


@needs_diffusers
@pytest.mark.parametrize("bug", ["h-w-swapped", "frame-off-by-one"])
def test_lumina2_with_a_planted_bug_fails(monkeypatch: pytest.MonkeyPatch, bug: str) -> None:
    """Lumina 2's rotary looking up its tables with h and w swapped, or every frame position one past the caption's
    length: the positions its forward builds are what the driver reads, so each must fail."""
    from diffusers.models.transformers import transformer_lumina2 as lumina2

    honest = lumina2.Lumina2RotaryPosEmbed._get_freqs_cis

    def planted(self, ids):  # type: ignore[no-untyped-def]
        if bug == "h-w-swapped":
            return honest(self, ids[..., [0, 2, 1]])
        return honest(self, ids + ids.new_tensor([1, 0, 0]))

    monkeypatch.setattr(lumina2.Lumina2RotaryPosEmbed, "_get_freqs_cis", planted)
    labels = _labels(_row("transformer_lumina2/Lumina2RotaryPosEmbed"))
    assert labels and (bug != "h-w-swapped" or any(label.startswith("axes/") for label in labels))


@needs_diffusers
@pytest.mark.parametrize(
    "cls_name, bug",
    [
        ("AnyFlowRotaryPosEmbed", "h-w-swapped"),
        ("AnyFlowRotaryPosEmbed", "frame-off-by-one"),
        ("AnyFlowCausalRotaryPosEmbed", "h-w-swapped"),
    ],
)
def test_anyflow_with_a_planted_bug_fails(monkeypatch: pytest.MonkeyPatch, cls_name: str, bug: str) -> None:
    """An AnyFlow rotary's full-frame grid with h and w swapped, or every frame one position on: the layout's grid
    is what the driver reads, so each must fail."""
    from diffusers.models.transformers import transformer_anyflow, transformer_anyflow_far

    module = transformer_anyflow if cls_name == "AnyFlowRotaryPosEmbed" else transformer_anyflow_far
    cls = getattr(module, cls_name)
    honest = cls._forward_full_frame

    def planted(self, num_frames, height, width, device):  # type: ignore[no-untyped-def]
        if bug == "h-w-swapped":
            return honest(self, num_frames, width, height, device).transpose(1, 2)
        return honest(self, num_frames + 1, height, width, device)[1:]

    monkeypatch.setattr(cls, "_forward_full_frame", planted)
    labels = _labels(_row(f"{module.__name__.rsplit('.', 1)[-1]}/{cls_name}"))
    assert labels and (bug != "h-w-swapped" or any(label.startswith("axes/") for label in labels))


@needs_diffusers
@pytest.mark.parametrize("bug", ["h-w-swapped", "frame-off-by-one"])
def test_qwenimage21_with_a_planted_bug_fails(monkeypatch: pytest.MonkeyPatch, bug: str) -> None:
    """Qwen-Image 2.1's rotary with its h and w tables swapped, or one more text token before the block than the
    mask holds (every frame position one on): the positions its forward builds are what the driver reads."""
    import torch
    from diffusers.models.transformers import transformer_qwenimage21 as qwen21

    honest = qwen21.QwenImage21Rope.forward

    def planted(self, img_shapes, image_pad_mask, device):  # type: ignore[no-untyped-def]
        if bug == "h-w-swapped":
            out = honest(self, img_shapes, image_pad_mask, device)
            t, h, w = (d // 2 for d in self.axes_dim)
            return torch.cat([out[:, :t], out[:, t + h :], out[:, t : t + h]], dim=-1)
        return honest(self, img_shapes, torch.cat([image_pad_mask.new_zeros(1), image_pad_mask]), device)[1:]

    monkeypatch.setattr(qwen21.QwenImage21Rope, "forward", planted)
    labels = _labels(_row("transformer_qwenimage21/QwenImage21Rope"))
    assert labels and (bug != "h-w-swapped" or any(label.startswith("axes/") for label in labels))


@needs_diffusers
def test_a_default_its_code_cannot_run_is_a_finding_and_the_repair_is_driven() -> None:
    """EasyAnimate's model defaults patch_size to None: a config finding; driven with the documented 2."""
    row = _row("transformer_easyanimate/EasyAnimateRotaryPosEmbed")
    assert row.status == "driven" and _labels(row) == []
    assert [label for label, _ in row.config_findings] == ["config/default_unrunnable"]
    assert any("patch_size=2" in note for note in row.notes)
    row = _row("kolors.text_encoder/RotaryEmbedding")
    assert row.status == "driven" and _labels(row) == []
    assert [label for label, _ in row.config_findings] == ["config/default_unrunnable"]
    assert any("original_rope=True" in note for note in row.notes)


@needs_diffusers
@pytest.mark.parametrize("bug", ["as-built", "h-w-swapped", "model-scale-factor"])
def test_kandinsky6_driven_at_forward_s_default_scale(monkeypatch: pytest.MonkeyPatch, bug: str) -> None:
    """Kandinsky 6's 3-D rotary at forward's own scale_factor (1, 1, 1): it conforms, and its page says the model's
    (1, 2, 2) is not judged; its h and w indices swapped, or the model's (1, 2, 2) passed after all (angles divided
    per axis), each fails."""
    from diffusers.models.transformers import transformer_kandinsky6 as k6

    honest = k6.Kandinsky6RoPE3D.forward

    def planted(self, pos, scale_factor=(1.0, 1.0, 1.0)):  # type: ignore[no-untyped-def]
        if bug == "model-scale-factor":
            return honest(self, pos, (1.0, 2.0, 2.0))
        return honest(self, pos, scale_factor).transpose(1, 2)  # (t, h, w, ...): rows read along the width

    if bug != "as-built":
        monkeypatch.setattr(k6.Kandinsky6RoPE3D, "forward", planted)
    row = _row("transformer_kandinsky6/Kandinsky6RoPE3D")
    assert row.status == "driven", row.reason
    labels = _labels(row)
    if bug == "as-built":
        assert labels == [] and "axial-split t:16 h:24 w:24" in next(iter(row.specs.values()))
        assert any("not judged: the scale_factor (1.0, 2.0, 2.0)" in note for note in row.notes)
    else:
        assert labels and (bug != "h-w-swapped" or any(label.startswith("axes/") for label in labels))


def test_a_model_scale_with_no_unit_default_in_forward_is_a_skip() -> None:
    """A model's per-axis scale_factor is driven around only where forward's own default is 1 on every axis."""
    from ropecheck.survey.diffusers_drive import _interpolation_note
    from ropecheck.survey.drive import NotDriven

    class Unit:
        def forward(self, pos, scale_factor=(1.0, 1.0, 1.0)):  # type: ignore[no-untyped-def]
            return pos

    class Scaled:
        def forward(self, pos, scale_factor=(1.0, 2.0, 2.0)):  # type: ignore[no-untyped-def]
            return pos

    assert _interpolation_note(Unit, {"scale_factor": (1.0, 1.0, 1.0)}) is None
    assert "(1.0, 2.0, 2.0)" in (_interpolation_note(Unit, {"scale_factor": (1.0, 2.0, 2.0)}) or "")
    with pytest.raises(NotDriven, match="forward's own default is"):
        _interpolation_note(Scaled, {"scale_factor": (1.0, 2.0, 2.0)})


@needs_diffusers
def test_an_unknown_calling_convention_is_a_skip_with_its_signature() -> None:
    row = _row("transformer_mochi/MochiRoPE")
    assert row.status == "skip" and "forward(self, pos_frequencies" in row.reason


@needs_diffusers
def test_the_command_line_surveys_diffusers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ropecheck.cli import main
    from ropecheck.errors import ExitCode

    assert main(["survey", "--library", "diffusers", "--list"]) == ExitCode.OK
    listed = capsys.readouterr().out
    assert "transformer_flux/FluxPosEmbed" in listed and "\tllama\t" not in listed
    argv = ["survey", "--library", "diffusers", "--family", "transformer_flux/FluxPosEmbed", "--dtype", "float32"]
    out = tmp_path / "pages"
    assert main([*argv, "--max-position", "512", "-j", "1", "--out", str(out), "--json", str(tmp_path / "s.json")]) == 0
    assert "1/1 diffusers classes driven" in capsys.readouterr().out
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["library"] == "diffusers" and data["ok"] is True and "transformers" not in data
    assert (out / "families" / "transformer_flux.FluxPosEmbed.md").exists()


def test_expected_findings_are_kept_per_library(tmp_path: Path) -> None:
    from ropecheck.survey.expected import expected_document, load_expected

    base = {"versions": {"5.0": {"llama": {"cast/bfloat16": ["precision"]}}}, "why": {"precision": "w"}}
    doc = expected_document("0.1", {"a/B": {"fp32/float32": ["direction"]}}, base, library="diffusers")
    assert doc["versions"] == base["versions"] and doc["why"] == base["why"]  # transformers' entries untouched
    assert doc["diffusers"]["versions"]["0.1"] == {"a/B": {"fp32/float32": ["direction"]}}
    path = tmp_path / "expected.json"
    path.write_text(json.dumps(doc))
    assert load_expected("0.1", path, library="diffusers").labels("a/B", "fp32/float32") == ["direction"]
    assert load_expected("5.0", path).labels("llama", "cast/bfloat16") == ["precision"]


@pytest.mark.xdist_group("transformers-survey")  # it lists transformers' families (test_survey.py)
def test_without_diffusers_the_default_is_transformers_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("transformers", reason="the default survey drives the installed transformers")
    import argparse

    from ropecheck.cli import survey

    monkeypatch.setattr(survey, "_installed", lambda name: name == "transformers")
    args = argparse.Namespace(library=[], expected=None)
    assert [lib.name for lib in survey._libraries(args)] == ["transformers"]


@needs_diffusers
def test_the_report_section_holds_for_diffusers(monkeypatch: pytest.MonkeyPatch) -> None:
    import ropecheck.report.survey as section_module

    found = discover_diffusers()
    keep = ("transformer_flux/FluxPosEmbed", "transformer_mochi/MochiRoPE")
    monkeypatch.setattr(section_module, "discover_diffusers", lambda: {k: found[k] for k in keep})
    section = section_module.collect_survey_diffusers(lambda message: None)
    rows = {r.name: r for r in section.rows}
    assert rows["transformer_mochi/MochiRoPE"].verdict == "SKIP" and rows["transformer_mochi/MochiRoPE"].held
    assert section.held and rows["transformer_flux/FluxPosEmbed / float32"].verdict == "PASS"
    assert "survey_diffusers/README.md" in {p.path for p in section.pages}
