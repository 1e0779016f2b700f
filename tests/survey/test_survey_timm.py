"""The survey of timm: discovery from the sources, the loader, one driver per shape, each shown to fail when broken.

timm is optional and installed without its dependencies (``pip install --no-deps timm``: it requires torchvision,
which this torch build cannot import), so every test that reads or drives the installed timm skips when its
distribution is absent; discovery from given sources needs nothing. The tests drive float32 only (positions up to
the 128-patch grid). A broken rotary is made by monkeypatching timm's own code in this process before the verdict
forks, so the child runs the broken version; the honest run of the same row is its twin.
"""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path
from typing import Any

import pytest

from ropecheck.survey.timm_discover import discover_timm


def _installed() -> bool:
    try:
        importlib.metadata.distribution("timm")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


needs_timm = pytest.mark.skipif(not _installed(), reason="timm not installed (pip install --no-deps timm)")
F32 = ("float32",)

SOURCES = {
    "timm.layers.pos_embed_sincos": """
class _RotaryEmbeddingBase(nn.Module):  # private: its code runs in its subclasses' rows
    def _compute_bands(self):
        return freq_bands(4)

class RotaryEmbeddingNew(_RotaryEmbeddingBase):
    def get_embed(self, shape):
        return self._build_embed(shape)

def rot(x):
    return x

def apply_rot_embed_cat(x, emb):
    return x

def pixel_freq_bands(n):  # no rotary word in its name
    return n
""",
    "timm.layers.attention": """
class AttentionRope(nn.Module):  # applies a table it is given, computes none
    def forward(self, x, rope):
        return apply_rot_embed_cat(x, rope)
""",
    "timm.models.eva": """
@register_model
def vit_base_patch16_rope_224(pretrained=False):  # a model entry point
    return None

class NewRotary2D(nn.Module):
    def forward(self, x, pos):
        return pos.cos(), pos.sin()
""",
}


def _module() -> Any:
    from ropecheck.survey.timm_load import load_timm_module

    return load_timm_module("timm.layers.pos_embed_sincos")


def _row(name: str) -> Any:
    from ropecheck.survey.run import run_units

    (row,) = run_units(discover_timm()[name], dtypes=F32, max_position=4096)
    return row


def _labels(row: Any) -> list[str]:
    from ropecheck.survey.render import cells

    assert row.status == "driven", row.reason
    return [label for cell, labels in cells(row, F32).items() if cell.startswith("fp32") for label in labels]


def test_rotary_classes_and_helpers_are_found_from_their_source() -> None:
    found = discover_timm(SOURCES)
    assert list(found) == [
        "eva/NewRotary2D",
        "pos_embed_sincos/RotaryEmbeddingNew",
        "pos_embed_sincos/apply_rot_embed_cat",
        "pos_embed_sincos/rot",
    ]
    assert found["eva/NewRotary2D"].rotary_classes == ("NewRotary2D",)
    assert found["pos_embed_sincos/rot"].apply_functions == ("rot",) and found["pos_embed_sincos/rot"].library == "timm"


@needs_timm
def test_the_installed_rotaries_are_found() -> None:
    found = discover_timm()
    for name in (
        "pos_embed_sincos/RotaryEmbedding",
        "pos_embed_sincos/RotaryEmbeddingCat",
        "pos_embed_sincos/RotaryEmbeddingMixed",
        "pos_embed_sincos/RotaryEmbeddingDinoV3",
        "pos_embed_sincos/RotaryEmbeddingMRope",
        "pos_embed_sincos/apply_rot_embed_cat",
        "pos_embed_sincos/create_rope_embed",
        "gemma4_vit/Gemma4RotaryEmbedding2D",
    ):
        assert name in found
    assert not any("AttentionRope" in n or "_patch16_rope_" in n for n in found)


@needs_timm
def test_the_rotary_module_loads_as_written_without_torchvision() -> None:
    """In a fresh process: timm's own file, under its own name, with no package __init__ run and no torchvision."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from ropecheck.survey.timm_load import load_timm_module\n"
        "m = load_timm_module('timm.layers.pos_embed_sincos')\n"
        "print(m.__file__, m.RotaryEmbeddingCat.__module__, sys.modules['timm.layers'].__spec__.origin,\n"
        "      sorted(k for k in sys.modules if k.startswith(('timm', 'torchvision'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split(" ", 3)
    from ropecheck.survey.timm_discover import timm_root
    from ropecheck.survey.timm_load import torchvision_chain

    assert Path(out[0]) == timm_root() / "layers" / "pos_embed_sincos.py"
    assert out[1] == "timm.layers.pos_embed_sincos" and out[2] == "None"  # the package shell: no __init__ ran
    assert json.loads(out[3].replace("'", '"')) == [
        "timm",
        "timm.layers",
        "timm.layers._fx",
        "timm.layers.grid",
        "timm.layers.pos_embed_sincos",
        "timm.layers.trace_utils",
    ]
    assert torchvision_chain("timm.layers.pos_embed_sincos") is None


@needs_timm
def test_a_model_file_that_needs_torchvision_is_a_skip_naming_the_chain() -> None:
    from ropecheck.survey.timm_load import torchvision_chain

    chain = torchvision_chain("timm.models.gemma4_vit")
    assert chain is not None and chain[0] == "timm.models.gemma4_vit" and chain[-1].startswith("torchvision")
    if importlib.util.find_spec("torchvision") is None:
        row = _row("gemma4_vit/Gemma4RotaryEmbedding2D")
        assert row.status == "skip" and "cannot be loaded without torchvision" in row.reason and chain[-1] in row.reason


@needs_timm
@pytest.mark.parametrize(
    "name, forms",
    [
        ("pos_embed_sincos/RotaryEmbeddingCat", ["cached", "half", "ij", "xy"]),
        ("pos_embed_sincos/RotaryEmbedding", ["cached", "half", "ij", "xy"]),
        ("pos_embed_sincos/RotaryEmbeddingMixed", ["cached", "ij", "xy"]),
        ("pos_embed_sincos/apply_rot_embed_cat", ["half", "ij"]),
        ("pos_embed_sincos/create_rope_embed", ["base/half", "base/ij", "cat/half", "cat/ij", "mixed/xy"]),
    ],
    ids=["cat", "sin-cos", "mixed", "helper", "factory"],
)
def test_each_driver_shape_conforms_on_timm_code(name: str, forms: list[str]) -> None:
    row = _row(name)
    assert _labels(row) == [] and sorted(row.specs) == forms
    assert "axial-split" in row.specs[forms[0]]


@needs_timm
def test_a_grid_with_height_and_width_swapped_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    cls = _module().RotaryEmbeddingCat
    honest = cls.get_embed

    def swapped(self, shape=None, dtype=None):  # type: ignore[no-untyped-def]  # rows read along the width
        emb = honest(self, shape, dtype)
        h, w = shape or self.feat_shape
        return emb.reshape(h, w, -1).transpose(0, 1).reshape(h * w, -1)

    monkeypatch.setattr(cls, "get_embed", swapped)
    assert any(label.startswith("axes/") for label in _labels(_row("pos_embed_sincos/RotaryEmbeddingCat")))


@needs_timm
def test_a_sin_cos_pair_with_the_sign_of_sin_flipped_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    cls = _module().RotaryEmbedding
    honest = cls.get_embed

    def mirrored(self, shape=None, dtype=None):  # type: ignore[no-untyped-def]
        sin, cos = honest(self, shape, dtype)
        return -sin, cos

    monkeypatch.setattr(cls, "get_embed", mirrored)
    assert "direction" in _labels(_row("pos_embed_sincos/RotaryEmbedding"))


@needs_timm
def test_a_table_in_the_wrong_layout_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The half form's table laid out interleaved (``rotate_half`` ignored), applied half-split."""
    module = _module()
    honest = module._rope_layout
    monkeypatch.setattr(module, "_rope_layout", lambda x, rotate_half=False: honest(x, False))
    row = _row("pos_embed_sincos/RotaryEmbeddingCat")
    assert _labels(row) and all(not labels for cell, labels in _cells(row).items() if "/half/" not in cell)


def _cells(row: Any) -> dict[str, list[str]]:
    from ropecheck.survey.render import cells

    return cells(row, F32)


@needs_timm
def test_mixed_frequencies_read_from_the_wrong_axis_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _module()
    honest = module.get_mixed_freqs
    monkeypatch.setattr(module, "get_mixed_freqs", lambda freqs, t_x, t_y, dtype=None: honest(freqs, t_y, t_x, dtype))
    assert any(label.startswith("axes/") for label in _labels(_row("pos_embed_sincos/RotaryEmbeddingMixed")))


@needs_timm
def test_a_pair_rotation_turned_the_wrong_way_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    module = _module()
    mirrored = lambda x: torch.stack([x[..., 1::2], -x[..., ::2]], -1).reshape(x.shape)
    monkeypatch.setattr(module, "rot", mirrored)
    assert "direction" in _labels(_row("pos_embed_sincos/rot"))


@needs_timm
def test_a_factory_with_the_wrong_temperature_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _module()
    honest = module.freq_bands
    monkeypatch.setattr(module, "freq_bands", lambda n, temperature=10000.0, **kw: honest(n, temperature * 2, **kw))
    row = _row("pos_embed_sincos/create_rope_embed")
    broken = {cell for cell, labels in _cells(row).items() if labels}
    assert broken and all(cell.startswith(("fp32/cat/", "fp32/base/")) for cell in broken)  # Mixed has no bands


@needs_timm
@pytest.mark.parametrize(
    "name, reason",
    [
        ("pos_embed_sincos/RotaryEmbeddingMRope", "temporal channels"),
        ("pos_embed_sincos/RotaryEmbeddingDinoV3", "[-1, 1]"),
    ],
    ids=["mrope", "dinov3"],
)
def test_a_reading_the_spec_cannot_state_is_a_skip_with_it(name: str, reason: str) -> None:
    row = _row(name)
    assert row.status == "skip" and reason in row.reason


@needs_timm
def test_the_command_line_surveys_timm(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ropecheck.cli import main
    from ropecheck.errors import ExitCode

    assert main(["survey", "--library", "timm", "--list"]) == ExitCode.OK
    assert "pos_embed_sincos/RotaryEmbeddingCat\ttimm.layers.pos_embed_sincos" in capsys.readouterr().out
    argv = ["survey", "--library", "timm", "--family", "pos_embed_sincos/apply_rot_embed", "--dtype", "float32"]
    out = tmp_path / "pages"
    assert main([*argv, "-j", "1", "--out", str(out), "--json", str(tmp_path / "s.json")]) == ExitCode.OK
    assert "1/1 timm classes driven" in capsys.readouterr().out
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["library"] == "timm" and data["ok"] is True and data["timm"] == importlib.metadata.version("timm")
    assert (out / "families" / "pos_embed_sincos.apply_rot_embed.md").exists()


@needs_timm
def test_the_report_section_holds_for_timm(monkeypatch: pytest.MonkeyPatch) -> None:
    import ropecheck.report.survey as section_module

    found = discover_timm()
    keep = ("pos_embed_sincos/apply_rot_embed_cat", "pos_embed_sincos/RotaryEmbeddingDinoV3")
    monkeypatch.setattr(section_module, "discover_timm", lambda: {k: found[k] for k in keep})
    section = section_module.collect_survey_timm(lambda message: None)
    rows = {r.name: r for r in section.rows}
    assert rows["pos_embed_sincos/RotaryEmbeddingDinoV3"].verdict == "SKIP" and section.held
    assert rows["pos_embed_sincos/apply_rot_embed_cat / float32"].verdict == "PASS"
    assert "survey_timm/README.md" in {p.path for p in section.pages}
