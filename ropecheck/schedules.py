"""The frequency schedules of RoPE, and the value checks every spec field shares.

A schedule says what the inverse frequencies theta_i are for a spec (and, for dynamic NTK
and LongRoPE, for the current length), and what attention factor multiplies cos and sin:
``Default``, ``Linear`` (position interpolation), ``StaticNTK``, ``DynamicNTK``, ``YaRN``,
``Llama3``, ``LongRoPE`` and ``Proportional``. :class:`~ropecheck.spec.RopeSpec` holds one.

Design constraints:

* Schedules are frozen dataclasses, so specs stay hashable and derived tables cacheable.
* Each is evaluated in mpmath at 50 significant digits (rounded to fp64 by the spec); each
  formula follows the published method and, where one exists, the Hugging Face
  ``transformers`` implementation term by term (the tests compare the two).
* Invalid values raise :class:`~ropecheck.errors.SpecError` naming the (dotted) field.
* This module knows no ``RopeSpec`` at run time (only in annotations): the spec imports it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import mpmath
import numpy as np

from .errors import SpecError

if TYPE_CHECKING:  # annotations only: spec.py imports this module
    from .spec import RopeSpec

__all__ = [
    "DPS",
    "LAYOUTS",
    "ATTENTION_FACTOR_RANGE",
    "BETA_RANGE",
    "MAX_HEAD_DIM",
    "MAX_INV_FREQ",
    "MAX_POSITION_EMBEDDINGS",
    "ROPE_TYPES",
    "Default",
    "DynamicNTK",
    "Layout",
    "Linear",
    "Llama3",
    "LongRoPE",
    "Proportional",
    "Scaling",
    "StaticNTK",
    "YaRN",
    "check_bool",
    "check_int",
    "check_number",
    "check_positive",
    "default_inv_freq_mp",
    "describe_value",
]

Layout = Literal["interleaved", "half"]
LAYOUTS: tuple[str, ...] = ("interleaved", "half")

DPS = 50  # decimal digits for schedule evaluation; far beyond fp64's 16

#: The largest head_dim a spec accepts: two orders of magnitude above published models' (a few
#: hundred at most), and the spec's fp64 tables (32768 pairs) still take about a second to compute.
MAX_HEAD_DIM = 65536
#: The largest context length (and original context length) a spec accepts: the reference's
#: exact phase reduction is exact at every position below 2^32, and no model is near it.
MAX_POSITION_EMBEDDINGS = 1 << 32
#: The largest inverse frequency a spec accepts: float32's largest number / 2^32, so the angle m*theta_i
#: stays finite in float32 (the dtype targets compute angles in) at every position below 2^32.
MAX_INV_FREQ = float(np.finfo(np.float32).max) / MAX_POSITION_EMBEDDINGS
#: The attention factor's accepted range (given, or derived from the factors): outputs of |x| <= 4 times it
#: stay finite in float16 and far from its subnormals; published schedules give 1 to about 3.
ATTENTION_FACTOR_RANGE = (2.0**-10, 2.0**10)
#: YaRN's beta_fast/beta_slow accepted range: ln(L_0 / (2 pi beta)) stays finite for every L_0 <= 2^32
#: (published values: 32 and 1).
BETA_RANGE = (2.0**-64, 2.0**64)


def _mpf(x: Any) -> mpmath.mpf:
    return mpmath.mpf(x) if not isinstance(x, str) else mpmath.mpf(x)


def describe_value(value: Any) -> str:
    """A value for a message: its repr, cut at 80 characters; an int too long to print is shown by its size."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"a {len(str(abs(value))) if value.bit_length() < 14000 else 'several-thousand'}-digit integer"
    try:
        text = repr(value)
    except ValueError:  # a container holding an int past Python's int-to-text limit
        return f"a {type(value).__name__} holding a number too long to print"
    return text if len(text) <= 80 else text[:77] + "..."


def check_number(field_name: str, value: Any, *, allow_none: bool = False) -> None:
    """A finite real number: an int or a float, not a bool, a string, NaN, an infinity or an int past fp64."""
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(field_name, f"must be a number, got {describe_value(value)}")
    try:
        finite = math.isfinite(value)
    except OverflowError:  # an int beyond fp64's range
        finite = False
    if not finite:
        raise SpecError(field_name, f"must be a finite number (at most about 1.8e308), got {describe_value(value)}")


def check_positive(field_name: str, value: Any, *, allow_none: bool = False) -> None:
    """A finite number > 0 (see :func:`check_number`)."""
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(field_name, f"must be a finite number, got {describe_value(value)}")
    check_number(field_name, value)
    if value <= 0:
        raise SpecError(field_name, f"must be positive, got {value!r}")


def check_int(field_name: str, value: Any, *, minimum: int = 1, maximum: int | None = None) -> None:
    """An integer (not a bool, not a float such as 4096.0) in [minimum, maximum]."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise SpecError(field_name, f"must be an integer, got {describe_value(value)}")
    if value < minimum:
        raise SpecError(field_name, f"must be >= {minimum}, got {describe_value(value)}")
    if maximum is not None and value > maximum:
        raise SpecError(field_name, f"must be <= {maximum}, got {describe_value(value)}")


def check_bool(field_name: str, value: Any) -> None:
    """A bool: JSON ``true``/``false``, not the string ``"false"`` (which Python reads as true)."""
    if not isinstance(value, bool):
        raise SpecError(field_name, f"must be true or false, got {describe_value(value)}")


def _check_original(field_name: str, value: Any) -> None:
    check_int(field_name, value, maximum=MAX_POSITION_EMBEDDINGS)


def _check_context(factor: float, original: int, original_name: str = "original_max_position_embeddings") -> None:
    """The scaled context factor x original stays within 2^32 positions (the reference's exact range)."""
    if factor * original > MAX_POSITION_EMBEDDINGS:
        top = MAX_POSITION_EMBEDDINGS / original
        raise SpecError(
            "rope_scaling.factor",
            f"must be at most 2^32 / {original_name} = {top:.6g} (the scaled context factor x {original} "
            f"must stay within 2^32 positions), got {describe_value(factor)}",
        )


def _check_range(field_name: str, value: float, bounds: tuple[float, float], why: str) -> None:
    low, high = bounds
    if not low <= value <= high:
        raise SpecError(field_name, f"must be between {low:.6g} and {high:.6g} ({why}), got {describe_value(value)}")


# --------------------------------------------------------------------------- schedules


@dataclass(frozen=True)
class Default:
    """The original RoPE schedule: theta_i = base^(-2i/r)."""

    rope_type: ClassVar[str] = "default"

    def validate(self, spec: RopeSpec) -> None:
        pass

    def inv_freq_mp(self, spec: RopeSpec, seq_len: int | None) -> list[mpmath.mpf]:
        return default_inv_freq_mp(spec.base, spec.rotary_dim)

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
        check_positive("rope_scaling.factor", self.factor)

    def inv_freq_mp(self, spec: RopeSpec, seq_len: int | None) -> list[mpmath.mpf]:
        return [t / _mpf(self.factor) for t in default_inv_freq_mp(spec.base, spec.rotary_dim)]

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
        check_positive("rope_scaling.factor", self.factor)

    def inv_freq_mp(self, spec: RopeSpec, seq_len: int | None) -> list[mpmath.mpf]:
        r = spec.rotary_dim
        if r == 2:  # the only frequency is base^0 = 1 whatever the base
            return [mpmath.mpf(1)]
        base = _mpf(spec.base) * _mpf(self.factor) ** (mpmath.mpf(r) / (r - 2))
        return default_inv_freq_mp(base, r)

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
        check_positive("rope_scaling.factor", self.factor)
        _check_original("max_position_embeddings", self.original_max_position_embeddings)
        _check_context(self.factor, self.original_max_position_embeddings, "max_position_embeddings")

    def inv_freq_mp(self, spec: RopeSpec, seq_len: int | None) -> list[mpmath.mpf]:
        r = spec.rotary_dim
        l0 = self.original_max_position_embeddings
        length = l0 if seq_len is None else max(int(seq_len), l0)
        if r == 2:
            return [mpmath.mpf(1)]
        s = _mpf(self.factor)
        grow = s * length / l0 - (s - 1)
        base = _mpf(spec.base) * grow ** (mpmath.mpf(r) / (r - 2))
        return default_inv_freq_mp(base, r)

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
        check_positive("rope_scaling.factor", self.factor)
        _check_original("rope_scaling.original_max_position_embeddings", self.original_max_position_embeddings)
        _check_context(self.factor, self.original_max_position_embeddings)
        check_positive("rope_scaling.beta_fast", self.beta_fast)
        check_positive("rope_scaling.beta_slow", self.beta_slow)
        for name, beta in (("beta_fast", self.beta_fast), ("beta_slow", self.beta_slow)):
            _check_range(f"rope_scaling.{name}", beta, BETA_RANGE, "so the ramp's ends stay finite")
        check_number("rope_scaling.mscale", self.mscale, allow_none=True)
        check_number("rope_scaling.mscale_all_dim", self.mscale_all_dim, allow_none=True)
        check_positive("rope_scaling.attention_factor", self.attention, allow_none=True)
        check_bool("rope_scaling.truncate", self.truncate)
        if self.beta_fast <= self.beta_slow:
            raise SpecError(
                "rope_scaling.beta_fast",
                f"must be greater than beta_slow ({self.beta_fast!r} <= {self.beta_slow!r})",
            )
        if self.attention is None and self.mscale and self.mscale_all_dim and self.factor > 1:
            divisor = 0.1 * self.mscale_all_dim * math.log(self.factor) + 1.0
            if divisor == 0:
                raise SpecError(
                    "rope_scaling.mscale_all_dim",
                    f"makes the attention factor's divisor 0.1*mscale_all_dim*ln(factor) + 1 zero "
                    f"(mscale_all_dim={self.mscale_all_dim!r}, factor={self.factor!r})",
                )
        for name, m in (("mscale", self.mscale), ("mscale_all_dim", self.mscale_all_dim)):
            if self.attention is None and m and self.factor > 1 and 0.1 * m * math.log(self.factor) + 1.0 <= 0:
                raise SpecError(
                    f"rope_scaling.{name}",
                    f"makes 0.1*{name}*ln(factor) + 1 = {0.1 * m * math.log(self.factor) + 1.0:.6g}, not positive "
                    f"({name}={m!r}, factor={self.factor!r}); the attention factor must be positive",
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
        extrapolation = default_inv_freq_mp(spec.base, spec.rotary_dim)
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
        for key, value in (
            ("mscale", self.mscale),
            ("mscale_all_dim", self.mscale_all_dim),
            ("attention_factor", self.attention),
        ):
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
        check_positive("rope_scaling.factor", self.factor)
        check_positive("rope_scaling.low_freq_factor", self.low_freq_factor)
        check_positive("rope_scaling.high_freq_factor", self.high_freq_factor)
        _check_original("rope_scaling.original_max_position_embeddings", self.original_max_position_embeddings)
        _check_context(self.factor, self.original_max_position_embeddings)
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
        for theta in default_inv_freq_mp(spec.base, spec.rotary_dim):
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
        for name in ("short_factor", "long_factor"):
            values = getattr(self, name)
            if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple, np.ndarray)):
                raise SpecError(f"rope_scaling.{name}", f"must be a list of numbers, got {describe_value(values)}")
            object.__setattr__(self, name, tuple(values))

    def validate(self, spec: RopeSpec) -> None:
        _check_original("rope_scaling.original_max_position_embeddings", self.original_max_position_embeddings)
        check_positive("rope_scaling.factor", self.factor, allow_none=True)
        if self.factor is not None:
            _check_context(self.factor, self.original_max_position_embeddings)
        check_positive("rope_scaling.attention_factor", self.attention, allow_none=True)
        half = spec.rotary_dim // 2
        for name in ("short_factor", "long_factor"):
            values = getattr(self, name)
            if len(values) != half:
                raise SpecError(f"rope_scaling.{name}", f"must have rotary_dim/2 = {half} entries, got {len(values)}")
            for v in values:
                check_positive(f"rope_scaling.{name}", v)
        if self.factor is None and spec.max_position_embeddings is None:
            raise SpecError(
                "max_position_embeddings", "longrope needs it (or rope_scaling.factor) for its attention factor"
            )

    def uses_long(self, seq_len: int | None) -> bool:
        return bool(seq_len) and int(seq_len) > self.original_max_position_embeddings  # type: ignore[arg-type]

    def inv_freq_mp(self, spec: RopeSpec, seq_len: int | None) -> list[mpmath.mpf]:
        ext = self.long_factor if self.uses_long(seq_len) else self.short_factor
        return [t / _mpf(e) for t, e in zip(default_inv_freq_mp(spec.base, spec.rotary_dim), ext)]

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


@dataclass(frozen=True)
class Proportional:
    """Proportional RoPE (Gemma 4): frequencies spread over the whole rotary head, only the first pairs turning.

    theta_i = base^(-2i/r) / factor for the first k = floor(p*r/2) pairs (p = ``partial_rotary_factor``), and
    0 for the other r/2 - k: those pairs turn by 0, so their dims come back unchanged. Unlike partial rotary
    (``rotary_dim`` < ``head_dim``) the exponent's denominator is the whole r, and the dims that do not turn are
    the layout's last pairs (in the half-split layout the end of each half), not the dims after rotary_dim.
    """

    factor: float = 1.0
    partial_rotary_factor: float = 1.0
    rope_type: ClassVar[str] = "proportional"

    def validate(self, spec: RopeSpec) -> None:
        check_positive("rope_scaling.factor", self.factor)
        check_number("rope_scaling.partial_rotary_factor", self.partial_rotary_factor)
        if not 0 < self.partial_rotary_factor <= 1:
            raise SpecError(
                "rope_scaling.partial_rotary_factor", f"must be in (0, 1], got {self.partial_rotary_factor!r}"
            )
        if self.turning(spec.rotary_dim) < 1:
            raise SpecError(
                "rope_scaling.partial_rotary_factor",
                f"turns no pair: int({self.partial_rotary_factor!r} * {spec.rotary_dim} // 2) = 0",
            )

    def turning(self, rotary_dim: int) -> int:
        """k, the number of pairs that turn: ``int(p * r // 2)``, as transformers computes it."""
        return int(self.partial_rotary_factor * rotary_dim // 2)

    def inv_freq_mp(self, spec: RopeSpec, seq_len: int | None) -> list[mpmath.mpf]:
        k = self.turning(spec.rotary_dim)
        theta = default_inv_freq_mp(spec.base, spec.rotary_dim)
        return [t / _mpf(self.factor) if i < k else mpmath.mpf(0) for i, t in enumerate(theta)]

    def attention_factor(self, spec: RopeSpec) -> float:
        return 1.0

    def params(self) -> dict[str, Any]:
        return {"factor": self.factor, "partial_rotary_factor": self.partial_rotary_factor}


Scaling = Default | Linear | StaticNTK | DynamicNTK | YaRN | Llama3 | LongRoPE | Proportional
ROPE_TYPES: dict[str, type] = {
    cls.rope_type: cls for cls in (Default, Linear, StaticNTK, DynamicNTK, YaRN, Llama3, LongRoPE, Proportional)
}


@functools.lru_cache(maxsize=256)
def _default_inv_freq_mp_cached(base: str, r: int) -> tuple[mpmath.mpf, ...]:
    with mpmath.workdps(DPS):
        b = mpmath.mpf(base)
        return tuple(b ** (-mpmath.mpf(2 * i) / r) for i in range(r // 2))


def default_inv_freq_mp(base: Any, r: int) -> list[mpmath.mpf]:
    key = mpmath.nstr(mpmath.mpf(base), DPS + 5) if isinstance(base, mpmath.mpf) else repr(float(base))
    return list(_default_inv_freq_mp_cached(key, r))
