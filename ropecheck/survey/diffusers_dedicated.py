"""Rotaries with a driver of their own (:data:`DEDICATED`), each built and called as its one model does.

Kolors' text encoder rotary (ChatGLM's, ``diffusers.pipelines.kolors.text_encoder``): no transformer model builds
this rotary: ``ChatGLMModel.__init__`` does, from a ``ChatGLMConfig``, as
``RotaryEmbedding(rotary_dim // 2, original_impl=config.original_rope)`` with ``rotary_dim`` the config's
``kv_channels`` (else ``hidden_size // num_attention_heads``). Its forward builds the table of positions
``0..seq_length-1`` (``forward(self.seq_length)``), the model indexes it by ``position_ids`` and moves the
sequence first, and every attention layer calls ``apply_rotary_pos_emb(q, rope_cache)`` on q as
``(seq, batch, heads, head_dim)``: the first ``2 * pairs`` dims rotated, pairs of adjacent dims (``reshape(...,
rot_dim // 2, 2)``, a table stacked as ``(cos, sin)`` per pair), the rest passing through. So the driver builds the
model (its sizes the rotary never reads shrunk) and takes the rotary it built; the reading above is checked against
the source, and a source that no longer says it is :class:`~.drive.NotDriven`.

``ChatGLMConfig()`` defines no ``original_rope``, which ``ChatGLMModel`` reads: its default config cannot build the
model, a ``config/default_unrunnable`` finding, driven with the smallest repair (the rotary stores the value as
``original_impl`` and its forward never reads it).

Lumina 2's ``Lumina2RotaryPosEmbed`` builds its positions itself, from the caption's attention mask and the latent
(``forward(hidden_states, attention_mask)``): with an all-ones mask of ``C`` tokens, its source gives caption token
``k`` the position ``(k, 0, 0)`` and the image token in row ``h``, column ``w`` of the patch grid ``(C, h, w)``,
returned in row-major order as ``img_freqs_cis`` (the joint ``freqs_cis`` holds the same rows after the caption's).
So the token asked at ``(t, h, w)`` takes row ``h * W + w`` of the image rows of a call with ``C = t``: one call per
frame position asked, on a patch grid that holds every h and w asked for.

Design constraints: runs in a worker (imports diffusers); torch imported lazily.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from typing import Any

from ..axes import axial
from ..spec import RopeSpec
from .drive import DEFAULT_UNRUNNABLE, Driven, NotDriven, check_shape, maker, with_finding

__all__ = ["DEDICATED", "prepare_chatglm", "prepare_lumina2"]

#: ChatGLMConfig's sizes the rotary never reads (it reads kv_channels and seq_length), shrunk so the model builds
#: in a few megabytes; num_attention_heads * kv_channels stays the attention's width.
_SHRUNK = {"num_layers": 1, "padded_vocab_size": 8, "ffn_hidden_size": 8, "hidden_size": 256, "num_attention_heads": 2}
#: The repair of the default config: the attribute ChatGLMModel reads and ChatGLMConfig() leaves undefined.
_REPAIR = ("original_rope", True)
#: What the source must say for the reading in this module's docstring to hold.
_SOURCE_READS = {
    "apply_rotary_pos_emb": ("rot_dim = rope_cache.shape[-2] * 2", "x.reshape(sq, -1, np, rot_dim // 2, 2)"),
    "RotaryEmbedding": ("torch.stack([torch.cos(idx_theta), torch.sin(idx_theta)], dim=-1)", "base: int = 10000"),
}


def _check_source(module: Any) -> None:
    """:class:`NotDriven` unless each definition of :data:`_SOURCE_READS` says what the reading takes from it (read
    from the module's text: ``apply_rotary_pos_emb`` is a ``torch.jit.script`` function, which ``inspect`` cannot
    read alone)."""
    tree = ast.parse(text := inspect.getsource(module))
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    for name, needles in _SOURCE_READS.items():
        if name not in defs:
            raise NotDriven(f"{module.__name__} defines no {name}")
        source = ast.get_source_segment(text, defs[name]) or ""
        missing = [n for n in needles if n not in source]
        if missing:
            raise NotDriven(f"{name}'s source no longer says {missing[0]!r}: its pairing is not read")


def _build(module: Any) -> tuple[Any, str | None]:
    """ChatGLMModel from ChatGLMConfig's defaults (sizes the rotary never reads shrunk), and the error its default
    config raised where the repair :data:`_REPAIR` was needed (None when it built as it is)."""
    config = module.ChatGLMConfig(**_SHRUNK)
    try:
        return module.ChatGLMModel(config), None
    except AttributeError as exc:
        if _REPAIR[0] not in str(exc):
            raise NotDriven(f"ChatGLMModel(ChatGLMConfig()): {type(exc).__name__}: {exc}") from exc
        setattr(config, *_REPAIR)
        return module.ChatGLMModel(config), f"{type(exc).__name__}: {exc}"


def prepare_chatglm(module: Any, construction: tuple[dict[str, Any], str]) -> list[Driven]:
    """The rotary ChatGLMModel builds, its table indexed by position as the model indexes it, q rotated by
    ``apply_rotary_pos_emb`` as its attention calls it (``construction`` is not read: the model builds it from a
    config, which :func:`_build` takes)."""
    import torch  # heavy: imported when used

    _check_source(module)
    model, error = _build(module)
    rope, length = model.rotary_pos_emb, int(model.seq_length)
    head = int(model.encoder.layers[0].self_attention.hidden_size_per_attention_head)
    rotary = 2 * int(rope(1).shape[-2])  # the apply's rot_dim: rope_cache.shape[-2] * 2
    base = float(inspect.signature(rope.forward_impl).parameters["base"].default)
    spec = RopeSpec(head_dim=head, rotary_dim=rotary, base=base, layout="interleaved")
    apply = module.apply_rotary_pos_emb

    def run(table_module: Any, x: Any, positions: Any) -> Any:
        cache = table_module(length)[positions].transpose(0, 1).contiguous()  # as ChatGLMModel.forward does
        return apply(x.transpose(0, 1), cache).transpose(0, 1).to(x.dtype)  # q as (seq, batch, heads, head_dim)

    check_shape(run, rope, head, torch.arange(3)[None], "apply_rotary_pos_emb")
    notes = (
        f"built by ChatGLMModel from ChatGLMConfig's defaults (kv_channels {head}: RotaryEmbedding({rotary // 2}); "
        f"sizes the rotary never reads shrunk: {', '.join(f'{k}={v}' for k, v in _SHRUNK.items())})",
        f"spec: 1-D, {rotary} of the {head}-dim head rotated (the rest pass through), base {base:g} (forward_impl's "
        "default; its inv_freq buffer is never read), pairs of adjacent dims (`reshape(..., rot_dim // 2, 2)`)",
        f"its table over seq_length {length} positions indexed by position_ids and moved sequence-first, as "
        f"ChatGLMModel.forward does; q rotated by apply_rotary_pos_emb as (seq, batch, heads, head_dim): judged over "
        f"0..{length - 1}",
        "cast: module.to(dtype) casts inv_freq, and forward_impl rounds the whole table to bfloat16/float16 when it "
        "is (`cache.bfloat16()` / `cache.half()`, 'to mimic the behaviour of complex32')",
    )
    driven = Driven("", spec, maker(run, rope, "positions"), "RotaryEmbedding", "apply_rotary_pos_emb", notes,
                    max_position=length)  # fmt: skip
    if error is None:
        return [driven]
    message = f"ChatGLMModel(ChatGLMConfig()) cannot build: {error} (ChatGLMConfig defines no {_REPAIR[0]})"
    repair = f"driven with the smallest repair: {_REPAIR[0]}={_REPAIR[1]} (stored as original_impl, never read)"
    return with_finding([driven], DEFAULT_UNRUNNABLE, message, repair)


#: Patches per side of the grid Lumina 2 is driven on: every h and w a verdict asks for (positions 0..side-1).
_LUMINA2_SIDE = 32
#: What Lumina 2's source must say for the position reading in this module's docstring to hold.
_LUMINA2_READS = (
    "position_ids[i, :cap_seq_len, 0] = torch.arange(cap_seq_len",
    "position_ids[i, cap_seq_len:seq_len, 0] = cap_seq_len",
    "position_ids[i, cap_seq_len:seq_len, 1] = row_ids",
    "position_ids[i, cap_seq_len:seq_len, 2] = col_ids",
    "img_freqs_cis[i, :image_seq_len] = freqs_cis[i, cap_seq_len:seq_len]",
)


def prepare_lumina2(module: Any, construction: tuple[dict[str, Any], str]) -> list[Driven]:
    """Lumina 2's rotary built as its model builds it, called with an all-ones caption mask of ``t`` tokens per frame
    position ``t`` asked, each token's image row gathered; q rotated by ``apply_rotary_emb(..., use_real=False)`` as
    its attention processor calls it."""
    import torch  # heavy: imported when used

    args, source = construction
    cls = module.Lumina2RotaryPosEmbed
    text = inspect.getsource(cls)
    missing = [n for n in _LUMINA2_READS if n not in text]
    if missing:
        raise NotDriven(f"Lumina2RotaryPosEmbed's source no longer says {missing[0]!r}: its positions are not read")
    rope = cls(**args)
    dims, theta, p, side = tuple(rope.axes_dim), float(rope.theta), int(rope.patch_size), _LUMINA2_SIDE
    if any(n < side for n in rope.axes_lens):
        raise NotDriven(f"axes_lens {tuple(rope.axes_lens)}: a table shorter than the {side} positions driven")
    names = ("t", "h", "w")
    spec = RopeSpec(head_dim=sum(dims), base=theta, layout="interleaved",
                    axes=axial(sum(dims), "split", names=names, sections=tuple(d // 2 for d in dims)))  # fmt: skip
    apply = module.apply_rotary_emb
    cache: dict[tuple[int, int], Any] = {}

    def image_rows(table_module: Any, t: int) -> Any:
        key = (id(table_module), t)
        if key not in cache:
            latent = torch.zeros(1, 1, side * p, side * p)
            cache[key] = table_module(latent, torch.ones(1, t, dtype=torch.long))[2][0]  # img_freqs_cis
        return cache[key]

    def run(table_module: Any, x: Any, positions: Any) -> Any:
        outs = []
        for b in range(x.shape[0]):
            pos = positions[:, b, :].long()
            rows = torch.zeros(pos.shape[1], sum(dims) // 2, dtype=torch.complex128)
            for t in pos[0].unique().tolist():
                at = pos[0] == t
                rows[at] = image_rows(table_module, t)[pos[1, at] * side + pos[2, at]].to(rows.dtype)
            outs.append(apply(x[b : b + 1], rows[None], use_real=False))
        return torch.cat(outs).to(x.dtype)

    check_shape(run, rope, sum(dims), torch.arange(3).repeat(3, 1)[:, None, :], "apply_rotary_emb")
    notes = (
        f"built with {source}",
        f"spec: axes_dim {dims} (t, h, w), each its own interleaved table (`get_1d_rotary_pos_embed`, complex), "
        f"theta {theta:g}",
        "positions as its forward builds them from an all-ones caption mask of C tokens: caption token k at (k, 0, 0), "
        "the image token in row h, column w at (C, h, w), returned row-major as img_freqs_cis (the joint freqs_cis "
        "holds the same rows after the caption's): the token asked at (t, h, w) is row h * W + w of a call with C = t",
        f"a {side * p}x{side * p} latent (a {side}x{side} patch grid, patch_size {p}), positions 0..{side - 1} on "
        "every axis; q rotated by apply_rotary_emb(..., use_real=False) on (batch, seq, heads, head_dim), as "
        "Lumina2AttnProcessor2_0 does; the caption rows (k, 0, 0) come from the same tables and are not judged apart",
        "cast: its tables are a plain list (`freqs_cis`), not buffers: module.to(dtype) leaves them complex128",
    )
    make = maker(run, rope, "axes")
    return [Driven("", spec, make, "Lumina2RotaryPosEmbed", "apply_rotary_emb", notes, max_position=side)]


#: Rotaries with a driver of their own, by (module, class): ``prepare(module, (the constructor's arguments, where
#: they come from))``, built and called as their one model does.
DEDICATED: dict[tuple[str, str], Callable[[Any, tuple[dict[str, Any], str]], list[Driven]]] = {
    ("diffusers.pipelines.kolors.text_encoder", "RotaryEmbedding"): prepare_chatglm,
    ("diffusers.models.transformers.transformer_lumina2", "Lumina2RotaryPosEmbed"): prepare_lumina2,
}
