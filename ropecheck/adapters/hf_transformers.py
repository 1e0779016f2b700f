"""transformers: Llama (half-split, every rope type), GPT-J and Cohere (interleaved), GPT-NeoX (partial rotary).

Each adapter builds the model's own rotary module from a config and applies the model's own
``apply_rotary_pos_emb`` with q = x (``unsqueeze_dim=2`` for the (batch, seq, heads, dim)
layout). The spec is read from the same config dict by :func:`ropecheck.RopeSpec.from_hf_config`,
so the adapter checks that transformers implements what its config says.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..spec import RopeSpec
from .registry import Adapter, positions_fn, register

__all__ = ["COHERE_CONFIG", "GPTJ_CONFIG", "NEOX_CONFIG"]

_LONGROPE_SHORT = [1.0 + 0.05 * (i / 47) ** 2 for i in range(48)]
_LONGROPE_LONG = [1.0 + 40.0 * (i / 47) ** 3 for i in range(48)]

# name -> (config dict, description)
LLAMA_CONFIGS: dict[str, tuple[dict[str, Any], str]] = {
    "hf-llama": (
        {
            "model_type": "llama",
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 4096,
            "rope_theta": 10000.0,
        },
        "Llama 2 7B shape: default schedule",
    ),
    "hf-llama-linear": (
        {
            "model_type": "llama",
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 16384,
            "rope_theta": 10000.0,
            "rope_scaling": {"rope_type": "linear", "factor": 4.0},
        },
        "linear position interpolation x4",
    ),
    "hf-llama-dynamic": (
        {
            "model_type": "llama",
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 4096,
            "rope_theta": 10000.0,
            "rope_scaling": {"rope_type": "dynamic", "factor": 2.0},
        },
        "dynamic NTK x2 (checked below the original context)",
    ),
    "hf-llama-yarn": (
        {
            "model_type": "qwen2",
            "hidden_size": 3584,
            "num_attention_heads": 28,
            "max_position_embeddings": 131072,
            "rope_theta": 1000000.0,
            "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
        },
        "Qwen2.5 7B YaRN x4, with its attention factor",
    ),
    "hf-llama3": (
        {
            "model_type": "llama",
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 131072,
            "rope_theta": 500000.0,
            "rope_scaling": {
                "rope_type": "llama3",
                "factor": 8.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": 8192,
            },
        },
        "Llama 3.1 8B: llama3 scaling",
    ),
    "hf-llama-longrope": (
        {
            "model_type": "phi3",
            "hidden_size": 3072,
            "num_attention_heads": 32,
            "max_position_embeddings": 131072,
            "original_max_position_embeddings": 4096,
            "rope_theta": 10000.0,
            "rope_scaling": {"rope_type": "longrope", "short_factor": _LONGROPE_SHORT, "long_factor": _LONGROPE_LONG},
        },
        "Phi-3 128k shape: LongRoPE (checked below the original context), attention factor",
    ),
}


def _llama_config(cfg: dict[str, Any]) -> Any:
    from transformers import LlamaConfig  # optional: the adapted library

    params = dict(cfg.get("rope_scaling") or {"rope_type": "default"})
    params["rope_theta"] = cfg["rope_theta"]
    if "original_max_position_embeddings" in cfg:
        params.setdefault("original_max_position_embeddings", cfg["original_max_position_embeddings"])
    return LlamaConfig(
        hidden_size=cfg["hidden_size"],
        num_attention_heads=cfg["num_attention_heads"],
        max_position_embeddings=cfg["max_position_embeddings"],
        rope_parameters=params,
    )


def _llama_factory(name: str, cfg: dict[str, Any]) -> Callable[[], Callable[..., Any]]:
    def make() -> Callable[..., Any]:
        import torch  # heavy: imported when used
        from transformers.models.llama.modeling_llama import (  # optional: the adapted library
            LlamaRotaryEmbedding,
            apply_rotary_pos_emb,
        )

        rope = LlamaRotaryEmbedding(_llama_config(cfg))

        def fn(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
            cos, sin = rope(x, positions)
            q, _ = apply_rotary_pos_emb(x, x, cos, sin, unsqueeze_dim=2)
            return q

        return positions_fn(fn, name)

    return make


for _name, (_cfg, _desc) in LLAMA_CONFIGS.items():
    register(
        Adapter(
            _name,
            "transformers",
            "transformers",
            RopeSpec.from_hf_config(_cfg),
            _llama_factory(_name, _cfg),
            description=f"transformers LlamaRotaryEmbedding + apply_rotary_pos_emb: {_desc}",
        )
    )


GPTJ_CONFIG: dict[str, Any] = {
    "model_type": "gptj",
    "n_embd": 4096,
    "n_head": 16,
    "rotary_dim": 64,
    "n_positions": 2048,
}


def _gptj() -> Callable[..., Any]:
    import torch  # heavy: imported when used
    from transformers.models.gptj.modeling_gptj import (  # optional: the adapted library
        apply_rotary_pos_emb,
        create_sinusoidal_positions,
    )

    rotary_dim = GPTJ_CONFIG["rotary_dim"]
    table = create_sinusoidal_positions(GPTJ_CONFIG["n_positions"], rotary_dim)  # as GPTJAttention.embed_positions

    def fn(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        # GPTJAttention.forward: gather the sin/cos rows, split, rotate the first rotary_dim dims
        embed = table.to(x.device)[None].expand(positions.shape[0], -1, -1)
        idx = positions.unsqueeze(-1).repeat(1, 1, embed.shape[-1])
        sincos = torch.gather(embed, 1, idx).to(x.dtype)
        sin, cos = torch.split(sincos, sincos.shape[-1] // 2, dim=-1)
        x_rot, x_pass = x[..., :rotary_dim], x[..., rotary_dim:]
        return torch.cat([apply_rotary_pos_emb(x_rot, sin, cos), x_pass], dim=-1)

    return positions_fn(fn, "hf-gptj")


register(
    Adapter(
        "hf-gptj",
        "transformers",
        "transformers",
        RopeSpec.from_hf_config(GPTJ_CONFIG),
        _gptj,
        description="transformers GPT-J: create_sinusoidal_positions table + rotate_every_two, rotary_dim 64 of 256",
    )
)

COHERE_CONFIG: dict[str, Any] = {
    "model_type": "cohere",
    "hidden_size": 8192,
    "num_attention_heads": 64,
    "max_position_embeddings": 131072,
    "rope_theta": 8000000.0,
}


def _cohere() -> Callable[..., Any]:
    import torch  # heavy: imported when used
    from transformers import CohereConfig  # optional: the adapted library
    from transformers.models.cohere.modeling_cohere import (  # optional: the adapted library
        CohereRotaryEmbedding,
        apply_rotary_pos_emb,
    )

    c = COHERE_CONFIG
    rope = CohereRotaryEmbedding(
        CohereConfig(
            hidden_size=c["hidden_size"],
            num_attention_heads=c["num_attention_heads"],
            max_position_embeddings=c["max_position_embeddings"],
            rope_parameters={"rope_type": "default", "rope_theta": c["rope_theta"]},
        )
    )

    def fn(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        cos, sin = rope(x, positions)
        q, _ = apply_rotary_pos_emb(x, x, cos, sin, unsqueeze_dim=2)
        return q

    return positions_fn(fn, "hf-cohere")


register(
    Adapter(
        "hf-cohere",
        "transformers",
        "transformers",
        RopeSpec.from_hf_config(COHERE_CONFIG),
        _cohere,
        description="transformers Cohere (Command R shape): interleaved rotate_half, base 8e6",
    )
)

NEOX_CONFIG: dict[str, Any] = {
    "model_type": "gpt_neox",
    "hidden_size": 2048,
    "num_attention_heads": 8,
    "rotary_pct": 0.25,
    "rotary_emb_base": 10000,
    "max_position_embeddings": 2048,
}


def _neox() -> Callable[..., Any]:
    import torch  # heavy: imported when used
    from transformers import GPTNeoXConfig  # optional: the adapted library
    from transformers.models.gpt_neox.modeling_gpt_neox import (  # optional: the adapted library
        GPTNeoXRotaryEmbedding,
        apply_rotary_pos_emb,
    )

    c = NEOX_CONFIG
    cfg = GPTNeoXConfig(
        hidden_size=c["hidden_size"],
        num_attention_heads=c["num_attention_heads"],
        max_position_embeddings=c["max_position_embeddings"],
        rope_parameters={
            "rope_type": "default",
            "rope_theta": float(c["rotary_emb_base"]),
            "partial_rotary_factor": c["rotary_pct"],
        },
    )
    rope = GPTNeoXRotaryEmbedding(cfg)

    def fn(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        cos, sin = rope(x, positions)
        q, _ = apply_rotary_pos_emb(x, x, cos, sin, unsqueeze_dim=2)
        return q

    return positions_fn(fn, "hf-neox")


register(
    Adapter(
        "hf-neox",
        "transformers",
        "transformers",
        RopeSpec.from_hf_config(NEOX_CONFIG),
        _neox,
        description="transformers GPT-NeoX (Pythia-1B shape): partial rotary, 64 of 256 dims",
    )
)
