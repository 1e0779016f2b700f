"""Rendering proofs: Markdown with LaTeX math (GitHub renders it), MathML, JSON, terminal text.

Design constraints: pure functions, data in and text out -- the CLI writes the files. The
output is deterministic except for the recorded timings. Very long expressions (the
d = 8 matrix steps) are shown in full up to a size GitHub renders comfortably and
summarised beyond it; the JSON keeps everything.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

import sympy

from ...io import VOLATILE_BEGIN, VOLATILE_END
from ...svg import envelope_svg
from ..engine.proof import Counterexample, Proof, Step, Verdict, expr_text
from .mathlines import (
    Rows,
    aligned_latex,
    aligned_mathml,
    equation_rows,
    inline_mathml,
    latex_of,
    latex_to_mathml,
    list_rows,
    rows_latex,
    rows_mathml,
)
from .prose import prose_html, prose_markdown, prose_plain

__all__ = [
    "MAX_LATEX",
    "decay_svg",
    "print_family",
    "render_certificates_markdown",
    "proofs_to_json",
    "render_counterexample_text",
    "counterexample_displays",
    "formula_latex",
    "latex_mathml",
    "render_index_markdown",
    "render_proof_html",
    "render_proof_markdown",
    "render_proof_text",
    "step_mathml",
]

#: Longest LaTeX shown for one side of a step in Markdown.
MAX_LATEX = 2500

_BADGE = {Verdict.PROVED: "✅ PROVED", Verdict.REFUTED: "❌ REFUTED", Verdict.UNDECIDED: "❔ UNDECIDED"}


_RELATION_TEX = {"==": "=", "<=": r"\le"}


def _latex(expr: Any) -> str:
    text = latex_of(expr)
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
        text += " (expected)" if step.as_intended else f" (expected {step.expect.value})"
    return text


def _equation_latex(step: Step) -> str:
    """The step's equation, broken over lines at top-level terms; very long sides are summarised."""
    lhs, rhs = step.shown_sides
    if len(latex_of(lhs)) > MAX_LATEX or len(latex_of(rhs)) > MAX_LATEX:
        return f"{_latex(lhs)} {_RELATION_TEX[step.relation]} {_latex(rhs)}"
    return aligned_latex(lhs, step.relation, rhs)


#: What each rewrite of the decision procedure does, in a sentence (shown under each step).
RULES: dict[str, str] = {
    "identity": "the two sides are the same expression once built",
    "expand": "multiplying out both sides gives the same polynomial",
    "expand_trig": "expanding cos and sin of sums and multiples into products, then multiplying out",
    "expand_complex": "splitting every complex quantity into real and imaginary parts",
    "doit": "evaluating the finite sums and products, then expanding trig functions",
    "peel": "sums whose upper limits differ by an integer are aligned by peeling off their last terms",
    "shift_peel": "sums are shifted to a common index and start, then their upper limits aligned (Karr's "
    "convention makes every move an identity)",
    "pythagoras": "cos^2 + sin^2 = 1 after expanding",
    "trigsimp": "SymPy's trigsimp after expanding",
    "fu": "the Fu et al. trigonometric simplification",
    "exp_form": "powers of positive numbers written as exponentials, and e^{ia} as cos a + i sin a (Euler), "
    "then expanding",
    "cancel": "over one denominator the numerator multiplies out to 0: the sides agree wherever both are defined",
    "power_bases": "a power of a product is the product of the powers, and a power of a power one power, where "
    "the bases are positive (a product may hold one factor of any sign); powers of one base multiply as one power "
    "(x^a x^b = x^{a+b}, principal powers, wherever both sides are defined)",
    "counterexample": "exact values at which the two sides certifiably differ",
    "none": "no rewrite reduced the difference to 0 and no counterexample was found: not a proof",
}


def rule_sentence(method: str) -> str:
    """``decided by `m`: what m does`` for a step's method (entrywise/termwise/nonnegative wrappers too)."""
    inner = method
    prefix = ""
    wrappers = (("entrywise(", "entry by entry, "), ("termwise(", "term by term, "),
                ("nonnegative(", "the slack is manifestly nonnegative after "))  # fmt: skip
    unwrapped = True
    while unwrapped:
        unwrapped = False
        for wrapper, words in wrappers:
            if inner.startswith(wrapper) and inner.endswith(")"):
                inner, prefix, unwrapped = inner[len(wrapper) : -1], prefix + words, True
    base = inner.split(" ")[0]
    explanation = RULES.get(base)
    return f"decided by `{method}`" + (f": {prefix}{explanation}." if explanation else ".")


def counterexample_displays(cex: Counterexample) -> list[Rows]:
    """A counterexample as displayed equations (rows broken to the page width): the values, the
    two sides at those values, their exact difference and its size."""
    left, right = sympy.Symbol(r"\text{left}"), sympy.Symbol(r"\text{right}")
    difference = sympy.Symbol(r"\text{left} - \text{right}")
    return [
        list_rows([f"{latex_of(k)} = {latex_of(v)}" for k, v in cex.values.items()]),
        equation_rows(left, "==", cex.lhs),
        equation_rows(right, "==", cex.rhs),
        equation_rows(difference, "==", cex.difference),
        [("", rf"\text{{left}} - \text{{right}} \approx {cex.approx} \ne 0")],
    ]


def _counterexample_where(cex: Counterexample) -> str:
    return f" (entry {cex.entry[0]}, {cex.entry[1]})" if cex.entry is not None else ""


def _counterexample_md(cex: Counterexample) -> list[str]:
    lines = [f"Counterexample{_counterexample_where(cex)}, checked in exact arithmetic:", ""]
    for rows in counterexample_displays(cex):
        lines += ["$$", rows_latex(rows), "$$", ""]
    return lines


def render_proof_markdown(
    proof: Proof,
    *,
    number: int | None = None,
    timings: bool = True,
    certificates: Sequence[dict[str, Any]] = (),
) -> str:
    """One theorem as a Markdown page for people: the statement in rendered math, its assumptions,
    then the derivation, each step an aligned equation with the rule that decided it.

    ``number`` is the theorem's family number; the heading shows :meth:`Proof.number` ("1a").
    ``timings=False`` leaves the times out, for pages that must be identical run to run.
    ``certificates`` is :func:`ropecheck.symbolic.coq.certify.certificate_index`: the Coq theorems
    that mirror this one are shown beside its statement, with their file's place in the project
    (a path, not a link relative to the page: the page is the same in every output folder).
    """
    head = _heading(proof, number)
    lines = [
        f"# {head}{proof.title}",
        "",
        f"**{_BADGE[proof.verdict]}**"
        + ("" if proof.as_intended else " — **not as intended**")
        + f" · `{proof.name}` (family `{proof.family}`)"
        + (f" · {proof.seconds:.3f} s" if timings else ""),
        "",
    ]
    if proof.formula:
        lines += ["$$", formula_latex(proof), "$$", ""]
    lines += [f"**Statement.** {prose_markdown(proof.statement)}", ""]
    if proof.assumptions:
        lines += ["**Assumptions.**", ""] + [f"- ${a}$" for a in proof.assumptions] + [""]
    lines += [
        "## Derivation",
        "",
        "| # | step | verdict | rule |" + (" time (s) |" if timings else ""),
        "|---|---|---|---|" + ("---|" if timings else ""),
    ]
    for i, s in enumerate(proof.steps, 1):
        lines.append(
            f"| {i} | [`{s.name}`](#step-{i}-{s.name.replace('_', '-')}) | {_verdict_text(s)} | `{s.method}` |"
            + (f" {s.seconds:.3f} |" if timings else "")
        )
    lines.append("")
    for i, s in enumerate(proof.steps, 1):
        lines += [
            f"### Step {i}: {s.name.replace('_', '-')}",
            "",
            prose_markdown(s.statement),
            "",
            "$$",
            _equation_latex(s),
            "$$",
            "",
            f"{_verdict_text(s)} — {rule_sentence(s.method)}",
            "",
        ]
        if s.counterexample is not None:
            lines += _counterexample_md(s.counterexample)
    if proof.notes:
        lines += ["## Notes", ""] + [f"- {prose_markdown(n)}" for n in proof.notes] + [""]
    lines += _certificate_md(proof, certificates)
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


def _heading(proof: Proof, number: int | None) -> str:
    """``"Theorem 1a: "`` (the number :meth:`Proof.number` gives), or "" without a family number."""
    label = proof.number(number)
    return f"Theorem {label}: " if label else ""


def formula_latex(proof: Proof) -> str:
    """The theorem's statement as one LaTeX display: its lines centred under each other (``gathered``)."""
    rows = [line.strip() for line in proof.formula.split("\n") if line.strip()]
    if len(rows) <= 1:
        return rows[0] if rows else ""
    return "\\begin{gathered}\n" + " \\\\\n".join(rows) + "\n\\end{gathered}"


def latex_mathml(tex: str, *, display: bool = True) -> str:
    """A LaTeX formula written by hand (one line) as MathML, for the statements and assumptions."""
    return latex_to_mathml(tex, display=display)


def _top_level_pieces(tex: str) -> list[tuple[str, str]]:
    """``tex`` as ("text", words) and ("math", LaTeX) pieces: ``\\text{...}`` and the separators
    ``,\\ `` and ``;\\ `` at brace depth 0 end a piece, so a browser may wrap between pieces."""
    pieces: list[tuple[str, str]] = []
    depth, start, i = 0, 0, 0
    while i < len(tex):
        if tex.startswith("\\\\", i):  # a row break inside an environment
            i += 2
            continue
        if tex.startswith("\\begin{", i) or tex.startswith("\\end{", i):
            depth += 1 if tex[i + 1] == "b" else -1
            i += 4
            continue
        if tex[i] == "{":
            depth += 1
        elif tex[i] == "}":
            depth -= 1
        elif depth == 0 and tex.startswith("\\text{", i):
            end, level = i + 6, 1
            while end < len(tex) and level:
                level += {"{": 1, "}": -1}.get(tex[end], 0)
                end += 1
            pieces += [("math", tex[start:i]), ("text", tex[i + 6 : end - 1])]
            start = i = end
            continue
        elif depth == 0 and tex.startswith(("\\ ", ",\\ ", ";\\ "), i):
            size = 2 if tex[i] == "\\" else 3
            pieces += [("math", tex[start:i]), ("text", "" if size == 2 else tex[i] + " ")]
            start = i = i + size
            continue
        i += 1
    pieces.append(("math", tex[start:]))
    return [(kind, text) for kind, text in pieces if text.strip() or (kind == "text" and text)]


def _mixed_html(tex: str) -> str:
    """Hand-written LaTeX as HTML text and inline MathML pieces (wrapping between pieces)."""
    out = []
    for kind, text in _top_level_pieces(tex):
        if kind == "text":
            out.append(html.escape(text))
        else:
            out.append(inline_mathml(text.strip()))
    return "".join(out)


def _counterexample_html(cex: Counterexample) -> list[str]:
    where = html.escape(_counterexample_where(cex))
    parts = [f'<div class="counterexample"><p>Counterexample{where}, checked in exact arithmetic:</p>']
    parts += [f'<div class="eq">{rows_mathml(rows)}</div>' for rows in counterexample_displays(cex)]
    return [*parts, "</div>"]


def render_proof_html(proof: Proof, *, number: int | None = None) -> str:
    """One theorem as an HTML fragment for the self-contained report: the statement as MathML, the
    assumptions, each step as an aligned equation (MathML ``mtable``) with its verdict and rule, and
    every counterexample. The same content as :func:`render_proof_markdown`, without timings."""
    e = html.escape
    head = _heading(proof, number)
    parts = [
        f'<div class="proof"><p class="badge"><b>{e(head + proof.title)}</b> — '
        f'<span class="{proof.verdict.value}">{e(_BADGE[proof.verdict])}</span>'
        + ("" if proof.as_intended else " <b>not as intended</b>")
        + f" · <code>{e(proof.name)}</code></p>"
    ]
    rows = [line.strip() for line in proof.formula.split("\n") if line.strip()]
    parts += [f'<div class="eq">{latex_mathml(row)}</div>' for row in rows]
    parts.append(f"<p><b>Statement.</b> {prose_html(proof.statement)}</p>")
    if proof.assumptions:
        parts.append("<p><b>Assumptions.</b></p><ul>")
        parts += [f"<li>{_mixed_html(a)}</li>" for a in proof.assumptions]
        parts.append("</ul>")
    parts.append("<p><b>Derivation.</b></p>")
    for i, s in enumerate(proof.steps, 1):
        expected = s.expect != Verdict.PROVED
        parts.append(f'<div class="step"><p><b>Step {i}</b> <code>{e(s.name)}</code>: {prose_html(s.statement)}</p>')
        lhs, rhs = s.shown_sides
        if len(latex_of(lhs)) > MAX_LATEX or len(latex_of(rhs)) > MAX_LATEX:
            parts.append(f'<p class="eq">{e(_latex(lhs))} = {e(_latex(rhs))} (in full in the JSON)</p>')
        else:
            parts.append(f'<div class="eq">{step_mathml(s)}</div>')
        cls = s.verdict.value + (" expected" if expected and s.as_intended else "")
        parts.append(f'<p><span class="{cls}">{e(_verdict_text(s))}</span> — {prose_html(rule_sentence(s.method))}</p>')
        if s.counterexample is not None:
            parts += _counterexample_html(s.counterexample)
        parts.append("</div>")
    if proof.notes:
        parts.append("<p><b>Notes.</b></p><ul>" + "".join(f"<li>{prose_html(n)}</li>" for n in proof.notes) + "</ul>")
    parts.append("</div>")
    return "\n".join(parts)


def _certificate_md(proof: Proof, certificates: Sequence[dict[str, Any]]) -> list[str]:
    """The Coq theorems that mirror ``proof``, statement by statement, or why there is none."""
    if not certificates:
        return []
    twins = [
        (entry["file"], t) for entry in certificates for t in entry["theorems"] if t["sympy_theorem"] == proof.name
    ]
    lines = ["## Coq certificate", ""]
    if not twins:
        lines += [
            f"No Coq certificate: `{proof.name}` is checked by SymPy only (see "
            "[the certificates](certificates.md) for which theorems have one).",
            "",
        ]
        return lines
    files = {file for file, _ in twins}
    covers = sorted({str(e.get("covers") or "") for e in certificates if e["file"] in files} - {""})
    checked = (
        "(checked by `coqc`, standard library only; whether this machine checked it is on "
        "[the certificates page](certificates.md))"
    )
    opening = (
        f"Part of the theorem is stated and proved in Coq {checked}: {'; '.join(covers)}. Compare the statements:"
        if covers
        else f"The same theorem stated and proved in Coq {checked}. Compare the statements:"
    )
    lines += [opening, ""]
    for file, t in twins:  # where the file is in the project, so it reads the same in every output folder
        lines += [f"`{t['name']}` in `proofs/coq/{file}` (installed as `ropecheck/proofs/coq/{file}`):", "", "```coq"]
        lines += [str(t["coq_statement"] or "(statement not found in the file)"), "```", ""]
    return lines


def render_certificates_markdown(
    results: Sequence[Any],
    index: Sequence[dict[str, Any]],
    *,
    families: Sequence[str],
    timings: bool = True,
    coq_href: str = "../../proofs/coq",
) -> str:
    """The certificates page: per Coq file its verdict, the SymPy theorems it mirrors, and why not if not.

    ``results`` are :class:`~ropecheck.symbolic.coq.certify.CertificateResult`; the coqc times sit
    in the volatile block (``timings=False`` leaves them out). ``coq_href`` is the Coq folder
    relative to the folder the page is written to (the default fits ``reports/proofs/``).
    """
    by_file = {r.file.name: r for r in results}
    covered = {f for entry in index for f in entry["families"]}
    version = next((r.coqc_version for r in results if r.coqc_version), None)
    lines = [
        "# Coq certificates",
        "",
        "CERTIFIED means: `coqc` compiled the file, nothing in it is admitted (`Admitted`, `admit`), it "
        "declares no axiom, and `Print Assumptions` of every main theorem lists only the axioms Coq's "
        "standard real numbers rest on. It does **not** mean the Coq statement is the SymPy one: each "
        "theorem page shows the two side by side for a reader to compare.",
        "",
        f"Checked with coqc {version}."
        if version
        else "**Not checked on this machine**: coqc is not installed (Debian: `apt-get install coq`).",
        "",
        "| certificate | verdict | mirrors (SymPy) | why not certified |",
        "|---|---|---|---|",
    ]
    for entry in index:
        r = by_file.get(entry["file"])
        verdict = r.status.value if r is not None else "NOT_CHECKED"
        mirrors = ", ".join(sorted({f"`{t['sympy_theorem']}`" for t in entry["theorems"]}))
        why = "; ".join(r.reasons) if r is not None and r.reasons else ""
        if r is not None and r.error_line is not None:
            why = f"{entry['file']}:{r.error_line}: {r.error_message}" + (f"; {why}" if why else "")
        link = f"[`{entry['file']}`]({coq_href.rstrip('/')}/{entry['file']})"
        if entry.get("covers"):
            mirrors += f" (part: {entry['covers']})"
        lines.append(f"| {link} | {verdict} | {mirrors} | {why.replace('|', '/')} |")
    lines += ["", "Families with no certificate (SymPy only): "
              + ", ".join(f"`{f}`" for f in families if f not in covered) + ".", ""]  # fmt: skip
    if timings and results:
        lines += [VOLATILE_BEGIN, "", "| certificate | coqc (s) |", "|---|---:|"]
        lines += [f"| `{r.file.name}` | {r.seconds:.1f} |" for r in results]
        lines += ["", VOLATILE_END, ""]
    return "\n".join(lines)


def _decay_md(curve: dict[str, Any]) -> list[str]:
    """The measured curve's section: its plot, the figures the code measured, band means, sample values."""
    got, bands = curve["measured"], curve["bands"]
    v0 = curve["points"][0][1]
    if got["steps_up"]:
        shape = (
            f"decays on average, **not** monotonically: {got['steps_up']:,} of the {got['steps']:,} steps from "
            f"r to r + 1 go up (the first at r = {got['first_rise']:,})"
        )
    else:
        shape = f"decreases at each of the {got['steps']:,} steps from r to r + 1"
    lines = [
        f"## Decay curve (measured, not proved; base {curve['base']}, d = {curve['d']})",
        "",
        "![(1/(d/2)) Σ_j |S_j| against relative distance, min to max per bin](decay.svg)",
        "",
        (
            f"**Measured** (fp64, at every integer distance r = 0 … {got['distances'] - 1:,}; numbers, not part of "
            f"the proof). The curve (1/(d/2)) Σ_j |S_j| {shape}. Past r = {got['far']:,} (where it is "
            f"{got['value_at_far']:.4f}) its largest value is {got['max_past_far']:.4f}, at r = "
            f"{got['argmax_past_far']:,}, and its smallest {got['min_past_far']:.4f}, at r = "
            f"{got['argmin_past_far']:,}; at r = 0 it is {v0:.4f}."
        ),
        "",
        (
            f"The plot shows, in each of {len(curve['envelope'])} log-spaced bins of r ≥ 1, the smallest to the "
            "largest value over every integer r in the bin, so no excursion is hidden (r = 0 is off the log axis)."
        ),
        "",
        "Mean of (1/(d/2)) Σ_j |S_j| over bands of relative distance:",
        "",
        "| relative distance | mean |",
        "|---|---|",
    ]
    lines += [f"| {b['from']}–{b['to']} | {b['mean']:.4f} |" for b in bands]
    rise = next((k for k in range(1, len(bands)) if bands[k]["mean"] >= bands[k - 1]["mean"]), None)
    if rise is None:
        lines += ["", "The band means decrease with distance."]
    else:
        a, b = bands[rise - 1], bands[rise]
        lines += [
            "",
            f"The band means decrease up to r = {a['to']:,}; the band {b['from']:,}–{b['to']:,} has a mean "
            f"({b['mean']:.4f}) no smaller than the band before it ({a['mean']:.4f}).",
        ]
    lines += ["", "| r | value |", "|---|---|"]
    lines += [f"| {r:,} | {v:.4f} |" for r, v in curve["points"]]
    return lines + [""]


def render_index_markdown(
    proofs: Sequence[Proof],
    *,
    numbers: dict[str, int] | None = None,
    total_seconds: float | None = None,
    timings: bool = False,
) -> str:
    """The summary page: one row per theorem with its verdict; with ``timings``, the times in a volatile block.

    The page written to a folder (``prove --out``, ``reports/proofs/index.md``) holds no times,
    so it is the same on every run and every machine (the times are printed, and in ``--json``);
    ``timings=True`` adds them between the volatile-block markers (see :mod:`ropecheck.io`).
    """
    numbers = numbers or {}
    ok = all(p.as_intended for p in proofs)
    lines = [
        "# ropecheck proofs",
        "",
        _index_preamble(proofs),
        "",
        f"**{sum(p.as_intended for p in proofs)} of {len(proofs)} theorems as intended.**",
        "",
        "| # | theorem | family | verdict | intended refutations |",
        "|---|---|---|---|---|",
    ]
    for p in proofs:
        num = p.number(numbers.get(p.family))
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


def _index_preamble(proofs: Sequence[Proof]) -> str:
    """What every step is, true of the theorems listed: equalities, and inequalities where a theorem has them."""
    with_inequalities = [p.name for p in proofs if any(s.relation != "==" for s in p.steps)]
    if not with_inequalities:
        kind = "Every step is an equality that SymPy decides exactly by a targeted rewrite"
    else:
        kind = (
            "Every step is an equality or an inequality that SymPy decides exactly by a targeted rewrite (an "
            "inequality is proved only when a rewrite makes its slack manifestly nonnegative; inequality steps "
            f"appear in {', '.join(f'`{n}`' for n in with_inequalities)})"
        )
    rest = "numbers never count as proof. A refutation comes with a counterexample checked in exact arithmetic."
    return f"{kind}; {rest}"


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
    lines = [
        f"{proof.verdict.value:<9} {proof.name}: {proof.title} ({proof.seconds:.3f} s)",
        f"  {prose_plain(proof.statement)}",
    ]
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
    """A step as presentation MathML (``lhs = rhs``, broken over lines at its terms), for the HTML report."""
    lhs, rhs = step.shown_sides
    return aligned_mathml(lhs, step.relation, rhs)


def proofs_to_json(proofs: Sequence[Proof], *, total_seconds: float | None = None) -> dict[str, Any]:
    """A JSON-ready summary plus every proof in full."""
    return {
        "as_intended": all(p.as_intended for p in proofs),
        "total_seconds": None if total_seconds is None else round(total_seconds, 6),
        "theorems": [p.to_dict() for p in proofs],
    }


def decay_svg(curve: dict[str, Any]) -> str:
    """The decay curve (1/(d/2)) sum_j |S_j| against relative distance, as SVG text: its min/max per bin."""
    far = curve["measured"]["far"]
    return envelope_svg(
        curve["envelope"],
        label=f"base {curve['base']}, d = {curve['d']}: min to max per bin, every integer r",
        title="The RoPE decay bound, measured (fp64)",
        xlabel="relative distance |m - n| (r ≥ 1)",
        ylabel="(1/(d/2)) Σ_j |S_j|",
        logx=True,
        vlines=[(f"r = {far}", far)],
    )


def print_family(builders: Sequence[Callable[[], Proof]]) -> int:
    """Run theorem builders, print each proof's steps (what ``python proofs/<family>.py`` shows); the exit code."""
    proofs = [build() for build in builders]
    for proof in proofs:
        print(render_proof_text(proof))
    return 0 if all(p.as_intended for p in proofs) else 1
