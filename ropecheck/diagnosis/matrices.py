"""Recognising a cause in an identified RoPE: its entries, rotated dims, phase, frequencies, scale, positions.

The verifier identifies the target's matrices (``ropecheck.verify.identify``) and hands the
numbers here: the rotated block of the matrices, the rotated dims (:class:`Dims`), the phase at
position 0, the identified theta_i beside the spec's (:class:`Frequencies`), the factor cos and
sin carry, the positions the deviating probes are rotated as (:class:`Positions`). Each test is registered with the
recogniser of the causes it yields (:mod:`.causes`); :func:`~.causes.recognise` tries them in
registration order and the first that fits names the cause.

Design constraints: plain numbers in, no identification object (this package sits below the
verifier); the same sentences as every other recogniser.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..schedules import DynamicNTK, Linear, LongRoPE
from ..spec import RopeSpec
from ..tolerance import UNIT_ROUNDOFF
from .causes import (
    COMMON_BASES,
    FREQUENCIES,
    POSITIONS,
    PRECISION,
    ROTARY_DIMS,
    SCALE,
    Diagnosis,
    found,
    sentence,
)
from .output import round_to

__all__ = ["Dims", "Frequencies", "Positions"]


@dataclass(frozen=True)
class Frequencies:
    """An identified RoPE's frequencies beside the spec's: ``got`` and ``want`` (the pairs that turn), the
    per-pair tolerance, the call's length, the input dtype, the largest probed position, and whether the
    frequencies are geometric (with the ``base`` they imply)."""

    got: np.ndarray
    want: np.ndarray
    spec: RopeSpec
    tol: np.ndarray
    seq_len: int | None
    dtype: str
    top: int
    geometric: bool = False
    base: float | None = None

    @property
    def ratio(self) -> np.ndarray:
        return self.got / self.want

    def matches(self, want: np.ndarray) -> bool:
        """Whether ``got`` is ``want`` (its first pairs) within the tolerance."""
        want = want[: len(self.got)]  # proportional RoPE: only the pairs that turn were identified
        return bool(np.all(np.abs(self.got - want) / want <= np.maximum(self.tol, 1e-6)))


@dataclass(frozen=True)
class Positions:
    """The probes past the first deviating position ``first``: each one's ``position``, the position its angles
    say (``apparent``), and its ``index`` among the probes."""

    first: int
    position: np.ndarray
    apparent: np.ndarray
    index: np.ndarray


@dataclass(frozen=True)
class Dims:
    """The dims an identified RoPE rotates (``got``) against ``spec``'s; ``ranges`` words a list of dims."""

    got: list[int]
    spec: RopeSpec
    ranges: Callable[[list[int]], str]


# --------------------------------------------------------------------------- entries, dims, phase


@PRECISION.test("entries")
def _cache_rounded(block: np.ndarray, dtype: str) -> Diagnosis | None:
    """Every rotated entry (cos and sin) a bfloat16/float16 value, for float32/float64 probes."""
    if dtype not in ("float32", "float64") or np.count_nonzero(block) == 0:
        return None
    for low in ("bfloat16", "float16"):
        if np.array_equal(round_to(block, low), block):
            return found(
                "cache_low_precision",
                text=f"the matrix entries (cos and sin) are exact {low} values even for {dtype} input: the "
                f"cos/sin cache is stored in {low}",
            )
    return None


@ROTARY_DIMS.test("permutation")
def _head_reordered(moved: str) -> Diagnosis | None:
    """The head comes back in another order (the verifier found a permutation; ``moved`` words its segments)."""
    return found(
        "rotary_dims_misplaced",
        text=f"the head comes back reordered: {moved} -- the rotated slice is taken from one end of the head and "
        "put back at another",
    )


@ROTARY_DIMS.test("dims")
def _dims_moved(ev: Dims) -> Diagnosis | None:
    """The spec's number of dims rotated, but other ones; or every dim rotated (partial rotary ignored)."""
    spec, got, words = ev.spec, ev.got, ev.ranges
    want, r = spec.rotated_dims().tolist(), spec.rotary_dim
    if len(got) == r:
        msg = f"dims {words(got)} are rotated and dims {words(want)} expected: partial rotary applied to the wrong dims"
        d = spec.head_dim
        if got == list(range(d - r, d)) and spec.rotary_dims == "first":
            msg += " (the last dims: pass --rotary-dims last if the model puts them there, as DeepSeek MLA does)"
        elif got == list(range(r)) and spec.rotary_dims == "last":
            msg += " (the first dims: --rotary-dims last was declared)"
        return found("rotary_dims_misplaced", text=msg)
    if len(got) > r and len(got) == spec.head_dim:
        return found(
            "partial_rotary_ignored",
            rotated=words(got),
            rotary_dim=r,
            passthrough=words([j for j in range(spec.head_dim) if j not in set(want)]),
        )
    return None


@POSITIONS.test("phase0")
def _offset(phase0: np.ndarray, theta: np.ndarray) -> Diagnosis | None:
    """A phase at position 0 of k theta_i on every pair: positions off by k."""
    k_est = phase0 / np.where(theta > 0, theta, 1.0)
    usable = theta > 1e-2
    if usable.any() and np.ptp(k_est[usable]) < 0.05 and abs(np.round(k_est[usable][0]) - k_est[usable][0]) < 0.05:
        return found("positions_shifted", k=int(round(float(k_est[usable][0]))))
    return None


# --------------------------------------------------------------------------- frequencies, in precedence order


@FREQUENCIES.test("frequencies")
def _longrope_factors(ev: Frequencies) -> Diagnosis | None:
    """LongRoPE's other factor set."""
    spec = ev.spec
    if not isinstance(spec.scaling, LongRoPE):
        return None
    l0 = spec.scaling.original_max_position_embeddings
    if (ev.seq_len or 0) <= l0 and ev.matches(spec.inv_freq(l0 + 1)):
        return found("longrope_long_factors_early", l0=l0, seen=f" (probed up to position {ev.top})")
    if (ev.seq_len or 0) > l0 and ev.matches(spec.inv_freq(l0)):
        return found("longrope_short_factors_late", l0=l0, position=ev.top)
    return None


@FREQUENCIES.test("frequencies")
def _ntk_length(ev: Frequencies) -> Diagnosis | None:
    """Dynamic NTK's frequencies for another length."""
    spec = ev.spec
    if not isinstance(spec.scaling, DynamicNTK):
        return None
    length = _ntk_length_of(ev.got, spec)
    if length is None:
        return None
    expected = ev.seq_len or spec.scaling.original_max_position_embeddings
    return found("ntk_length_wrong", length=length, expected=expected)


@FREQUENCIES.test("frequencies")
def _common_base(ev: Frequencies) -> Diagnosis | None:
    """Another base under the same schedule (Gemma 3's global layers left at 10000, TE's default rotary_base)."""
    spec = ev.spec
    for b in COMMON_BASES:
        if abs(b / spec.base - 1) > 1e-6 and ev.matches(spec.with_(base=b).inv_freq(ev.seq_len)):
            return found("base_wrong", got=b, want=spec.base)
    return None


@FREQUENCIES.test("frequencies")
def _scaling_missing(ev: Frequencies) -> Diagnosis | None:
    spec = ev.spec
    if spec.rope_type == "default":
        return None
    plain = RopeSpec(head_dim=spec.head_dim, rotary_dim=spec.rotary_dim, base=spec.base).inv_freq()[: len(ev.got)]
    if np.allclose(ev.got, plain, rtol=1e-5):
        return found("scaling_missing", rope_type=spec.rope_type, base=spec.base)
    return None


@PRECISION.test("frequencies")
def _inv_freq_rounded(ev: Frequencies) -> Diagnosis | None:
    """theta_i exactly a low-precision dtype's rounding of the spec's."""
    dev = float(np.abs(ev.ratio - 1).max())
    for name in ("bfloat16", "float16"):
        rounded = round_to(ev.want, name)
        if np.allclose(ev.got, rounded, rtol=2e-4, atol=0) and dev <= 2 * UNIT_ROUNDOFF[name]:
            return Diagnosis(
                "frequencies",
                "inv_freq_low_precision",
                f"theta_i deviate by up to {100 * dev:.3g}%, exactly the {name} rounding of the spec's: inv_freq is "
                f"stored or computed in {name} even for {ev.dtype} input",
                sentence("inv_freq_low_precision", dtype=name)[1],
            )
    return None


@FREQUENCIES.test("frequencies")
def _constant_ratio(ev: Frequencies) -> Diagnosis | None:
    """Every theta_i the same multiple of the spec's: an index offset, or a scaled angle."""
    ratio, spec, r = ev.ratio, ev.spec, ev.spec.rotary_dim
    if not np.ptp(ratio) < 1e-3 * abs(ratio.mean()):
        return None
    k = float(ratio.mean())
    shift = -math.log(k) / math.log(spec.base) * r / 2 if spec.rope_type == "default" else 0.0
    if abs(shift) > 0.5 and abs(shift - round(shift)) < 0.02:
        j = int(round(shift))
        return found(
            "index_shifted",
            text=f"frequencies follow base^(-2(i{j:+d})/{r}): the frequency index starts at {j}, expected 0 "
            f"(theta_0 = {ev.got[0]:.6g}, expected 1)",
        )
    if isinstance(spec.scaling, Linear):
        return found(
            "angle_scaled",
            text=f"every frequency is {k:.6g}x the spec's: positions are divided by {spec.scaling.factor / k:.6g}, "
            f"expected the linear factor {spec.scaling.factor:g}",
        )
    if abs(k - 2) < 1e-3:
        return found("angle_scaled", text="every angle is twice the expected (2*m*theta_i): cos/sin applied twice")
    return found(
        "angle_scaled", text=f"every frequency is {k:.6g}x the spec's (a position scale of {1 / k:.6g}, expected 1)"
    )


@FREQUENCIES.test("frequencies")
def _geometric_fit(ev: Frequencies) -> Diagnosis | None:
    """Geometric theta_i of the wrong exponent, index offset, dimension or base."""
    got, spec, r, n = ev.got, ev.spec, ev.spec.rotary_dim, len(ev.got)
    if not (ev.geometric and ev.base is not None and n >= 2 and spec.rope_type == "default"):
        return None
    beta_got = np.polyfit(np.arange(n), np.log(got), 1)[0]
    e = beta_got / (-2 * math.log(spec.base) / r) * 2
    if abs(e - 2) > 0.02 and abs(e - round(e)) < 0.02:
        div = "" if round(e) == 1 else f"{int(round(e))}"
        text = f"frequencies follow base^(-{div}i/{r}), expected base^(-2i/{r}) (wrong exponent)"
        return found("exponent_wrong", text=text)
    if abs(e - 2) <= 0.02:
        kk = -math.log(got[0]) / math.log(spec.base) * r / 2
        if abs(kk) > 0.02 and abs(kk - round(kk)) < 0.05:
            j = int(round(kk))
            return found(
                "index_shifted",
                text=f"frequencies follow base^(-2(i+{j})/{r}): the frequency index starts at {j}, expected 0",
            )
    rd = -2 * math.log(spec.base) / beta_got
    if (
        abs(got[0] - 1) < 1e-3
        and abs(rd - round(rd)) < 0.05
        and round(rd) != r
        and round(rd) % 2 == 0
        and 2 <= round(rd) <= 4 * spec.head_dim
    ):
        return found(
            "exponent_wrong",
            text=f"frequencies follow base^(-2i/{int(round(rd))}), expected base^(-2i/{r}): the wrong dimension "
            "in the exponent" + (" (head_dim instead of rotary_dim)" if round(rd) == spec.head_dim else ""),
        )
    if abs(ev.base / spec.base - 1) > 1e-3 and abs(got[0] - 1) < 1e-3:
        return found("base_wrong", got=ev.base, want=spec.base)
    return None


@FREQUENCIES.test("frequencies")
def _implied_base(ev: Frequencies) -> Diagnosis | None:
    """The base the target's frequencies imply, under the spec's schedule, when it is not a common one."""
    base, spec = ev.base, ev.spec
    if base is None or any(abs(base / nice - 1) < 1e-3 for nice in COMMON_BASES) or abs(base / spec.base - 1) <= 1e-3:
        return None
    if ev.matches(spec.with_(base=float(base)).inv_freq(ev.seq_len)):
        return found("base_wrong", got=float(base), want=spec.base)
    return None


def _ntk_length_of(got: np.ndarray, spec: RopeSpec) -> int | None:
    """The length whose dynamic-NTK frequencies the target's are (None if none fits)."""
    assert isinstance(spec.scaling, DynamicNTK)
    l0 = spec.scaling.original_max_position_embeddings
    r = spec.rotary_dim
    if r <= 2 or got[-1] <= 0:
        return None
    # theta_last = base'^(-(r-2)/r): solve for base', then grow = (base'/base)^((r-2)/r) = s L/L0 - (s-1)
    base_eff = got[-1] ** (-r / (r - 2))
    grow = (base_eff / spec.base) ** ((r - 2) / r)
    s = spec.scaling.factor
    length = int(round((grow + s - 1) * l0 / s))
    if length <= l0 or abs(length - l0) < 1:
        return None
    if np.allclose(got, spec.inv_freq(length)[: len(got)], rtol=1e-4):
        return length
    return None


# --------------------------------------------------------------------------- the scale cos and sin carry


@SCALE.test("scale")
def _attention_factor(got: float, factor: float, dtype: str) -> Diagnosis | None:
    """The factor cos and sin carry (``got``) against the spec's attention ``factor``."""
    close = 1e-3 * max(1.0, factor) + 64 * UNIT_ROUNDOFF[dtype]
    if abs(got - factor) <= close:
        return None
    if abs(factor - 1.0) > 1e-9 and abs(got - 1.0) < 1e-6:
        return found("attention_factor_missing", expected=factor)
    if abs(factor - 1.0) > 1e-9 and abs(got - factor * factor) <= close * factor:
        return found("attention_factor_twice", got=got, expected=factor)
    return found("attention_factor_wrong", got=got, expected=factor)


# --------------------------------------------------------------------------- positions past a deviation


@POSITIONS.test("deviation")
def _table_end(ev: Positions) -> Diagnosis | None:
    """Clamped, ignored or wrapped positions, from the positions the deviating probes are rotated as."""
    qs, ps, first = ev.apparent, ev.position, ev.first
    if np.ptp(qs) < 0.5 and len(qs) > 1:
        return found("positions_clamped", first=first, q=int(round(float(qs[0]))))
    if np.allclose(qs, ev.index, atol=0.5):
        return found("positions_ignored", position=int(ps[0]), index=int(round(qs[0])))
    size = int(round(ps[0] - qs[0]))
    if size > 0 and np.all(np.abs(qs - ps % size) < 0.5):
        return found("positions_wrapped", first=first, q=int(round(qs[0])), size=size)
    if np.ptp(qs) < 0.5:
        return found("positions_clamped", first=first, q=int(round(float(qs[0]))))
    return None
