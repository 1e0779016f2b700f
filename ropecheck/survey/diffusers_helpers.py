"""Drive the rotary helpers of ``diffusers.models.embeddings``, each as the pipelines that use it call it.

``get_1d_rotary_pos_embed`` is a 1-D RoPE in three forms (interleaved real, half-split real, complex), each
paired with ``apply_rotary_emb`` as diffusers pairs them. The grid helpers build one table row per token of a
2-D or 3-D grid; how each one orders its axes over the head and its tokens is read from its source once and
kept as data (:data:`GRID_HELPERS`, each entry with the source it was read from), so the driver is one
function for all of them: the helper called on a grid of ``side`` tokens per axis where its crop is the grid
itself (the crop's interpolation, ``linspace(start, stop * (n - 1) / n, n)``, is then ``arange(n)``), each
token's row gathered at its index in the helper's token order, and q rotated by ``apply_rotary_emb`` with the
keywords its model passes.

A helper no entry describes is :class:`~.drive.NotDriven` with its signature. Allegro's helper and apply rotate
each third of the head (t, h, w) half-split within itself: they are judged in the spec's channel order
(``axial-shared``, half-split over the head) through :func:`~.channels.part_channels`, a fixed bijection.

Design constraints: runs in a worker (imports diffusers); torch imported lazily; tables, not special cases.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..axes import axial
from ..spec import RopeSpec
from .channels import part_channels
from .drive import Driven, NotDriven, check_shape, maker

__all__ = ["ALLEGRO_HEAD_DIM", "ALLEGRO_HELPERS", "GRID_HELPERS", "HELPER_HEAD_DIM", "GridHelper", "prepare_helper"]

#: The head a helper is driven with (no model gives one): divisible as every helper's split needs.
HELPER_HEAD_DIM = 128
#: A helper is a function: no module for ``model.to(dtype)`` to cast, so only the fp32 mode is run.
_NO_MODULE = ("fp32",)
_FP32_ONLY = "verified in the fp32 mode only: a function, with no module that model.to(dtype) would cast"
#: Tokens per axis of the grid a helper is driven on: 128^2 for 2-D, 32^3 for 3-D (every position asked for).
_SIDES = {2: 128, 3: 32}


def _linspace_crop(side: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The crop that makes a helper's ``linspace`` grid ``arange(side)`` on each spatial axis."""
    return (0, 0), (side, side)


def _meshgrid_hw(side: int) -> Any:
    """A ``(2, 1, side, side)`` grid, ``grid[0]`` the row (h) and ``grid[1]`` the column (w) of each token."""
    import torch  # heavy: imported when used

    h, w = torch.meshgrid(
        torch.arange(side, dtype=torch.float32), torch.arange(side, dtype=torch.float32), indexing="ij"
    )
    return torch.stack([h, w])[:, None]


@dataclass(frozen=True)
class GridHelper:
    """How one grid helper is called and read.

    Attributes:
        names: the spec's axes, in the order their pairs come in the head.
        style: the :func:`~ropecheck.axes.axial` style of those pairs.
        sections: ``head_dim -> pairs per axis`` (``split`` only).
        layout: the pairing within the head (``interleaved``: ``repeat_interleave_real`` or complex pairs).
        order: the axes from the slowest to the fastest in the token index (``(t * H + h) * W + w``).
        table: ``(helper, head_dim, side) -> the table`` over the grid, one row per token on dim 0 (cos and sin
            as a tuple, or complex).
        apply: the keywords ``apply_rotary_emb`` is called with; ``bhsd``: q as ``(batch, heads, seq, head_dim)``.
        source: where this reading comes from, said on the row's page.
    """

    names: tuple[str, ...]
    style: str
    sections: Callable[[int], tuple[int, ...]] | None
    layout: str
    order: tuple[str, ...]
    table: Callable[[Any, int, int], Any]
    apply: dict[str, Any]
    bhsd: bool
    source: str


def _flat_complex(emb: Any) -> Any:
    return emb.flatten(0, 1)


GRID_HELPERS: dict[str, GridHelper] = {
    "get_2d_rotary_pos_embed": GridHelper(
        ("w", "h"),
        "split",
        lambda d: (d // 4, d // 4),
        "interleaved",
        ("h", "w"),
        lambda f, d, s: f(d, _linspace_crop(s), (s, s), use_real=True),
        {},
        True,
        "`torch.meshgrid(grid_w, grid_h, indexing='xy')` stacks the column coordinate first, and "
        "get_2d_rotary_pos_embed_from_grid gives grid[0] the first half of the head: the first half turns by w "
        "(HunyuanDiT's convention); tokens in row-major (h, w) order; applied as HunyuanDiT's attention does",
    ),
    "get_2d_rotary_pos_embed_from_grid": GridHelper(
        ("h", "w"),
        "split",
        lambda d: (d // 4, d // 4),
        "interleaved",
        ("h", "w"),
        lambda f, d, s: f(d, _meshgrid_hw(s)),
        {"use_real": False},
        False,
        "grid[0] turns the first half of the head and grid[1] the second, each with its own table over d/2; "
        "its default complex form, applied with `apply_rotary_emb(..., use_real=False)` on (batch, seq, heads, "
        "head_dim)",
    ),
    "get_2d_rotary_pos_embed_lumina": GridHelper(
        ("w", "h"),
        "paired",
        None,
        "interleaved",
        ("h", "w"),
        lambda f, d, s: _flat_complex(f(d, s, s)),
        {"use_real": False},
        False,
        "`cat([emb_h, emb_w], dim=-1).flatten(2)` alternates the pairs: pair 2j turns by h and 2j+1 by w at "
        "frequency j of a table over d/2; the (H, W) table flattened as LuminaPatchEmbed flattens it "
        "(`freqs_cis[:H, :W].flatten(0, 1)`); linear_factor and ntk_factor 1, its defaults",
    ),
    "get_3d_rotary_pos_embed": GridHelper(
        ("t", "h", "w"),
        "split",
        lambda d: (d // 4 // 2, d // 8 * 3 // 2, d // 8 * 3 // 2),
        "interleaved",
        ("t", "h", "w"),
        lambda f, d, s: f(d, _linspace_crop(s), (s, s), s, use_real=True),
        {},
        True,
        "dims t = d // 4, h = w = d // 8 * 3, each its own interleaved table, concatenated (t, h, w); tokens "
        "in (t, h, w) order; applied as CogVideoX's attention does",
    ),
}

#: Allegro's rows: the helper that builds its three tables and the apply its attention calls with them.
ALLEGRO_HELPERS = ("get_3d_rotary_pos_embed_allegro", "apply_rotary_emb_allegro")
#: AllegroTransformer3DModel's ``attention_head_dim`` default: thirds of 32 dims, each half-split.
ALLEGRO_HEAD_DIM = 96
#: The interpolation scales (t, h, w) AllegroTransformer3DModel passes by default: not the helper's.
_ALLEGRO_MODEL_SCALES = (2.2, 2.0, 2.0)


def prepare_helper(module: Any, name: str) -> list[Driven]:
    """One ``embeddings`` helper ready to verify; :class:`NotDriven` with the reason for one no driver takes."""
    if name in ("get_1d_rotary_pos_embed", "apply_rotary_emb"):
        return _prepare_1d(module, name)
    if name in ALLEGRO_HELPERS:
        return [_drive_allegro(module, name)]
    if name not in GRID_HELPERS:
        sig = inspect.signature(getattr(module, name))
        raise NotDriven(f"{name}{sig}: a helper no entry of GRID_HELPERS reads")
    return [_drive_grid(module, name, GRID_HELPERS[name])]


def _drive_grid(module: Any, name: str, helper: GridHelper) -> Driven:
    """The helper's table over a grid of ``side`` tokens per axis, each token's row gathered, q rotated by it."""
    import torch  # heavy: imported when used

    d, n = HELPER_HEAD_DIM, len(helper.names)
    side = _SIDES[n]
    sections = helper.sections(d) if helper.sections else None
    axes = axial(d, helper.style, names=helper.names, sections=sections)  # type: ignore[arg-type]
    spec = RopeSpec(head_dim=d, base=10000.0, layout=helper.layout, axes=axes)  # type: ignore[arg-type]
    table = helper.table(getattr(module, name), d, side)
    apply = module.apply_rotary_emb
    rank = [helper.names.index(a) for a in helper.order]  # spec axis of each token-order axis

    def run(_: Any, x: Any, positions: Any) -> Any:
        outs = []
        for b in range(x.shape[0]):
            index = torch.zeros_like(positions[0, b])
            for a in rank:
                index = index * side + positions[a, b]
            # a complex table takes a leading batch dim, as LuminaPatchEmbed's `.unsqueeze(0)` gives it
            emb = tuple(t[index] for t in table) if isinstance(table, tuple) else table[index][None]
            xb = x[b : b + 1]
            if helper.bhsd:
                outs.append(apply(xb.transpose(1, 2), emb, **helper.apply).transpose(1, 2))
            else:
                outs.append(apply(xb, emb, **helper.apply))
        return torch.cat(outs).to(x.dtype)

    check_shape(run, None, d, torch.arange(3).repeat(n, 1)[:, None, :], "apply_rotary_emb")
    call = ", ".join(f"{k}={v}" for k, v in helper.apply.items())
    notes = (
        f"{name} on a {'x'.join([str(side)] * n)} grid (head_dim {d}, theta 10000, its default), positions "
        f"0..{side - 1} on every axis (a crop, where it takes one, equal to the grid: its linspace is then arange); "
        f"each token's row gathered at its index in ({', '.join(helper.order)}) order, q rotated by "
        f"apply_rotary_emb({call})",
        f"read from its source: {helper.source}",
        _FP32_ONLY,
    )
    make = maker(run, None, "axes", lambda m, dt: m)
    return Driven("", spec, make, name, "apply_rotary_emb", notes, max_position=side, modes=_NO_MODULE)


def _drive_allegro(module: Any, name: str) -> Driven:
    """Allegro's pair as its pipeline and attention call them: ``get_3d_rotary_pos_embed_allegro`` on a grid whose
    crop is the grid itself (its ``linspace`` grids are then ``arange``, checked), each axis's table indexed by
    the token's integer position (``F.embedding(pos, cos)``, as the pipeline's ``cartesian_prod`` positions index
    it), ``apply_rotary_emb_allegro`` on q as (batch, heads, seq, head_dim); judged in the spec's channel order,
    q's channels gathered into the apply's thirds and back (:func:`~.channels.part_channels`)."""
    import torch  # heavy: imported when used

    d, side = ALLEGRO_HEAD_DIM, _SIDES[3]
    *tables, grid_t, grid_h, grid_w = module.get_3d_rotary_pos_embed_allegro(
        d, _linspace_crop(side), (side, side), side
    )
    for axis, grid in zip("thw", (grid_t, grid_h, grid_w)):
        if not torch.equal(grid, torch.arange(side, dtype=grid.dtype)):
            raise NotDriven(f"its {axis} grid on a {side}-per-axis crop is {grid[:4].tolist()}..., not arange")
    apply = module.apply_rotary_emb_allegro
    spec = RopeSpec(head_dim=d, base=10000.0, layout="half", axes=axial(d, "shared", names=("t", "h", "w")))
    gather = torch.tensor(part_channels(d, 3))
    scatter = torch.argsort(gather)

    def run(_: Any, x: Any, positions: Any) -> Any:
        q = x[..., scatter].transpose(1, 2)  # the apply's channel order, q as (batch, heads, seq, head_dim)
        out = apply(q, tables, tuple(positions.long()))
        return out.transpose(1, 2)[..., gather].to(x.dtype)

    check_shape(run, None, d, torch.arange(3).repeat(3, 1)[:, None, :], name)
    notes = (
        f"get_3d_rotary_pos_embed_allegro({d}, ((0, 0), ({side}, {side})), ({side}, {side}), {side}) (head_dim {d}, "
        f"AllegroTransformer3DModel's default; theta 10000 and interpolation_scale (1, 1, 1), the helper's defaults): "
        f"its grids are arange(0..{side - 1}); each axis's table indexed by the token's position, as the pipeline's "
        "`cartesian_prod` positions index it, q rotated by apply_rotary_emb_allegro as AllegroAttnProcessor2_0 "
        "calls it",
        "read from its source: `x.chunk(3, dim=-1)` gives t, h and w a third of the head each, rotated half-split "
        "within itself (`cat((-x2, x1))`, tables from `repeat_interleave_real=False` over head_dim / 3): judged in "
        "the spec's channel order (axial-shared, half-split over the head), q's channels gathered into the thirds "
        "and back, a fixed bijection",
        f"not judged: the interpolation scales (t, h, w) = {_ALLEGRO_MODEL_SCALES} AllegroTransformer3DModel passes "
        "by default divide each axis's positions (`grid / interpolation_scale`): a per-axis position "
        "interpolation, non-integer positions no spec states",
        _FP32_ONLY,
    )
    make = maker(run, None, "axes", lambda m, dt: m)
    return Driven("", spec, make, "get_3d_rotary_pos_embed_allegro", "apply_rotary_emb_allegro", notes,
                  max_position=side, modes=_NO_MODULE)  # fmt: skip


def _prepare_1d(module: Any, name: str) -> list[Driven]:
    """``embeddings.get_1d_rotary_pos_embed`` in its three forms, each with ``apply_rotary_emb`` as diffusers pairs
    them (``sequence_dim=2``, q as (batch, heads, seq, head_dim)); ``apply_rotary_emb`` alike with
    ``sequence_dim=1``."""
    import torch  # heavy: imported when used

    get, apply = module.get_1d_rotary_pos_embed, module.apply_rotary_emb
    seq_dim = 2 if name == "get_1d_rotary_pos_embed" else 1
    head_dim, theta = HELPER_HEAD_DIM, 10000.0
    forms: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
        "interleaved": ({"use_real": True, "repeat_interleave_real": True}, {"use_real_unbind_dim": -1}),
        "half": ({"use_real": True, "repeat_interleave_real": False}, {"use_real_unbind_dim": -2}),
        "complex": ({"use_real": False}, {"use_real": False}),
    }
    out = []
    for form, (get_kw, apply_kw) in forms.items():

        def run(_: Any, x: Any, positions: Any, get_kw: Any = get_kw, apply_kw: Any = apply_kw) -> Any:
            outs = []
            for b in range(x.shape[0]):
                emb = get(head_dim, positions[b].float(), theta, **get_kw)
                if not apply_kw.get("use_real", True):  # q as (batch, seq, heads, d), freqs (batch, seq, d / 2)
                    outs.append(apply(x[b : b + 1], emb[None], **apply_kw))
                elif seq_dim == 1:
                    outs.append(apply(x[b : b + 1], emb, sequence_dim=1, **apply_kw))
                else:
                    outs.append(apply(x[b : b + 1].transpose(1, 2), emb, **apply_kw).transpose(1, 2))
            return torch.cat(outs).to(x.dtype)

        layout = "half" if form == "half" else "interleaved"
        spec = RopeSpec(head_dim=head_dim, base=theta, layout=layout)  # type: ignore[arg-type]
        make = maker(run, None, "positions", lambda m, dt: m)
        note = (
            f"{form}: get_1d_rotary_pos_embed({head_dim}, positions, {theta:g}, "
            f"{', '.join(f'{k}={v}' for k, v in get_kw.items())}) + apply_rotary_emb(..., "
            f"{', '.join(f'{k}={v}' for k, v in apply_kw.items())}{', sequence_dim=1' if seq_dim == 1 else ''})"
        )
        out.append(
            Driven(
                form, spec, make, "get_1d_rotary_pos_embed", "apply_rotary_emb", (note, _FP32_ONLY), modes=_NO_MODULE
            )
        )
    return out
