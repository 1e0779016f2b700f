"""Recognising a cause from one call's output (:func:`explain`), or from two calls (:func:`length_dependence`).

:func:`explain` predicts the output under each hypothesis (positions ignored, taken from row 0,
shifted, reversed direction, the other layout, cos and sin swapped, the attention factor missing
or squared, the rotated dims at the other end, frequencies or angles rounded to a low-precision
dtype, another base, ...) with the fp64 reference and keeps the one that explains the output, if
any does. Each hypothesis is a test of the ``output`` evidence of the recogniser of its causes
(:mod:`.causes`); they are tried in registration order, and a tie goes to the first.

Design constraints: pure numpy and the reference (bfloat16 rounded as torch rounds it, with
numpy); a hypothesis is accepted only when it explains the output to within the tolerance the
comparison itself used, and much better than the spec does.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..reference import apply_rope, cos_sin, rotate
from ..schedules import DynamicNTK, Linear, LongRoPE
from ..spec import RopeSpec
from ..tolerance import round_bfloat16
from .causes import (
    COMMON_BASES,
    FREQUENCIES,
    LENGTH,
    ORIENTATION,
    POSITIONS,
    PRECISION,
    ROTARY_DIMS,
    SCALE,
    Diagnosis,
    recognise,
    sentence,
    tests_for,
)

__all__ = ["explain", "length_dependence", "rotate_by", "round_to"]


def length_dependence(spec: RopeSpec, detail: str, *, otherwise: tuple[str, str]) -> tuple[str, str, str | None]:
    """(message, hint, cause) for a token whose rotation depends on the call (its length or largest position).

    The cause is the first that the ``calls`` evidence's tests recognise (``ntk_call_length``, worded with
    ``detail``); when none does, no cause is named and ``otherwise`` (message, hint) says it.
    """
    diag = recognise("calls", spec, detail)
    if diag is None:
        return otherwise[0], otherwise[1], None
    return diag.message, diag.hint, diag.cause


@LENGTH.test("calls")
def _ntk_call_length(spec: RopeSpec, detail: str) -> Diagnosis | None:
    """Under dynamic NTK the frequencies are fixed below the original context, so the call can only matter through
    a length taken from the wrong place."""
    if not isinstance(spec.scaling, DynamicNTK):
        return None
    msg, hint = sentence("ntk_call_length", detail=detail)
    return Diagnosis("length_dependence", "ntk_call_length", msg, hint)


# --------------------------------------------------------------------------- recognising a cause in an output


def round_to(values: np.ndarray, dtype: str) -> np.ndarray:
    """``values`` rounded to ``dtype`` (float64 out); bfloat16 as torch rounds it (:func:`round_bfloat16`)."""
    values = np.asarray(values, dtype=np.float64)
    if dtype in ("float64",):
        return values
    if dtype in ("float32", "float16"):
        return values.astype(dtype).astype(np.float64)
    return round_bfloat16(values)


def rotate_by(x: np.ndarray, spec: RopeSpec, angles: np.ndarray, *, scale: float | None = None) -> np.ndarray:
    """Rotate ``x``'s pairs (the spec's layout, rotated dims and direction) by ``angles`` (..., r/2), times ``scale``.

    ``angles`` broadcasts against ``x.shape[:-1] + (r/2,)``; ``scale`` defaults to the spec's attention factor.
    """
    f = spec.attention_factor if scale is None else scale
    c, s = np.cos(angles), float(spec.direction) * np.sin(angles)
    a, b = spec.pairs().T
    out = np.array(x, dtype=np.float64, copy=True)
    xa, xb = x[..., a], x[..., b]
    out[..., a] = f * (xa * c - xb * s)
    out[..., b] = f * (xa * s + xb * c)
    return out


def _seq_len(spec: RopeSpec, positions: np.ndarray, seq_len: int | None) -> int | None:
    if seq_len is not None or not spec.depends_on_length:
        return seq_len
    return int(positions.max()) + 1 if positions.size else None


def explain(
    got: np.ndarray,
    x: np.ndarray,
    positions: np.ndarray,
    spec: RopeSpec,
    *,
    dtype: str,
    bound: np.ndarray | float,
    seq_len: int | None = None,
    families: frozenset[str] | None = None,
) -> Diagnosis | None:
    """The cause that explains ``got`` = the target's output for ``x`` (batch, seq, heads, d) at ``positions``.

    ``bound`` is the per-element tolerance the comparison used (broadcastable to ``got``).
    Returns None when the output matches the spec, or when no hypothesis explains it (within
    the bound, and at most a fifth of the spec's misfit). ``families`` limits the hypotheses
    to some family codes (e.g. ``{"precision"}``).
    """
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # fp16 roundings of large positions overflow on purpose
        got, x = np.asarray(got, np.float64), np.asarray(x, np.float64)
        positions = np.broadcast_to(np.asarray(positions, np.int64), x.shape[:2])
        call = _Call(x, positions, spec, dtype, _seq_len(spec, positions, seq_len))
        return _explain(got, call, np.broadcast_to(np.asarray(bound, np.float64), got.shape), families)


@dataclass(frozen=True)
class _Call:
    """One call's evidence, as the hypotheses read it: the input, its positions (batch, seq), the spec, the dtype
    and the length the spec's frequencies are taken for."""

    x: np.ndarray
    positions: np.ndarray
    spec: RopeSpec
    dtype: str
    seq_len: int | None

    @property
    def pos4(self) -> np.ndarray:
        return self.positions[..., None]

    def rope(self, positions: np.ndarray | None = None, spec: RopeSpec | None = None, **kw: Any) -> np.ndarray:
        """The reference output at ``positions`` (default: the call's) under ``spec`` (default: the call's)."""
        pos = self.pos4 if positions is None else positions
        return apply_rope(self.x, pos, self.spec if spec is None else spec, seq_len=self.seq_len, **kw)

    def by(self, theta: np.ndarray) -> Callable[[], np.ndarray]:
        """The prediction with frequencies ``theta`` (the call's positions, the spec's layout and scale)."""
        pos = self.positions[..., None, None].astype(np.float64)  # (batch, seq, 1 head, 1 pair)
        return lambda: rotate_by(self.x, self.spec, pos * theta)


#: consider(family, cause, prediction, **words): the hypothesis that ``prediction()`` is the output. Each
#: ``output`` test says whether it applies to a call and, where it does, what the output would be under its cause.
_Consider = Callable[..., None]


def _explain(got: np.ndarray, call: _Call, bound: np.ndarray, families: frozenset[str] | None) -> Diagnosis | None:
    """The ``output`` test's prediction closest to ``got`` (in units of ``bound``), if it is close enough."""

    def misfit(pred: np.ndarray) -> float:
        with np.errstate(invalid="ignore", over="ignore"):
            r = np.abs(got - pred) / bound
        return float(np.nanmax(np.where(np.isfinite(r), r, np.inf), initial=0.0))

    base = misfit(call.rope())
    if base <= 1.0:
        return None
    found: list[tuple[float, Diagnosis]] = []

    def consider(family: str, cause: str | None, pred: Callable[[], np.ndarray], **words: Any) -> None:
        if families is not None and family not in families:
            return
        try:
            m = misfit(pred())
        except (ValueError, FloatingPointError, OverflowError):
            return
        if m <= 1.5 and m < base / 5:
            msg, hint = sentence(cause or family, **words)
            found.append((m, Diagnosis(family, cause, msg, hint, dict(words.get("where", {})))))

    for hypothesis in tests_for("output"):
        hypothesis(consider, call)
    if not found:
        return None
    return min(found, key=lambda t: t[0])[1]


@POSITIONS.test("output")
def _positions_ignored(consider: _Consider, call: _Call) -> None:
    positions = call.positions
    arange = np.broadcast_to(np.arange(positions.shape[1], dtype=np.int64)[None], positions.shape)
    if not np.array_equal(arange, positions):
        b, s = map(int, np.argwhere(arange != positions)[0])
        consider(
            "positions",
            "positions_ignored",
            lambda: call.rope(arange[..., None]),
            position=int(positions[b, s]),
            index=s,
        )


@POSITIONS.test("output")
def _positions_from_row0(consider: _Consider, call: _Call) -> None:
    positions = call.positions
    if positions.shape[0] > 1 and not np.all(positions == positions[:1]):
        row0 = np.broadcast_to(positions[:1], positions.shape)
        b, s = map(int, np.argwhere(row0 != positions)[0])
        consider(
            "positions",
            "positions_from_row0",
            lambda: call.rope(row0[..., None]),
            row=b,
            position=int(positions[b, s]),
            as_position=int(positions[0, s]),
        )


@POSITIONS.test("output")
def _positions_shifted(consider: _Consider, call: _Call) -> None:
    def shifted(k: int) -> Callable[[], np.ndarray]:
        return lambda: call.rope(call.pos4 + k)

    for k in (1, -1, 2, -2):
        if call.positions.min() + k >= 0:
            consider("positions", "positions_shifted", shifted(k), k=k)


@ORIENTATION.test("output")
def _direction_layout_phase(consider: _Consider, call: _Call) -> None:
    spec = call.spec
    reverse = spec.with_(direction=-spec.direction)
    consider("direction", None, lambda: call.rope(spec=reverse), declared=spec.direction)
    other = "interleaved" if spec.layout == "half" else "half"
    consider("layout", None, lambda: call.rope(spec=spec.with_(layout=other)), got=other, want=spec.layout)
    consider("phase", None, lambda: _swapped(call.x, call.positions, spec, call.seq_len))


@SCALE.test("output")
def _attention_factor(consider: _Consider, call: _Call) -> None:
    spec = call.spec
    factor = spec.attention_factor
    if abs(spec.schedule_attention_factor - 1.0) > 1e-6 and abs(factor - 1.0) > 1e-6:
        consider("scale", "attention_factor_missing", lambda: call.rope(scaled=False), expected=factor)
        consider(
            "scale",
            "attention_factor_twice",
            lambda: _rescaled(call.rope(), spec, factor),
            got=factor * factor,
            expected=factor,
        )


@ROTARY_DIMS.test("output")
def _rotary_dims(consider: _Consider, call: _Call) -> None:
    spec = call.spec
    if spec.rotary_dim >= spec.head_dim:
        return
    flip = "last" if spec.rotary_dims == "first" else "first"
    moved = spec.with_(rotary_dims=flip)
    consider(
        "rotary_dim",
        "rotary_dims_misplaced",
        lambda: call.rope(spec=moved),
        text=f"dims {_span(moved)} are rotated and dims {_span(spec)} expected: partial rotary applied to the "
        "wrong end of the head" + (" (pass --rotary-dims last if the model puts them there)" if flip == "last" else ""),
    )
    if spec.axes is not None:  # a whole-head variant of partial multi-axis RoPE: no axis is given the rest
        return
    full = spec.with_(rotary_dim=spec.head_dim, rotary_dims="first", scaling=_rescaled_schedule(spec))
    if full is not None:
        consider(
            "rotary_dim",
            "partial_rotary_ignored",
            lambda: call.rope(spec=full),
            rotated=f"0-{spec.head_dim - 1}",
            rotary_dim=spec.rotary_dim,
            passthrough=_passthrough(spec),
        )


def _span(spec: RopeSpec) -> str:
    return f"{spec.rotary_start}-{spec.rotary_start + spec.rotary_dim - 1}"


def _passthrough(spec: RopeSpec) -> str:
    keep = [j for j in range(spec.head_dim) if j not in set(spec.rotated_dims().tolist())]
    return f"{keep[0]}-{keep[-1]}" if keep else "none"


def _rescaled_schedule(spec: RopeSpec) -> Any:
    """The spec's schedule for the whole head (None when it cannot be stated for another rotary_dim)."""
    if isinstance(spec.scaling, LongRoPE):
        return None
    return spec.scaling


def _rescaled(out: np.ndarray, spec: RopeSpec, factor: float) -> np.ndarray:
    res = out.copy()
    dims = spec.rotated_dims()
    res[..., dims] *= factor
    return res


def _swapped(x: np.ndarray, positions: np.ndarray, spec: RopeSpec, seq_len: int | None) -> np.ndarray:
    c, s = cos_sin(spec, positions[..., None], seq_len=seq_len)
    half = spec.layout == "half"
    exp_c = np.concatenate([c, c], -1) if half else np.repeat(c, 2, -1)
    exp_s = np.concatenate([s, s], -1) if half else np.repeat(s, 2, -1)
    out = x.copy()
    dims = spec.rotated_dims()
    xr = x[..., dims]
    out[..., dims] = spec.attention_factor * (xr * exp_s + rotate(xr, spec.layout) * exp_c)
    return out


@FREQUENCIES.test("output")
def _other_base(consider: _Consider, call: _Call) -> None:
    """Another base (rope_theta not passed through), then the spec's scaling left out."""
    spec = call.spec
    for b in COMMON_BASES:
        if abs(b / spec.base - 1) > 1e-6:
            other = spec.with_(base=b)
            consider("frequencies", "base_wrong", lambda other=other: call.rope(spec=other), got=b, want=spec.base)
    if spec.rope_type != "default":
        plain = RopeSpec(head_dim=spec.head_dim, rotary_dim=spec.rotary_dim, base=spec.base)
        consider("frequencies", "scaling_missing", call.by(plain.inv_freq()), rope_type=spec.rope_type, base=spec.base)


@FREQUENCIES.test("output")
def _longrope_factors(consider: _Consider, call: _Call) -> None:
    """LongRoPE's other factor set for the call's length."""
    spec, seq_len = call.spec, call.seq_len
    if not isinstance(spec.scaling, LongRoPE) or seq_len is None:
        return
    l0 = spec.scaling.original_max_position_embeddings
    if seq_len <= l0:
        consider("frequencies", "longrope_long_factors_early", call.by(spec.inv_freq(l0 + 1)), l0=l0)
    else:
        consider(
            "frequencies",
            "longrope_short_factors_late",
            call.by(spec.inv_freq(l0)),
            l0=l0,
            position=int(seq_len) - 1,  # the call's largest position (the tokens compared may stop short of it)
        )


@FREQUENCIES.test("output")
def _ntk_length(consider: _Consider, call: _Call) -> None:
    """Dynamic NTK's frequencies for another length than the call's."""
    spec, seq_len = call.spec, call.seq_len
    if not isinstance(spec.scaling, DynamicNTK) or seq_len is None:
        return
    l0 = spec.scaling.original_max_position_embeddings
    for length in sorted({l0, int(spec.scaling.factor * l0), seq_len - 1, seq_len + 1, int(call.positions.shape[1])}):
        if length != seq_len and length >= 1 and not (length <= l0 and seq_len <= l0):
            consider(
                "frequencies",
                "ntk_length_wrong",
                call.by(spec.inv_freq(length)),
                length=length,
                expected=seq_len,
                where={"length": length},
            )


@FREQUENCIES.test("output")
def _exponent_and_index(consider: _Consider, call: _Call) -> None:
    """theta_i with the wrong exponent or index; every angle doubled; linear scaling left out."""
    spec = call.spec
    r = spec.rotary_dim
    i = np.arange(spec.half, dtype=np.float64)
    if spec.rope_type == "default":
        consider(
            "frequencies",
            "exponent_wrong",
            call.by(spec.base ** (-i / r)),
            text=f"frequencies follow base^(-i/{r}), expected base^(-2i/{r}) (wrong exponent)",
        )
        if r != spec.head_dim:
            consider(
                "frequencies",
                "exponent_wrong",
                call.by(spec.base ** (-2 * i / spec.head_dim)),
                text=f"frequencies follow base^(-2i/{spec.head_dim}), expected base^(-2i/{r}): head_dim instead of "
                "rotary_dim in the exponent",
            )
        consider(
            "frequencies",
            "index_shifted",
            call.by(spec.base ** (-2 * (i + 1) / r)),
            text=f"frequencies follow base^(-2(i+1)/{r}): the frequency index starts at 1, expected 0",
        )
    theta = spec.inv_freq(call.seq_len)
    consider(
        "frequencies",
        "angle_scaled",
        call.by(2 * theta),
        text="every angle is twice the expected (2*m*theta_i): cos/sin applied twice",
    )
    if isinstance(spec.scaling, Linear):
        consider(
            "frequencies", "scaling_missing", call.by(theta * spec.scaling.factor), rope_type="linear", base=spec.base
        )


@PRECISION.test("output")
def _low_precision(consider: _Consider, call: _Call) -> None:
    """theta_i, positions or angles rounded to bfloat16/float16."""
    spec, dtype = call.spec, call.dtype
    pos = call.positions[..., None, None].astype(np.float64)  # (batch, seq, 1 head, 1 pair)
    theta = spec.inv_freq(call.seq_len)
    x = call.x
    lows = [dtype] if dtype in ("bfloat16", "float16") else ["bfloat16", "float16"]
    t32 = round_to(theta, "float32")
    for dt in lows:
        consider(
            "precision" if dt == dtype else "frequencies",  # a float32 call with bf16 theta_i: its frequencies differ
            "inv_freq_low_precision",
            call.by(round_to(round_to(theta, dt), "float32")),
            dtype=dt,
        )
        if dt == dtype:  # positions and angles in the input's dtype: only for that dtype's calls
            p_low = round_to(pos, dt)
            consider(
                "precision",
                "angles_low_precision",
                lambda p_low=p_low, dt=dt: rotate_by(x, spec, round_to(p_low * round_to(theta, dt), dt)),
                dtype=dt,
            )
            consider(
                "precision",
                "angles_low_precision",
                lambda dt=dt: rotate_by(x, spec, round_to(round_to(pos * t32, "float32"), dt)),
                dtype=dt,
            )
            consider(
                "precision",
                "positions_low_precision",
                lambda p_low=p_low: rotate_by(x, spec, round_to(p_low * t32, "float32")),
                dtype=dt,
            )
