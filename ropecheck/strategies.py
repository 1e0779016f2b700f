"""Hypothesis strategies for RoPE: head dims, specs with every schedule, positions, q/k tensors.

Use them to property-test your own implementation, e.g. with the checks of
:mod:`ropecheck.properties`::

    from hypothesis import given
    from ropecheck import strategies as rst
    from ropecheck.properties import check_relative_position

    # my_rope(x, positions): your implementation
    @given(data=rst.spec_and_sample())
    def test_relative(data):
        spec, sample = data
        assert check_relative_position(my_rope, spec, sample=sample).passed

Design constraints:

* Every option is keyword-only and validated up front (a bad bound raises
  :class:`~ropecheck.errors.UsageError` naming it, before any example is drawn).
* Everything shrinks toward the readable case: head_dim 2, full rotary, base 10000, the
  half layout, the default schedule, position 0, small batches, sparse tensors whose
  entries shrink to 1.0 (q and k to unit vectors), so a failing test prints the smallest d,
  positions and values that still fail.
* Tensors are float64 numpy arrays whose values are exactly representable in the
  requested dtype (or torch tensors of that dtype with ``backend="torch"``), always finite.
* Importing this module registers the Hypothesis profiles ``ropecheck-ci`` (derandomized,
  no deadline, no example database) and ``ropecheck-dev`` (quicker) for third parties.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from .axes import MultiAxis, axial, mrope
from .errors import UsageError
from .properties import Sample, position_limit
from .protocol import round_to_dtype
from .reference import MAX_EXACT_POSITION
from .schedules import (
    ROPE_TYPES,
    Default,
    DynamicNTK,
    Linear,
    Llama3,
    LongRoPE,
    Proportional,
    Scaling,
    StaticNTK,
    YaRN,
)
from .spec import RopeSpec
from .tolerance import dtype_name

__all__ = [
    "CI_PROFILE",
    "DEV_PROFILE",
    "MULTI_AXIS_SCHEMES",
    "POSITION_KINDS",
    "axis_positions",
    "bases",
    "head_dims",
    "layouts",
    "multi_axis_specs",
    "positions",
    "register_profiles",
    "rope_specs",
    "rotary_dims",
    "samples",
    "schedules",
    "spec_and_sample",
    "tensors",
]

#: The multi-axis schemes :func:`multi_axis_specs` draws (the first is where it shrinks to).
MULTI_AXIS_SCHEMES: tuple[str, ...] = ("mrope", "mrope-interleaved", "axial-shared", "axial-alternating")
POSITION_KINDS: tuple[str, ...] = ("contiguous", "offset", "row-offsets", "arbitrary", "large")
CI_PROFILE = "ropecheck-ci"
DEV_PROFILE = "ropecheck-dev"


def register_profiles() -> None:
    """Register ``ropecheck-ci`` (derandomized, no deadline, no database, 60 examples) and ``ropecheck-dev`` (20).

    Load one with ``settings.load_profile("ropecheck-ci")`` or ``--hypothesis-profile``. The CI profile
    reports one bug per test: after a first failure Hypothesis otherwise goes on looking for others for
    up to ten seconds of wall-clock time, so the counterexample it shrinks would depend on the machine's load.
    """
    common: dict[str, Any] = {
        "deadline": None,
        "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
    }
    settings.register_profile(
        CI_PROFILE,
        derandomize=True,
        database=None,
        max_examples=60,
        print_blob=False,
        report_multiple_bugs=False,
        **common,
    )
    settings.register_profile(DEV_PROFILE, max_examples=20, **common)


register_profiles()


@functools.lru_cache(maxsize=4096)
def _ints(lo: int, hi: int) -> st.SearchStrategy[int]:
    return st.integers(lo, hi)


@functools.lru_cache(maxsize=256)
def _choice(options: tuple[Any, ...]) -> st.SearchStrategy[Any]:
    return st.sampled_from(options)


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise UsageError(message)


@functools.lru_cache(maxsize=1024)
def _even_ints(lo: int, hi: int) -> st.SearchStrategy[int]:
    return st.integers(lo // 2, hi // 2).map(lambda k: 2 * k)


def head_dims(*, min_value: int = 2, max_value: int = 256) -> st.SearchStrategy[int]:
    """Even head dimensions in ``[min_value, max_value]``, shrinking toward ``min_value``.

    Example:
        >>> head_dims(max_value=8).example() in (2, 4, 6, 8)
        True
    """
    _check(min_value >= 2 and min_value % 2 == 0, f"min_value must be an even integer >= 2, got {min_value}")
    _check(max_value >= min_value, f"max_value must be >= min_value ({min_value}), got {max_value}")
    return _even_ints(min_value, max_value)


def rotary_dims(head_dim: int, *, min_value: int = 2) -> st.SearchStrategy[int]:
    """Even rotary dims <= ``head_dim``; shrinks toward ``head_dim`` (full rotary, the simple case).

    Example:
        >>> rotary_dims(8).example() in (2, 4, 6, 8)
        True
    """
    _check(head_dim >= 2 and head_dim % 2 == 0, f"head_dim must be even and >= 2, got {head_dim}")
    _check(
        2 <= min_value <= head_dim and min_value % 2 == 0, f"min_value must be even, in [2, head_dim], got {min_value}"
    )
    return _rotary(head_dim, min_value)


@functools.lru_cache(maxsize=1024)
def _rotary(head_dim: int, min_value: int) -> st.SearchStrategy[int]:
    return st.just(head_dim) | _even_ints(min_value, head_dim)


def bases(*, min_value: float = 2.0, max_value: float = 1e7) -> st.SearchStrategy[float]:
    """RoPE bases: the common ones (10000 first, then 500000, 1e6, ...) or any float in range.

    Example:
        >>> 2.0 <= bases().example() <= 1e7
        True
    """
    _check(1 < min_value <= max_value, f"need 1 < min_value <= max_value, got {min_value}, {max_value}")
    return _bases(float(min_value), float(max_value))


@functools.lru_cache(maxsize=64)
def _bases(min_value: float, max_value: float) -> st.SearchStrategy[float]:
    common = [b for b in (10000.0, 500000.0, 1000000.0, 100.0, 1e7) if min_value <= b <= max_value]
    any_base = st.floats(min_value, max_value, allow_nan=False, allow_infinity=False)
    return (st.sampled_from(common) | any_base) if common else any_base


def layouts() -> st.SearchStrategy[str]:
    """``"half"`` (shrinks to it) or ``"interleaved"``."""
    return _choice(("half", "interleaved"))


@functools.cache
def _factor() -> st.SearchStrategy[float]:
    return st.sampled_from((2.0, 4.0, 8.0, 16.0)) | st.floats(1.0, 64.0, allow_nan=False)


@functools.cache
def _original_length() -> st.SearchStrategy[int]:
    return st.sampled_from((16, 64, 256, 2048, 4096, 8192))


@st.composite
def _yarn(draw: st.DrawFn) -> YaRN:
    beta_slow = draw(_choice((1.0, 0.5, 2.0)))
    beta_fast = draw(_choice((32.0, 16.0, 64.0)))
    mscale = draw(_choice((None, 1.0, 0.707)))
    return YaRN(
        draw(_factor()),
        draw(_original_length()),
        beta_fast=beta_fast,
        beta_slow=beta_slow,
        mscale=mscale,
        mscale_all_dim=mscale and draw(_choice((1.0, 0.707))),
        truncate=draw(st.booleans()),
    )


@st.composite
def _llama3(draw: st.DrawFn) -> Llama3:
    low = draw(_choice((1.0, 0.5, 2.0)))
    high = low * draw(_choice((4.0, 2.0, 8.0)))
    return Llama3(draw(_factor()), low, high, draw(_original_length()))


@st.composite
def _longrope(draw: st.DrawFn, rotary_dim: int) -> LongRoPE:
    n = rotary_dim // 2
    factors = st.lists(st.floats(1.0, 64.0, allow_nan=False), min_size=n, max_size=n)
    return LongRoPE(tuple(draw(factors)), tuple(draw(factors)), draw(_original_length()), factor=draw(_factor()))


@st.composite
def _proportional(draw: st.DrawFn, rotary_dim: int) -> Proportional:
    # only the fractions that leave at least one pair turning for this rotary_dim (as a real config would)
    fractions = [p for p in (1.0, 0.5, 0.25, 0.75) if int(p * rotary_dim // 2) >= 1]
    return Proportional(draw(_choice((1.0, 2.0, 8.0))), draw(_choice(tuple(fractions))))


def schedules(rotary_dim: int, *, kinds: Sequence[str] | None = None) -> st.SearchStrategy[Scaling]:
    """Frequency schedules valid for ``rotary_dim``: any of ``ROPE_TYPES`` (default first).

    Args:
        rotary_dim: the rotated dims (LongRoPE needs rotary_dim/2 factors).
        kinds: rope types to draw from (``"default"``, ``"linear"``, ``"static-ntk"``,
            ``"dynamic"``, ``"yarn"``, ``"llama3"``, ``"longrope"``, ``"proportional"``); all by default.

    Example:
        >>> type(schedules(8, kinds=["linear"]).example()).__name__
        'Linear'
    """
    names = tuple(ROPE_TYPES) if kinds is None else tuple(kinds)
    unknown = [k for k in names if k not in ROPE_TYPES]
    _check(not unknown and bool(names), f"kinds must be a non-empty subset of {', '.join(ROPE_TYPES)}, got {kinds!r}")
    return _schedules(int(rotary_dim), names)


@functools.lru_cache(maxsize=512)  # strategies are immutable: build each once, not on every draw
def _schedules(rotary_dim: int, names: tuple[str, ...]) -> st.SearchStrategy[Scaling]:
    table: dict[str, st.SearchStrategy[Any]] = {
        "default": st.just(Default()),
        "linear": st.builds(Linear, _factor()),
        "static-ntk": st.builds(StaticNTK, _factor()),
        "dynamic": st.builds(DynamicNTK, _factor(), _original_length()),
        "yarn": _yarn(),
        "llama3": _llama3(),
        "longrope": _longrope(rotary_dim),
        "proportional": _proportional(rotary_dim),
    }
    return st.one_of(*(table[k] for k in names))


def rope_specs(
    *,
    head_dim: int | st.SearchStrategy[int] | None = None,
    min_head_dim: int = 2,
    max_head_dim: int = 128,
    partial: bool = True,
    layout: str | None = None,
    kinds: Sequence[str] | None = None,
    base: float | None = None,
) -> st.SearchStrategy[RopeSpec]:
    """:class:`~ropecheck.RopeSpec` values with every schedule, layout and partial rotary.

    Args:
        head_dim: a fixed head_dim or a strategy; default ``head_dims(min_head_dim, max_head_dim)``.
        partial: allow rotary_dim < head_dim.
        layout: fix the layout (default: both).
        kinds: schedules to draw from (see :func:`schedules`).
        base: fix the base (default: :func:`bases`).

    Example:
        >>> rope_specs(head_dim=8, kinds=["default"]).example().head_dim
        8
    """
    if isinstance(head_dim, int):
        _check(head_dim >= 2 and head_dim % 2 == 0, f"head_dim must be even and >= 2, got {head_dim}")
    elif head_dim is None:
        head_dims(min_value=min_head_dim, max_value=max_head_dim)
    _check(
        layout is None or layout in ("half", "interleaved"), f"layout must be 'half' or 'interleaved', got {layout!r}"
    )
    names = tuple(ROPE_TYPES) if kinds is None else tuple(kinds)
    _check(
        bool(names) and all(k in ROPE_TYPES for k in names),
        f"kinds must be a non-empty subset of {', '.join(ROPE_TYPES)}, got {kinds!r}",
    )
    if base is not None:
        RopeSpec(head_dim=2, base=base)  # raises SpecError for a bad base
    return _rope_specs(
        head_dim=head_dim,
        min_head_dim=min_head_dim,
        max_head_dim=max_head_dim,
        partial=partial,
        layout=layout,
        kinds=names,
        base=base,
    )


@st.composite
def _rope_specs(
    draw: st.DrawFn,
    *,
    head_dim: int | st.SearchStrategy[int] | None,
    min_head_dim: int,
    max_head_dim: int,
    partial: bool,
    layout: str | None,
    kinds: tuple[str, ...],
    base: float | None,
) -> RopeSpec:
    if isinstance(head_dim, int):
        d = head_dim
    else:
        d = draw(head_dim if head_dim is not None else head_dims(min_value=min_head_dim, max_value=max_head_dim))
    r = draw(rotary_dims(d)) if partial else d
    spec_base = base if base is not None else draw(bases())
    return RopeSpec(
        head_dim=d,
        rotary_dim=r,
        base=spec_base,
        layout=layout if layout is not None else draw(layouts()),  # type: ignore[arg-type]
        scaling=draw(schedules(r, kinds=kinds)),
        max_position_embeddings=draw(_choice((None, 131072))),
    )


def positions(
    *,
    batch: int | st.SearchStrategy[int] = 1,
    seq: int | st.SearchStrategy[int] = 4,
    kind: str | None = None,
    max_value: int = 4095,
) -> st.SearchStrategy[np.ndarray]:
    """int64 positions of shape (batch, seq).

    Args:
        batch, seq: sizes, fixed or as strategies.
        kind: ``"contiguous"`` (0..seq-1 in every row), ``"offset"`` (o..o+seq-1, one o),
            ``"row-offsets"`` (o_b..o_b+seq-1, an offset per row, as in batched decoding),
            ``"arbitrary"`` (any non-negative positions per row, repeats allowed) or
            ``"large"`` (up to 2^32-1, where fp32 angles fall apart); default: any but ``"large"``.
        max_value: largest position (except ``"large"``).

    Example:
        >>> positions(batch=2, seq=3, kind="contiguous").example().tolist()
        [[0, 1, 2], [0, 1, 2]]
    """
    _check(kind is None or kind in POSITION_KINDS, f"kind must be one of {', '.join(POSITION_KINDS)}, got {kind!r}")
    _check(max_value >= 0, f"max_value must be >= 0, got {max_value}")
    for name, value in (("batch", batch), ("seq", seq)):
        _check(not isinstance(value, int) or value >= 1, f"{name} must be >= 1, got {value}")
    return _positions(batch=batch, seq=seq, kind=kind, max_value=max_value)


@st.composite
def _positions(
    draw: st.DrawFn,
    *,
    batch: int | st.SearchStrategy[int],
    seq: int | st.SearchStrategy[int],
    kind: str | None,
    max_value: int,
) -> np.ndarray:
    b = batch if isinstance(batch, int) else draw(batch)
    n = seq if isinstance(seq, int) else draw(seq)
    k = kind if kind is not None else draw(_choice(POSITION_KINDS[:-1]))
    if k == "contiguous":
        return np.broadcast_to(np.arange(n, dtype=np.int64), (b, n)).copy()
    if k == "offset":
        offset = draw(_ints(0, max(max_value - n + 1, 0)))
        return np.broadcast_to(np.minimum(np.arange(n, dtype=np.int64) + offset, max_value), (b, n)).copy()
    if k == "row-offsets":
        offsets = draw(_int_arrays((b, 1), max(max_value - n + 1, 0), False))
        return np.minimum(np.arange(n, dtype=np.int64) + offsets, max_value)
    return draw(_int_arrays((b, n), max_value, k == "large"))


@functools.lru_cache(maxsize=1024)
def _int_arrays(shape: tuple[int, ...], max_value: int, large: bool) -> st.SearchStrategy[np.ndarray]:
    if large:
        elements = st.integers(2**24, MAX_EXACT_POSITION) | st.integers(0, MAX_EXACT_POSITION)
    else:
        elements = st.integers(0, max_value)
    return hnp.arrays(np.int64, shape, elements=elements)


def tensors(
    *,
    shape: tuple[int, ...] | st.SearchStrategy[tuple[int, ...]],
    dtype: Any = "float32",
    min_value: float = -4.0,
    max_value: float = 4.0,
    min_magnitude: float = 2.0**-6,
    min_nonzero: int = 0,
    backend: str = "numpy",
) -> st.SearchStrategy[Any]:
    """Finite q/k tensors: float64 numpy values exactly representable in ``dtype`` (or torch tensors of it).

    Sparse: zeros plus a short list of nonzero entries at drawn indices, at least
    ``min_nonzero`` of them, so a failure shrinks to a basis vector even as the shape
    shrinks; values shrink toward small integers (1.0 first).
    (:func:`~ropecheck.properties.draw_sample` gives dense normal data.) The bounds must be
    finite in ``dtype``, so rounding never makes an inf. Nonzero values have
    ``|v| >= min_magnitude`` (and are normal numbers of ``dtype``), so products with cos/sin
    never go subnormal, where every dtype loses relative precision. ``backend="torch"``
    returns a CPU tensor of ``dtype``.

    Example:
        >>> t = tensors(shape=(1, 2, 1, 4), dtype="bfloat16", min_nonzero=1).example()
        >>> t.shape, t.dtype, bool(t.any())
        ((1, 2, 1, 4), dtype('float64'), True)
    """
    name = dtype_name(dtype)
    _check(min_value <= max_value, f"need min_value <= max_value, got {min_value}, {max_value}")
    top = _FINITE_MAX[name]
    _check(
        -top <= min_value and max_value <= top,
        f"min_value and max_value must be finite in {name} (|v| <= {top:.6g}), got {min_value}, {max_value}",
    )
    _check(backend in ("numpy", "torch"), f"backend must be 'numpy' or 'torch', got {backend!r}")
    _check(min_magnitude >= 0, f"min_magnitude must be >= 0, got {min_magnitude}")
    floor = max(float(min_magnitude), _SMALLEST_NORMAL[name])
    _check(min_nonzero >= 0, f"min_nonzero must be >= 0, got {min_nonzero}")
    _check(
        min_nonzero == 0 or max_value >= floor or min_value <= -floor,
        f"min_nonzero={min_nonzero} needs a value with |v| >= {floor:.3g} in [{min_value}, {max_value}]",
    )
    if isinstance(shape, tuple):
        _check(min_nonzero <= int(np.prod(shape)), f"min_nonzero={min_nonzero} does not fit in shape {shape}")
        arrays: st.SearchStrategy[np.ndarray] = _float_arrays(
            shape, float(min_value), float(max_value), floor, int(min_nonzero)
        )
    else:
        arrays = shape.flatmap(
            lambda shp: _float_arrays(
                tuple(shp), float(min_value), float(max_value), floor, min(int(min_nonzero), int(np.prod(shp)))
            )
        )
    rounded = arrays.map(lambda v: round_to_dtype(v, name))
    if backend == "numpy":
        return rounded
    import torch  # heavy: imported when used

    return rounded.map(lambda v: torch.tensor(v).to(getattr(torch, name)))


# The largest finite value of each dtype: bounds past it would round to inf.
_FINITE_MAX: dict[str, float] = {
    "float64": float(np.finfo(np.float64).max),
    "float32": float(np.finfo(np.float32).max),
    "bfloat16": (2.0 - 2.0**-7) * 2.0**127,  # 8 significand bits, float32's exponent range
    "float16": 65504.0,
}
# The smallest normal number of each dtype: nonzero values stay at or above it.
_SMALLEST_NORMAL: dict[str, float] = {
    "float64": float(np.finfo(np.float64).tiny),
    "float32": float(np.finfo(np.float32).tiny),
    "bfloat16": float(np.finfo(np.float32).tiny),  # float32's exponent range
    "float16": float(np.finfo(np.float16).tiny),
}


@functools.lru_cache(maxsize=1024)
def _float_arrays(
    shape: tuple[int, ...], lo: float, hi: float, floor: float, min_nonzero: int
) -> st.SearchStrategy[np.ndarray]:
    # nonzero values only (the zeros are the background): positive first, so values shrink to 1.0
    signs = []
    if hi >= floor:
        signs.append(st.floats(max(lo, floor), hi, allow_nan=False, allow_infinity=False))
    if lo <= -floor:
        signs.append(st.floats(lo, min(hi, -floor), allow_nan=False, allow_infinity=False))
    if not signs:
        return st.just(np.zeros(shape))
    return _sparse_arrays(shape, st.one_of(*signs), min_nonzero)


@st.composite
def _sparse_arrays(
    draw: st.DrawFn, shape: tuple[int, ...], values: st.SearchStrategy[float], min_nonzero: int
) -> np.ndarray:
    """Zeros with a list of (index, value) entries: few choices to shrink, and an entry at
    index (1, 0, 0, 0) stays valid when another axis shrinks, so counterexamples shrink to
    basis vectors in the smallest head_dim (a flat index into the array would move)."""
    out = np.zeros(shape)
    if out.size == 0:
        return out
    index = st.tuples(*(_ints(0, n - 1) for n in shape))
    entries = st.lists(
        st.tuples(index, values),
        min_size=min_nonzero,
        max_size=out.size,
        unique_by=(lambda e: e[0]) if min_nonzero > 1 else None,
    )
    for i, v in draw(entries):
        out[i] = v
    return out


def samples(
    spec: RopeSpec,
    *,
    dtype: Any = "float32",
    max_batch: int = 2,
    max_seq: int = 4,
    max_heads: int = 2,
    max_position: int | None = None,
) -> st.SearchStrategy[Sample]:
    """A :class:`~ropecheck.properties.Sample` for ``spec``: the inputs of every property check.

    Positions stay within :func:`~ropecheck.properties.position_limit` even after a + b and
    p + t, so length-dependent schedules keep their frequencies. q and k each have at least
    one nonzero entry (on an all-zero tensor every property holds trivially). Shrinks to
    batch 1, seq 1, one head, position 0, and q = k = e_0.

    Example:
        >>> s = samples(RopeSpec(head_dim=4)).example()
        >>> s.x.shape[-1]
        4
    """
    _check(min(max_batch, max_seq, max_heads) >= 1, "max_batch, max_seq and max_heads must be >= 1")
    _check(max_position is None or max_position >= 0, f"max_position must be >= 0, got {max_position}")
    dtype_name(dtype)
    return _samples(
        spec, dtype=dtype, max_batch=max_batch, max_seq=max_seq, max_heads=max_heads, max_position=max_position
    )


@st.composite
def _samples(
    draw: st.DrawFn,
    spec: RopeSpec,
    *,
    dtype: Any,
    max_batch: int,
    max_seq: int,
    max_heads: int,
    max_position: int | None,
) -> Sample:
    third = max(position_limit(spec, max_position) // 3, 0)
    b = draw(_ints(1, max_batch))
    n = draw(_ints(1, max_seq))
    h = draw(_ints(1, max_heads))
    shape = (b, n, h, spec.head_dim)
    pos = draw(positions(batch=b, seq=n, max_value=third))
    pos_b = draw(positions(batch=b, seq=n, kind="arbitrary", max_value=third))
    shift = draw(_ints(0, third))
    x = draw(_tensors(shape, dtype_name(dtype)))
    y = draw(_tensors(shape, dtype_name(dtype)))
    return Sample(x, y, pos, pos_b, shift)


@functools.lru_cache(maxsize=1024)
def _tensors(shape: tuple[int, ...], dtype: str) -> st.SearchStrategy[np.ndarray]:
    # at least one nonzero entry: on an all-zero tensor every property holds, and the example is wasted
    return tensors(shape=shape, dtype=dtype, min_nonzero=1)


def spec_and_sample(
    *,
    dtype: Any = "float32",
    max_head_dim: int = 16,
    kinds: Sequence[str] | None = None,
    partial: bool = True,
    layout: str | None = None,
    max_batch: int = 2,
    max_seq: int = 4,
    max_heads: int = 2,
    max_position: int | None = None,
) -> st.SearchStrategy[tuple[RopeSpec, Sample]]:
    """A spec (small head_dim by default) and a sample for it, for property tests.

    The spec options are those of :func:`rope_specs`, the sample's those of :func:`samples`.

    Example:
        >>> spec, sample = spec_and_sample(kinds=["default"]).example()
        >>> sample.x.shape[-1] == spec.head_dim
        True
    """
    specs = rope_specs(max_head_dim=max_head_dim, kinds=kinds, partial=partial, layout=layout)
    samples(
        RopeSpec(head_dim=2),
        dtype=dtype,
        max_batch=max_batch,
        max_seq=max_seq,
        max_heads=max_heads,
        max_position=max_position,
    )  # validates the sample options before any example is drawn
    return _spec_and_sample(
        specs, dtype=dtype, max_batch=max_batch, max_seq=max_seq, max_heads=max_heads, max_position=max_position
    )


@st.composite
def _spec_and_sample(
    draw: st.DrawFn,
    specs: st.SearchStrategy[RopeSpec],
    *,
    dtype: Any,
    max_batch: int,
    max_seq: int,
    max_heads: int,
    max_position: int | None,
) -> tuple[RopeSpec, Sample]:
    spec = draw(specs)
    sample = draw(
        samples(spec, dtype=dtype, max_batch=max_batch, max_seq=max_seq, max_heads=max_heads, max_position=max_position)
    )
    return spec, sample


def multi_axis_specs(
    *, schemes: Sequence[str] | None = None, max_pairs: int = 16, layout: str | None = None
) -> st.SearchStrategy[RopeSpec]:
    """Multi-axis specs: M-RoPE (sections or interleaved, 3 axes) and 2-D axial (shared or alternating tables).

    Shrinks toward few pairs (2-D axial over 2, M-RoPE over 3), the half layout and base 10000.

    Args:
        schemes: the schemes to draw from (default :data:`MULTI_AXIS_SCHEMES`).
        max_pairs: the most rotated pairs (>= 3).
        layout: fix the layout (default: both).

    Example:
        >>> multi_axis_specs(schemes=["axial-shared"]).example().axes.scheme
        'axial-shared'
    """
    names = tuple(schemes) if schemes is not None else MULTI_AXIS_SCHEMES
    _check(bool(names) and all(n in MULTI_AXIS_SCHEMES for n in names), f"schemes must be among {MULTI_AXIS_SCHEMES}")
    _check(isinstance(max_pairs, int) and max_pairs >= 3, f"max_pairs must be an int >= 3, got {max_pairs!r}")
    _check(
        layout is None or layout in ("half", "interleaved"), f"layout must be 'half' or 'interleaved', got {layout!r}"
    )
    return _multi_axis_specs(names, max_pairs, layout)


@st.composite
def _multi_axis_specs(draw: st.DrawFn, names: tuple[str, ...], max_pairs: int, layout: str | None) -> RopeSpec:
    scheme = draw(st.sampled_from(names))
    if scheme.startswith("axial"):
        pairs = 2 * draw(_ints(1, max_pairs // 2))
        axes: MultiAxis = axial(2 * pairs, scheme.split("-")[1])  # type: ignore[arg-type]
    else:
        pairs = draw(_ints(3, max_pairs))
        interleaved = scheme == "mrope-interleaved"
        h = draw(_ints(0, (pairs + 1) // 3 if interleaved else pairs))
        w = draw(_ints(0, pairs // 3 if interleaved else pairs - h))
        axes = mrope((pairs - h - w, h, w), 2 * pairs, interleaved=interleaved)
    return RopeSpec(
        head_dim=2 * pairs,
        base=draw(bases()),
        layout=layout if layout is not None else draw(layouts()),  # type: ignore[arg-type]
        axes=axes,
    )


def axis_positions(
    spec: RopeSpec, *, batch: int = 1, seq: int = 4, max_value: int = 4095, same: bool = False
) -> st.SearchStrategy[np.ndarray]:
    """Per-axis positions ``(axes, batch, seq)`` for a multi-axis spec, shrinking to zeros.

    Args:
        spec: a spec with axes.
        batch, seq: the shape.
        max_value: the largest position (<= 2^32-1).
        same: one position on every axis (text tokens).
    """
    _check(spec.axes is not None, "axis_positions needs a spec with axes (multi_axis_specs draws them)")
    _check(batch >= 1 and seq >= 1, f"batch and seq must be >= 1, got {batch}, {seq}")
    _check(0 <= max_value <= MAX_EXACT_POSITION, f"max_value must be in 0..2^32-1, got {max_value}")
    n = len(spec.axis_names)
    one = hnp.arrays(np.int64, (batch, seq), elements=st.integers(0, max_value))
    if same:
        return one.map(lambda p: np.ascontiguousarray(np.broadcast_to(p, (n, batch, seq))))
    return hnp.arrays(np.int64, (n, batch, seq), elements=st.integers(0, max_value))
