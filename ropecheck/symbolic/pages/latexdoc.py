"""Every theorem as one LaTeX document (``reports/proofs/proofs.tex``), for a paper's appendix.

The document holds what the theorem pages hold -- statement, assumptions, every step as an
aligned equation with its verdict and the rule that decided it, counterexamples -- and needs
only ``amsmath`` and ``amssymb``, so Debian's smallest TeX (``texlive-latex-base``) compiles it
with ``pdflatex``.

Design constraints: a pure function, data in and text out; no timings, so the file is the
same run to run. Prose carries ``$...$`` inline math, kept as is; everything else in prose is
escaped for LaTeX, Markdown `code` spans become ``\\texttt``, and the few Unicode symbols the
pages use become their LaTeX commands (pdflatex reads ASCII safely).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy

from ..engine.proof import Counterexample, Proof, Step, Verdict
from .mathlines import aligned_latex, latex_of, rows_latex
from .prose import display_rows, segments
from .render import MAX_LATEX, counterexample_displays, formula_latex, rule_sentence

__all__ = ["render_proofs_latex", "tex_escape"]

_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
_UNICODE = {
    "—": "---",
    "–": "--",
    "…": r"\ldots{}",
    "’": "'",
    "“": "``",
    "”": "''",
    "θ": r"$\theta$",
    "Θ": r"$\Theta$",
    "φ": r"$\varphi$",
    "ω": r"$\omega$",
    "Σ": r"$\Sigma$",
    "π": r"$\pi$",
    "≤": r"$\le$",
    "≥": r"$\ge$",
    "≠": r"$\ne$",
    "≈": r"$\approx$",
    "×": r"$\times$",
    "·": r"$\cdot$",
    "−": "-",
    "→": r"$\to$",
    "⇔": r"$\Leftrightarrow$",
    "∈": r"$\in$",
    "²": r"$^2$",
    "₀": r"$_0$",
    "₁": r"$_1$",
    "✅": "",
    "❌": "",
    "❔": "",
}


def _escape_text(text: str) -> str:
    out = []
    for ch in text:
        if ch in _SPECIAL:
            out.append(_SPECIAL[ch])
        elif ch in _UNICODE:
            out.append(_UNICODE[ch])
        elif ord(ch) > 127:
            out.append(f"[U+{ord(ch):04X}]")  # pdflatex without inputenc mappings cannot set it
        else:
            out.append(ch)
    return "".join(out)


def tex_escape(text: str) -> str:
    """Prose for LaTeX: ``$...$`` kept as math, ``$$...$$`` as a display, `code` as ``\\texttt``,
    everything else escaped."""
    out = []
    for kind, body in segments(text):
        if kind == "inline":
            out.append(f"${body}$")
        elif kind == "display":
            out.append(f"\n\\[\n{rows_latex(display_rows(body))}\n\\]\n")
        else:
            out.append(_code(body))
    return "".join(out)


def _code(text: str) -> str:
    parts = text.split("`")
    return "".join(rf"\texttt{{{_escape_text(p)}}}" if k % 2 else _escape_text(p) for k, p in enumerate(parts))


def _verdict(step: Step) -> str:
    text = step.verdict.value
    if step.expect != Verdict.PROVED:
        text += " (expected)" if step.as_intended else f" (expected {step.expect.value})"
    return rf"\textbf{{{text}}}"


def _equation(step: Step) -> list[str]:
    lhs, rhs = step.shown_sides
    if len(latex_of(lhs)) > MAX_LATEX or len(latex_of(rhs)) > MAX_LATEX:
        ops = max(sympy.count_ops(lhs), sympy.count_ops(rhs))
        return [rf"\emph{{Both sides are too large to print here ({ops} operations); the JSON holds them.}}", ""]
    return [r"\[", aligned_latex(lhs, step.relation, rhs), r"\]"]


def _counterexample(cex: Counterexample) -> list[str]:
    where = f" (entry {cex.entry[0]}, {cex.entry[1]})" if cex.entry is not None else ""
    lines = [rf"\noindent Counterexample{where}, checked in exact arithmetic:"]
    for rows in counterexample_displays(cex):
        lines += [r"\[", rows_latex(rows), r"\]"]
    return lines


def _theorem(proof: Proof, number: int | None) -> list[str]:
    label = proof.number(number)
    head = f"Theorem {label}: " if label else ""
    intended = "" if proof.as_intended else " --- not as intended"
    lines = [
        rf"\section*{{{_escape_text(head + proof.title)}}}",
        rf"\addcontentsline{{toc}}{{section}}{{{_escape_text(head + proof.title)}}}",
        rf"\noindent\textbf{{{proof.verdict.value}}}{intended} \quad \texttt{{{_escape_text(proof.name)}}}",
        "",
    ]
    if proof.formula:
        lines += [r"\[", formula_latex(proof), r"\]"]
    lines += [rf"\noindent\textbf{{Statement.}} {tex_escape(proof.statement)}", ""]
    if proof.assumptions:
        lines += [r"\noindent\textbf{Assumptions.}", r"\begin{itemize}"]
        lines += [rf"\item ${a}$" for a in proof.assumptions]
        lines += [r"\end{itemize}", ""]
    lines += [r"\subsection*{Derivation}", ""]
    for i, s in enumerate(proof.steps, 1):
        lines += [
            rf"\paragraph{{Step {i}: \texttt{{{_escape_text(s.name)}}}.}} {tex_escape(s.statement)}",
            *_equation(s),
            rf"{_verdict(s)} --- {tex_escape(rule_sentence(s.method))}",
            "",
        ]
        if s.counterexample is not None:
            lines += [*_counterexample(s.counterexample), ""]
    if proof.notes:
        lines += [r"\subsection*{Notes}", r"\begin{itemize}"]
        lines += [rf"\item {tex_escape(n)}" for n in proof.notes]
        lines += [r"\end{itemize}", ""]
    return lines


def render_proofs_latex(proofs: Sequence[Proof], *, numbers: dict[str, int] | None = None, version: Any = "") -> str:
    """The LaTeX document: a title, a contents list, one section per theorem with every step."""
    numbers = numbers or {}
    as_intended = sum(p.as_intended for p in proofs)
    lines = [
        r"\documentclass[10pt]{article}",
        r"\usepackage{amsmath,amssymb}",
        r"\setlength{\textwidth}{15.5cm}\setlength{\oddsidemargin}{0.2cm}\setlength{\evensidemargin}{0.2cm}",
        r"\setlength{\textheight}{23cm}\setlength{\topmargin}{-1cm}",
        r"\setcounter{secnumdepth}{0}\allowdisplaybreaks",
        r"\title{RoPE identities, decided by SymPy}",
        rf"\author{{ropecheck {_escape_text(str(version))}}}",
        r"\date{}",
        r"\begin{document}",
        r"\maketitle",
        (
            r"\noindent Every step below is an equality or inequality that SymPy decides exactly by the recorded "
            r"rewrite; numbers never count as proof. A refutation comes with a counterexample checked in exact "
            rf"arithmetic. {as_intended} of {len(proofs)} theorems reach their intended verdict."
        ),
        r"\tableofcontents",
        "",
    ]
    for p in proofs:
        lines += _theorem(p, numbers.get(p.family))
    lines.append(r"\end{document}")
    return "\n".join(lines) + "\n"
