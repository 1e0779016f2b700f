"""Positions on a patch grid: one call builds the rotary output of a whole grid, each token's row is gathered.

Image and video rotaries do not take positions: they take a grid (a latent ``(B, C, F, H, W)``, or an
``(H, W)`` shape) and return one row per patch, in the order the patch embedding flattens the grid
(row-major). The survey drives them on a grid that holds every position a verdict asks for
(:data:`GRID_SIDES`) and gathers, for each token, the row at its per-axis positions
(``(t * H + h) * W + w``). The spec's axes need not be in the grid's order: ``order`` says which spec
axis gives each grid axis (timm's ``grid_indexing='xy'`` puts the width's pairs first).

Design constraints: used by every library's grid drivers (diffusers, timm), so there is one gather; torch
is imported lazily; the grid's output is built once per module and dtype, in the child that runs it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .drive import NotDriven

__all__ = ["GRID_SIDES", "first", "grid_rows", "select", "tokens_dim"]

#: The grid side per number of axes a grid rotary is driven on (every axis 0..side-1): a 3-D grid of 32^3
#: tokens, a 2-D one of 128^2, so one call holds every position a verdict asks for.
GRID_SIDES = {2: 128, 3: 32}


def tokens_dim(emb: Any, count: int) -> int:
    """The dim of a rotary output that holds one row per token (size ``count``)."""
    shape = tuple(emb.shape)
    for i, n in enumerate(shape):
        if n == count:
            return i
    raise NotDriven(f"no dim of the output {shape} holds the {count} tokens")


def select(emb: Any, dim: int, index: Any) -> Any:
    """Rows ``index`` along ``dim`` of a rotary output (a tensor, or a tuple of them such as ``(cos, sin)``)."""
    if isinstance(emb, (tuple, list)):
        return type(emb)(e.index_select(dim, index) for e in emb)
    return emb.index_select(dim, index)


def first(emb: Any) -> Any:
    """The first tensor of a rotary output (its only one, or ``cos`` of ``(cos, sin)``)."""
    return emb[0] if isinstance(emb, (tuple, list)) else emb


def grid_rows(
    build: Callable[[Any, Any], Any], side: int, axes: int, order: Sequence[int] | None = None
) -> Callable[[Any, Any, Any], Any]:
    """``emb_for(module, positions, dtype)``: the rows of ``build(module, dtype)`` (the whole grid's output, a
    ``side`` per axis) at each token's positions ``(axes, seq)``.

    ``order[k]`` is the spec axis that gives grid axis ``k`` (default: the same order). The output is built once
    per module and dtype.
    """
    import torch  # heavy: imported when used

    order = tuple(order) if order is not None else tuple(range(axes))
    cache: dict[tuple[int, Any], tuple[Any, int]] = {}

    def emb_for(module: Any, pos: Any, dtype: Any) -> Any:
        key = (id(module), dtype)
        if key not in cache:
            out = build(module, dtype)
            cache[key] = (out, tokens_dim(first(out), side**axes))
        out, dim = cache[key]
        index = torch.zeros_like(pos[0])
        for a in order:
            index = index * side + pos[a]
        return select(out, dim, index)

    return emb_for
