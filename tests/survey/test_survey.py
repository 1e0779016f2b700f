"""The survey: discovery from a registry, driving real families, the expected findings, the command line.

Real families driven here are small and fast (Llama, NanoChat); everything else uses a fake
registry or the comparison on data. A broken rotary is made by monkeypatching the family's own
code before the verdict forks, so the child runs the broken version.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

pytest.importorskip("transformers", reason="the survey drives the installed transformers")

from ropecheck.cli import main
from ropecheck.errors import ExitCode
from ropecheck.io import replace_tree
from ropecheck.survey import (
    Expected,
    Family,
    NotDriven,
    Registry,
    cells,
    compare,
    discover,
    prepare,
    render_index,
    run_family,
)

#: the modules that survey transformers run on one xdist worker (``--dist loadgroup``): the first call of
#: ``discover()`` in a process imports every model family (most of a survey test's time), later calls reuse it
pytestmark = pytest.mark.xdist_group("transformers-survey")


LLAMA_LIKE = """
class NewThingRotaryEmbedding(nn.Module):
    pass

def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    pass

class NewThingAttention(nn.Module):
    def __init__(self, config):
        self.rotary_emb = NewThingRotaryEmbedding(config)

    def forward(self, q, k, position_embeddings):
        return apply_rotary_pos_emb(q, k, *position_embeddings)
"""


def _fake_registry(sources: dict[str, str]) -> Registry:
    names = {"newthing": "NewThingConfig", "newthing_text": "NewThingTextConfig", "plain": "PlainConfig"}
    return Registry(names, lambda mt: {"newthing_text": "newthing"}.get(mt, mt), package="fakepkg", sources=sources)


def test_a_family_added_to_the_registry_is_found() -> None:
    sources = {
        "fakepkg.newthing.modeling_newthing": LLAMA_LIKE,
        "fakepkg.newthing.configuration_newthing": "class NewThingConfig:\n"
        "    sub_configs = {'text_config': NewThingTextConfig}\n",
        "fakepkg.plain.modeling_plain": "class PlainAttention:\n    pass\n",  # no rotary: not a family
    }
    found = discover(_fake_registry(sources))
    assert list(found) == ["newthing"]
    fam = found["newthing"]
    assert fam.rotary_classes == ("NewThingRotaryEmbedding",)
    assert fam.apply_functions == ("apply_rotary_pos_emb",)
    assert fam.components == ("newthing_text",)  # a sub-config is part of its family, not a family


def test_rotary_code_that_nothing_uses_is_not_a_rotary_embedding() -> None:
    """A template's apply_rotary_pos_emb left in a model without RoPE (Jamba, Nemotron-H, Parakeet) is dead code."""
    dead = (
        "def rotate_half(x):\n    pass\n\ndef apply_rotary_pos_emb(q, k, cos, sin):\n    return rotate_half(q)\n\n"
        "@use_kernelized_func(apply_rotary_pos_emb)\nclass PlainAttention:\n    pass\n"  # registered, never called
    )
    sources = {
        "fakepkg.plain.modeling_plain": dead,
        "fakepkg.newthing.modeling_newthing": LLAMA_LIKE,
        "fakepkg.newthing.configuration_newthing": "class NewThingConfig:\n    sub_configs = {'t': NewThingTextConfig}",
    }
    assert list(discover(_fake_registry(sources))) == ["newthing"]
    unused_class = LLAMA_LIKE.replace("self.rotary_emb = NewThingRotaryEmbedding(config)", "pass")
    sources["fakepkg.newthing.modeling_newthing"] = unused_class
    assert discover(_fake_registry(sources))["newthing"].rotary_classes == ()
    found = discover()
    assert not {"jamba", "nemotron_h", "parakeet_ctc"} & set(found)
    assert {"llama", "gptj", "codegen"} <= set(found)  # module-level functions the attention calls


def test_the_installed_families_include_the_known_ones() -> None:
    found = discover()
    for name in ("llama", "gemma3", "modernbert", "cohere2", "qwen2"):
        assert name in found
    assert "clvp" in found and not found["clvp"].rotary_classes  # found, and skipped with its reason
    with pytest.raises(NotDriven, match="no rotary embedding module"):
        prepare(found["clvp"])


def test_gptj_is_driven_as_its_attention_uses_its_table() -> None:
    """GPT-J: a [sin | cos] table gathered by position, apply(q[..., :rotary_dim], sin, cos), the rest passed."""
    (driven,) = prepare(discover()["gptj"])
    assert (driven.spec.layout, driven.spec.head_dim, driven.spec.rotary_dim) == ("interleaved", 256, 64)
    assert driven.max_position == 2048  # judged over the table the model builds (n_positions)
    result = run_family(discover()["gptj"], dtypes=("float32",), max_position=512)
    assert cells(result, ("float32",)) == {"fp32/float32": []}


def test_a_broken_table_family_fails_with_the_right_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    import transformers.models.gptj.modeling_gptj as gptj

    monkeypatch.setattr(gptj, "rotate_every_two", _half_split)
    result = run_family(discover()["gptj"], dtypes=("float32",), max_position=512)
    assert "layout" in cells(result, ("float32",))["fp32/float32"]


def _half_split(x):  # type: ignore[no-untyped-def]  # rotate_half where GPT-J pairs (2i, 2i+1)
    half = x.shape[-1] // 2
    return __import__("torch").cat((-x[..., half:], x[..., :half]), dim=-1)


TABLE_FAMILY = Family(
    "table_family",
    "fixtures.survey.table_family",
    "TableConfig",
    "fixtures.survey.table_family",
    rotary_classes=(),
    apply_functions=("apply_rotary_pos_emb",),
)


def test_a_module_level_table_without_a_rotary_class_is_driven(monkeypatch: pytest.MonkeyPatch) -> None:
    """GPT-J and CodeGen up to transformers 5.23: no rotary module, create_sinusoidal_positions at module level."""
    (driven,) = prepare(TABLE_FAMILY)
    assert driven.rotary_class == "create_sinusoidal_positions"
    assert (driven.spec.layout, driven.spec.head_dim, driven.spec.rotary_dim) == ("interleaved", 256, 64)
    assert driven.max_position == 1024
    assert cells(run_family(TABLE_FAMILY, dtypes=("float32",), max_position=512), ("float32",)) == {"fp32/float32": []}

    from fixtures.survey import table_family

    monkeypatch.setattr(table_family, "ROTATE", _half_split)
    result = run_family(TABLE_FAMILY, dtypes=("float32",), max_position=512)
    assert "layout" in cells(result, ("float32",))["fp32/float32"]


def test_proportional_rope_conforms_and_a_wrong_one_does_not(monkeypatch: pytest.MonkeyPatch) -> None:
    """LFM3's global layers: half of the pairs turn, at frequencies over the whole head (Gemma 4's proportional)."""
    family = discover()["lfm3"]
    full = [d for d in prepare(family) if d.layer_type == "full_attention"]
    assert full and full[0].spec.rope_type == "proportional" and full[0].spec.turning_pairs() == 32
    result = run_family(family, dtypes=("float32",), max_position=512)
    assert cells(result, ("float32",))["fp32/full_attention/float32"] == []

    import torch
    from transformers import modeling_rope_utils

    def over_the_turning_dims(config, device=None, seq_len=None, layer_type=None):  # type: ignore[no-untyped-def]
        # the partial-rotary way: the exponent over the turning dims (2k), not over the whole head
        inv, att = modeling_rope_utils._compute_proportional_rope_parameters(config, device, seq_len, layer_type)
        k = int((inv > 0).sum())
        inv[:k] = 1.0 / (inv.new_tensor(1e6) ** (torch.arange(0, 2 * k, 2, dtype=torch.float) / (2 * k)))
        return inv, att

    monkeypatch.setitem(modeling_rope_utils.ROPE_INIT_FUNCTIONS, "proportional", over_the_turning_dims)
    result = run_family(family, dtypes=("float32",), max_position=512)
    assert cells(result, ("float32",))["fp32/full_attention/float32"] != []


def test_config_names_mapped_onto_the_standard_ones_are_read() -> None:
    """DBRX's config says d_model, n_heads, max_seq_len: the rotary module reads them as hidden_size & co."""
    (driven,) = prepare(discover()["dbrx"])
    assert (driven.spec.head_dim, driven.spec.max_position_embeddings) == (2048 // 16, 2048)


def test_defaults_with_an_odd_rotary_dim_are_driven_at_a_usable_head_dim_and_say_so() -> None:
    (driven,) = prepare(discover()["glm4_moe"])
    assert (driven.spec.head_dim, driven.spec.rotary_dim) == (128, 64)
    assert any("head_dim=128" in n for n in driven.notes)
    assert any("odd 21 rotary dims" in message for _, message in driven.config_findings)


def test_a_vision_encoder_is_driven_with_patch_positions() -> None:
    (driven,) = prepare(discover()["glm5_next"])
    assert driven.spec.axes is not None and driven.spec.axes.scheme == "axial-shared"
    result = run_family(discover()["glm5_next"], dtypes=("float32",), max_position=512)
    assert cells(result, ("float32",)) == {"fp32/float32": []}


def test_a_vision_encoder_read_with_the_wrong_axes_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader's pair -> axis table has teeth: GLM-5's shared layout read as Inkling 2's reversed one."""
    from ropecheck import hf

    monkeypatch.setitem(hf.AXIAL_VISION_MODEL_TYPES, "glm5_next_vision", ("shared-reversed", "hidden_size"))
    result = run_family(discover()["glm5_next"], dtypes=("float32",), max_position=512)
    assert any(label.startswith("axes/") for label in cells(result, ("float32",))["fp32/float32"])


def test_an_mrope_text_model_is_driven_with_one_position_row_per_axis(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cosmos3-Edge's config declares mrope_section [24, 20, 20]; its code interleaves the axes (Qwen3-VL's way)."""
    family = discover()["cosmos3_edge"]
    (driven,) = prepare(family)
    assert driven.spec.axes is not None and driven.spec.axes.describe() == "mrope-interleaved t:24 h:20 w:20"
    assert cells(run_family(family, dtypes=("float32",), max_position=512), ("float32",)) == {"fp32/float32": []}

    modeling = __import__(family.module, fromlist=["_"])
    cls = getattr(modeling, driven.rotary_class)

    def sections(self, freq):  # type: ignore[no-untyped-def]  # consecutive sections (Qwen2-VL) where it interleaves
        chunks = freq.split(self.mrope_section, dim=-1)
        out = __import__("torch").cat([chunk[i] for i, chunk in enumerate(chunks)], dim=-1)
        return __import__("torch").cat((out, out), dim=-1)

    monkeypatch.setattr(cls, "recomposition_frequencies", sections)
    result = run_family(family, dtypes=("float32",), max_position=512)
    assert any(label.startswith("axes/") for label in cells(result, ("float32",))["fp32/float32"])


def test_the_reader_knows_which_mrope_text_models_interleave() -> None:
    from ropecheck import RopeSpec

    params = {"rope_theta": 1e4, "mrope_section": [24, 20, 20]}
    cfg = {"hidden_size": 2048, "num_attention_heads": 16, "head_dim": 128, "rope_parameters": params}
    read = {
        mt: RopeSpec.from_hf_config({**cfg, "model_type": mt}).axes.scheme  # type: ignore[union-attr]
        for mt in ("qwen2_vl_text", "cosmos3_edge_text")
    }
    assert read == {"qwen2_vl_text": "mrope", "cosmos3_edge_text": "mrope-interleaved"}
    said = {**cfg, "model_type": "cosmos3_edge_text", "rope_parameters": {**params, "mrope_interleaved": False}}
    assert RopeSpec.from_hf_config(said).axes.scheme == "mrope"  # type: ignore[union-attr]  # the config's word wins


def test_layer_types_are_driven_one_by_one() -> None:
    drivens = prepare(discover()["gemma3"])
    assert [d.layer_type for d in drivens] == ["full_attention", "sliding_attention"]
    assert {d.spec.base for d in drivens} == {1e6, 1e4}  # per layer type rope_theta, from the config


def test_a_correct_family_conforms() -> None:
    result = run_family(discover()["llama"], dtypes=("float32",), max_position=512)
    assert result.status == "driven"
    assert cells(result, ("float32",)) == {"fp32/float32": []}


def test_a_family_broken_on_purpose_fails_with_the_right_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    import transformers.models.llama.modeling_llama as llama

    def mirrored(x):  # type: ignore[no-untyped-def]
        half = x.shape[-1] // 2
        return __import__("torch").cat((x[..., half:], -x[..., :half]), dim=-1)

    monkeypatch.setattr(llama, "rotate_half", mirrored)
    result = run_family(discover()["llama"], dtypes=("float32",), max_position=512)
    assert cells(result, ("float32",)) == {"fp32/float32": ["direction"]}


def test_the_cast_module_finds_the_inv_freq_buffer_in_bfloat16() -> None:
    result = run_family(discover()["llama"], dtypes=("float32", "bfloat16"), max_position=512)
    got = cells(result, ("float32", "bfloat16"))
    assert got["fp32/bfloat16"] == [] and got["cast/float32"] == []
    assert got["cast/bfloat16"] == ["precision/inv_freq_low_precision"]


def test_compare_names_new_and_vanished_findings() -> None:
    expected = Expected("1.0", {"a": {"fp32/float32": ["direction"]}, "b": {"cast/bfloat16": ["precision"]}})
    actual = {"a": {"fp32/float32": []}, "b": {"cast/bfloat16": ["precision", "layout"]}, "c": {"fp32/float32": []}}
    mismatches = compare(actual, expected, dtypes=("float32", "bfloat16"))
    assert [(m.family, m.cell, m.new, m.vanished) for m in mismatches] == [
        ("a", "fp32/float32", (), ("direction",)),
        ("b", "cast/bfloat16", ("layout",), ()),
    ]
    # a dtype not surveyed is not compared
    assert compare({"b": {}}, expected, dtypes=("float32",)) == []


def _expected_file(tmp_path: Path, cells_by_family: dict[str, dict[str, list[str]]]) -> str:
    from ropecheck.survey import transformers_version

    path = tmp_path / "expected.json"
    path.write_text(json.dumps({"versions": {transformers_version(): cells_by_family}, "why": {}}))
    return str(path)


def test_a_vanished_expected_finding_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    exp = _expected_file(tmp_path, {"llama": {"fp32/float32": ["direction"]}})
    argv = ["survey", "--family", "llama", "--dtype", "float32", "--max-position", "512", "-j", "1"]
    assert main([*argv, "--expected", exp]) == ExitCode.FAIL
    assert "expected finding gone: direction" in capsys.readouterr().out


def test_a_new_finding_exits_1_and_a_listed_one_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["survey", "--family", "nanochat", "--dtype", "float32", "--max-position", "512", "-j", "1"]
    assert main([*argv, "--expected", _expected_file(tmp_path, {})]) == ExitCode.FAIL
    assert "new finding direction" in capsys.readouterr().out
    listed = _expected_file(tmp_path, {"nanochat": {"fp32/float32": ["direction"]}})
    out = tmp_path / "pages"
    # an earlier survey's pages (written the way the survey writes them), then a user's file beside them
    earlier = {"README.md": "# survey\n", "families/gone.md": "a family no longer surveyed"}
    replace_tree(out, earlier, keep=lambda rel: False)
    (out / "notes.txt").write_text("not the survey's")
    assert main([*argv, "--expected", listed, "--out", str(out), "--json", str(tmp_path / "s.json")]) == ExitCode.OK
    assert (out / "families" / "nanochat.md").exists() and (out / "README.md").exists()
    assert not (out / "families" / "gone.md").exists() and (out / "notes.txt").exists()
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["schema"] == "ropecheck.survey/1" and data["ok"] is True
    assert data["counts"]["driven"] == 1


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--family", "lama"], "did you mean llama"),
        (["--dtype", "float13"], "float13"),
        (["-j", "0"], "-j"),
        (["--max-position", "8"], "--max-position"),
        (["--expected", "/nonexistent/expected.json"], "--expected /nonexistent/expected.json: no such file"),
    ],
    ids=["unknown-family", "bad-dtype", "no-workers", "tiny-range", "no-expected-file"],
)
def test_usage_errors_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["survey", *argv]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_the_summary_names_the_counts() -> None:
    result = run_family(discover()["llama"], dtypes=("float32",), max_position=512)
    text = render_index(
        [result], dtypes=("float32",), mismatches=[], expected=Expected("x", {}), transformers="x", invocation="test"
    )
    assert "1 families found, 1 driven, 0 skipped" in text


def test_the_report_section_holds_for_a_reviewed_family(monkeypatch: pytest.MonkeyPatch) -> None:
    import ropecheck.report.survey as section_module

    found = discover()
    monkeypatch.setattr(section_module, "discover", lambda: {"nanochat": found["nanochat"], "clvp": found["clvp"]})
    section = section_module.collect_survey(lambda message: None)
    rows = {r.name: r for r in section.rows}
    assert rows["clvp"].verdict == "SKIP" and rows["clvp"].held
    assert rows["nanochat / float32"].verdict == "FAIL" and rows["nanochat / float32"].held  # the reviewed convention
    assert section.held
    assert {p.path for p in section.pages} >= {"survey/README.md", "survey/families/nanochat.md"}


def test_every_rotary_class_of_a_family_gets_its_own_row() -> None:
    """Qwen2-VL's text rotary is the family's row; its vision rotary has a row of its own, from its vision config."""
    from ropecheck.survey import run_units

    rows = run_units(discover()["qwen2_vl"], dtypes=("float32",), max_position=512)
    assert [r.name for r in rows] == ["qwen2_vl", "qwen2_vl/Qwen2VLVisionRotaryEmbedding"]
    vision = rows[1]
    assert vision.status == "driven" and any("vision_config" in n for n in vision.notes)
    assert cells(vision, ("float32",)) == {"fp32/float32": []}


def test_another_class_broken_fails_in_its_own_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """The vision class's row judges the vision code: frequencies 1% off fail there, the text row is untouched."""
    import transformers.models.qwen2_vl.modeling_qwen2_vl as m

    from ropecheck.survey import run_units

    honest = m.Qwen2VLVisionRotaryEmbedding.forward
    monkeypatch.setattr(m.Qwen2VLVisionRotaryEmbedding, "forward", lambda self, x, ids: honest(self, x, ids * 1.01))
    rows = run_units(discover()["qwen2_vl"], dtypes=("float32",), max_position=512)
    assert cells(rows[0], ("float32",)) == {"fp32/float32": []}
    assert cells(rows[1], ("float32",))["fp32/float32"], rows[1].verdicts[0].report.findings


def test_a_class_is_driven_from_the_config_its_init_names() -> None:
    """Qwen3-Omni's talker rotary names the thinker's text config, whose defaults give an odd head_dim (73): the row
    says so and drives it from the sub-config that builds it; a class whose config the defaults lack is a SKIP."""
    from ropecheck.survey import prepare_class

    drivens = prepare_class(discover()["qwen3_omni_moe"], "Qwen3OmniMoeTalkerRotaryEmbedding")
    assert any("whose default cannot build it" in n and "got 73" in n for n in drivens[0].notes)
    from transformers.models.gemma4.configuration_gemma4 import Gemma4Config

    declared = {k: v for k, v in Gemma4Config.sub_configs.items() if k != "vision_config"}
    with pytest.MonkeyPatch.context() as mp:  # a config that does not even declare the sub-config: nothing to build
        mp.setattr(Gemma4Config, "sub_configs", declared)
        with pytest.raises(NotDriven, match="which the family's default config does not hold"):
            prepare_class(discover()["gemma4"], "Gemma4VisionRotaryEmbedding")


def _gemma4_vision_labels() -> list[str]:
    """The float32 findings of Gemma 4's vision rotary built in float32, driven as the survey drives it."""
    from ropecheck.survey import prepare_class
    from ropecheck.verify.supervise import Loaded, verify_isolated

    (driven,) = prepare_class(discover()["gemma4"], "Gemma4VisionRotaryEmbedding")
    report = verify_isolated(
        lambda: Loaded(driven.make("fp32"), "gemma4 vision"),
        spec=driven.spec,
        dtypes=("float32",),
        device="cpu",
        max_position=256,
    )
    return list(report.dtype_verdict("float32")["labels"])


def test_a_sub_config_left_none_by_default_is_built_with_its_own_defaults() -> None:
    """Gemma 4's vision_config is None by default: its vision rotary is driven from Gemma4VisionConfig(), applied
    part by part by apply_multidimensional_rope (x then y, each half-split within itself), and conforms."""
    from ropecheck.survey import prepare_class

    (driven,) = prepare_class(discover()["gemma4"], "Gemma4VisionRotaryEmbedding")
    assert any("holds no Gemma4VisionConfig (its vision_config is None)" in n for n in driven.notes)
    assert driven.apply_function == "apply_multidimensional_rope"
    assert driven.spec.axes is not None and driven.spec.axes.names == ("x", "y")
    assert _gemma4_vision_labels() == []


def test_the_parts_apply_function_broken_or_read_unpermuted_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twins of the row above: the parts given each other's angles fail on the axes, and the target judged without
    gathering the parts' channels into the spec's order fails (the gather is what makes the reading right)."""
    import transformers.models.gemma4.modeling_gemma4 as m

    from ropecheck.survey import drive

    honest = m.apply_multidimensional_rope

    def swapped(x, cos, sin, position_ids, unsqueeze_dim=2):  # type: ignore[no-untyped-def]
        half = cos.shape[-1] // 2
        flip = lambda t: torch.cat([t[..., half:], t[..., :half]], dim=-1)
        return honest(x, flip(cos), flip(sin), position_ids, unsqueeze_dim=unsqueeze_dim)

    monkeypatch.setattr(m, "apply_multidimensional_rope", swapped)
    assert any(label.startswith("axes/") for label in _gemma4_vision_labels())
    monkeypatch.setattr(m, "apply_multidimensional_rope", honest)
    monkeypatch.setattr(drive, "part_channels", lambda head_dim, axes: list(range(head_dim)))
    assert _gemma4_vision_labels()


def test_the_parts_channel_map_is_a_bijection() -> None:
    from ropecheck.survey.channels import part_channels

    assert part_channels(8, 2) == [0, 1, 4, 5, 2, 3, 6, 7]
    for d, n in ((64, 2), (96, 3), (12, 3)):
        assert sorted(part_channels(d, n)) == list(range(d))


def test_a_vision_class_with_the_last_axis_first_is_read_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """Step 3.7's vision rotary recomposes (w, h) (``freq.flip(1)``): read as Inkling 2's reversed layout it conforms;
    read as Qwen2-VL's (h, w) it fails on the axes. Qwen3-VL's vision class (Qwen2.5-VL's code) conforms as shared."""
    from ropecheck import hf
    from ropecheck.survey import run_units

    step = [r for r in run_units(discover()["step3p7"], dtypes=("float32",), max_position=512) if "Vision" in r.name]
    assert step[0].status == "driven" and cells(step[0], ("float32",)) == {"fp32/float32": []}
    qwen = [r for r in run_units(discover()["qwen3_vl"], dtypes=("float32",), max_position=512) if "Vision" in r.name]
    assert qwen[0].status == "driven" and cells(qwen[0], ("float32",)) == {"fp32/float32": []}
    monkeypatch.setitem(hf.AXIAL_VISION_MODEL_TYPES, "step3p5_vision", ("shared", "hidden_size"))
    step = [r for r in run_units(discover()["step3p7"], dtypes=("float32",), max_position=512) if "Vision" in r.name]
    assert any(label.startswith("axes/") for label in cells(step[0], ("float32",))["fp32/float32"])


def test_a_default_config_its_code_cannot_run_is_a_finding_and_the_repaired_code_is_judged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HunYuan-VL's default text config has no mrope_section (its rotary takes len(None)): that is a config finding,
    and the row is driven with the repair its page names, with one position row per axis. Its recomposition puts
    the two halves of a pair on different axes, which the fp32 verdict finds; recomposed as Qwen2-VL does (each
    section on both halves), the same repaired row conforms -- the finding is the code's, not the driver's."""
    from ropecheck.survey import run_units

    family = discover()["hunyuan_vl"]
    (row,) = [r for r in run_units(family, dtypes=("float32",), max_position=512) if r.name == "hunyuan_vl"]
    assert row.status == "driven" and [label for label, _ in row.config_findings] == ["config/default_unrunnable"]
    assert "len()" in row.config_findings[0][1] and any("mrope_section = [16, 16, 16, 16]" in n for n in row.notes)
    found = cells(row, ("float32",))
    assert found["config/float32"] == ["config/default_unrunnable"]
    assert found["fp32/float32"] == ["axes/pair_axes_split"]  # cos from one axis, sin from another
    (verdict,) = [v for v in row.verdicts if v.mode == "fp32"]
    assert "axis0 position in the first half and the axis2 position in the second" in str(verdict.report.findings)

    modeling = __import__(family.module, fromlist=["_"])

    def sections(self, freq):  # type: ignore[no-untyped-def]  # each axis's section on both halves of the head
        import torch

        out = torch.cat([m[i] for i, m in enumerate(freq.split(self.mrope_section, dim=-1))], dim=-1)
        return torch.cat((out, out), dim=-1)

    monkeypatch.setattr(modeling.HunYuanVLRotaryEmbedding, "recomposition_frequencies", sections)
    (row,) = [r for r in run_units(family, dtypes=("float32",), max_position=512) if r.name == "hunyuan_vl"]
    assert cells(row, ("float32",))["fp32/float32"] == []


def test_inconsistent_defaults_are_a_finding_with_what_disagrees() -> None:
    """GLM-4 MoE's defaults give head_dim 42 and 21 rotary dims: driven at head_dim 128, the default is the finding."""
    (driven,) = prepare(discover()["glm4_moe"])
    ((label, message),) = driven.config_findings
    assert label == "config/inconsistent_default" and "head_dim 42" in message and "odd 21" in message


def test_a_repaired_default_is_read_with_its_code_s_m_rope_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cohere Compass's text config has no rope parameters (its rotary indexes them by layer type): repaired with
    the sections its code falls back to, the Qwen3-VL-interleaved M-RoPE conforms in fp32; read with consecutive
    sections (the reader not told that this model type interleaves) it fails on the axes."""
    from ropecheck import hf

    family = discover()["cohere_compass"]
    result = run_family(family, dtypes=("float32",), max_position=512)
    assert [label for label, _ in result.config_findings] == ["config/default_unrunnable"]
    assert cells(result, ("float32",))["fp32/full_attention/float32"] == []
    monkeypatch.setattr(hf, "MROPE_INTERLEAVED_MODEL_TYPES", hf.MROPE_INTERLEAVED_MODEL_TYPES - {"cohere_compass_text"})
    result = run_family(family, dtypes=("float32",), max_position=512)
    assert any(label.startswith("axes/") for label in cells(result, ("float32",))["fp32/full_attention/float32"])


def test_a_plainly_named_rotary_built_from_a_vision_config_is_driven_as_a_vision_encoder() -> None:
    """MLCD's ``MLCDRotaryEmbedding(config: MLCDVisionConfig)`` is Qwen2-VL's 2-D vision rotary: driven with patch
    positions (h, w), not as a 1-D text rotary; DeepSeek-OCR 2's vision-named rotary is 1-D (its encoder's tokens)."""
    from ropecheck.survey import prepare_class

    (driven,) = prepare(discover()["mlcd"])
    assert driven.spec.axes is not None and driven.spec.axes.scheme == "axial-shared"
    (one_d,) = prepare_class(discover()["deepseek_ocr2"], "DeepseekOcr2VisionRotaryEmbedding")
    assert one_d.spec.axes is None and any("driven from" in n for n in one_d.notes)
