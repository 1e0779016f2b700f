"""The proof pages: breaks only where allowed, one number per page, Coq files found from any folder."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sympy

from ropecheck.cli.main import main
from ropecheck.cli.prove import coq_href
from ropecheck.proofs import run_proofs
from ropecheck.symbolic.pages.mathlines import aligned_latex, break_violations
from ropecheck.symbolic.pages.render import render_index_markdown

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "reports" / "proofs"

# what the pages once held: a cos argument broken inside a matrix cell
BROKEN_CELL = (
    r"\begin{aligned} & x \\ = {} & \left[\begin{matrix}\begin{array}{l} \cos\Big(\theta \\ \quad \left(- m + n\right)"
    r"\Big) \end{array} & 0 \\ 0 & 1\end{matrix}\right] \end{aligned}"
)
BROKEN_ARGUMENT = r"\begin{aligned} & \cos\Big(a + b \\ & \quad + c\Big) = 1 \end{aligned}"


def _displays(text: str) -> list[str]:
    return re.findall(r"\$\$\n(.*?)\n\$\$", text, re.S) + re.findall(r"\\\[\n(.*?)\n\\\]", text, re.S)


@pytest.mark.parametrize("tex", [BROKEN_CELL, BROKEN_ARGUMENT], ids=["matrix-cell", "cos-argument"])
def test_a_break_in_the_wrong_place_is_caught(tex: str) -> None:
    assert break_violations(tex)


def test_breaks_between_terms_are_allowed() -> None:
    a, b, c = sympy.symbols("a b c", real=True)
    expr = sum(sympy.cos(a * k + b) * sympy.sin(c * k) for k in range(1, 9))
    tex = aligned_latex(expr, "==", expr.expand())
    assert "\\\\" in tex and break_violations(tex) == []


def test_a_wide_matrix_is_shown_entry_by_entry_with_whole_cells() -> None:
    m, n, t = sympy.symbols("m n theta", real=True)
    wide = sympy.Matrix([[sympy.cos(t * (n - m)) + sympy.sin(m * t) * sympy.sin(n * t) * m] * 2] * 2)
    tex = aligned_latex(wide, "==", wide)
    assert "array" not in tex and break_violations(tex) == []


def test_the_committed_pages_break_only_between_top_level_terms() -> None:
    found = {}
    for page in [*sorted(PAGES.glob("*.md")), PAGES / "proofs.tex"]:
        for tex in _displays(page.read_text()):
            if break_violations(tex):
                found[page.name] = break_violations(tex)
    assert not found, found


def test_every_page_has_its_own_number_everywhere() -> None:
    index = (PAGES / "index.md").read_text()
    rows = re.findall(r"^\| (\w+) \| \[[^]]+\]\((\w+)\.md\)", index, re.M)
    numbers = [num for num, _ in rows]
    assert len(numbers) == len(set(numbers)), numbers
    tex = (PAGES / "proofs.tex").read_text()
    for num, name in rows:
        assert (PAGES / f"{name}.md").read_text().startswith(f"# Theorem {num}: ")
        assert f"Theorem {num}:" in tex
    assert {"1a", "1b", "2", "2a"} <= set(numbers)


def test_the_index_says_what_kind_of_step_there_is() -> None:
    proofs = run_proofs(["relative_position", "long_term_decay"])
    assert "equality or an inequality" in render_index_markdown(proofs)
    assert "inequality" not in render_index_markdown(proofs[:1])


def test_forms_and_layouts_show_the_whole_vector_definitions() -> None:
    by_name = {p.name: p for p in run_proofs(["forms", "layouts"])}
    steps = {s.name: s for p in by_name.values() for s in p.steps}
    for name in ("pair_half_elementwise_matrix", "pair_interleaved_elementwise_matrix", "conjugate_first"):
        step = steps[name]
        lhs = sympy.latex(step.lhs)
        assert step.method.endswith("doit") or step.method == "entrywise(doit)", step.method
        assert sympy.latex(step.lhs) != sympy.latex(step.rhs)
        assert "rotate" in lhs and ("cat" in lhs or "repeat" in lhs), lhs


def test_coq_folder_is_found_from_any_output_folder(tmp_path: Path) -> None:
    out = tmp_path / "deep" / "er" / "proofs"
    out.mkdir(parents=True)
    assert (out / coq_href(out) / "layouts.v").is_file()
    assert coq_href(PAGES) == "../../proofs/coq"


@pytest.mark.slow
def test_pages_written_elsewhere_have_no_broken_coq_links(tmp_path: Path) -> None:
    out = tmp_path / "a" / "b"
    assert main(["prove", "layouts", "--out", str(out)]) == 0
    page = (out / "layouts_agree.md").read_text()
    assert "`proofs/coq/layouts.v`" in page
    for target in re.findall(r"\]\(([^)#]+)\)", page):
        if target.endswith(".v"):
            assert (out / target).is_file(), target
