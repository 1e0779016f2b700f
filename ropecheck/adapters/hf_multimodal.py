"""transformers' multi-axis RoPE: M-RoPE (Qwen2-VL, Qwen2.5-VL, Qwen3-VL) and 2-D axial (Qwen2-VL, Pixtral vision).

Each adapter builds the model's own rotary module from a config shaped like the published one
and applies the model's own ``apply_rotary_pos_emb`` (``unsqueeze_dim=2`` for the (batch, seq,
heads, dim) layout); the spec is read from the same config by
:meth:`ropecheck.RopeSpec.from_hf_config`. The callables take positions ``(axes, batch, seq)``
(``--positions axes``): M-RoPE's rotary modules take exactly that; the vision modules take one
``(h, w)`` row per patch, ``(patches, 2)``, so the adapter flattens batch and sequence.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..spec import RopeSpec
from .registry import Adapter, axes_fn, register

__all__ = ["MROPE_CONFIGS", "VISION_CONFIGS"]

# name -> (transformers module, config class, rotary class, config kwargs, description)
MROPE_CONFIGS: dict[str, tuple[str, str, str, dict[str, Any], str]] = {
    "hf-qwen2-vl": (
        "qwen2_vl",
        "Qwen2VLTextConfig",
        "Qwen2VLRotaryEmbedding",
        {
            "hidden_size": 3584,
            "num_attention_heads": 28,
            "max_position_embeddings": 32768,
            "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
            "rope_theta": 1000000.0,
        },
        "Qwen2-VL 7B: M-RoPE sections t:16 h:24 w:24",
    ),
    "hf-qwen2.5-vl": (
        "qwen2_5_vl",
        "Qwen2_5_VLTextConfig",
        "Qwen2_5_VLRotaryEmbedding",
        {
            "hidden_size": 3584,
            "num_attention_heads": 28,
            "max_position_embeddings": 128000,
            "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
            "rope_theta": 1000000.0,
        },
        "Qwen2.5-VL 7B: M-RoPE sections t:16 h:24 w:24",
    ),
    "hf-qwen3-vl": (
        "qwen3_vl",
        "Qwen3VLTextConfig",
        "Qwen3VLTextRotaryEmbedding",
        {
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "head_dim": 128,
            "max_position_embeddings": 262144,
            "rope_parameters": {
                "rope_type": "default",
                "mrope_section": [24, 20, 20],
                "mrope_interleaved": True,
                "rope_theta": 5000000.0,
            },
        },
        "Qwen3-VL 8B: interleaved M-RoPE t:24 h:20 w:20",
    ),
}

# name -> (transformers module, config class, rotary class, config kwargs, model_type for the spec, description)
VISION_CONFIGS: dict[str, tuple[str, str, str, dict[str, Any], str, str]] = {
    "hf-qwen2-vl-vision": (
        "qwen2_vl",
        "Qwen2VLVisionConfig",
        "Qwen2VLVisionRotaryEmbedding",
        {"embed_dim": 1280, "num_heads": 16, "hidden_size": 1536},
        "qwen2_vl_vision",
        "Qwen2-VL's vision encoder: 2-D axial, rows then columns, one table over head_dim/2",
    ),
    "hf-pixtral-vision": (
        "pixtral",
        "PixtralVisionConfig",
        "PixtralVisionRotaryEmbedding",
        {
            "hidden_size": 1024,
            "num_attention_heads": 16,
            "rope_parameters": {"rope_type": "axial", "rope_theta": 10000.0},
        },
        "pixtral",
        "Pixtral's vision encoder: 2-D axial, rows the even and columns the odd frequencies",
    ),
}


def _classes(module: str, config: str, rotary: str) -> tuple[Any, Any, Any]:
    import importlib  # the adapted library, imported when used

    mod = importlib.import_module(f"transformers.models.{module}.modeling_{module}")
    cfg = importlib.import_module(f"transformers.models.{module}.configuration_{module}")
    return getattr(cfg, config), getattr(mod, rotary), mod.apply_rotary_pos_emb


def _mrope_factory(name: str) -> Callable[[], Callable[..., Any]]:
    module, config, rotary, kwargs, _ = MROPE_CONFIGS[name]

    def make() -> Callable[..., Any]:
        import torch  # heavy: imported when used

        config_cls, rotary_cls, apply = _classes(module, config, rotary)
        rope = rotary_cls(config_cls(**kwargs))

        def fn(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
            cos, sin = rope(x, positions)  # positions (3, batch, seq) -> cos/sin (batch, seq, head_dim)
            q, _ = apply(x, x, cos, sin, unsqueeze_dim=2)
            return q

        return axes_fn(fn, name)

    return make


def _vision_factory(name: str) -> Callable[[], Callable[..., Any]]:
    module, config, rotary, kwargs, _, _ = VISION_CONFIGS[name]

    def make() -> Callable[..., Any]:
        import torch  # heavy: imported when used

        config_cls, rotary_cls, apply = _classes(module, config, rotary)
        rope = rotary_cls(config_cls(**kwargs))

        def fn(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
            b, s = x.shape[:2]
            patches = positions.permute(1, 2, 0).reshape(b * s, 2)  # (patches, (h, w)), as the encoder builds them
            cos, sin = rope(x, patches)
            cos, sin = cos.reshape(b, s, -1).to(x.dtype), sin.reshape(b, s, -1).to(x.dtype)
            q, _ = apply(x, x, cos, sin, unsqueeze_dim=2)
            return q

        return axes_fn(fn, name)

    return make


def _spec(model_type: str, kwargs: dict[str, Any], key: str | None = None) -> RopeSpec:
    if key is None:
        return RopeSpec.from_hf_config({"model_type": model_type, **kwargs})
    return RopeSpec.from_hf_config({"model_type": model_type, key: dict(kwargs)}, config_key=key)


for _name, (_module, _, _rotary, _kwargs, _desc) in MROPE_CONFIGS.items():
    register(
        Adapter(
            _name,
            "transformers",
            "transformers",
            _spec(_module, _kwargs),
            _mrope_factory(_name),
            description=f"transformers {_rotary} + apply_rotary_pos_emb, positions (3, batch, seq): {_desc}",
        )
    )

for _name, (_module, _, _rotary, _kwargs, _model_type, _desc) in VISION_CONFIGS.items():
    register(
        Adapter(
            _name,
            "transformers",
            "transformers",
            _spec(_model_type, {**_kwargs, "model_type": _model_type}, "vision_config"),
            _vision_factory(_name),
            description=f"transformers {_rotary} + apply_rotary_pos_emb, patch positions (h, w): {_desc}",
        )
    )
