"""The valid range of positions a verification stays inside, and where it comes from.

A target is judged on positions 0 .. R-1 and on calls of at most R tokens, where R is, first
found: ``max_position`` (``--max-position``: how far the user serves the model); the model's
context -- the spec's ``max_position_embeddings`` (``--max-position-embeddings`` or the
config), or the context a scaling schedule extends to (YaRN, Llama 3, dynamic NTK, LongRoPE:
factor x ``original_max_position_embeddings``), whichever is larger; the context given with no
spec (identification); else :data:`~ropecheck.verify.model.VERIFY_MAX_POSITION`. A check that
cannot run inside R is skipped with that reason, never run past it: a bounded table that
raises past its end is right, not a finding.

Design constraints: pure arithmetic on the spec; no target call.
"""

from __future__ import annotations

from ..schedules import DynamicNTK, Llama3, LongRoPE, YaRN
from ..spec import RopeSpec

__all__ = ["scaled_context", "valid_range"]


def scaled_context(spec: RopeSpec) -> tuple[int | None, str]:
    """(the model's context, how it was found): max_position_embeddings, or the schedule's extended context."""
    mpe = spec.max_position_embeddings
    sc = spec.scaling
    scaled, how = None, ""
    if isinstance(sc, (YaRN, Llama3, DynamicNTK)):
        scaled = int(round(sc.factor * sc.original_max_position_embeddings))
        how = f"the scaled context, factor {sc.factor:g} x {sc.original_max_position_embeddings}"
    elif isinstance(sc, LongRoPE) and sc.factor is not None:
        scaled = int(round(sc.factor * sc.original_max_position_embeddings))
        how = f"the scaled context, factor {sc.factor:g} x {sc.original_max_position_embeddings}"
    if scaled is not None and (mpe is None or scaled > mpe):
        return scaled, how
    if mpe is not None:
        return mpe, f"max_position_embeddings {mpe}"
    return None, ""


def valid_range(
    spec: RopeSpec | None, max_position: int | None = None, context: int | None = None, *, default: int
) -> tuple[int, str]:
    """(R, its source): positions 0 .. R-1 are probed, no call is longer than R.

    Example:
        >>> from ropecheck import RopeSpec
        >>> valid_range(RopeSpec(head_dim=8, max_position_embeddings=4096), default=131072)[0]
        4096
    """
    if max_position is not None:
        return int(max_position), f"--max-position {int(max_position)}"
    if spec is not None:
        limit, how = scaled_context(spec)
        if limit is not None:
            return int(limit), how
    if context is not None:
        return int(context), f"--max-position-embeddings {int(context)}"
    return int(default), f"the default {int(default)}, no context given"
