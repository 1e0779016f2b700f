"""Vision rotaries whose configs name no pair -> axis layout: the SAM family's and Llama 4's 2-D rotaries and
MiniMax-M3-VL's 3-D one.

The spec reader (:data:`~ropecheck.hf.AXIAL_VISION_MODEL_TYPES`) knows a vision encoder by its ``model_type`` and
derives its head from ``hidden_size / num_attention_heads``. These rotaries do not fit it: SAM 2's video memory
attention (and its copies in EdgeTAM and the SAM 3 tracker) sizes its head from ``memory_attention_*`` keys,
SAM 3's ViT backbone turns its global layers by positions scaled to the window, and MiniMax-M3-VL's vision tower
rotates a third of the head per axis (t, h, w) and passes the rest. :data:`READINGS` states, per ``model_type``,
what the published model does -- the pair -> axis layout, the pairing, the frequencies, the head, the positions --
so the reference never comes from the code being judged:

* SAM 2 and SAM 3 (``compute_axial_cis`` of the published code): complex pairs (interleaved), the first half of
  the pairs turned by the column x, the second by the row y, one table ``theta ** (-4 j / d)`` over ``d / 2``
  (axial-shared, axes (x, y)); SAM 3's global layers turn by ``p * window / grid`` (the positions interpolated to
  the window the backbone was trained on), its windowed layers by the position in the window.
* Llama 4's vision encoder: SAM's layout and table, each axis at its 1-based cell index (offset 1); the class
  holds its whole grid as one complex buffer (``freqs_ci``, a CLS row last), read row by row (call ``"table"``),
  verified in the ``fp32`` mode only (cast, the table is made real: the survey's structural check says so).
* MiniMax-M3-VL's vision tower: ``2 * ((d // 3) // 2)`` dims per axis (t, h, w), each axis its own table over its
  own dims (axial-split), the three written half-split over their ``rotary_dim``; the rest of the head passes.

The SAM rotaries are called by their model with a fixed grid of positions, built once in the layer that holds the
rotary (``precompute_positions``): they are driven on that grid, the model's own, each token reading the grid
cell at its (x, y) -- so a grid stacked in another order, or scaled otherwise, is judged too -- and only positions
inside the grid are asked for. In the ``cast`` mode the grid is cast with the rotary (``model.to(dtype)`` casts
the layer's float buffer too). MiniMax's positions are an input, ``(patches, (t, h, w))``.

Design constraints: the survey's runner asks :func:`prepare_vision` first and falls back to :mod:`.drive` when it
returns None (a class this table does not know); torch is imported lazily.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..axes import MultiAxis, axial
from ..spec import RopeSpec
from .discover import Family
from .drive import Driven, NotDriven, all_configs, check_shape, config_annotation, maker

__all__ = ["READINGS", "Grid", "Reading", "prepare_vision"]


@dataclass(frozen=True)
class Grid:
    """A fixed grid of positions a layer kind feeds its rotary: ``width`` x ``height`` cells (x, y), each turning
    by ``scale`` times its cell index; ``args`` are what the model's ``precompute_positions`` takes after the
    config for this layer kind."""

    layer_type: str
    width: int
    height: int
    scale: float = 1.0
    args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Reading:
    """What the project states of one vision rotary, by its config's ``model_type`` (never read from its code)."""

    #: the spec from the config: head, pairing, axes and frequencies
    spec: Callable[[Any], RopeSpec]
    #: the fixed grids the model feeds the rotary, one per layer kind; () where positions are an input
    grids: Callable[[Any], tuple[Grid, ...]]
    #: how the attention holds q when it applies the rotary: "heads" (batch, heads, seq, dim) with cos
    #: (batch, 1, seq, dim); "patches" (patches, heads, dim) with cos (patches, dim); "table" (batch, seq, heads,
    #: dim) with the class's own complex table, one row per grid cell (Llama 4's ``freqs_ci``)
    call: str
    #: the published model the reading follows, and the code the rows share, for the row's page
    words: str
    #: the apply function the model's attention calls, where its name is not ``apply_rotary*`` (not discovered)
    apply: str = ""


def _int(config: Any, key: str) -> int:
    value = getattr(config, key, None)
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise NotDriven(f"the reader needs the config's {key} (a positive integer), got {value!r}")
    return value


def _theta(config: Any) -> float:
    params = getattr(config, "rope_parameters", None) or {}
    theta = params.get("rope_theta") if isinstance(params, dict) else None
    if not isinstance(theta, (int, float)) or isinstance(theta, bool) or theta <= 1:
        raise NotDriven(f"the reader needs rope_parameters.rope_theta (a number > 1), got {theta!r}")
    return float(theta)


def _sam_axes(head_dim: int) -> MultiAxis:
    """SAM's ``compute_axial_cis``: pairs ``0 .. d/4 - 1`` turned by x, the rest by y, one table over ``d / 2``."""
    return axial(head_dim, "shared", names=("x", "y"))


def _memory_attention_spec(config: Any) -> RopeSpec:
    """SAM 2's video memory attention: ``d = hidden / (downsample_rate * heads)`` of its ``memory_attention_*``."""
    width = _int(config, "memory_attention_hidden_size")
    per = _int(config, "memory_attention_downsample_rate") * _int(config, "memory_attention_num_attention_heads")
    head_dim = width // per
    return RopeSpec(head_dim=head_dim, base=_theta(config), layout="interleaved", axes=_sam_axes(head_dim))


def _memory_attention_grids(config: Any) -> tuple[Grid, ...]:
    """The memory attention's one grid: ``memory_attention_rope_feat_sizes`` (x, y), integer positions."""
    sizes = getattr(config, "memory_attention_rope_feat_sizes", None)
    if not (isinstance(sizes, (list, tuple)) and len(sizes) == 2 and all(isinstance(s, int) and s > 0 for s in sizes)):
        raise NotDriven(f"the reader needs memory_attention_rope_feat_sizes (two sizes), got {sizes!r}")
    return (Grid("", sizes[0], sizes[1]),)


def _vit_spec(config: Any) -> RopeSpec:
    """SAM 3's ViT backbone: ``d = hidden_size / num_attention_heads``."""
    head_dim = _int(config, "hidden_size") // _int(config, "num_attention_heads")
    return RopeSpec(head_dim=head_dim, base=_theta(config), layout="interleaved", axes=_sam_axes(head_dim))


def _square(config: Any, key: str) -> int:
    value = getattr(config, key, None)
    if isinstance(value, (list, tuple)) and len(value) == 2 and value[0] == value[1]:
        value = value[0]
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise NotDriven(f"the reader states SAM 3's grids for a square {key} only, got {value!r}")
    return value


def _vit_grids(config: Any) -> tuple[Grid, ...]:
    """The windowed layers turn by the position in their window; the global layers by the position on the whole
    grid scaled by ``window / grid`` (the positions interpolated to the window's range, as the published ViTDet
    backbone of SAM 3 does), when ``global_attn_indexes`` names any."""
    window = _int(config, "window_size")
    side = _square(config, "image_size") // _square(config, "patch_size")
    grids = [Grid("windowed_attention", window, window, 1.0, (window,))]
    if getattr(config, "global_attn_indexes", None):
        grids.append(Grid("global_attention", side, side, window / side, (0,)))
    return tuple(grids)


def _minimax_spec(config: Any) -> RopeSpec:
    """MiniMax-M3-VL's vision tower: ``2 * ((d // 3) // 2)`` dims per axis (t, h, w), each its own table over them,
    written half-split over the ``rotary_dim`` they make; the rest of the head passes through."""
    head_dim = _int(config, "hidden_size") // _int(config, "num_attention_heads")
    per = (head_dim // 3) // 2  # pairs per axis
    axes = axial(6 * per, "split", names=("t", "h", "w"), sections=(per, per, per))
    return RopeSpec(head_dim=head_dim, rotary_dim=6 * per, base=_theta(config), layout="half", axes=axes)


def _llama4_spec(config: Any) -> RopeSpec:
    """Llama 4's vision encoder: ``d = hidden_size / num_attention_heads``, complex pairs, x then y over one table
    ``theta ** (-4 j / d)`` (axial-shared), each axis turning by its 1-based cell index (offset 1)."""
    head_dim = _int(config, "hidden_size") // _int(config, "num_attention_heads")
    plain = axial(head_dim, "shared", names=("x", "y"))
    axes = replace(plain, axes=tuple(replace(a, offset=1.0) for a in plain.axes))
    return RopeSpec(head_dim=head_dim, base=_theta(config), layout="interleaved", axes=axes)


def _llama4_grids(config: Any) -> tuple[Grid, ...]:
    """The one grid the class holds: ``image_size // patch_size`` cells a side, row-major, then a CLS row."""
    side = _int(config, "image_size") // _int(config, "patch_size")
    return (Grid("", side, side),)


_SAM2_WORDS = (
    "SAM 2's video memory attention (compute_axial_cis: complex pairs, x then y, one table over head_dim/2), "
    "head_dim = memory_attention_hidden_size / (memory_attention_downsample_rate * "
    "memory_attention_num_attention_heads); the rotary class is SAM 2 video's, copied unchanged by EdgeTAM video "
    "and the SAM 3 tracker (the same forward and recomposition as SAM 3's ViT rotary)"
)

#: The vision rotaries the project reads itself, by their config's ``model_type``.
READINGS: dict[str, Reading] = {
    "sam2_video": Reading(_memory_attention_spec, _memory_attention_grids, "heads", _SAM2_WORDS),
    "edgetam_video": Reading(_memory_attention_spec, _memory_attention_grids, "heads", _SAM2_WORDS),
    "sam3_tracker_video": Reading(_memory_attention_spec, _memory_attention_grids, "heads", _SAM2_WORDS),
    "sam3_vit_model": Reading(
        _vit_spec,
        _vit_grids,
        "heads",
        "SAM 3's ViT backbone (compute_axial_cis: complex pairs, x then y, one table over head_dim/2; the global "
        "layers' positions scaled by window_size / grid), head_dim = hidden_size / num_attention_heads; the rotary "
        "class has the forward and recomposition of SAM 2 video's",
    ),
    "llama4_vision_model": Reading(
        _llama4_spec,
        _llama4_grids,
        "table",
        "Llama 4's vision encoder (complex pairs, x then y over one table theta ** (-4 j / head_dim), each axis at "
        "its 1-based cell index; the CLS row, last, turns by nothing), head_dim = hidden_size / num_attention_heads; "
        "the class holds its whole grid as a complex buffer (freqs_ci) that the vision attention multiplies by",
        apply="vision_apply_rotary_emb",
    ),
    "minimax_m3_vl_vision": Reading(
        _minimax_spec,
        lambda config: (),
        "patches",
        "MiniMax-M3-VL's vision tower: 3-D axial RoPE, 2 * ((head_dim // 3) // 2) dims per axis (t, h, w) with its "
        "own table, half-split over the rotary dims, the rest of the head passed through",
    ),
}


def _read(modeling: Any, top: Any, cls_name: str) -> tuple[str, Any, Reading] | None:
    """``(path, config, reading)``: the config ``cls_name``'s ``__init__`` names, with :data:`READINGS`' entry for
    its ``model_type``; None when the class names no config or the table has none for it."""
    wanted = config_annotation(getattr(modeling, cls_name, None))
    for path, config in all_configs(top):
        if wanted and type(config).__name__ == wanted:
            reading = READINGS.get(str(getattr(config, "model_type", "")))
            return (path, config, reading) if reading is not None else None
    return None


def prepare_vision(family: Family, cls_name: str | None = None) -> list[Driven] | None:
    """``cls_name`` (the family's own row when None: every rotary class of the family must be read here) driven
    from its :data:`READINGS` entry; None when the table does not know it (the caller drives it its own way).
    A class the table knows but cannot drive raises :class:`NotDriven` with the reason."""
    try:
        modeling = importlib.import_module(family.module)
        top = getattr(importlib.import_module(family.config_module), family.config_class)()
    except Exception:  # the family's own code failed: the caller's driver says why
        return None
    names = [cls_name] if cls_name else list(family.rotary_classes)
    found = [_read(modeling, top, n) for n in names]
    if not names or any(f is None for f in found):
        return None
    path, config, reading = found[0]  # type: ignore[misc]
    try:
        return _drive(family, modeling, names[0], config, reading, path)
    except NotDriven:
        raise
    except Exception as exc:  # the family's own code failed with the reader's config
        raise NotDriven(f"{names[0]} read as {reading.words}: {type(exc).__name__}: {exc}") from exc


def _drive(family: Family, modeling: Any, cls_name: str, config: Any, reading: Reading, path: str) -> list[Driven]:
    """One :class:`~.drive.Driven` per layer kind: on each of the model's grids, or at input positions."""
    spec = reading.spec(config)
    apply_name, apply_fn = _apply_function(family, modeling, reading.apply)
    where = f"the {path or 'top-level'} config ({type(config).__name__})"
    rope = getattr(modeling, cls_name)(config)
    grids = reading.grids(config)
    if not grids:
        run = _at_positions(apply_fn, reading.call)
        check_shape(run, rope, spec.head_dim, _probe_positions(spec), apply_name)
        notes: tuple[str, ...] = (
            f"driven from {where} with per-patch positions {spec.axes.names if spec.axes else ()}",
            reading.words,
        )
        return [Driven("", spec, maker(run, rope, "axes"), cls_name, apply_name, notes)]
    if reading.call == "table":
        return [_drive_table(rope, spec, grids[0], apply_fn, apply_name, (where, reading.words, cls_name))]
    holder = _grid_holder(modeling)
    out = []
    for grid in grids:
        built = _with_grid(rope, holder.precompute_positions(config, *grid.args), grid)
        run = _on_grid(apply_fn, reading.call, grid.width)
        check_shape(run, built, spec.head_dim, _probe_positions(spec), apply_name)
        call = ", ".join([type(config).__name__, *map(str, grid.args)])
        notes = (
            f"driven from {where} on the model's own {grid.width} x {grid.height} grid "
            f"({holder.__name__}.precompute_positions({call})), each token at the cell of its (x, y); positions up "
            f"to {min(grid.width, grid.height) - 1} (the grid's extent)"
            + (f", each turning by {grid.scale:.6g} p" if grid.scale != 1 else ""),
            reading.words,
            *_undriven_grids(holder),
        )
        gspec = spec.with_(axes=_scaled(spec.axes, grid.scale)) if grid.scale != 1 and spec.axes else spec
        make = maker(run, built, "axes")
        out.append(
            Driven(grid.layer_type, gspec, make, cls_name, apply_name, notes, max_position=min(grid.width, grid.height))
        )
    return out


def _drive_table(
    rope: Any, spec: RopeSpec, grid: Grid, apply_fn: Callable[..., Any], apply_name: str, said: tuple[str, str, str]
) -> Driven:
    """A class that holds its whole grid as one complex table (``forward`` returns it): each token reads the row of
    its cell ``y * width + x``, applied batch row by batch row as the vision attention applies the whole table.

    Verified in the ``fp32`` mode only: ``module.to(dtype)`` with a real dtype makes the complex table real, which
    the survey's structural check of complex buffers states for the ``cast`` cells (:mod:`.buffers`)."""
    import torch  # heavy: imported when used

    where, words, cls_name = said

    def run(module: Any, x: Any, positions: Any) -> Any:
        table = module(x)
        cells = positions[1] * grid.width + positions[0]  # (batch, seq): the table is row-major, a row per y
        rows = [apply_fn(x[b : b + 1], x[b : b + 1], table[cells[b]])[0] for b in range(x.shape[0])]
        return torch.cat(rows).to(x.dtype)

    check_shape(run, rope, spec.head_dim, _probe_positions(spec), apply_name)
    notes = (
        f"driven from {where} on the class's own {grid.width} x {grid.height} grid, each token at the row of its "
        f"cell (x, y), turning by (x + 1, y + 1); positions up to {min(grid.width, grid.height) - 1} (the grid's "
        "extent); the CLS row is not asked for",
        words,
        "fp32 mode only: module.to(dtype) makes the complex table real (the cast cells hold that structural finding)",
    )
    return Driven(
        "", spec, maker(run, rope, "axes"), cls_name, apply_name, notes, max_position=grid.width, modes=("fp32",)
    )


def _undriven_grids(holder: Any) -> tuple[str, ...]:
    """What the page must say of a second grid the holder builds (EdgeTAM's memory keys, ``is_key=True``): its
    positions reach the rotary through the cross-attention's own apply function, which is not driven here."""
    if "is_key" not in inspect.signature(holder.precompute_positions).parameters:
        return ()
    return (
        f"not driven: the cross-attention keys' own grid ({holder.__name__}.precompute_positions(config, "
        "is_key=True)), which the same rotary turns and the cross-attention applies with its own function",
    )


def _scaled(axes: MultiAxis, scale: float) -> MultiAxis:
    """``axes`` with every axis turning by ``scale * p``."""
    return replace(axes, axes=tuple(replace(a, scale=scale) for a in axes.axes))


def _probe_positions(spec: RopeSpec) -> Any:
    import torch  # heavy: imported when used

    n = len(spec.axes.axes) if spec.axes else 1
    return torch.arange(3 * n).reshape(n, 1, 3) % 3


#: Apply functions the SAM family's attention and MiniMax's vision attention call, by name: the plain one first,
#: then the self-attention one (EdgeTAM's), then the vision one (MiniMax's); a cross-attention variant never.
_APPLY_NAMES = ("apply_rotary_pos_emb_2d", "apply_rotary_pos_emb_2d_self_attn", "apply_rotary_pos_emb_vision")


def _apply_function(family: Family, modeling: Any, named: str = "") -> tuple[str, Callable[..., Any]]:
    if named:  # the reading names it
        fn = getattr(modeling, named, None)
        if not callable(fn):
            raise NotDriven(f"{family.module} defines no {named}")
        return named, fn
    for name in _APPLY_NAMES:
        fn = getattr(modeling, name, None)
        if name in family.apply_functions and callable(fn):
            return name, fn
    raise NotDriven(f"none of {', '.join(_APPLY_NAMES)} in {family.module}")


def _grid_holder(modeling: Any) -> Any:
    """The one class of the modeling module that builds the rotary's grid (``precompute_positions``)."""
    holders = [
        c
        for c in vars(modeling).values()
        if inspect.isclass(c) and c.__module__ == modeling.__name__ and "precompute_positions" in vars(c)
    ]
    if len(holders) != 1:
        raise NotDriven(f"{len(holders)} classes of {modeling.__name__} build a grid of positions; expected one")
    return holders[0]


def _with_grid(rope: Any, grid_positions: Any, grid: Grid) -> Any:
    """The rotary and the grid it is called with, as one module: ``model.to(dtype)`` casts both, as it casts the
    layer that holds them."""
    import torch  # heavy: imported when used

    shape = tuple(grid_positions.shape)
    if shape != (grid.width * grid.height, 2):
        raise NotDriven(f"the model's grid has shape {shape}; the reader expects ({grid.width * grid.height}, 2)")
    holder = torch.nn.Module()
    holder.rope = rope
    holder.register_buffer("grid", grid_positions, persistent=False)
    return holder


def _on_grid(apply_fn: Callable[..., Any], call: str, width: int) -> Callable[..., Any]:
    """``run(holder, x, positions)``: each token's row of the model's grid at its cell ``y * width + x``."""

    def run(holder: Any, x: Any, positions: Any) -> Any:
        cells = positions[1] * width + positions[0]  # (batch, seq): the grid is row-major, a row per y
        ids = holder.grid[cells.reshape(-1)]  # (patches, (x, y)) as the model holds them
        return _apply(apply_fn, call, holder.rope, x, ids)

    return run


def _at_positions(apply_fn: Callable[..., Any], call: str) -> Callable[..., Any]:
    """``run(rope, x, positions)``: one ``(t, h, w)`` row per patch, as the vision tower builds them."""

    def run(rope: Any, x: Any, positions: Any) -> Any:
        ids = positions.permute(1, 2, 0).reshape(-1, positions.shape[0])  # (patches, axes)
        return _apply(apply_fn, call, rope, x, ids)

    return run


def _apply(apply_fn: Callable[..., Any], call: str, rope: Any, x: Any, ids: Any) -> Any:
    """The rotary called with ``ids`` and applied to x ``(batch, seq, heads, dim)`` as the model's attention holds q."""
    b, s, h, d = x.shape
    cos, sin = rope(x, ids)
    if call == "heads":  # (batch, heads, seq, dim), cos (1, patches, dim) -> (batch, 1, seq, dim)
        q = x.transpose(1, 2)
        cos, sin = cos.reshape(b, 1, s, -1), sin.reshape(b, 1, s, -1)
        out = apply_fn(q, q, cos, sin)[0].transpose(1, 2)
    else:  # (patches, heads, dim), cos (patches, rotary_dim)
        q = x.reshape(b * s, h, d)
        out = apply_fn(q, q, cos.reshape(b * s, -1), sin.reshape(b * s, -1))[0].reshape(b, s, h, d)
    return out.to(x.dtype)
