"""Multi-axis RoPE as data: which rotated pair turns by which position axis, at which frequency.

Vision-language and video models rotate by more than one position. Qwen2-VL splits the
frequency pairs into temporal / height / width *sections* (``mrope_section``); Qwen3-VL
*interleaves* the three axes over the pairs; vision towers rotate by a 2-D patch position
(Qwen2-VL's vision encoder shares one frequency table between rows and columns, Pixtral gives
rows the even and columns the odd frequencies of a 1-D table); video transformers give each
axis its own slice of the head with its own frequency table.

All of them are one picture: rotated pair ``i`` turns by the position along axis ``a(i)`` at
frequency ``theta_i = base_a ** (-2 j(i) / D_a)`` (the ``j``-th frequency of a 1-D table over
``D_a`` dimensions). :class:`MultiAxis` stores exactly that, per axis: its pairs, each pair's
frequency index, the table's dimension and (where a model has one) the axis's own base. The
builders (:func:`mrope`, :func:`axial`) turn the configs' vocabulary into it, and
:meth:`MultiAxis.check` proves the assignment is a partition (every pair rotates by exactly one
axis).

Some video models rotate by *fractional* positions: LTX-Video divides its grid by base sizes and
turns pair ``i`` by ``(2 p / L - 1) * f_i``; MiniMax H3's video decoder normalises each axis to
``[-1, 1)``. Each is affine in the integer position ``p`` the caller gives, so an axis may carry a
position map: pair ``i`` turns by ``(scale_a * p + offset_a) * theta_i``. The defaults (scale 1,
offset 0) are the integer positions every other model uses; scale 0 is an *inert* axis whose pairs
never turn with the position. Where a model's frequencies are not ``base ** (-2 j / D)`` (LTX's
``(pi / 2) * theta ** linspace(0, 1, n)``, rising), an axis carries its own table ``freqs``: fp64
values computed from the published formula by whoever builds the spec (:func:`ltx_frequencies`),
never read from the code being judged.

Design constraints: frozen and hashable (a field of the frozen :class:`~ropecheck.spec.RopeSpec`);
no numpy here beyond what a table needs; invalid input is a
:class:`~ropecheck.errors.SpecError` naming the field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import mpmath

from .errors import SpecError

__all__ = ["SCHEMES", "Axis", "MultiAxis", "axial", "ltx_axes", "ltx_frequencies", "mrope", "progressions", "runs"]

Scheme = Literal[
    "mrope",
    "mrope-interleaved",
    "axial-shared",
    "axial-shared-reversed",
    "axial-paired",
    "axial-alternating",
    "axial-split",
    "custom",
]

#: The schemes and what they mean, in a line each (shown by ``ropecheck spec``).
SCHEMES: dict[str, str] = {
    "mrope": "M-RoPE in sections: consecutive frequency pairs per axis (Qwen2-VL, Qwen2.5-VL)",
    "mrope-interleaved": "M-RoPE interleaved: axes take turns over the frequency pairs (Qwen3-VL)",
    "axial-shared": "2-D axial: the first half of the pairs by row, the second by column, one shared table "
    "over d/2 (Qwen2-VL's vision encoder)",
    "axial-shared-reversed": "2-D axial: the first half of the pairs by column, the second by row, one shared "
    "table over d/2 (Inkling 2's vision encoder)",
    "axial-paired": "2-D axial: pairs alternate column, row at the same frequency of one table over d/2 "
    "(Kimi-K2.5's vision encoder)",
    "axial-alternating": "2-D axial: rows take the even, columns the odd frequencies of one 1-D table "
    "(Pixtral's vision encoder)",
    "axial-split": "N-D axial: each axis its own slice of the pairs with its own table (video transformers)",
    "custom": "an explicit pair -> axis table",
}


@dataclass(frozen=True)
class Axis:
    """One position axis: the pairs it rotates and their frequencies.

    Attributes:
        name: the axis's name (``"t"``, ``"h"``, ``"w"``, ``"x"``, ...).
        pairs: the rotated pairs it turns (indices into the spec's pairs, 0-based).
        freq_index: per pair, the index ``j`` of its frequency ``base ** (-2 j / freq_dim)``.
        freq_dim: the dimension of the 1-D table its frequencies come from.
        base: the axis's own base, or None for the spec's.
        scale: the position map's slope: pair ``i`` turns by ``(scale * p + offset) * theta_i`` at the
            integer position ``p``; 1 (default) for integer positions, 0 for an axis whose pairs never turn.
        offset: the position map's value at ``p = 0`` (0 by default).
        freqs: the axis's own frequency table, ``freq_dim / 2`` fp64 values indexed by ``freq_index``, where
            the model's frequencies are not ``base ** (-2 j / freq_dim)``; None (default) for that table.
    """

    name: str
    pairs: tuple[int, ...]
    freq_index: tuple[int, ...]
    freq_dim: int
    base: float | None = None
    scale: float = 1.0
    offset: float = 0.0
    freqs: tuple[float, ...] | None = None

    @property
    def integer_map(self) -> bool:
        """True for the default position map (scale 1, offset 0): the pairs turn by the integer position itself."""
        return self.scale == 1 and self.offset == 0

    def position_words(self) -> str:
        """The position map in words: ``p``, ``0.1 p - 1``, ``0 (inert)``."""
        if self.integer_map:
            return "p"
        if self.scale == 0:
            return f"{self.offset:.6g} (inert)"
        slope = "p" if self.scale == 1 else f"{self.scale:.6g} p"
        return slope if self.offset == 0 else f"{slope} {'-' if self.offset < 0 else '+'} {abs(self.offset):.6g}"

    def _check_map(self) -> None:
        for key in ("scale", "offset"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise SpecError(f"axes.{self.name}.{key}", f"must be a finite number, got {value!r}")
            object.__setattr__(self, key, float(value))
        if self.freqs is None:
            return
        if self.base is not None:
            raise SpecError(f"axes.{self.name}.freqs", "an axis takes its own table or its own base, not both")
        table = tuple(self.freqs)
        if len(table) != self.freq_dim // 2:
            raise SpecError(
                f"axes.{self.name}.freqs", f"needs {self.freq_dim // 2} values (freq_dim / 2), got {len(table)}"
            )
        if any(
            isinstance(t, bool) or not isinstance(t, (int, float)) or not (math.isfinite(t) and t > 0) for t in table
        ):
            raise SpecError(f"axes.{self.name}.freqs", "values must be finite positive numbers")
        object.__setattr__(self, "freqs", tuple(float(t) for t in table))

    def __post_init__(self) -> None:
        if len(self.pairs) != len(self.freq_index):
            raise SpecError(f"axes.{self.name}", "needs one frequency index per pair")
        if self.freq_dim < 2 or self.freq_dim % 2:
            raise SpecError(f"axes.{self.name}.freq_dim", f"must be an even integer >= 2, got {self.freq_dim}")
        if any(not 0 <= j < self.freq_dim // 2 for j in self.freq_index):
            raise SpecError(f"axes.{self.name}.freq_index", f"indices must lie in 0..{self.freq_dim // 2 - 1}")
        if self.base is not None and not (isinstance(self.base, (int, float)) and self.base > 1):
            raise SpecError(f"axes.{self.name}.base", f"must be a number > 1, got {self.base!r}")
        self._check_map()


@dataclass(frozen=True)
class MultiAxis:
    """Which rotated pair turns by which axis: a partition of the pairs, with frequencies.

    Attributes:
        scheme: how the configs name it (a key of :data:`SCHEMES`).
        axes: the axes, in the order positions are given (``positions[a]`` is axis ``a``).
        sections: the config's section sizes (pairs per axis), for display; None where none.
        text_same_position: True when a text token takes its 1-D position on every axis (so
            multi-axis RoPE reduces to 1-D RoPE on text); False for vision-only encoders.
    """

    scheme: Scheme
    axes: tuple[Axis, ...]
    sections: tuple[int, ...] | None = None
    text_same_position: bool = True

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.axes)

    @property
    def pair_count(self) -> int:
        return sum(len(a.pairs) for a in self.axes)

    def check(self, pairs: int) -> None:
        """A :class:`SpecError` unless every one of ``pairs`` pairs rotates by exactly one axis."""
        seen: dict[int, str] = {}
        for a in self.axes:
            for i in a.pairs:
                if i in seen:
                    raise SpecError("axes", f"pair {i} rotates by both axis {seen[i]!r} and axis {a.name!r}")
                if not 0 <= i < pairs:
                    raise SpecError("axes", f"axis {a.name!r} names pair {i}, but the spec rotates {pairs} pairs")
                seen[i] = a.name
        missing = [i for i in range(pairs) if i not in seen]
        if missing:
            raise SpecError("axes", f"pairs {_ranges(missing)} rotate by no axis (the sections cover {len(seen)})")
        if len(set(self.names)) != len(self.names):
            raise SpecError("axes", f"axis names must differ, got {self.names}")

    def axis_of_pair(self) -> tuple[int, ...]:
        """Per pair, the index of the axis that rotates it."""
        out = [0] * self.pair_count
        for k, a in enumerate(self.axes):
            for i in a.pairs:
                out[i] = k
        return tuple(out)

    def frequency_of_pair(self) -> tuple[tuple[int, int, float | None], ...]:
        """Per pair, ``(j, freq_dim, base)``: its frequency is ``base ** (-2 j / freq_dim)``."""
        out: list[tuple[int, int, float | None]] = [(0, 2, None)] * self.pair_count
        for a in self.axes:
            for i, j in zip(a.pairs, a.freq_index):
                out[i] = (j, a.freq_dim, a.base)
        return tuple(out)

    def uses_spec_table(self, rotary_dim: int) -> bool:
        """True when every pair's frequency is the 1-D spec's own ``inv_freq[i]`` (M-RoPE)."""
        return all(
            a.base is None and a.freqs is None and a.freq_dim == rotary_dim and a.freq_index == a.pairs
            for a in self.axes
        )

    @property
    def integer_positions(self) -> bool:
        """True when every axis turns its pairs by the integer position itself (scale 1, offset 0)."""
        return all(a.integer_map for a in self.axes)

    @property
    def own_tables(self) -> bool:
        """True when some axis carries its own frequency table (``freqs``)."""
        return any(a.freqs is not None for a in self.axes)

    def position_map(self) -> tuple[tuple[float, float], ...]:
        """Per pair, ``(scale, offset)``: it turns by ``(scale * p + offset) * theta_i`` at the integer position p."""
        out = [(1.0, 0.0)] * self.pair_count
        for a in self.axes:
            for i in a.pairs:
                out[i] = (a.scale, a.offset)
        return tuple(out)

    def table_of_pair(self) -> tuple[float | None, ...]:
        """Per pair, its frequency from its axis's own table (``freqs``), or None where the axis has none."""
        out: list[float | None] = [None] * self.pair_count
        for a in self.axes:
            if a.freqs is not None:
                for i, j in zip(a.pairs, a.freq_index):
                    out[i] = a.freqs[j]
        return tuple(out)

    def maps_in_words(self) -> str:
        """The axes' position maps and own tables, for a line of ``describe`` (empty for integer positions on
        ``base ** (-2j / D)`` tables): ``positions t: 0.1 p - 1, h: 0.000976562 p - 1; own tables t, h``."""
        parts = []
        if not self.integer_positions:
            parts.append("positions " + ", ".join(f"{a.name}: {a.position_words()}" for a in self.axes))
        own = [a.name for a in self.axes if a.freqs is not None]
        if own:
            parts.append("own frequency tables " + ", ".join(own))
        return "; ".join(parts)

    def table(self) -> list[dict[str, Any]]:
        """The pair -> axis table in runs of consecutive pairs with the same axis (for people)."""
        axis_of = self.axis_of_pair()
        rows = []
        for lo, hi in runs(axis_of):
            a = self.axes[axis_of[lo]]
            rows.append({"pairs": (lo, hi), "axis": a.name, "count": hi - lo + 1})
        return rows

    def pairs_in_words(self) -> dict[str, str]:
        """Per axis, its pairs as runs and strides (``"0-15"``, ``"1, 4, ..., 58 (every 3rd)"``)."""
        return {a.name: progressions(sorted(a.pairs)) for a in self.axes}

    def describe(self) -> str:
        """One line: the scheme and the pairs per axis (``mrope t:16 h:24 w:24``)."""
        counts = " ".join(f"{a.name}:{len(a.pairs)}" for a in self.axes)
        maps = self.maps_in_words()
        return f"{self.scheme} {counts}" + (f" ({maps})" if maps else "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "scheme": self.scheme,
            "sections": list(self.sections) if self.sections is not None else None,
            "text_same_position": self.text_same_position,
            "axes": [_axis_dict(a) for a in self.axes],
        }


def _axis_dict(a: Axis) -> dict[str, Any]:
    """An axis as JSON: the position map and own table only where they differ from the defaults, so a spec of
    integer positions serialises as it always has."""
    out: dict[str, Any] = {
        "name": a.name,
        "pairs": list(a.pairs),
        "freq_index": list(a.freq_index),
        "freq_dim": a.freq_dim,
        "base": a.base,
    }
    if not a.integer_map:
        out.update(scale=a.scale, offset=a.offset)
    if a.freqs is not None:
        out["freqs"] = list(a.freqs)
    return out


def ltx_frequencies(theta: float, count: int) -> tuple[float, ...]:
    """LTX-Video's frequencies ``(pi / 2) * theta ** linspace(0, 1, count)`` (rising), each correctly rounded to
    fp64 from a 50-digit evaluation of the published formula.

    Example:
        >>> [round(f, 4) for f in ltx_frequencies(10000.0, 3)]
        [1.5708, 157.0796, 15707.9633]
    """
    if count < 1:
        raise SpecError("axes.freqs", f"needs at least one frequency, got {count}")
    with mpmath.workdps(50):
        step = [mpmath.mpf(k) / (count - 1) if count > 1 else mpmath.mpf(0) for k in range(count)]
        return tuple(float(mpmath.pi / 2 * mpmath.power(mpmath.mpf(theta), e)) for e in step)


def runs(values: tuple[int, ...] | list[int]) -> list[tuple[int, int]]:
    """``[(first, last), ...]`` of the maximal runs of equal consecutive values."""
    out: list[tuple[int, int]] = []
    start = 0
    for i in range(1, len(values) + 1):
        if i == len(values) or values[i] != values[start]:
            out.append((start, i - 1))
            start = i
    return out


def progressions(indices: list[int]) -> str:
    """Sorted indices in words: runs ``lo-hi``, strides ``a, b, ..., z (every kth)``, single values.

    Example:
        >>> progressions([0, 1, 2, 3, 5, 8, 11, 14, 20])
        '0-3, 5, 8, ..., 14 (every 3rd), 20'
    """
    parts: list[str] = []
    i, n = 0, len(indices)
    while i < n:
        j = i + 1
        if j < n:
            step = indices[j] - indices[i]
            while j + 1 < n and indices[j + 1] - indices[j] == step:
                j += 1
            if step == 1 and j > i:
                parts.append(f"{indices[i]}-{indices[j]}")
                i = j + 1
                continue
            if j - i >= 2:
                nth = {2: "2nd", 3: "3rd"}.get(step, f"{step}th")
                parts.append(f"{indices[i]}, {indices[i] + step}, ..., {indices[j]} (every {nth})")
                i = j + 1
                continue
        parts.append(str(indices[i]))
        i += 1
    return ", ".join(parts)


def _ranges(indices: list[int]) -> str:
    parts = []
    for lo, hi in _consecutive(indices):
        parts.append(str(lo) if lo == hi else f"{lo}-{hi}")
    return ", ".join(parts)


def _consecutive(indices: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for i in sorted(indices):
        if out and i == out[-1][1] + 1:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


def mrope(
    sections: tuple[int, ...] | list[int],
    rotary_dim: int,
    *,
    interleaved: bool = False,
    names: tuple[str, ...] = ("t", "h", "w"),
) -> MultiAxis:
    """M-RoPE over the 1-D table of ``rotary_dim``: pairs per axis in sections, or interleaved.

    Sections (Qwen2-VL): axis ``a`` takes the ``sections[a]`` pairs after those of the axes before.
    Interleaved (Qwen3-VL): pair ``i`` goes to axis ``a = i mod 3`` (a > 0) while
    ``i < 3 * sections[a]``, and to the first axis otherwise -- transformers'
    ``recomposition_frequencies`` exactly. Frequencies stay the 1-D ones (pair ``i`` at ``theta_i``).

    Example:
        >>> mrope((16, 24, 24), 128).describe()
        'mrope t:16 h:24 w:24'
        >>> [r["axis"] for r in mrope((2, 1, 1), 8, interleaved=True).table()]
        ['t', 'h', 'w', 't']
    """
    sections = tuple(int(s) for s in sections)
    pairs = rotary_dim // 2
    field = "rope_scaling.mrope_section"
    if len(sections) != len(names):
        raise SpecError(field, f"must list {len(names)} section sizes ({'/'.join(names)}), got {len(sections)}")
    if any(s < 0 for s in sections):
        raise SpecError(field, f"section sizes must be >= 0, got {list(sections)}")
    if sum(sections) != pairs:
        raise SpecError(
            field,
            f"sections {list(sections)} cover {sum(sections)} pairs, but rotary_dim {rotary_dim} has {pairs} "
            "(mrope_section counts frequency pairs: it sums to rotary_dim / 2)",
        )
    assign: list[list[int]] = [[] for _ in names]
    if interleaved:
        for i in range(pairs):
            a = i % len(names)
            assign[a if a > 0 and i < len(names) * sections[a] else 0].append(i)
        counts = tuple(len(x) for x in assign)
        if counts != sections:
            raise SpecError(
                field,
                f"interleaved sections {list(sections)} give the axes {list(counts)} pairs "
                "(each later axis's pairs must fit below 3 x its section)",
            )
    else:
        start = 0
        for a, size in enumerate(sections):
            assign[a] = list(range(start, start + size))
            start += size
    axes = tuple(Axis(n, tuple(p), tuple(p), rotary_dim) for n, p in zip(names, assign))
    return MultiAxis("mrope-interleaved" if interleaved else "mrope", axes, sections=sections)


def axial(
    rotary_dim: int,
    style: Literal["shared", "shared-reversed", "paired", "alternating", "split"] = "shared",
    *,
    names: tuple[str, ...] = ("h", "w"),
    sections: tuple[int, ...] | None = None,
    bases: tuple[float | None, ...] | None = None,
) -> MultiAxis:
    """Axial RoPE for image patches (2-D) or video (3-D).

    * ``shared`` (Qwen2-VL's vision encoder): axis ``a`` rotates the ``a``-th block of
      ``pairs / len(names)`` pairs, every axis with the same table over ``rotary_dim / len(names)``.
    * ``alternating`` (Pixtral): 2-D only; rows take frequencies ``0, 2, 4, ...`` and columns
      ``1, 3, 5, ...`` of the 1-D table over ``rotary_dim``, rows' pairs first.
    * ``shared-reversed`` (Inkling 2's vision encoder): as ``shared``, the last axis's block first.
    * ``paired`` (Kimi-K2.5's vision encoder): 2-D; pair ``2j`` is the column at frequency ``j`` and
      pair ``2j+1`` the row at ``j``, both tables over ``rotary_dim / 2``.
    * ``split`` (video transformers): axis ``a`` takes ``sections[a]`` pairs with its own
      table over ``2 * sections[a]`` dims (and its own base where ``bases`` gives one).

    Example:
        >>> axial(64, "alternating").frequency_of_pair()[:3]
        ((0, 64, None), (2, 64, None), (4, 64, None))
    """
    pairs = rotary_dim // 2
    n = len(names)
    if style in ("shared", "alternating") and pairs % n:
        raise SpecError("head_dim", f"{style} axial RoPE over {n} axes needs the pairs ({pairs}) divisible by {n}")
    per = pairs // n
    axes: list[Axis] = []
    if style == "shared":
        for a, name in enumerate(names):
            block = tuple(range(a * per, (a + 1) * per))
            axes.append(Axis(name, block, tuple(range(per)), 2 * per))
    elif style == "shared-reversed":  # Inkling 2's vision encoder: the last axis's block first
        for a, name in enumerate(names):
            block = tuple(range((n - 1 - a) * per, (n - a) * per))
            axes.append(Axis(name, block, tuple(range(per)), 2 * per))
    elif style == "paired":  # Kimi-K2.5's vision encoder: pair 2j the last axis at j, pair 2j+1 the first at j
        if n != 2:
            raise SpecError("axes", "paired axial RoPE is 2-D (rows and columns)")
        for a, name in enumerate(names):
            axes.append(Axis(name, tuple(2 * k + 1 - a for k in range(per)), tuple(range(per)), 2 * per))
    elif style == "alternating":
        if n != 2:
            raise SpecError("axes", "alternating axial RoPE is 2-D (rows and columns)")
        for a, name in enumerate(names):
            block = tuple(range(a * per, (a + 1) * per))
            axes.append(Axis(name, block, tuple(2 * k + a for k in range(per)), rotary_dim))
    elif style == "split":
        if sections is None or len(sections) != n or sum(sections) != pairs:
            raise SpecError("axes.sections", f"split axial RoPE needs {n} section sizes summing to {pairs}")
        start = 0
        for a, (name, size) in enumerate(zip(names, sections)):
            base = None if bases is None else bases[a]
            axes.append(Axis(name, tuple(range(start, start + size)), tuple(range(size)), 2 * size, base))
            start += size
    else:
        raise SpecError("axes.style", f"must be shared, shared-reversed, paired, alternating or split, got {style!r}")
    return MultiAxis(f"axial-{style}", tuple(axes), sections=sections, text_same_position=False)  # type: ignore[arg-type]


def ltx_axes(
    theta: float,
    count: int,
    lengths: tuple[float, ...],
    *,
    names: tuple[str, ...] = ("t", "h", "w"),
) -> MultiAxis:
    """LTX-Video's rotary as axes: ``count`` frequencies per axis, the axes taking turns over the pairs (pair
    ``k * len(names) + a`` is axis ``a`` at frequency ``k``), each pair turning by ``(2 p / L_a - 1) * f_k``:
    scale ``2 / L_a``, offset -1, ``f`` = :func:`ltx_frequencies` (its ``grid / base * 2 - 1`` times
    ``(pi / 2) * theta ** linspace(0, 1, count)``).

    Example:
        >>> ltx_axes(10000.0, 2, (20, 2048, 2048)).maps_in_words()
        'positions t: 0.1 p - 1, h: 0.000976562 p - 1, w: 0.000976562 p - 1; own frequency tables t, h, w'
    """
    if len(lengths) != len(names):
        raise SpecError("axes", f"needs one base length per axis ({len(names)}), got {len(lengths)}")
    if any(not (isinstance(n, (int, float)) and n > 0) for n in lengths):
        raise SpecError("axes", f"base lengths must be positive, got {list(lengths)}")
    freqs = ltx_frequencies(theta, count)
    n = len(names)
    axes = tuple(
        Axis(
            name,
            tuple(k * n + a for k in range(count)),
            tuple(range(count)),
            2 * count,
            scale=2.0 / float(lengths[a]),
            offset=-1.0,
            freqs=freqs,
        )  # fmt: skip
        for a, name in enumerate(names)
    )
    return MultiAxis("custom", axes, text_same_position=False)
