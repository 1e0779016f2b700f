"""EfficientLoFTR's rotary: a coarse feature map's rows and columns, over the whole hidden vector.

``EfficientLoFTRRotaryEmbedding.forward(x)`` reads the coarse feature map's shape, the grid after the query
aggregation (``(H - q_aggregation_kernel_size) // q_aggregation_stride + 1`` cells a side), and
``compute_embeddings`` fills ``hidden_size / 2`` angle slots: slot ``2k`` is the 1-based row times frequency ``k``,
slot ``2k + 1`` the 1-based column times it, each slot then repeated for the two channels of its pair. The
attention applies it to q viewed as ``(batch, seq, 1, hidden_size)`` -- the whole hidden vector, before the head
split -- with Cohere's ``apply_rotary_pos_emb``, which pairs adjacent channels.

The spec is the original EfficientLoFTR's ``RoPEPositionEncodingSine(d_model)``: ``d_model / 4`` frequencies
``10000 ** (-k / (d_model / 4))`` per axis (here ``rope_theta`` and ``hidden_size``), the row on even pairs, the
column on odd ones, positions from 1. ``rope_parameters.partial_rotary_factor`` is no fraction of the head here: the
rotary sizes its frequency table for ``int(head_dim * partial_rotary_factor)`` dims, and the default 4.0 (= the
8 heads / 2) makes that ``hidden_size / 2``, the ``hidden_size / 4`` frequencies the slots take; any other value
cannot run (the slots and the table differ in size), so the driver says so rather than reading the key.

Design constraints: runs in a worker; torch imported lazily; the whole grid is built once per module and dtype.
"""

from __future__ import annotations

import inspect
from typing import Any

from ..axes import Axis, MultiAxis
from ..spec import RopeSpec
from .drive import Driven, NotDriven, check_shape, maker
from .grid import GRID_SIDES, grid_rows

__all__ = ["drive_feature_grid", "feature_grid_spec", "takes_feature_grid"]

_SIDE = GRID_SIDES[2]
_TABLE = "compute_embeddings"


def takes_feature_grid(modeling: Any, cls: Any) -> bool:
    """``forward(x)`` in a module whose ``compute_embeddings(inv_freq, height, width, hidden_size)`` builds the
    table (EfficientLoFTR's convention)."""
    try:
        forward = [p for p in inspect.signature(cls.forward).parameters if p != "self"]
        table = list(inspect.signature(getattr(modeling, _TABLE)).parameters)
    except (AttributeError, TypeError, ValueError):
        return False
    return forward == ["x"] and table == ["inv_freq", "embed_height", "embed_width", "hidden_size"]


def feature_grid_spec(hidden_size: int, base: float) -> RopeSpec:
    """The original EfficientLoFTR's rotary over the hidden vector: ``hidden_size / 4`` frequencies
    ``base ** (-2k / (hidden_size / 2))`` per axis, the row on pair ``2k`` and the column on pair ``2k + 1``, adjacent
    channels paired, cells at positions ``1, 2, ...`` (offset 1).

    Example:
        >>> feature_grid_spec(16, 10000.0).axes.pairs_in_words()
        {'h': '0, 2, ..., 6 (every 2nd)', 'w': '1, 3, ..., 7 (every 2nd)'}
    """
    count = hidden_size // 4
    axes = tuple(
        Axis(name, tuple(range(a, 2 * count, 2)), tuple(range(count)), 2 * count, offset=1.0)
        for a, name in enumerate(("h", "w"))
    )
    multi = MultiAxis("custom", axes, text_same_position=False)
    return RopeSpec(head_dim=hidden_size, base=base, layout="interleaved", axes=multi)


def _table_dims(config: Any) -> tuple[int, float]:
    """``(int(head_dim * partial_rotary_factor), the factor)``: the dims the rotary's frequency table is sized for."""
    params = config.rope_parameters
    factor = float(params.get("partial_rotary_factor", 1.0))
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    return int(head_dim * factor), factor


def drive_feature_grid(modeling: Any, config: Any, where: str, cls_name: str) -> list[Driven]:
    """EfficientLoFTR's rotary on a ``side`` x ``side`` grid of coarse cells, applied as its attention applies it."""
    import torch  # heavy: imported when used

    hidden = int(config.hidden_size)
    dims, factor = _table_dims(config)
    if dims != hidden // 2:
        raise NotDriven(
            f"{cls_name}: its table is sized for int(head_dim * partial_rotary_factor) = {dims} dims, but "
            f"{_TABLE} fills hidden_size / 2 = {hidden // 2} angle slots (two axes over hidden_size / 4 frequencies)"
        )
    rope = getattr(modeling, cls_name)(config)
    spec = feature_grid_spec(hidden, float(config.rope_parameters["rope_theta"]))
    kernel, stride = int(config.q_aggregation_kernel_size), int(config.q_aggregation_stride)
    side_in = (_SIDE - 1) * stride + kernel  # the feature map whose aggregated grid is _SIDE cells a side
    apply_fn = modeling.apply_rotary_pos_emb

    def table(module: Any, dtype: Any) -> Any:  # only the feature map's shape and dtype are read
        cos, sin = module(torch.zeros((), dtype=dtype).expand(1, hidden, side_in, side_in))
        return cos.reshape(-1, cos.shape[-1]), sin.reshape(-1, sin.shape[-1])

    emb_for = grid_rows(table, _SIDE, 2)

    def run(module: Any, x: Any, positions: Any) -> Any:
        outs = []
        for b in range(x.shape[0]):
            cos, sin = emb_for(module, positions[:, b, :], x.dtype)
            q = x[b : b + 1]  # (1, seq, heads, hidden_size): the attention's (batch, seq, 1, hidden_size)
            outs.append(apply_fn(q, q, cos[None], sin[None], unsqueeze_dim=2)[0])
        return torch.cat(outs).to(x.dtype)

    check_shape(run, rope, hidden, torch.zeros(2, 1, 3, dtype=torch.long), "apply_rotary_pos_emb")
    notes = (
        f"shape `feature_grid`: {cls_name}(config) from the {where} config, called with a {side_in} x {side_in} "
        f"feature map (a {_SIDE} x {_SIDE} grid after the {kernel} x {kernel}, stride {stride} query aggregation; only "
        "its shape and dtype are read), each token's row gathered at its (h, w) cell and applied with "
        "apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=2) on q as (batch, seq, 1, hidden_size), as the attention "
        "does: the whole hidden vector is rotated before the head split, so the spec's head is hidden_size "
        f"({hidden}) and each of the {config.num_attention_heads} heads takes {hidden // config.num_attention_heads} "
        "of its channels",
        f"spec: the original EfficientLoFTR's RoPEPositionEncodingSine(d_model={hidden}): d_model / 4 = {hidden // 4} "
        f"frequencies rope_theta ** (-k / {hidden // 4}) per axis, the 1-based row (cumsum of ones) on pair 2k and "
        "the 1-based column on pair 2k + 1, adjacent channels paired (repeat_interleave(2)); positions p + 1 "
        "(offset 1) for the cell p",
        f"rope_parameters.partial_rotary_factor = {factor:g} is no fraction of the head here: the rotary sizes its "
        f"frequency table for int(head_dim * {factor:g}) = {dims} dims, hidden_size / 2, the {hidden // 4} "
        "frequencies per axis that compute_embeddings' slots take (another value cannot run: the two differ in size)",
    )
    make = maker(run, rope, "axes")
    return [Driven("", spec, make, cls_name, "apply_rotary_pos_emb", notes, max_position=_SIDE)]
