"""Drive one rotary embedding of timm (a class or a helper) as timm's vision transformers call it.

timm's rotaries are axial 2-D RoPE over a patch grid: ``get_embed(shape)`` (or ``get_embed()`` with the
``feat_shape`` cached at construction) returns one row per patch in row-major ``(H, W)`` order, and the
attention applies it to q of shape ``(batch, heads, seq, head_dim)`` with ``apply_rot_embed_cat(q, rope,
half=...)`` (``RotaryEmbedding``'s ``(sin, cos)`` with ``apply_rot_embed``), exactly what the class's own
``forward`` calls. Each class is driven on a 128 x 128 grid (:data:`~.grid.GRID_SIDES`) with the shared gather
of :mod:`.grid`: each token's row is the one at its ``(h, w)`` positions.

The spec is what timm's arguments declare, and nothing timm computes: ``head_dim // 4`` frequencies per axis,
``temperature ** (-j / (head_dim / 4))`` (= ``temperature ** (-2j / D_a)`` over ``D_a = head_dim / 2``, the
axial-split spec with the temperature as base), the first block of pairs turned by the grid's first
coordinate channel -- the row for ``grid_indexing='ij'``, the column for ``'xy'`` -- and pairs interleaved, or
half-split with ``rotate_half=True``.

Classes, by their constructor's conventions (:func:`convention`):

* ``bands`` (``RotaryEmbedding``, ``RotaryEmbeddingCat``) -- built with ``in_pixels=False`` as every timm model
  builds them (EVA, SAM, NaFlexViT, DeepSeek and Qwen3 ViT), in four forms: ``ij``, ``half`` (``rotate_half``),
  ``xy`` (``grid_indexing``), ``cached`` (``feat_shape`` with ``ref_feat_shape`` equal to it, EVA's
  construction, where the ``ref_feat_shape`` rescale is the identity: an exact one on a power-of-two grid).
* ``mixed`` (``RotaryEmbeddingMixed``) -- its learnable per-block, per-head frequencies set to an axial
  assignment from timm's own magnitudes (``init_random_2d_freqs(rotate=False)``'s): RoPE-Mixed's learned
  frequencies turn a pair by a combination of both axes, which no spec states, so what is judged is the code
  that turns the frequencies into the table (grid, layout, block and head indexing, apply).
* ``parts`` (Gemma 4's ``Gemma4RotaryEmbedding2D``: ``(head_dim, rope_theta)``) -- ``forward(x, position_ids)`` at
  each token's ``(x, y)`` position, applied with ``apply_multidimensional_rope``, which splits the head into an x
  part and a y part, each half-split within itself: judged in the spec's channel order (``axial-shared``), as
  transformers' Gemma 4 vision is. The function rows it calls (``apply_rotary_pos_emb``, ``rotate_half``) run the
  class's float32 table through it.
* ``mrope`` (``RotaryEmbeddingMRope``) -- an image M-RoPE: ``get_embed([H, W])``, applied with
  ``apply_rot_embed_cat(half=True)`` as its docstring and the models' blocks say (it has no ``forward``); the spec
  is three axes ``(t, h, w)`` over one 1-D table ``temperature ** (-2i / head_dim)``, pair ``i`` to ``h`` where
  ``i = 1 (mod 3)`` and ``i < 3 sec_h``, to ``w`` where ``i = 2 (mod 3)`` and ``i < 3 sec_w``, else to ``t``
  (the interleaved M-RoPE rule, from ``mrope_section``), ``t`` an inert axis (scale 0): an image holds the
  temporal pairs at position 0.
* ``centred`` (``RotaryEmbeddingDinoV3``) -- DINOv3's patch centres: cell ``k`` of an axis of ``S`` cells at
  ``(2k + 1) / S - 1``, turned by ``2 pi`` times it over periods ``temperature ** (2j / (head_dim / 2))``: on a
  fixed grid an affine map of ``k`` (scale ``4 pi / S``, offset ``2 pi (1 / S - 1)``) on the axial-split table.

Each reading that comes from the class's code rather than its arguments (the inert temporal channels, the centred
coordinates and the periods) is checked against its source (:func:`_check_reads`): a source that no longer says it
is :class:`~.drive.NotDriven`.

Helpers are driven with ``build_rotary_pos_embed`` on an index grid and the row's apply function
(:data:`HELPERS`). What the spec cannot state is never judged and the row's notes say so: pixel bands
(``in_pixels=True``, the classes' default, which no timm model uses), a ``ref_feat_shape`` other than the grid
(a position scale), ``grid_offset`` (EVA's Perception Encoder models: 1), training-time coordinate augmentation.

Design constraints: runs in a worker (loads timm's module, :mod:`.timm_load`, or where it needs torchvision, its
rotary definitions compiled from its source, :mod:`.timm_source`, said on each row); torch imported lazily.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import math
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..axes import Axis, MultiAxis, axial
from ..spec import RopeSpec
from .channels import part_channels
from .discover import Family
from .drive import Driven, NotDriven, check_shape, maker, source_without_docstrings
from .grid import GRID_SIDES, grid_rows
from .timm_load import load_timm_module
from .timm_source import compile_rotary_definitions, definition_source

__all__ = [
    "HEAD_DIM",
    "HELPERS",
    "PARTS_APPLY",
    "SHAPES",
    "convention",
    "load_timm_rotaries",
    "mrope_axes",
    "prepare_timm",
    "timm_code_path",
]

#: The driver shapes and what they call.
SHAPES: dict[str, str] = {
    "grid": "get_embed on a patch grid (or its cached feat_shape), each token's row gathered, applied as the "
    "attention applies it (q as (batch, heads, seq, head_dim))",
    "helper": "build_rotary_pos_embed on an index grid, with the row's apply_rot_embed* function",
    "parts": "the rotary's forward(x, position_ids) at each token's (x, y) position, applied with "
    "apply_multidimensional_rope (q as (batch, seq, heads, head_dim)), as Gemma 4's vision attention applies it",
}
#: The head dim every driver uses: EVA02's, DeepSeek's and timm's ViT-B/16's (768 / 12).
HEAD_DIM = 64
_SIDE = GRID_SIDES[2]
_NOT_JUDGED = (
    "not judged (the spec cannot state them): pixel bands (in_pixels=True, positions linspace(-1, 1) at "
    "linearly or log-spaced frequencies), a ref_feat_shape other than the grid (positions scaled by ref / feat), "
    "grid_offset (a constant added to every position), training-time coordinate augmentation"
)
_NOT_JUDGED_MIXED = "not judged: learned frequencies (above), training-time coordinate augmentation"


@dataclass(frozen=True)
class _Form:
    """One way a model builds the class: a layer type of its row."""

    name: str
    rotate_half: bool = False
    grid_indexing: str = "ij"
    cached: bool = False

    def describe(self) -> str:
        parts = [f"rotate_half={self.rotate_half}", f"grid_indexing={self.grid_indexing!r}"]
        if self.cached:
            parts.append(f"feat_shape=[{_SIDE}, {_SIDE}] (and ref_feat_shape where the class takes one), get_embed()")
        else:
            parts.append(f"get_embed([{_SIDE}, {_SIDE}])")
        return f"{self.name}: " + ", ".join(parts)


_BANDS_FORMS = (
    _Form("ij"),
    _Form("half", rotate_half=True),
    _Form("xy", grid_indexing="xy"),
    _Form("cached", cached=True),
)
_MIXED_FORMS = (_Form("xy", grid_indexing="xy"), _Form("ij"), _Form("cached", grid_indexing="xy", cached=True))

#: How the callers call each apply function: ``f(q, table, half)`` with the table as get_embed returns it.
_APPLY_CALLS: dict[str, Callable[[Callable[..., Any], Any, Any, bool], Any]] = {
    "apply_rot_embed": lambda f, q, emb, half: f(q, emb[0], emb[1], half=half),
    "apply_rot_embed_cat": lambda f, q, emb, half: f(q, emb, half=half),
    "apply_rot_embed_list": lambda f, q, emb, half: f([q], emb[0], emb[1], half=half)[0],
}
#: Helpers: the apply function each is driven with, and its forms. ``rot`` and ``rope_rotate_half`` are the pair
#: rotations ``apply_rot_embed`` calls for ``half=False`` and ``half=True``.
HELPERS: dict[str, tuple[str, tuple[_Form, ...]]] = {
    "apply_rot_embed": ("apply_rot_embed", _BANDS_FORMS[:2]),
    "apply_rot_embed_cat": ("apply_rot_embed_cat", _BANDS_FORMS[:2]),
    "apply_rot_embed_list": ("apply_rot_embed_list", _BANDS_FORMS[:2]),
    "build_rotary_pos_embed": ("apply_rot_embed", _BANDS_FORMS[:3]),
    "rot": ("apply_rot_embed", _BANDS_FORMS[:1]),
    "rope_rotate_half": ("apply_rot_embed", _BANDS_FORMS[1:2]),
}


def convention(cls: Any) -> str:
    """The calling convention of a rotary class, from its constructor: ``bands``, ``mixed``, ``parts`` (a
    ``(head_dim, rope_theta)`` rotary whose module applies it part by part), ``mrope``, ``centred`` or ``""``
    (none known)."""
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return ""
    if "mrope_section" in params:
        return "mrope"
    if {"head_dim", "rope_theta"} <= set(params):
        return "parts"
    if "min_period" in params:
        return "centred"
    if {"depth", "num_heads"} <= set(params) and hasattr(cls, "get_embed"):
        return "mixed"
    if "in_pixels" in params and hasattr(cls, "get_embed"):
        return "bands"
    return ""


def _spec(head_dim: int, base: float, form: _Form) -> RopeSpec:
    """The axial-split spec: the first block of pairs by the grid's first coordinate channel."""
    names = ("w", "h") if form.grid_indexing == "xy" else ("h", "w")
    q = head_dim // 4
    axes = axial(head_dim, "split", names=names, sections=(q, q))
    return RopeSpec(head_dim=head_dim, base=base, layout="half" if form.rotate_half else "interleaved", axes=axes)


def _order(spec: RopeSpec) -> tuple[int, ...]:
    """Per grid axis (row, column), the spec axis whose positions index it: ``h`` and ``w`` wherever the spec puts
    them (``(w, h)`` for ``grid_indexing='xy'``; after an M-RoPE's inert ``t``)."""
    return tuple(spec.axis_names.index(name) for name in ("h", "w"))


def _forward_apply(cls: Any) -> str:
    """The apply function the class's own ``forward`` calls (``apply_rot_embed_cat``)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls.forward)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _APPLY_CALLS:
            return node.func.id
    raise NotDriven(f"{cls.__name__}.forward calls none of {', '.join(_APPLY_CALLS)}")


def _drive(
    module: Any,
    rope: Any,
    table: Callable[[Any, Any], Any],
    apply_name: str,
    form: _Form,
    spec: RopeSpec,
    pick: Callable[[Any], Any] | None = None,
) -> Driven:
    """``rope`` (None for a helper) whose whole-grid table is ``table(rope, dtype)``, applied with ``apply_name``."""
    import torch  # heavy: imported when used

    emb_for = grid_rows(table, _SIDE, 2, _order(spec))
    fn, call = getattr(module, apply_name), _APPLY_CALLS[apply_name]

    def run(built: Any, x: Any, positions: Any) -> Any:
        outs = []
        for b in range(x.shape[0]):
            emb = emb_for(built, positions[:, b, :], x.dtype)
            emb = pick(emb) if pick else emb
            q = x[b : b + 1].transpose(1, 2)  # (1, heads, seq, head_dim), as the attention holds q
            outs.append(call(fn, q, emb, form.rotate_half).transpose(1, 2))
        return torch.cat(outs).to(x.dtype)

    check_shape(run, rope, spec.head_dim, torch.zeros(len(spec.axis_names), 1, 3, dtype=torch.long), apply_name)
    cast = (lambda m, dt: m) if rope is None else None
    make = maker(run, rope, "axes", cast)
    return Driven(form.name, spec, make, "", apply_name, (form.describe(),), max_position=_SIDE)


def _bands(module: Any, build: Callable[[_Form], Any], cls: Any, forms: tuple[_Form, ...]) -> list[Driven]:
    base = float(inspect.signature(cls).parameters["temperature"].default)
    apply_name = _forward_apply(cls)
    out = []
    for form in forms:
        rope = build(form)

        def table(m: Any, dtype: Any, cached: bool = form.cached) -> Any:
            return m.get_embed() if cached else m.get_embed([_SIDE, _SIDE])

        out.append(_drive(module, rope, table, apply_name, form, _spec(HEAD_DIM, base, form)))
    return out


def _band_kwargs(form: _Form) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"in_pixels": False, "rotate_half": form.rotate_half, "grid_indexing": form.grid_indexing}
    if form.cached:
        kwargs.update(feat_shape=[_SIDE, _SIDE], ref_feat_shape=[_SIDE, _SIDE])
    return kwargs


def _axial_freqs(module: Any, rope: Any, base: float) -> None:
    """Set a Mixed rotary's frequencies to an axial assignment: the first ``head_dim / 4`` pairs by the grid's
    first channel, the rest by the second, at timm's own magnitudes (``init_random_2d_freqs(rotate=False)``)."""
    import torch  # heavy: imported when used

    freqs = rope.freqs
    head_dim = 2 * freqs.shape[-1]
    q = head_dim // 4
    mag = module.init_random_2d_freqs(head_dim, 1, 1, temperature=base, rotate=False)[0, 0, 0, :q]
    axial_freqs = torch.zeros_like(freqs)
    axial_freqs[0, ..., :q] = mag
    axial_freqs[1, ..., q:] = mag
    with torch.no_grad():
        freqs.copy_(axial_freqs)


def _mixed(module: Any, build: Callable[[_Form], Any], cls: Any, forms: tuple[_Form, ...]) -> list[Driven]:
    base = float(inspect.signature(cls).parameters["temperature"].default)
    apply_name = _forward_apply(cls)
    out = []
    for form in forms:
        rope = build(form)
        _axial_freqs(module, rope, base)

        def table(m: Any, dtype: Any, cached: bool = form.cached) -> Any:
            return m.get_embed() if cached else m.get_embed([_SIDE, _SIDE])

        driven = _drive(module, rope, table, apply_name, form, _spec(HEAD_DIM, base, form), _block0)
        driven.notes = (*driven.notes, _MIXED_NOTE, _NOT_JUDGED_MIXED)
        out.append(driven)
    return out


_MIXED_NOTE = (
    "its learnable frequencies set to an axial assignment (the first head_dim / 4 pairs by the grid's first "
    "coordinate, the rest by the second, at init_random_2d_freqs(rotate=False)'s magnitudes temperature ** "
    "(-4j / head_dim)), one block and one head: RoPE-Mixed's learned frequencies turn each pair by a combination "
    "of both axes, which no spec states; what is judged is the code that turns them into the table"
)


def _block0(emb: Any) -> Any:
    """Block 0's table, ``(heads, seq, 2 * head_dim)``, as an attention block indexes the Mixed output."""
    return emb[0]


def _mixed_kwargs(form: _Form) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"depth": 1, "num_heads": 1, "grid_indexing": form.grid_indexing}
    if form.cached:
        kwargs["feat_shape"] = [_SIDE, _SIDE]
    return kwargs


#: What ``RotaryEmbeddingMRope`` must say for its reading to hold: an image's temporal channels at position 0, and
#: the table applied half-split by ``apply_rot_embed_cat`` (it has no ``forward`` of its own).
_MROPE_READS = (
    "pos = torch.cat([torch.zeros_like(grid[:, :1]), grid], dim=-1).index_select(-1, self.axis)",
    "apply_rot_embed_cat(..., half=True)",
)
#: The head dims an M-RoPE is driven at: every timm driver's (where timm's default sections clamp), and GenLIP
#: L/16's 72, where the default ``(8, 12, 12)`` tiles the 36 pairs (the class's docstring names both).
_MROPE_HEAD_DIMS = (HEAD_DIM, 72)
_NOT_JUDGED_AUG = (
    "not judged: training-time coordinate augmentation (shift, jitter, rescale: off unless given, and in eval)"
)


def _check_reads(obj: Any, reads: tuple[str, ...]) -> None:
    """:class:`NotDriven` unless ``obj``'s source says each line the reading takes from it."""
    text = inspect.getsource(obj)
    missing = [line for line in reads if line not in text]
    if missing:
        raise NotDriven(f"{obj.__name__}'s source no longer says {missing[0]!r}: its positions are not read")


def mrope_axes(head_dim: int, sections: tuple[int, ...]) -> MultiAxis:
    """An image M-RoPE's axes ``(t, h, w)`` over the 1-D table of ``head_dim``: pair ``i`` to ``h`` where
    ``i = 1 (mod 3)`` and ``i < 3 sec_h``, to ``w`` where ``i = 2 (mod 3)`` and ``i < 3 sec_w``, else to ``t`` (the
    interleaved rule, clamped to the pairs there are, so ``sec_t`` is nominal); ``t`` inert (scale 0).

    Example:
        >>> mrope_axes(64, (8, 12, 12)).describe()
        'custom t:11 h:11 w:10 (positions t: 0 (inert), h: p, w: p)'
    """

    def axis_of(i: int) -> int:
        return next((a for a in (1, 2) if i % 3 == a and i < 3 * sections[a]), 0)

    pairs = [[i for i in range(head_dim // 2) if axis_of(i) == a] for a in range(3)]
    axes = tuple(
        Axis(name, tuple(p), tuple(p), head_dim, scale=0.0 if name == "t" else 1.0)
        for name, p in zip(("t", "h", "w"), pairs)
    )
    return MultiAxis("custom", axes, sections=tuple(sections), text_same_position=False)


def _mrope(module: Any, cls: Any) -> list[Driven]:
    """An image M-RoPE at its default sections and temperature, for each of :data:`_MROPE_HEAD_DIMS`."""
    _check_reads(cls, _MROPE_READS)
    params = inspect.signature(cls).parameters
    base, sections = float(params["temperature"].default), tuple(int(s) for s in params["mrope_section"].default)
    out = []
    for head_dim in _MROPE_HEAD_DIMS:
        axes = mrope_axes(head_dim, sections)
        spec = RopeSpec(head_dim=head_dim, base=base, layout="half", axes=axes)
        rope = cls(head_dim, mrope_section=sections, temperature=base).eval()
        form = _Form(f"d{head_dim}", rotate_half=True)
        driven = _drive(module, rope, lambda m, dtype: m.get_embed([_SIDE, _SIDE]), "apply_rot_embed_cat", form, spec)
        words = ", ".join(f"{n}: {w}" for n, w in axes.pairs_in_words().items())
        driven.notes = (
            *driven.notes,
            f"{cls.__name__}(dim={head_dim}, mrope_section={sections}, temperature={base:g}) (its default sections and "
            "temperature; head_dim 64 every timm driver's, 72 GenLIP L/16's, where they tile the pairs), applied "
            "with apply_rot_embed_cat(q, rope, half=True), as its docstring says and the models' blocks do "
            "(rotate_half forced for 'mrope'): it has no forward of its own",
            f"spec: one table {base:g} ** (-2i / {head_dim}) over the head, pairs half-split; axes (t, h, w) by the "
            f"interleaved M-RoPE rule from mrope_section {sections} ({axes.describe()}; pairs {words}); t inert (scale "
            "0): an image's temporal channels sit at position 0 (`torch.zeros_like(grid[:, :1])`), so the verifier's "
            "t positions reach no argument and those pairs must never turn",
        )
        out.append(driven)
    return out


#: What ``RotaryEmbeddingDinoV3`` must say for its reading to hold: patch centres normalised to [-1, 1], turned by
#: ``2 pi`` over periods ``temperature ** (2j / (dim / 2))``, one block of ``dim / 4`` periods per coordinate channel.
_DINOV3_READS = (
    "grid_type='centered'",
    "dim = self.dim // 4",
    "exponents = 2.0 * torch.arange(dim, device='cpu', dtype=torch.float32) / (self.dim // 2)",
    "periods = self.temperature ** exponents",
    "angles = 2 * math.pi * coords / self.periods[None, None, :]",
    "angles = angles.flatten(1)",
)
#: What the grid builder must say for the centred grid: cell k at ``(k + 1/2 + grid_offset) / S``, then ``2 x - 1``.
_CENTRED_GRID_READS = (
    "denom = [float(s) for s in feat_shape]",
    "(torch.arange(0.5, s, device=device, dtype=torch.float32) + grid_offset) / d",
    "grid = 2.0 * grid - 1.0",
)
_CENTRED_FORMS = (
    _Form("half", rotate_half=True),
    _Form("ij"),
    _Form("xy", rotate_half=True, grid_indexing="xy"),
    _Form("cached", rotate_half=True, cached=True),
)
_NOT_JUDGED_CENTRED = (
    "not judged: grid_offset (a constant added to each cell before the normalisation), min_period / max_period (a "
    "log-spaced period table), normalize_coords 'min' / 'max' on a grid that is not square (on this square grid "
    "every mode divides by its side), training-time coordinate augmentation (shift, jitter, rescale: off unless "
    "given, and in eval)"
)


def _centred_spec(base: float, form: _Form) -> RopeSpec:
    """The axial-split spec whose axes map cell ``k`` of the ``S``-cell side to ``2 pi ((2k + 1) / S - 1)``: scale
    ``4 pi / S``, offset ``2 pi (1 / S - 1)``, on the table ``base ** (-2j / (head_dim / 2))``."""
    plain = _spec(HEAD_DIM, base, form)
    assert plain.axes is not None
    scale, offset = 4 * math.pi / _SIDE, 2 * math.pi * (1 / _SIDE - 1)
    axes = replace(plain.axes, axes=tuple(replace(a, scale=scale, offset=offset) for a in plain.axes.axes))
    return plain.with_(axes=axes)


def _centred(module: Any, cls: Any) -> list[Driven]:
    """DINOv3's rotary at its default temperature, in eval, in each of :data:`_CENTRED_FORMS`."""
    _check_reads(cls, _DINOV3_READS)
    _check_reads(module._build_grid, _CENTRED_GRID_READS)
    base = float(inspect.signature(cls).parameters["temperature"].default)
    apply_name = _forward_apply(cls)
    out = []
    for form in _CENTRED_FORMS:
        kwargs: dict[str, Any] = {"rotate_half": form.rotate_half, "grid_indexing": form.grid_indexing}
        rope = cls(HEAD_DIM, temperature=base, **kwargs, **({"feat_shape": [_SIDE, _SIDE]} if form.cached else {}))

        def table(m: Any, dtype: Any, cached: bool = form.cached) -> Any:
            return m.get_embed() if cached else m.get_embed([_SIDE, _SIDE])

        spec = _centred_spec(base, form)
        driven = _drive(module, rope.eval(), table, apply_name, form, spec)
        driven.notes = (*driven.notes, _centred_words(base, spec))
        out.append(driven)
    return out


def _centred_words(base: float, spec: RopeSpec) -> str:
    assert spec.axes is not None
    first = spec.axes.axes[0]
    return (
        f"spec: {HEAD_DIM // 4} periods {base:g} ** (2j / {HEAD_DIM // 2}) per coordinate channel "
        "(`_compute_periods`), the first block of pairs by the grid's first channel; cell k of the "
        f"{_SIDE}-cell side at (2k + 1) / {_SIDE} - 1 (`arange(0.5, S) / S`, then `2 x - 1`), turned by 2 pi times "
        f"it over the period: pair j turns by (scale k + offset) / period_j with scale 4 pi / {_SIDE} = "
        f"{first.scale:.9g} and offset 2 pi (1 / {_SIDE} - 1) = {first.offset:.9g}; cells 0..{_SIDE - 1} on each axis"
    )


def _prepare_class(module: Any, cls_name: str) -> list[Driven]:
    cls = getattr(module, cls_name)
    kind = convention(cls)
    if kind == "parts":
        if not callable(getattr(module, PARTS_APPLY, None)):
            raise NotDriven(f"{cls_name}{inspect.signature(cls)}: its module defines no {PARTS_APPLY} to apply it")
        return [_parts(module, cls_name, None)]
    if kind == "bands":
        drivens = _bands(module, lambda f: cls(HEAD_DIM, **_band_kwargs(f)), cls, _BANDS_FORMS)
    elif kind == "mixed":
        drivens = _mixed(module, lambda f: cls(HEAD_DIM, **_mixed_kwargs(f)), cls, _MIXED_FORMS)
    elif kind in ("mrope", "centred"):
        drivens = _mrope(module, cls) if kind == "mrope" else _centred(module, cls)
    else:
        raise NotDriven(f"{cls_name}{inspect.signature(cls)}: none of the drivers takes this calling convention")
    for d in drivens:
        d.rotary_class = cls_name
        d.notes = (f"shape `grid`: {SHAPES['grid']}", f"convention `{kind}`", *d.notes)
        if kind in _NOT_JUDGED_BY_KIND:
            d.notes = (*d.notes, _NOT_JUDGED_BY_KIND[kind])
    return drivens


#: What a class's rows cannot judge, by convention (``mixed`` says its own).
_NOT_JUDGED_BY_KIND = {"bands": _NOT_JUDGED, "mrope": _NOT_JUDGED_AUG, "centred": _NOT_JUDGED_CENTRED}


def _prepare_factory(module: Any) -> list[Driven]:
    """``create_rope_embed`` as EVA calls it (``dim`` the model's width, ``num_heads`` its heads; Mixed one head),
    for each rope_type whose class is driven."""
    make = module.create_rope_embed
    cat, base = module.RotaryEmbeddingCat, module.RotaryEmbedding
    drivens = []
    for rope_type, cls in (("cat", cat), ("base", base)):
        forms = tuple(
            _Form(f"{rope_type}/{f.name}", f.rotate_half, f.grid_indexing, f.cached) for f in _BANDS_FORMS[:2]
        )
        drivens += _bands(module, _factory(make, rope_type), cls, forms)
    forms = (_Form("mixed/xy", grid_indexing="xy"),)
    kwargs = {"depth": 1, "grid_indexing": "xy"}
    drivens += _mixed(module, lambda f: make("mixed", HEAD_DIM, 1, **kwargs), module.RotaryEmbeddingMixed, forms)
    for d in drivens:
        d.rotary_class = "create_rope_embed"
        d.notes = (
            f"shape `grid`: {SHAPES['grid']}",
            "create_rope_embed(rope_type, dim=768, num_heads=12, in_pixels=False, ...) as EVA builds its rope "
            "(head_dim 64); 'mixed' with dim 64 and one head; 'dinov3' and 'mrope' are driven on their classes' rows",
            *d.notes,
            _NOT_JUDGED,
        )
    return drivens


def _factory(make: Callable[..., Any], rope_type: str) -> Callable[[_Form], Any]:
    """``create_rope_embed(rope_type, dim=768, num_heads=12, ...)`` for a form, as EVA calls it (head_dim 64)."""
    return lambda form: make(rope_type, 768, 12, **_band_kwargs(form))


def _prepare_helper(module: Any, name: str) -> list[Driven]:
    if name == "create_rope_embed":
        return _prepare_factory(module)
    if callable(getattr(module, PARTS_APPLY, None)) and (name == PARTS_APPLY or name in _called(module, PARTS_APPLY)):
        return [_prepare_parts_function(module, name)]
    if name not in HELPERS:
        sig = inspect.signature(getattr(module, name))
        raise NotDriven(f"{name}{sig}: no driver for this helper")
    apply_name, forms = HELPERS[name]
    out = []
    for form in forms:

        def table(_: Any, dtype: Any, form: _Form = form, cat: bool = apply_name == "apply_rot_embed_cat") -> Any:
            import torch  # heavy: imported when used

            sin, cos = module.build_rotary_pos_embed(
                [_SIDE, _SIDE], dim=HEAD_DIM, in_pixels=False, rotate_half=form.rotate_half,
                grid_indexing=form.grid_indexing,
            )  # fmt: skip
            return torch.cat([sin, cos], -1) if cat else (sin, cos)

        base = float(inspect.signature(module.build_rotary_pos_embed).parameters["temperature"].default)
        driven = _drive(module, None, table, apply_name, form, _spec(HEAD_DIM, base, form))
        driven.rotary_class = "build_rotary_pos_embed"
        driven.notes = (
            f"shape `helper`: {SHAPES['helper']}",
            f"build_rotary_pos_embed([{_SIDE}, {_SIDE}], dim={HEAD_DIM}, in_pixels=False, ...) + {apply_name}",
            *driven.notes,
            _NOT_JUDGED,
        )
        out.append(driven)
    return out


#: The apply function of the ``parts`` convention: the head split into one part per axis, each rotated half-split
#: within itself (Gemma 4's vision encoder; transformers' Gemma 4 vision has the same function).
PARTS_APPLY = "apply_multidimensional_rope"


def _parts(module: Any, cls_name: str, cast: Callable[[Any, Any], Any] | None) -> Driven:
    """A ``(head_dim, rope_theta)`` 2-D rotary, ``forward(x, position_ids)`` with position ids ``(batch, seq, (x,
    y))``, applied with :data:`PARTS_APPLY` as the attention applies it (``ndim=2, unsqueeze_dim=2``, q as
    ``(batch, seq, heads, head_dim)``). The spec is read from the constructor's arguments: ``head_dim / 4``
    frequencies per axis at ``rope_theta ** (-2j / (head_dim / 2))`` (``axial-shared``, axes named (x, y) as the
    position ids hold them), judged in the spec's channel order: q gathered into the parts' order before the call
    and back after it (:func:`~.channels.part_channels`, a fixed bijection read from how the function splits the
    head)."""
    import torch  # heavy: imported when used

    cls, apply_fn = getattr(module, cls_name), getattr(module, PARTS_APPLY)
    base = float(inspect.signature(cls).parameters["rope_theta"].default)
    rope = cls(head_dim=HEAD_DIM, rope_theta=base)
    spec = RopeSpec(head_dim=HEAD_DIM, base=base, layout="half", axes=axial(HEAD_DIM, "shared", names=("x", "y")))
    gather = torch.tensor(part_channels(HEAD_DIM, 2))
    scatter = torch.argsort(gather)

    def run(built: Any, x: Any, positions: Any) -> Any:
        position_ids = positions.permute(1, 2, 0)  # (batch, seq, (x, y)), as the patch embedder returns them
        cos, sin = built(x, position_ids)
        return apply_fn(x[..., scatter], cos, sin, ndim=2, unsqueeze_dim=2)[..., gather].to(x.dtype)

    check_shape(run, rope, HEAD_DIM, torch.zeros(2, 1, 3, dtype=torch.long), PARTS_APPLY)
    notes = (
        f"shape `parts`: {SHAPES['parts']}",
        f"{cls_name}(head_dim={HEAD_DIM}, rope_theta={base:g}) (every timm driver's head_dim, the class's "
        f"default rope_theta); {PARTS_APPLY} splits the head into an x part and a y part, each half-split within "
        "itself: judged in the spec's channel order (axial-shared, half-split over the head), the parts' channels "
        "gathered into it and back",
    )
    return Driven("", spec, maker(run, rope, "axes", cast), cls_name, PARTS_APPLY, notes)


def _called(module: Any, caller: str) -> dict[str, str]:
    """The module's functions that ``caller`` calls by name, transitively, each with the function that calls it."""
    seen: dict[str, str] = {}
    todo = [caller]
    while todo:
        name = todo.pop()
        try:
            fn: Any = getattr(module, name, None)  # a builtin it calls (range) is not the module's
            tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        except (OSError, TypeError, SyntaxError):  # not a function of the module, or no source to read
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in seen:
                seen[node.func.id] = name
                todo.append(node.func.id)
    return seen


def _call_path(module: Any, name: str) -> str:
    """``apply_multidimensional_rope -> apply_rotary_pos_emb -> rotate_half``: how :data:`PARTS_APPLY` reaches it."""
    callers, path = _called(module, PARTS_APPLY), [name]
    while path[-1] != PARTS_APPLY:
        path.append(callers[path[-1]])
    return " -> ".join(path[::-1])


def _prepare_parts_function(module: Any, name: str) -> Driven:
    """:data:`PARTS_APPLY`, or a function it calls (``apply_rotary_pos_emb``, ``rotate_half``), driven as the
    attention runs it: the module's one ``parts`` rotary, built in float32, with :data:`PARTS_APPLY`."""
    classes = [n for n, obj in vars(module).items() if inspect.isclass(obj) and convention(obj) == "parts"]
    if len(classes) != 1:
        raise NotDriven(f"{name}: {len(classes)} rotary classes of the `parts` convention build its table")
    driven = _parts(module, classes[0], lambda m, dtype: m)
    driven.rotary_class = classes[0]
    via = "" if name == PARTS_APPLY else f" ({_call_path(module, name)}, read from their source)"
    driven.notes = (
        *driven.notes,
        f"the function row: {classes[0]}'s table built in float32 and applied with {PARTS_APPLY}{via}; a cast "
        f"of the rotary module is its class's row",
    )
    return driven


def prepare_timm(family: Family) -> list[Driven]:
    """One timm rotary (class or helper) ready to verify; :class:`NotDriven` with the reason."""
    module, notes = load_timm_rotaries(family.module)
    if family.rotary_classes:
        drivens = _prepare_class(module, family.rotary_classes[0])
    else:
        drivens = _prepare_helper(module, family.apply_functions[0])
    for d in drivens:
        d.notes = (*d.notes, *notes)
    return drivens


def load_timm_rotaries(name: str) -> tuple[Any, tuple[str, ...]]:
    """The module, loaded whole (:func:`.timm_load.load_timm_module`), or where it cannot be, its rotary definitions
    compiled from its source (:func:`.timm_source.compile_rotary_definitions`), with a note saying so."""
    try:
        return load_timm_module(name), ()
    except NotDriven as whole:
        try:
            compiled = compile_rotary_definitions(name)
        except NotDriven as exc:
            raise NotDriven(f"{whole}; its rotary definitions cannot be compiled alone: {exc}") from exc
        statements = "; ".join(compiled.__compiled__)
        return compiled, (
            f"{whole}: its rotary definitions and what they read are compiled from its installed source as written "
            f"({statements}); its other statements (its models, its registry entries, the imports they need) are "
            "not run: none of them rebinds or sets what the compiled statements read, or calls anything for its side "
            "effect at import (read from its syntax tree); what their decorators and values call to build what they "
            "bind (register_model, torch.jit.ignore, generate_default_cfgs) is assumed to change nothing the "
            "compiled statements read",
        )


def timm_code_path(family: Family, driven: Driven) -> str:
    """A short hash of the source a timm verdict runs (the rotary or table builder and the apply function),
    docstrings left out."""
    module, _ = load_timm_rotaries(family.module)
    parts = []
    for name in (driven.rotary_class, driven.apply_function, *family.apply_functions):
        obj: Any = getattr(module, name, None)
        text = source_without_docstrings(obj) or definition_source(family.module, name)
        parts.append(name if text is None else text)
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:10]
