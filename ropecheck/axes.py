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

Design constraints: frozen and hashable (a field of the frozen :class:`~ropecheck.spec.RopeSpec`);
no numpy here beyond what a table needs; invalid input is a
:class:`~ropecheck.errors.SpecError` naming the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .errors import SpecError

__all__ = ["SCHEMES", "Axis", "MultiAxis", "axial", "mrope", "progressions", "runs"]

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
    """

    name: str
    pairs: tuple[int, ...]
    freq_index: tuple[int, ...]
    freq_dim: int
    base: float | None = None

    def __post_init__(self) -> None:
        if len(self.pairs) != len(self.freq_index):
            raise SpecError(f"axes.{self.name}", "needs one frequency index per pair")
        if self.freq_dim < 2 or self.freq_dim % 2:
            raise SpecError(f"axes.{self.name}.freq_dim", f"must be an even integer >= 2, got {self.freq_dim}")
        if any(not 0 <= j < self.freq_dim // 2 for j in self.freq_index):
            raise SpecError(f"axes.{self.name}.freq_index", f"indices must lie in 0..{self.freq_dim // 2 - 1}")
        if self.base is not None and not (isinstance(self.base, (int, float)) and self.base > 1):
            raise SpecError(f"axes.{self.name}.base", f"must be a number > 1, got {self.base!r}")


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
        return all(a.base is None and a.freq_dim == rotary_dim and a.freq_index == a.pairs for a in self.axes)

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
        return f"{self.scheme} {counts}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "scheme": self.scheme,
            "sections": list(self.sections) if self.sections is not None else None,
            "text_same_position": self.text_same_position,
            "axes": [
                {
                    "name": a.name,
                    "pairs": list(a.pairs),
                    "freq_index": list(a.freq_index),
                    "freq_dim": a.freq_dim,
                    "base": a.base,
                }
                for a in self.axes
            ],
        }


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
