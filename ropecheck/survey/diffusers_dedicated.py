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

AnyFlow's two rotaries (``AnyFlowRotaryPosEmbed``, ``AnyFlowCausalRotaryPosEmbed``) take a layout dict, not
positions. Their source concatenates, per token of a ``(total_frames, H, W)`` grid, frame ``t``'s row of the
t table, row ``h`` of the h table and row ``w`` of the w table (``freqs[0][:ppf].view(ppf, 1, 1, -1)`` ...),
flattened row-major, as the model's ``patch_embedding(...).flatten(2)`` flattens the latents: the token asked at
``(t, h, w)`` is row ``(t * H + h) * W + w`` of one call on a grid holding every position asked. The causal class
puts its compressed-context frames first, with average-pooled tables (no spec of that form): driven with none
(``num_compressed_frames`` 0, the layout its model builds while fewer chunks than ``full_chunk_limit`` are cached),
its rows are the full-resolution grid's alone.

Qwen-Image 2.1's ``QwenImage21Rope`` takes the image shapes and the image-pad mask of the joint sequence: with one
image block after ``C`` text tokens, its source gives text token ``k`` the position ``(k, k, k)`` and the block's
token in row ``r``, column ``c`` of an ``H x W`` grid ``(C, r - (H - H // 2), c - (W - W // 2))`` (the frame axis
frozen at the text cursor, h and w centred). On a grid of ``2 * side`` a side the token asked at ``(t, h, w)``,
h and w in ``0..side-1``, is row ``C + (h + side) * W + (w + side)`` of a call with ``C = t``: one call per frame
position asked.

Design constraints: runs in a worker (imports diffusers); torch imported lazily.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from typing import Any

from ..axes import axial
from ..spec import RopeSpec
from .diffusers_fractional import FRACTIONAL
from .drive import DEFAULT_UNRUNNABLE, Driven, NotDriven, check_shape, maker, with_finding

__all__ = [
    "DEDICATED",
    "prepare_anyflow",
    "prepare_anyflow_causal",
    "prepare_chatglm",
    "prepare_lumina2",
    "prepare_qwenimage21",
]

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


def _check_reads(cls: Any, reads: tuple[str, ...]) -> None:
    """:class:`NotDriven` unless ``cls``'s source says each line the position reading takes from it."""
    text = inspect.getsource(cls)
    missing = [n for n in reads if n not in text]
    if missing:
        raise NotDriven(f"{cls.__name__}'s source no longer says {missing[0]!r}: its positions are not read")


#: Tokens per side of the grids the layout-built rotaries are driven on (positions 0..side-1 on every axis).
_LAYOUT_SIDE = 32
#: What AnyFlow's full-frame grid must say for the reading in this module's docstring to hold (both classes).
_ANYFLOW_READS = (
    "freqs_f = freqs[0][:ppf].view(ppf, 1, 1, -1).expand(ppf, pph, ppw, -1)",
    "freqs_h = freqs[1][:pph].view(1, pph, 1, -1).expand(ppf, pph, ppw, -1)",
    "freqs_w = freqs[2][:ppw].view(1, 1, ppw, -1).expand(ppf, pph, ppw, -1)",
    "freqs = torch.cat([freqs_f, freqs_h, freqs_w], dim=-1)",
    "self.attention_head_dim // 2 - 2 * (self.attention_head_dim // 6)",
    "use_real=False",
)
#: The causal class's extra: the compressed frames' rows first, then the full frames' past them.
_ANYFLOW_CAUSAL_READS = (
    'full_frame_freqs[far_cfg["num_compressed_frames"] :]',
    "freqs = torch.cat([compressed_frame_freqs, full_frame_freqs], dim=0)",
)


def _anyflow_layout(rope: Any, side: int) -> dict[str, Any]:
    """The layout dict for a ``side``-cubed grid of full-resolution frames (the causal class: no compressed ones)."""
    layout: dict[str, Any] = {"total_frames": side, "full_frame_shape": (side, side)}
    if hasattr(rope, "compressed_patch_size"):
        down = [c // p for c, p in zip(rope.compressed_patch_size, rope.patch_size)]
        layout.update(num_compressed_frames=0, compressed_frame_shape=(side // down[1], side // down[2]))
    return layout


def prepare_anyflow(module: Any, construction: tuple[dict[str, Any], str]) -> list[Driven]:
    """AnyFlow's bidirectional rotary, driven by :func:`_prepare_anyflow`."""
    return _prepare_anyflow(module, construction, "AnyFlowRotaryPosEmbed")


def prepare_anyflow_causal(module: Any, construction: tuple[dict[str, Any], str]) -> list[Driven]:
    """AnyFlow's causal (FAR) rotary, driven by :func:`_prepare_anyflow` with no compressed-context frames."""
    return _prepare_anyflow(module, construction, "AnyFlowCausalRotaryPosEmbed")


def _prepare_anyflow(module: Any, construction: tuple[dict[str, Any], str], cls_name: str) -> list[Driven]:
    """An AnyFlow rotary built as its model builds it, called on a plain layout (every frame full-resolution), each
    token's row gathered at ``(t * H + h) * W + w``; q rotated by the module's ``apply_rotary_emb`` as
    ``(batch, heads, seq, head_dim)``, as its attention processors call it."""
    import torch  # heavy: imported when used

    args, source = construction
    cls = getattr(module, cls_name)
    causal = cls_name == "AnyFlowCausalRotaryPosEmbed"
    _check_reads(cls, _ANYFLOW_READS + (_ANYFLOW_CAUSAL_READS if causal else ()))
    rope = cls(**args)
    if int(rope.patch_size[0]) != 1:  # the model's layout counts latent frames as patch frames
        raise NotDriven(f"patch_size {tuple(rope.patch_size)}: total_frames counts latent frames, not patches")
    head, side = int(rope.attention_head_dim), _LAYOUT_SIDE
    if int(rope.max_seq_len) < side:
        raise NotDriven(f"max_seq_len {rope.max_seq_len}: a table shorter than the {side} positions driven")
    pairs = (head // 2 - 2 * (head // 6), head // 6, head // 6)
    spec = RopeSpec(head_dim=head, base=float(rope.theta), layout="interleaved",
                    axes=axial(head, "split", names=("t", "h", "w"), sections=pairs))  # fmt: skip
    apply = module.apply_rotary_emb
    layout = _anyflow_layout(rope, side)

    def run(table_module: Any, x: Any, positions: Any) -> Any:
        table = table_module(layout, torch.device("cpu"))["query"][0, 0]
        outs = []
        for b in range(x.shape[0]):
            pos = positions[:, b, :].long()
            rows = table[(pos[0] * side + pos[1]) * side + pos[2]]
            outs.append(apply(x[b : b + 1].transpose(1, 2), rows[None, None]).transpose(1, 2))
        return torch.cat(outs).to(x.dtype)

    check_shape(run, rope, head, torch.arange(3).repeat(3, 1)[:, None, :], "apply_rotary_emb")
    notes = (
        f"built with {source}",
        f"spec: head {head} split t:{pairs[0]} h:{pairs[1]} w:{pairs[2]} pairs (`attention_head_dim // 2 - 2 * "
        f"(attention_head_dim // 6)` and `attention_head_dim // 6` twice), each axis its own "
        f"`get_1d_rotary_pos_embed` table (complex, adjacent pairs), theta {float(rope.theta):g}",
        f"called on the layout {layout}: the token at (t, h, w) is row (t * H + h) * W + w of its output, the "
        "order `patch_embedding(...).flatten(2)` gives the latents (patch_size's frame stride 1); positions "
        f"0..{side - 1} on every axis",
        *(
            ("no compressed-context frames (`num_compressed_frames` 0, its model's layout while fewer chunks than "
             "full_chunk_limit are cached); not judged: the compressed frames' tables, average-pooled from the full "
             "ones (`avg_pool_complex`), which no spec states",)
            if causal else ()
        ),
        "q rotated by apply_rotary_emb as (batch, heads, seq, head_dim), as its attention processors call it",
        "cast: its complex128 table is built on first call and kept in a plain attribute (`_freqs_cache`), not a "
        "buffer: module.to(dtype) leaves it complex128",
    )  # fmt: skip
    return [Driven("", spec, maker(run, rope, "axes"), cls_name, "apply_rotary_emb", notes, max_position=side)]


#: What Qwen-Image 2.1's source must say for the reading in this module's docstring to hold.
_QWEN21_READS = (
    "frame_index.extend(range(position, position + text_len))",
    "frame_index.extend([position] * (height * width))",
    "image_height_index.extend([h for h in range(-(height - height // 2), height // 2) for _ in range(width)])",
    "image_width_index.extend([w for _ in range(height) for w in range(-(width - width // 2), width // 2)])",
    "height_index[image_pad_mask] = torch.tensor(image_height_index",
    "width_index[image_pad_mask] = torch.tensor(image_width_index",
    "torch.cat([self.freqs[0][frame_index], self.freqs[1][height_index], self.freqs[2][width_index]], dim=-1)",
)


def prepare_qwenimage21(module: Any, construction: tuple[dict[str, Any], str]) -> list[Driven]:
    """Qwen-Image 2.1's rotary built as its model builds it, called with ``t`` text tokens and one image block of
    ``2 * side`` a side per frame position ``t`` asked, each token's row gathered from the block's upper quadrant;
    q rotated by ``apply_rotary_emb_qwen(..., use_real=False)`` as its attention processor calls it."""
    import torch  # heavy: imported when used

    args, source = construction
    cls = module.QwenImage21Rope
    _check_reads(cls, _QWEN21_READS)
    rope = cls(**args)
    dims, side = tuple(int(d) for d in rope.axes_dim), _LAYOUT_SIDE
    grid = 2 * side
    axes = axial(sum(dims), "split", names=("t", "h", "w"), sections=tuple(d // 2 for d in dims))
    spec = RopeSpec(head_dim=sum(dims), base=float(rope.theta), layout="interleaved", axes=axes)
    apply = module.apply_rotary_emb_qwen
    cache: dict[tuple[int, int], Any] = {}

    def block_rows(table_module: Any, t: int) -> Any:
        key = (id(table_module), t)
        if key not in cache:
            mask = torch.cat([torch.zeros(t, dtype=torch.bool), torch.ones(grid * grid, dtype=torch.bool)])
            cache[key] = table_module([(1, grid, grid)], mask, torch.device("cpu"))[t:]  # the block's rows
        return cache[key]

    def run(table_module: Any, x: Any, positions: Any) -> Any:
        outs = []
        for b in range(x.shape[0]):
            pos = positions[:, b, :].long()
            blocks = {t: block_rows(table_module, t) for t in pos[0].unique().tolist()}
            rows = torch.zeros(pos.shape[1], sum(dims) // 2, dtype=next(iter(blocks.values())).dtype)
            for t, block in blocks.items():  # the table's own dtype: the apply multiplies in it
                at = pos[0] == t
                rows[at] = block[(pos[1, at] + side) * grid + pos[2, at] + side]
            outs.append(apply(x[b : b + 1], rows, use_real=False))
        return torch.cat(outs).to(x.dtype)

    check_shape(run, rope, sum(dims), torch.arange(3).repeat(3, 1)[:, None, :], "apply_rotary_emb_qwen")
    notes = (
        f"built with {source}",
        f"spec: axes_dim {dims} (t, h, w), each its own interleaved table (`rope_params`, complex), theta "
        f"{float(rope.theta):g}",
        "positions as its forward builds them from the image-pad mask: C text tokens then one image block, text "
        "token k at (k, k, k), the block's token in row r, column c at (C, r - (H - H // 2), c - (W - W // 2)): "
        f"on a {grid}x{grid} block the token asked at (t, h, w) is row C + (h + {side}) * {grid} + (w + {side}) "
        "of a call with C = t",
        f"positions 0..{side - 1} on every axis (the block's upper quadrant; its negative h and w and the text "
        "rows come from the same tables and are not judged apart); q rotated by apply_rotary_emb_qwen(..., "
        "use_real=False) on (batch, seq, heads, head_dim), as its attention processor does",
        "cast: its tables are a plain list (`freqs`), not buffers: module.to(dtype) leaves them complex64",
    )
    make = maker(run, rope, "axes")
    return [Driven("", spec, make, "QwenImage21Rope", "apply_rotary_emb_qwen", notes, max_position=side)]


#: Rotaries with a driver of their own, by (module, class): ``prepare(module, (the constructor's arguments, where
#: they come from))``, built and called as their one model does.
DEDICATED: dict[tuple[str, str], Callable[[Any, tuple[dict[str, Any], str]], list[Driven]]] = {
    ("diffusers.pipelines.kolors.text_encoder", "RotaryEmbedding"): prepare_chatglm,
    ("diffusers.models.transformers.transformer_lumina2", "Lumina2RotaryPosEmbed"): prepare_lumina2,
    ("diffusers.models.transformers.transformer_anyflow", "AnyFlowRotaryPosEmbed"): prepare_anyflow,
    ("diffusers.models.transformers.transformer_anyflow_far", "AnyFlowCausalRotaryPosEmbed"): prepare_anyflow_causal,
    ("diffusers.models.transformers.transformer_qwenimage21", "QwenImage21Rope"): prepare_qwenimage21,
    **FRACTIONAL,  # fractional positions: axes with a position map (LTX-Video, LTX 2, Sana-WM)
}
