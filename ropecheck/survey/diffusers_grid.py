"""Call a diffusers rotary once on a grid that holds every position a verdict asks for, and gather each token's row.

The ``grid``, ``sizes``, ``axes`` and ``fhw`` driver shapes of :mod:`.diffusers_drive` differ only in how the class
is called -- a latent ``(B, C, F, H, W)`` or ``(B, C, H, W)``, frame indices with a height and a width, one index
tensor per axis, or ``video_fhw`` -- so they share one function, :func:`grid_emb_for`: the class called once per
module and dtype on a grid of :data:`GRID_SIDES` patches per axis (or the grid a reading of
:mod:`.diffusers_readings` names), its output made contiguous, and the row of token ``(t, h, w)`` gathered at
``(t * H + h) * W + w`` -- the order the patch embeddings flatten the latents in -- offset where the class
centres its positions (Qwen-Image's ``scale_rope``).

Design constraints: runs in a worker; torch imported lazily.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

from .diffusers_readings import DERIVED_AXES, LAYERED_FHW
from .drive import NotDriven
from .grid import GRID_SIDES, first, tokens_dim
from .grid import select as select_rows

__all__ = ["GRID_SIDES", "contiguous", "first", "forward_of", "grid_emb_for", "select_rows", "tokens_dim"]


def forward_of(cls: Any) -> Any:
    """The method a module is called through (``forward``, else ``__call__``)."""
    return cls.forward if hasattr(cls, "forward") else cls.__call__


def contiguous(emb: Any) -> Any:
    """A rotary output with every tensor contiguous (gathers from a strided view are slow)."""
    if isinstance(emb, (tuple, list)):
        return type(emb)(e.contiguous() for e in emb)
    return emb.contiguous()


def grid_emb_for(
    shape: str, rope: Any, args: dict[str, Any], n: int, flatten: bool, notes: list[str]
) -> tuple[Callable[..., Any], int]:
    """The rotary called once on a grid holding every position (``grid``, ``sizes``, ``axes``, ``fhw``), each
    token's row gathered at ``(t * H + h) * W + w``; and the positions the grid holds per axis."""
    import torch  # heavy: imported when used

    side = GRID_SIDES.get(n)
    if side is None:
        raise NotDriven(f"a {n}-axis grid: no grid size to drive it on")
    interp = args.get("rope_axes_dim")
    if interp is not None:  # the position interpolation h * rope_axes_dim[0] // height is the identity there
        side = int(max(interp))
        notes.append(
            f"driven on a {side}-patch grid per axis: its positions are interpolated onto rope_axes_dim "
            f"{list(interp)} (`idx * rope_axes_dim // size`), the identity at that size"
        )
    patch = _patch(args, n)
    reading = DERIVED_AXES.get(type(rope).__name__)
    sides = reading.grid(rope) if reading is not None and reading.grid is not None else (side,) * n
    offsets = (0,) * n
    if shape == "fhw":
        sides, offsets, why = _fhw_grid(rope, side)
        notes.append(why)
    cache: dict[tuple[int, Any], tuple[Any, int]] = {}

    fhw = "fhw" in inspect.signature(forward_of(type(rope))).parameters
    if shape == "sizes" and not fhw:  # sizes in patches, unless the class divides by its own patch size
        own = getattr(rope, "patch_size", 1)
        patch = (1, own, own) if isinstance(own, int) else (1, *own[-2:])
        if flatten:
            notes.append("its (batch, channels, t, h, w) output flattened to tokens as the model does")

    def emb_for(module: Any, pos: Any, dtype: Any) -> Any:
        key = (id(module), dtype)
        if key not in cache:
            if shape == "sizes" and fhw:  # forward((frames, height, width)) in patches
                out = module((side,) * 3, device="cpu")
            elif shape == "sizes":  # frame indices, height and width, as the model passes them
                out = _by_sizes(module, side, patch)
                out = out.flatten(2).transpose(1, 2) if flatten else out
            elif shape == "axes":
                out = _by_axes(module, side, n)
            elif shape == "fhw":
                out = _by_video_fhw(module, sides)
            else:
                out = module(torch.zeros(1, 1, *(s * p for s, p in zip(sides, patch)), dtype=dtype))
            out = contiguous(out)  # a transposed table makes every gather a strided copy
            cache[key] = (out, tokens_dim(first(out), math.prod(sides)))
        out, dim = cache[key]
        index = torch.zeros_like(pos[0])
        for a in range(n):
            index = index * sides[a] + pos[a] + offsets[a]
        return select_rows(out, dim, index)

    max_position = min(sides)
    notes.append(
        f"driven on a {'x'.join(map(str, sides))} patch grid (patch size {list(patch)}); each token's row "
        f"gathered at (t * H + h) * W + w, the order the patch embedding flattens the latents"
        + (f"; judged over positions 0..{max_position - 1} on every axis" if len(set(sides)) > 1 else "")
    )
    if shape == "axes":
        notes.append(
            f"called with arange({side}) per axis, as its pipeline builds the positions; scale_factor left at "
            "forward's default (a pipeline may pass a per-resolution one)"
        )
    return emb_for, max_position


def _fhw_grid(rope: Any, side: int) -> tuple[tuple[int, ...], tuple[int, ...], str]:
    """The grid a ``video_fhw`` class is driven on, the token offset of position 0 per axis, and the note.

    With ``scale_rope`` its h and w positions are centred (`cat([neg[-(H - H // 2):], pos[:H // 2]])`: token h
    is at h - (H - H // 2)): on a grid of 2 * side a side, positions 0..side-1 are tokens side..2 * side - 1."""
    if not getattr(rope, "scale_rope", False):
        return (side,) * 3, (0, 0, 0), "video_fhw [(frames, height, width)], positions 0..n-1 along each axis"
    why = (
        f"scale_rope: h and w positions centred (token h at h - (H - H // 2)); driven on a {side}x{2 * side}x"
        f"{2 * side} grid, positions 0..{side - 1} taken from tokens {side}..{2 * side - 1}; the text tokens "
        "(every axis at one position past the image's) are not judged"
    )
    return (side, 2 * side, 2 * side), (0, side, side), why


def _by_video_fhw(module: Any, sides: tuple[int, ...]) -> Any:
    """The image tokens' table of ``forward(video_fhw, max_txt_seq_len=1, device)``: ``[(frames, height, width)]``, or
    for a :data:`LAYERED_FHW` class one entry per frame and the condition entry last."""
    import torch  # heavy: imported when used

    f, h, w = sides
    if type(module).__name__ not in LAYERED_FHW:
        return module(video_fhw=[(f, h, w)], max_txt_seq_len=1, device=torch.device("cpu"))[0]
    out = module(video_fhw=[[(1, h, w)] * f + [(1, h, w)]], max_txt_seq_len=1, device=torch.device("cpu"))[0]
    return out[: f * h * w]  # the layers' rows, in order; the condition entry's come last


def _by_axes(module: Any, side: int, n: int) -> Any:
    """``forward(pos)`` or ``forward(shape, pos)`` with ``arange(side)`` on each axis (as Kandinsky's pipelines
    build ``visual_rope_pos``), the ``(t, h, w)`` grid of its output flattened as the model's
    ``flatten(1, 3)``/``flatten(0, 2)`` does."""
    import torch  # heavy: imported when used

    pos = tuple(torch.arange(side) for _ in range(n))
    params = inspect.signature(module.forward).parameters
    out = module((1, *(side,) * n), pos) if "shape" in params else module(pos)
    dims = tuple(out.shape)
    start = next((i for i in range(len(dims)) if dims[i : i + n] == (side,) * n), None)
    if start is None:
        raise NotDriven(f"no {n} dims of its output {dims} span the {side}-per-axis grid")
    return out.flatten(start, start + n - 1)


def _by_sizes(module: Any, side: int, patch: tuple[int, ...]) -> Any:
    """``forward(frame_indices, height, width, device)`` on ``side`` frames (``arange``) of ``side`` patches a side:
    frame indices ``(batch, frames)`` as Helios' model passes them, else ``(frames,)`` as Framepack's pipeline does
    (its ``meshgrid`` takes 1-D indices only)."""
    import torch  # heavy: imported when used

    sizes = {"height": side * patch[1], "width": side * patch[2], "device": "cpu"}
    try:
        return module(frame_indices=torch.arange(side)[None], **sizes)
    except (RuntimeError, IndexError, ValueError):
        return module(frame_indices=torch.arange(side), **sizes)


def _patch(args: dict[str, Any], n: int) -> tuple[int, ...]:
    p = args.get("patch_size", 1)
    if isinstance(p, (tuple, list)):
        return tuple(int(v) for v in p)[-n:]
    pt = int(args.get("patch_size_t", 1) or 1)
    return (pt, int(p), int(p))[-n:] if n == 3 else (int(p),) * n
