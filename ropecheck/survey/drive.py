"""Drive one family: its own config class, its own rotary module and ``apply_rotary*``, under the canonical protocol.

:func:`prepare` builds the family's config with its defaults (its text config for a composite
one), reads the spec from that config with :meth:`RopeSpec.from_hf_config` (per layer type
when ``rope_parameters`` is nested by layer type), instantiates the family's rotary module and
wraps it with the family's ``apply_rotary*`` function as the model's attention calls it: q of
shape (batch, heads, seq, head_dim) and the function's own default ``unsqueeze_dim``. The
wrapper only transposes; the arithmetic is transformers'. Only the rotary module is built,
never the model, so the defaults cost nothing to keep (a shrunk hidden size would change the
head_dim the defaults were chosen for).

Two ways a user runs the module: ``fp32`` (built in float32, called with x of every dtype)
and ``cast`` (``module.to(dtype)`` for each dtype, as ``model.to(torch.bfloat16)`` does).

A family that cannot be driven raises :class:`NotDriven` with the reason (a vision-only
rotary, multi-axis positions, no rotary module, the exception's text) -- a SKIP, never
silently absent.

Design constraints: runs in a worker process (it imports the family's modeling module);
torch and transformers are imported lazily.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import importlib
import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..axes import axial
from ..errors import RopeCheckError
from ..hf import INTERLEAVED_MODEL_TYPES
from ..protocol import as_implementation
from ..spec import RopeSpec
from ..verify.identify import identify
from .channels import part_channels
from .discover import Family

__all__ = [
    "DEFAULT_UNRUNNABLE",
    "MODES",
    "Driven",
    "NotDriven",
    "all_configs",
    "build_class",
    "code_path",
    "config_annotation",
    "prepare",
    "prepare_class",
    "source_without_docstrings",
    "with_finding",
]

#: How the module is run: built in float32, or cast with ``module.to(dtype)``.
MODES = ("fp32", "cast")

_NOT_TEXT = ("Vision", "Patch", "2D", "Image")
#: head_dim set when a family's defaults derive an odd rotary_dim from hidden_size / num_attention_heads
_FALLBACK_HEAD_DIM = 128


class NotDriven(Exception):
    """The family cannot be driven under the canonical protocol; the message is the reason."""


@dataclass
class Driven:
    """One layer type of one family, ready to verify."""

    layer_type: str  # "" when the family has one kind of layer
    spec: RopeSpec
    make: Callable[[str], Callable[..., Any]]  # mode -> fn(x, positions)
    rotary_class: str
    apply_function: str
    notes: tuple[str, ...] = ()
    #: the model's own context where the code has a fixed-size table (positions past it never reach the table)
    max_position: int | None = None
    #: findings about the family's default config itself, ``(label, message)``: a default its own code cannot run
    #: (driven with the smallest repair, :data:`REPAIRS`), or defaults that disagree with each other
    config_findings: tuple[tuple[str, str], ...] = ()
    #: the modes it is verified in: ``("fp32",)`` for a function with no module, which ``model.to(dtype)`` never
    #: reaches (its cast mode would be its fp32 one again)
    modes: tuple[str, ...] = ("fp32", "cast")


#: A default config that cannot run: the label of that finding (the repair that runs it is on the row's page).
DEFAULT_UNRUNNABLE = "config/default_unrunnable"
#: Defaults that disagree with each other (an odd head_dim, frequencies vs M-RoPE sections) and run, or are
#: driven at a size that does not.
INCONSISTENT_DEFAULT = "config/inconsistent_default"


def _set_rope(key: str, value: Any) -> Callable[[Any], None]:
    def apply(config: Any) -> None:
        params = dict(getattr(config, "rope_parameters", None) or {})
        params[key] = value
        config.rope_parameters = params

    return apply


_GLM_HALF_ROTARY = (
    "rope_parameters.partial_rotary_factor = 0.5: the 32 frequencies the rotary's fallback mrope_section "
    "[8, 12, 12] covers (the default rotates all 128 dims: 64 frequencies)",
    _set_rope("partial_rotary_factor", 0.5),
)

#: Default configs a family's own code cannot run, by config class, and the smallest repair that runs it
#: (read from the family's source): what is set, and why that value.
REPAIRS: dict[str, tuple[str, Callable[[Any], None]]] = {
    # the rotary reads rope_parameters["mrope_section"] and its forward takes len() of it; the default has none
    "HunYuanVLTextConfig": (
        "rope_parameters.mrope_section = [16, 16, 16, 16]: four axes over half of the 128-dim head, as the config's "
        "documentation describes (position, width, height, image index)",
        _set_rope("mrope_section", [16, 16, 16, 16]),
    ),
    # the rotary falls back to mrope_section [8, 12, 12] (32 frequencies), the default rotates all 128 dims (64)
    "Glm4vTextConfig": _GLM_HALF_ROTARY,
    # the rotary reads rope_parameters[layer_type] for each layer type; the default has no parameters at all
    "CohereCompassTextConfig": (
        "rope_parameters = {full_attention: {rope_type: default, rope_theta: 10000, mrope_section: [24, 20, 20]}}: "
        "the one layer type the default uses, with the sections the rotary falls back to (64 pairs of the 128-dim "
        "head) and a base of 10000",
        lambda c: setattr(
            c,
            "rope_parameters",
            {"full_attention": {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [24, 20, 20]}},
        ),
    ),
    "GlmImageTextConfig": _GLM_HALF_ROTARY,  # GLM-4V's text rotary, the same defaults
}

#: What the spec reader says of defaults that disagree with each other: an odd head or rotary dim (no model can use
#: it), M-RoPE sections that do not cover the frequencies the head has (the code truncates or pads silently).
_INCONSISTENT = ("must be even", "pairs, but rotary_dim")


def _inconsistent(errors: list[str]) -> str | None:
    return next((e for e in errors if any(m in e for m in _INCONSISTENT)), None)


def with_finding(drivens: list[Driven], label: str, message: str, note: str | None = None) -> list[Driven]:
    """``drivens`` with the finding ``(label, message)`` about their default config, ``note`` first on their page."""
    for d in drivens:
        d.config_findings = (*d.config_findings, (label, message))
        if note:
            d.notes = (note, *d.notes)
    return drivens


def _repaired(
    modeling: Any,
    configs: list[tuple[str, Any]],
    classes: list[str],
    apply_names: Callable[[Any], list[str]],
    errors: dict[int, list[str]],
) -> list[Driven] | None:
    """The first of ``configs`` with a :data:`REPAIRS` entry, repaired and driven, with the finding that its
    default cannot run (``errors``: what driving each config, by ``id``, raised); None when none is repaired."""
    for key, config in configs:
        repair = REPAIRS.get(type(config).__name__)
        if repair is None:
            continue
        what, apply = repair
        fixed = copy.deepcopy(config)
        apply(fixed)
        drivens = _try(modeling, fixed, classes, apply_names(fixed), [], _mrope_axes(fixed))
        if drivens is None:
            continue
        why = "; ".join(errors.get(id(config), [])) or "it does not build"
        where = f"the {key} sub-config" if key else "the text config"
        message = f"the default {type(config).__name__} ({where}) cannot run {drivens[0].rotary_class}: {why}"
        return with_finding(drivens, DEFAULT_UNRUNNABLE, message, f"driven with the smallest repair: {what}")
    return None


def _per_dtype(mode: str, built: Any, cast: Callable[[Any, Any], Any]) -> Callable[[Any], Any]:
    """dtype -> ``built`` in the ``fp32`` mode; in the ``cast`` mode ``cast(built, dtype)``, made once per dtype
    (as ``model.to(dtype)`` casts the module or buffer once, not on every call)."""
    cache: dict[Any, Any] = {}

    def get(dtype: Any) -> Any:
        if mode == "fp32":
            return built
        if dtype not in cache:
            cache[dtype] = cast(built, dtype)
        return cache[dtype]

    return get


def _cast_module(module: Any, dtype: Any) -> Any:
    return copy.deepcopy(module).to(dtype)


def _text_config(config: Any) -> Any:
    get = getattr(config, "get_text_config", None)
    if get is None:
        return config
    try:
        return get(decoder=True)
    except TypeError:
        return get()


def _layer_types(params: Any, rope: Any = None) -> list[str]:
    """The layer types with their own rope parameters; [""] for one kind of layer.

    A layer type whose entry is null has no RoPE (NoPE layers); one the config's ``layer_types`` never
    uses is not built by the rotary module, so neither is driven.
    """
    if isinstance(params, dict) and params and all(isinstance(v, dict) or v is None for v in params.values()):
        types = sorted(k for k, v in params.items() if isinstance(v, dict))
        used = set(getattr(getattr(rope, "config", None), "layer_types", None) or ())
        return [t for t in types if t in used] or types if used else types
    if rope is not None:  # one set of parameters, but a forward that asks which layer type it serves
        arg = inspect.signature(rope.forward).parameters.get("layer_type")
        if arg is not None and arg.default is inspect.Parameter.empty:
            return sorted(set(getattr(rope.config, "layer_types", None) or ["full_attention"]))
    return [""]


#: Keys the rotary module reads as attributes, which a config may hold under its own names (``attribute_map``)
_READ_AS_THE_MODEL_DOES = ("hidden_size", "num_attention_heads", "max_position_embeddings", "rope_parameters")


def _config_dict(config: Any) -> dict[str, Any]:
    """The config as the spec reader reads it, with ``head_dim`` as the model's attention reads it
    (``config.head_dim``, a property in some families, absent from ``to_dict()``)."""
    out = dict(config.to_dict())
    for key in _READ_AS_THE_MODEL_DOES:  # names the config maps onto its own (DBRX: d_model, n_heads, max_seq_len)
        if out.get(key) is None:
            try:
                value = getattr(config, key, None)
            except Exception:  # a per-layer attribute that refuses a global read
                value = None
            if value is not None:
                out[key] = value
    try:
        head_dim = getattr(config, "head_dim", None)
    except Exception:  # a per-layer attribute that refuses a global read: the per-layer configs carry it
        head_dim = None
    if isinstance(head_dim, int) and not isinstance(head_dim, bool) and head_dim > 0:
        out["head_dim"] = head_dim
    return out


def _layer_config(config: Any, layer_type: str, whole: dict[str, Any]) -> dict[str, Any]:
    """The config a layer type's rotary reads: its own resolved config where the family has one per layer type
    (``per_layer_config``: a head_dim per layer type), else the whole config."""
    per_layer = getattr(config, "per_layer_config", None)
    if not layer_type or per_layer is None:
        return whole
    try:  # a dict by layer type, or transformers' per-layer view (indexed by layer or by layer type)
        sub = per_layer[layer_type]
    except (KeyError, IndexError, TypeError, ValueError):
        return whole
    return _config_dict(sub) if hasattr(sub, "to_dict") else dict(sub)


def _rotary_candidates(family: Family) -> list[str]:
    text = [c for c in family.rotary_classes if not _is_vision(c)]
    return sorted(
        text, key=lambda c: (0 if "Text" in c else 1 if "Audio" not in c else 2, family.rotary_classes.index(c))
    )


def _apply_candidates(family: Family, config: Any) -> list[str]:
    fns = [f for f in family.apply_functions if not any(w.lower() in f.lower() for w in (*_NOT_TEXT, "_vision", "2d"))]
    interleave = [f for f in fns if f.endswith("_interleave")]
    plain = [f for f in fns if f not in interleave]
    if getattr(config, "rope_interleave", False):  # DeepSeek-style configs choose the function by this flag
        return interleave + plain
    return plain + interleave


def _call_rope(rope: Any, x: Any, positions: Any, layer_type: str) -> tuple[Any, Any]:
    params = inspect.signature(rope.forward).parameters
    if "layer_type" in params and (layer_type or params["layer_type"].default is inspect.Parameter.empty):
        out = rope(x, positions, layer_type=layer_type)
    else:
        out = rope(x, positions)
    if getattr(out, "is_complex", lambda: False)():  # freqs_cis, e^(i m theta): the apply function takes it alone
        return out, None
    if not isinstance(out, tuple) or len(out) != 2:
        raise NotDriven(f"the rotary module returns {type(out).__name__}, not a (cos, sin) pair or freqs_cis")
    return out


def _apply(apply_fn: Callable[..., Any], x: Any, cos: Any, sin: Any, split: bool, heads_first: bool = True) -> Any:
    import torch  # heavy: imported when used

    # (batch, heads, seq, head_dim), as the attention layer calls it; freqs_cis functions are called in
    # the layout their model uses, found when the family is driven
    q = x.transpose(1, 2) if heads_first else x
    r = cos.shape[-1]
    q_rot, q_pass = (q[..., :r], q[..., r:]) if split else (q, None)
    if sin is None:
        out = apply_fn(q_rot, q_rot, cos)
    else:
        out = apply_fn(q_rot, cos, sin) if _single(apply_fn) else apply_fn(q_rot, q_rot, cos, sin)
    out = out[0] if isinstance(out, tuple) else out
    if q_pass is not None:  # partial rotary done by the attention layer: rotate the first r dims, pass the rest
        out = torch.cat([out, q_pass], dim=-1)
    return (out.transpose(1, 2) if heads_first else out).to(x.dtype)


def _single(apply_fn: Callable[..., Any]) -> bool:
    """``apply(x, cos, sin, ...)`` rather than ``apply(q, k, cos, sin, ...)``."""
    names = list(inspect.signature(apply_fn).parameters)
    return names[1:3] == ["cos", "sin"]


def _check_params(apply_fn: Callable[..., Any]) -> None:
    params = list(inspect.signature(apply_fn).parameters.values())
    names = [p.name for p in params]
    if names[2:3] == ["freqs_cis"]:
        first = 3
    else:
        first = 3 if _single(apply_fn) else 4
    if (
        first == 4
        and names[2:4] != ["cos", "sin"]
        or first == 3
        and names[1:3] != ["cos", "sin"]
        and names[2:3] != ["freqs_cis"]
    ):
        raise NotDriven(f"{apply_fn.__name__}{inspect.signature(apply_fn)} is not apply(q, k, cos, sin, ...)")
    for p in params[first:]:
        if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            if "section" in p.name:
                raise NotDriven(f"multi-axis positions ({p.name})")
            raise NotDriven(f"{apply_fn.__name__} needs {p.name!r}, which no 1-D position gives")


def prepare(family: Family) -> list[Driven]:
    """The family's layer types, each ready to verify; raises :class:`NotDriven` with the reason.

    The text config is tried first; when the rotary module cannot be built or driven from it, each
    sub-config of the family's config in turn (an encoder's, a decoder's), and the page says which.
    """
    if not family.rotary_classes:
        table = _prepare_table(family)
        if table is not None:
            return table
        raise NotDriven("no rotary embedding module: the sin/cos table is built inside the attention or model code")
    candidates = _rotary_candidates(family)
    if not candidates:
        return _prepare_vision(family)
    try:
        cfg_mod = importlib.import_module(family.config_module)
        top = getattr(cfg_mod, family.config_class)()
        config = _text_config(top)
        modeling = importlib.import_module(family.module)
    except Exception as exc:  # the family's own code failed: the reason of the skip
        raise NotDriven(f"{type(exc).__name__}: {exc}") from exc
    candidates = [c for c in candidates if not _is_vision(c, modeling)]
    if not candidates:  # named plainly, built from a vision config (MLCD): a vision encoder's rotary
        return _prepare_vision(family)
    axes = _mrope_axes(config)
    apply_names = _apply_candidates(family, config)
    if not apply_names:
        raise NotDriven("no apply_rotary* function for 1-D positions in the modeling module")
    errors: list[str] = []
    tried = [("", config)] + [
        (key, sub)
        for key in sorted(getattr(top, "sub_configs", None) or {})
        if (sub := getattr(top, key, None)) is not None and sub is not config and hasattr(sub, "to_dict")
    ]
    by_config: dict[int, list[str]] = {}
    for key, cfg in tried:
        n = len(errors)
        drivens = _try(modeling, cfg, candidates, apply_names, errors, axes)
        by_config[id(cfg)] = errors[n:]
        if drivens is not None:
            if key:
                for d in drivens:
                    d.notes = (f"driven from the {key} sub-config (the text config does not build it)", *d.notes)
                clash = _inconsistent(by_config[id(config)])
                if clash:
                    with_finding(drivens, INCONSISTENT_DEFAULT, f"the default {type(config).__name__} (the text "
                                  f"config) is inconsistent: {clash}")  # fmt: skip
            return drivens
    repaired = _repaired(modeling, tried, candidates, lambda c: _apply_candidates(family, c), by_config)
    if repaired is not None:
        return repaired
    odd = [e for e in errors if e.startswith("the spec from the config: rotary_dim: must be even")]
    if odd:
        # defaults that no checkpoint uses: hidden_size/num_attention_heads gives an odd rotary_dim (GLM-4 MoE's
        # 4096/96 * 0.5 = 21); the family's own head_dim key set to a common size gives the model as released
        derived = _config_dict(config).get("head_dim") or getattr(config, "hidden_size", 0) // max(
            getattr(config, "num_attention_heads", 1), 1
        )
        sized = copy.deepcopy(config)
        sized.head_dim = _FALLBACK_HEAD_DIM
        drivens = _try(modeling, sized, candidates, apply_names, errors, axes)
        if drivens is not None:
            message = (
                f"the default {type(config).__name__} is inconsistent: its head_dim {derived} gives an odd "
                f"{odd[0].split('got ')[-1]} rotary dims, which no model can use"
            )
            return with_finding(drivens, INCONSISTENT_DEFAULT, message, f"driven with head_dim={_FALLBACK_HEAD_DIM}")
    raise NotDriven("; ".join(dict.fromkeys(errors)))


def all_configs(top: Any, depth: int = 3) -> list[tuple[str, Any]]:
    """Every config a composite config holds, with its path (``thinker_config.text_config``), top first, breadth
    first to ``depth`` levels of sub-configs."""
    out: list[tuple[str, Any]] = [("", top)]
    seen = {id(top)}
    frontier: list[tuple[str, Any]] = [("", top)]
    for _ in range(depth):
        nxt = []
        for path, cfg in frontier:
            for key in sorted(getattr(cfg, "sub_configs", None) or {}):
                sub = getattr(cfg, key, None)
                if sub is None or id(sub) in seen or not hasattr(sub, "to_dict"):
                    continue
                seen.add(id(sub))
                nxt.append((f"{path}.{key}" if path else key, sub))
        out += nxt
        frontier = nxt
    return out


def _mrope_axes(config: Any) -> int:
    """The number of M-RoPE axes the config declares (``mrope_section``), 0 for none: such a model is driven
    with one position row per axis, ``(axes, batch, seq)``, as the model builds them."""
    params = getattr(config, "rope_parameters", None) or {}
    flat = [v for v in params.values() if isinstance(v, dict)] if _layer_types(params) != [""] else [params]
    return max((len(p["mrope_section"]) for p in flat if isinstance(p, dict) and p.get("mrope_section")), default=0)


def config_annotation(cls: Any, *, first: bool = False) -> str:
    """The config class a rotary class's ``__init__`` says it takes (``config: Qwen3OmniMoeTalkerTextConfig``), or
    ''; with ``first``, whatever its first argument is named (``atom_config: EsmFold2AtomEncoderConfig``)."""
    try:
        params = inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):
        return ""
    param = next((q for name, q in params.items() if name != "self"), None) if first else params.get("config")
    if param is None or param.annotation is inspect.Parameter.empty:
        return ""
    a = param.annotation
    return (a if isinstance(a, str) else getattr(a, "__name__", "")).strip("'\"").split(".")[-1]


#: Rotary classes named for a vision encoder that are 1-D (read from their source): DeepSeek-OCR 2's vision encoder
#: is a decoder over its token sequence, ``position_ids = arange(seq)``, with Llama's rotary and apply function.
_ONE_D_VISION = frozenset({"DeepseekOcr2VisionRotaryEmbedding"})


def _is_vision(cls_name: str, modeling: Any = None) -> bool:
    """A vision encoder's (2-D) rotary: by its name, or, in ``modeling``, by the vision config its ``__init__``
    names (MLCD's ``MLCDRotaryEmbedding(config: MLCDVisionConfig)``)."""
    if "Text" in cls_name or cls_name in _ONE_D_VISION:
        return False
    if any(w in cls_name for w in _NOT_TEXT):
        return True
    return modeling is not None and "Vision" in config_annotation(getattr(modeling, cls_name, None))


def prepare_class(family: Family, cls_name: str) -> list[Driven]:
    """One rotary class of the family, driven from the config that builds it (the top config, its text
    config, or any sub-config: a talker's, a code-to-wave decoder's, a vision encoder's), with the module's
    apply functions. Raises :class:`NotDriven` with every reason met."""
    try:
        modeling = importlib.import_module(family.module)
        top = getattr(importlib.import_module(family.config_module), family.config_class)()
    except Exception as exc:  # the family's own code failed: the reason of the skip
        raise NotDriven(f"{type(exc).__name__}: {exc}") from exc
    text = _text_config(top)
    configs = [("", text)] + [(k, c) for k, c in all_configs(top) if c is not text]
    wanted = config_annotation(getattr(modeling, cls_name, None))
    own = [(k, c) for k, c in configs if type(c).__name__ == wanted]
    absent = None
    if wanted and not own:
        absent = _absent_sub_config(top, wanted)
        if absent is None:
            raise NotDriven(f"{cls_name} is built from a {wanted}, which the family's default config does not hold")
        own = [absent]
    errors: list[str] = []
    if absent is not None:  # the sub-config's own defaults: the one config that can build the class
        drivens = _drive_class(family, modeling, cls_name, own, errors)
        for d in drivens:
            d.notes = (
                f"the family's default config holds no {wanted} (its {absent[0]} is None): driven from {wanted}(), "
                "the sub-config's own defaults",
                *d.notes,
            )
        return drivens
    if own:  # the config its __init__ names first; the others only if that one cannot build it
        try:
            return _drive_class(family, modeling, cls_name, own, errors)
        except NotDriven:
            pass
        why = errors[0] if errors else ""
        own_errors = list(errors)  # what the config its __init__ names raised (the others' come after)
        repaired = _repaired(modeling, own, [cls_name], lambda c: _apply_candidates(family, c),
                             {id(c): own_errors for _, c in own})  # fmt: skip
        if repaired is not None:
            return repaired
        others = [(k, c) for k, c in configs if (k, c) not in own]
        drivens = _drive_class(family, modeling, cls_name, others, errors)
        for d in drivens:
            d.notes = (f"{cls_name}.__init__ names a {wanted}, whose default cannot build it ({why})", *d.notes)
        clash = _inconsistent(own_errors)
        if clash:
            with_finding(drivens, INCONSISTENT_DEFAULT, f"the default {wanted} is inconsistent: {clash}")
        return drivens
    return _drive_class(family, modeling, cls_name, configs, errors)


def build_class(family: Family, cls_name: str) -> tuple[Any, str] | None:
    """``cls_name`` built from the family's defaults, with the config path that built it (the config its
    ``__init__`` names; any config when it names none), or None when no default config builds it. Used for the
    structural checks of a class the protocol cannot drive (:mod:`.buffers`)."""
    try:
        modeling = importlib.import_module(family.module)
        top = getattr(importlib.import_module(family.config_module), family.config_class)()
    except Exception:  # the family's own code failed: its row says so already
        return None
    cls = getattr(modeling, cls_name, None)
    if cls is None:
        return None
    wanted = config_annotation(cls)
    for key, config in all_configs(top):
        if wanted and type(config).__name__ != wanted:
            continue
        try:
            return cls(config), key or "top-level"
        except Exception:  # this default does not build it: the next config may
            continue
    return None


def _absent_sub_config(top: Any, wanted: str) -> tuple[str, Any] | None:
    """``(key, config)``: the sub-config of class ``wanted`` that the top config declares (``sub_configs``) but
    leaves None by default (Gemma 4's ``vision_config``), built with its own defaults; None when it declares none."""
    for key, kind in sorted((getattr(top, "sub_configs", None) or {}).items()):
        if getattr(kind, "__name__", "") == wanted and getattr(top, key, None) is None:
            try:
                return key, kind()
            except Exception:  # its own defaults do not build: nothing to drive from
                return None
    return None


def _drive_class(
    family: Family, modeling: Any, cls_name: str, configs: list[tuple[str, Any]], errors: list[str]
) -> list[Driven]:
    """``cls_name`` driven from the first of ``configs`` that builds it; else :class:`NotDriven` with ``errors``."""
    if _is_vision(cls_name, modeling):
        found = _multidimensional_drivens(family, modeling, configs, cls_name, errors)
        found = found or _vision_drivens(family, modeling, configs, [cls_name], errors)
        if found is not None:
            return found
        raise NotDriven("; ".join([f"vision rotary embedding (2-D positions) {cls_name}", *dict.fromkeys(errors)]))
    for key, config in configs:
        drivens = _try(modeling, config, [cls_name], _apply_candidates(family, config), errors, _mrope_axes(config))
        if drivens is not None:
            where = f"the {key} sub-config" if key else f"the family's text config ({type(config).__name__})"
            for d in drivens:
                d.notes = (f"driven from {where}", *d.notes)
            return drivens
    raise NotDriven("; ".join(dict.fromkeys(errors)) or f"no config of the family builds {cls_name}")


def check_shape(run: Callable[..., Any], rope: Any, head_dim: int, positions: Any, fn_name: str) -> None:
    """``run(rope, q, positions)`` on a small q returns q's shape, or the family cannot be driven this way."""
    import torch  # heavy: imported when used

    probe = torch.randn(1, 3, 2, head_dim)
    out = run(rope, probe, positions)
    if tuple(out.shape) != tuple(probe.shape):
        raise NotDriven(f"{fn_name} returns shape {tuple(out.shape)} for q of {tuple(probe.shape)}")


def maker(
    run: Callable[..., Any], rope: Any, convention: str, cast: Callable[[Any, Any], Any] | None = None
) -> Callable[[str], Callable[..., Any]]:
    """``make(mode)``: the target ``fn(x, positions)`` that calls ``run`` with the module built or cast for ``mode``
    (``cast(module, dtype)``, ``module.to(dtype)`` on a copy unless given)."""

    def make(mode: str) -> Callable[..., Any]:
        module_for = _per_dtype(mode, rope, cast or _cast_module)

        def fn(x: Any, positions: Any) -> Any:
            return run(module_for(x.dtype), x, positions)

        fn.rope_convention = convention  # type: ignore[attr-defined]
        fn.rope_backend = "torch"  # type: ignore[attr-defined]
        return fn

    return make


def _prepare_vision(family: Family) -> list[Driven]:
    """A vision encoder's 2-D axial rotary, driven from its vision config with patch positions (h, w).

    The rotary module takes one (h, w) row per patch, ``(patches, 2)``, and returns cos/sin per patch; the spec's
    pair -> axis assignment is the reader's (``AXIAL_VISION_MODEL_TYPES``), never taken from this code.
    """
    only = f"only a vision rotary embedding (2-D positions): {', '.join(family.rotary_classes)}"
    try:
        modeling = importlib.import_module(family.module)
        top = getattr(importlib.import_module(family.config_module), family.config_class)()
    except Exception as exc:  # the family's own code failed: the reason of the skip
        raise NotDriven(f"{type(exc).__name__}: {exc}") from exc
    subs = [
        (key, sub)
        for key in sorted(getattr(top, "sub_configs", None) or {})
        if "vision" in key and (sub := getattr(top, key, None)) is not None and hasattr(sub, "to_dict")
    ]
    if "vision" in type(top).__name__.lower():
        subs.insert(0, ("", top))
    errors: list[str] = []
    found = _vision_drivens(family, modeling, subs, list(family.rotary_classes), errors)
    if found is not None:
        return found
    raise NotDriven("; ".join([only, *dict.fromkeys(errors)]))


def _vision_drivens(
    family: Family, modeling: Any, configs: list[tuple[str, Any]], classes: list[str], errors: list[str]
) -> list[Driven] | None:
    """The first of ``classes`` driven as a 2-D axial vision rotary from the first of ``configs`` the reader
    has a pair -> axis table for, with the module's vision apply function (else its plain one); else None."""
    fns = [f for f in family.apply_functions if "vision" in f] + [
        f for f in family.apply_functions if f == "apply_rotary_pos_emb"
    ]
    for key, config in configs:
        try:
            spec = RopeSpec.from_hf_config(_config_dict(config), config_key=".")
        except RopeCheckError as exc:
            errors.append(f"the spec from the {key or 'top-level'} config: {exc}")
            continue
        if spec.axes is None or len(spec.axes.axes) != 2:
            errors.append(f"the reader knows no 2-D axial layout for model_type {config.model_type!r}")
            continue
        for cls_name in classes:
            for fn_name in fns:
                try:
                    return [_drive_vision(modeling, config, spec, cls_name, fn_name, key)]
                except Exception as exc:
                    errors.append(f"{cls_name} + {fn_name}: {type(exc).__name__}: {exc}")
    return None


def _drive_vision(modeling: Any, config: Any, spec: RopeSpec, cls_name: str, fn_name: str, key: str) -> Driven:
    import torch  # heavy: imported when used

    rope = getattr(modeling, cls_name)(config)
    apply_fn = getattr(modeling, fn_name)
    heads_axis = "unsqueeze_dim" in inspect.signature(apply_fn).parameters

    def run(module: Any, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        b, s = x.shape[:2]
        patches = positions.permute(1, 2, 0).reshape(b * s, 2)  # (patches, (h, w)), as the encoder builds them
        cos, sin = module(x, patches)
        cos, sin = cos.reshape(b, s, -1), sin.reshape(b, s, -1)
        # q as (batch, seq, heads, head_dim): the vision functions unsqueeze cos at -2, the others take the axis
        out = apply_fn(x, x, cos, sin, unsqueeze_dim=2) if heads_axis else apply_fn(x, x, cos, sin)
        return (out[0] if isinstance(out, tuple) else out).to(x.dtype)

    check_shape(run, rope, spec.head_dim, torch.zeros(2, 1, 3, dtype=torch.long), fn_name)
    make = maker(run, rope, "axes")
    notes = (
        f"vision encoder only: driven from the {key or 'top-level'} config with 2-D patch positions (h, w), "
        f"{spec.axes.scheme if spec.axes else ''}",
    )
    return Driven("", spec, make, cls_name, fn_name, notes)


#: An apply function that splits the head into one part per position axis and rotates each part as rotate_half
#: does (Gemma 4's vision encoder): ``apply(x, cos, sin, position_ids)`` with position_ids ``(batch, seq, axes)``.
_MULTIDIMENSIONAL = "apply_multidimensional_rope"


def _multidimensional_drivens(
    family: Family, modeling: Any, configs: list[tuple[str, Any]], cls_name: str, errors: list[str]
) -> list[Driven] | None:
    """``cls_name`` driven with the module's :data:`_MULTIDIMENSIONAL` apply function from the first of ``configs``
    that builds it (None when the module defines no such function)."""
    if not callable(getattr(modeling, _MULTIDIMENSIONAL, None)):  # not an apply_rotary* name: not discovered
        return None
    for key, config in configs:
        try:
            return [_drive_multidimensional(modeling, config, cls_name, key)]
        except Exception as exc:
            errors.append(f"{cls_name} + {_MULTIDIMENSIONAL}: {type(exc).__name__}: {exc}")
    return None


def _drive_multidimensional(modeling: Any, config: Any, cls_name: str, key: str) -> Driven:
    """A 2-D vision rotary applied part by part: the spec is read from the config (head_dim, rope_theta; one
    shared table over head_dim/2 per axis, as the rotary's ``spatial_dim`` is), axes named (x, y) as the encoder's
    position ids hold them, and the target seen through :func:`~.channels.part_channels`."""
    import torch  # heavy: imported when used

    rope = getattr(modeling, cls_name)(config)
    apply_fn = getattr(modeling, _MULTIDIMENSIONAL)
    params = getattr(config, "rope_parameters", None) or {}
    head_dim = int(getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads)
    spec = RopeSpec(head_dim=head_dim, base=float(params["rope_theta"]), layout="half",
                    axes=axial(head_dim, "shared", names=("x", "y")))  # fmt: skip
    gather = torch.tensor(part_channels(head_dim, 2))
    scatter = torch.argsort(gather)

    def run(module: Any, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        position_ids = positions.permute(1, 2, 0)  # (batch, seq, (x, y)), as the patch embedder builds them
        cos, sin = module(x, position_ids)
        out = apply_fn(x[..., scatter], cos, sin, position_ids, unsqueeze_dim=2)  # q as (batch, seq, heads, dim)
        return out[..., gather].to(x.dtype)

    check_shape(run, rope, head_dim, torch.zeros(2, 1, 3, dtype=torch.long), _MULTIDIMENSIONAL)
    make = maker(run, rope, "axes")
    notes = (
        f"vision encoder only: driven from the {key or 'top-level'} config with 2-D patch positions (x, y), "
        f"{_MULTIDIMENSIONAL} splitting the head into an x part and a y part, each half-split within itself: "
        "judged in the spec's channel order (axial-shared, half-split over the head), the parts' channels "
        "gathered into it and back",
    )
    return Driven("", spec, make, cls_name, _MULTIDIMENSIONAL, notes)


#: A module-level table builder ``f(num_pos, rotary_dim) -> [sin | cos]`` (GPT-J, CodeGen): the attention indexes
#: the table by position, splits it into sin and cos, and calls ``apply(x_rot, sin, cos)`` on the first rotary_dim dims.
_TABLE_FUNCTION = "create_sinusoidal_positions"


def _prepare_table(family: Family) -> list[Driven] | None:
    """The family driven through its module-level sin/cos table (None when the module has none)."""
    try:
        modeling = importlib.import_module(family.module)
        make_table = getattr(modeling, _TABLE_FUNCTION, None)
        if make_table is None:
            return None
        config = _text_config(getattr(importlib.import_module(family.config_module), family.config_class)())
    except Exception as exc:  # the family's own code failed: the reason of the skip
        raise NotDriven(f"{type(exc).__name__}: {exc}") from exc
    names = [f for f in family.apply_functions if _takes_table_rows(getattr(modeling, f))]
    if not names:
        raise NotDriven(f"{_TABLE_FUNCTION} builds the table, but no apply function takes (tensor, sin, cos)")
    apply_fn = getattr(modeling, names[0])
    try:
        spec = RopeSpec.from_hf_config(_config_dict(config), config_key=".")
    except RopeCheckError as exc:
        raise NotDriven(f"the spec from the config: {exc}") from exc
    length = spec.max_position_embeddings or 2048
    r = spec.rotary_dim

    def run(table: Any, x: Any, positions: Any) -> Any:
        import torch  # heavy: imported when used

        sincos = table[positions].to(x.dtype)  # (batch, seq, rotary_dim), as the attention gathers it
        sin, cos = torch.split(sincos, sincos.shape[-1] // 2, dim=-1)
        return _apply_rows(apply_fn, x, sin, cos, r)

    # the model's buffer, float32 as built; cast as model.to(dtype) casts it
    make = maker(run, make_table(length, r), "positions")
    note = (
        f"no rotary module: the attention indexes {_TABLE_FUNCTION}({length}, {r}) by position and calls "
        f"{names[0]}(q[..., :{r}], sin, cos); the rest of the head passes through; judged over the table's "
        f"{length} positions (the model's context)"
    )
    return [Driven("", spec, make, _TABLE_FUNCTION, names[0], (note,), max_position=length)]


def _apply_rows(apply_fn: Callable[..., Any], x: Any, sin: Any, cos: Any, r: int) -> Any:
    """``apply(x[..., :r], sin, cos)`` with the rest of the head passed through, as GPT-J's attention calls it
    (q is ``(batch, seq, heads, head_dim)`` there)."""
    import torch  # heavy: imported when used

    return torch.cat([apply_fn(x[..., :r], sin, cos), x[..., r:]], dim=-1).to(x.dtype)


def _takes_table_rows(apply_fn: Callable[..., Any]) -> bool:
    """``apply(tensor, sin, cos)``: one tensor and the gathered rows of a ``[sin | cos]`` table (GPT-J, CodeGen)."""
    return list(inspect.signature(apply_fn).parameters)[:3] == ["tensor", "sin", "cos"]


def _drive_sin_cos(rope: Any, apply_fn: Callable[..., Any], cfg_dict: dict[str, Any], cls: str, fn: str) -> Driven:
    """A rotary module that gathers its ``[sin | cos]`` table by position and returns ``(sin, cos)`` -- in that
    order -- for ``apply(x_rot, sin, cos)``; the attention rotates the first rotary_dim dims and passes the rest."""
    import torch  # heavy: imported when used

    spec = RopeSpec.from_hf_config(cfg_dict, config_key=".")
    r = spec.rotary_dim
    length = int(getattr(rope, "max_positions", 0) or spec.max_position_embeddings or 2048)

    def run(module: Any, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        sin, cos = module(x, positions)  # (batch, seq, rotary_dim / 2) each
        return _apply_rows(apply_fn, x, sin, cos, r)

    check_shape(run, rope, spec.head_dim, torch.arange(3)[None], fn)
    make = maker(run, rope, "positions")
    note = (
        f"{cls} returns (sin, cos), gathered from its {length}-row table, and the attention calls "
        f"{fn}(q[..., :{r}], sin, cos); the rest of the head passes through; judged over the table's "
        f"{length} positions (the model's context)"
    )
    return Driven("", spec, make, cls, fn, (note,), max_position=length)


def _try(
    modeling: Any, config: Any, candidates: list[str], apply_names: list[str], errors: list[str], axes: int = 0
) -> Any:
    """The drivens of the first rotary class and apply function that work with ``config``, else None."""
    params = getattr(config, "rope_parameters", None) or {}
    cfg_dict = _config_dict(config)
    for cls_name in candidates:
        try:
            rope = getattr(modeling, cls_name)(config)
        except Exception as exc:
            errors.append(f"{cls_name}(config): {type(exc).__name__}: {exc}")
            continue
        for fn_name in apply_names:
            apply_fn = getattr(modeling, fn_name)
            try:
                if _takes_table_rows(apply_fn):
                    return [_drive_sin_cos(rope, apply_fn, cfg_dict, cls_name, fn_name)]
                _check_params(apply_fn)
                return [
                    _drive(rope, apply_fn, _layer_config(config, lt, cfg_dict), lt, cls_name, fn_name, axes)
                    for lt in _layer_types(params, rope)
                ]
            except NotDriven as exc:
                errors.append(str(exc))
            except RopeCheckError as exc:
                errors.append(f"the spec from the config: {exc}")
            except Exception as exc:
                errors.append(f"{cls_name} + {fn_name}: {type(exc).__name__}: {exc}")
    return None


def _drive(
    rope: Any,
    apply_fn: Callable[..., Any],
    cfg_dict: dict[str, Any],
    layer_type: str,
    cls_name: str,
    fn_name: str,
    axes: int = 0,
) -> Driven:
    """One layer type of a family; ``axes`` > 0: M-RoPE, called with positions ``(axes, batch, seq)``."""
    import torch  # heavy: imported when used

    spec = RopeSpec.from_hf_config(cfg_dict, layer_type=layer_type or "full_attention", config_key=".")
    if axes and (spec.axes is None or len(spec.axes.axes) != axes):
        raise NotDriven(f"the spec from the config has no {axes}-axis M-RoPE the positions could drive")
    x = torch.randn(1, 3, 2, spec.head_dim)
    positions = torch.arange(3)[None]
    if axes:
        positions = torch.stack([positions * (a + 1) for a in range(axes)])  # distinct per axis
    cos, sin = _call_rope(rope, x, positions, layer_type)
    split = sin is not None and cos.shape[-1] < spec.head_dim
    notes: list[str] = []
    heads_first = True
    if sin is None:
        try:
            _apply(apply_fn, x, cos, sin, False)
        except Exception:
            heads_first = False
            notes.append(f"{fn_name} is called with q as (batch, seq, heads, head_dim), as the model calls it")
    if split:
        try:  # the function splits off the rotary dims itself (NeoX-style), or the attention layer does
            _apply(apply_fn, x, cos, sin, split=False)
            split = False
        except Exception:
            notes.append(
                f"partial rotary: the first {cos.shape[-1]} dims rotated, the rest passed, as the attention layer does"
            )
    out = _apply(apply_fn, x, cos, sin, split, heads_first)
    if tuple(out.shape) != tuple(x.shape):
        raise NotDriven(
            f"{fn_name} returns shape {tuple(out.shape)} for q of {tuple(x.shape)} (head_dim {spec.head_dim})"
        )
    if fn_name.endswith("_interleave"):
        # it de-interleaves q's dims (evens, then odds) before a half-split rotation, and k's alike: the
        # interleaved pairs written back half-split, a convention of the spec (q.k is unchanged)
        spec = spec.with_(layout="interleaved", output_layout="half")
        notes.append(
            f"{fn_name} rotates interleaved pairs and returns them half-split (k alike, so q.k is unchanged): "
            "the spec's output_layout"
        )

    def run(module: Any, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        return _apply(apply_fn, x, *_call_rope(module, x, positions, layer_type), split, heads_first)

    make = maker(run, rope, "axes" if axes else "positions")
    if axes:
        notes.append(
            f"M-RoPE: driven with {axes} position rows (axes, batch, seq), {spec.axes.scheme if spec.axes else ''}"
        )
    elif str(cfg_dict.get("model_type", "")).lower() not in INTERLEAVED_MODEL_TYPES and spec.layout == "half":
        # a config does not say how its dims pair up (the reader knows it only for the model types it lists):
        # take the pairing the code uses when it is interleaved, and say so
        try:
            ident = identify(as_implementation(make("fp32")), spec.head_dim, max_position=64)
        except Exception:
            ident = None
        if ident is not None and ident.layout == "interleaved":
            spec = spec.with_(layout="interleaved")
            notes.append("layout interleaved: taken from the code (the config does not declare the pairing)")
    return Driven(layer_type, spec, make, cls_name, fn_name, tuple(notes))


def code_path(family: Family, driven: Driven) -> str:
    """A short hash of the code a verdict runs: the rotary class's ``forward`` and default frequencies, and the
    apply function, with docstrings, comments and the family's class-name prefix left out -- clones share it."""
    modeling = importlib.import_module(family.module)
    cls: Any = getattr(modeling, driven.rotary_class)
    suffix = "RotaryEmbedding"
    prefix = driven.rotary_class[: -len(suffix)] if driven.rotary_class.endswith(suffix) else ""
    table = (
        (cls,) if not inspect.isclass(cls) else (cls.forward, getattr(cls, "compute_default_rope_parameters", None))  # type: ignore[attr-defined]
    )
    parts = []
    for obj in (*table, getattr(modeling, driven.apply_function)):
        if obj is None:
            continue
        text = source_without_docstrings(obj)
        if text is None:
            parts.append(repr(obj))
            continue
        parts.append(text.replace(prefix, "X") if prefix else text)
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:10]


def source_without_docstrings(obj: Any) -> str | None:
    """``obj``'s source as its syntax tree prints it, docstrings and comments left out (what two clones share
    however they are documented), or None when it has no source to read."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(obj)))
    except (OSError, TypeError, SyntaxError):
        return None
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]  # type: ignore[attr-defined]
    return ast.unparse(tree)
