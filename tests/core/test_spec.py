"""RopeSpec: schedules, validation with messages that name the field, HF config reading."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from fixtures import BAD_CONFIGS, CONFIGS
from ropecheck import ConfigError, Default, DynamicNTK, Linear, Llama3, LongRoPE, RopeSpec, SpecError, StaticNTK, YaRN
from ropecheck.hf import MAX_CONFIG_BYTES, read_rope_config


def test_default_frequencies_follow_base_power() -> None:
    spec = RopeSpec(head_dim=128)
    i = np.arange(64)
    np.testing.assert_allclose(spec.inv_freq(), 10000.0 ** (-2 * i / 128), rtol=1e-15)
    np.testing.assert_allclose(spec.wavelengths(), 2 * np.pi / spec.inv_freq())


def test_static_ntk_is_default_with_scaled_base() -> None:
    d, s = 64, 4.0
    ntk = RopeSpec(head_dim=d, scaling=StaticNTK(s))
    plain = RopeSpec(head_dim=d, base=10000.0 * s ** (d / (d - 2)))
    np.testing.assert_allclose(ntk.inv_freq(), plain.inv_freq(), rtol=1e-14)
    assert ntk.inv_freq()[0] == 1.0


def test_linear_divides_every_frequency() -> None:
    np.testing.assert_allclose(
        RopeSpec(head_dim=32, scaling=Linear(8)).inv_freq(), RopeSpec(head_dim=32).inv_freq() / 8, rtol=1e-15
    )


def test_dynamic_ntk_changes_only_past_the_original_length() -> None:
    spec = RopeSpec(head_dim=64, scaling=DynamicNTK(2.0, 2048))
    np.testing.assert_array_equal(spec.inv_freq(1000), spec.inv_freq(2048))
    np.testing.assert_allclose(spec.inv_freq(2048), RopeSpec(head_dim=64).inv_freq(), rtol=1e-15)
    assert (spec.inv_freq(8192)[1:] < spec.inv_freq(2048)[1:]).all()
    assert spec.depends_on_length


def test_yarn_keeps_high_and_scales_low_frequencies() -> None:
    spec = RopeSpec(head_dim=128, scaling=YaRN(factor=4.0, original_max_position_embeddings=4096))
    default = RopeSpec(head_dim=128).inv_freq()
    ratio = spec.inv_freq() / default
    low, high = spec.scaling.correction_range(spec)
    assert np.allclose(ratio[: int(low)], 1.0) and np.allclose(ratio[int(high) + 1 :], 0.25)
    assert math.isclose(spec.attention_factor, 0.1 * math.log(4.0) + 1.0)


def test_yarn_mscale_form() -> None:
    spec = RopeSpec(head_dim=64, scaling=YaRN(40.0, 4096, mscale=1.0, mscale_all_dim=0.707))
    m = lambda s, k: 0.1 * k * math.log(s) + 1
    assert math.isclose(spec.attention_factor, m(40, 1.0) / m(40, 0.707))


def test_llama3_bands() -> None:
    spec = RopeSpec(head_dim=128, base=500000.0, scaling=Llama3(8.0, 1.0, 4.0, 8192))
    default = RopeSpec(head_dim=128, base=500000.0).inv_freq()
    wl = 2 * np.pi / default
    ratio = spec.inv_freq() / default
    assert np.allclose(ratio[wl < 8192 / 4], 1.0)
    assert np.allclose(ratio[wl > 8192], 1 / 8)
    mid = (wl >= 2048) & (wl <= 8192)
    assert mid.any() and ((ratio[mid] > 1 / 8) & (ratio[mid] < 1)).all()


def test_longrope_switches_factor_sets_at_the_original_length() -> None:
    short, long_ = tuple([1.0] * 8), tuple(float(i + 1) for i in range(8))
    spec = RopeSpec(head_dim=16, scaling=LongRoPE(short, long_, 4096), max_position_embeddings=131072)
    default = RopeSpec(head_dim=16).inv_freq()
    np.testing.assert_allclose(spec.inv_freq(4096), default)
    np.testing.assert_allclose(spec.inv_freq(4097), default / np.arange(1, 9))
    assert math.isclose(spec.attention_factor, math.sqrt(1 + math.log(32) / math.log(4096)))


def test_specs_are_hashable_and_equal_by_value() -> None:
    a = RopeSpec(head_dim=64, scaling=Llama3(8.0, 1.0, 4.0, 8192))
    b = RopeSpec(head_dim=64, scaling=Llama3(8.0, 1.0, 4.0, 8192))
    assert a == b and hash(a) == hash(b)
    assert a.rotary_dim == 64 and a.to_dict()["rope_type"] == "llama3"


def test_pairs_per_layout() -> None:
    assert RopeSpec(head_dim=8, layout="interleaved").pairs().tolist() == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert RopeSpec(head_dim=8, layout="half").pairs().tolist() == [[0, 4], [1, 5], [2, 6], [3, 7]]
    assert RopeSpec(head_dim=8, rotary_dim=4, layout="half").pairs().tolist() == [[0, 2], [1, 3]]


BAD_SPECS = [
    (dict(head_dim=7), "head_dim", "must be even"),
    (dict(head_dim=0), "head_dim", "must be >= 1"),
    (dict(head_dim=8.0), "head_dim", "must be an integer"),
    (dict(head_dim=8, rotary_dim=16), "rotary_dim", "must be <= head_dim"),
    (dict(head_dim=8, rotary_dim=3), "rotary_dim", "must be even"),
    (dict(head_dim=8, base=-10000.0), "base", "must be positive"),
    (dict(head_dim=8, base=float("inf")), "base", "must be a finite number"),
    (dict(head_dim=8, base=1.0), "base", "must not be 1"),
    (dict(head_dim=8, layout="zigzag"), "layout", "must be 'interleaved' or 'half'"),
    (dict(head_dim=8, scaling="yarn"), "scaling", "must be one of"),
    (dict(head_dim=8, scaling=Linear(0.0)), "rope_scaling.factor", "must be positive"),
    (
        dict(head_dim=8, scaling=YaRN(4.0, 4096, beta_fast=1, beta_slow=32)),
        "rope_scaling.beta_fast",
        "greater than beta_slow",
    ),
    (
        dict(head_dim=8, scaling=Llama3(8.0, 4.0, 1.0, 8192)),
        "rope_scaling.high_freq_factor",
        "greater than low_freq_factor",
    ),
    (
        dict(head_dim=8, scaling=LongRoPE((1.0,) * 3, (1.0,) * 4, 4096), max_position_embeddings=8192),
        "rope_scaling.short_factor",
        "rotary_dim/2 = 4",
    ),
    (dict(head_dim=8, scaling=LongRoPE((1.0,) * 4, (1.0,) * 4, 4096)), "max_position_embeddings", "longrope needs it"),
    (dict(head_dim=8, scaling=DynamicNTK(2.0, 0)), "max_position_embeddings", "must be >= 1"),
    # sizes, types and derived values: each of these raised OverflowError/TypeError or was accepted
    (dict(head_dim=100_000_000), "head_dim", "must be <= 65536"),
    (dict(head_dim=8, rotary_dim=10**400), "rotary_dim", "must be <= 65536, got a 401-digit integer"),
    (dict(head_dim=8, base=10**400), "base", "must be a finite number (at most about 1.8e308), got a 401-digit"),
    (dict(head_dim=128, base=1e-320), "base", "theta_62 = base^(-124/128) = 1.0e+310, which is infinite in float64"),
    (dict(head_dim=8, base=float("nan")), "base", "must be a finite number"),
    (dict(head_dim=8, base="10000"), "base", "must be a finite number"),
    (dict(head_dim=8, max_position_embeddings=10**30), "max_position_embeddings", "must be <= 4294967296"),
    (dict(head_dim=8, max_position_embeddings=1e30), "max_position_embeddings", "must be an integer"),
    (dict(head_dim=8, scaling=Linear(1e-320)), "rope_scaling", "not a finite positive float64"),
    (dict(head_dim=8, scaling=Linear(True)), "rope_scaling.factor", "must be a finite number, got True"),
    (dict(head_dim=8, scaling=YaRN(4.0, 4096, beta_fast=0)), "rope_scaling.beta_fast", "must be positive"),
    (dict(head_dim=8, scaling=YaRN(4.0, 4096, truncate="false")), "rope_scaling.truncate", "must be true or false"),
    (dict(head_dim=8, scaling=YaRN(4.0, 4096, attention=0.0)), "rope_scaling.attention_factor", "must be positive"),
    (dict(head_dim=8, scaling=YaRN(4.0, 4096, attention=-1.0)), "rope_scaling.attention_factor", "must be positive"),
    (
        dict(head_dim=8, scaling=YaRN(4.0, 4096, mscale=1.0, mscale_all_dim=-7.213475204444817)),
        "rope_scaling.mscale_all_dim",
        "divisor 0.1*mscale_all_dim*ln(factor) + 1 zero",
    ),
    (
        dict(head_dim=8, scaling=YaRN(40.0, 4096, mscale=-5.0, mscale_all_dim=1.0)),
        "rope_scaling.mscale",
        "not positive",
    ),
    (dict(head_dim=8, scaling=YaRN(4.0, 4096, mscale=[1.0])), "rope_scaling.mscale", "must be a number"),
    (dict(head_dim=8, scaling=YaRN(4.0, 10**30)), "rope_scaling.original_max_position_embeddings", "<= 4294967296"),
    (
        dict(head_dim=8, scaling=LongRoPE((1.0,) * 4, (1.0,) * 4, 1, factor=4.0)),
        "rope_scaling.attention_factor",
        "cannot be computed",
    ),
]


@pytest.mark.parametrize(
    "build, field, message",
    [
        (lambda: LongRoPE(None, None, 4096), "rope_scaling.short_factor", "must be a list of numbers, got None"),  # type: ignore[arg-type]
        (lambda: LongRoPE((1.0,) * 4, "1111", 4096), "rope_scaling.long_factor", "must be a list of numbers"),  # type: ignore[arg-type]
    ],
    ids=["longrope-none", "longrope-string"],
)
def test_bad_schedules(build: object, field: str, message: str) -> None:
    """A schedule built from the wrong types is a SpecError, not a TypeError from inside tuple()."""
    with pytest.raises(SpecError, match=message) as info:
        build()  # type: ignore[operator]
    assert info.value.field == field


@pytest.mark.parametrize("kwargs, field, message", BAD_SPECS, ids=[f"{f}:{m[:18]}" for _, f, m in BAD_SPECS])
def test_bad_specs(kwargs: dict, field: str, message: str) -> None:
    with pytest.raises(SpecError, match=re.escape(message)) as info:
        RopeSpec(**kwargs)
    assert info.value.field == field
    assert str(info.value).startswith(field + ":")


BAD_CONFIG_CASES = [
    ("missing.json", ConfigError, None, "config file not found"),
    ("truncated.json", ConfigError, None, "is not valid JSON"),
    ("not_an_object.json", ConfigError, None, "must hold a JSON object"),
    ("llama3_missing_low_freq.json", SpecError, "rope_scaling.low_freq_factor", "required for rope_type 'llama3'"),
    ("unknown_type.json", SpecError, "rope_scaling.rope_type", "unknown rope type 'quantum'"),
    ("negative_base.json", SpecError, "rope_theta", "must be positive"),
    ("odd_head_dim.json", SpecError, "head_dim", "must be even"),
    ("prf_too_big.json", SpecError, "partial_rotary_factor", r"must be in \(0, 1\]"),
    ("no_head_dim.json", SpecError, "head_dim", "missing"),
    ("linear_missing_factor.json", SpecError, "rope_scaling.factor", "required for rope_type 'linear'"),
    # the strict rules: each of these was accepted (silently read as something else) or raised a traceback
    ("yarn_missing_factor.json", SpecError, "rope_scaling.factor", "required for rope_type 'yarn' but missing"),
    ("yarn_null_factor.json", SpecError, "rope_scaling.factor", "required for rope_type 'yarn' but null"),
    ("yarn_beta_fast_zero.json", SpecError, "rope_scaling.beta_fast", "must be positive, got 0"),
    ("yarn_truncate_string.json", SpecError, "rope_scaling.truncate", "must be true or false, got 'false'"),
    ("yarn_zero_attention_factor.json", SpecError, "rope_scaling.attention_factor", "must be positive"),
    ("yarn_negative_attention_factor.json", SpecError, "rope_scaling.attention_factor", "must be positive"),
    ("yarn_mscale_divisor_zero.json", SpecError, "rope_scaling.mscale_all_dim", "divisor"),
    ("yarn_mscale_negative.json", SpecError, "rope_scaling.mscale", "the attention factor must be positive"),
    ("yarn_factor_string.json", SpecError, "rope_scaling.factor", "must be a number, got '4'"),
    ("bool_factor.json", SpecError, "rope_scaling.factor", "must be a number, got True"),
    ("bool_hidden_size.json", SpecError, "hidden_size", "must be an integer, got True"),
    (
        "longrope_null_factors.json",
        SpecError,
        "rope_scaling.short_factor",
        "required for rope_type 'longrope' but null",
    ),
    ("phi3_zero_original_length.json", SpecError, "original_max_position_embeddings", "must be >= 1, got 0"),
    (
        "nested_rope_parameters_bad.json",
        SpecError,
        "rope_parameters.full_attention.factor",
        "required for rope_type 'yarn' but missing",
    ),
    ("base_subnormal.json", SpecError, "rope_theta", "infinite in float64"),
    ("rope_theta_401_digits.json", SpecError, "rope_theta", "must be a finite number .* got a 401-digit integer"),
    ("rope_theta_float_overflow.json", SpecError, "rope_theta", "must be a finite number .* got inf"),
    ("max_position_float.json", SpecError, "max_position_embeddings", "must be an integer, got 1e\\+30"),
    ("max_position_absurd.json", SpecError, "max_position_embeddings", "must be <= 4294967296"),
    ("head_dim_absurd.json", SpecError, "head_dim", "must be <= 65536, got 100000000"),
    ("text_config_not_an_object.json", SpecError, "text_config", "must be an object"),
    ("not_utf8.json", ConfigError, None, "is not UTF-8 text \\(byte 0xe9 at offset 70\\)"),
    ("nested_too_deep.json", ConfigError, None, "nests JSON arrays or objects too deeply"),
    ("int_5000_digits.json", ConfigError, None, "holds a number too long to read"),
    ("nan_rope_theta.json", ConfigError, None, "NaN at line 2 column 16 is not valid JSON"),
    ("infinity_factor.json", ConfigError, None, "Infinity at line 1 column 100 is not valid JSON"),
]


@pytest.mark.parametrize("name, exc, field, message", BAD_CONFIG_CASES, ids=[c[0] for c in BAD_CONFIG_CASES])
def test_bad_config_files(name: str, exc: type, field: str | None, message: str) -> None:
    with pytest.raises(exc, match=message) as info:
        RopeSpec.from_hf_config(BAD_CONFIGS / name)
    if field is not None:
        assert info.value.field == field
        assert str(info.value).startswith(field + ": ")
    assert "\n" not in str(info.value)


def test_every_bad_config_fixture_is_tested() -> None:
    tested = {c[0] for c in BAD_CONFIG_CASES}
    assert {p.name for p in BAD_CONFIGS.glob("*.json")} <= tested


def test_a_config_nested_200k_deep(tmp_path: Path) -> None:
    """The size that raised RecursionError out of json; the fixture above is a 5000-deep one."""
    path = tmp_path / "config.json"
    path.write_text('{"a": ' + "[" * 200_000 + "]" * 200_000 + "}")
    with pytest.raises(ConfigError, match="too deeply"):
        RopeSpec.from_hf_config(path)


def test_a_config_file_too_large(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"head_dim": 64, "pad": "' + "x" * (MAX_CONFIG_BYTES + 1) + '"}')
    with pytest.raises(ConfigError, match="larger than 16 MiB"):
        RopeSpec.from_hf_config(path)


@pytest.mark.parametrize(
    "config, field, message",
    [
        ({"head_dim": 64, "rope_theta": float("nan")}, "rope_theta", "must be a finite number"),
        ({"head_dim": 64, "partial_rotary_factor": float("nan")}, "partial_rotary_factor", "must be a finite number"),
        ({"head_dim": 64, "max_position_embeddings": True}, "max_position_embeddings", "must be an integer"),
        ({"hidden_size": 10**5000, "num_attention_heads": 1}, "head_dim", "must be <= 65536"),
        ({"hidden_size": 64, "num_attention_heads": -(10**5000)}, "num_attention_heads", "positive integers"),
        ({"head_dim": 64, "rope_scaling": [1]}, "rope_scaling", "must be an object, got list"),
        ({"head_dim": 64, "rope_scaling": {"type": 3}}, "rope_scaling.rope_type", "must be a string"),
    ],
    ids=["nan-theta", "nan-prf", "bool-max-pos", "huge-hidden", "huge-negative-heads", "list-scaling", "int-type"],
)
def test_bad_config_dicts(config: dict, field: str, message: str) -> None:
    """Dicts reach values JSON files cannot (NaN, ints past the int-to-text limit): still one SpecError."""
    with pytest.raises(SpecError, match=message) as info:
        RopeSpec.from_hf_config(config)
    assert info.value.field == field


GOOD_CONFIGS = {
    "llama-3.1-8b.json": dict(head_dim=128, rotary_dim=128, base=500000.0, layout="half", rope_type="llama3"),
    "qwen2-7b.json": dict(head_dim=128, rotary_dim=128, base=1e6, layout="half", rope_type="default"),
    "gpt-neox-pythia-1b.json": dict(head_dim=256, rotary_dim=64, base=10000.0, layout="half", rope_type="default"),
    "qwen2.5-7b-yarn.json": dict(head_dim=128, rotary_dim=128, base=1e6, layout="half", rope_type="yarn"),
    "phi-3-mini-128k-longrope.json": dict(
        head_dim=96, rotary_dim=96, base=10000.0, layout="half", rope_type="longrope"
    ),
    "gpt-j-6b.json": dict(head_dim=256, rotary_dim=64, base=10000.0, layout="interleaved", rope_type="default"),
    "tinyllama-dynamic.json": dict(head_dim=64, rotary_dim=64, base=10000.0, layout="half", rope_type="dynamic"),
    # the text model, not the vision tower's fields left at the top level
    "llava-text-config.json": dict(head_dim=128, rotary_dim=128, base=500000.0, layout="half", rope_type="default"),
}


@pytest.mark.parametrize("name", list(GOOD_CONFIGS))
def test_real_style_configs(name: str) -> None:
    spec = RopeSpec.from_hf_config(CONFIGS / name)
    got = dict(
        head_dim=spec.head_dim, rotary_dim=spec.rotary_dim, base=spec.base, layout=spec.layout, rope_type=spec.rope_type
    )
    assert got == GOOD_CONFIGS[name]


def test_phi3_top_level_original_length_and_attention_factor() -> None:
    spec = RopeSpec.from_hf_config(CONFIGS / "phi-3-mini-128k-longrope.json")
    assert spec.scaling.original_max_position_embeddings == 4096
    assert math.isclose(spec.attention_factor, math.sqrt(1 + math.log(131072 / 4096) / math.log(4096)))


def test_config_sources_agree() -> None:
    path = CONFIGS / "llama-3.1-8b.json"
    data = json.loads(path.read_text())
    assert (
        RopeSpec.from_hf_config(path)
        == RopeSpec.from_hf_config(data)
        == RopeSpec.from_hf_config(str(path.parent / path.name))
    )
    v5 = {k: v for k, v in data.items() if k not in ("rope_scaling", "rope_theta")}
    v5["rope_parameters"] = {**data["rope_scaling"], "rope_theta": data["rope_theta"]}
    assert RopeSpec.from_hf_config(v5) == RopeSpec.from_hf_config(data)


def test_layout_override() -> None:
    spec = RopeSpec.from_hf_config(CONFIGS / "qwen2-7b.json", layout="interleaved")
    assert spec.layout == "interleaved"
    assert Default() == RopeSpec(head_dim=2).scaling


def test_text_config_is_read_and_named() -> None:
    path = CONFIGS / "llava-text-config.json"
    assert read_rope_config(path)[1] == "text_config"
    spec = RopeSpec.from_hf_config(path)
    assert (spec.head_dim, spec.base, spec.max_position_embeddings) == (128, 500000.0, 8192)
    top = RopeSpec.from_hf_config(path, config_key=".")  # the top level on request
    assert (top.head_dim, top.base) == (64, 10000.0)
    assert RopeSpec.from_hf_config(path, config_key="text_config") == spec
    assert read_rope_config(CONFIGS / "qwen2-7b.json")[1] == "top level"


def test_config_key_errors() -> None:
    path = CONFIGS / "llava-text-config.json"
    with pytest.raises(ConfigError, match="'audio' is not a key of the top level; sub-configs there: text_config"):
        RopeSpec.from_hf_config(path, config_key="audio")
    with pytest.raises(SpecError, match="must be an object") as info:
        RopeSpec.from_hf_config(path, config_key="model_type")
    assert info.value.field == "model_type"


def test_errors_in_a_sub_config_name_its_key() -> None:
    config = {"model_type": "llava", "text_config": {"head_dim": 64, "rope_scaling": {"type": "yarn", "factor": 4.0,
              "original_max_position_embeddings": 4096, "beta_fast": 0}}}  # fmt: skip
    with pytest.raises(SpecError) as info:
        RopeSpec.from_hf_config(config)
    assert info.value.field == "text_config.rope_scaling.beta_fast"
    config["text_config"]["rope_theta"] = -1  # type: ignore[index]
    with pytest.raises(SpecError) as info:
        RopeSpec.from_hf_config(config)
    assert info.value.field == "text_config.rope_theta"


def test_explicit_values_are_kept_not_replaced_by_defaults() -> None:
    """Defaults only for missing or null keys: beta_fast 16 stays 16, truncate false stays false."""
    base = {"head_dim": 64, "max_position_embeddings": 32768}
    yarn = {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 4096}
    spec = RopeSpec.from_hf_config({**base, "rope_scaling": {**yarn, "beta_fast": 16, "truncate": False}})
    assert (spec.scaling.beta_fast, spec.scaling.beta_slow, spec.scaling.truncate) == (16, 1.0, False)
    spec = RopeSpec.from_hf_config({**base, "rope_scaling": {**yarn, "beta_fast": None, "truncate": None}})
    assert (spec.scaling.beta_fast, spec.scaling.truncate) == (32.0, True)


def test_rope_parameters_nested_by_layer_type() -> None:
    """Gemma-style configs: one rope_parameters entry per layer type, each with its own theta and schedule."""
    config = {
        "head_dim": 64,
        "max_position_embeddings": 32768,
        "rope_parameters": {
            "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6},
            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
        },
    }
    full = RopeSpec.from_hf_config(config)
    local = RopeSpec.from_hf_config(config, layer_type="sliding_attention")
    assert (full.rope_type, full.base, full.scaling.factor) == ("linear", 1e6, 8.0)
    assert (local.rope_type, local.base) == ("default", 10000.0)
    config["rope_parameters"]["full_attention"]["factor"] = 0  # type: ignore[index]
    with pytest.raises(SpecError) as info:
        RopeSpec.from_hf_config(config)
    assert info.value.field == "rope_parameters.full_attention.factor"
