"""Targets that rotate a query and a key together, as real attention code does.

Three shapes are recognised from the signature (parameter names, as the libraries spell them):

* ``fn(positions, query, key)`` -- vLLM's ``RotaryEmbedding.forward``: tokens flattened, positions
  ``(tokens,)``, the heads folded into the last dim (``(tokens, heads * head_dim)``); returns ``(q, k)``;
* ``fn(q, k, positions)`` -- q and k ``(batch, seq, heads, head_dim)`` or ``(batch, heads, seq, head_dim)``,
  positions ``(batch, seq)``; which layout is found by probing (:func:`probe_layout`), never by a flag;
* ``apply(q, k, cos, sin, ...)`` with a rotary module ``rotary(x, position_ids) -> (cos, sin)`` -- the
  Hugging Face pair; :func:`pair_from_cos_sin` makes it the previous shape, the module found beside the
  function (:func:`find_rotary`) or named.

Each is judged through canonical one-tensor views made here, where the target runs (:func:`side_view`): the
query side (x as the query, a fixed other tensor as the key), the key side, and the pair (x's heads split into
a query half and a key half), so every check of the one-tensor verifier runs on each side, and the judge
compares the two (:mod:`ropecheck.verify.qk`). The views only route arguments: every number is the target's.

Design constraints: torch imported when a view is called; no reference is computed here.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import ModuleType
from typing import Any

from .errors import UsageError

__all__ = [
    "QK_KINDS",
    "build_rotary",
    "find_rotary",
    "pair_from_cos_sin",
    "pair_kind",
    "probe_layout",
    "qk_kind",
    "side_view",
]

#: the q/k shapes: vLLM's flattened tokens, and q, k with positions (batch-first, layout probed)
QK_KINDS = ("positions_query_key", "query_key_positions")
_Q = {"q", "query", "xq", "q_states", "query_states", "q_embed"}
_K = {"k", "key", "xk", "k_states", "key_states", "k_embed"}
_POS = {"positions", "position_ids", "pos", "input_pos", "position", "pos_ids"}
_OTHER_SEED = 20240607  # the fixed tensor on the side not being judged


def _names(fn: Callable[..., Any]) -> list[str]:
    """The positional parameter names, lower-cased (a torch module's are its ``forward``'s)."""
    for owner in (fn, getattr(fn, "forward", None)):
        if owner is None:
            continue
        try:
            params = list(inspect.signature(owner).parameters.values())
        except (TypeError, ValueError):
            continue
        named = [p.name.lower() for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if named or not any(p.kind == p.VAR_POSITIONAL for p in params):
            return named
    return []


def qk_kind(fn: Callable[..., Any]) -> str | None:
    """Which q/k shape ``fn``'s signature has (:data:`QK_KINDS`), ``"cos_sin"`` for ``apply(q, k, cos, sin)``
    (it needs a rotary module first), or None for a one-tensor target.

    Example:
        >>> qk_kind(lambda positions, query, key: (query, key)), qk_kind(lambda x, positions: x)
        ('positions_query_key', None)
    """
    names = _names(fn)
    if len(names) >= 3 and names[0] in _POS and names[1] in _Q and names[2] in _K:
        return "positions_query_key"
    if len(names) >= 3 and names[0] in _Q and names[1] in _K and names[2] in _POS:
        return "query_key_positions"
    if len(names) >= 4 and names[0] in _Q and names[1] in _K and names[2] == "cos" and names[3] == "sin":
        return "cos_sin"
    return None


def pair_kind(fn: Callable[..., Any]) -> str | None:
    """:func:`qk_kind` for a target about to be judged: one of :data:`QK_KINDS`, or None for a one-tensor target.

    Raises :class:`~ropecheck.errors.UsageError` for ``apply(q, k, cos, sin)``: it is judged with its rotary
    module (``--rotary``, or :func:`pair_from_cos_sin` in Python)."""
    kind = qk_kind(fn)
    if kind == "cos_sin":
        raise UsageError(
            "an apply(q, k, cos, sin) function is judged with the rotary module that makes cos and sin: name it "
            "with --rotary module:attr, or in Python verify ropecheck.qk.pair_from_cos_sin(apply, rotary)"
        )
    return kind


def pair_from_cos_sin(apply: Callable[..., Any], rotary: Callable[..., Any]) -> Callable[..., Any]:
    """``fn(q, k, positions)`` from the Hugging Face pair: ``cos, sin = rotary(q, positions)`` (the module reads
    only x's dtype and device), then ``apply(q, k, cos, sin)`` with its own defaults (``unsqueeze_dim=1``)."""

    def q_k_positions(q: Any, k: Any, position_ids: Any) -> Any:
        cos, sin = rotary(q, position_ids)
        return apply(q, k, cos, sin)

    q_k_positions.__name__ = getattr(apply, "__name__", "apply")
    return q_k_positions


def _is_module_class(obj: Any) -> bool:
    return inspect.isclass(obj) and "rotary" in obj.__name__.lower() and callable(getattr(obj, "forward", None))


def find_rotary(module: ModuleType, spec: Any, config: dict[str, Any] | None = None) -> tuple[Any, str]:
    """The rotary module beside an ``apply(q, k, cos, sin)`` function, and what was used, in words.

    Looked for in ``module``, in this order: an instance whose class name holds "Rotary"; a class named
    that way built from ``config`` (an HF config dict, with the config class the module imports) or from the
    spec's fields by their usual parameter names (``dim``/``head_dim``, ``base``/``theta``,
    ``max_position_embeddings``). Raises :class:`~ropecheck.errors.UsageError` saying how to name one.
    """
    instances = [
        (name, obj)
        for name, obj in vars(module).items()
        if not name.startswith("_") and not inspect.isclass(obj) and "rotary" in type(obj).__name__.lower()
        and callable(obj)
    ]  # fmt: skip
    if len(instances) == 1:
        return instances[0][1], f"the rotary module {instances[0][0]} beside it"
    classes = [(name, obj) for name, obj in vars(module).items() if _is_module_class(obj)]
    if len(instances) > 1 or len(classes) > 1:
        found = ", ".join(n for n, _ in instances or classes)
        raise UsageError(f"more than one rotary module beside the apply function ({found}): name one with --rotary")
    if not classes:
        raise UsageError(
            "an apply(q, k, cos, sin) function needs the rotary module that makes cos and sin: none was found "
            "beside it; name one with --rotary module:attr (an instance, a class, or a function returning one)"
        )
    return build_rotary(classes[0][1], spec, config, module), f"{classes[0][0]} built beside it"


def build_rotary(obj: Any, spec: Any, config: dict[str, Any] | None, module: ModuleType | None = None) -> Any:
    """An instance of the rotary class ``obj`` (an instance, or a function returning one, is returned/called)."""
    if not inspect.isclass(obj):
        if callable(obj) and not _names(obj) and not hasattr(obj, "forward"):
            return obj()  # a factory
        return obj
    cls: Any = obj
    params = inspect.signature(cls.__init__).parameters
    if "config" in params:
        return cls(_config(cls, spec, config, module))
    values = {
        "dim": spec.rotary_dim,
        "head_dim": spec.head_dim,
        "rotary_dim": spec.rotary_dim,
        "base": spec.base,
        "theta": spec.base,
        "rope_theta": spec.base,
        "max_position_embeddings": spec.max_position_embeddings or 4096,
        "max_seq_len": spec.max_position_embeddings or 4096,
    }
    kwargs = {name: values[name] for name in params if name in values}
    missing = [
        n for n, p in params.items()
        if n != "self" and p.default is p.empty and n not in kwargs and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]  # fmt: skip
    if missing:
        raise UsageError(
            f"cannot build {obj.__name__}: its parameters {', '.join(missing)} have no value from the spec; "
            "name an instance with --rotary module:attr"
        )
    return cls(**kwargs)


def _config(cls: Any, spec: Any, config: dict[str, Any] | None, module: ModuleType | None) -> Any:
    if config is None:
        raise UsageError(
            f"{cls.__name__} is built from a model config: give --hf-config PATH, or name an instance with --rotary"
        )
    names = vars(module) if module is not None else {}
    configs = [o for n, o in names.items() if inspect.isclass(o) and n.endswith("Config")]
    if len(configs) != 1:
        raise UsageError(
            f"{cls.__name__} takes a config, and the config class beside it is not one "
            f"({len(configs)} found): name an instance with --rotary"
        )
    return configs[0](**config)


def _torch() -> Any:
    import torch  # heavy: imported when a view is called

    return torch


def _other_like(x: Any) -> Any:
    """The fixed tensor on the side not judged: the same values for every call of one shape."""
    torch = _torch()
    gen = torch.Generator().manual_seed(_OTHER_SEED)
    return torch.randn(tuple(x.shape), generator=gen, dtype=torch.float32).to(dtype=x.dtype, device=x.device)


def _call_pair(fn: Callable[..., Any], kind: str, layout: str, q: Any, k: Any, positions: Any) -> tuple[Any, Any]:
    """The target on q and k given ``(batch, seq, heads, head_dim)``, its outputs back in that layout."""
    b, s, h, d = q.shape
    if kind == "positions_query_key":
        out = fn(positions.reshape(-1), q.reshape(b * s, h * d), k.reshape(b * s, k.shape[2] * d))
        oq, ok = _two(out)
        return oq.reshape(q.shape), ok.reshape(k.shape)
    if layout == "bhsd":
        oq, ok = _two(fn(q.transpose(1, 2), k.transpose(1, 2), positions))
        return oq.transpose(1, 2), ok.transpose(1, 2)
    return _two(fn(q, k, positions))


def _two(out: Any) -> tuple[Any, Any]:
    if not isinstance(out, (tuple, list)) or len(out) < 2:
        raise TypeError(f"a q/k target must return (q, k); got {type(out).__name__}")
    return out[0], out[1]


def probe_layout(fn: Callable[..., Any], kind: str, head_dim: int) -> str:
    """``"tokens"`` for vLLM's flattened shape; else ``"bshd"`` or ``"bhsd"``: the layout in which one vector
    at every token and head comes back the same across the heads and different along the sequence.

    Raises :class:`~ropecheck.errors.UsageError` when neither or both layouts behave so (the target's own
    exceptions in each layout are named)."""
    if kind == "positions_query_key":
        return "tokens"
    torch = _torch()
    v = torch.linspace(-1.0, 1.0, head_dim, dtype=torch.float32) + 0.25
    x = v.expand(1, 5, 3, head_dim).contiguous()  # seq 5, heads 3: the two axes cannot be confused
    positions = torch.tensor([[0, 1, 7, 30, 100]])
    fits, why = [], []
    for layout in ("bshd", "bhsd"):
        try:
            q, k = _call_pair(fn, kind, layout, x.clone(), x.clone(), positions)
            q, k = q.detach().float(), k.detach().float()
        except Exception as exc:  # the target's own error in this layout: the other one may fit
            why.append(f"{layout}: {type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}")
            continue
        if tuple(q.shape) != tuple(x.shape):
            why.append(f"{layout}: returned shape {tuple(q.shape)}")
            continue
        same_heads = bool((q - q[:, :, :1]).abs().max() <= 1e-6 * (1 + q.abs().max()))
        varies = bool((q[:, 1:] - q[:, :1]).abs().max() > 1e-4)
        if same_heads and varies:
            fits.append(layout)
        else:
            why.append(f"{layout}: the output does not vary along the sequence alone")
    if len(fits) == 1:
        return fits[0]
    if not fits:
        raise UsageError(
            "cannot tell whether q and k are (batch, seq, heads, head_dim) or (batch, heads, seq, head_dim): "
            + "; ".join(why)
        )
    raise UsageError("q and k behave alike as (batch, seq, heads, dim) and (batch, heads, seq, dim): cannot tell")


def side_view(fn: Callable[..., Any], kind: str, layout: str, side: str) -> Callable[..., Any]:
    """A canonical ``view(x, positions)`` (x ``(batch, seq, heads, head_dim)``) of one side of a q/k target:
    ``"query"`` (x as the query, a fixed tensor as the key), ``"key"``, or ``"pair"`` (x's first half of heads
    the query, the second half the key; both outputs, in that order)."""
    if side not in ("query", "key", "pair"):
        raise UsageError(f"side must be query, key or pair, got {side!r}")

    def view(x: Any, positions: Any) -> Any:
        if side == "pair":
            h = x.shape[2] // 2
            oq, ok = _call_pair(fn, kind, layout, x[:, :, :h], x[:, :, h:], positions)
            return _torch().cat([oq, ok], dim=2)
        other = _other_like(x)
        q, k = (x, other) if side == "query" else (other, x)
        oq, ok = _call_pair(fn, kind, layout, q, k, positions)
        return oq if side == "query" else ok

    view.__name__ = f"{getattr(fn, '__name__', type(fn).__name__)}[{side}]"
    return view
