"""Our schedules against transformers' ROPE_INIT_FUNCTIONS, config built both ways.

Each case is one HF-style config dict. transformers computes in fp32, so agreement is
asserted to 1e-6 relative (fp32's unit roundoff is 6e-8; pow() adds a few ulps).
"""

from __future__ import annotations

import numpy as np
import pytest

from ropecheck import RopeSpec

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
    offered = set(ROPE_INIT_FUNCTIONS) - {"proportional"}  # a Gemma-specific layout of the default schedule
    assert offered <= covered


@pytest.mark.parametrize("name", list(CASES))
def test_inv_freq_and_attention_factor_match_transformers(name: str) -> None:
    params, max_pos, seq_lens = CASES[name]
    cfg = _hf_config(params, max_pos)
    ours = RopeSpec.from_hf_config(cfg.to_dict())
    for seq_len in seq_lens:
        theirs, att = _hf_inv_freq(cfg, seq_len)
        mine = ours.inv_freq(seq_len)
        rel = np.abs(mine - theirs) / np.abs(theirs)
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
