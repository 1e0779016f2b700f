"""Rendering proofs: Markdown with LaTeX math (GitHub renders it), MathML, JSON, terminal text.

Design constraints: pure functions, data in and text out -- the CLI writes the files. The
output is deterministic except for the recorded timings. Very long expressions (the
d = 8 matrix steps) are shown in full up to a size GitHub renders comfortably and
summarised beyond it; the JSON keeps everything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import sympy
from sympy.printing.mathml import mathml

from ..io import VOLATILE_BEGIN, VOLATILE_END
from ..svg import curve_svg
from .proof import Counterexample, Proof, Step, Verdict, expr_text

__all__ = [
    "MAX_LATEX",
    "decay_svg",
    "print_family",
    "proofs_to_json",
    "render_counterexample_text",
    "render_index_markdown",
    "render_proof_markdown",
    "render_proof_text",
    "step_mathml",
]

#: Longest LaTeX shown for one side of a step in Markdown.
MAX_LATEX = 2500

_BADGE = {Verdict.PROVED: "✅ PROVED", Verdict.REFUTED: "❌ REFUTED", Verdict.UNDECIDED: "❔ UNDECIDED"}


def _latex(expr: Any) -> str:
    text = sympy.latex(expr)
    if len(text) <= MAX_LATEX:
        return text
    if isinstance(expr, sympy.MatrixBase):
        return rf"\text{{[{expr.rows}\times{expr.cols} matrix; {len(text)} characters of LaTeX, in the JSON]}}"
    return (
        rf"\text{{[expression with {sympy.count_ops(expr)} operations; {len(text)} characters of LaTeX, in the JSON]}}"
    )


def _verdict_text(step: Step) -> str:
    text = _BADGE[step.verdict]
    if step.expect != Verdict.PROVED:
        text += " (as intended)" if step.as_intended else f" (expected {step.expect.value})"
    return text


def _counterexample_md(cex: Counterexample) -> list[str]:
    values = ", \\; ".join(f"{sympy.latex(k)} = {sympy.latex(v)}" for k, v in cex.values.items())
    where = f" (entry {cex.entry[0]}, {cex.entry[1]})" if cex.entry is not None else ""
    return [
        f"Counterexample{where}, checked in exact arithmetic:",
        "",
        f"$$ {values} $$",
        "",
        f"$$ \\text{{left}} = {_latex(cex.lhs)}, \\qquad \\text{{right}} = {_latex(cex.rhs)} $$",
        "",
        f"$$ \\text{{left}} - \\text{{right}} = {_latex(cex.difference)} \\approx {cex.approx} \\neq 0 $$",
        "",
    ]


def render_proof_markdown(proof: Proof, *, number: int | None = None, timings: bool = True) -> str:
    """One theorem as a Markdown page: statement, verdict, every step in LaTeX with its rewrite.

    ``timings=False`` leaves the times out, for pages that must be identical run to run.
    """
    head = f"Theorem {number}: " if number is not None else ""
    lines = [
        f"# {head}{proof.title}",
        "",
        f"`{proof.name}` (family `{proof.family}`) — **{_BADGE[proof.verdict]}**"
        + ("" if proof.as_intended else " — **not as intended**")
        + (f" in {proof.seconds:.3f} s" if timings else ""),
        "",
        f"**Statement.** {proof.statement}",
        "",
        "| # | step | verdict | decided by |" + (" time (s) |" if timings else ""),
        "|---|---|---|---|" + ("---|" if timings else ""),
    ]
    for i, s in enumerate(proof.steps, 1):
        lines.append(
            f"| {i} | `{s.name}` | {_verdict_text(s)} | `{s.method}` |" + (f" {s.seconds:.3f} |" if timings else "")
        )
    lines.append("")
    for i, s in enumerate(proof.steps, 1):
        lines += [
            f"## Step {i}: `{s.name}`",
            "",
            s.statement,
            "",
            f"$$ {_latex(s.lhs)} = {_latex(s.rhs)} $$",
            "",
            f"{_verdict_text(s)} — decided by `{s.method}`.",
            "",
        ]
        if s.counterexample is not None:
            lines += _counterexample_md(s.counterexample)
    if proof.notes:
        lines += ["## Notes", ""] + [f"- {n}" for n in proof.notes] + [""]
    curve = proof.data.get("decay_curve")
    if curve:
        lines += _decay_md(curve)
    if proof.data.get("dynamic_ntk"):
        dyn = proof.data["dynamic_ntk"]
        lines += [
            "## Cross-check with the spec",
            "",
            (
                "`RopeSpec(head_dim=4, scaling=DynamicNTK(2, 4))` gives θ₁ = "
                f"{dyn['spec_check']['spec_theta_query']!r} at "
                f"length 8 and {dyn['spec_check']['spec_theta_key']!r} at length 4: "
                + ("the exact" if dyn["spec_check"].get("agrees", True) else "**not** the exact")
                + f" {dyn['theta_query']} and {dyn['theta_key']} used above."
            ),
            "",
        ]
    return "\n".join(lines).rstrip() + "\n"


def _decay_md(curve: dict[str, Any]) -> list[str]:
    lines = [
        f"## Decay curve (numeric, base {curve['base']}, d = {curve['d']})",
        "",
        "![(1/(d/2)) Σ_j |S_j| against relative distance](decay.svg)",
        "",
        "Mean of (1/(d/2)) Σ_j |S_j| over bands of relative distance:",
        "",
        "| relative distance | mean |",
        "|---|---|",
    ]
    for band in curve["bands"]:
        lines.append(f"| {band['from']}–{band['to']} | {band['mean']:.4f} |")
    verdict = "decrease" if curve["decreasing_band_means"] else "do **not** decrease"
    lines += ["", f"The band means {verdict} with distance.", "", "| r | value |", "|---|---|"]
    shown = {0, 1, 2, 4, 8, 16, 32, 64, 128, 255} | {r for r, _ in curve["points"][256::8]}
    lines += [f"| {r} | {v:.4f} |" for r, v in curve["points"] if r in shown]
    return lines + [""]


def render_index_markdown(
    proofs: Sequence[Proof],
    *,
    numbers: dict[str, int] | None = None,
    total_seconds: float | None = None,
    timings: bool = True,
) -> str:
    """The summary page: one row per theorem with its verdict; the times in a marked volatile block.

    The times sit between the volatile-block markers (see :mod:`ropecheck.io`),
    so two runs give pages that differ only inside that block; ``timings=False`` omits it.
    """
    numbers = numbers or {}
    ok = all(p.as_intended for p in proofs)
    lines = [
        "# ropecheck proofs",
        "",
        (
            "Every step is an equality that SymPy decides exactly by a targeted rewrite; numbers never count as proof. "
            "A refutation comes with a counterexample checked in exact arithmetic."
        ),
        "",
        f"**{sum(p.as_intended for p in proofs)} of {len(proofs)} theorems as intended.**",
        "",
        "| # | theorem | family | verdict | intended refutations |",
        "|---|---|---|---|---|",
    ]
    for p in proofs:
        num = numbers.get(p.family, "")
        refs = ", ".join(f"`{s.name}` {s.verdict.value}" for s in p.intended_refutations) or "—"
        flag = "" if p.as_intended else " ⚠"
        lines.append(f"| {num} | [{p.title}]({p.name}.md) | `{p.family}` | {_BADGE[p.verdict]}{flag} | {refs} |")
    lines += ["", "All as intended." if ok else "Some theorems are **not** as intended.", ""]
    if timings:
        lines += [VOLATILE_BEGIN, "", "| theorem | time (s) |", "|---|---:|"]
        lines += [f"| `{p.name}` | {p.seconds:.3f} |" for p in proofs]
        if total_seconds is not None:
            lines += ["", f"Total {total_seconds:.2f} s."]
        lines += ["", VOLATILE_END, ""]
    return "\n".join(lines)


def render_counterexample_text(cex: Counterexample) -> list[str]:
    """Plain-text lines for a counterexample (terminal output)."""
    values = ", ".join(f"{k} = {expr_text(v)}" for k, v in cex.values.items())
    where = f" (matrix entry {cex.entry[0]},{cex.entry[1]})" if cex.entry is not None else ""
    return [
        f"  counterexample{where}: {values}",
        f"    left        = {expr_text(cex.lhs)}",
        f"    right       = {expr_text(cex.rhs)}",
        f"    left - right = {expr_text(cex.difference)} ≈ {cex.approx}",
    ]


def render_proof_text(proof: Proof) -> str:
    """A terminal rendering: the verdict of each step and the rewrite that decided it."""
    lines = [f"{proof.verdict.value:<9} {proof.name}: {proof.title} ({proof.seconds:.3f} s)", f"  {proof.statement}"]
    for s in proof.steps:
        intended = (
            ""
            if s.expect == Verdict.PROVED
            else (" (as intended)" if s.as_intended else f" (expected {s.expect.value})")
        )
        lines.append(f"  [{s.verdict.value}{intended}] {s.name} — {s.method} ({s.seconds:.3f} s)")
        if s.counterexample is not None:
            lines += ["  " + x for x in render_counterexample_text(s.counterexample)]
    return "\n".join(lines) + "\n"


def step_mathml(step: Step) -> str:
    """A step as presentation MathML (``lhs = rhs``), for the HTML report."""

    lhs = mathml(step.lhs, printer="presentation")
    rhs = mathml(step.rhs, printer="presentation")
    return f'<math display="block"><mrow>{lhs}<mo>=</mo>{rhs}</mrow></math>'


def proofs_to_json(proofs: Sequence[Proof], *, total_seconds: float | None = None) -> dict[str, Any]:
    """A JSON-ready summary plus every proof in full."""
    return {
        "as_intended": all(p.as_intended for p in proofs),
        "total_seconds": None if total_seconds is None else round(total_seconds, 6),
        "theorems": [p.to_dict() for p in proofs],
    }


def decay_svg(curve: dict[str, Any]) -> str:
    """The decay curve (1/(d/2)) sum_j |S_j| against relative distance, as SVG text."""
    pts = [(r, v) for r, v in curve["points"] if r > 0]
    x, y = np.array([p[0] for p in pts], dtype=float), np.array([p[1] for p in pts])
    return curve_svg(
        [(f"base {curve['base']}, d = {curve['d']}", x, y)],
        title="Long-term decay of the RoPE bound",
        xlabel="relative distance |m - n|",
        ylabel="(1/(d/2)) Σ_j |S_j|",
        logx=True,
    )


def print_family(builders: Sequence[Callable[[], Proof]]) -> int:
    """Run theorem builders, print each proof's steps (what ``python proofs/<family>.py`` shows); the exit code."""
    proofs = [build() for build in builders]
    for proof in proofs:
        print(render_proof_text(proof))
    return 0 if all(p.as_intended for p in proofs) else 1
