"""`RopeSpec`: the one definition of what a RoPE should be.

A spec fixes the head dimension, the rotary (possibly partial) dimension, the base, the
pairing layout and the frequency schedule. Everything else in ropecheck -- the fp64
reference, the properties, the verifier, the precision sweeps -- asks a spec for its
inverse frequencies, pairs and attention factor, so this module is the single place where
the schedules' formulas live.

Design constraints:

* Specs are frozen and hashable (tuples, not lists), so derived tables can be cached.
* The schedules are evaluated once in mpmath at 50 significant digits and rounded to fp64
  at the end; the exact values also feed the reference's exact phase reduction at large
  positions. Each formula follows the published method and, where one exists, the
  Hugging Face ``transformers`` implementation term by term (the tests compare the two).
* Invalid values raise :class:`~ropecheck.errors.SpecError` naming the field, never a bare
  ``ValueError`` from deep inside numpy (nor an ``OverflowError`` or ``TypeError``): every
  field is type- and range-checked (head_dim <= ``MAX_HEAD_DIM``, context lengths <=
  ``MAX_POSITION_EMBEDDINGS``), and a spec exists only if every inverse frequency it derives
  is a finite, positive fp64 number and its attention factor is finite and positive.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import mpmath
import numpy as np

from . import hf
from .axes import MultiAxis
from .errors import SpecError
from .schedules import (
    ATTENTION_FACTOR_RANGE,
    DPS,
    LAYOUTS,
    MAX_HEAD_DIM,
    MAX_INV_FREQ,
    MAX_POSITION_EMBEDDINGS,
    ROPE_TYPES,
    Default,
    DynamicNTK,
    Layout,
    LongRoPE,
    Proportional,
    Scaling,
    YaRN,
    check_int,
    check_positive,
    default_inv_freq_mp,
    describe_value,
)

__all__ = ["ATTENTION_FACTOR_PLACES", "DIRECTIONS", "ROTARY_DIMS", "RopeSpec"]

#: The rotation direction: +1 turns each pair by +m*theta_i (the HF/RoFormer convention), -1 by -m*theta_i.
DIRECTIONS: tuple[int, ...] = (1, -1)
#: Where the schedule's attention factor (YaRN, LongRoPE) is applied: on cos and sin (HF), or on the softmax scale.
ATTENTION_FACTOR_PLACES: tuple[str, ...] = ("cos_sin", "softmax")
#: Which end of the head holds the rotary_dim rotated dims (partial rotary): the first dims or the last ones.
ROTARY_DIMS: tuple[str, ...] = ("first", "last")


# --------------------------------------------------------------------------- the spec


@dataclass(frozen=True)
class RopeSpec:
    """What RoPE should be for one attention head.

    Args:
        head_dim: size of the head (even).
        rotary_dim: how many leading dims are rotated (even, <= head_dim); defaults to
            head_dim. Dims past it pass through unchanged (partial rotary).
        base: the base theta (``rope_theta``); theta_i = base^(-2i/rotary_dim).
        layout: ``"half"`` pairs (x_i, x_{i+r/2}) -- the "rotate_half"/NeoX form used by
            Llama in ``transformers``; ``"interleaved"`` pairs (x_{2i}, x_{2i+1}) as in the
            RoFormer paper, GPT-J and Meta's reference code.
        scaling: the frequency schedule (:class:`Default`, :class:`Linear`, ...).
        max_position_embeddings: the model's context length, when known.
        direction: +1 (default) rotates each pair by +m*theta_i; -1 by -m*theta_i, a convention
            some models are trained with (scores still depend on n - m only).
        attention_factor_in: ``"cos_sin"`` (default, as transformers): the schedule's attention
            factor multiplies cos and sin, so the RoPE output carries it; ``"softmax"``: the
            model applies it to the softmax scale instead (as its square), so the RoPE output is
            a pure rotation (DeepSeek-V3's reference code).
        rotary_dims: ``"first"`` (default): the rotated dims are the leading ``rotary_dim`` ones;
            ``"last"``: the trailing ones (DeepSeek MLA's ``cat(q_nope, q_pe)`` head).
        axes: multi-axis RoPE (:class:`~ropecheck.axes.MultiAxis`): which pair rotates by which
            position axis (M-RoPE sections, interleaved M-RoPE, 2-D axial); None (default) for
            1-D RoPE. Pair ``i`` turns by ``positions[axis(i)] * theta_i``, where ``theta_i`` is
            :meth:`inv_freq`'s entry ``i`` -- the 1-D table for M-RoPE, the axes' own tables for
            axial RoPE; an axis with a position map turns its pairs by ``(scale * p + offset) * theta_i``
            (:class:`~ropecheck.axes.Axis`).
        output_layout: where the rotated pairs are written back: None (default) in the input's
            ``layout``; the other layout when the code rotates pairs of one layout and stores them in
            the other's places (keras-hub's Gemma writes a half-split rotation back interleaved;
            DeepSeek's ``apply_rotary_pos_emb_interleave`` writes an interleaved one back half-split).
            It is a fixed permutation of the head, the same for q and k, so q.k is that of ``layout``.

    Example:
        >>> spec = RopeSpec(head_dim=8)
        >>> spec.inv_freq().round(4).tolist()
        [1.0, 0.1, 0.01, 0.001]
    """

    head_dim: int
    # an int once constructed: None (the default) means head_dim, set in __post_init__
    rotary_dim: int = None  # type: ignore[assignment]
    base: float = 10000.0
    layout: Layout = "half"
    scaling: Scaling = field(default_factory=Default)
    max_position_embeddings: int | None = None
    direction: int = 1
    attention_factor_in: str = "cos_sin"
    rotary_dims: str = "first"
    axes: MultiAxis | None = None
    output_layout: Layout | None = None

    if TYPE_CHECKING:  # the constructor as callers see it: rotary_dim may be None (= head_dim)

        def __init__(
            self,
            head_dim: int,
            rotary_dim: int | None = None,
            base: float = 10000.0,
            layout: Layout = "half",
            scaling: Scaling = ...,
            max_position_embeddings: int | None = None,
            direction: int = 1,
            attention_factor_in: str = "cos_sin",
            rotary_dims: str = "first",
            axes: MultiAxis | None = None,
            output_layout: Layout | None = None,
        ) -> None: ...

    def __post_init__(self) -> None:
        check_int("head_dim", self.head_dim, maximum=MAX_HEAD_DIM)
        if self.head_dim % 2:
            raise SpecError("head_dim", f"must be even (RoPE rotates pairs of dims), got {self.head_dim}")
        if self.rotary_dim is None:
            object.__setattr__(self, "rotary_dim", int(self.head_dim))
        check_int("rotary_dim", self.rotary_dim, minimum=2, maximum=MAX_HEAD_DIM)
        if self.rotary_dim % 2:
            raise SpecError("rotary_dim", f"must be even, got {self.rotary_dim}")
        if self.rotary_dim > self.head_dim:
            raise SpecError("rotary_dim", f"must be <= head_dim ({self.head_dim}), got {self.rotary_dim}")
        object.__setattr__(self, "head_dim", int(self.head_dim))
        object.__setattr__(self, "rotary_dim", int(self.rotary_dim))
        check_positive("base", self.base)
        if self.base == 1:
            raise SpecError("base", "must not be 1 (every frequency would be 1)")
        object.__setattr__(self, "base", float(self.base))
        if self.layout not in LAYOUTS:
            raise SpecError("layout", f"must be 'interleaved' or 'half', got {describe_value(self.layout)}")
        if self.output_layout is not None and self.output_layout not in LAYOUTS:
            raise SpecError(
                "output_layout", f"must be 'interleaved', 'half' or None, got {describe_value(self.output_layout)}"
            )
        if self.output_layout == self.layout:
            object.__setattr__(self, "output_layout", None)  # written back where read: the plain spec
        if not isinstance(self.scaling, tuple(ROPE_TYPES.values())):
            kinds = ", ".join(c.__name__ for c in ROPE_TYPES.values())
            raise SpecError("scaling", f"must be one of {kinds}, got {describe_value(self.scaling)}")
        if self.max_position_embeddings is not None:
            check_int("max_position_embeddings", self.max_position_embeddings, maximum=MAX_POSITION_EMBEDDINGS)
        if isinstance(self.direction, bool) or self.direction not in DIRECTIONS:
            raise SpecError("direction", f"must be +1 or -1, got {self.direction!r}")
        object.__setattr__(self, "direction", int(self.direction))
        if self.attention_factor_in not in ATTENTION_FACTOR_PLACES:
            raise SpecError("attention_factor_in", f"must be 'cos_sin' or 'softmax', got {self.attention_factor_in!r}")
        if self.rotary_dims not in ROTARY_DIMS:
            raise SpecError("rotary_dims", f"must be 'first' or 'last', got {self.rotary_dims!r}")
        if self.axes is not None:
            if not isinstance(self.axes, MultiAxis):
                raise SpecError(
                    "axes", f"must be a MultiAxis (ropecheck.axes) or None, got {describe_value(self.axes)}"
                )
            self.axes.check(self.half)
            if not self.axes.uses_spec_table(self.rotary_dim) and not isinstance(self.scaling, Default):
                raise SpecError(
                    "axes",
                    f"axial RoPE with its own frequency tables takes the default schedule, got {self.rope_type!r}",
                )
        self.scaling.validate(self)
        self._check_derived()
        self._check_position_map()

    def _check_position_map(self) -> None:
        """Each axis's angle ``(scale * p + offset) * theta_i`` finite in float32 at every position below 2^32, as
        ``_check_derived`` asks of ``p * theta_i`` (nothing to check for integer positions)."""
        if self.axes is None or self.axes.integer_positions:
            return
        theta, axis_of = self.inv_freq(), self.axis_of_pair()
        for i, (scale, offset) in enumerate(self.axes.position_map()):
            name = self.axes.axes[int(axis_of[i])].name
            if abs(scale) * theta[i] > MAX_INV_FREQ:
                raise SpecError(f"axes.{name}.scale", _too_fast(i, mpmath.mpf(abs(scale) * theta[i])))
            if abs(offset) * theta[i] > MAX_INV_FREQ * 2.0**32:
                raise SpecError(f"axes.{name}.offset", f"gives pair {i} the angle {offset * theta[i]:.3g} at position "
                                "0, past float32's range")  # fmt: skip

    def _check_derived(self) -> None:
        """Every inverse frequency finite, positive and at most ``MAX_INV_FREQ`` in fp64; the attention factor in
        ``ATTENTION_FACTOR_RANGE``. Each problem names the key that caused it (``base``, ``rope_scaling.factor``)."""
        for i, theta in enumerate(default_inv_freq_mp(self.base, self.rotary_dim)):
            value = float(theta)
            if not (math.isfinite(value) and value > 0):
                raise SpecError(
                    "base",
                    f"gives inverse frequency theta_{i} = base^(-{2 * i}/{self.rotary_dim}) = {mpmath.nstr(theta, 3)}, "
                    f"which is {'0' if value == 0 else 'infinite'} in float64; use a base between about 1e-300 "
                    "and 1e300",
                )
        fastest = max(default_inv_freq_mp(self.base, self.rotary_dim))
        if float(fastest) > MAX_INV_FREQ:  # after the check above: an infinite theta is named as such first
            i = default_inv_freq_mp(self.base, self.rotary_dim).index(fastest)
            raise SpecError("base", _too_fast(i, fastest) + "; use a larger base")
        lengths: list[int | None] = [None]
        turning = self.scaling.turning(self.rotary_dim) if isinstance(self.scaling, Proportional) else self.half
        if isinstance(self.scaling, LongRoPE):  # the long factors too
            lengths.append(self.scaling.original_max_position_embeddings + 1)
        for seq_len in lengths:
            key = _schedule_key(self.scaling, seq_len)
            for i, theta in enumerate(_inv_freq_mp_cached(self, seq_len)):
                value = float(theta)
                if value == 0 and isinstance(self.scaling, Proportional) and i >= turning:
                    continue  # a pair proportional RoPE leaves unturned
                if not (math.isfinite(value) and value > 0):
                    raise SpecError(
                        "rope_scaling",
                        f"gives inverse frequency theta_{i} = {mpmath.nstr(theta, 3)}, which is not a finite positive "
                        f"float64 number; check the schedule's factors ({self.scaling.params()})",
                    )
            fastest = max(_inv_freq_mp_cached(self, seq_len))
            if float(fastest) > MAX_INV_FREQ:
                i = _inv_freq_mp_cached(self, seq_len).index(fastest)
                raise SpecError(
                    key, _too_fast(i, fastest) + f"; check the schedule's factors ({self.scaling.params()})"
                )
        key = _attention_key(self.scaling)
        try:
            factor = float(self.scaling.attention_factor(self))
        except (ArithmeticError, ValueError) as exc:
            raise SpecError("rope_scaling.attention_factor", f"cannot be computed from this schedule: {exc}") from None
        if not (math.isfinite(factor) and factor > 0):
            raise SpecError(key, f"gives the attention factor {factor!r}; it must be finite and positive")
        low, high = ATTENTION_FACTOR_RANGE
        if not low <= factor <= high:
            given = "" if key.endswith("attention_factor") else f"gives the attention factor {factor:.6g}; it "
            raise SpecError(
                key,
                f"{given}must be between {low:g} and {high:g} (the RoPE output is x times it, which must stay "
                f"finite in float16), got {describe_value(factor) if not given else f'{factor:.6g}'}",
            )

    # ------------------------------------------------------------------ derived tables

    @property
    def rope_type(self) -> str:
        return self.scaling.rope_type

    @property
    def half(self) -> int:
        """Number of rotated pairs, rotary_dim/2."""
        return self.rotary_dim // 2

    @property
    def depends_on_length(self) -> bool:
        """True when the frequencies change with the current sequence length (dynamic NTK, LongRoPE)."""
        return isinstance(self.scaling, (DynamicNTK, LongRoPE))

    @property
    def attention_factor(self) -> float:
        """The factor the RoPE output's rotated dims carry: the schedule's (1 except YaRN and LongRoPE) on
        cos and sin, or 1 when the model applies it to the softmax scale (``attention_factor_in="softmax"``)."""
        if self.attention_factor_in == "softmax":
            return 1.0
        return self.schedule_attention_factor

    @property
    def schedule_attention_factor(self) -> float:
        """The schedule's attention factor, wherever the model applies it (1 except YaRN and LongRoPE)."""
        return float(self.scaling.attention_factor(self))

    @property
    def rotary_start(self) -> int:
        """The first rotated dim: 0, or head_dim - rotary_dim when the rotated dims are the last ones."""
        return self.head_dim - self.rotary_dim if self.rotary_dims == "last" else 0

    def rotated_dims(self) -> np.ndarray:
        """The indices of the rotated dims, in order (``rotary_dim`` of them)."""
        return np.arange(self.rotary_start, self.rotary_start + self.rotary_dim)

    def turning_pairs(self) -> int:
        """How many of the r/2 pairs turn (theta_i > 0): all of them, except under proportional RoPE."""
        return self.scaling.turning(self.rotary_dim) if isinstance(self.scaling, Proportional) else self.half

    def turning_dims(self) -> np.ndarray:
        """The dims that turn, in order: :meth:`rotated_dims` less the pairs proportional RoPE leaves at angle 0."""
        if self.turning_pairs() == self.half:
            return self.rotated_dims()
        return np.sort(self.pairs()[: self.turning_pairs()].ravel())

    @property
    def conventions(self) -> dict[str, Any]:
        """The deliberate conventions that differ from the defaults (empty for a plain HF-style spec)."""
        out: dict[str, Any] = {}
        if self.direction != 1:
            out["direction"] = self.direction
        if self.attention_factor_in != "cos_sin":
            out["attention_factor_in"] = self.attention_factor_in
        if self.rotary_dims != "first":
            out["rotary_dims"] = self.rotary_dims
        if self.output_layout is not None:
            out["output_layout"] = self.output_layout
        return out

    def output_order(self) -> np.ndarray | None:
        """Per dim ``j`` of the head in the spec's order, the dim of the target's output that holds it (None when
        the pairs are written back where they were read: ``output_layout`` unset).

        Example:
            >>> RopeSpec(head_dim=4, output_layout="interleaved").output_order().tolist()
            [0, 2, 1, 3]
        """
        if self.output_layout is None:
            return None
        order = np.arange(self.head_dim)
        written = replace(self, layout=self.output_layout, output_layout=None).pairs()
        order[self.pairs().ravel()] = written.ravel()
        return order

    @property
    def axis_names(self) -> tuple[str, ...]:
        """The position axes, in the order positions give them (``()`` for 1-D RoPE)."""
        return () if self.axes is None else self.axes.names

    def axis_of_pair(self) -> np.ndarray:
        """Per rotated pair, the index of the position axis that turns it (all 0 for 1-D RoPE)."""
        if self.axes is None:
            return np.zeros(self.half, dtype=np.int64)
        return np.asarray(self.axes.axis_of_pair(), dtype=np.int64)

    @property
    def integer_positions(self) -> bool:
        """True when every pair turns by the integer position itself (1-D RoPE, or axes with the default map)."""
        return self.axes is None or self.axes.integer_positions

    def position_map(self) -> tuple[np.ndarray, np.ndarray]:
        """Per rotated pair, ``(scale, offset)`` of its axis's position map: pair ``i`` turns by
        ``(scale_i * p + offset_i) * theta_i`` (all 1 and 0 for integer positions)."""
        if self.axes is None:
            return np.ones(self.half), np.zeros(self.half)
        scale, offset = zip(*self.axes.position_map())
        return np.asarray(scale, dtype=np.float64), np.asarray(offset, dtype=np.float64)

    def inv_freq_mp(self, seq_len: int | None = None) -> tuple[mpmath.mpf, ...]:
        """The inverse frequencies theta_i exactly (50 digits), as mpmath numbers."""
        return _inv_freq_mp_cached(self, None if seq_len is None else int(seq_len))

    def inv_freq(self, seq_len: int | None = None) -> np.ndarray:
        """The inverse frequencies theta_i, i = 0..r/2-1, in fp64 (correctly rounded).

        ``seq_len`` is the current length, for the schedules that depend on it.
        """
        return _inv_freq_cached(self, None if seq_len is None else int(seq_len)).copy()

    def wavelengths(self, seq_len: int | None = None) -> np.ndarray:
        """2*pi/theta_i, in tokens (infinite for a pair that does not turn: proportional RoPE's last pairs)."""
        with np.errstate(divide="ignore"):
            return 2 * np.pi / self.inv_freq(seq_len)

    def pairs(self) -> np.ndarray:
        """The (a, b) dimension index pairs rotated together, shape (r/2, 2), pair i at theta_i."""
        i = np.arange(self.half)
        if self.layout == "interleaved":
            return self.rotary_start + np.stack([2 * i, 2 * i + 1], axis=1)
        return self.rotary_start + np.stack([i, i + self.half], axis=1)

    def with_(self, **changes: Any) -> RopeSpec:
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description (the fields plus the schedule's parameters)."""
        return {
            "head_dim": self.head_dim,
            "rotary_dim": self.rotary_dim,
            "base": self.base,
            "layout": self.layout,
            "rope_type": self.rope_type,
            "scaling": self.scaling.params(),
            "max_position_embeddings": self.max_position_embeddings,
            "attention_factor": self.attention_factor,
            "direction": self.direction,
            "attention_factor_in": self.attention_factor_in,
            "rotary_dims": self.rotary_dims,
            "schedule_attention_factor": self.schedule_attention_factor,
            "axes": None if self.axes is None else self.axes.to_dict(),
            "output_layout": self.output_layout,
        }

    def describe(self, *, conventions: bool = True) -> str:
        """One line for humans: ``half-split RoPE d=128 (rotary 128) base=500000 llama3(factor=8, ...)``.

        ``conventions=False`` leaves out the deliberate conventions (direction, attention factor in the
        softmax, rotated dims last), for a caller that prints them on lines of their own.
        """
        params = ", ".join(f"{k}={v}" for k, v in self.scaling.params().items() if not isinstance(v, list))
        sched = self.rope_type + (f"({params})" if params else "")
        layout = "interleaved" if self.layout == "interleaved" else "half-split"
        base = f"{self.base:g}"
        out = f"{layout} RoPE, head_dim={self.head_dim}, rotary_dim={self.rotary_dim}, base={base}, schedule={sched}"
        if not conventions:
            return out + (f", axes={self.axes.describe()}" if self.axes is not None else "")
        # the deliberate conventions, only when they differ from the defaults
        if self.direction != 1:
            out += ", direction=-1 (rotates by -m*theta_i)"
        if self.attention_factor_in == "softmax":
            out += f", attention factor {self.schedule_attention_factor:g} in the softmax scale (RoPE output unscaled)"
        if self.rotary_dims == "last":
            out += f", rotated dims last ({self.rotary_start}-{self.head_dim - 1})"
        if self.output_layout is not None:
            written = "interleaved" if self.output_layout == "interleaved" else "half-split"
            out += f", rotated pairs written back {written}"
        if self.axes is not None:
            out += f", axes={self.axes.describe()}"
        return out

    @classmethod
    def from_hf_config(
        cls,
        config: Any,
        *,
        layout: Layout | None = None,
        layer_type: str = "full_attention",
        config_key: str | None = None,
    ) -> RopeSpec:
        """The spec a Hugging Face config describes.

        Args:
            config: path to ``config.json`` (or its folder), a dict, or a transformers config.
            layout: override the pairing; by default ``interleaved`` for GPT-J/CodeGen/Cohere/GLM
                configs and ``half`` (rotate_half) otherwise, as transformers implements them.
            layer_type: which entry to use when ``rope_parameters`` is nested by layer type.
            config_key: the (dotted) key of the sub-config to read, e.g. ``"text_config"``;
                ``"."`` for the top level. By default a multimodal config's ``text_config`` is
                read (as transformers' text models do) and otherwise the top level
                (:func:`ropecheck.hf.read_rope_config` says which).

        Raises:
            ConfigError: the file cannot be read as a JSON object (missing, not UTF-8, not
                JSON, NaN/Infinity, too deep, numbers too long).
            SpecError: a field is missing, of the wrong type or out of range; ``field`` is its
                dotted key (``rope_scaling.beta_fast``).

        Example:
            >>> RopeSpec.from_hf_config({"hidden_size": 64, "num_attention_heads": 4}).head_dim
            16
        """
        fields, keys = hf.spec_fields_and_keys(config, layout=layout, layer_type=layer_type, config_key=config_key)
        try:
            return cls(**fields)
        except SpecError as exc:  # reported by the key the config spells it with
            head, _, rest = exc.field.partition(".")
            key = keys.get(exc.field) or (keys[head] + (f".{rest}" if rest else "") if head in keys else exc.field)
            if key == exc.field:
                raise
            raise SpecError(key, str(exc)[len(exc.field) + 2 :]) from None


def _too_fast(i: int, theta: mpmath.mpf) -> str:
    return (
        f"gives inverse frequency theta_{i} = {mpmath.nstr(theta, 3)}, above {MAX_INV_FREQ:.3g} (float32's largest "
        "number / 2^32: the angle m*theta_i must stay finite in float32 at every position below 2^32)"
    )


def _schedule_key(scaling: Scaling, seq_len: int | None) -> str:
    """The config key a schedule's frequencies come from: the LongRoPE list in use, else the factor."""
    if isinstance(scaling, LongRoPE):
        return "rope_scaling.long_factor" if scaling.uses_long(seq_len) else "rope_scaling.short_factor"
    return "rope_scaling.factor" if hasattr(scaling, "factor") else "rope_scaling"


def _attention_key(scaling: Scaling) -> str:
    """The config key the attention factor comes from: given, from YaRN's mscale pair, or from the factor."""
    if getattr(scaling, "attention", None) is not None:
        return "rope_scaling.attention_factor"
    if isinstance(scaling, YaRN) and scaling.mscale and scaling.mscale_all_dim:
        return "rope_scaling.mscale"
    return "rope_scaling.factor" if isinstance(scaling, (YaRN, LongRoPE)) else "rope_scaling.attention_factor"


@functools.lru_cache(maxsize=1024)
def _inv_freq_mp_cached(spec: RopeSpec, seq_len: int | None) -> tuple[mpmath.mpf, ...]:
    with mpmath.workdps(DPS):
        if spec.axes is not None and not spec.axes.uses_spec_table(spec.rotary_dim):
            # axial RoPE: pair i's frequency from its axis's own table -- the fp64 values it gives, or
            # base_a ** (-2 j / D_a)
            return tuple(
                mpmath.mpf(own)
                if own is not None
                else mpmath.power(mpmath.mpf(spec.base if base is None else base), -mpmath.mpf(2 * j) / dim)
                for (j, dim, base), own in zip(spec.axes.frequency_of_pair(), spec.axes.table_of_pair())
            )
        return tuple(spec.scaling.inv_freq_mp(spec, seq_len))


@functools.lru_cache(maxsize=1024)
def _inv_freq_cached(spec: RopeSpec, seq_len: int | None) -> np.ndarray:
    out = np.array([float(t) for t in _inv_freq_mp_cached(spec, seq_len)], dtype=np.float64)
    out.setflags(write=False)
    return out
