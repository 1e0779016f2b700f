"""Our schedules against transformers' ROPE_INIT_FUNCTIONS, config built both ways; and our strictness.

Each case is one HF-style config dict. transformers computes in fp32, so agreement is
asserted to 1e-6 relative (fp32's unit roundoff is 6e-8; pow() adds a few ulps).

Every config ropecheck rejects is also run through transformers: the table says whether
transformers rejects it too (it raises, at load or when the rotary embedding is built) or
accepts it, and what it then computes -- the places where ropecheck is stricter on purpose.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fixtures import BAD_CONFIGS, CONFIGS
from ropecheck import RopeSpec
from ropecheck.errors import RopeCheckError

transformers = pytest.importorskip("transformers", reason="transformers is a test extra: pip install -e '.[test]'")
from transformers import LlamaConfig  # noqa: E402
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402

REL_TOL = 1e-6

PHI3_SHORT = [1.0 + 0.05 * (i / 31) ** 2 for i in range(32)]
PHI3_LONG = [1.0 + 63.0 * (i / 31) ** 3 for i in range(32)]

CASES = {
    "default": ({"rope_type": "default", "rope_theta": 10000.0}, 8192, [None]),
    "default-base-1e6": ({"rope_type": "default", "rope_theta": 1e6}, 32768, [None]),
    "linear": ({"rope_type": "linear", "factor": 4.0, "rope_theta": 10000.0}, 4096, [None]),
    "dynamic": ({"rope_type": "dynamic", "factor": 2.0, "rope_theta": 10000.0}, 2048, [None, 1000, 2048, 3000, 8192]),
    "yarn": (
        {"rope_type": "yarn", "factor": 4.0, "rope_theta": 10000.0, "original_max_position_embeddings": 2048},
        8192,
        [None],
    ),
    "yarn-beta": (
        {
            "rope_type": "yarn",
            "factor": 8.0,
            "rope_theta": 1e6,
            "original_max_position_embeddings": 4096,
            "beta_fast": 16,
            "beta_slow": 2,
        },
        32768,
        [None],
    ),
    "yarn-mscale": (
        {
            "rope_type": "yarn",
            "factor": 40.0,
            "rope_theta": 10000.0,
            "original_max_position_embeddings": 4096,
            "mscale": 1.0,
            "mscale_all_dim": 0.707,
        },
        163840,
        [None],
    ),
    "yarn-no-truncate": (
        {
            "rope_type": "yarn",
            "factor": 4.0,
            "rope_theta": 10000.0,
            "original_max_position_embeddings": 2048,
            "truncate": False,
        },
        8192,
        [None],
    ),
    "llama3": (
        {
            "rope_type": "llama3",
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
            "rope_theta": 500000.0,
        },
        131072,
        [None],
    ),
    "longrope": (
        {
            "rope_type": "longrope",
            "short_factor": PHI3_SHORT,
            "long_factor": PHI3_LONG,
            "original_max_position_embeddings": 4096,
            "rope_theta": 10000.0,
        },
        131072,
        [None, 4096, 4097, 100000],
    ),
    # Gemma 4's global layers: a quarter of the pairs turn, at frequencies over the whole head; the rest turn by 0
    "proportional": ({"rope_type": "proportional", "rope_theta": 1e6, "partial_rotary_factor": 0.25}, 131072, [None]),
    "proportional-factor": (
        {"rope_type": "proportional", "rope_theta": 1e6, "partial_rotary_factor": 0.5, "factor": 8.0},
        131072,
        [None],
    ),
}


def _hf_config(params: dict, max_pos: int) -> LlamaConfig:
    return LlamaConfig(
        hidden_size=64 * 8, num_attention_heads=8, max_position_embeddings=max_pos, rope_parameters=dict(params)
    )


def _hf_inv_freq(cfg: LlamaConfig, seq_len: int | None) -> tuple[np.ndarray, float]:
    rope_type = cfg.rope_parameters["rope_type"]
    if rope_type == "default":
        from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

        inv, att = LlamaRotaryEmbedding.compute_default_rope_parameters(cfg)
    else:
        inv, att = ROPE_INIT_FUNCTIONS[rope_type](cfg, "cpu", seq_len=seq_len)
    return inv.double().numpy(), float(att)


def test_every_rope_type_is_covered() -> None:
    covered = {params["rope_type"] for params, _, _ in CASES.values()}
    assert set(ROPE_INIT_FUNCTIONS) <= covered


@pytest.mark.parametrize("name", list(CASES))
def test_inv_freq_and_attention_factor_match_transformers(name: str) -> None:
    params, max_pos, seq_lens = CASES[name]
    cfg = _hf_config(params, max_pos)
    ours = RopeSpec.from_hf_config(cfg.to_dict())
    for seq_len in seq_lens:
        theirs, att = _hf_inv_freq(cfg, seq_len)
        mine = ours.inv_freq(seq_len)
        assert np.array_equal(mine == 0, theirs == 0), (mine, theirs)  # the same pairs turn (proportional)
        rel = np.abs(mine - theirs) / np.where(theirs == 0, 1.0, np.abs(theirs))
        assert rel.max() <= REL_TOL, f"{name} seq_len={seq_len}: max rel diff {rel.max():.2e} at index {rel.argmax()}"
        assert abs(ours.attention_factor - att) <= REL_TOL * abs(att), (ours.attention_factor, att)


def test_the_comparison_catches_a_wrong_schedule() -> None:
    """The parity check has teeth: a YaRN spec read as plain linear scaling fails it."""
    params, max_pos, _ = CASES["yarn"]
    cfg = _hf_config(params, max_pos)
    theirs, _ = _hf_inv_freq(cfg, None)
    wrong = RopeSpec.from_hf_config(
        {**cfg.to_dict(), "rope_parameters": {"rope_type": "linear", "factor": 4.0, "rope_theta": 10000.0}}
    )
    assert (np.abs(wrong.inv_freq() - theirs) / theirs).max() > REL_TOL


# ----------------------------------------------------------------- configs we reject, and what transformers does

# (fixture in tests/fixtures/bad_configs, does transformers reject it?, what transformers does with it).
# ropecheck rejects every one (tests/core/test_spec.py); where transformers accepts, we are stricter on purpose.
REJECTED = [
    ("yarn_missing_factor.json", True, "KeyError: factor is a required key for yarn"),
    ("yarn_null_factor.json", False, "warns, then uses max_position_embeddings / original_max_position_embeddings"),
    ("yarn_beta_fast_zero.json", False, "reads beta_fast 0 as the default 32 (`or 32`)"),
    ("yarn_truncate_string.json", False, "reads the string 'false' as true"),
    ("yarn_zero_attention_factor.json", False, "multiplies cos and sin by 0"),
    ("yarn_negative_attention_factor.json", False, "multiplies cos and sin by -1"),
    ("yarn_mscale_divisor_zero.json", True, "ZeroDivisionError when the embedding is built"),
    ("yarn_mscale_negative.json", False, "a negative attention factor"),
    ("yarn_factor_string.json", True, "TypeError when the embedding is built"),
    ("bool_factor.json", False, "reads true as the factor 1"),
    ("bool_hidden_size.json", True, "its config class refuses a bool"),
    ("longrope_null_factors.json", True, "its RoPE validation fails on null factor lists"),
    ("phi3_zero_original_length.json", True, "ZeroDivisionError when the embedding is built"),
    ("nested_rope_parameters_bad.json", True, "its config validation fails"),
    ("base_subnormal.json", False, "infinite inverse frequencies"),
    ("rope_theta_401_digits.json", True, "OverflowError when the embedding is built"),
    ("rope_theta_float_overflow.json", False, "rope_theta inf: inverse frequencies 0 or NaN"),
    ("max_position_float.json", True, "its config class refuses a float"),
    ("max_position_absurd.json", False, "accepts a context of 10^30"),
    ("not_utf8.json", True, "UnicodeDecodeError"),
    ("nested_too_deep.json", True, "RecursionError"),
    ("int_5000_digits.json", True, "ValueError: Python's int-to-text limit"),
    ("nan_rope_theta.json", False, "Python's json reads NaN: inverse frequencies NaN"),
    ("infinity_factor.json", False, "Python's json reads Infinity: inverse frequencies 0"),
]


def _transformers_reads(path: Path) -> tuple[np.ndarray, float]:
    """What transformers makes of a config file: (inv_freq, attention factor); raises where it rejects it."""
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    emb = LlamaRotaryEmbedding(LlamaConfig.from_json_file(str(path)))
    return emb.inv_freq.double().numpy(), float(emb.attention_scaling)


@pytest.mark.parametrize("name, rejects, what", REJECTED, ids=[r[0] for r in REJECTED])
def test_what_transformers_does_with_configs_we_reject(name: str, rejects: bool, what: str) -> None:
    with pytest.raises(RopeCheckError):
        RopeSpec.from_hf_config(BAD_CONFIGS / name)
    if rejects:
        with pytest.raises(Exception):  # noqa: B017 - any failure is a rejection: KeyError, ZeroDivisionError ...
            _transformers_reads(BAD_CONFIGS / name)
    else:
        _transformers_reads(BAD_CONFIGS / name)  # accepted: we are stricter here, for the reason in `what`


def test_every_rejected_config_is_compared() -> None:
    new = {r[0] for r in REJECTED}
    assert {p.name for p in BAD_CONFIGS.glob("yarn_*.json")} <= new


@pytest.mark.parametrize(
    "name, change",
    [
        ("yarn_beta_fast_zero.json", {"beta_fast": 32}),
        ("yarn_truncate_string.json", {"truncate": True}),
        ("yarn_null_factor.json", {"factor": 32768 / 4096}),
    ],
    ids=["beta-fast-0-is-32", "truncate-false-string-is-true", "null-factor-is-the-ratio"],
)
def test_transformers_silent_readings(name: str, change: dict, tmp_path: Path) -> None:
    """What transformers silently reads these as (and why we refuse them): the same as the value shown."""
    data = json.loads((BAD_CONFIGS / name).read_text())
    data["rope_scaling"].update(change)
    fixed = tmp_path / "config.json"
    fixed.write_text(json.dumps(data))
    theirs, att = _transformers_reads(BAD_CONFIGS / name)
    as_read, att_read = _transformers_reads(fixed)
    np.testing.assert_array_equal(theirs, as_read)
    assert att == att_read
    RopeSpec.from_hf_config(fixed)  # the explicit spelling is accepted by both


def test_text_config_is_what_transformers_reads() -> None:
    """A multimodal config: transformers' text model reads text_config, and so does ropecheck."""
    from transformers import LlavaConfig

    path = CONFIGS / "llava-text-config.json"
    text = LlavaConfig.from_json_file(str(path)).get_text_config()
    ours = RopeSpec.from_hf_config(path)
    assert ours.head_dim == text.hidden_size // text.num_attention_heads
    assert ours.base == text.rope_parameters["rope_theta"]
    assert ours.max_position_embeddings == text.max_position_embeddings
