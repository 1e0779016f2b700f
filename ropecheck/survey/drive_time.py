"""MusicFlamingo's rotary time embedding: pairs turned by an audio frame's timestamp, in seconds.

``MusicFlamingoRotaryEmbedding(config)`` is built from the top-level ``MusicFlamingoConfig`` (it reads
``audio_frame_step`` there; its text config is Qwen2's). Its docstring: "axial rotary embeddings over the window index
within each audio sample and the encoder time index within each window, then modulates both axes with absolute
timestamps in seconds" -- "a checkpoint-faithful integration, not a direct implementation of the RoTE formulation".
``forward(timestamps, seq_len)`` gives each frame ``[window half | time half]`` angles over ``2 * dim`` channels
(``dim = int(head_dim * partial_rotary_factor)``), applied by ``apply_rotary_time_emb`` to the first of them, adjacent
channels paired, in float64; the rest of the head passes through. For the frame at index ``P`` of window ``W`` with
timestamp ``t``, pair ``k`` of a half turns by ``-2 pi t`` times ``theta_k (W / M)`` (window half) or ``theta_k (2 pi P
/ M)`` (time half), ``theta_k = rope_theta ** (-2k / dim)``, ``M = max_position_embeddings`` (which the config sets to
``rope_theta``).

The angle is a product of the timestamp and the frame's indices: over the model's own timestamps, ``t = (W L + P)
step`` (``L`` frames a window), it grows with the square of the frame index, which no spec states. So the rotary is
judged as a function of the timestamp at a fixed window and frame index -- the frame's timestamp ``t = m`` seconds
at the verifier's position ``m`` (whole seconds, exact in float32 as the model's float32 timestamps of every 25th
encoder frame are) -- where it is a 1-D rotary with one frequency per pair, ``2 pi theta_k W / M`` and ``2 pi theta_k
2 pi P / M`` (fp64, from the formula), turned backwards (``-timestamps``). Only the module built in float32 is judged
(``modes``): cast with ``module.to(dtype)`` its ``inv_freq`` and ``position_angles`` buffers are rounded and ``forward``
forms each angle in that dtype as a product of two rounded factors (``.to(freqs)``), which no precision model of the
verifier reproduces, so a cast verdict would name an axes difference that is not there.

Design constraints: runs in a worker; torch imported lazily; each call builds ``seq_len`` frames per token, so the
frame index is kept small.
"""

from __future__ import annotations

import inspect
import math
from typing import Any

from ..axes import Axis, MultiAxis
from ..spec import RopeSpec
from .drive import Driven, NotDriven, check_shape, maker

__all__ = ["FRAME_INDEX", "WINDOW_INDEX", "drive_timestamps", "takes_timestamps", "time_axes"]

#: The frame index and the window index the rotary is judged at: a frame of the fourth window, eight frames in.
WINDOW_INDEX, FRAME_INDEX = 3, 7
#: The audio encoder's downsampling of mel frames (its conv2 stride and its average pooling), as the model's own
#: timestamps count it: ``audio_frame_step * 4`` seconds per encoder frame.
_DOWNSAMPLING = 4


def takes_timestamps(modeling: Any, cls: Any) -> bool:
    """``forward(timestamps, seq_len)`` in a module with ``apply_rotary_time_emb`` (MusicFlamingo's convention)."""
    try:
        params = [p for p in inspect.signature(cls.forward).parameters if p != "self"]
    except (TypeError, ValueError):
        return False
    return params == ["timestamps", "seq_len"] and callable(getattr(modeling, "apply_rotary_time_emb", None))


def _integral(name: str, value: Any) -> int:
    """``value`` as the integer it equals (1200.0 -> 1200); :class:`NotDriven` when it is not integral."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not float(value).is_integer() or value <= 0:
        raise NotDriven(f"{name} = {value!r}: a positive integer is needed")
    return int(value)


def time_axes(base: float, dim: int, positions: int, step: float, window: int, frame: int) -> MultiAxis:
    """One axis ``t`` over the ``dim`` pairs (the window half's ``dim / 2``, then the time half's), each pair ``k``
    of a half at its own frequency ``2 pi step theta_k c`` (``c = window / positions`` or ``2 pi frame /
    positions``), fp64, turned backwards (scale -1).

    Example:
        >>> [round(f, 6) for f in time_axes(1200.0, 4, 1200, 1.0, 3, 7).axes[0].freqs]
        [0.015708, 0.000453, 0.230291, 0.006648]
    """
    half = dim // 2
    theta = [base ** (-2 * k / dim) for k in range(half)]
    window_c, frame_c = window / positions, 2 * math.pi * frame / positions
    freqs = tuple(2 * math.pi * step * t * c for c in (window_c, frame_c) for t in theta)
    axis = Axis("t", tuple(range(dim)), tuple(range(dim)), 2 * dim, scale=-1.0, freqs=freqs)
    return MultiAxis("custom", (axis,), text_same_position=False)


def drive_timestamps(modeling: Any, config: Any, where: str, cls_name: str) -> list[Driven]:
    """The time rotary at the frame :data:`FRAME_INDEX` of window :data:`WINDOW_INDEX`, its timestamp the verifier's
    position times the encoder's frame step, applied with ``apply_rotary_time_emb`` as the model applies it."""
    import torch  # heavy: imported when used

    positions = _integral("max_position_embeddings", config.max_position_embeddings)
    params = config.rope_parameters
    base, factor = float(params["rope_theta"]), float(params.get("partial_rotary_factor", 1.0))
    head_dim = int(config.head_dim)
    dim = int(head_dim * factor)
    step = float(config.audio_frame_step) * _DOWNSAMPLING
    rope = getattr(modeling, cls_name)(config)
    axes = time_axes(base, dim, positions, 1.0, WINDOW_INDEX, FRAME_INDEX)  # timestamps in whole seconds
    spec = RopeSpec(head_dim=head_dim, rotary_dim=2 * dim, base=base, layout="interleaved", axes=axes)
    apply_fn = modeling.apply_rotary_time_emb
    seq_len = FRAME_INDEX + 1
    window = (WINDOW_INDEX * seq_len + torch.arange(seq_len, dtype=torch.float64)) * step  # the window's own frames
    # the window index the rotary reads back: round(window start / (step * seq_len)) = WINDOW_INDEX

    def run(module: Any, x: Any, pos: Any) -> Any:
        b, s = x.shape[:2]
        stamps = window.expand(b * s, seq_len).clone()
        stamps[:, FRAME_INDEX] = pos[0].reshape(-1).to(torch.float64)  # the frame judged, at m seconds
        cos, sin = module(stamps.to(torch.float32), seq_len=seq_len)
        cos, sin = cos[:, FRAME_INDEX].reshape(b, s, 1, -1), sin[:, FRAME_INDEX].reshape(b, s, 1, -1)
        return apply_fn(x, cos, sin).to(x.dtype)  # heads share each frame's angles

    check_shape(run, rope, head_dim, torch.zeros(1, 1, 3, dtype=torch.long), "apply_rotary_time_emb")
    notes = (
        f"shape `timestamps`: {cls_name}(config) from the {where} config ({type(config).__name__}: it reads "
        f"audio_frame_step there), called as forward(timestamps, seq_len={seq_len}) with one row per token -- the "
        f"frames of window {WINDOW_INDEX} at their own timestamps ({step:g} s apart: audio_frame_step * "
        f"{_DOWNSAMPLING}, the encoder's frame), the frame at index {FRAME_INDEX} at the token's position m in whole "
        "seconds (exact in float32) -- and applied with apply_rotary_time_emb(x, cos, sin) to that frame's angles, as "
        "get_audio_features applies them",
        f"spec: one axis t (the timestamp, in seconds), turned backwards (-timestamps * 2 pi); pairs 0-"
        f"{dim // 2 - 1} (the window half) at 2 pi * theta_k * {WINDOW_INDEX} / {positions}, pairs "
        f"{dim // 2}-{dim - 1} (the time half) at 2 pi * theta_k * 2 pi * {FRAME_INDEX} / {positions}, "
        f"theta_k = rope_theta ** (-2k / {dim}) (int(head_dim {head_dim} * partial_rotary_factor {factor:g})), "
        f"adjacent channels paired; channels {2 * dim}-{head_dim - 1} pass through",
        f"max_position_embeddings = {config.max_position_embeddings!r} (the config sets it to rope_theta, a float) "
        f"is read as the integer {positions} it equals: the rotary divides by it and sizes its table with "
        f"int() of it, so the float runs as that integer",
        "not judged: how the angle depends on the window and frame indices (a product with the timestamp: over the "
        "model's own timestamps it grows with the square of the frame index, which no spec states); only the "
        f"rotation by the timestamp at window {WINDOW_INDEX}, frame {FRAME_INDEX} is",
        "cast not judged: module.to(bfloat16 | float16) rounds inv_freq and position_angles, and forward forms each "
        "angle in that dtype as the product of two rounded factors (window or frame factor times -2 pi t, "
        "`.to(freqs)`), an arithmetic no precision model of the verifier reproduces: a cast verdict would name an "
        "axes difference that is not there",
    )
    make = maker(run, rope, "axes")
    return [Driven("", spec, make, cls_name, "apply_rotary_time_emb", notes, modes=("fp32",))]
