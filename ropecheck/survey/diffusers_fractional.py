"""Rotaries of diffusers that turn by fractional positions, driven with axes that carry a position map.

LTX-Video (``transformer_ltx.LTXVideoRotaryPosEmbed``) divides each coordinate by a base length and turns pair
``(k, a)`` by ``(2 p / L_a - 1) * f_k``, with ``f_k = (pi / 2) * theta ** linspace(0, 1, dim // 6)`` (its
``theta ** linspace(log(1), log(theta))``): rising frequencies, the axes taking turns over the pairs
(``freqs.transpose(-1, -2).flatten(2)``), adjacent dims paired (``repeat_interleave(2)``), and the
``dim % 6`` leading dims held still (cos 1, sin 0). LTX 2's video rotary (``transformer_ltx2``, and Sana-WM's
copy of it) does the same over ``coords / max_positions`` with the frequencies formed in float64
(``double_precision``), and its text connectors' 1-D rotary (``ltx2.connectors.LTX2RotaryPosEmbed1d``) over
``p / base_seq_len``. Each is affine in the integer coordinate ``p`` the verifier gives: axis ``a`` has scale
``2 / L_a`` and offset -1 (:func:`~ropecheck.axes.ltx_axes`), its table computed by
:func:`~ropecheck.axes.ltx_frequencies` from the published formula, never read from the class.

How each is called: the verifier's integer position on each axis is the coordinate the class divides (LTX's
``video_coords``, LTX 2's ``coords`` in its 3-D form, ``(batch, axes, tokens)``: no patch-boundary midpoints);
the 1-D rotary builds the table of positions ``0..n-1`` (``forward(batch_size, pos)``) and each token's row is
gathered. q is rotated by the module's own apply (``apply_rotary_emb`` / ``apply_interleaved_rotary_emb``) over
the model's whole inner dim, as its attention does before splitting the heads: each head of the verifier's x
is one such row. The model's own coordinates (latent indices times the VAE's scale factors, frames in seconds,
LTX 2's causal clamp of the first frame) are not judged, only the rotary's map from coordinates to angles.

Design constraints: runs in a worker (imports diffusers); torch imported lazily; each reading is checked against
the class's source (:func:`_check_reads`), and a source that no longer says it is :class:`~.drive.NotDriven`.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import math
import textwrap
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..axes import axial, ltx_axes
from ..spec import RopeSpec
from .drive import Driven, NotDriven, check_shape, maker

__all__ = ["FRACTIONAL", "prepare_ltx", "prepare_ltx2_1d", "prepare_ltx2_video", "prepare_minimax_video"]

#: Positions driven on every axis (0..63): past LTX's frame base (20), so the frame axis crosses its whole
#: [-1, 1) range and beyond; the spatial axes' first 64 of 2048 coordinates.
LTX_SIDE = 64

#: What LTX-Video's rotary must say for the reading in this module's docstring to hold.
_LTX_READS = (
    "video_coords[:, 0] / self.base_num_frames",
    "video_coords[:, 1] / self.base_height",
    "video_coords[:, 2] / self.base_width",
    "start = 1.0",
    "end = self.theta",
    "freqs = self.theta ** torch.linspace(",
    "math.log(start, self.theta)",
    "math.log(end, self.theta)",
    "self.dim // 6",
    "freqs = freqs * math.pi / 2.0",
    "freqs = freqs * (grid.unsqueeze(-1) * 2 - 1)",
    "freqs = freqs.transpose(-1, -2).flatten(2)",
    "cos_freqs = freqs.cos().repeat_interleave(2, dim=-1)",
    "cos_freqs = torch.cat([cos_padding, cos_freqs], dim=-1)",
)
#: What LTX 2's video rotary (and Sana-WM's copy) must say.
_LTX2_READS = (
    "max_positions = (self.base_num_frames, self.base_height, self.base_width)",
    "grid = torch.stack([coords[:, i] / max_positions[i] for i in range(num_pos_dims)], dim=-1)",
    "num_rope_elems = num_pos_dims * 2",
    "torch.linspace(start=0.0, end=1.0, steps=self.dim // num_rope_elems",
    "freqs = (pow_indices * torch.pi / 2.0).to(dtype=torch.float32)",
    "freqs = (grid.unsqueeze(-1) * 2 - 1) * freqs",
    "freqs = freqs.transpose(-1, -2).flatten(2)",
    "cos_freqs = freqs.cos().repeat_interleave(2, dim=-1)",
    "cos_freqs = torch.cat([cos_padding, cos_freqs], dim=-1)",
)
#: What LTX 2's 1-D connector rotary must say.
_LTX2_1D_READS = (
    "grid_1d = torch.arange(pos, dtype=torch.float32, device=device)",
    "grid_1d = grid_1d / self.base_seq_len",
    "torch.linspace(start=0.0, end=1.0, steps=self.dim // num_rope_elems",
    "freqs = (pow_indices * torch.pi / 2.0).to(dtype=torch.float32)",
    "freqs = (grid.unsqueeze(-1) * 2 - 1) * freqs",
    "cos_freqs = freqs.cos().repeat_interleave(2, dim=-1)",
)
#: What the connector model that builds the 1-D rotary must say (its size and arguments).
_CONNECTOR_READS = (
    "self.inner_dim = num_attention_heads * attention_head_dim",
    "self.rope = LTX2RotaryPosEmbed1d(",
    "base_seq_len=rope_base_seq_len",
    "theta=rope_theta",
    "double_precision=rope_double_precision",
    "rotary_emb = self.rope(batch_size, seq_len, device=hidden_states.device)",
)


def _check_reads(obj: Any, reads: tuple[str, ...]) -> None:
    """:class:`NotDriven` unless ``obj``'s source says each line the reading takes from it."""
    text = inspect.getsource(obj)
    missing = [n for n in reads if n not in text]
    if missing:
        raise NotDriven(f"{obj.__name__}'s source no longer says {missing[0]!r}: its angles are not read")


def _ltx_spec(dim: int, theta: float, lengths: tuple[float, ...], names: tuple[str, ...]) -> RopeSpec:
    """``dim // (2 axes)`` frequencies per axis, axes taking turns over the pairs, the ``dim % (2 axes)`` leading
    dims held still (the spec's rotated dims are the last ones), adjacent dims paired."""
    per = 2 * len(names)
    count, pad = dim // per, dim % per
    axes = ltx_axes(theta, count, lengths, names=names)
    return RopeSpec(head_dim=dim, rotary_dim=dim - pad, layout="interleaved", rotary_dims="last", axes=axes)


def _rows_run(coords_call: Callable[[Any, Any, Any], Any], apply: Callable[..., Any]) -> Callable[..., Any]:
    """``run(module, x, positions)``: each head of x ``(batch, seq, heads, dim)`` one token of the model's
    ``(batch, tokens, inner_dim)`` q, at the coordinates ``(batch, axes, seq)`` of the positions asked: cos and sin
    from ``coords_call(module, q, coords)`` once per token, repeated over its heads, q rotated by ``apply``."""
    import torch  # heavy: imported when used

    def run(table_module: Any, x: Any, positions: Any) -> Any:
        b, s, h, d = x.shape
        coords = positions.permute(1, 0, 2).to(torch.float32)
        cos, sin = coords_call(table_module, x[:, :, 0], coords)  # (batch, seq, dim)
        per_head = (cos.repeat_interleave(h, dim=1), sin.repeat_interleave(h, dim=1))
        return apply(x.reshape(b, s * h, d), per_head).reshape(b, s, h, d)

    return run


def _map_words(spec: RopeSpec) -> str:
    assert spec.axes is not None
    return ", ".join(f"{a.name}: ({a.position_words()}) * f_k" for a in spec.axes.axes)


def prepare_ltx(module: Any, construction: tuple[dict[str, Any], str]) -> list[Driven]:
    """LTX-Video's rotary built as its model builds it, called with ``video_coords`` the positions asked; q rotated
    by the module's ``apply_rotary_emb`` over the model's inner dim."""
    args, source = construction
    cls = module.LTXVideoRotaryPosEmbed
    _check_reads(cls, _LTX_READS)
    rope = cls(**args)
    dim, theta = int(rope.dim), float(rope.theta)
    lengths = (float(rope.base_num_frames), float(rope.base_height), float(rope.base_width))
    spec = _ltx_spec(dim, theta, lengths, ("t", "h", "w"))
    run = _rows_run(lambda m, q, coords: m(q, video_coords=coords), module.apply_rotary_emb)
    return [_driven(run, rope, spec, cls.__name__, "apply_rotary_emb", (
        f"built with {source}",
        _ltx_spec_words(spec, dim, theta, lengths, "float32: `theta ** torch.linspace(log(1), log(theta))` in "
                        "float32, its exponents rounded to float32"),
        f"positions: the verifier's integer coordinate p on each axis given as `video_coords` (batch, 3, tokens), "
        f"which forward divides by (base_num_frames, base_height, base_width); 0..{LTX_SIDE - 1} on every axis",
        *_apply_words("apply_rotary_emb"),
    ))]  # fmt: skip


def prepare_ltx2_video(module: Any, construction: tuple[dict[str, Any], str]) -> list[Driven]:
    """LTX 2's video rotary (or Sana-WM's copy) built as its model builds it, called with ``coords`` the positions
    asked in its 3-D form; q rotated by the module's ``apply_interleaved_rotary_emb``."""
    args, source = construction
    cls = next(getattr(module, n) for n in _LTX2_VIDEO_CLASSES if hasattr(module, n))
    _check_reads(cls, _LTX2_READS)
    if args.get("modality", "video") != "video" or args.get("rope_type", "interleaved") != "interleaved":
        raise NotDriven(f"{cls.__name__} built as {args.get('modality')!r} with rope_type {args.get('rope_type')!r}: "
                        "only the interleaved video rotary is read")  # fmt: skip
    rope = cls(**args)
    dim, theta = int(rope.dim), float(rope.theta)
    lengths = (float(rope.base_num_frames), float(rope.base_height), float(rope.base_width))
    spec = _ltx_spec(dim, theta, lengths, ("t", "h", "w"))
    precision = "float64 (`double_precision`), then cast to float32" if rope.double_precision else "float32"
    run = _rows_run(lambda m, q, coords: m(coords), module.apply_interleaved_rotary_emb)
    return [_driven(run, rope, spec, cls.__name__, "apply_interleaved_rotary_emb", (
        f"built with {source}",
        _ltx_spec_words(spec, dim, theta, lengths, precision),
        "positions: the verifier's integer coordinate p on each axis given as `coords` in its 3-D form (batch, 3, "
        "tokens), which forward divides by (base_num_frames, base_height, base_width); the model's own coordinates "
        "(patch-boundary midpoints in pixels, frames in seconds, the causal clamp of the first frame: "
        f"`prepare_video_coords`) are not judged; 0..{LTX_SIDE - 1} on every axis",
        *_apply_words("apply_interleaved_rotary_emb"),
    ))]  # fmt: skip


def prepare_ltx2_1d(module: Any, construction: tuple[dict[str, Any], str]) -> list[Driven]:
    """LTX 2's text-connector rotary built as ``LTX2ConnectorTransformer1d``'s defaults build it, its table of
    positions ``0..n-1`` indexed by each token's position; q rotated by LTX 2's ``apply_interleaved_rotary_emb``
    (its attention processor's, imported from ``transformer_ltx2``)."""
    import torch  # heavy: imported when used

    cls, model = module.LTX2RotaryPosEmbed1d, module.LTX2ConnectorTransformer1d
    _check_reads(cls, _LTX2_1D_READS)
    _check_reads(model, _CONNECTOR_READS)
    defaults = {k: p.default for k, p in inspect.signature(model.__init__).parameters.items()}
    dim = int(defaults["num_attention_heads"]) * int(defaults["attention_head_dim"])
    if defaults.get("rope_type", "interleaved") != "interleaved":
        raise NotDriven(f"LTX2ConnectorTransformer1d's rope_type {defaults['rope_type']!r}: only interleaved is read")
    rope = cls(dim, base_seq_len=defaults["rope_base_seq_len"], theta=defaults["rope_theta"],
               double_precision=defaults["rope_double_precision"], rope_type="interleaved",
               num_attention_heads=defaults["num_attention_heads"])  # fmt: skip
    base_len, theta = int(rope.base_seq_len), float(rope.theta)
    spec = _ltx_spec(dim, theta, (float(base_len),), ("x",))
    apply = importlib.import_module(module.LTX2AudioVideoAttnProcessor.__module__).apply_interleaved_rotary_emb

    def table(m: Any, q: Any, coords: Any) -> Any:
        cos, sin = m(1, int(coords.max()) + 1, torch.device("cpu"))  # positions 0..n-1, as the connector calls it
        index = coords[:, 0].long()
        return cos[0][index], sin[0][index]

    precision = "float64 (`double_precision`), then cast to float32" if rope.double_precision else "float32"
    source = (f"LTX2ConnectorTransformer1d's defaults (`LTX2RotaryPosEmbed1d(self.inner_dim, base_seq_len="
              f"rope_base_seq_len, ...)`, inner_dim = num_attention_heads * attention_head_dim = {dim}, base_seq_len "
              f"{base_len}, theta {theta:g})")  # fmt: skip
    return [_driven(_rows_run(table, apply), rope, spec, cls.__name__, "apply_interleaved_rotary_emb", (
        f"built with {source}",
        _ltx_spec_words(spec, dim, theta, (float(base_len),), precision),
        f"positions: forward(batch_size, n) builds positions 0..n-1 (as the connector calls it, n its sequence "
        f"length) and each token's row is gathered; 0..{base_len - 1} (its base_seq_len: (2 p / L - 1) over "
        "[-1, 1))",
        *_apply_words("apply_interleaved_rotary_emb (LTX2AudioVideoAttnProcessor's, from transformer_ltx2)"),
    ), max_position=base_len)]  # fmt: skip


#: Positions driven on every axis of MiniMax H3's video decoder grid (0..31 of a 32-cell side).
MINIMAX_SIDE = 32
#: What MiniMax H3's video decoder must say for its reading (positions, table, inline rotation) to hold.
_MINIMAX_READS = (
    "2.0 * (torch.arange(0.5, size, dtype=torch.float32, device=hidden_states.device) / size) - 1.0",
    'position_ids = torch.stack(torch.meshgrid(*grids, indexing="ij"), dim=-1).flatten(0, 2)',
    "self.rope = MiniMaxH3VideoRotaryPosEmbed(int(attention_head_dim * rope_dim_ratio), theta=rope_theta)",
)
_MINIMAX_ROPE_READS = (
    "inv_freq = 1.0 / theta ** torch.arange(0, 1, 2 * num_axes / dim, dtype=torch.float32)",
    "angles = 2.0 * math.pi * position_ids[:, :, :, None] * self.inv_freq[None, None, None, :]",
    "angles = angles.flatten(2, 3).tile(2).unsqueeze(2)",
)
_MINIMAX_APPLY_READS = (
    "query_rotary, query_pass = query[..., :rotary_dim], query[..., rotary_dim:]",
    "query_first, query_second = query_rotary.chunk(2, dim=-1)",
    "query_rotated = torch.cat([-query_second, query_first], dim=-1)",
    "query = torch.cat([query_rotary * cos + query_rotated * sin, query_pass], dim=-1)",
)


def _inline_rotation(module: Any, processor: Any) -> Callable[..., Any]:
    """``apply(query, key, rotary_emb)``: the statements the processor's ``__call__`` runs under
    ``if rotary_emb is not None:``, compiled as a function in the module's namespace (the module's own code, as
    the driver compiles an apply function defined inside a processor), returning the rotated query."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(processor.__call__)))
    guards = (n for n in ast.walk(tree) if isinstance(n, ast.If) and ast.unparse(n.test) == "rotary_emb is not None")
    block = next(guards, None)
    if block is None:
        raise NotDriven(
            f"{processor.__name__}.__call__ has no `if rotary_emb is not None:` block: its rotation is not read"
        )
    args = ast.arguments(posonlyargs=[], args=[ast.arg("query"), ast.arg("key"), ast.arg("rotary_emb")],
                         kwonlyargs=[], kw_defaults=[], defaults=[])  # fmt: skip
    body = [*block.body, ast.Return(ast.Name("query", ast.Load()))]
    fn = ast.FunctionDef(name="_inline_rotary", args=args, body=body, decorator_list=[], returns=None)
    scope = dict(vars(module))
    exec(compile(ast.fix_missing_locations(ast.Module([fn], [])), f"<{module.__name__}>", "exec"), scope)
    return scope["_inline_rotary"]  # type: ignore[no-any-return]


def prepare_minimax_video(module: Any, construction: tuple[dict[str, Any], str]) -> list[Driven]:
    """MiniMax H3's video-decoder rotary built as its decoder builds it, called with the decoder's own positions of a
    ``32``-cell grid per axis (``2 (k + 1/2) / G - 1``, gathered at the cells asked); q rotated by the statements
    its attention processor runs inline (:func:`_inline_rotation`)."""
    import torch  # heavy: imported when used

    args, source = construction
    cls, decoder = module.MiniMaxH3VideoRotaryPosEmbed, module.MiniMaxH3VideoViTDecoder3d
    _check_reads(cls, _MINIMAX_ROPE_READS)
    _check_reads(decoder, _MINIMAX_READS)
    _check_reads(module.MiniMaxH3VideoAttnProcessor, _MINIMAX_APPLY_READS)
    rope = cls(**args)
    head = int(inspect.signature(decoder.__init__).parameters["attention_head_dim"].default)
    rotary, theta, side = int(args["dim"]), float(args.get("theta", 100.0)), MINIMAX_SIDE
    per = rotary // 6
    # angle 2 pi (2 (k + 1/2) / G - 1) theta_j = (4 pi / G) k + 2 pi (1 / G - 1), times theta_j
    scale, offset = 4 * math.pi / side, 2 * math.pi * (1 / side - 1)
    plain = axial(rotary, "split", names=("t", "h", "w"), sections=(per, per, per))
    axes = replace(plain, axes=tuple(replace(a, scale=scale, offset=offset) for a in plain.axes))
    spec = RopeSpec(head_dim=head, rotary_dim=rotary, base=theta, layout="half", axes=axes)
    apply = _inline_rotation(module, module.MiniMaxH3VideoAttnProcessor)
    grid = 2.0 * (torch.arange(0.5, side, dtype=torch.float32) / side) - 1.0  # the decoder's positions per axis

    def run(table_module: Any, x: Any, positions: Any) -> Any:
        position_ids = grid[positions.long()].permute(1, 2, 0)  # (batch, seq, 3)
        return apply(x, x, table_module(position_ids))

    check_shape(run, rope, head, torch.arange(3).repeat(3, 1)[:, None, :], "its processor's inline rotation")
    notes = (
        f"built with {source}",
        f"spec: `dim` {rotary} of the decoder's {head}-dim head rotated (the rest pass through), {per} pairs per "
        f"axis (t, h, w) in blocks, one table theta ** (-2j / {2 * per}) with theta {theta:g} (`1 / theta ** "
        f"arange(0, 1, 6 / dim)`), half-split pairs (`tile(2)`, `chunk(2)`)",
        f"positions as its decoder builds them on a grid of {side} cells a side: cell k at 2 (k + 1/2) / {side} - 1 "
        f"(`2.0 * (arange(0.5, size) / size) - 1.0`), turned by 2 pi times it: the cell asked at k turns pair j by "
        f"(scale k + offset) theta_j with scale 4 pi / {side} = {scale:.9g} and offset 2 pi (1 / {side} - 1) = "
        f"{offset:.9g}; cells 0..{side - 1} on every axis; the register and class tokens' position 0 is not judged",
        "q rotated by the statements MiniMaxH3VideoAttnProcessor runs under `if rotary_emb is not None:` (cos and "
        "sin cast to q's dtype, the first `rotary_dim` dims rotated), compiled from its source in the module's "
        "namespace: its rotation has no apply function of its own",
        "cast: module.to(dtype) casts its `inv_freq` buffer (non-persistent) to bfloat16/float16 before the angles "
        "are formed",
    )
    return [Driven("", spec, maker(run, rope, "axes"), cls.__name__, "MiniMaxH3VideoAttnProcessor (inline)", notes,
                   max_position=side)]  # fmt: skip


def _ltx_spec_words(spec: RopeSpec, dim: int, theta: float, lengths: tuple[float, ...], precision: str) -> str:
    assert spec.axes is not None
    n, count = len(lengths), len(spec.axes.axes[0].pairs)
    return (
        f"spec: {count} frequencies per axis over the {dim}-dim inner dim, axes taking turns over the pairs (pair "
        f"k * {n} + a is axis a at frequency k), adjacent dims paired, the leading {dim - spec.rotary_dim} dims held "
        f"still; pair (k, a) turns by (2 p / L_a - 1) * f_k with L = {tuple(int(v) for v in lengths)} (scale 2 / L_a, "
        f"offset -1: {_map_words(spec)}) and f_k = (pi / 2) * {theta:g} ** (k / {count - 1}), computed in 50 digits "
        f"and rounded to fp64 (`ltx_frequencies`); the class forms f in {precision}"
    )


def _apply_words(apply: str) -> tuple[str, ...]:
    return (
        f"q rotated by {apply} over the model's whole inner dim, as its attention does before splitting the heads "
        "(each head of the verifier's x one such row); the 1-D view's checks read integer positions on a "
        "base ** (-2i/d) table and are not run: the per-axis reference and relative-position checks judge it",
        "cast: no buffers (its frequencies are formed on every call, in float32 or float64): module.to(dtype) "
        "changes nothing; q is rotated in float32 and cast back (`x.float() * cos ...`)",
    )


def _driven(
    run: Callable[..., Any],
    rope: Any,
    spec: RopeSpec,
    cls_name: str,
    apply_name: str,
    notes: tuple[str, ...],
    max_position: int = LTX_SIDE,
) -> Driven:
    import torch  # heavy: imported when used

    n = len(spec.axis_names)
    check_shape(run, rope, spec.head_dim, torch.arange(3).repeat(n, 1)[:, None, :], apply_name)
    return Driven("", spec, maker(run, rope, "axes"), cls_name, apply_name, notes, max_position=max_position)


#: The video classes of LTX 2's form (LTX 2's own and Sana-WM's copy).
_LTX2_VIDEO_CLASSES = ("LTX2AudioVideoRotaryPosEmbed", "SanaWMLTX2AudioVideoRotaryPosEmbed")

#: The fractional-position rotaries, by (module, class): as :data:`~.diffusers_dedicated.DEDICATED`.
FRACTIONAL: dict[tuple[str, str], Callable[[Any, tuple[dict[str, Any], str]], list[Driven]]] = {
    ("diffusers.models.transformers.transformer_ltx", "LTXVideoRotaryPosEmbed"): prepare_ltx,
    ("diffusers.models.transformers.transformer_ltx2", "LTX2AudioVideoRotaryPosEmbed"): prepare_ltx2_video,
    ("diffusers.models.transformers.transformer_sana_wm_refiner", "SanaWMLTX2AudioVideoRotaryPosEmbed"):
        prepare_ltx2_video,
    ("diffusers.pipelines.ltx2.connectors", "LTX2RotaryPosEmbed1d"): prepare_ltx2_1d,
    ("diffusers.models.autoencoders.autoencoder_kl_minimax_h3", "MiniMaxH3VideoRotaryPosEmbed"): prepare_minimax_video,
}  # fmt: skip
