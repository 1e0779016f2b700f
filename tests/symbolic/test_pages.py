"""Proof pages for people: equations broken to the page width, the HTML page, the LaTeX document."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import sympy
from sympy import Matrix, Sum, cos, sin, symbols

from ropecheck.proofs.context_extension import context_extension
from ropecheck.proofs.relative_position import rotation_2d
from ropecheck.symbolic import render_proof_html, render_proof_markdown
from ropecheck.symbolic.pages.latexdoc import render_proofs_latex, tex_escape
from ropecheck.symbolic.pages.mathlines import (
    LINE_WIDTH,
    aligned_latex,
    aligned_mathml,
    equation_rows,
    expression_lines,
    latex_to_mathml,
    visual_length,
)

a, b, m, n, x = symbols("a b m n x", real=True)
i, h = symbols("i h", integer=True)


def _long_sum() -> sympy.Expr:
    return sum(cos(k * a) * sin(k * b) * x**k for k in range(1, 9))


def test_visual_length_counts_glyphs_not_markup() -> None:
    assert visual_length(r"\theta") == 1
    assert visual_length(r"\cos{\left(a \right)}") == len("cos(a)")
    assert visual_length(r"\frac{a + b}{c}") == visual_length("a + b")  # the wider part of a fraction
    assert visual_length("a + b") == 3 + 2  # three glyphs; a binary operator is spaced on both sides


def test_a_long_sum_breaks_before_its_terms_and_every_line_fits() -> None:
    expr = _long_sum()
    lines = expression_lines(expr)
    assert len(lines) > 2
    assert all(visual_length(line) <= LINE_WIDTH for line in lines)
    assert all(line.lstrip().startswith(("+", "-")) for line in lines[1:])
    # the lines, read in order, are the expression: nothing dropped or reordered
    joined = " ".join(lines)
    assert joined.replace(" ", "") == sympy.latex(expr).replace(" ", "")


def test_a_short_equation_stays_on_one_line() -> None:
    assert aligned_latex(a, "==", b) == "a = b"
    assert aligned_latex(a, "<=", b) == r"a \le b"
    assert aligned_mathml(a, "==", b).startswith('<math display="block">')


def test_a_long_equation_is_an_aligned_chain_in_latex_and_an_mtable_in_mathml() -> None:
    lhs, rhs = _long_sum(), sympy.expand(_long_sum() * 2) / 2
    tex = aligned_latex(lhs, "==", rhs)
    assert tex.startswith("\\begin{aligned}") and tex.count("\\\\") >= 3
    assert "= {} & " in tex  # the relation heads the right side's first line
    mml = aligned_mathml(lhs, "==", rhs)
    assert mml.count("<mtr>") == tex.count("\\\\") + 1


def test_products_of_long_sums_break_between_and_inside_the_factors() -> None:
    factor = sum(cos(k * a) * x**k for k in range(1, 6))
    lines = expression_lines(factor * factor.subs(a, b))
    assert any(r"\Big(" in line for line in lines) and all(visual_length(line) <= LINE_WIDTH for line in lines)


def test_a_long_sum_body_breaks_inside_the_sigma() -> None:
    body = sum(cos(k * i * a) * x**k for k in range(1, 7))
    lines = expression_lines(Sum(body, (i, 0, h - 1)))
    assert lines[0].startswith(r"\sum_{i=0}^{h - 1} \Big(") and lines[-1].endswith(r"\Big)")
    assert all(visual_length(line) <= LINE_WIDTH for line in lines)


def test_a_block_diagonal_matrix_prints_as_diag_of_its_blocks() -> None:
    def rot(t: sympy.Expr) -> Matrix:
        return Matrix([[cos(t), -sin(t)], [sin(t), cos(t)]])

    big = sympy.diag(rot(m * a), rot(m * b), rot(m * x), rot(m * n))
    text = " ".join(expression_lines(big))
    assert text.startswith(r"\operatorname{diag}\Big(") and text.count(r"\begin{matrix}") == 4


def test_a_matrix_too_wide_for_the_page_is_shown_entry_by_entry() -> None:
    lhs = Matrix([[cos(a) * cos(b) - sin(a) * sin(b), -sin(a) * cos(b) - cos(a) * sin(b)], [0, 1]])
    rhs = Matrix([[cos(a + b), -sin(a + b)], [0, 1]])
    rows = equation_rows(lhs, "==", rhs)
    text = " ".join(r for _, r in rows)
    assert r"\text{entry } (1, 1)" in text and r"\text{entry } (1, 2)" in text
    assert r"\text{entry } (2, 2)" in text and "the other 1 entries" in text
    assert all(visual_length(r) <= LINE_WIDTH for _, r in rows)


def test_a_layout_that_ignores_the_width_is_caught() -> None:
    """Broken input: the same long sum set on one line exceeds the width the tests hold lines to."""
    assert visual_length(sympy.latex(_long_sum())) > LINE_WIDTH
    assert len(expression_lines(_long_sum(), width=10_000)) == 1


def test_html_page_has_the_statement_assumptions_steps_rules_and_counterexamples() -> None:
    page = render_proof_html(context_extension(), number=7)
    assert page.count('<div class="step">') == len(context_extension().steps)
    assert "<b>Assumptions.</b>" in page and "<li>" in page
    assert "REFUTED (expected)" in page and "Counterexample" in page
    assert "decided by <code>" in page and "`" not in re.sub(r"<[^>]+>", "", page)  # no literal backticks
    assert "\\" not in re.sub(r"<[^>]+>", "", page).replace("\\\\", "")  # every LaTeX command was converted


def test_markdown_page_has_formula_assumptions_and_rules() -> None:
    proof = rotation_2d()
    md = render_proof_markdown(proof, number=1)
    assert "**Assumptions.**" in md and "## Derivation" in md
    assert md.count("decided by `") == len(proof.steps)
    assert "\\begin{gathered}" in md  # the two-line statement


def test_latex_escape_keeps_math_and_escapes_the_rest() -> None:
    assert tex_escape("keys at $L' \\ne L$ & 50% of `head_dim`") == (
        r"keys at $L' \ne L$ \& 50\% of \texttt{head\_dim}"
    )


PDFLATEX = shutil.which("pdflatex")


def _pdflatex(tex: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    (tmp_path / "doc.tex").write_text(tex)
    return subprocess.run(
        [PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],  # type: ignore[list-item]
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.skipif(PDFLATEX is None, reason="pdflatex is not installed (Debian package texlive-latex-base)")
def test_the_latex_document_compiles_with_pdflatex(tmp_path: Path) -> None:
    tex = render_proofs_latex([rotation_2d(), context_extension()], numbers={"relative_position": 1})
    res = _pdflatex(tex, tmp_path)
    assert res.returncode == 0 and (tmp_path / "doc.pdf").stat().st_size > 10_000, res.stdout[-3000:]
    # broken input: an unknown control sequence in a step makes pdflatex fail, so the check can fail
    res = _pdflatex(tex.replace(r"\begin{aligned}", r"\begin{aligned}\notacommand", 1), tmp_path)
    assert res.returncode != 0 and "Undefined control sequence" in res.stdout


def test_latex_to_mathml_is_mathml_core() -> None:
    markup = latex_to_mathml(r"\left\langle q, k \right\rangle = \overline{z}")
    assert markup.startswith('<math display="block">') and "menclose" not in markup and "\\" not in markup


@pytest.mark.skipif(PDFLATEX is None, reason="pdflatex is not installed (Debian package texlive-latex-base)")
def test_the_committed_proofs_tex_compiles(tmp_path: Path) -> None:
    committed = Path(__file__).resolve().parents[2] / "reports" / "proofs" / "proofs.tex"
    res = _pdflatex(committed.read_text(), tmp_path)
    assert res.returncode == 0, res.stdout[-3000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 50_000
