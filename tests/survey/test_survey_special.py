"""The rotaries of transformers that take no position ids: DINOv3's patch centres, EfficientLoFTR's feature grid,
ESMFold 2's atom coordinates, MusicFlamingo's timestamps.

Each family conforms built in float32, and each has twins: its own code monkeypatched with a bug before the verdict
forks (so the child runs the broken version) is judged failing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("transformers", reason="the survey drives the installed transformers")

import torch

from ropecheck.survey import cells, discover
from ropecheck.survey.drive_atoms import atom_axes
from ropecheck.survey.drive_loftr import feature_grid_spec
from ropecheck.survey.drive_special import built_from, patch_centres_spec, prepare_special
from ropecheck.survey.drive_time import time_axes
from ropecheck.survey.run import run_units

#: the modules that survey transformers run on one xdist worker (``--dist loadgroup``): the first call of
#: ``discover()`` in a process imports every model family (most of a survey test's time), later calls reuse it
pytestmark = pytest.mark.xdist_group("transformers-survey")


F32 = ("float32",)


def _labels(name: str) -> list[str]:
    """The fp32 labels of the family's own row, driven with float32 only."""
    (row, *_) = run_units(discover()[name], dtypes=F32, max_position=4096)
    assert row.status == "driven", row.reason
    return [label for cell, labels in cells(row, F32).items() if cell.startswith("fp32") for label in labels]


def test_dinov3s_rope_position_embedding_is_found() -> None:
    found = discover()
    assert found["dinov3_vit"].rotary_classes == ("DINOv3ViTRopePositionEmbedding",)
    assert found["sapiens2"].rotary_classes == ("Sapiens2RopePositionEmbedding",)


@pytest.mark.parametrize(
    ("family", "driver"),
    [
        ("eomt_dinov3", "patch_centres"),
        ("dinov3_vit", "patch_centres"),
        ("efficientloftr", "feature_grid"),
        ("esmfold2", "atom_coordinates"),
        ("musicflamingo", "timestamps"),
    ],
)
def test_each_convention_is_driven_from_the_config_that_builds_it(family: str, driver: str) -> None:
    (driven,) = prepare_special(discover()[family]) or []
    assert driven.notes[0].startswith(f"shape `{driver}`")
    assert _labels(family) == []


def test_the_specs_are_stated_from_the_config() -> None:
    """The readings, from the configs' values alone: DINOv3's centred cells, EfficientLoFTR's 1-based cells with the
    row on even pairs, ESMFold 2's groups and inert pairs, MusicFlamingo's two halves."""
    dino = patch_centres_spec(64, 100.0, side=4)
    assert dino.axes is not None and [a.offset for a in dino.axes.axes] == pytest.approx([2 * torch.pi * -0.75] * 2)
    loftr = feature_grid_spec(256, 10000.0)
    assert loftr.axes is not None and loftr.axes.axis_of_pair()[:4] == (0, 1, 0, 1)
    assert loftr.axes.frequency_of_pair()[2] == (1, 128, None)  # pair 2: the row at 10000 ** (-1 / 64)
    atoms = atom_axes(40, 2, 10, 20.0, 10000.0)
    assert atoms.names == ("x", "y", "z", "uid", "inert") and atoms.axes[-1].scale == 0
    assert atoms.frequency_of_pair()[1] == (1, 4, 20.0)  # x's second pair: 20 ** (-1 / 2)
    time = time_axes(1200.0, 4, 1200, 1.0, 3, 7).axes[0]
    assert time.scale == -1 and time.freqs is not None
    assert time.freqs[0] == pytest.approx(2 * torch.pi * 3 / 1200)
    assert time.freqs[2] == pytest.approx(2 * torch.pi * 2 * torch.pi * 7 / 1200)


def test_a_family_with_a_canonical_rotary_keeps_its_row_for_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A family whose module holds a text rotary besides a patch-centre one: its own row is the canonical driver's
    (prepare_special says None), and the patch-centre class is taken by its convention on its own row."""
    import types

    from ropecheck.survey import Family
    from ropecheck.survey.drive_special import DRIVERS

    class TextRotaryEmbedding:
        def forward(self, x: Any, position_ids: Any) -> Any: ...

    class PatchRotaryEmbedding:
        def forward(self, pixel_values: Any) -> Any: ...

    module = types.ModuleType("fakepkg_special.modeling_both")
    module.__dict__.update(
        TextRotaryEmbedding=TextRotaryEmbedding,
        PatchRotaryEmbedding=PatchRotaryEmbedding,
        get_patches_center_coordinates=lambda *a, **k: None,
    )
    monkeypatch.setitem(__import__("sys").modules, module.__name__, module)
    classes = ("TextRotaryEmbedding", "PatchRotaryEmbedding")
    family = Family("both", module.__name__, "BothConfig", "fakepkg_special.configuration_both", classes, ())
    assert prepare_special(family) is None
    assert [d.name for d in DRIVERS if d.applies(module, PatchRotaryEmbedding)] == ["patch_centres"]
    assert not [d.name for d in DRIVERS if d.applies(module, TextRotaryEmbedding)]


def test_esmfold2s_rotary_is_found_in_its_atom_encoder_sub_config() -> None:
    from transformers.models.esmfold2.configuration_esmfold2 import EsmFold2Config

    where, config = built_from(EsmFold2Config(), "EsmFold2AtomEncoderConfig") or ("", None)
    assert where == "atom_encoder" and config.head_dim == 32


# -- twins: each family's own code with a bug planted fails ------------------------------------------------------------


def _swapped_centres(honest: Callable[..., Any]) -> Callable[..., Any]:
    return lambda h, w, dtype, device: honest(h, w, dtype=dtype, device=device).flip(-1)  # (x, y) for (y, x)


def _corner_centres(honest: Callable[..., Any]) -> Callable[..., Any]:
    def corners(h: int, w: int, dtype: Any, device: Any) -> Any:
        return honest(h, w, dtype=dtype, device=device) - torch.tensor([1 / h, 1 / w], dtype=dtype)

    return corners


@pytest.mark.parametrize("bug", [_swapped_centres, _corner_centres], ids=["h_w_swapped", "corners"])
def test_eomt_dinov3_fails_with_a_bug_in_its_patch_centres(monkeypatch: pytest.MonkeyPatch, bug: Any) -> None:
    import transformers.models.eomt_dinov3.modeling_eomt_dinov3 as m

    monkeypatch.setattr(m, "get_patches_center_coordinates", bug(m.get_patches_center_coordinates))
    assert any(label.startswith("axes/") for label in _labels("eomt_dinov3"))


def _loftr_bug(kind: str) -> Callable[..., Any]:
    """A copy of compute_embeddings (its parameter names, which the driver reads), with ``kind`` planted."""

    def compute(inv_freq: Any, embed_height: int, embed_width: int, hidden_size: int) -> Any:
        h, w, hidden = embed_height, embed_width, hidden_size
        i = torch.arange(h, dtype=inv_freq.dtype)[:, None, None] + (0 if kind == "zero_based" else 1)
        j = torch.arange(w, dtype=inv_freq.dtype)[None, :, None] + (0 if kind == "zero_based" else 1)
        i, j = (j.expand(h, w, 1), i.expand(h, w, 1)) if kind == "h_w_swapped" else (i.expand(h, w, 1), j)
        emb = torch.zeros(1, h, w, hidden // 2, dtype=inv_freq.dtype)
        emb[:, :, :, 0::2] = i * inv_freq
        emb[:, :, :, 1::2] = j * inv_freq
        return emb

    return compute


@pytest.mark.parametrize(("kind", "label"), [("h_w_swapped", "axes/"), ("zero_based", "positions/positions_shifted")])
def test_efficientloftr_fails_with_a_bug_in_its_grid(monkeypatch: pytest.MonkeyPatch, kind: str, label: str) -> None:
    import transformers.models.efficientloftr.modeling_efficientloftr as m

    monkeypatch.setattr(m, "compute_embeddings", _loftr_bug(kind))
    assert any(found.startswith(label) for found in _labels("efficientloftr"))


def _cast_labels(name: str, dtype: str) -> list[str]:
    (row, *_) = run_units(discover()[name], dtypes=(dtype,), max_position=4096)
    assert row.status == "driven", row.reason
    return [label for cell, labels in cells(row, (dtype,)).items() if cell.startswith("cast") for label in labels]


def test_efficientloftr_cast_is_named_precision_and_a_swap_in_it_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cast to bfloat16 its angles are formed in bfloat16 (the per-axis precision model of a grid built in the cast
    buffer's dtype); the same cast with rows and columns swapped is still an axes finding, never precision."""
    import transformers.models.efficientloftr.modeling_efficientloftr as m

    assert _cast_labels("efficientloftr", "bfloat16") == ["precision/angles_low_precision"]
    monkeypatch.setattr(m, "compute_embeddings", _loftr_bug("h_w_swapped"))
    found = _cast_labels("efficientloftr", "bfloat16")
    assert found and all(label.startswith("axes/") for label in found)


def test_efficientloftrs_honest_grid_copy_conforms(monkeypatch: pytest.MonkeyPatch) -> None:
    """The twins' control: the same copy of compute_embeddings without a bug conforms."""
    import transformers.models.efficientloftr.modeling_efficientloftr as m

    monkeypatch.setattr(m, "compute_embeddings", _loftr_bug("honest"))
    assert _labels("efficientloftr") == []


@pytest.mark.parametrize(
    ("bug", "label"),
    [("x_y_swapped", "axes/axes_swapped"), ("uid_unturned", "axes/axis_ignored"), ("wrong_base", "frequencies")],
)
def test_esmfold2_fails_with_a_bug_in_its_rotary(monkeypatch: pytest.MonkeyPatch, bug: str, label: str) -> None:
    import transformers.models.esmfold2.modeling_esmfold2 as m

    cls = m.EsmFold2RotaryEmbedding
    honest, init = cls.forward, cls.__init__

    def forward(self: Any, ref_pos: Any, ref_space_uid: Any, dtype: Any) -> Any:  # the names the driver reads
        if bug == "x_y_swapped":
            ref_pos = ref_pos[..., [1, 0, 2]]
        elif bug == "uid_unturned":
            ref_space_uid = torch.zeros_like(ref_space_uid)
        return honest(self, ref_pos, ref_space_uid, dtype)

    @functools.wraps(init)  # its signature, whose annotation names the config that builds it
    def wrong_base(self: Any, atom_config: Any) -> None:
        init(self, atom_config)
        self.spatial_rope_base_frequency = 10.0

    monkeypatch.setattr(cls, "forward", forward)
    if bug == "wrong_base":
        monkeypatch.setattr(cls, "__init__", wrong_base)
    assert label in _labels("esmfold2")


@pytest.mark.parametrize("bug", ["halves_swapped", "sin_flipped"])
def test_musicflamingo_fails_with_a_bug_in_its_time_rotary(monkeypatch: pytest.MonkeyPatch, bug: str) -> None:
    import transformers.models.musicflamingo.modeling_musicflamingo as m

    cls = m.MusicFlamingoRotaryEmbedding
    honest = cls.forward

    def forward(self: Any, timestamps: Any, seq_len: int) -> Any:
        cos, sin = honest(self, timestamps, seq_len)
        if bug == "sin_flipped":
            return cos, -sin
        half = cos.shape[-1] // 2
        return cos.roll(half, -1), sin.roll(half, -1)  # the time half's angles on the window half's pairs

    monkeypatch.setattr(cls, "forward", forward)
    assert _labels("musicflamingo")
