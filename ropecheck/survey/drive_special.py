"""Drive the rotaries of transformers that take no position ids: a patch grid, a feature map, atom coordinates.

The canonical driver (:mod:`.drive`) calls ``rotary(x, position_ids)``. Some rotary classes build their positions
themselves, from what the model hands them, and each has a calling convention of its own (:data:`DRIVERS`, each
entry saying whether it applies from the class's signature and module):

* ``patch_centres`` (DINOv3 ViT, EoMT-DINOv3, Sapiens 2): ``forward(pixel_values)`` reads only the image's shape and
  turns each patch by its centre, normalised to ``[-1, 1]`` (``get_patches_center_coordinates``, whose docstring
  says so), times ``2 pi`` and ``inv_freq``; ``head_dim / 4`` frequencies per coordinate, rows first, half-split.
  Driven on a 128 x 128 patch grid (:data:`~.grid.GRID_SIDES`), each token's row gathered (:func:`~.grid.grid_rows`):
  the spec is axial-split whose axes map cell ``k`` of the ``S``-cell side to ``2 pi ((2k + 1) / S - 1)`` (scale
  ``4 pi / S``, offset ``2 pi (1 / S - 1)``), as timm's DINOv3 rotary is.
* ``feature_grid`` (EfficientLoFTR): ``forward(x)`` reads a coarse feature map's shape; ``compute_embeddings`` turns
  channel pair ``2k`` by the 1-based row and ``2k + 1`` by the 1-based column at ``hidden_size / 4`` frequencies per
  axis, and the attention rotates the whole hidden vector, before the head split (:mod:`.drive_loftr`).
* ``atom_coordinates`` (ESMFold 2's atom encoder): ``forward(ref_pos, ref_space_uid, dtype)`` turns a few pairs per
  spatial axis by the atom's x, y, z and more by its space UID, each group at its own base; the pairs left over turn by
  nothing (:mod:`.drive_atoms`).
* ``timestamps`` (MusicFlamingo's rotary time embedding, :mod:`.drive_time`).

Each spec is stated from the config and the model's documented semantics, never read from the class's tensors; what
a spec cannot state is said on the row's page. A family whose first rotary class one of them drives is driven this way
(:func:`prepare_special`), before the canonical driver.

Design constraints: runs in a worker (imports the family's modeling module); torch imported lazily; no change to the
canonical driver's path for any other family.
"""

from __future__ import annotations

import importlib
import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..axes import axial
from ..spec import RopeSpec
from .discover import Family
from .drive import Driven, NotDriven, all_configs, check_shape, config_annotation, maker
from .drive_atoms import drive_atoms, takes_atom_coordinates
from .drive_loftr import drive_feature_grid, takes_feature_grid
from .drive_time import drive_timestamps, takes_timestamps
from .grid import GRID_SIDES, grid_rows

__all__ = ["DRIVERS", "SpecialDriver", "built_from", "patch_centres_spec", "prepare_special"]

_SIDE = GRID_SIDES[2]


@dataclass(frozen=True)
class SpecialDriver:
    """A calling convention: whether a class takes it (``applies(modeling, cls)``), and how it is driven from the
    config that builds it (``drive(modeling, config, where, cls_name)``)."""

    name: str
    applies: Callable[[Any, Any], bool]
    drive: Callable[[Any, Any, str, str], list[Driven]]


def _takes_pixel_values(modeling: Any, cls: Any) -> bool:
    """``forward(pixel_values)`` in a module that computes patch centres (DINOv3's convention)."""
    centres = getattr(modeling, "get_patches_center_coordinates", None)
    return _forward_params(cls) == ["pixel_values"] and callable(centres)


def _forward_params(cls: Any) -> list[str]:
    try:
        return [p for p in inspect.signature(cls.forward).parameters if p != "self"]
    except (TypeError, ValueError):
        return []


def _rope_theta(config: Any) -> float:
    """The base as DINOv3's families keep it: ``rope_parameters['rope_theta']`` (EoMT-DINOv3) or ``rope_theta``."""
    params = getattr(config, "rope_parameters", None) or {}
    base = params.get("rope_theta") if isinstance(params, dict) else None
    base = base if base is not None else getattr(config, "rope_theta", None)
    if base is None:
        raise NotDriven(f"{type(config).__name__} holds no rope_theta")
    return float(base)


def patch_centres_spec(head_dim: int, base: float, side: int = _SIDE) -> RopeSpec:
    """DINOv3's rotary as a spec: ``head_dim / 4`` frequencies ``base ** (-2j / (head_dim / 2))`` per coordinate (the
    row's block first), half-split over the head; cell ``k`` of the ``side``-cell axis at its centre ``(2k + 1) / side
    - 1``, turned by ``2 pi`` times it: scale ``4 pi / side``, offset ``2 pi (1 / side - 1)``.

    Example:
        >>> patch_centres_spec(64, 100.0).axes.describe()
        'axial-split h:16 w:16 (positions h: 0.0981748 p - 6.2341, w: 0.0981748 p - 6.2341)'
    """
    quarter = head_dim // 4
    plain = axial(head_dim, "split", names=("h", "w"), sections=(quarter, quarter))
    scale, offset = 4 * math.pi / side, 2 * math.pi * (1 / side - 1)
    axes = replace(plain, axes=tuple(replace(a, scale=scale, offset=offset) for a in plain.axes))
    return RopeSpec(head_dim=head_dim, base=base, layout="half", axes=axes)


def _patch_size(config: Any) -> tuple[int, int]:
    size = config.patch_size
    return (int(size[0]), int(size[1])) if isinstance(size, (list, tuple)) else (int(size), int(size))


def _drive_patch_centres(modeling: Any, config: Any, where: str, cls_name: str) -> list[Driven]:
    """A DINOv3-style rotary on a ``side`` x ``side`` patch grid, applied with the module's
    ``apply_rotary_pos_emb`` to q as ``(batch, heads, seq, head_dim)``, as its attention does."""
    import torch  # heavy: imported when used

    rope = getattr(modeling, cls_name)(config).eval()  # eval: the training-time coordinate augmentation is off
    head_dim = config.hidden_size // config.num_attention_heads
    spec = patch_centres_spec(head_dim, _rope_theta(config))
    ph, pw = _patch_size(config)
    apply_fn = modeling.apply_rotary_pos_emb

    def table(module: Any, dtype: Any) -> Any:  # only the image's shape and dtype are read
        return module(torch.zeros((), dtype=dtype).expand(1, 3, _SIDE * ph, _SIDE * pw))

    emb_for = grid_rows(table, _SIDE, 2)

    def run(module: Any, x: Any, positions: Any) -> Any:
        outs = []
        for b in range(x.shape[0]):
            cos, sin = emb_for(module, positions[:, b, :], x.dtype)
            q = x[b : b + 1].transpose(1, 2)  # (1, heads, seq, head_dim), as the attention holds q
            outs.append(apply_fn(q, q, cos, sin)[0].transpose(1, 2))
        return torch.cat(outs).to(x.dtype)

    check_shape(run, rope, head_dim, torch.zeros(2, 1, 3, dtype=torch.long), "apply_rotary_pos_emb")
    first = spec.axes.axes[0] if spec.axes else None
    notes = (
        f"shape `patch_centres`: {cls_name}(config) from the {where} config, in eval, called with pixel_values of "
        f"{_SIDE * ph} x {_SIDE * pw} (a {_SIDE} x {_SIDE} grid of {ph} x {pw} patches; only its shape and dtype are "
        "read), each token's row gathered at its (h, w) cell and applied with apply_rotary_pos_emb(q, k, cos, sin) "
        "on q as (batch, heads, seq, head_dim), as the attention does (no prefix tokens: every token is a patch)",
        f"spec: {head_dim // 4} frequencies rope_theta ** (-2j / {head_dim // 2}) per coordinate (DINOv3's periods "
        "rope_theta ** (2j / (head_dim / 2)), inverted), the row's block first, half-split over the head; cell k of "
        f"the {_SIDE}-cell side at its centre (2k + 1) / {_SIDE} - 1 (get_patches_center_coordinates: 'the centers of "
        f"image patches, normalized to the range [-1, +1]'), turned by 2 pi times it: scale 4 pi / {_SIDE} = "
        f"{first.scale if first else 0:.9g}, offset 2 pi (1 / {_SIDE} - 1) = {first.offset if first else 0:.9g}",
        "not judged: training-time coordinate augmentation (pos_embed_shift, pos_embed_jitter, pos_embed_rescale: "
        "applied only in training), a grid that is not square",
    )
    make = maker(run, rope, "axes")
    return [Driven("", spec, make, cls_name, "apply_rotary_pos_emb", notes, max_position=_SIDE)]


#: The calling conventions, tried in order on each rotary class of a family.
DRIVERS: tuple[SpecialDriver, ...] = (
    SpecialDriver("patch_centres", _takes_pixel_values, _drive_patch_centres),
    SpecialDriver("feature_grid", takes_feature_grid, drive_feature_grid),
    SpecialDriver("atom_coordinates", takes_atom_coordinates, drive_atoms),
    SpecialDriver("timestamps", takes_timestamps, drive_timestamps),
)


def built_from(top: Any, wanted: str, depth: int = 4) -> tuple[str, Any] | None:
    """``(path, config)``: the first config of class ``wanted`` in ``top`` and its sub-configs (breadth first, to
    ``depth`` levels: ESMFold 2's ``structure_head.diffusion_module.atom_encoder``), or None."""
    return next(((path or "top-level", c) for path, c in all_configs(top, depth) if type(c).__name__ == wanted), None)


def prepare_special(family: Family, cls_name: str | None = None) -> list[Driven] | None:
    """``cls_name`` driven by the convention of :data:`DRIVERS` that takes it, from the config its ``__init__`` names;
    None when none takes it. With no ``cls_name`` (the family's own row), the family's first rotary class, only when
    a convention takes every one of them: otherwise the canonical driver keeps the family's row and each special
    class is driven on its own row. Raises :class:`NotDriven` with the reason when a convention takes the class but
    its config cannot be found or built."""
    if family.library != "transformers" or not family.rotary_classes:
        return None
    try:
        modeling = importlib.import_module(family.module)
    except Exception:  # the canonical driver says why
        return None
    drivers = {name: _driver_of(modeling, name) for name in ([cls_name] if cls_name else family.rotary_classes)}
    if any(d is None for d in drivers.values()):
        return None
    name = cls_name or family.rotary_classes[0]
    driver = drivers[name]
    assert driver is not None  # every class has one (above)
    return _drive_special(family, modeling, name, driver)


def _driver_of(modeling: Any, cls_name: str) -> SpecialDriver | None:
    cls = getattr(modeling, cls_name, None)
    return next((d for d in DRIVERS if cls is not None and d.applies(modeling, cls)), None)


def _drive_special(family: Family, modeling: Any, name: str, driver: SpecialDriver) -> list[Driven]:
    """``name`` driven by ``driver`` from the first config of the family's defaults of the class its ``__init__``
    names (the family's config class when it names none)."""
    try:
        top = getattr(importlib.import_module(family.config_module), family.config_class)()
    except Exception as exc:  # the family's own code failed: the reason of the skip
        raise NotDriven(f"{type(exc).__name__}: {exc}") from exc
    wanted = config_annotation(getattr(modeling, name), first=True) or family.config_class
    found = built_from(top, wanted)
    if found is None:
        raise NotDriven(f"{name} is built from a {wanted}, which the family's default config does not hold")
    where, config = found
    try:
        return driver.drive(modeling, config, where, name)
    except NotDriven:
        raise
    except Exception as exc:  # the family's own code failed under its convention
        raise NotDriven(f"{name} ({driver.name}): {type(exc).__name__}: {exc}") from exc
