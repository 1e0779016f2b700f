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
  ``ValueError`` from deep inside numpy.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal, Union

import mpmath
import numpy as np

from .errors import SpecError

__all__ = [
    "RopeSpec",
    "Layout",
    "Scaling",
    "Default",
    "Linear",
    "StaticNTK",
    "DynamicNTK",
    "YaRN",
    "Llama3",
    "LongRoPE",
    "ROPE_TYPES",
]

Layout = Literal["interleaved", "half"]
LAYOUTS: tuple[str, ...] = ("interleaved", "half")

_DPS = 50  # decimal digits for schedule evaluation; far beyond fp64's 16


def _mpf(x: Any) -> mpmath.mpf:
    return mpmath.mpf(x) if not isinstance(x, str) else mpmath.mpf(x)


def _check_positive(field_name: str, value: Any, *, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SpecError(field_name, f"must be a finite number, got {value!r}")
    if value <= 0:
        raise SpecError(field_name, f"must be positive, got {value!r}")


def _check_int(field_name: str, value: Any, *, minimum: int = 1) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise SpecError(field_name, f"must be an integer, got {value!r}")
    if value < minimum:
        raise SpecError(field_name, f"must be >= {minimum}, got {value!r}")


# --------------------------------------------------------------------------- schedules


@dataclass(frozen=True)
class Default:
    """The original RoPE schedule: theta_i = base^(-2i/r)."""

    rope_type: ClassVar[str] = "default"

    def validate(self, spec: RopeSpec) -> None:
        pass

    def inv_freq_mp(self, spec: RopeSpec, seq_len: int | None) -> list[mpmath.mpf]:
        return _default_mp(spec.base, spec.rotary_dim)

    def attention_factor(self, spec: RopeSpec) -> float:
        return 1.0

    def params(self) -> dict[str, Any]:
        return {}


@dataclass(frozen=True)
class Linear:
    """Position interpolation: every inverse frequency divided by ``factor``."""

    factor: float
    rope_type: ClassVar[str] = "linear"

    def validate(self, spec: RopeSpec) -> None:
        _check_positive("rope_scaling.factor", self.factor)

    def inv_freq_mp(self, spec: RopeSpec, seq_len: int | None) -> list[mpmath.mpf]:
        return [t / _mpf(self.factor) for t in _default_mp(spec.base, spec.rotary_dim)]

    def attention_factor(self, spec: RopeSpec) -> float:
        return 1.0

    def params(self) -> dict[str, Any]:
        return {"factor": self.factor}


@dataclass(frozen=True)
class StaticNTK:
    """NTK-aware scaling with a fixed factor s: base' = base * s^(r/(r-2))."""

    factor: float
    rope_type: ClassVar[str] = "static-ntk"

    def validate(self, spec: RopeSpec) -> None:
        _check_positive("rope_scaling.factor", self.factor)

    def inv_freq_mp(self, spec: RopeSpec, seq_len: int | None) -> list[mpmath.mpf]:
        r = spec.rotary_dim
        if r == 2:  # the only frequency is base^0 = 1 whatever the base
            return [mpmath.mpf(1)]
        base = _mpf(spec.base) * _mpf(self.factor) ** (mpmath.mpf(r) / (r - 2))
        return _default_mp(base, r)

    def attention_factor(self, spec: RopeSpec) -> float:
        return 1.0

    def params(self) -> dict[str, Any]:
        return {"factor": self.factor}


@dataclass(frozen=True)
class DynamicNTK:
    """Dynamic NTK: the NTK base grows with the current length L once L > L_0.

    base' = base * (s*L/L_0 - (s-1))^(r/(r-2)) with L = max(seq_len, L_0), exactly as
    ``transformers`` computes it (L_0 is the config's ``max_position_embeddings``).
    """

    factor: float
    original_max_position_embeddings: int
    rope_type: ClassVar[str] = "dynamic"

    def validate(self, spec: RopeSpec) -> None:
        _check_positive("rope_scaling.factor", self.factor)
        _check_int("max_position_embeddings", self.original_max_position_embeddings)

    def inv_freq_mp(self, spec: RopeSpec, seq_len: int | None) -> list[mpmath.mpf]:
        r = spec.rotary_dim
        l0 = self.original_max_position_embeddings
        length = l0 if seq_len is None else max(int(seq_len), l0)
        if r == 2:
            return [mpmath.mpf(1)]
        s = _mpf(self.factor)
        grow = s * length / l0 - (s - 1)
        base = _mpf(spec.base) * grow ** (mpmath.mpf(r) / (r - 2))
        return _default_mp(base, r)

    def attention_factor(self, spec: RopeSpec) -> float:
        return 1.0

    def params(self) -> dict[str, Any]:
        return {"factor": self.factor, "original_max_position_embeddings": self.original_max_position_embeddings}


@dataclass(frozen=True)
class YaRN:
    """YaRN: per-frequency blend of interpolation and extrapolation, plus an attention factor.

    Dimensions whose wavelength makes more than ``beta_fast`` turns over the original
    context keep their frequency, those under ``beta_slow`` turns are divided by ``factor``,
    and a linear ramp blends the band between. The attention factor is 0.1*ln(s)+1, or
    the DeepSeek form mscale(s, mscale)/mscale(s, mscale_all_dim), unless given.
    """

    factor: float
    original_max_position_embeddings: int
    beta_fast: float = 32.0
    beta_slow: float = 1.0
    mscale: float | None = None
    mscale_all_dim: float | None = None
    attention: float | None = None
    truncate: bool = True
    rope_type: ClassVar[str] = "yarn"

    def validate(self, spec: RopeSpec) -> None:
        _check_positive("rope_scaling.factor", self.factor)
        _check_int("rope_scaling.original_max_position_embeddings", self.original_max_position_embeddings)
        _check_positive("rope_scaling.beta_fast", self.beta_fast)
        _check_positive("rope_scaling.beta_slow", self.beta_slow)
        _check_positive("rope_scaling.attention_factor", self.attention, allow_none=True)
        if self.beta_fast <= self.beta_slow:
            raise SpecError(
                "rope_scaling.beta_fast",
                f"must be greater than beta_slow ({self.beta_fast!r} <= {self.beta_slow!r})",
            )

    def correction_range(self, spec: RopeSpec) -> tuple[float, float]:
        """The (low, high) frequency indices of the ramp, as ``transformers`` computes them."""
        r, base, l0 = spec.rotary_dim, spec.base, self.original_max_position_embeddings

        def dim_for(rotations: float) -> float:
            return (r * math.log(l0 / (rotations * 2 * math.pi))) / (2 * math.log(base))

        low, high = dim_for(self.beta_fast), dim_for(self.beta_slow)
        if self.truncate:
            low, high = math.floor(low), math.ceil(high)
        return max(low, 0), min(high, r - 1)

    def inv_freq_mp(self, spec: RopeSpec, seq_len: int | None) -> list[mpmath.mpf]:
        extrapolation = _default_mp(spec.base, spec.rotary_dim)
        s = _mpf(self.factor)
        low, high = self.correction_range(spec)
        low_mp, high_mp = _mpf(low), _mpf(high)
        if low == high:
            high_mp += mpmath.mpf("0.001")  # as transformers: avoid a zero-width ramp
        out = []
        for i, theta in enumerate(extrapolation):
            ramp = min(max((i - low_mp) / (high_mp - low_mp), 0), 1)
            keep = 1 - ramp  # weight of the original (extrapolated) frequency
            out.append(theta / s * (1 - keep) + theta * keep)
        return out

    def attention_factor(self, spec: RopeSpec) -> float:
        if self.attention is not None:
            return float(self.attention)

        def mscale(scale: float, m: float = 1.0) -> float:
            return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0

        if self.mscale and self.mscale_all_dim:
            return float(mscale(self.factor, self.mscale) / mscale(self.factor, self.mscale_all_dim))
        return mscale(self.factor)

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "factor": self.factor,
            "original_max_position_embeddings": self.original_max_position_embeddings,
            "beta_fast": self.beta_fast,
            "beta_slow": self.beta_slow,
            "truncate": self.truncate,
        }
        for key, value in (("mscale", self.mscale), ("mscale_all_dim", self.mscale_all_dim), ("attention_factor", self.attention)):
            if value is not None:
                out[key] = value
        return out


@dataclass(frozen=True)
class Llama3:
    """Llama 3.1 scaling: long wavelengths divided by ``factor``, short kept, smooth between."""

    factor: float
    low_freq_factor: float
    high_freq_factor: float
    original_max_position_embeddings: int
    rope_type: ClassVar[str] = "llama3"

    def validate(self, spec: RopeSpec) -> None:
        _check_positive("rope_scaling.factor", self.factor)
        _check_positive("rope_scaling.low_freq_factor", self.low_freq_factor)
        _check_positive("rope_scaling.high_freq_factor", self.high_freq_factor)
        _check_int("rope_scaling.original_max_position_embeddings", self.original_max_position_embeddings)
        if self.high_freq_factor <= self.low_freq_factor:
            raise SpecError(
                "rope_scaling.high_freq_factor",
                f"must be greater than low_freq_factor ({self.high_freq_factor!r} <= {self.low_freq_factor!r})",
            )

    def inv_freq_mp(self, spec: RopeSpec, seq_len: int | None) -> list[mpmath.mpf]:
        s = _mpf(self.factor)
        lo, hi = _mpf(self.low_freq_factor), _mpf(self.high_freq_factor)
        old = _mpf(self.original_max_position_embeddings)
        low_wavelen, high_wavelen = old / lo, old / hi
        out = []
        for theta in _default_mp(spec.base, spec.rotary_dim):
            wavelen = 2 * mpmath.pi / theta
            if wavelen < high_wavelen:
                out.append(theta)
            elif wavelen > low_wavelen:
                out.append(theta / s)
            else:
                smooth = (old / wavelen - lo) / (hi - lo)
                out.append((1 - smooth) * theta / s + smooth * theta)
        return out

    def attention_factor(self, spec: RopeSpec) -> float:
        return 1.0

    def params(self) -> dict[str, Any]:
        return {
            "factor": self.factor,
            "low_freq_factor": self.low_freq_factor,
            "high_freq_factor": self.high_freq_factor,
            "original_max_position_embeddings": self.original_max_position_embeddings,
        }


@dataclass(frozen=True)
class LongRoPE:
    """LongRoPE (Phi-3): per-frequency rescale factors, short below the original length, long above."""

    short_factor: tuple[float, ...]
    long_factor: tuple[float, ...]
    original_max_position_embeddings: int
    factor: float | None = None
    attention: float | None = None
    rope_type: ClassVar[str] = "longrope"

    def __post_init__(self) -> None:
        object.__setattr__(self, "short_factor", tuple(self.short_factor))
        object.__setattr__(self, "long_factor", tuple(self.long_factor))

    def validate(self, spec: RopeSpec) -> None:
        _check_int("rope_scaling.original_max_position_embeddings", self.original_max_position_embeddings)
        _check_positive("rope_scaling.factor", self.factor, allow_none=True)
        _check_positive("rope_scaling.attention_factor", self.attention, allow_none=True)
        half = spec.rotary_dim // 2
        for name in ("short_factor", "long_factor"):
            values = getattr(self, name)
            if len(values) != half:
                raise SpecError(f"rope_scaling.{name}", f"must have rotary_dim/2 = {half} entries, got {len(values)}")
            for v in values:
                _check_positive(f"rope_scaling.{name}", v)
        if self.factor is None and spec.max_position_embeddings is None:
            raise SpecError("max_position_embeddings", "longrope needs it (or rope_scaling.factor) for its attention factor")

    def uses_long(self, seq_len: int | None) -> bool:
        return bool(seq_len) and int(seq_len) > self.original_max_position_embeddings  # type: ignore[arg-type]

    def inv_freq_mp(self, spec: RopeSpec, seq_len: int | None) -> list[mpmath.mpf]:
        ext = self.long_factor if self.uses_long(seq_len) else self.short_factor
        return [t / _mpf(e) for t, e in zip(_default_mp(spec.base, spec.rotary_dim), ext)]

    def effective_factor(self, spec: RopeSpec) -> float:
        if self.factor is not None:
            return float(self.factor)
        assert spec.max_position_embeddings is not None
        return spec.max_position_embeddings / self.original_max_position_embeddings

    def attention_factor(self, spec: RopeSpec) -> float:
        if self.attention is not None:
            return float(self.attention)
        s = self.effective_factor(spec)
        if s <= 1.0:
            return 1.0
        return math.sqrt(1 + math.log(s) / math.log(self.original_max_position_embeddings))

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "short_factor": list(self.short_factor),
            "long_factor": list(self.long_factor),
            "original_max_position_embeddings": self.original_max_position_embeddings,
        }
        if self.factor is not None:
            out["factor"] = self.factor
        if self.attention is not None:
            out["attention_factor"] = self.attention
        return out


Scaling = Union[Default, Linear, StaticNTK, DynamicNTK, YaRN, Llama3, LongRoPE]
ROPE_TYPES: dict[str, type] = {
    cls.rope_type: cls for cls in (Default, Linear, StaticNTK, DynamicNTK, YaRN, Llama3, LongRoPE)
}


@functools.lru_cache(maxsize=256)
def _default_mp_cached(base: str, r: int) -> tuple[mpmath.mpf, ...]:
    with mpmath.workdps(_DPS):
        b = mpmath.mpf(base)
        return tuple(b ** (-mpmath.mpf(2 * i) / r) for i in range(r // 2))


def _default_mp(base: Any, r: int) -> list[mpmath.mpf]:
    key = mpmath.nstr(mpmath.mpf(base), _DPS + 5) if isinstance(base, mpmath.mpf) else repr(float(base))
    return list(_default_mp_cached(key, r))


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

    Example:
        >>> spec = RopeSpec(head_dim=8)
        >>> spec.inv_freq().round(4).tolist()
        [1.0, 0.1, 0.01, 0.001]
    """

    head_dim: int
    rotary_dim: int | None = None
    base: float = 10000.0
    layout: Layout = "half"
    scaling: Scaling = field(default_factory=Default)
    max_position_embeddings: int | None = None

    def __post_init__(self) -> None:
        _check_int("head_dim", self.head_dim)
        if self.head_dim % 2:
            raise SpecError("head_dim", f"must be even (RoPE rotates pairs of dims), got {self.head_dim}")
        if self.rotary_dim is None:
            object.__setattr__(self, "rotary_dim", int(self.head_dim))
        _check_int("rotary_dim", self.rotary_dim, minimum=2)
        if self.rotary_dim % 2:  # type: ignore[operator]
            raise SpecError("rotary_dim", f"must be even, got {self.rotary_dim}")
        if self.rotary_dim > self.head_dim:  # type: ignore[operator]
            raise SpecError("rotary_dim", f"must be <= head_dim ({self.head_dim}), got {self.rotary_dim}")
        object.__setattr__(self, "head_dim", int(self.head_dim))
        object.__setattr__(self, "rotary_dim", int(self.rotary_dim))  # type: ignore[arg-type]
        _check_positive("base", self.base)
        if self.base == 1:
            raise SpecError("base", "must not be 1 (every frequency would be 1)")
        object.__setattr__(self, "base", float(self.base))
        if self.layout not in LAYOUTS:
            raise SpecError("layout", f"must be 'interleaved' or 'half', got {self.layout!r}")
        if not isinstance(self.scaling, tuple(ROPE_TYPES.values())):
            raise SpecError("scaling", f"must be one of {', '.join(c.__name__ for c in ROPE_TYPES.values())}, got {self.scaling!r}")
        if self.max_position_embeddings is not None:
            _check_int("max_position_embeddings", self.max_position_embeddings)
        self.scaling.validate(self)

    # ------------------------------------------------------------------ derived tables

    @property
    def rope_type(self) -> str:
        return self.scaling.rope_type

    @property
    def half(self) -> int:
        """Number of rotated pairs, rotary_dim/2."""
        return self.rotary_dim // 2  # type: ignore[operator]

    @property
    def depends_on_length(self) -> bool:
        """True when the frequencies change with the current sequence length (dynamic NTK, LongRoPE)."""
        return isinstance(self.scaling, (DynamicNTK, LongRoPE))

    @property
    def attention_factor(self) -> float:
        """The factor by which cos and sin are multiplied (1 except YaRN and LongRoPE)."""
        return float(self.scaling.attention_factor(self))

    def inv_freq_mp(self, seq_len: int | None = None) -> tuple[mpmath.mpf, ...]:
        """The inverse frequencies theta_i exactly (50 digits), as mpmath numbers."""
        return _inv_freq_mp_cached(self, None if seq_len is None else int(seq_len))

    def inv_freq(self, seq_len: int | None = None) -> np.ndarray:
        """The inverse frequencies theta_i, i = 0..r/2-1, in fp64 (correctly rounded).

        ``seq_len`` is the current length, for the schedules that depend on it.
        """
        return _inv_freq_cached(self, None if seq_len is None else int(seq_len)).copy()

    def wavelengths(self, seq_len: int | None = None) -> np.ndarray:
        """2*pi/theta_i, in tokens."""
        return 2 * np.pi / self.inv_freq(seq_len)

    def pairs(self) -> np.ndarray:
        """The (a, b) dimension index pairs rotated together, shape (r/2, 2), pair i at theta_i."""
        i = np.arange(self.half)
        if self.layout == "interleaved":
            return np.stack([2 * i, 2 * i + 1], axis=1)
        return np.stack([i, i + self.half], axis=1)

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
        }

    def describe(self) -> str:
        """One line for humans: ``half-split RoPE d=128 (rotary 128) base=500000 llama3(factor=8, ...)``."""
        params = ", ".join(f"{k}={v}" for k, v in self.scaling.params().items() if not isinstance(v, list))
        sched = self.rope_type + (f"({params})" if params else "")
        layout = "interleaved" if self.layout == "interleaved" else "half-split"
        base = f"{self.base:g}"
        return f"{layout} RoPE, head_dim={self.head_dim}, rotary_dim={self.rotary_dim}, base={base}, schedule={sched}"

    @classmethod
    def from_hf_config(cls, config: Any, *, layout: Layout | None = None) -> RopeSpec:
        """The spec a Hugging Face ``config.json`` describes (path, JSON text's dict, or config object)."""
        from ._hf import spec_from_hf_config

        return spec_from_hf_config(config, layout=layout)


@functools.lru_cache(maxsize=1024)
def _inv_freq_mp_cached(spec: RopeSpec, seq_len: int | None) -> tuple[mpmath.mpf, ...]:
    with mpmath.workdps(_DPS):
        return tuple(spec.scaling.inv_freq_mp(spec, seq_len))


@functools.lru_cache(maxsize=1024)
def _inv_freq_cached(spec: RopeSpec, seq_len: int | None) -> np.ndarray:
    out = np.array([float(t) for t in _inv_freq_mp_cached(spec, seq_len)], dtype=np.float64)
    out.setflags(write=False)
    return out
