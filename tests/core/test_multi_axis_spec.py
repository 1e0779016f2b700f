"""Multi-axis specs read from configs, against the rotary modules of the installed transformers.

Each case is one tiny config, read by :meth:`RopeSpec.from_hf_config` and built as the real
transformers config. The transformers module is probed one axis at a time (position 1 on that
axis, 0 on the others): a pair turns exactly when the axis rotates it, and by its inverse
frequency, so the probe recovers both the pair -> axis assignment and the frequency of every
pair. transformers computes in fp32: frequencies agree to 1e-6 relative.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from fixtures import CONFIGS
from ropecheck import RopeSpec
from ropecheck.axes import axial, mrope
from ropecheck.errors import SpecError

torch = pytest.importorskip("torch", reason="torch is a test extra")
pytest.importorskip("transformers", reason="transformers is a test extra: pip install -e '.[test]'")

REL_TOL = 1e-6


def _qwen2_vl(cfg: dict[str, Any]) -> Any:
    from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLTextConfig
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLRotaryEmbedding

    return Qwen2VLRotaryEmbedding(Qwen2VLTextConfig(**cfg))


def _qwen2_5_vl(cfg: dict[str, Any]) -> Any:
    from transformers.models.qwen2_5_vl.configuration_qwen2_5_vl import Qwen2_5_VLTextConfig
    from transformers.models.qwen2_5_vl.modeling_qwen2_5_vl import Qwen2_5_VLRotaryEmbedding

    return Qwen2_5_VLRotaryEmbedding(Qwen2_5_VLTextConfig(**cfg))


def _qwen3_vl(cfg: dict[str, Any]) -> Any:
    from transformers.models.qwen3_vl.configuration_qwen3_vl import Qwen3VLTextConfig
    from transformers.models.qwen3_vl.modeling_qwen3_vl import Qwen3VLTextRotaryEmbedding

    return Qwen3VLTextRotaryEmbedding(Qwen3VLTextConfig(**cfg))


def _qwen2_vl_vision(cfg: dict[str, Any]) -> Any:
    from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLVisionConfig
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLVisionRotaryEmbedding

    return Qwen2VLVisionRotaryEmbedding(Qwen2VLVisionConfig(**cfg))


def _pixtral(cfg: dict[str, Any]) -> Any:
    from transformers.models.pixtral.configuration_pixtral import PixtralVisionConfig
    from transformers.models.pixtral.modeling_pixtral import PixtralVisionRotaryEmbedding

    return PixtralVisionRotaryEmbedding(PixtralVisionConfig(**cfg))


# name: (model_type of the file, config key to read, the transformers kwargs, builder, axes, scheme)
CASES: dict[str, tuple[str, str | None, dict[str, Any], Any, int, str]] = {
    "qwen2-vl": (
        "qwen2_vl",
        None,
        {
            "hidden_size": 64,
            "num_attention_heads": 4,
            "rope_scaling": {"type": "mrope", "mrope_section": [2, 3, 3]},
            "rope_theta": 1e6,
        },
        _qwen2_vl,
        3,
        "mrope",
    ),
    "qwen2.5-vl": (
        "qwen2_5_vl",
        None,
        {
            "hidden_size": 96,
            "num_attention_heads": 4,
            "rope_scaling": {"type": "mrope", "mrope_section": [4, 4, 4]},
            "rope_theta": 1e6,
        },
        _qwen2_5_vl,
        3,
        "mrope",
    ),
    "qwen3-vl": (
        "qwen3_vl_text",
        None,
        {
            "hidden_size": 64,
            "num_attention_heads": 4,
            "head_dim": 16,
            "rope_parameters": {
                "rope_type": "default",
                "mrope_section": [4, 2, 2],
                "mrope_interleaved": True,
                "rope_theta": 5e6,
            },
        },
        _qwen3_vl,
        3,
        "mrope-interleaved",
    ),
    "qwen2-vl-vision": (
        "qwen2_vl",
        "vision_config",
        {"embed_dim": 64, "num_heads": 4, "hidden_size": 48},
        _qwen2_vl_vision,
        2,
        "axial-shared",
    ),
    "pixtral-vision": (
        "llava",
        "vision_config",
        {
            "hidden_size": 128,
            "num_attention_heads": 4,
            "rope_parameters": {"rope_type": "axial", "rope_theta": 10000.0},
        },
        _pixtral,
        2,
        "axial-alternating",
    ),
}


def _file_config(name: str) -> dict[str, Any]:
    model_type, key, cfg, _, _, _ = CASES[name]
    if key is None:
        return {"model_type": model_type, **cfg}
    sub = dict(cfg)
    if name == "pixtral-vision":
        sub["model_type"] = "pixtral"
    return {"model_type": model_type, key: sub}


def _probe(module: Any, axes: int, vision: bool) -> tuple[np.ndarray, np.ndarray]:
    """(axis of each pair, frequency of each pair) as the transformers module computes them."""
    pos = torch.eye(axes, dtype=torch.long)  # row a: position 1 on axis a
    if vision:  # (seq, axes): one token per probe
        cos, sin = module(torch.zeros(1), pos)
    else:  # (axes, batch, seq): one batch row, one token per probe
        cos, sin = module(torch.zeros(1), pos.T[:, None, :].contiguous())
        cos, sin = cos[0], sin[0]
    half = cos.shape[-1] // 2
    theta = torch.atan2(sin[:, :half].double(), cos[:, :half].double()).numpy()  # (probes, pairs)
    turned = theta != 0
    assert (turned.sum(axis=0) == 1).all(), "every pair turns by exactly one axis"
    axis_of = turned.argmax(axis=0)
    return axis_of, theta[axis_of, np.arange(half)]


@pytest.mark.parametrize("name", list(CASES))
def test_spec_matches_transformers(name: str) -> None:
    _, key, cfg, build, axes, scheme = CASES[name]
    spec = RopeSpec.from_hf_config(_file_config(name), config_key=key)
    assert spec.axes is not None and spec.axes.scheme == scheme
    axis_of, freq = _probe(build(dict(cfg)), axes, vision=key is not None)
    np.testing.assert_array_equal(spec.axis_of_pair(), axis_of)
    np.testing.assert_allclose(spec.inv_freq(), freq, rtol=REL_TOL, atol=0)
    assert spec.to_dict()["axes"]["scheme"] == scheme
    assert spec.axes.describe() in spec.describe()


@pytest.mark.parametrize(
    ("file", "key", "describe"),
    [
        ("qwen2-vl-7b.json", None, "mrope t:16 h:24 w:24"),
        ("qwen2-vl-7b.json", "vision_config", "axial-shared h:20 w:20"),
        ("qwen2.5-vl-7b.json", None, "mrope t:16 h:24 w:24"),
        ("qwen2.5-vl-7b.json", "vision_config", "axial-shared h:20 w:20"),
        ("qwen3-vl-8b.json", None, "mrope-interleaved t:24 h:20 w:20"),
        ("pixtral-12b.json", "vision_config", "axial-alternating h:16 w:16"),
    ],
)
def test_published_configs(file: str, key: str | None, describe: str) -> None:
    spec = RopeSpec.from_hf_config(CONFIGS / file, config_key=key)
    assert spec.axes is not None and spec.axes.describe() == describe
    assert json.dumps(spec.to_dict())  # JSON-ready


def test_pixtral_text_model_has_no_axes() -> None:
    assert RopeSpec.from_hf_config(CONFIGS / "pixtral-12b.json").axes is None


@pytest.mark.parametrize(
    ("params", "field", "words"),
    [
        ({"type": "mrope", "mrope_section": [16, 24, 23]}, "rope_scaling.mrope_section", "cover 63 pairs"),
        ({"type": "mrope", "mrope_section": [16, 48]}, "rope_scaling.mrope_section", "3 or 4 section sizes"),
        ({"type": "mrope", "mrope_section": "16,24,24"}, "rope_scaling.mrope_section", "list of integers"),
        ({"mrope_interleaved": True}, "rope_scaling.mrope_section", "required with mrope_interleaved"),
        ({"mrope_section": [16, 24, 24], "mrope_interleaved": "yes"}, "rope_scaling.mrope_interleaved", ""),
        ({"mrope_section": [8, 28, 28], "mrope_interleaved": True}, "rope_scaling.mrope_section", "3 x its section"),
    ],
    ids=["sum-off-by-one", "two-sections", "string", "interleaved-without-sections", "bool", "interleaved-too-long"],
)
def test_bad_mrope_configs(params: dict[str, Any], field: str, words: str) -> None:
    cfg = {"hidden_size": 3584, "num_attention_heads": 28, "rope_scaling": params}
    with pytest.raises(SpecError) as info:
        RopeSpec.from_hf_config(cfg)
    assert info.value.field == field and words in str(info.value)


def test_spec_axes_field() -> None:
    spec = RopeSpec(head_dim=128, axes=mrope((16, 24, 24), 128))
    assert spec.with_(axes=None).axes is None and spec.axis_names == ("t", "h", "w")
    with pytest.raises(SpecError, match="rotate by no axis"):
        RopeSpec(head_dim=128, axes=mrope((16, 24, 24), 128).__class__("custom", mrope((8, 12, 12), 64).axes))
    with pytest.raises(SpecError, match="must be a MultiAxis"):
        RopeSpec(head_dim=8, axes=(1, 2))  # type: ignore[arg-type]
    with pytest.raises(SpecError, match="default schedule"):
        from ropecheck.schedules import Linear

        RopeSpec(head_dim=64, axes=axial(64, "alternating"), scaling=Linear(factor=2.0))
    # M-RoPE keeps the schedule: its frequencies are the 1-D ones
    assert np.array_equal(spec.inv_freq(), RopeSpec(head_dim=128).inv_freq())
