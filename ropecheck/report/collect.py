"""Collectors: each runs one engine and returns a report :class:`Section`.

A collector takes a ``progress(message)`` callback for the live display and returns its
section; it never writes files. Timings are measured by the caller and go to the header.
Collectors for engines whose optional pieces are missing return rows marked ``SKIP``
with the reason, expected ``SKIP``, so a missing optional library never fails the report.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import sympy as sp

from ..schedules import Linear, Llama3, StaticNTK, YaRN
from ..spec import RopeSpec
from ..svg import pairing_svg, spectra_svg
from .mathml import latex_block, mathml_block
from .model import Page, Plot, Row, Section
from .selfcheck import reference_checks, render_reference_markdown

__all__ = ["collect_reference", "collect_schedules", "Progress"]

Progress = Callable[[str], None]


def collect_reference(progress: Progress) -> Section:
    """The fp64 reference's three forms against each other, and its structure."""

    rows, results = [], []
    for res in reference_checks():
        progress(res.name)
        results.append(res)
        rows.append(Row(res.name, "PASS" if res.passed else "FAIL", "PASS", res.evidence, link="reference.md"))
    page = Page("reference.md", "The fp64 reference", render_reference_markdown(results))
    return Section(
        "reference",
        "The fp64 reference",
        "The three forms of the numeric reference (block-diagonal matrix, elementwise x·cos + rotate(x)·sin, "
        "complex z·e^{imθ}) agree to 1e-12 at positions up to 10^6, for both layouts and partial rotary.",
        rows=rows,
        pages=[page],
    )


def schedule_specs(head_dim: int = 128) -> list[tuple[str, RopeSpec]]:
    """The schedules compared in the spectra plot, at one head dim."""
    return [
        ("default (base 10⁴)", RopeSpec(head_dim=head_dim)),
        ("linear / PI ×8", RopeSpec(head_dim=head_dim, scaling=Linear(8.0))),
        ("static NTK ×8", RopeSpec(head_dim=head_dim, scaling=StaticNTK(8.0))),
        ("YaRN ×8 (L₀ 4096)", RopeSpec(head_dim=head_dim, scaling=YaRN(8.0, 4096))),
        ("Llama 3 ×8 (L₀ 8192)", RopeSpec(head_dim=head_dim, scaling=Llama3(8.0, 1.0, 4.0, 8192))),
    ]


def schedule_formulas() -> list[tuple[str, object]]:
    """The schedules' definitions as SymPy equations (rendered as LaTeX and MathML)."""

    i, d, b, s, L, L0, lo, hi = sp.symbols("i d b s L L_0 low high", positive=True)
    theta = sp.Symbol("theta_i")
    default = b ** (-2 * i / d)
    gamma = sp.Symbol("gamma_i")
    wl = sp.Symbol("lambda_i")
    alpha, beta = sp.symbols("alpha beta", positive=True)
    return [
        ("default", sp.Eq(theta, default)),
        ("linear / position interpolation", sp.Eq(theta, default / s)),
        ("static NTK", sp.Eq(theta, (b * s ** (d / (d - 2))) ** (-2 * i / d))),
        (
            "dynamic NTK (current length L)",
            sp.Eq(theta, (b * (s * sp.Max(L, L0) / L0 - (s - 1)) ** (d / (d - 2))) ** (-2 * i / d)),
        ),
        ("YaRN", sp.Eq(theta, gamma * default / s + (1 - gamma) * default)),
        ("YaRN ramp", sp.Eq(gamma, sp.Min(1, sp.Max(0, (i - lo) / (hi - lo))))),
        ("YaRN attention factor", sp.Eq(sp.Symbol("m_s"), sp.Rational(1, 10) * sp.log(s) + 1)),
        (
            "Llama 3 (wavelength λ_i = 2π/θ_i of the default schedule)",
            sp.Eq(
                theta,
                sp.Piecewise(
                    (default, wl < L0 / beta),
                    (default / s, wl > L0 / alpha),
                    ((1 - gamma) * default / s + gamma * default, True),
                ),
            ),
        ),
        ("Llama 3 smoothing", sp.Eq(gamma, (L0 / wl - alpha) / (beta - alpha))),
    ]


def collect_schedules(progress: Progress) -> Section:
    """Frequency spectra of the scaling schedules and the two pairings, as pictures and a table."""

    progress("schedule spectra")
    specs = schedule_specs()
    default = specs[0][1].inv_freq()
    lines = [
        "# Frequency schedules",
        "",
        "Wavelength 2π/θ_i (tokens) per frequency index, head_dim 128, base 10000, scale factor 8.",
        "",
        "| i | " + " | ".join(label for label, _ in specs) + " |",
        "|---:|" + "---:|" * len(specs),
    ]
    wls = [spec.wavelengths() for _, spec in specs]
    for i in range(0, len(default), 8):
        lines.append(f"| {i} | " + " | ".join(f"{wl[i]:.4g}" for wl in wls) + " |")
    lines += ["", "| schedule | attention factor |", "|---|---:|"]
    lines += [f"| {label} | {spec.attention_factor:.6f} |" for label, spec in specs]
    lines += ["", "## Definitions", ""]
    html_parts = []
    for title, eq in schedule_formulas():
        lines += [f"**{title}**", "", latex_block(eq), ""]
        html_parts.append(f"<p><b>{title}</b></p>{mathml_block(eq)}")
    rows = []
    for label, spec in specs[1:]:
        ratio = spec.inv_freq() / default
        kept = int(np.sum(np.isclose(ratio, 1.0)))
        rows.append(
            Row(
                f"{label}: θ_i/θ_i(default) within [1/8, 1]",
                "PASS" if ratio.min() >= 1 / 8 - 1e-12 and ratio.max() <= 1 + 1e-12 else "FAIL",
                "PASS",
                f"ratio from {ratio.min():.4f} to {ratio.max():.4f}; {kept} of {len(ratio)} frequencies kept",
                link="schedules.md",
            )
        )
    progress("pairing picture")
    plots = [
        Plot(
            "spectra",
            "Schedule spectra",
            "Wavelength of each rotated pair for the default schedule and four context-extension schedules "
            "(head_dim 128).",
            spectra_svg(specs),
        ),
        Plot(
            "pairing",
            "Interleaved vs half-split pairing",
            "Which dims rotate together in each layout (head_dim 8); both are the same RoPE up to the "
            "even-first permutation.",
            pairing_svg(8),
        ),
    ]
    return Section(
        "schedules",
        "Frequency schedules and layouts",
        "What each context-extension schedule does to the frequencies: every scaled θ_i lies between θ_i/8 and θ_i.",
        rows=rows,
        plots=plots,
        pages=[Page("schedules.md", "Frequency schedules", "\n".join(lines) + "\n", html="\n".join(html_parts))],
    )
