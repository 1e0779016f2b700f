"""Root causes of RoPE bugs: their codes, their sentences, and the tests that recognise them in an output.

A failure is reported as a *family* code (``positions``, ``frequencies``, ``precision``, ... --
the stable codes of ``ropecheck.verify.FINDING_CODES``) refined, where the evidence allows, by
a *cause* (:data:`CAUSES`): the real-world mistake that produces it, such as positions clamped
at a table's end, inv_freq stored in bfloat16, or LongRoPE's long factors used below the
original context. The verifier (:mod:`ropecheck.verify`) and the properties
(:mod:`ropecheck.properties`, hence the pytest plugin) both word a cause with the sentence
builders here, so a failure reads the same wherever it is found.

:func:`explain` recognises a cause from one call's output alone: it predicts the output
under each hypothesis (positions ignored, taken from row 0, shifted, reversed direction, the
other layout, cos and sin swapped, the attention factor missing or squared, the rotated dims
at the other end, frequencies or angles rounded to a low-precision dtype, another base, ...)
with the fp64 reference and keeps the one that explains the output, if any does.

Design constraints: below the verifier and beside the properties (both import it), so no
import of either; pure numpy and the reference (bfloat16 rounded as torch rounds it, with
numpy); a hypothesis is accepted only when it explains the output to within the tolerance
the comparison itself used, and much better than the spec does.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .reference import apply_rope, cos_sin, rotate
from .schedules import DynamicNTK, Linear, LongRoPE
from .spec import RopeSpec
from .tolerance import round_bfloat16

__all__ = [
    "CAUSES",
    "COMMON_BASES",
    "Diagnosis",
    "explain",
    "fmt_base",
    "is_protocol_error",
    "length_dependence",
    "rotate_by",
    "round_to",
    "sentence",
]

#: cause -> (family code, what it means). Families are ``ropecheck.verify.FINDING_CODES``'s stable codes.
CAUSES: dict[str, tuple[str, str]] = {
    "axes_swapped": ("axes", "two position axes are swapped (height and width sections, or rows and columns)"),
    "sections_wrong": ("axes", "the M-RoPE section sizes differ from the spec's mrope_section"),
    "mrope_interleaved_as_chunked": ("axes", "interleaved M-RoPE (Qwen3-VL) applied as consecutive sections"),
    "mrope_chunked_as_interleaved": ("axes", "M-RoPE sections (Qwen2-VL) applied interleaved"),
    "axis_ignored": ("axes", "one position axis is ignored: its pairs turn by another axis, or by none"),
    "axes_wrong": ("axes", "the pairs turn by other position axes, or at other per-axis angles, than the spec's"),
    "text_positions_differ": (
        "axes",
        "text tokens (one position on every axis) are rotated at different positions per axis",
    ),
    "positions_clamped": ("positions", "positions past a table's end are clamped to its last row"),
    "positions_wrapped": ("positions", "positions wrap around a table's length (an index modulo its size)"),
    "positions_ignored": ("positions", "the positions given are ignored: each token is rotated at its index"),
    "positions_from_row0": ("positions", "every batch row is rotated at the first row's positions"),
    "positions_shifted": ("positions", "every position is off by a constant (1-based positions, a cache offset)"),
    "table_too_short": ("raised", "the target raises from a position inside the valid range on: its table is short"),
    "ntk_call_length": (
        "length_dependence",
        "dynamic NTK recomputed from the call's length or token count instead of its largest position",
    ),
    "inv_freq_low_precision": ("precision", "inv_freq rounded to bfloat16/float16 (a buffer cast with the model)"),
    "angles_low_precision": ("precision", "the angles m*theta_i formed in bfloat16/float16"),
    "positions_low_precision": ("precision", "positions converted to bfloat16/float16 before the angles are formed"),
    "cache_low_precision": ("precision", "the cos/sin cache stored in bfloat16/float16 and used for every dtype"),
    "attention_factor_missing": ("scale", "the YaRN/LongRoPE attention factor is not applied to cos and sin"),
    "attention_factor_twice": ("scale", "the attention factor is applied twice (cos and sin carry its square)"),
    "attention_factor_wrong": ("scale", "cos and sin carry a factor other than the spec's attention factor"),
    "rotary_dims_misplaced": ("rotary_dim", "the rotated dims are not the spec's (the other end, or moved)"),
    "partial_rotary_ignored": ("rotary_dim", "every dim is rotated: partial rotary ignored"),
    "base_wrong": ("frequencies", "the frequencies follow another base (rope_theta not passed through)"),
    "scaling_missing": ("frequencies", "the spec's frequency scaling is not applied"),
    "longrope_long_factors_early": (
        "frequencies",
        "LongRoPE's long factors used below original_max_position_embeddings",
    ),
    "longrope_short_factors_late": (
        "frequencies",
        "LongRoPE's short factors used at or past original_max_position_embeddings",
    ),
    "ntk_length_wrong": ("frequencies", "dynamic NTK frequencies of another length than the call's"),
    "exponent_wrong": ("frequencies", "theta_i = base^(-e i/r) with the wrong e or r in the exponent"),
    "index_shifted": ("frequencies", "the frequency index starts at 1 (or another offset), not 0"),
    "angle_scaled": ("frequencies", "every angle is a constant multiple of m*theta_i (cos/sin applied twice, ...)"),
    "backward_direction": ("backward", "the backward rotates the wrong way (by +theta: the forward applied again)"),
    "backward_attention_factor": ("backward", "the backward ignores (or misapplies) the attention factor"),
    "backward_passthrough": ("backward", "the backward is wrong on the pass-through dims (they must get g back)"),
    "backward_not_transpose": ("backward", "the backward is not the transpose of the forward"),
    "backward_dtype": ("backward", "the gradient is in, or was computed in, another dtype than x's"),
}

#: Bases real configs use, tried when a target's frequencies fit another base than the spec's.
COMMON_BASES: tuple[float, ...] = (
    10000.0,
    500000.0,
    1000000.0,
    100000.0,
    50000.0,
    20000.0,
    160000.0,
    5000000.0,
    10000000.0,
    75000.0,
    25000.0,
)


@dataclass(frozen=True)
class Diagnosis:
    """A recognised cause: family ``code``, ``cause``, the sentence, the fix, and where it shows first."""

    code: str
    cause: str | None
    message: str
    hint: str
    where: dict[str, Any] = field(default_factory=dict)


def fmt_base(v: float) -> str:
    """A base as configs write it: 10000, 500000, 1e+06."""
    return f"{v:g}" if v >= 1e6 else (str(int(round(v))) if abs(v - round(v)) < 1e-6 * v else f"{v:.6g}")


_HINTS: dict[str, str] = {
    "positions_clamped": "size the cos/sin table for every position in the range (or compute the angles on the fly)",
    "positions_wrapped": "size the cos/sin table for every position in the range; never index it modulo its size",
    "positions_ignored": "use the positions passed in, not arange(seq_len)",
    "positions_from_row0": "index cos/sin with each row's own positions (positions[b]), never positions[0]",
    "positions_shifted": "use the positions as given (no +1 from 1-based indexing or a cache offset)",
    "inv_freq_low_precision": (
        "keep inv_freq in float32 when the model is cast (a non-persistent attribute, or recompute it), and form "
        "m*theta in float32"
    ),
    "angles_low_precision": (
        "form positions and m*theta in float32 (autocast off there), round only cos/sin or the result"
    ),
    "positions_low_precision": "convert positions to float32 (never x.dtype) before multiplying by inv_freq",
    "cache_low_precision": "keep the cos/sin cache in float32 and cast to the input dtype per call",
    "attention_factor_missing": (
        "multiply cos and sin by the spec's attention factor (or pass --attention-factor-in softmax if the model "
        "applies it to the softmax scale)"
    ),
    "attention_factor_twice": "apply the attention factor once: in the cos/sin table or in the attention, not both",
    "attention_factor_wrong": "multiply cos and sin by exactly the spec's attention factor",
    "rotary_dims_misplaced": "rotate exactly the spec's rotated dims and return the head in its original order",
    "partial_rotary_ignored": "rotate only the first rotary_dim dims and pass the rest through",
    "base_wrong": "pass the model's rope_theta to the rotary module (its default base is not the model's)",
    "scaling_missing": "apply the spec's rope_scaling to the frequencies",
    "longrope_long_factors_early": (
        "choose the factors per call: long_factor only when max(position_ids) + 1 > original_max_position_embeddings"
    ),
    "longrope_short_factors_late": (
        "switch to long_factor as soon as max(position_ids) + 1 > original_max_position_embeddings"
    ),
    "ntk_call_length": (
        "take the dynamic NTK length from max(position_ids) + 1, never from the number of tokens in the call, "
        "and keep the original frequencies below the original context"
    ),
    "ntk_length_wrong": "recompute dynamic NTK frequencies from max(position_ids) + 1 of each call",
    "exponent_wrong": "theta_i = base^(-2i/rotary_dim)",
    "index_shifted": "theta_i = base^(-2i/rotary_dim) for i = 0 .. rotary_dim/2 - 1",
    "angle_scaled": "rotate each pair once by m*theta_i",
}


#: What a call the target cannot take at all says (Python's and TorchScript's argument errors).
_PROTOCOL_ERRORS: tuple[str, ...] = ("positional argument", "unexpected keyword", "Expected a value of type")


def is_protocol_error(text: str) -> bool:
    """Whether a target's exception text says it cannot take the call at all (the protocol, not a RoPE bug).

    Example:
        >>> is_protocol_error("TypeError: rope() missing 1 required positional argument: 'positions'")
        True
    """
    return any(k in text for k in _PROTOCOL_ERRORS)


def sentence(cause: str, **kw: Any) -> tuple[str, str]:
    """(message, hint) for a cause, filled with its evidence; the same words in the verifier and the properties.

    Example:
        >>> sentence("positions_shifted", k=1)[0]
        'positions are off by +1: position 0 is rotated as position 1'
    """
    hint = kw.pop("hint", None) or _HINTS.get(cause, "")
    msg = _SENTENCES[cause](**kw)
    return msg, hint


def _s_clamped(first: int, q: int, **_: Any) -> str:
    return (
        f"positions {first} and above are rotated as position {q}: positions are clamped at {q} "
        f"(a table of {q + 1} rows read with clamped indices)"
    )


def _s_wrapped(first: int, q: int, size: int | None = None, **_: Any) -> str:
    tail = f" (a table of {size} rows indexed modulo its size)" if size else ""
    return f"positions {first} and above wrap around: position {first} is rotated as position {q}{tail}"


def _s_ignored(position: int, index: int, **_: Any) -> str:
    return (
        f"the positions given are ignored: the token at position {position} is rotated as position {index}, "
        "its index in the call"
    )


def _s_row0(row: int, position: int, as_position: int, **_: Any) -> str:
    return (
        f"positions are taken from the first batch row: row {row}'s token at position {position} is rotated as "
        f"position {as_position} (positions[0] for every row; breaks left padding and batched decoding)"
    )


def _s_shifted(k: int, **_: Any) -> str:
    return f"positions are off by {k:+d}: position 0 is rotated as position {k}"


def _s_table(first: int, limit: int, error: str, source: str = "", **_: Any) -> str:
    src = f" (from {source})" if source else ""
    return (
        f"the target raises for positions {first} and above, inside the valid range 0..{limit - 1}{src}: its "
        f"table holds {first} positions; at position {first} it raised {error}"
    )


def _s_ntk_call_length(detail: str, **_: Any) -> str:
    return f"dynamic NTK recomputed from the call, not from its largest position: {detail}"


_BITS = {"bfloat16": 8, "float16": 11}


def _s_low(dtype: str, what: str, first: int | None = None, **_: Any) -> str:
    at = f"; the error crosses the error model's bound from position {first} on" if first is not None else ""
    return f"{what.format(dtype=dtype, bits=_BITS.get(dtype, 24))}{at}"


def _s_factor_missing(expected: float, **_: Any) -> str:
    return f"the attention factor is not applied: cos and sin carry 1, the spec's factor is {expected:.6g}"


def _s_factor_twice(got: float, expected: float, **_: Any) -> str:
    return f"the attention factor is applied twice: cos and sin carry {got:.6g} = {expected:.6g}^2"


def _s_factor_wrong(got: float, expected: float, **_: Any) -> str:
    if abs(expected - 1.0) < 1e-12:
        return f"cos and sin carry a factor {got:.6g}, the spec's attention factor is 1 (a pure rotation)"
    return f"cos and sin carry a factor {got:.6g}, the spec's attention factor is {expected:.6g}"


def _s_misplaced(text: str, **_: Any) -> str:
    return text


def _s_partial_ignored(rotated: str, rotary_dim: int, passthrough: str, **_: Any) -> str:
    return (
        f"dims {rotated} are rotated: partial rotary ignored (rotary_dim {rotary_dim}; dims {passthrough} "
        "should pass through)"
    )


def _s_base(got: float, want: float, **_: Any) -> str:
    return f"the frequencies follow base {fmt_base(got)}, the spec's base is {fmt_base(want)} (rope_theta)"


def _s_scaling(rope_type: str, base: float, **_: Any) -> str:
    return (
        f"the frequencies are unscaled (default schedule, base {fmt_base(base)}): the spec's {rope_type} scaling "
        "is not applied"
    )


def _s_long_early(l0: int, seen: str = "", **_: Any) -> str:
    return (
        f"long factors used below original_max_position_embeddings ({l0}): a call whose positions stay below "
        f"{l0} is rotated with long_factor, the spec uses short_factor there{seen}"
    )


def _s_short_late(l0: int, position: int, **_: Any) -> str:
    return (
        f"short factors used past original_max_position_embeddings ({l0}): a call reaching position {position} "
        f"is rotated with short_factor, the spec switches to long_factor once max(position) + 1 > {l0}"
    )


def _s_ntk_length(length: int, expected: int, **_: Any) -> str:
    return (
        f"the frequencies are dynamic NTK's for a length of {length}, the spec's for this call are those of "
        f"length {expected} (max(position) + 1)"
    )


def _s_generic(text: str, **_: Any) -> str:
    return text


_SENTENCES: dict[str, Callable[..., str]] = {
    "positions_clamped": _s_clamped,
    "positions_wrapped": _s_wrapped,
    "positions_ignored": _s_ignored,
    "positions_from_row0": _s_row0,
    "positions_shifted": _s_shifted,
    "table_too_short": _s_table,
    "ntk_call_length": _s_ntk_call_length,
    "inv_freq_low_precision": lambda dtype, **kw: _s_low(
        dtype,
        "inv_freq (theta_i) is rounded to {dtype} ({bits} significant bits; a buffer cast with the model): every "
        "angle m*theta_i is off in proportion to the position",
        **kw,
    ),
    "angles_low_precision": lambda dtype, **kw: _s_low(
        dtype,
        "the angles m*theta_i are formed in {dtype} ({bits} significant bits of the position and the product)",
        **kw,
    ),
    "positions_low_precision": lambda dtype, **kw: _s_low(
        dtype, "positions are converted to {dtype} before the angles are formed ({bits} significant bits)", **kw
    ),
    "cache_low_precision": _s_generic,
    "attention_factor_missing": _s_factor_missing,
    "attention_factor_twice": _s_factor_twice,
    "attention_factor_wrong": _s_factor_wrong,
    "rotary_dims_misplaced": _s_misplaced,
    "partial_rotary_ignored": _s_partial_ignored,
    "base_wrong": _s_base,
    "scaling_missing": _s_scaling,
    "longrope_long_factors_early": _s_long_early,
    "longrope_short_factors_late": _s_short_late,
    "ntk_length_wrong": _s_ntk_length,
    "exponent_wrong": _s_generic,
    "index_shifted": _s_generic,
    "angle_scaled": _s_generic,
}


def _s_direction(declared: int = 1, **_: Any) -> str:
    if declared < 0:
        return "the target rotates by +m*theta_i, but the spec declares direction -1 (rotation by -m*theta_i)"
    return (
        "the rotation is reversed (angle -m*theta_i): sin has the wrong sign; if the model was trained this way, "
        "pass --direction -1"
    )


def _s_layout(got: str, want: str, shown: str = "", **_: Any) -> str:
    pattern = {"half": "(i, i+r/2)", "interleaved": "(2i, 2i+1)"}
    names = {"half": "half-split", "interleaved": "interleaved"}
    if got not in names:
        return f"pairs {shown}, ...: neither interleaved nor half-split, expected {names.get(want, want)}"
    pairs = f" [{shown}, ...]" if shown else ""
    return f"pairs {pattern[got]}{pairs}: {names[got]}, expected {names.get(want, want)} {pattern.get(want, '')}"


def _s_phase(**_: Any) -> str:
    return (
        "cos and sin are swapped: each pair is rotated by pi/2 - m*theta_i (x*sin + rotate(x)*cos), so position 0 "
        "is not the identity"
    )


_SENTENCES.update({"direction": _s_direction, "layout": _s_layout, "phase": _s_phase})
_HINTS.update(
    {
        "direction": "y_a = x_a cos - x_b sin, y_b = x_a sin + x_b cos (rotate_half is cat(-x2, x1)), or declare "
        "--direction -1",
        "layout": "use the spec's pairing: 'interleaved' rotates (x_2i, x_2i+1), 'half' rotates (x_i, x_i+r/2)",
        "phase": "unpack the cache in the right order: y = x*cos + rotate(x)*sin",
    }
)


# --------------------------------------------------------------------------- recognising a cause from two calls


def length_dependence(spec: RopeSpec, detail: str, *, otherwise: tuple[str, str]) -> tuple[str, str, str | None]:
    """(message, hint, cause) for a token whose rotation depends on the call (its length or largest position).

    Under dynamic NTK the cause is ``ntk_call_length`` (its frequencies are fixed below the original
    context, so the call can only matter through a length taken from the wrong place), worded with
    ``detail``; under any other schedule no cause is named and ``otherwise`` (message, hint) says it.
    """
    if isinstance(spec.scaling, DynamicNTK):
        msg, hint = sentence("ntk_call_length", detail=detail)
        return msg, hint, "ntk_call_length"
    return otherwise[0], otherwise[1], None


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
        return _explain(got, x, positions, spec, dtype=dtype, bound=bound, seq_len=seq_len, families=families)


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


#: consider(family, cause, prediction, **words): the hypothesis that ``prediction()`` is the output.
_Consider = Callable[..., None]
#: The hypotheses :func:`explain` tries, in order (a tie goes to the first): each says whether it applies to a
#: call and, where it does, what the output would be under its cause.
_HYPOTHESES: list[Callable[[_Consider, _Call], None]] = []


def _hypothesis(fn: Callable[[_Consider, _Call], None]) -> Callable[[_Consider, _Call], None]:
    _HYPOTHESES.append(fn)
    return fn


def _explain(
    got: np.ndarray,
    x: np.ndarray,
    positions: np.ndarray,
    spec: RopeSpec,
    *,
    dtype: str,
    bound: np.ndarray | float,
    seq_len: int | None,
    families: frozenset[str] | None,
) -> Diagnosis | None:
    got, x = np.asarray(got, np.float64), np.asarray(x, np.float64)
    positions = np.broadcast_to(np.asarray(positions, np.int64), x.shape[:2])
    bound = np.broadcast_to(np.asarray(bound, np.float64), got.shape)
    call = _Call(x, positions, spec, dtype, _seq_len(spec, positions, seq_len))

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

    for hypothesis in _HYPOTHESES:
        hypothesis(consider, call)
    if not found:
        return None
    return min(found, key=lambda t: t[0])[1]


@_hypothesis
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


@_hypothesis
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


@_hypothesis
def _positions_shifted(consider: _Consider, call: _Call) -> None:
    def shifted(k: int) -> Callable[[], np.ndarray]:
        return lambda: call.rope(call.pos4 + k)

    for k in (1, -1, 2, -2):
        if call.positions.min() + k >= 0:
            consider("positions", "positions_shifted", shifted(k), k=k)


@_hypothesis
def _direction_layout_phase(consider: _Consider, call: _Call) -> None:
    spec = call.spec
    reverse = spec.with_(direction=-spec.direction)
    consider("direction", None, lambda: call.rope(spec=reverse), declared=spec.direction)
    other = "interleaved" if spec.layout == "half" else "half"
    consider("layout", None, lambda: call.rope(spec=spec.with_(layout=other)), got=other, want=spec.layout)
    consider("phase", None, lambda: _swapped(call.x, call.positions, spec, call.seq_len))


@_hypothesis
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


@_hypothesis
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


@_hypothesis
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


@_hypothesis
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


@_hypothesis
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


@_hypothesis
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


@_hypothesis
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
