"""RopeSpec: schedules, validation with messages that name the field, HF config reading."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from fixtures import BAD_CONFIGS, CONFIGS
from ropecheck import ConfigError, Default, DynamicNTK, Linear, Llama3, LongRoPE, RopeSpec, SpecError, StaticNTK, YaRN


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
]


@pytest.mark.parametrize("kwargs, field, message", BAD_SPECS, ids=[f"{f}:{m[:18]}" for _, f, m in BAD_SPECS])
def test_bad_specs(kwargs: dict, field: str, message: str) -> None:
    with pytest.raises(SpecError, match=message) as info:
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
]


@pytest.mark.parametrize("name, exc, field, message", BAD_CONFIG_CASES, ids=[c[0] for c in BAD_CONFIG_CASES])
def test_bad_config_files(name: str, exc: type, field: str | None, message: str) -> None:
    with pytest.raises(exc, match=message) as info:
        RopeSpec.from_hf_config(BAD_CONFIGS / name)
    if field is not None:
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
