"""ESMFold 2's atom rotary: an atom's x, y, z coordinates and its space UID, each turning its own pairs.

``EsmFold2RotaryEmbedding(atom_config).forward(ref_pos, ref_space_uid, dtype)`` (its docstring: "rotary embedding
over physical position (ref_pos = x/y/z) plus a per-atom space UID ... with separate spatial and UID base
frequencies"). Its config documents the parts: ``num_spatial_rope_pairs_per_axis`` pairs for each spatial axis at
``spatial_rope_base_frequency``, ``num_uid_rope_pairs`` for the UID at ``uid_rope_base_frequency``, packed into half a
head (``validate_architecture``: ``3 * spatial + uid <= head_dim / 2``). The pairs are ``(j, j + head_dim / 2)``
(cos and sin at the full head dim, for plain ``rotate_half``), in that order: x's ``n`` pairs, y's, z's, the UID's
``u``; pair ``j`` of a group of ``n`` turns at ``base ** (-j / n)``, a table over ``2 n`` dims. The pairs left over
turn by nothing: an inert axis (scale 0) in the spec.

Design constraints: runs in a worker; torch imported lazily; the coordinates are the verifier's integer positions
(a subset of the real-valued ones the model passes).
"""

from __future__ import annotations

import inspect
from typing import Any

from ..axes import Axis, MultiAxis
from ..spec import RopeSpec
from .drive import Driven, check_shape, maker

__all__ = ["atom_axes", "drive_atoms", "takes_atom_coordinates"]

_SPATIAL = ("x", "y", "z")


def takes_atom_coordinates(modeling: Any, cls: Any) -> bool:
    """``forward(ref_pos, ref_space_uid, dtype)`` (ESMFold 2's convention)."""
    del modeling
    try:
        params = [p for p in inspect.signature(cls.forward).parameters if p != "self"]
    except (TypeError, ValueError):
        return False
    return params == ["ref_pos", "ref_space_uid", "dtype"]


def atom_axes(head_dim: int, spatial: int, uid: int, spatial_base: float, uid_base: float) -> MultiAxis:
    """x, y, z (``spatial`` pairs each, base ``spatial_base``), the UID (``uid`` pairs, ``uid_base``), in that order
    over the first pairs, each group's pair ``j`` at ``base ** (-2j / (2 * size))``; the rest an inert axis.

    Example:
        >>> atom_axes(32, 2, 10, 20.0, 10000.0).describe()
        'custom x:2 y:2 z:2 uid:10'
        >>> atom_axes(40, 2, 10, 20.0, 10000.0).describe()
        'custom x:2 y:2 z:2 uid:10 inert:4 (positions x: p, y: p, z: p, uid: p, inert: 0 (inert))'
    """
    groups = [(name, spatial, spatial_base) for name in _SPATIAL] + [("uid", uid, uid_base)]
    axes, start = [], 0
    for name, size, base in groups:
        axes.append(Axis(name, tuple(range(start, start + size)), tuple(range(size)), 2 * size, base))
        start += size
    rest = head_dim // 2 - start
    if rest > 0:  # inv_freq 0 there: the pairs never turn
        axes.append(Axis("inert", tuple(range(start, start + rest)), (0,) * rest, 2, scale=0.0))
    return MultiAxis("custom", tuple(axes), text_same_position=False)


def drive_atoms(modeling: Any, config: Any, where: str, cls_name: str) -> list[Driven]:
    """The atom rotary at each token's (x, y, z, uid) positions, applied with the module's ``apply_rotary_pos_emb``
    to q as ``(batch, heads, atoms, head_dim)`` (its default ``unsqueeze_dim``), as the atom attention does."""
    import torch  # heavy: imported when used

    rope = getattr(modeling, cls_name)(config)
    head_dim = int(config.head_dim)
    spatial, uid = int(config.num_spatial_rope_pairs_per_axis), int(config.num_uid_rope_pairs)
    s_base, u_base = float(config.spatial_rope_base_frequency), float(config.uid_rope_base_frequency)
    axes = atom_axes(head_dim, spatial, uid, s_base, u_base)
    spec = RopeSpec(head_dim=head_dim, base=u_base, layout="half", axes=axes)
    apply_fn = modeling.apply_rotary_pos_emb

    def run(module: Any, x: Any, positions: Any) -> Any:
        ref_pos = positions[:3].permute(1, 2, 0).to(torch.float32)  # (batch, atoms, (x, y, z)), in angstroms
        cos, sin = module(ref_pos, positions[3], dtype=x.dtype)  # as the encoder passes its embeddings' dtype
        q = x.transpose(1, 2)  # (batch, heads, atoms, head_dim), as the atom attention holds q
        return apply_fn(q, q, cos, sin)[0].transpose(1, 2).to(x.dtype)

    check_shape(run, rope, head_dim, torch.zeros(len(axes.axes), 1, 3, dtype=torch.long), "apply_rotary_pos_emb")
    words = ", ".join(f"{n}: {w}" for n, w in axes.pairs_in_words().items())
    notes = (
        f"shape `atom_coordinates`: {cls_name}({type(config).__name__}) from the {where} sub-config, called as "
        "forward(ref_pos, ref_space_uid, dtype=x.dtype) with each token's (x, y, z) as ref_pos (integer coordinates: "
        "a subset of the real ones the model passes) and its UID, and applied with apply_rotary_pos_emb(q, k, cos, "
        "sin) on q as (batch, heads, atoms, head_dim), as the atom attention does",
        f"spec: half-split pairs (j, j + {head_dim // 2}); x, y, z {spatial} pairs each at spatial_rope_base_frequency "
        f"{s_base:g} ** (-j / {spatial}), then the UID's {uid} at uid_rope_base_frequency {u_base:g} ** (-j / {uid}) "
        f"(pairs {words}), the {head_dim // 2 - 3 * spatial - uid} pairs left over inert, from the config's documented "
        "fields and the class's docstring",
    )
    make = maker(run, rope, "axes")
    return [Driven("", spec, make, cls_name, "apply_rotary_pos_emb", notes)]
