"""Reading the fields of a `RopeSpec` from a Hugging Face ``config.json``.

Configs in the wild spell RoPE many ways: ``rope_theta`` at the top level or inside
``rope_parameters`` (transformers 5) / ``rope_scaling`` (transformers 4); ``type`` or
``rope_type``; MLA's ``qk_rope_head_dim`` (DeepSeek V2/V3: the rotated part of a head);
``partial_rotary_factor``, GPT-NeoX's ``rotary_pct``/``rotary_emb_base`` or
GPT-J's absolute ``rotary_dim``; Phi-3 keeps ``original_max_position_embeddings`` at the top
level. This module accepts all of them and reports a missing or bad key by its dotted name.

Design constraints: this module builds the schedule and the spec's fields, not the spec
itself -- :meth:`ropecheck.spec.RopeSpec.from_hf_config` calls :func:`spec_fields` and
validates -- so the spec module can import this one and no cycle forms.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .errors import ConfigError, SpecError
from .schedules import ROPE_TYPES, Default, DynamicNTK, Layout, Linear, Llama3, LongRoPE, Scaling, StaticNTK, YaRN

__all__ = ["INTERLEAVED_MODEL_TYPES", "load_config", "scaling_from_dict", "spec_fields"]

# Architectures whose RoPE pairs adjacent dims (x_2i, x_2i+1) rather than (x_i, x_i+r/2).
INTERLEAVED_MODEL_TYPES = frozenset({"gptj", "codegen", "cohere", "cohere2", "chatglm", "glm"})

# Aliases used by configs for the same schedule.
_TYPE_ALIASES = {"su": "longrope", "static_ntk": "static-ntk", "ntk": "static-ntk", "dynamic_ntk": "dynamic"}


def load_config(config: Any) -> dict[str, Any]:
    """Turn a path, a JSON string, a mapping or a transformers config object into a dict."""
    if isinstance(config, Mapping):
        return dict(config)
    if hasattr(config, "to_dict") and callable(config.to_dict):
        return dict(config.to_dict())
    if isinstance(config, (str, os.PathLike)):
        path = Path(config)
        if path.is_dir():
            path = path / "config.json"
        if not path.exists():
            raise ConfigError(f"config file not found: {path}")
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{path} must hold a JSON object, got {type(data).__name__}")
        return data
    raise ConfigError(f"expected a path to config.json or a dict, got {type(config).__name__}")


# Keys a schedule cannot do without (checked before anything derived from them).
_REQUIRED = {
    "linear": ("factor",),
    "static-ntk": ("factor",),
    "dynamic": ("factor",),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor"),
    "longrope": ("short_factor", "long_factor"),
}


def _get(params: Mapping[str, Any], key: str, rope_type: str) -> Any:
    if params.get(key) is None:
        raise SpecError(f"rope_scaling.{key}", f"required for rope_type {rope_type!r} but missing")
    return params[key]


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(name, f"must be a number, got {value!r}")
    return value


def scaling_from_dict(
    params: Mapping[str, Any] | None,
    *,
    max_position_embeddings: int | None = None,
    original_max_position_embeddings: int | None = None,
) -> Scaling:
    """Build a schedule from an HF-style ``rope_scaling``/``rope_parameters`` dict."""
    params = dict(params or {})
    raw_type = params.get("rope_type", params.get("type", "default")) or "default"
    if not isinstance(raw_type, str):
        raise SpecError("rope_scaling.rope_type", f"must be a string, got {raw_type!r}")
    rope_type = _TYPE_ALIASES.get(raw_type, raw_type)
    if rope_type not in ROPE_TYPES:
        raise SpecError(
            "rope_scaling.rope_type", f"unknown rope type {raw_type!r}; expected one of {', '.join(ROPE_TYPES)}"
        )
    for key in (
        "factor",
        "low_freq_factor",
        "high_freq_factor",
        "beta_fast",
        "beta_slow",
        "mscale",
        "mscale_all_dim",
        "attention_factor",
    ):
        if params.get(key) is not None:
            _number(f"rope_scaling.{key}", params[key])
    for key in _REQUIRED.get(rope_type, ()):
        _get(params, key, rope_type)
    orig = original_max_position_embeddings or params.get("original_max_position_embeddings") or max_position_embeddings
    if rope_type == "default":
        return Default()
    if rope_type == "linear":
        return Linear(factor=_get(params, "factor", rope_type))
    if rope_type == "static-ntk":
        return StaticNTK(factor=_get(params, "factor", rope_type))
    if rope_type == "dynamic":
        if max_position_embeddings is None and params.get("original_max_position_embeddings") is None:
            raise SpecError("max_position_embeddings", "required for rope_type 'dynamic' but missing")
        return DynamicNTK(
            factor=_get(params, "factor", rope_type),
            original_max_position_embeddings=max_position_embeddings or params["original_max_position_embeddings"],
        )
    if orig is None:
        raise SpecError(
            "rope_scaling.original_max_position_embeddings", f"required for rope_type {rope_type!r} but missing"
        )
    if rope_type == "yarn":
        factor = params.get("factor")
        if factor is None:
            if max_position_embeddings is None:
                raise SpecError("rope_scaling.factor", "required for rope_type 'yarn' but missing")
            factor = max_position_embeddings / orig
        return YaRN(
            factor=factor,
            original_max_position_embeddings=orig,
            beta_fast=params.get("beta_fast") or 32.0,
            beta_slow=params.get("beta_slow") or 1.0,
            mscale=params.get("mscale"),
            mscale_all_dim=params.get("mscale_all_dim"),
            attention=params.get("attention_factor"),
            truncate=bool(params.get("truncate", True)),
        )
    if rope_type == "llama3":
        return Llama3(
            factor=_get(params, "factor", rope_type),
            low_freq_factor=_get(params, "low_freq_factor", rope_type),
            high_freq_factor=_get(params, "high_freq_factor", rope_type),
            original_max_position_embeddings=orig,
        )
    # longrope
    short, long_ = _get(params, "short_factor", rope_type), _get(params, "long_factor", rope_type)
    for name, seq in (("short_factor", short), ("long_factor", long_)):
        if not isinstance(seq, (list, tuple)):
            raise SpecError(f"rope_scaling.{name}", f"must be a list of numbers, got {seq!r}")
        for v in seq:
            _number(f"rope_scaling.{name}", v)
    return LongRoPE(
        short_factor=tuple(short),
        long_factor=tuple(long_),
        original_max_position_embeddings=orig,
        factor=params.get("factor"),
        attention=params.get("attention_factor"),
    )


def spec_fields(config: Any, *, layout: Layout | None = None, layer_type: str = "full_attention") -> dict[str, Any]:
    """The `RopeSpec` fields a Hugging Face config describes (``RopeSpec(**fields)`` validates them).

    Args:
        config: path to ``config.json`` (or its folder), a dict, or a transformers config.
        layout: override the pairing; by default ``interleaved`` for GPT-J/CodeGen/Cohere/GLM
            configs and ``half`` (rotate_half) otherwise, as transformers implements them.
        layer_type: which entry to use when ``rope_parameters`` is nested by layer type.
    """
    cfg = load_config(config)
    text_config = cfg.get("text_config")
    if isinstance(text_config, dict) and "num_attention_heads" not in cfg:
        cfg = {**cfg, **text_config}

    params = cfg.get("rope_parameters") or cfg.get("rope_scaling") or {}
    if not isinstance(params, dict):
        raise SpecError("rope_scaling", f"must be an object, got {params!r}")
    if params and all(isinstance(v, dict) or v is None for v in params.values()):
        if layer_type not in params:
            raise SpecError(
                "rope_parameters", f"is nested by layer type ({', '.join(params)}); no {layer_type!r} entry"
            )
        params = params[layer_type] or {}

    head_dim = cfg.get("head_dim")
    if cfg.get("qk_rope_head_dim") is not None:  # MLA (DeepSeek V2/V3): RoPE rotates only the q_pe/k_pe part
        head_dim = cfg["qk_rope_head_dim"]
    if head_dim is None:
        hidden, heads = cfg.get("hidden_size", cfg.get("n_embd")), cfg.get("num_attention_heads", cfg.get("n_head"))
        if hidden is None or heads is None:
            raise SpecError("head_dim", "missing, and hidden_size/num_attention_heads are not both given to derive it")
        if not isinstance(hidden, int) or not isinstance(heads, int) or heads <= 0:
            raise SpecError(
                "num_attention_heads",
                f"hidden_size and num_attention_heads must be positive integers, got {hidden!r}, {heads!r}",
            )
        head_dim = hidden // heads

    base = params.get("rope_theta", cfg.get("rope_theta", cfg.get("rotary_emb_base", 10000.0)))
    _number("rope_theta", base)

    if (
        cfg.get("rotary_dim") is not None
        and params.get("partial_rotary_factor") is None
        and cfg.get("partial_rotary_factor") is None
    ):
        rotary_dim = cfg["rotary_dim"]
    else:
        prf = params.get("partial_rotary_factor", cfg.get("partial_rotary_factor", cfg.get("rotary_pct", 1.0)))
        _number("partial_rotary_factor", prf)
        if not 0 < prf <= 1:
            raise SpecError("partial_rotary_factor", f"must be in (0, 1], got {prf!r}")
        rotary_dim = int(head_dim * prf) if isinstance(head_dim, int) else head_dim

    max_pos = cfg.get("max_position_embeddings", cfg.get("n_positions"))
    if max_pos is not None and (isinstance(max_pos, bool) or not isinstance(max_pos, int)):
        raise SpecError("max_position_embeddings", f"must be an integer, got {max_pos!r}")
    scaling = scaling_from_dict(
        params,
        max_position_embeddings=max_pos,
        original_max_position_embeddings=cfg.get("original_max_position_embeddings"),
    )
    if layout is None:
        layout = "interleaved" if str(cfg.get("model_type", "")).lower() in INTERLEAVED_MODEL_TYPES else "half"
    if isinstance(base, float) and not math.isfinite(base):
        raise SpecError("rope_theta", f"must be finite, got {base!r}")
    return {
        "head_dim": head_dim,
        "rotary_dim": rotary_dim,
        "base": base,
        "layout": layout,
        "scaling": scaling,
        "max_position_embeddings": max_pos,
    }
