"""Root causes of RoPE bugs: their codes, their sentences, and the registry of the tests that recognise them.

A failure is reported as a *family* code (``positions``, ``frequencies``, ``precision``, ... --
the stable codes of ``ropecheck.verify.FINDING_CODES``) refined, where the evidence allows, by
a *cause* (:data:`CAUSES`): the real-world mistake that produces it. Each cause is recognised
by exactly one :class:`Recogniser`, declared right below the table, or is produced where its
evidence is read (:data:`ELSEWHERE` names where); :func:`registry_problems` says when that no
longer holds. A recogniser's tests are registered per kind of evidence (one call's output, an
identified RoPE's frequencies, its scale, positions past a deviation, two calls) and run in
registration order, which is the precedence between causes.

Design constraints: the bottom of the diagnosis package (no import of its siblings); pure
Python and numpy; CAUSES stays a dict of (family, text) pairs, as the reference pages and the
verifier's model read it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

__all__ = [
    "CAUSES",
    "COMMON_BASES",
    "ELSEWHERE",
    "EVIDENCE",
    "RECOGNISERS",
    "Diagnosis",
    "Recogniser",
    "fmt_base",
    "found",
    "is_protocol_error",
    "recognise",
    "recogniser",
    "registry_problems",
    "sentence",
    "tests_for",
]

#: cause -> (family code, what it means). Families are ``ropecheck.verify.FINDING_CODES``'s stable codes.
#: Each cause is yielded by exactly one recogniser (:data:`RECOGNISERS`, declared at the end of this module)
#: or named in :data:`ELSEWHERE`; ``tests/verify/test_cause_registry.py`` holds the table to that.
CAUSES: dict[str, tuple[str, str]] = {
    "axes_swapped": ("axes", "two position axes are swapped (height and width sections, or rows and columns)"),
    "sections_wrong": ("axes", "the M-RoPE section sizes differ from the spec's mrope_section"),
    "mrope_interleaved_as_chunked": ("axes", "interleaved M-RoPE (Qwen3-VL) applied as consecutive sections"),
    "mrope_chunked_as_interleaved": ("axes", "M-RoPE sections (Qwen2-VL) applied interleaved"),
    "axis_ignored": ("axes", "one position axis is ignored: its pairs turn by another axis, or by none"),
    "pair_axes_split": (
        "axes",
        "the two halves of a pair turn by different position axes (cos from one, sin from another): no rotation",
    ),
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
    "output_layout": (
        "layout",
        "the pairs are rotated as the spec says but written back in the other layout's places: a fixed "
        "permutation of the head (q.k unchanged when keys go through the same code), undeclared",
    ),
    "qk_shifted": ("qk", "one of q and k is rotated at positions shifted from the other's"),
    "qk_cross_wired": ("qk", "one side's output depends on the other side's input (k rotated from q)"),
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
    "output_layout": "if this order is intended, declare it with --output-layout (RopeSpec(output_layout=...)); "
    "otherwise write each rotated pair back where it was read",
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
    "output_layout": lambda read, written, shown, **_: (
        f"the head comes back as the spec's {read} rotation with each pair written back {written} ({shown}, ...): "
        "a fixed permutation of the head; q.k is standard RoPE's when keys go through the same code, but the "
        "output is not in the spec's order"
    ),
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


# --------------------------------------------------------------------------- the recognisers, beside the table

#: The kinds of evidence a recogniser's tests read: one call's output (:func:`explain`, tests
#: ``(consider, call) -> None``); an identified RoPE's matrix entries, head order, rotated dims, phase at 0,
#: frequencies, scale, or its positions past the first deviating one (tests ``(...) -> Diagnosis | None``);
#: two calls of different extent.
EVIDENCE: tuple[str, ...] = (
    "output",
    "entries",
    "permutation",
    "dims",
    "phase0",
    "frequencies",
    "scale",
    "deviation",
    "calls",
)

#: Family codes a recogniser may yield with no cause (they have sentences, no row in CAUSES).
_FAMILY_WORDS: frozenset[str] = frozenset({"direction", "layout", "phase"})

_Test = TypeVar("_Test", bound=Callable[..., Any])
_TESTS: dict[str, list[Callable[..., Any]]] = {e: [] for e in EVIDENCE}


@dataclass(frozen=True)
class Recogniser:
    """The tests that recognise ``causes`` (cause codes, or the family codes direction/layout/phase), in the
    order they are tried; register a test with :meth:`test`.

    Example:
        >>> RECOGNISERS["scale"].causes[0]
        'attention_factor_missing'
    """

    name: str
    causes: tuple[str, ...]

    def test(self, evidence: str) -> Callable[[_Test], _Test]:
        """Register the decorated function as one of this recogniser's tests of ``evidence``, tried after those
        registered before it (the precedence between causes)."""
        if evidence not in _TESTS:
            raise ValueError(f"evidence={evidence!r}: expected one of {', '.join(EVIDENCE)}")

        def register(fn: _Test) -> _Test:
            _TESTS[evidence].append(fn)
            return fn

        return register


#: name -> recogniser, in declaration order.
RECOGNISERS: dict[str, Recogniser] = {}


def recogniser(name: str, *causes: str) -> Recogniser:
    """Declare the recogniser ``name`` of ``causes``; an unknown code is refused.

    Example:
        >>> recogniser("bogus", "no_such_cause")
        Traceback (most recent call last):
        ...
        ValueError: recogniser 'bogus': unknown cause 'no_such_cause' (add its row to CAUSES first)
    """
    for code in causes:
        if code not in CAUSES and code not in _FAMILY_WORDS:
            raise ValueError(f"recogniser {name!r}: unknown cause {code!r} (add its row to CAUSES first)")
    if name in RECOGNISERS:
        raise ValueError(f"recogniser {name!r} is declared twice")
    RECOGNISERS[name] = Recogniser(name, tuple(causes))
    return RECOGNISERS[name]


def tests_for(evidence: str) -> tuple[Callable[..., Any], ...]:
    """The tests registered for ``evidence``, in precedence order."""
    return tuple(_TESTS[evidence])


def recognise(evidence: str, *args: Any) -> Diagnosis | None:
    """The first cause ``evidence``'s tests recognise in ``args`` (None when none does)."""
    for test in _TESTS[evidence]:
        diag = test(*args)
        if diag is not None:
            return diag
    return None


def found(cause: str, **words: Any) -> Diagnosis:
    """The diagnosis ``cause`` (a cause code, or a family code with a sentence) worded with ``words``."""
    msg, hint = sentence(cause, **words)
    family = CAUSES[cause][0] if cause in CAUSES else cause
    return Diagnosis(family, cause if cause in CAUSES else None, msg, hint)


POSITIONS = recogniser(
    "positions",
    "positions_ignored",
    "positions_from_row0",
    "positions_shifted",
    "positions_clamped",
    "positions_wrapped",
)
ORIENTATION = recogniser("orientation", "direction", "layout", "phase")
SCALE = recogniser("scale", "attention_factor_missing", "attention_factor_twice", "attention_factor_wrong")
ROTARY_DIMS = recogniser("rotary_dims", "rotary_dims_misplaced", "partial_rotary_ignored")
FREQUENCIES = recogniser(
    "frequencies",
    "base_wrong",
    "scaling_missing",
    "longrope_long_factors_early",
    "longrope_short_factors_late",
    "ntk_length_wrong",
    "exponent_wrong",
    "index_shifted",
    "angle_scaled",
)
PRECISION = recogniser(
    "precision", "inv_freq_low_precision", "angles_low_precision", "positions_low_precision", "cache_low_precision"
)
LENGTH = recogniser("length_dependence", "ntk_call_length")

#: Causes recognised where their evidence is read, not by a recogniser here: cause -> that module.
ELSEWHERE: dict[str, str] = {
    **dict.fromkeys(
        (
            "axes_swapped",
            "sections_wrong",
            "mrope_interleaved_as_chunked",
            "mrope_chunked_as_interleaved",
            "axis_ignored",
            "pair_axes_split",
            "axes_wrong",
            "text_positions_differ",
        ),
        "ropecheck.verify.multiaxis",
    ),
    "table_too_short": "ropecheck.verify.evidence",
    "output_layout": "ropecheck.verify.compare",
    **dict.fromkeys(("qk_shifted", "qk_cross_wired"), "ropecheck.verify.qk"),
    **dict.fromkeys(
        (
            "backward_direction",
            "backward_attention_factor",
            "backward_passthrough",
            "backward_not_transpose",
            "backward_dtype",
        ),
        "ropecheck.gradients",
    ),
}


def registry_problems(
    recognisers: Iterable[Recogniser] | None = None,
    elsewhere: Mapping[str, str] | None = None,
    causes: Mapping[str, tuple[str, str]] | None = None,
) -> list[str]:
    """What is wrong with the registry: unknown codes, and causes with no recogniser, or with several.

    Every cause in ``causes`` (default :data:`CAUSES`) must be yielded by exactly one of ``recognisers``
    (default :data:`RECOGNISERS`) or be named in ``elsewhere`` (default :data:`ELSEWHERE`), not both.

    Example:
        >>> registry_problems()
        []
    """
    recs = list(RECOGNISERS.values() if recognisers is None else recognisers)
    where = ELSEWHERE if elsewhere is None else elsewhere
    table = CAUSES if causes is None else causes
    problems = [
        f"recogniser {r.name!r} yields the unknown code {c!r}"
        for r in recs
        for c in r.causes
        if c not in table and c not in _FAMILY_WORDS
    ]
    problems += [f"ELSEWHERE names the unknown cause {c!r}" for c in where if c not in table]
    for code in table:
        owners = [r.name for r in recs if code in r.causes] + ([where[code]] if code in where else [])
        if len(owners) != 1:
            problems.append(f"cause {code!r} has {len(owners)} recognisers ({', '.join(owners) or 'none'}), not one")
    return problems
