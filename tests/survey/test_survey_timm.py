"""The survey of timm: discovery from the sources, the loader, one driver per shape, each shown to fail when broken.

timm is optional and installed without its dependencies (``pip install --no-deps timm``: it requires torchvision,
which this torch build cannot import), so every test that reads or drives the installed timm skips when its
distribution is absent; discovery from given sources needs nothing. The tests drive float32 only (positions up to
the 128-patch grid). A broken rotary is made by monkeypatching timm's own code in this process before the verdict
forks, so the child runs the broken version; the honest run of the same row is its twin.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import pytest

from ropecheck.survey.timm_discover import discover_timm, timm_root


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
    loaded = json.loads(out[3].replace("'", '"'))
    assert [m for m in loaded if not (timm_root() / Path(*m.split(".")[1:]) / "__init__.py").exists()] == [
        "timm.layers._fx",
        "timm.layers.grid",
        "timm.layers.pos_embed_sincos",
        "timm.layers.trace_utils",
    ]  # the rest are package shells, which the fresh survey test checks ran no __init__
    assert torchvision_chain("timm.layers.pos_embed_sincos") is None


@needs_timm
def test_a_model_file_that_needs_torchvision_has_its_rotary_definitions_compiled() -> None:
    """gemma4_vit reaches torchvision through its own imports (not only a package __init__): its rows say so and are
    driven from its rotary definitions, compiled from the installed source."""
    from ropecheck.survey.timm_load import torchvision_chain

    chain = torchvision_chain("timm.models.gemma4_vit")
    assert chain is not None and chain[0] == "timm.models.gemma4_vit" and chain[-1].startswith("torchvision")
    assert all(not (timm_root() / Path(*m.split(".")[1:]) / "__init__.py").exists() for m in chain[1:-1])
    if importlib.util.find_spec("torchvision") is None:
        row = _row("gemma4_vit/Gemma4RotaryEmbedding2D")
        assert row.status == "driven" and any(chain[-1] in note and "compiled" in note for note in row.notes)


@needs_timm
def test_a_fresh_survey_of_timm_runs_no_package_init_and_no_torchvision() -> None:
    """In a fresh process, surveying a row of each loader (a module loaded whole under package shells, one whose
    names come from a package by name, one compiled from its source): no timm __init__ runs, torchvision is never
    imported, and the module loaded whole is the installed file under its own name."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from ropecheck.survey.run import run_units\n"
        "from ropecheck.survey.timm_discover import discover_timm\n"
        "from ropecheck.survey.timm_load import load_timm_module\n"
        "found = discover_timm()\n"
        "for name in ('pos_embed_sincos/apply_rot_embed', 'gemma4_vit/rotate_half'):\n"
        "    (row,) = run_units(found[name], dtypes=('float32',), max_position=64)\n"
        "    assert row.status == 'driven', row.reason\n"
        "features = load_timm_module('timm.models._features_fx')  # imports names from timm.layers by name\n"
        "print(features.__file__, sys.modules['timm.layers.pos_embed_sincos'].__file__)\n"
        "print([k for k in sys.modules if k.startswith('torchvision')])\n"
        "print([k for k, m in sys.modules.items() if k.split('.')[0] == 'timm' and\n"
        "       getattr(m.__spec__, 'origin', None) and m.__file__.endswith('__init__.py')])\n"
        "print('timm.models.gemma4_vit' in sys.modules)\n"
    )
    lines = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    files = lines[0].split(" ")
    assert Path(files[0]) == timm_root() / "models" / "_features_fx.py"
    assert Path(files[1]) == timm_root() / "layers" / "pos_embed_sincos.py"
    if importlib.util.find_spec("torchvision") is None:
        assert lines[1:4] == ["[]", "[]", "False"]  # compiled, never imported under its name


def test_a_name_imported_from_a_package_leads_to_the_module_that_defines_it(tmp_path: Path) -> None:
    """``from timm.data import X`` follows the package's __init__ to the submodule it takes X from: a model that
    imports only a constant does not reach the dataset code (and torchvision); one that imports the dataset code
    does, and a name the __init__ binds by running code ends the chain at that __init__, guarded or not."""
    from ropecheck.survey.timm_load import package_binding, torchvision_chain

    root = tmp_path / "timm"
    files = {
        "__init__.py": "from .data import *\n",
        "data/__init__.py": "from .constants import *\nfrom .factory import create_dataset\nLATE = make()\n",
        "data/constants.py": "MEAN = (0.5,)\n_PRIVATE = 1\n",
        "data/factory.py": "from torchvision.datasets import ImageFolder\ncreate_dataset = ImageFolder\n",
        "models/__init__.py": "from .a import *\n",
        "models/a.py": "from timm.data import MEAN\n",
        "models/b.py": "from timm.data import MEAN, create_dataset\n",
        "models/c.py": "from timm.data import LATE\n",
        "models/d.py": "try:\n    from timm.data import LATE\nexcept ImportError:\n    LATE = None\n",
        "models/e.py": "try:\n    import torchvision\nexcept ImportError:\n    pass\nfrom timm.data import MEAN\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    assert package_binding(root, "timm.data", "MEAN") == ("timm.data.constants", "MEAN")
    assert package_binding(root, "timm.data", "constants") == ("timm.data.constants", None)
    assert package_binding(root, "timm.data", "_PRIVATE") is None  # a star import binds no private name
    assert torchvision_chain("timm.models.a", root=root) is None
    assert torchvision_chain("timm.models.b", root=root) == (
        "timm.models.b", "timm.data.factory", "torchvision.datasets",
    )  # fmt: skip
    chain = torchvision_chain("timm.models.c", root=root)
    assert chain is not None and "binds LATE by running code" in chain[-1]
    guarded = torchvision_chain("timm.models.d", root=root)  # a shell must not fail where the __init__ would not
    assert guarded is not None and "a guarded import" in guarded[-1] and "LATE" in guarded[-1]
    assert torchvision_chain("timm.models.e", root=root) is None  # Python's own fallback covers a guarded import


GEMMA4_LIKE = """
import torch
import torch.nn as nn
from timm.layers import RmsNorm
from torchvision.ops import FrozenBatchNorm2d

def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, -1)
    return torch.cat((-x2, x1), -1)

class Model(nn.Module):
    norm = FrozenBatchNorm2d

    @torch.jit.ignore
    def no_weight_decay(self):
        return set()
"""


@pytest.mark.parametrize(
    "extra, reason",
    [
        ("torch.set_default_dtype(torch.float64)\n", "calls torch.set_default_dtype for its side effect"),
        ("rotate_half.__wrapped__ = None\n", "sets rotate_half.__wrapped__"),
        ("def rotate_half(x):\n    return x\n", "rotate_half is bound at line(s)"),
        ("_patched = setattr(torch, 'cat', None)\n", "calls setattr at import"),
        ("def rope_scale(x):\n    return RmsNorm(x)\n", "imports timm.layers"),
        ("def enable():\n    global torch\n    torch = None\n", "declares global torch"),
        ("register_notrace_function(rotate_half)\n", "calls register_notrace_function for its side effect"),
        ("class Block:\n    scale = torch.ones(1)\n", "calls torch.ones at import"),
    ],
    ids=["torch-state", "attribute", "rebound", "setattr", "timm-import", "global", "bare-call", "class-body"],
)
def test_rotary_definitions_are_not_compiled_alone_where_the_rest_could_change_them(extra: str, reason: str) -> None:
    from ropecheck.survey.drive import NotDriven
    from ropecheck.survey.timm_source import compile_definitions

    honest = compile_definitions(GEMMA4_LIKE, "timm.models.like", Path("like.py"))
    assert honest.__compiled__ == ("line 2: import torch", "line 7: def rotate_half")  # the model is not run
    assert "FrozenBatchNorm2d" not in vars(honest) and "Model" not in vars(honest)
    assert honest.rotate_half.__annotations__["x"] is honest.torch.Tensor  # evaluated, as the module has no
    # `from __future__ import annotations` (this test module's is not inherited)
    with pytest.raises(NotDriven, match=re.escape(reason)):
        compile_definitions(GEMMA4_LIKE + extra, "timm.models.like", Path("like.py"))


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


def _gemma4() -> Any:
    from ropecheck.survey.timm_drive import load_timm_rotaries

    return load_timm_rotaries("timm.models.gemma4_vit")[0]


GEMMA4_ROWS = ["Gemma4RotaryEmbedding2D", "apply_multidimensional_rope", "apply_rotary_pos_emb", "rotate_half"]


@needs_timm
@pytest.mark.parametrize("name", GEMMA4_ROWS)
def test_gemma4s_vision_rotary_conforms_part_by_part(name: str) -> None:
    row = _row(f"gemma4_vit/{name}")
    assert _labels(row) == [] and list(row.specs) == [""]
    assert "axial-shared" in row.specs[""] and "x" in row.specs[""]


def _swap_parts(t: Any) -> Any:
    import torch

    half = t.shape[-1] // 2
    return torch.cat([t[..., half:], t[..., :half]], -1)


def _broken_gemma4(name: str) -> Any:
    """A copy of gemma4_vit's ``name`` with a bug planted: x and y swapped (the rotary's position ids, or the
    apply function's cos/sin parts), or the rotation turned the wrong way."""
    import torch

    module = _gemma4()
    honest = getattr(module, name)
    if name == "Gemma4RotaryEmbedding2D":
        forward = honest.forward
        return lambda self, x, position_ids: forward(self, x, position_ids.flip(-1))
    if name == "apply_multidimensional_rope":
        return lambda x, cos, sin, ndim=2, unsqueeze_dim=2: honest(x, _swap_parts(cos), _swap_parts(sin), ndim,
                                                                   unsqueeze_dim)  # fmt: skip
    if name == "apply_rotary_pos_emb":
        return lambda x, cos, sin, unsqueeze_dim=2: honest(x, cos, -sin, unsqueeze_dim)
    return lambda x: torch.cat((x[..., x.shape[-1] // 2 :], -x[..., : x.shape[-1] // 2]), -1)


@needs_timm
@pytest.mark.parametrize(
    "name, label",
    [
        ("Gemma4RotaryEmbedding2D", "axes/"),
        ("apply_multidimensional_rope", "axes/"),
        ("apply_rotary_pos_emb", "direction"),
        ("rotate_half", "direction"),
    ],
)
def test_gemma4s_rows_fail_with_a_bug_planted_in_their_own_code(
    monkeypatch: pytest.MonkeyPatch, name: str, label: str
) -> None:
    """Each row's twin: its own definition replaced by a broken copy in the compiled namespace (the functions'
    globals, so the callers run it) before the verdict forks."""
    module, broken = _gemma4(), _broken_gemma4(name)
    if name == "Gemma4RotaryEmbedding2D":
        monkeypatch.setattr(module.Gemma4RotaryEmbedding2D, "forward", broken)
    else:
        monkeypatch.setattr(module, name, broken)
    assert any(found.startswith(label) for found in _labels(_row(f"gemma4_vit/{name}")))


def test_an_image_mrope_assigns_its_pairs_by_the_interleaved_rule() -> None:
    """Pair i to h where i = 1 (mod 3) below 3 sec_h, to w where i = 2 (mod 3) below 3 sec_w, else to the inert t:
    timm's default sections clamp at head_dim 64 (11/11/10) and tile at 72, where the rule is transformers'
    interleaved M-RoPE exactly."""
    from ropecheck.axes import mrope
    from ropecheck.survey.timm_drive import mrope_axes

    clamped = mrope_axes(64, (8, 12, 12))
    assert [len(a.pairs) for a in clamped.axes] == [11, 11, 10] and clamped.axes[2].pairs[-1] == 29
    assert [a.scale for a in clamped.axes] == [0.0, 1.0, 1.0] and not clamped.text_same_position
    clamped.check(32)
    tiled = mrope_axes(72, (12, 12, 12))
    assert [a.pairs for a in tiled.axes] == [a.pairs for a in mrope((12, 12, 12), 72, interleaved=True).axes]


@needs_timm
@pytest.mark.parametrize("head_dim", [64, 72])
def test_the_mrope_rule_is_the_axis_timm_assigns(head_dim: int) -> None:
    from ropecheck.survey.timm_drive import mrope_axes

    rope = _module().RotaryEmbeddingMRope(head_dim)
    assert mrope_axes(head_dim, rope.mrope_section).axis_of_pair() == tuple(rope.axis.tolist())


@needs_timm
@pytest.mark.parametrize(
    "name, forms, words",
    [
        ("pos_embed_sincos/RotaryEmbeddingMRope", ["d64", "d72"], "custom t:11 h:11 w:10 (positions t: 0 (inert)"),
        ("pos_embed_sincos/RotaryEmbeddingDinoV3", ["cached", "half", "ij", "xy"], "h: 0.0981748 p - 6.2341"),
    ],
    ids=["mrope", "dinov3"],
)
def test_the_rows_with_mapped_axes_conform(name: str, forms: list[str], words: str) -> None:
    """M-RoPE's temporal pairs on an inert axis, DINOv3's patch centres as an affine map of the cell index."""
    row = _row(name)
    assert _labels(row) == [] and sorted(row.specs) == forms and words in row.specs[forms[0]]


def _broken_mrope(bug: str) -> Any:
    """``init_non_persistent_buffers`` whose axis buffer then turns the temporal pairs by the height (``t_by_h``), or
    swaps height and width (``h_w_swapped``)."""
    honest = _module().RotaryEmbeddingMRope.init_non_persistent_buffers

    def broken(self: Any) -> None:
        honest(self)
        axis = self.axis.clone()
        if bug == "t_by_h":
            self.axis[axis == 0] = 1
        else:
            self.axis[axis == 1], self.axis[axis == 2] = 2, 1

    return broken


def _broken_dinov3(bug: str) -> Any:
    """``_get_pos_embed_from_coords`` given the coordinate channels swapped (``h_w_swapped``), or the cells' corners
    for their centres (``uncentred``: ``2k / S - 1`` on the 128-cell side)."""
    honest = _module().RotaryEmbeddingDinoV3._get_pos_embed_from_coords
    if bug == "h_w_swapped":
        return lambda self, coords: honest(self, coords.flip(-1))
    return lambda self, coords: honest(self, coords - 1.0 / 128)


@needs_timm
@pytest.mark.parametrize(
    "cls, bug",
    [
        ("RotaryEmbeddingMRope", "t_by_h"),
        ("RotaryEmbeddingMRope", "h_w_swapped"),
        ("RotaryEmbeddingDinoV3", "h_w_swapped"),
        ("RotaryEmbeddingDinoV3", "uncentred"),
    ],
)
def test_the_rows_with_mapped_axes_fail_with_a_bug_planted(monkeypatch: pytest.MonkeyPatch, cls: str, bug: str) -> None:
    """The twins of the conformance test above: every form of the row fails."""
    if cls == "RotaryEmbeddingMRope":
        monkeypatch.setattr(_module().RotaryEmbeddingMRope, "init_non_persistent_buffers", _broken_mrope(bug))
    else:
        monkeypatch.setattr(_module().RotaryEmbeddingDinoV3, "_get_pos_embed_from_coords", _broken_dinov3(bug))
    found = _cells(_row(f"pos_embed_sincos/{cls}"))
    assert all(any(label.startswith("axes/") for label in found[cell]) for cell in found if cell.startswith("fp32"))


@needs_timm
@pytest.mark.parametrize(
    "name, reads",
    [
        ("pos_embed_sincos/RotaryEmbeddingMRope", "_MROPE_READS"),
        ("pos_embed_sincos/RotaryEmbeddingDinoV3", "_DINOV3_READS"),
    ],
    ids=["mrope", "dinov3"],
)
def test_a_source_that_no_longer_says_the_reading_is_a_skip(
    monkeypatch: pytest.MonkeyPatch, name: str, reads: str
) -> None:
    import ropecheck.survey.timm_drive as drive

    monkeypatch.setattr(drive, reads, (*getattr(drive, reads), "positions = grid * 2"))
    row = _row(name)
    assert row.status == "skip" and "no longer says 'positions = grid * 2'" in row.reason


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
    assert rows["pos_embed_sincos/RotaryEmbeddingDinoV3 / bfloat16"].verdict == "PASS" and section.held
    assert rows["pos_embed_sincos/apply_rot_embed_cat / float32"].verdict == "PASS"
    assert "survey_timm/README.md" in {p.path for p in section.pages}
