"""Proportional RoPE (Gemma 4, LFM3): the first pairs turn at frequencies over the whole head, the rest by 0."""

from __future__ import annotations

import numpy as np
import pytest

from ropecheck import Proportional, RopeSpec
from ropecheck.errors import SpecError
from ropecheck.reference import apply_rope

GEMMA4_TEXT = {
    "model_type": "gemma4_text",
    "head_dim": 256,
    "hidden_size": 2304,
    "num_attention_heads": 8,
    "max_position_embeddings": 131072,
    "rope_parameters": {
        "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.25, "rope_theta": 1000000.0},
        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
    },
}


def test_a_gemma4_config_reads_as_proportional_over_the_whole_head() -> None:
    spec = RopeSpec.from_hf_config(GEMMA4_TEXT, layer_type="full_attention")
    assert isinstance(spec.scaling, Proportional) and spec.rotary_dim == spec.head_dim == 256
    inv = spec.inv_freq()
    assert spec.turning_pairs() == 32 and np.all(inv[32:] == 0)
    assert np.allclose(inv[:32], 1e6 ** (-np.arange(0, 64, 2) / 256), rtol=1e-15)  # exponent over the head, not 64
    sliding = RopeSpec.from_hf_config(GEMMA4_TEXT, layer_type="sliding_attention")
    assert sliding.rope_type == "default" and sliding.base == 10000.0


def test_the_pairs_that_do_not_turn_pass_through_exactly() -> None:
    spec = RopeSpec(head_dim=16, base=1e6, scaling=Proportional(2.0, 0.5))
    x = np.random.default_rng(0).standard_normal((1, 5, 2, 16))
    out = apply_rope(x, (np.arange(5)[None] * 1000)[..., None], spec)
    still = np.setdiff1d(np.arange(16), spec.turning_dims())
    assert still.tolist() == [4, 5, 6, 7, 12, 13, 14, 15]  # the end of each half in the half-split layout
    assert np.array_equal(out[..., still], x[..., still])
    assert not np.allclose(out[..., spec.turning_dims()], x[..., spec.turning_dims()])


@pytest.mark.parametrize(
    ("scaling", "message"),
    [
        (Proportional(1.0, 0.0), "must be in (0, 1]"),
        (Proportional(1.0, 1.5), "must be in (0, 1]"),
        (Proportional(0.0, 0.5), "must be positive"),
        (Proportional(1.0, 0.1), "turns no pair"),  # int(0.1 * 8 // 2) = 0
    ],
)
def test_a_proportional_schedule_that_cannot_be_is_refused(scaling: Proportional, message: str) -> None:
    with pytest.raises(SpecError, match=message.replace("(", r"\(").replace(")", r"\)").replace("]", r"\]")):
        RopeSpec(head_dim=8, scaling=scaling)
