"""Rendering an audit: terminal text, Markdown (GitHub renders the math), a self-contained HTML page.

Each step is shown as the document wrote it (its LaTeX), with its line, its verdict, the
rewrite that decided it or why it was not decided, and, for a refutation, the counterexample
checked in exact arithmetic. The JSON is :meth:`.steps.AuditResult.to_dict`.

Design constraints: pure functions, data in and text out -- the CLI writes the files. The HTML
page needs no network: inline CSS (the caller passes the report's), math as MathML through
:func:`ropecheck.symbolic.pages.mathlines.latex_to_mathml`, and a step latex2mathml cannot
convert shown as code.
"""

from __future__ import annotations

import html
import re

from ..engine.proof import expr_text
from ..pages.mathlines import latex_to_mathml, rows_latex
from ..pages.render import counterexample_displays, render_counterexample_text
from ..readers.claim import domains_text
from .steps import AUDIT_DEFAULT_DOMAINS, AuditResult, AuditStep

__all__ = ["render_audit_html", "render_audit_markdown", "render_audit_text", "step_text"]

_BADGE = {"PROVED": "✅ PROVED", "REFUTED": "❌ REFUTED", "UNDECIDED": "❔ UNDECIDED", "UNREAD": "⚪ UNREAD"}


def step_text(step: AuditStep) -> str:
    """The step as the document wrote it, on one line (whitespace collapsed)."""
    return re.sub(r"\s+", " ", f"{step.lhs_tex} {step.relation} {step.rhs_tex}").strip()


def _how(step: AuditStep) -> str:
    if step.status == "PROVED":
        how = f"by {step.method}"
        return how + (f"; {step.reason}" if step.reason else "")
    if step.status == "REFUTED":
        return "a counterexample, checked in exact arithmetic" + (f"; {step.reason}" if step.reason else "")
    return step.reason


def _summary(result: AuditResult) -> str:
    """The counts; the decided share is over the steps only (a definition asserts nothing to decide)."""
    if result.nothing_to_decide is not None:
        return result.nothing_to_decide
    c = result.counts()
    parts = ", ".join(f"{c[k]} {k}" for k in ("PROVED", "REFUTED", "UNDECIDED", "UNREAD"))
    decided = f"{100 * (result.decided_fraction or 0):.0f}% decided"
    n, k = len(result.definitions), len(result.steps)
    k_false = sum(1 for d in result.conditions if d.kind == "stated false")
    k_conditions = len(result.conditions) - k_false
    conditions = f"; {k_conditions} condition{'' if k_conditions == 1 else 's'} (not steps)" if k_conditions else ""
    conditions += f"; {k_false} stated false by the text (not steps)" if k_false else ""
    return f"{k} step{'' if k == 1 else 's'}: {parts}; {decided}; {n} definition{'' if n == 1 else 's'}{conditions}"


def _unread_line(result: AuditResult) -> str | None:
    """``UNREAD by reason: 3 unknown LaTeX command \\foo; 2 one side of the step is empty``, or None."""
    found = result.unread_by_reason()
    if not found:
        return None
    return "UNREAD by reason: " + "; ".join(f"{n} {why}" for why, n in found.items())


def _domains_line(result: AuditResult) -> str:
    declared = "; ".join(f"{k} {v}" for k, v in sorted(result.declared.items()))
    defaults = ", ".join(k for k in AUDIT_DEFAULT_DOMAINS if k not in result.declared and k not in result.inferred)
    parts = [f"declared: {declared}"] if declared else []
    if result.inferred:
        names = ", ".join(result.inferred)
        forms = ", ".join(result.inferred.values())
        parts.append(f"{names} complex (inferred from {forms}: a name written conjugated)")
    if defaults:
        parts.append(f"{defaults} integer (positions, by default)")
    parts.append("every other name real")
    return "; ".join(parts)


def _definitions_line(result: AuditResult) -> list[str]:
    out = []
    for d in result.definitions:
        if d.read and d.pattern:
            out.append(f"  line {d.line}: {d.head} := {d.pattern} (written with dots, read as a pattern)")
        elif d.read:
            domain = f", {d.domain}" if d.domain else ""
            out.append(f"  line {d.line}: {d.head} := {expr_text(d.body)}{domain}")
        else:
            out.append(f"  line {d.line}: {d.name} -- not read: {d.reason}")
    for d in result.conditions:
        out.append(f"  line {d.line}: {d.name} {d.relation} {d.tex} -- {d.reason}")
    return out


def render_audit_text(result: AuditResult, *, verbose: bool = False) -> str:
    """The terminal report: one line per step, counterexamples under the refuted ones, a summary."""
    lines = [f"audit of {result.path or 'the document'}", f"  domains: {_domains_line(result)}"]
    if result.definitions or result.conditions:
        lines.append("  definitions:")
        lines += ["  " + x for x in _definitions_line(result)]
    for s in result.steps:
        text = step_text(s)
        shown = text if verbose or len(text) <= 110 else text[:107] + "..."
        lines.append(f"line {s.lines:<7} {s.status:<9} {shown}")
        how = _how(s)
        if how and s.status != "REFUTED":
            lines.append(f"{'':17}{how}")
        if s.counterexample is not None:
            if s.reason:
                lines.append(f"{'':17}{s.reason}")
            lines += [f"{'':15}{x}" for x in render_counterexample_text(s.counterexample)]
        if verbose and s.domains:
            lines.append(f"{'':17}domains: {domains_text(s.domains)}")
    unread = _unread_line(result)
    if unread is not None:
        lines.append(unread)
    lines.append(_summary(result) + f"; {result.seconds:.1f} s")
    return "\n".join(lines) + "\n"


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_audit_markdown(result: AuditResult) -> str:
    """The report as Markdown: a table of every step, then each step in display math with its verdict."""
    out = [
        f"# Audit of `{result.path or 'the document'}`",
        "",
        f"{_summary(result)}.",
        "",
        f"Domains: {_domains_line(result)}.",
        "",
    ]
    unread = _unread_line(result)
    if unread is not None:
        out += [_md_escape(unread) + ".", ""]
    if result.definitions or result.conditions:
        out += ["Definitions carried into later steps:", ""]
        out += [f"- {_md_escape(x.strip())}" for x in _definitions_line(result)]
        out.append("")
    out += ["| step | line | verdict | how |", "|---:|---:|---|---|"]
    for s in result.steps:
        out.append(f"| [{s.number}](#step-{s.number}) | {s.lines} | {_BADGE[s.status]} | {_md_escape(_how(s))} |")
    out.append("")
    for s in result.steps:
        out += [f'<a id="step-{s.number}"></a>', "", f"### Step {s.number}, line {s.lines}: {_BADGE[s.status]}", ""]
        out += ["$$", f"{s.lhs_tex.strip()} {s.relation} {s.rhs_tex.strip()}", "$$", ""]
        how = _how(s)
        if how and s.status != "REFUTED":
            out += [_md_escape(how[:1].upper() + how[1:]) + ".", ""]
        elif s.reason:
            out += [_md_escape(s.reason[:1].upper() + s.reason[1:]) + ".", ""]
        if s.domains:
            out += [f"Domains: {domains_text(s.domains)}.", ""]
        if s.counterexample is not None:
            where = (
                f" (entry {s.counterexample.entry[0]}, {s.counterexample.entry[1]})" if s.counterexample.entry else ""
            )
            out += [f"Counterexample{where}, checked in exact arithmetic:", ""]
            for rows in counterexample_displays(s.counterexample):
                out += ["$$", rows_latex(rows), "$$", ""]
    return "\n".join(out)


def _math_html(tex: str) -> str:
    try:
        return latex_to_mathml(re.sub(r"\s+", " ", tex))
    except Exception:  # latex2mathml cannot convert every construct: the LaTeX itself then
        return f"<pre><code>{html.escape(tex)}</code></pre>"


_AUDIT_CSS = ".UNREAD{color:var(--muted,#6e7781);font-weight:600}.eq{overflow-x:auto}"


def render_audit_html(result: AuditResult, *, css: str = "") -> str:
    """The report as one self-contained HTML page (MathML, inline CSS, no script, no network)."""
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>ropecheck audit: {e(result.path)}</title>",
        f"<style>{css}{_AUDIT_CSS}</style></head><body>",
        f"<h1>Audit of <code>{e(result.path or 'the document')}</code></h1>",
        f"<p><strong>{e(_summary(result))}.</strong></p>",
        f"<p>Domains: {e(_domains_line(result))}.</p>",
    ]
    unread = _unread_line(result)
    if unread is not None:
        parts.append(f"<p>{e(unread)}.</p>")
    if result.definitions or result.conditions:
        parts.append("<details><summary>definitions carried into later steps</summary><ul>")
        parts += [f"<li>{e(x.strip())}</li>" for x in _definitions_line(result)]
        parts.append("</ul></details>")
    parts.append("<table><tr><th>step</th><th>line</th><th>verdict</th><th>the step as written</th><th>how</th></tr>")
    for s in result.steps:
        detail = e(_how(s))
        if s.counterexample is not None:
            cex = "".join(_math_html(rows_latex(rows)) for rows in counterexample_displays(s.counterexample))
            detail += f'<div class="counterexample">{cex}</div>'
        parts.append(
            f'<tr id="step-{s.number}"><td>{s.number}</td><td>{e(s.lines)}</td>'
            f'<td class="{e(s.status)}">{e(s.status)}</td>'
            f'<td><div class="eq">{_math_html(step_text(s))}</div></td><td>{detail}</td></tr>'
        )
    parts.append("</table></body></html>")
    return "\n".join(parts) + "\n"
