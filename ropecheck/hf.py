"""Reading the fields of a `RopeSpec` from a Hugging Face ``config.json``, strictly.

Configs in the wild spell RoPE many ways: ``rope_theta`` at the top level or inside
``rope_parameters`` (transformers 5) / ``rope_scaling`` (transformers 4); ``type`` or
``rope_type``; MLA's ``qk_rope_head_dim`` (DeepSeek V2/V3: the rotated part of a head);
``partial_rotary_factor``, GPT-NeoX's ``rotary_pct``/``rotary_emb_base`` or
GPT-J's absolute ``rotary_dim``; Phi-3 keeps ``original_max_position_embeddings`` at the top
level; Gemma-style configs nest ``rope_parameters`` by layer type; multimodal configs keep
the text model in ``text_config``. This module accepts all of them -- and nothing that
transformers would reject, nor anything it would silently read as something else:

* The file must be a regular file (a FIFO, a device or a socket is refused without
  blocking) of UTF-8 JSON holding an object, without ``NaN``/``Infinity`` (Python's
  ``json`` accepts them; JSON does not), at most :data:`MAX_CONFIG_BYTES` long; a file
  nested too deeply or with a number too long to convert is a ``ConfigError``, not a
  traceback.
* Every field the spec reads is type- and range-checked and a problem is reported by its
  dotted key (``rope_scaling.beta_fast``): a number must be a number (not a bool, not a
  string), ``truncate`` must be ``true``/``false``, a required key must be present and not
  null (YaRN needs ``factor``, as transformers requires), a present key is never replaced by
  a default (``beta_fast: 0`` is an error, not 32). The schedules and the spec check ranges.
* A config with a ``text_config`` is read from the text model's config, as transformers'
  multimodal models do, even when the top level has its own ``num_attention_heads``;
  ``config_key`` picks another sub-config (or ``"."`` the top level), and
  :func:`read_rope_config` says which one was read.

Design constraints: this module builds the schedule and the spec's fields, not the spec
itself -- :meth:`ropecheck.spec.RopeSpec.from_hf_config` calls :func:`spec_fields` and
validates -- so the spec module can import this one and no cycle forms.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .axes import MultiAxis, axial, mrope
from .errors import ConfigError, SpecError, UsageError
from .inputs import is_folder, read_input
from .schedules import (
    MAX_HEAD_DIM,
    MAX_POSITION_EMBEDDINGS,
    ROPE_TYPES,
    Default,
    DynamicNTK,
    Layout,
    Linear,
    Llama3,
    LongRoPE,
    Proportional,
    Scaling,
    StaticNTK,
    YaRN,
    check_bool,
    check_int,
    check_number,
    describe_value,
)

__all__ = [
    "AXIAL_VISION_MODEL_TYPES",
    "INTERLEAVED_MODEL_TYPES",
    "MROPE_INTERLEAVED_MODEL_TYPES",
    "MAX_CONFIG_BYTES",
    "TOP_LEVEL",
    "load_config",
    "read_rope_config",
    "scaling_from_dict",
    "spec_fields",
    "spec_fields_and_keys",
]

# Architectures whose RoPE pairs adjacent dims (x_2i, x_2i+1) rather than (x_i, x_i+r/2).
INTERLEAVED_MODEL_TYPES = frozenset(
    {"gptj", "codegen", "cohere", "cohere2", "chatglm", "glm", "inkling2_vision", "hy_v4_vl_text"}
)
#: text model types whose M-RoPE is interleaved (Qwen3-VL's pair i -> axis i mod 3) when the config does not say
#: ``mrope_interleaved``: their code has no other way (the published Qwen3-VL configs say it; some defaults do not)
MROPE_INTERLEAVED_MODEL_TYPES = frozenset(
    {
        "qwen3_vl_text",
        "qwen3_vl_moe_text",
        "qwen3_5_text",
        "qwen3_5_moe_text",
        "qwen3_omni_moe_text",
        "qwen4_exp_text",
        "hy_v4_vl_text",
        "cosmos3_edge_text",
        "cohere_compass_text",  # transformers 5.24: Qwen3-VL's recomposition_frequencies, per layer type
    }
)

#: The largest config file read (bytes): published config.json files are a few KB, the
#: largest (per-layer settings) well under 1 MiB.
MAX_CONFIG_BYTES = 16 << 20

#: The ``config_key`` that selects the top level of a config, even when it has a ``text_config``.
TOP_LEVEL = "."

# Aliases used by configs for the same schedule.
# "mrope" (Qwen2-VL's configs) is the default schedule with mrope_section; "axial" (the vision encoders'
# rope_parameters in transformers 5) the default schedule over 2-D patch positions.
_TYPE_ALIASES = {
    "su": "longrope",
    "static_ntk": "static-ntk",
    "ntk": "static-ntk",
    "dynamic_ntk": "dynamic",
    "mrope": "default",
    "axial": "default",
}

#: Vision encoders with 2-D axial RoPE, by model_type: how their pairs split between rows and columns
#: and which config key holds the embedding width their head_dim derives from.
AXIAL_VISION_MODEL_TYPES: dict[str, tuple[str, str]] = {
    "qwen2_vl": ("shared", "embed_dim"),
    "qwen2_vl_vision": ("shared", "embed_dim"),
    "qwen2_5_vl": ("shared", "hidden_size"),
    "qwen2_5_vl_vision": ("shared", "hidden_size"),
    "pixtral": ("alternating", "hidden_size"),
    "glm5_next_vision": ("shared", "hidden_size"),
    "exaone4_5_vision": ("shared", "hidden_size"),
    "video_llama_3_vision": ("shared", "hidden_size"),
    "lfm3_vl_vision": ("shared", "hidden_size"),
    "inkling2_vision": ("shared-reversed", "hidden_size"),
    "kimi_k25_vision": ("paired", "hidden_size"),
    # transformers 5.24: each vision rotary class below has Qwen2.5-VL's code (its own config's hidden_size for
    # the head_dim), and each vision attention applies it with apply_rotary_pos_emb_vision, Qwen2-VL's
    "qwen3_vl_vision": ("shared", "hidden_size"),
    "qwen3_vl_moe_vision": ("shared", "hidden_size"),
    "qwen3_5_vision": ("shared", "hidden_size"),
    "qwen3_5_moe_vision": ("shared", "hidden_size"),
    "qwen3_omni_moe_vision_encoder": ("shared", "hidden_size"),
    "qwen2_5_omni_vision_encoder": ("shared", "hidden_size"),
    "qwen4_exp_vision": ("shared", "hidden_size"),
    "glm4v_vision": ("shared", "hidden_size"),
    "glm4v_moe_vision": ("shared", "hidden_size"),
    "glm_ocr_vision": ("shared", "hidden_size"),
    "ernie4_5_vl_moe_vision": ("shared", "hidden_size"),
    "paddleocr_vl_vision": ("shared", "hidden_size"),
    "muse_glimmer_vision": ("shared", "hidden_size"),
    "muse_spark_vision": ("shared", "hidden_size"),
    "cohere_compass_vision": ("shared", "hidden_size"),
    "dots3_note_vision_encoder": ("shared", "hidden_size"),
    "mlcd_vision_model": ("shared", "hidden_size"),  # MLCD: the same class, and Qwen2-VL's apply_rotary_pos_emb_vision
    # Step 3.7's vision rotary recomposes (w, h): freq.flip(1), the last axis's block first
    "step3p5_vision": ("shared-reversed", "hidden_size"),
}
_NON_JSON = re.compile(r"-?\b(?:NaN|Infinity)\b")
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


class _NonJSONConstant(Exception):
    def __init__(self, name: str) -> None:
        self.name = name


def _reject_constant(name: str) -> Any:
    raise _NonJSONConstant(name)


def _where(text: str, name: str) -> str:
    """'line L column C' of the first ``name`` outside JSON strings, or ''."""
    masked = _JSON_STRING.sub(lambda m: " " * len(m.group()), text)
    found = re.search(re.escape(name) if name.startswith("-") else rf"(?<!-)\b{re.escape(name)}\b", masked)
    if found is None:  # pragma: no cover - the decoder saw it, so it is there
        return ""
    line = masked.count("\n", 0, found.start()) + 1
    column = found.start() - (masked.rfind("\n", 0, found.start()) + 1) + 1
    return f" at line {line} column {column}"


def _parse_json(text: str, source: str) -> Any:
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except _NonJSONConstant as exc:
        raise ConfigError(
            f"{source}: {exc.name}{_where(text, exc.name)} is not valid JSON (JSON has no NaN or Infinity; "
            "write a finite number)"
        ) from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{source} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise ConfigError(
            f"{source} nests JSON arrays or objects too deeply to read (a config is a few levels deep)"
        ) from None
    except ValueError as exc:  # Python's limit on the digits of an integer (4300 by default)
        raise ConfigError(f"{source} holds a number too long to read: {str(exc).split(';')[0]}") from None


def load_config(config: Any, *, flag: str | None = None) -> dict[str, Any]:
    """Turn a path, a mapping or a transformers config object into a dict (``ConfigError`` if it cannot).

    A path is read as a regular file only, at most :data:`MAX_CONFIG_BYTES` of it
    (:func:`ropecheck.inputs.read_input`): a FIFO, a device or a socket is refused at once. A
    folder stands for its ``config.json``. ``flag`` (``"--hf-config"``) names where the path came
    from in messages, which are then :class:`~ropecheck.errors.UsageError`.
    """
    if isinstance(config, Mapping):
        return dict(config)
    if hasattr(config, "to_dict") and callable(config.to_dict):
        return dict(config.to_dict())
    if isinstance(config, (str, os.PathLike)):
        error: type[Exception] = ConfigError if flag is None else UsageError
        path = Path(config)
        if is_folder(path):
            if not (path / "config.json").exists():
                where = f"{flag} {path}" if flag else str(path)
                raise error(f"{where}: a folder without a config.json (give the config file or its folder)")
            path = path / "config.json"
        if not os.path.lexists(path):
            raise error(f"{flag + ': ' if flag else ''}config file not found: {path}")
        raw = read_input(
            path, name=flag or "config file", limit=MAX_CONFIG_BYTES, hint="a config.json is a few KB", error=error
        )
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ConfigError(
                f"{path} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
                "save the config as UTF-8 JSON"
            ) from None
        data = _parse_json(text, str(path))
        if not isinstance(data, dict):
            raise ConfigError(f"{path} must hold a JSON object, got {type(data).__name__}")
        return data
    raise ConfigError(f"expected a path to config.json or a dict, got {type(config).__name__}")


def read_rope_config(config: Any, *, config_key: str | None = None) -> tuple[dict[str, Any], str]:
    """The (sub-)config that describes the RoPE, and where it was found.

    Args:
        config: as :func:`load_config`.
        config_key: a dotted key (``"text_config"``, ``"thinker_config.text_config"``), or
            ``"."`` (:data:`TOP_LEVEL`) for the top level; None reads ``text_config`` when
            the config has one (as transformers' multimodal models do) and the top level
            otherwise.

    Returns:
        (the dict to read, its source: ``"text_config"``, the key given, or ``"top level"``).
        A sub-config without a ``model_type`` gets the top level's (it decides the layout).
    """
    cfg = load_config(config)
    if config_key is not None and not isinstance(config_key, str):
        raise ConfigError(f"config_key must be a dotted key such as 'text_config', got {describe_value(config_key)}")
    if config_key is None:
        if "text_config" not in cfg or cfg["text_config"] is None:
            return cfg, "top level"
        config_key = "text_config"
    if config_key.strip() in ("", TOP_LEVEL):
        return cfg, "top level"
    node: Any = cfg
    walked: list[str] = []
    for part in config_key.split("."):
        if not isinstance(node, dict) or part not in node:
            where = ".".join(walked) or "the top level"
            subs = sorted(k for k, v in node.items() if isinstance(v, dict)) if isinstance(node, dict) else []
            have = f"; sub-configs there: {', '.join(subs)}" if subs else "; it has no sub-configs"
            raise ConfigError(
                f"config key {config_key!r} (--config-key) names no sub-config: {part!r} is not a key of {where}{have}"
            )
        node = node[part]
        walked.append(part)
    if not isinstance(node, dict):
        raise SpecError(config_key, f"must be an object (a sub-config), got {type(node).__name__}")
    out = dict(node)
    if "model_type" not in out and "model_type" in cfg:
        out["model_type"] = cfg["model_type"]
    return out, config_key


# Keys a schedule cannot do without (checked before anything derived from them). transformers
# requires these too (a KeyError when one is missing); it warns -- we refuse -- when one is null.
_REQUIRED = {
    "linear": ("factor",),
    "static-ntk": ("factor",),
    "dynamic": ("factor",),
    "yarn": ("factor",),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor"),
    "longrope": ("short_factor", "long_factor"),
}
_NUMBERS = (
    "factor",
    "low_freq_factor",
    "high_freq_factor",
    "beta_fast",
    "beta_slow",
    "mscale",
    "mscale_all_dim",
    "attention_factor",
)


def _get(params: Mapping[str, Any], key: str, rope_type: str, prefix: str) -> Any:
    if params.get(key) is None:
        missing = "null" if key in params else "missing"
        raise SpecError(f"{prefix}.{key}", f"required for rope_type {rope_type!r} but {missing}")
    return params[key]


def _first(*candidates: tuple[str, Any]) -> tuple[str, Any]:
    """The first (key, value) whose value is not None (explicit None checks: 0 is a value, not absent)."""
    for key, value in candidates:
        if value is not None:
            return key, value
    return candidates[-1][0], None


def scaling_from_dict(
    params: Mapping[str, Any] | None,
    *,
    max_position_embeddings: int | None = None,
    original_max_position_embeddings: int | None = None,
    prefix: str = "rope_scaling",
) -> Scaling:
    """Build a schedule from an HF-style ``rope_scaling``/``rope_parameters`` dict.

    ``prefix`` is the dotted key the dict came from, for messages. A value present in the
    dict is used as given (and checked), never replaced by a default: only a missing or
    null optional key takes one (beta_fast 32, beta_slow 1, truncate true).
    """
    params, rope_type = _checked_scaling_params(params, prefix)
    _, orig = _first(
        ("original_max_position_embeddings", original_max_position_embeddings),
        (f"{prefix}.original_max_position_embeddings", params.get("original_max_position_embeddings")),
        ("max_position_embeddings", max_position_embeddings),
    )
    if rope_type == "default":
        return Default()
    if rope_type == "linear":
        return Linear(factor=params["factor"])
    if rope_type == "proportional":
        prf = params.get("partial_rotary_factor")
        check_number(f"{prefix}.partial_rotary_factor", prf, allow_none=True)
        return Proportional(
            factor=1.0 if params.get("factor") is None else params["factor"],
            partial_rotary_factor=1.0 if prf is None else prf,
        )
    if rope_type == "static-ntk":
        return StaticNTK(factor=params["factor"])
    if rope_type == "dynamic":
        _, length = _first(
            ("max_position_embeddings", max_position_embeddings),
            (f"{prefix}.original_max_position_embeddings", params.get("original_max_position_embeddings")),
        )
        if length is None:
            raise SpecError("max_position_embeddings", "required for rope_type 'dynamic' but missing")
        return DynamicNTK(factor=params["factor"], original_max_position_embeddings=length)
    if orig is None:
        raise SpecError(
            f"{prefix}.original_max_position_embeddings", f"required for rope_type {rope_type!r} but missing"
        )
    if rope_type == "yarn":
        return YaRN(
            factor=params["factor"],
            original_max_position_embeddings=orig,
            beta_fast=32.0 if params.get("beta_fast") is None else params["beta_fast"],
            beta_slow=1.0 if params.get("beta_slow") is None else params["beta_slow"],
            mscale=params.get("mscale"),
            mscale_all_dim=params.get("mscale_all_dim"),
            attention=params.get("attention_factor"),
            truncate=True if params.get("truncate") is None else params["truncate"],
        )
    if rope_type == "llama3":
        return Llama3(
            factor=params["factor"],
            low_freq_factor=params["low_freq_factor"],
            high_freq_factor=params["high_freq_factor"],
            original_max_position_embeddings=orig,
        )
    return _longrope(params, prefix, orig)


def _checked_scaling_params(params: Mapping[str, Any] | None, prefix: str) -> tuple[dict[str, Any], str]:
    """(a copy of ``params``, its canonical rope type), every key a schedule reads checked first."""
    if params is not None and not isinstance(params, Mapping):
        raise SpecError(prefix, f"must be an object, got {type(params).__name__}")
    params = dict(params or {})
    raw_type = params.get("rope_type", params.get("type", "default"))
    raw_type = "default" if raw_type is None else raw_type
    if not isinstance(raw_type, str):
        raise SpecError(f"{prefix}.rope_type", f"must be a string, got {describe_value(raw_type)}")
    rope_type = _TYPE_ALIASES.get(raw_type, raw_type)
    if rope_type not in ROPE_TYPES:
        raise SpecError(
            f"{prefix}.rope_type",
            f"unknown rope type {describe_value(raw_type)}; expected one of {', '.join(ROPE_TYPES)}",
        )
    for key in _NUMBERS:
        check_number(f"{prefix}.{key}", params.get(key), allow_none=True)
    for key in _REQUIRED.get(rope_type, ()):
        _get(params, key, rope_type, prefix)
    if params.get("truncate") is not None:
        check_bool(f"{prefix}.truncate", params["truncate"])
    return params, rope_type


def _longrope(params: Mapping[str, Any], prefix: str, orig: Any) -> LongRoPE:
    for name in ("short_factor", "long_factor"):
        seq = params[name]
        if not isinstance(seq, (list, tuple)):
            raise SpecError(f"{prefix}.{name}", f"must be a list of numbers, got {type(seq).__name__}")
        for v in seq:
            check_number(f"{prefix}.{name}", v)
    return LongRoPE(
        short_factor=tuple(params["short_factor"]),
        long_factor=tuple(params["long_factor"]),
        original_max_position_embeddings=orig,
        factor=params.get("factor"),
        attention=params.get("attention_factor"),
    )


def _integer(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpecError(name, f"must be an integer, got {describe_value(value)}")
    return value


def spec_fields(
    config: Any,
    *,
    layout: Layout | None = None,
    layer_type: str = "full_attention",
    config_key: str | None = None,
) -> dict[str, Any]:
    """The `RopeSpec` fields a Hugging Face config describes (``RopeSpec(**fields)`` validates them).

    Args:
        config: path to ``config.json`` (or its folder), a dict, or a transformers config.
        layout: override the pairing; by default ``interleaved`` for GPT-J/CodeGen/Cohere/GLM
            configs and ``half`` (rotate_half) otherwise, as transformers implements them.
        layer_type: which entry to use when ``rope_parameters`` is nested by layer type.
        config_key: which sub-config to read (see :func:`read_rope_config`).
    """
    return spec_fields_and_keys(config, layout=layout, layer_type=layer_type, config_key=config_key)[0]


def spec_fields_and_keys(
    config: Any,
    *,
    layout: Layout | None = None,
    layer_type: str = "full_attention",
    config_key: str | None = None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """:func:`spec_fields`, and the dotted config key each field was read from.

    The keys map a spec field (``base``, ``head_dim``, ``rotary_dim``,
    ``max_position_embeddings``) and the schedule (``rope_scaling``) to where the config
    holds them (``rope_theta``, ``text_config.rope_parameters`` ...), so an invalid value is
    reported by the name the user wrote.
    """
    cfg, source = read_rope_config(config, config_key=config_key)
    where = "" if source == "top level" else f"{source}."
    params, prefix = _rope_params(cfg, where, layer_type)
    vision = _axial_vision(cfg, source)
    if vision is not None and cfg.get("head_dim") is None and cfg.get(vision[1]) is not None:
        cfg = {**cfg, "hidden_size": cfg[vision[1]]}  # the head divides the encoder's width, not the merger's
        if cfg.get("num_attention_heads") is None and cfg.get("num_heads") is not None:
            cfg["num_attention_heads"] = cfg["num_heads"]
    head_dim = _head_dim(cfg, where)
    base_key, base = _first(
        (f"{prefix}.rope_theta", params.get("rope_theta")),
        (f"{where}rope_theta", cfg.get("rope_theta")),
        (f"{where}rotary_emb_base", cfg.get("rotary_emb_base")),
    )
    if base is None:
        base_key, base = f"{where}rope_theta", 10000.0
    check_number(base_key, base)
    rotary_dim, params = _rotary_dim(cfg, params, where, prefix, head_dim)
    max_key, max_pos = _first(
        (f"{where}max_position_embeddings", cfg.get("max_position_embeddings")),
        (f"{where}n_positions", cfg.get("n_positions")),
    )
    if max_pos is not None:
        _integer(max_key, max_pos)
    else:
        max_key = f"{where}max_position_embeddings"
    top_orig = cfg.get("original_max_position_embeddings")
    if top_orig is not None:  # Phi-3 keeps it here; it wins over the rope_scaling one, as in transformers
        check_int(f"{where}original_max_position_embeddings", top_orig, maximum=MAX_POSITION_EMBEDDINGS)
    scaling = scaling_from_dict(
        params,
        max_position_embeddings=max_pos,
        original_max_position_embeddings=top_orig,
        prefix=prefix,
    )
    if layout is None:
        model_type = cfg.get("model_type")
        interleaved = isinstance(model_type, str) and model_type.lower() in INTERLEAVED_MODEL_TYPES
        layout = "interleaved" if interleaved else "half"
    fields = {
        "head_dim": head_dim,
        "rotary_dim": rotary_dim,
        "base": base,
        "layout": layout,
        "scaling": scaling,
        "max_position_embeddings": max_pos,
    }
    axes = _multi_axis(params, prefix, rotary_dim, vision, cfg.get("model_type"))
    if axes is not None:
        fields["axes"] = axes
    keys = {
        "base": base_key,
        "head_dim": f"{where}head_dim",
        "rotary_dim": f"{where}rotary_dim",
        "max_position_embeddings": max_key,
        "rope_scaling": prefix,
    }
    return fields, keys


def _rope_params(cfg: Mapping[str, Any], where: str, layer_type: str) -> tuple[dict[str, Any], str]:
    """(the schedule's parameters, the dotted key they were read from), for ``layer_type`` when nested."""
    for key in ("rope_parameters", "rope_scaling"):
        if cfg.get(key) is not None and not isinstance(cfg[key], dict):
            raise SpecError(f"{where}{key}", f"must be an object, got {type(cfg[key]).__name__}")
    # transformers 5 spells it rope_parameters, 4 rope_scaling; a non-empty rope_parameters wins
    if cfg.get("rope_parameters"):
        key, params = "rope_parameters", cfg["rope_parameters"]
    else:
        key, params = "rope_scaling", cfg.get("rope_scaling") or {}
    if params and all(isinstance(v, dict) or v is None for v in params.values()):
        if layer_type not in params:
            raise SpecError(f"{where}{key}", f"is nested by layer type ({', '.join(params)}); no {layer_type!r} entry")
        params = params[layer_type] or {}
        key = f"{key}.{layer_type}"
    return params, f"{where}{key}"


def _head_dim(cfg: Mapping[str, Any], where: str) -> Any:
    """head_dim as given (qk_rope_head_dim for MLA), else hidden_size // num_attention_heads."""
    head_dim = cfg.get("head_dim")
    if cfg.get("qk_rope_head_dim") is not None:  # MLA (DeepSeek V2/V3): RoPE rotates only the q_pe/k_pe part
        head_dim = cfg["qk_rope_head_dim"]
    if head_dim is not None:
        return head_dim
    hidden_key, hidden = _first(("hidden_size", cfg.get("hidden_size")), ("n_embd", cfg.get("n_embd")))
    heads_key, heads = _first(("num_attention_heads", cfg.get("num_attention_heads")), ("n_head", cfg.get("n_head")))
    if hidden is None or heads is None:
        raise SpecError(
            f"{where}head_dim", "missing, and hidden_size/num_attention_heads are not both given to derive it"
        )
    hidden, heads = _integer(f"{where}{hidden_key}", hidden), _integer(f"{where}{heads_key}", heads)
    if hidden <= 0 or heads <= 0:
        raise SpecError(
            f"{where}{heads_key}",
            "hidden_size and num_attention_heads must be positive integers, "
            f"got {describe_value(hidden)}, {describe_value(heads)}",
        )
    return hidden // heads  # as transformers derives it


def _rotary_dim(
    cfg: Mapping[str, Any], params: dict[str, Any], where: str, prefix: str, head_dim: Any
) -> tuple[Any, dict[str, Any]]:
    """(rotary_dim, the schedule's parameters): proportional RoPE moves partial_rotary_factor into them."""
    prf_given = params.get("partial_rotary_factor") is not None or cfg.get("partial_rotary_factor") is not None
    raw_type = params.get("rope_type", params.get("type"))
    if isinstance(raw_type, str) and _TYPE_ALIASES.get(raw_type, raw_type) == "proportional":
        # proportional RoPE (Gemma 4) returns frequencies for the whole head: partial_rotary_factor says how many
        # of its pairs turn (the schedule's field), the rest turn by 0
        _, prf = _first(
            (f"{prefix}.partial_rotary_factor", params.get("partial_rotary_factor")),
            (f"{where}partial_rotary_factor", cfg.get("partial_rotary_factor")),
        )
        return head_dim, {**params, "partial_rotary_factor": 1.0 if prf is None else prf}
    if cfg.get("qk_rope_head_dim") is not None:
        # MLA: the rotary head is the whole q_pe/k_pe part; a partial_rotary_factor in such a config is
        # qk_rope_head_dim / (qk_nope_head_dim + qk_rope_head_dim), relative to the full head, not to this part
        return head_dim, params
    if cfg.get("rotary_dim") is not None and not prf_given:
        return cfg["rotary_dim"], params
    prf_key, prf = _first(
        (f"{prefix}.partial_rotary_factor", params.get("partial_rotary_factor")),
        (f"{where}partial_rotary_factor", cfg.get("partial_rotary_factor")),
        (f"{where}rotary_pct", cfg.get("rotary_pct")),
    )
    prf = 1.0 if prf is None else prf
    check_number(prf_key, prf)
    if not 0 < prf <= 1:
        raise SpecError(prf_key, f"must be in (0, 1], got {prf!r}")
    sized = isinstance(head_dim, int) and not isinstance(head_dim, bool) and abs(head_dim) <= MAX_HEAD_DIM
    rotary_dim = int(head_dim * prf) if sized else head_dim  # else the spec reports head_dim itself
    if sized and head_dim >= 2 and rotary_dim < 2:
        raise SpecError(
            prf_key,
            f"gives rotary_dim int({head_dim} * {prf!r}) = {rotary_dim}; it must be at least 2/head_dim = "
            f"{2 / head_dim:.6g} (accepted range [{2 / head_dim:.6g}, 1])",
        )
    return rotary_dim, params


def _axial_vision(cfg: Mapping[str, Any], source: str) -> tuple[str, str] | None:
    """(style, width key) when ``cfg`` is the vision config of a 2-D axial encoder, else None."""
    model_type = cfg.get("model_type")
    if not isinstance(model_type, str) or model_type.lower() not in AXIAL_VISION_MODEL_TYPES:
        return None
    model_type = model_type.lower()
    if (
        model_type == "pixtral"
        or model_type.endswith(("_vision", "_vision_encoder", "_vision_model"))
        or source.split(".")[-1] == "vision_config"
    ):
        return AXIAL_VISION_MODEL_TYPES[model_type]
    return None


def _multi_axis(
    params: Mapping[str, Any], prefix: str, rotary_dim: Any, vision: tuple[str, str] | None, model_type: Any = None
) -> MultiAxis | None:
    """The :class:`~ropecheck.axes.MultiAxis` a config describes (``mrope_section``, a vision encoder), or None."""
    if not isinstance(rotary_dim, int) or isinstance(rotary_dim, bool) or rotary_dim < 2 or rotary_dim % 2:
        return None  # the spec reports rotary_dim itself
    if vision is not None:
        return axial(rotary_dim, vision[0])  # type: ignore[arg-type]
    section = params.get("mrope_section")
    interleaved = params.get("mrope_interleaved")
    if interleaved is not None:
        check_bool(f"{prefix}.mrope_interleaved", interleaved)
    elif section is not None and isinstance(model_type, str) and model_type.lower() in MROPE_INTERLEAVED_MODEL_TYPES:
        interleaved = True
    if section is None:
        if interleaved:
            raise SpecError(f"{prefix}.mrope_section", "required with mrope_interleaved but missing")
        return None
    if not isinstance(section, (list, tuple)) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in section
    ):
        raise SpecError(f"{prefix}.mrope_section", f"must be a list of integers, got {describe_value(section)}")
    try:
        # three sections are Qwen2-VL's (temporal, height, width); HunYuan-VL's four are named by index
        if len(section) not in (3, 4):
            raise SpecError(
                f"{prefix}.mrope_section",
                f"must list 3 or 4 section sizes (t/h/w, or HunYuan-VL's four axes), got {len(section)}",
            )
        names = ("t", "h", "w") if len(section) == 3 else tuple(f"axis{k}" for k in range(len(section)))
        return mrope(tuple(section), rotary_dim, interleaved=bool(interleaved), names=names)
    except SpecError as exc:
        raise SpecError(f"{prefix}.mrope_section", str(exc)[len(exc.field) + 2 :]) from None
