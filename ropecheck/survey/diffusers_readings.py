"""What the diffusers survey reads from diffusers' sources as data: one entry per class whose code the general
drivers cannot read alone, each with the lines it comes from.

* :data:`DERIVED_AXES` -- classes whose per-axis dims and bases their code derives (Cosmos' NTK bases,
  EasyAnimate's ``get_3d_rotary_pos_embed`` split), and the grid where their positions are ``arange``.
* :data:`LAYERED_FHW` -- ``video_fhw`` classes that take one entry per layer.
* :data:`REPAIRS` -- model defaults a class's code cannot run, with the smallest repair (a finding of its own).
* :data:`SKIP_REASONS` -- why a class no driver takes cannot be judged.

A reading is used only where its class is found; a class that changes its code is re-read, never special-cased
in the drivers' logic.

Design constraints: data and one dataclass; no torch, no diffusers import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["DERIVED_AXES", "LAYERED_FHW", "REPAIRS", "SKIP_REASONS", "DerivedAxes"]


@dataclass(frozen=True)
class DerivedAxes:
    """A class whose per-axis dims and bases its code derives (not constructor arguments), read as data.

    Attributes:
        dims: the built module -> each axis's dims, in the order their pairs come.
        bases: the built module -> each axis's base.
        source: the lines of its source this reading comes from, said on its row.
        grid: the built module -> the grid (patches per axis) where its positions are ``arange`` (a crop that is
            the grid itself); None: the cube of :data:`GRID_SIDES`.
    """

    dims: Callable[[Any], tuple[int, ...]]
    bases: Callable[[Any], tuple[float, ...]]
    source: str
    grid: Callable[[Any], tuple[int, ...]] | None = None


#: The classes read through :class:`DerivedAxes`, by name.
DERIVED_AXES: dict[str, DerivedAxes] = {
    "CosmosRotaryPosEmbed": DerivedAxes(
        lambda r: (r.dim_t, r.dim_h, r.dim_w),
        lambda r: (10000.0 * r.t_ntk_factor, 10000.0 * r.h_ntk_factor, 10000.0 * r.w_ntk_factor),
        "`self.dim_h = hidden_size // 6 * 2` (w alike, t the rest); `h_theta = 10000.0 * self.h_ntk_factor` per "
        "axis, the factor `rope_scale[a] ** (dim_a / (dim_a - 2))`; `cat([emb_t, emb_h, emb_w] * 2)`; called without "
        "`fps` (images: t positions arange; a video pipeline's fps scales them by base_fps / fps)",
    ),
    "EasyAnimateRotaryPosEmbed": DerivedAxes(
        lambda r: (r.rope_dim // 4, r.rope_dim // 8 * 3, r.rope_dim // 8 * 3),
        lambda r: (10000.0,) * 3,
        "forward calls `get_3d_rotary_pos_embed(self.rope_dim, grid_crops_coords, ...)` (theta 10000, its default), "
        "which splits the head t = d // 4, h = w = d // 8 * 3; its crop is the (60 // p, 90 // p) region "
        "`get_resize_crop_region_for_grid` fits the grid into, the grid itself at that size",
        lambda r: (32, 60 // r.patch_size, 90 // r.patch_size),
    ),
}


#: ``video_fhw`` classes that take one entry per layer (a frame each, the layer's index its t position) and a
#: last condition entry, as their model passes ``img_shapes``; the others take ``[(frames, height, width)]``.
LAYERED_FHW: dict[str, str] = {
    "QwenEmbedLayer3DRope": "`for idx, fhw in enumerate(video_fhw)`: layer idx's frames start at t = idx, and the "
    "last entry is the condition image (`_compute_condition_freqs`)",
}


#: Default arguments a model gives its rotary that its own code cannot run, by rotary class: the smallest repair
#: (what, in words; the arguments changed), read from the model's source. Used only when the default fails.
REPAIRS: dict[str, tuple[str, dict[str, Any]]] = {
    "EasyAnimateRotaryPosEmbed": (
        "patch_size=2, the default its model's docstring states (`patch_size (int, defaults to 2)`); the "
        "signature's None can be neither divided by (`grid_height // self.patch_size`) nor a Conv2d kernel",
        {"patch_size": 2},
    ),
}


#: Why a class no driver takes cannot be judged, read from its source (said after the driver's own reason).
SKIP_REASONS: dict[str, str] = {
    "LTX2VideoVaeRotaryPosEmbed3D": "its decoder builds it but the module applies its output nowhere a driver can "
    "follow",
    "Cosmos3VLTextRotaryEmbedding": "interleaved M-RoPE applied inline in its attention processor "
    "(`q_und * cos_und + _rotate_half(q_und) * sin_und`): no apply function to call",
    "Ideogram4MRoPE": "interleaved M-RoPE applied inline in its attention processor "
    "(`query * cos + _rotate_half(query) * sin`): no apply function to call",
    "MochiRoPE": "its frequencies are learned (`pos_frequencies`, a parameter of the model), and its h and w "
    "positions are patch centres `s * (k + 1/2 - n/2)` with `s = sqrt(192 * 192 / (H * W))` (`_centers`): "
    "centred on 0, in steps of s (half-integers on every grid where s is 1, as H * W = 36864 has an even side), "
    "so no grid gives positions 0..n-1: even with its frequencies set to an axial assignment, the model's "
    "positions cannot be driven",
    "OmniGenSuScaledRotaryEmbedding": "its model's default `rope_scaling` is None, which the class indexes "
    "(`rope_scaling['short_factor']`); the factor lists a repair would need are a checkpoint's, not a default's",
}
