"""Deterministic SVG plots for the reports (matplotlib, Agg, no fonts fetched).

Every plot function takes data and returns SVG text; nothing here writes files. The SVG
is made byte-identical across runs: a fixed ``svg.hashsalt``, no creation date in the
metadata, and text kept as paths so the page needs no fonts.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import numpy as np

from .axes import MultiAxis
from .schedules import Layout
from .spec import RopeSpec

__all__ = ["axes_svg", "figure_svg", "spectra_svg", "pairing_svg", "curve_svg", "envelope_svg"]


def _mpl() -> Any:
    import matplotlib  # heavy: imported when a plot is drawn

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt  # heavy: imported when a plot is drawn

    matplotlib.rcParams.update(
        {
            "svg.hashsalt": "ropecheck",
            "svg.fonttype": "path",
            "font.size": 9,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "figure.dpi": 100,
        }
    )
    return plt


def figure_svg(fig: Any) -> str:
    """Serialise a figure to SVG text deterministically and close it."""
    plt = _mpl()
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": "ropecheck"})
    plt.close(fig)
    svg = buf.getvalue()
    # drop the XML prolog/doctype so the SVG can be inlined in HTML
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg


def curve_svg(
    series: Sequence[tuple[str, np.ndarray, np.ndarray]],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    logx: bool = False,
    logy: bool = False,
    hlines: Sequence[tuple[str, float]] = (),
) -> str:
    """Line plot of (label, x, y) series; optional horizontal reference lines."""
    plt = _mpl()
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for label, x, y in series:
        ax.plot(np.asarray(x), np.asarray(y), label=label, linewidth=1.2)
    for label, value in hlines:
        ax.axhline(value, linestyle="--", linewidth=0.9, color="0.4", label=label)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if series or hlines:
        ax.legend(fontsize=7, loc="best")
    return figure_svg(fig)


def envelope_svg(
    bins: Sequence[tuple[float, float, float, float]],
    *,
    label: str,
    title: str,
    xlabel: str,
    ylabel: str,
    logx: bool = False,
    vlines: Sequence[tuple[str, float]] = (),
) -> str:
    """A dense curve drawn as its envelope: per bin ``(first x, last x, min y, max y)``, the band min..max.

    Each bin is filled from its smallest to its largest value over its x range, with an edge line so a
    bin of one point still shows; consecutive bins are joined as the curve joins them. With bins at least
    as fine as the pixel columns, every excursion of the curve is drawn.
    """
    plt = _mpl()
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    xs = np.array([x for lo, hi, _, _ in bins for x in (lo, hi)], dtype=float)
    lows = np.array([v for _, _, lo, _ in bins for v in (lo, lo)], dtype=float)
    highs = np.array([v for _, _, _, hi in bins for v in (hi, hi)], dtype=float)
    ax.fill_between(xs, lows, highs, color="C0", linewidth=0.6, label=label)
    for name, value in vlines:
        ax.axvline(value, linestyle=":", linewidth=0.9, color="0.4", label=name)
    if logx:
        ax.set_xscale("log")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7, loc="best")
    return figure_svg(fig)


def spectra_svg(specs: Sequence[tuple[str, Any]]) -> str:
    """Wavelength per frequency index for several schedules (log scale)."""
    series = []
    for label, spec in specs:
        wl = spec.wavelengths()
        series.append((label, np.arange(len(wl)), wl))
    return curve_svg(
        series,
        title="Wavelength 2π/θ_i of each rotated pair, by schedule",
        xlabel="frequency index i",
        ylabel="wavelength (tokens)",
        logy=True,
    )


def pairing_svg(head_dim: int = 8) -> str:
    """Which dims rotate together: interleaved (2i, 2i+1) against half-split (i, i+d/2)."""

    plt = _mpl()
    fig, axes = plt.subplots(2, 1, figsize=(6.4, 2.8))
    colors = plt.get_cmap("tab10")
    layouts: tuple[Layout, ...] = ("interleaved", "half")
    for ax, layout in zip(axes, layouts):
        spec = RopeSpec(head_dim=head_dim, layout=layout)
        ax.set_xlim(-0.7, head_dim - 0.3)
        ax.set_ylim(-0.9, 1.4)
        ax.axis("off")
        name = (
            "interleaved: pairs (x₂ᵢ, x₂ᵢ₊₁)"
            if layout == "interleaved"
            else "half-split (rotate_half): pairs (xᵢ, xᵢ₊d/₂)"
        )
        ax.set_title(name, fontsize=9, loc="left")
        for i, (a, b) in enumerate(spec.pairs()):
            color = colors(i % 10)
            for dim in (a, b):
                ax.add_patch(plt.Rectangle((dim - 0.4, -0.4), 0.8, 0.8, color=color, alpha=0.85))
                ax.text(dim, 0, f"x{dim}", ha="center", va="center", fontsize=8, color="white")
            mid, height = (a + b) / 2, 0.55 + 0.12 * (b - a)
            ax.annotate(
                "",
                xy=(b, 0.42),
                xytext=(a, 0.42),
                arrowprops=dict(arrowstyle="<->", color=color, connectionstyle=f"bar,fraction={0.25 / max(b - a, 1)}"),
            )
            ax.text(mid, min(height, 1.25), f"θ{i}", ha="center", fontsize=7, color=color)
    fig.tight_layout()
    return figure_svg(fig)


#: One color per axis name, so t/h/w read the same in every row of :func:`axes_svg`.
_AXIS_COLORS = {"t": "#4c72b0", "h": "#dd8452", "w": "#55a868", "x": "#dd8452", "y": "#55a868"}


def axes_svg(schemes: Sequence[tuple[str, MultiAxis]]) -> str:
    """Pair -> axis diagram: one row per scheme, one cell per rotated pair, colored by the axis that turns it."""
    plt = _mpl()
    fig, axes = plt.subplots(len(schemes), 1, figsize=(7.2, 0.75 * len(schemes) + 0.3), squeeze=False)
    fallback = plt.get_cmap("tab10")
    for ax, (label, scheme) in zip(axes[:, 0], schemes):
        axis_of = scheme.axis_of_pair()
        names = scheme.names
        colors = [_AXIS_COLORS.get(n, fallback(k)) for k, n in enumerate(names)]
        for i, a in enumerate(axis_of):
            ax.add_patch(plt.Rectangle((i, 0), 0.92, 1, color=colors[a]))
        ax.set_xlim(0, len(axis_of))
        ax.set_ylim(0, 1)
        ax.set_yticks([])
        ax.set_xticks(range(0, len(axis_of) + 1, 8))
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(False)
        counts = ", ".join(f"{n}: {len(a.pairs)}" for n, a in zip(names, scheme.axes))
        ax.set_title(f"{label} ({counts})", fontsize=8, loc="left")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in ("#4c72b0", "#dd8452", "#55a868")]
    fig.legend(handles, ["t (temporal)", "h (height / row)", "w (width / column)"], loc="lower center", ncol=3,
               fontsize=7, frameon=False, bbox_to_anchor=(0.5, -0.02))  # fmt: skip
    axes[-1, 0].set_xlabel("rotated pair i", fontsize=8)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return figure_svg(fig)
