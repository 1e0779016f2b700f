"""The channel bijection between a head split into parts, each half-split within itself, and a spec's order.

Some rotaries split the head into one contiguous part per axis and rotate each part half-split within itself
(``rotate_half`` per part: Gemma 4's vision encoder in transformers, Allegro in diffusers). A spec pairs dims
over the whole head, so such a target is judged in the spec's channel order (``axial-shared``, half-split over
the head): q is gathered from the spec's order into the parts' order before the call and back after it. The
map is a fixed bijection read from how the function splits the head, so the target judged through it is the
target itself, not a repaired copy.

Design constraints: pure Python (no torch), used by every library's driver that meets this split.
"""

from __future__ import annotations

__all__ = ["part_channels"]


def part_channels(head_dim: int, axes: int) -> list[int]:
    """For each channel of the spec's order (half-split pairs over the whole head, axis ``a`` the ``a``-th block of
    pairs: ``axial-shared``), the channel that holds it when the head is split into ``axes`` parts, each half-split
    within itself. Spec pair ``a * h + j`` (``h`` pairs per axis) is channels ``(a*h + j, a*h + j + head_dim/2)``;
    in the parts it is ``(a*2h + j, a*2h + j + h)``. A bijection, so the target judged through it is the target.

    Example:
        >>> part_channels(8, 2)
        [0, 1, 4, 5, 2, 3, 6, 7]
    """
    h = head_dim // (2 * axes)
    out = [0] * head_dim
    for a in range(axes):
        for j in range(h):
            p = a * h + j
            out[p], out[p + head_dim // 2] = a * 2 * h + j, a * 2 * h + j + h
    return out
