"""``audit_document``: derivations in Markdown and LaTeX, planted errors refuted at their lines, correct steps never.

The documents are ``tests/fixtures/audit/``: RoPE derivations in several styles, each with
planted errors, and their correct twins; ``expected.json`` lists the planted lines (the
documents do not mark them).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
import sympy

from ropecheck.symbolic.audit.document import chains, math_blocks
from ropecheck.symbolic.audit.run import audit_document
from ropecheck.symbolic.audit.steps import AuditResult
from ropecheck.symbolic.readers import latex_syntax, latex_tree
from ropecheck.symbolic.readers.sympy_syntax import inner_product

AUDIT = Path(__file__).resolve().parents[1] / "fixtures" / "audit"
EXPECTED = json.loads((AUDIT / "expected.json").read_text())["documents"]
PLANTED = sorted(EXPECTED)
# generous: the bound is the safety net, not what is tested; every step here decides in well under a second
TIMEOUT = 30.0


@functools.cache
def audited(name: str) -> AuditResult:
    path = AUDIT / name
    return audit_document(path.read_text(), path=name, timeout=TIMEOUT)


def test_the_fixtures_are_what_the_sidecar_says() -> None:
    assert len(PLANTED) >= 4 and any(n.endswith(".tex") for n in PLANTED)
    kinds = " ".join(p["kind"] for d in EXPECTED.values() for p in d["planted"])
    for kind in ("sign flip", "R_{m-n} for R_{n-m}", "wrong index in the rotate_half vector", "off-by-one theta"):
        assert kind in kinds
    for name, d in EXPECTED.items():  # a twin differs from its document exactly at the planted lines
        a = (AUDIT / name).read_text().split("\n")
        b = (AUDIT / d["twin"]).read_text().split("\n")
        assert len(a) == len(b)
        assert {i + 1 for i, (x, y) in enumerate(zip(a, b)) if x != y} == {p["line"] for p in d["planted"]}


@pytest.mark.parametrize("name", PLANTED)
def test_planted_errors_are_refuted_and_correct_steps_never(name: str) -> None:
    """One document and its twin: each planted error REFUTED at its line, nothing else REFUTED, most decided."""
    result, twin = audited(name), audited(EXPECTED[name]["twin"])
    refuted = [s for s in result.steps if s.status == "REFUTED"]
    table = [(s.lines, s.status, s.reason) for s in result.steps]
    for p in EXPECTED[name]["planted"]:
        hits = [s for s in refuted if s.line <= p["line"] <= max(s.end_line, s.line)]
        assert hits, f"{name}: planted {p['kind']} at line {p['line']} not refuted: {table}"
    planted_lines = {p["line"] for p in EXPECTED[name]["planted"]}
    for s in refuted:  # nothing else: every refuted step holds a planted error
        assert any(s.line <= x <= max(s.end_line, s.line) for x in planted_lines), (name, s.lines, s.lhs_tex)
    assert result.exit_code == 1
    # the twin, the same document without the errors: no step refuted, the same steps and definitions
    assert [(s.lines, s.reason) for s in twin.steps if s.status == "REFUTED"] == []
    assert twin.exit_code == 0
    assert [s.line for s in result.steps] == [s.line for s in twin.steps]
    assert [d.name for d in result.definitions] == [d.name for d in twin.definitions]
    if name == "general_d.md":  # its twin is written in dotted general-d notation: every step proved for every size
        assert [s.status for s in twin.steps] == ["PROVED"] * len(twin.steps)
        # (or for every matrix: (R_m x)^T (R_n y) = x^T R_m^T R_n y holds whatever R and y are)
        assert all("for every size" in s.reason or "for every matrix" in s.reason for s in twin.steps)
    # most steps are decided, in each document (so over all of them too)
    for r in (result, twin):
        decided = sum(s.decided for s in r.steps)
        assert len(r.steps) >= 8 and decided / len(r.steps) >= 0.70, f"{r.path}: {decided} of {len(r.steps)}"
    # each counterexample, independently of its certificate: the two sides as read differ at the values
    for s in refuted:
        cex = s.counterexample
        assert cex is not None
        lhs, rhs = (s.lhs[cex.entry], s.rhs[cex.entry]) if cex.entry is not None else (s.lhs, s.rhs)
        diff = (lhs - rhs).xreplace(cex.values).doit().xreplace(cex.values)
        assert abs(complex(sympy.N(diff, 40))) > 1e-12
    data = result.to_dict()
    assert data["schema"] == "ropecheck-audit/1" and data["counts"]["REFUTED"] == len(refuted)
    assert all(x["counterexample"]["values"] and x["read_as"] for x in data["steps"] if x["status"] == "REFUTED")
    json.dumps(data)


def test_domains_are_stated_per_step() -> None:
    doc = "Let $q, k \\in \\mathbb{C}$.\n\n$$p = a + i b$$\n\n$$\\Re[q \\bar{k} e^{i m\\theta}] = \\Re[p] = a$$\n"
    result = audit_document(doc, timeout=TIMEOUT)
    assert result.declared == {"q": "complex", "k": "complex"}
    assert result.definitions[0].domain == "complex"
    step = result.steps[0]
    assert {"symbol": "m", "domain": "integer", "source": "default"} in step.domains
    assert {"symbol": "q", "domain": "complex", "source": "declared"} in step.domains
    assert result.to_dict()["default_domains"] == {"m": "integer", "n": "integer"}


# --------------------------------------------------------------------------- reading documents


def _chains(text: str, latex: bool = False) -> list[list[tuple[int, str, str]]]:
    blocks, lines = math_blocks(text, latex=latex)
    return [
        [(link.line, link.relation, link.text) for link in c.links]
        for b in blocks
        if b.kind == "display"
        for c in chains(b, lines)
    ]


CHAINS = [
    ("one-line-chain", "$$a = b = c$$", [[(1, "", "a"), (1, "=", "b"), (1, "=", "c")]]),
    ("continuation-rows", "$$\na + b\n= c\n= d.\n$$", [[(2, "", "a + b"), (3, "=", "c"), (4, "=", "d")]]),
    (
        "align-rows",
        "\\begin{align}\nx &= y \\\\\n  &= z \\label{e}\\\\\nu &= v \\nonumber\n\\end{align}",
        [[(2, "", "x"), (2, "=", "y"), (3, "=", "z")], [(4, "", "u"), (4, "=", "v")]],
    ),
    (
        "aligned-in-dollars",
        "$$\\begin{aligned} p &= q \\\\ &= r \\end{aligned}$$",
        [[(1, "", "p"), (1, "=", "q"), (1, "=", "r")]],
    ),
    ("quad-separates", "$$a = 1, \\quad b = 2$$", [[(1, "", "a"), (1, "=", "1")], [(1, "", "b"), (1, "=", "2")]]),
    (
        "text-separates",
        r"$$a = 1 \text{ where } b = 2$$",
        [[(1, "", "a"), (1, "=", "1")], [(1, "", "b"), (1, "=", "2")]],
    ),
    ("long-expression-over-lines", "$$\na = b\n+ c\n$$", [[(2, "", "a"), (2, "=", "b\n+ c")]]),
    ("relations-kept", r"$$a \le b = c$$", [[(1, "", "a"), (1, "\\le", "b"), (1, "=", "c")]]),
    ("definition-relation", r"$$a := b$$", [[(1, "", "a"), (1, ":=", "b")]]),
    (
        "matrix-rows-stay",
        "$$M = \\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}$$",
        [[(1, "", "M"), (1, "=", "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}")]],
    ),  # fmt: skip
    ("brackets", "\\[ x = y \\]", [[(1, "", "x"), (1, "=", "y")]]),
    ("math-fence", "text\n```math\nx = y\n```\n", [[(3, "", "x"), (3, "=", "y")]]),
    ("code-fence-skipped", "```python\n$$x = y$$\n```\n$$u = v$$", [[(4, "", "u"), (4, "=", "v")]]),
    ("comment-skipped", "<!-- $$x = y$$ -->\n$$u = v$$", [[(2, "", "u"), (2, "=", "v")]]),
    ("code-span-skipped", "Write `$$x = y$$` so.\n\n$$u = v$$", [[(3, "", "u"), (3, "=", "v")]]),
    ("indented-code-skipped", "Code:\n\n    $$x = y$$\n\n$$u = v$$", [[(5, "", "u"), (5, "=", "v")]]),
    ("indented-list-math-kept", "1. So:\n\n    $$x = y$$\n", [[(3, "", "x"), (3, "=", "y")]]),
    (
        "number-column-dropped",
        "$$\\begin{aligned} a &= b && (2) \\\\ &= c & (3) \\end{aligned}$$",
        [[(1, "", "a"), (1, "=", "b"), (1, "=", "c")]],
    ),
    (
        "signed-equation-side-by-side",
        "$$\\begin{aligned} a &= b & -c &= d \\end{aligned}$$",
        [[(1, "", "a"), (1, "=", "b")], [(1, "", "-c"), (1, "=", "d")]],
    ),
    ("column-goes-on", "$$\\begin{aligned} a &= b & + c \\end{aligned}$$", [[(1, "", "a"), (1, "=", "b   + c")]]),
    (
        "equations-side-by-side",
        "$$\\begin{aligned} a &= b & c &= d \\end{aligned}$$",
        [[(1, "", "a"), (1, "=", "b")], [(1, "", "c"), (1, "=", "d")]],
    ),
    (
        "eqnarray-columns-kept",
        "\\begin{eqnarray} a &=& b \\\\ &=& c \\end{eqnarray}",
        [[(1, "", "a"), (1, "=", "b"), (1, "=", "c")]],
    ),
    (
        "phantom-goes-on",
        "$$\\begin{aligned} a &= b \\\\ &\\phantom{=} + c \\end{aligned}$$",
        [[(1, "", "a"), (1, "=", "b      + c")]],
    ),
    ("room-beside-relation", "$$a \\quad = \\quad b$$", [[(1, "", "a"), (1, "=", "b")]]),
    (
        "row-label-dropped",
        "$$\\begin{aligned} (1)\\quad a &= b \\\\ (2)\\quad &= c \\end{aligned}$$",
        [[(1, "", "a"), (1, "=", "b"), (1, "=", "c")]],
    ),
]


@pytest.mark.parametrize("text,expected", [c[1:] for c in CHAINS], ids=[c[0] for c in CHAINS])
def test_chains_and_lines(text: str, expected: list[list[tuple[int, str, str]]]) -> None:
    assert _chains(text) == expected


def test_latex_comments_are_skipped() -> None:
    text = "% $$x = y$$\n\\begin{equation*}\nu = v % a remark = 3\n\\end{equation*}\n"
    assert _chains(text, latex=True) == [[(3, "", "u"), (3, "=", "v")]]


def test_the_column_count_of_alignat_is_no_factor() -> None:
    text = "\\begin{alignat}{2}\nu &= v &\\quad& \\text{(so)}\n\\end{alignat}\n"
    assert _chains(text, latex=True) == [[(2, "", "u"), (2, "=", "v")]]


def test_a_number_after_a_plain_space_closing_a_row_leaves_the_step_undecided() -> None:
    r = audit_document("$$\\cos(2u) = \\cos(u)^2 - \\sin(u)^2  (3)$$", timeout=TIMEOUT)
    (s,) = r.steps
    assert s.status == "UNDECIDED" and "number in brackets after a space" in s.reason
    r = audit_document("$$\\cos(2u) = \\cos(u)^2 + \\sin(u)^2  (3)$$", timeout=TIMEOUT)
    assert r.steps[0].status == "REFUTED"  # wrong read either way


def test_a_step_spans_its_lines() -> None:
    r = audit_document("$$\n(a + b)^2\n= a^2 + b^2\n+ 2ab\n$$", timeout=TIMEOUT)
    (s,) = r.steps
    assert (s.line, s.end_line, s.lines) == (3, 4, "3-4")


# --------------------------------------------------------------------------- definitions and what is not read


def _statuses(text: str, **kwargs: object) -> list[tuple[int, str]]:
    r = audit_document(text, timeout=TIMEOUT, **kwargs)  # type: ignore[arg-type]
    return [(s.line, s.status) for s in r.steps]


def test_definitions_are_carried_forward() -> None:
    doc = "\n".join(
        [
            r"$$\theta_i = 10000^{-2(i-1)/d}$$",  # a pattern: theta_1 is its value at 1
            r"$$d = 4$$",  # d is defined after theta_i: theta_i keeps d as a symbol
            r"$$\theta_1 = 1$$",
            r"$$f(x, y) = x^2 + y$$",  # a function
            r"$$f(2, 3) = 7 = 8$$",
            r"$$z = 2z - z$$",  # an equation about z, not a definition
        ]
    )
    r = audit_document(doc, timeout=TIMEOUT)
    assert [(d.line, d.kind, d.head) for d in r.definitions] == [
        (1, "pattern", "theta_i"),
        (2, "symbol", "d"),
        (4, "function", "f(x, y)"),
    ]
    assert [(s.line, s.status) for s in r.steps] == [(3, "PROVED"), (5, "PROVED"), (5, "REFUTED"), (6, "PROVED")]


def test_a_definition_with_a_complex_side_makes_a_complex_name() -> None:
    r = audit_document(r"$$q = a + i b$$ $$\Re[q] = a = b$$", timeout=TIMEOUT)
    assert r.definitions[0].domain == "complex"
    assert [s.status for s in r.steps] == ["PROVED", "REFUTED"]


def test_declared_domains_are_used() -> None:
    doc = "Let $z \\in \\mathbb{C}$.\n\n$$\\bar{z} = z$$"
    assert _statuses(doc) == [(3, "REFUTED")]
    # written conjugated, z is complex without a declaration; declared real, it is real
    assert _statuses("$$\\bar{z} = z$$") == [(1, "REFUTED")]
    assert _statuses("$$\\bar{z} = z$$", domains={"z": "real"}) == [(1, "PROVED")]
    assert _statuses("$$\\bar{z} = z$$", domains={"z": "complex"}) == [(1, "REFUTED")]


def test_positions_are_integers_by_default() -> None:
    assert _statuses(r"$$e^{2 \pi i m} = 1$$") == [(1, "PROVED")]
    assert _statuses(r"$$e^{2 \pi i m} = 1$$", domains={"m": "real"}) == [(1, "REFUTED")]


UNREAD = [
    ("congruence", r"$$a + 1 \cong b$$", "not an equality"),
    ("ellipsis-without-a-pattern", r"$$x_1 + x_2^2 + \cdots + x_d^d = s$$", "cannot see"),
    ("transpose-of-a-number", r"$$q^T k = 2 q$$", "applies to a matrix"),
    ("shapes", r"$$\begin{pmatrix} a \\ b \end{pmatrix} = a$$", "cannot be equal"),
    ("unknown-function", r"$$cosine(x) = 1$$", "did you mean"),
]


@pytest.mark.parametrize("doc,words", [u[1:] for u in UNREAD], ids=[u[0] for u in UNREAD])
def test_what_cannot_be_read_is_unread_never_refuted(doc: str, words: str) -> None:
    (s,) = audit_document(doc, timeout=TIMEOUT).steps
    assert s.status == "UNREAD" and words in s.reason, s.reason


def test_a_name_whose_definition_is_unread_is_not_guessed() -> None:
    doc = "\n".join(
        [
            r"$$R_m = \begin{pmatrix} \cos m\theta & \cdots \end{pmatrix}$$",
            r"$$\langle R_m q, R_n k \rangle = \langle q, R_{n-m} k \rangle$$",
        ]
    )
    r = audit_document(doc, timeout=TIMEOUT)
    assert not r.definitions[0].read and "cannot see" in r.definitions[0].reason
    (s,) = r.steps
    assert s.status == "UNREAD" and "could not be read" in s.reason


def test_an_undefined_family_refutes_nothing() -> None:
    """R_m, R_n, R_{n-m} never defined: as free numbers the step looks false, but the document meant matrices."""
    (s,) = audit_document(r"$$\langle R_m q, R_n k \rangle = \langle q, R_{n-m} k \rangle$$", timeout=TIMEOUT).steps
    assert s.status == "UNDECIDED" and "not defined" in s.reason
    # free symbols that are not such a family still refute
    assert _statuses(r"$$x_m + x_n = 2 x_m$$") == [(1, "REFUTED")]


def test_an_undefined_vector_times_a_matrix_is_not_read_as_a_number() -> None:
    doc = (
        "$$R_m = \\begin{pmatrix} \\cos m\\theta & -\\sin m\\theta \\\\ "
        "\\sin m\\theta & \\cos m\\theta \\end{pmatrix}$$\n"
    )
    # read as vectors, never as numbers: of the size the written-out matrix they meet fixes
    (s,) = audit_document(doc + "$$(R_m x)^T (R_n y) = x^T R_{n-m} y$$", timeout=TIMEOUT).steps
    assert s.status == "PROVED" and "x d x 1, y d x 1" in s.reason
    (s,) = audit_document(doc + "$$(R_m x)^T (R_n y) = x^T R_{n+m} y$$", timeout=TIMEOUT).steps
    assert s.status == "REFUTED" and "x a column of 2, y a column of 2 entries" in s.reason
    defined = doc + "$$x = (x_1, x_2)^T, \\quad y = (y_1, y_2)^T$$\n$$(R_m x)^T (R_n y) = x^T R_{n-m} y$$"
    assert [t.status for t in audit_document(defined, timeout=TIMEOUT).steps] == ["PROVED"]


def test_stated_boundary_values_hold_inside_sums() -> None:
    """Summation by parts needs S_0 = 0 and h_{N+1} = 0: refuted without them, not refuted once stated."""
    step = "$$\\sum_{i=0}^{N} h_i (S_{i+1} - S_i) = -\\sum_{i=0}^{N} S_{i+1}(h_{i+1} - h_i)$$"
    assert _statuses(step) == [(1, "REFUTED")]
    r = audit_document("With $S_0 = 0$ and $h_{N+1} = 0$:\n" + step, timeout=2.0)
    assert [d.head for d in r.definitions] == ["S_{0}", "h_{N + 1}"]
    assert r.steps[0].status in ("PROVED", "UNDECIDED")


def test_names_with_commas_in_subscripts() -> None:
    assert _statuses("$$a_{m,n} = a_{m, n}$$\n$$b_{m,n} + 1 = 1 + b_{m,n}$$") == [(1, "PROVED"), (2, "PROVED")]
    # RoFormer's R^d_{\Theta, m}: a pattern over the last subscript
    rot = r"\begin{pmatrix} \cos m\theta & -\sin m\theta \\ \sin m\theta & \cos m\theta \end{pmatrix}"
    doc = f"$$R^d_{{\\Theta, m}} = {rot}$$\n" + "\n".join(
        f"$$(R^d_{{\\Theta, m}})^T R^d_{{\\Theta, n}} = R^d_{{\\Theta, {x}}}$$" for x in ("n - m", "m - n", "n - m + 0")
    )
    r = audit_document(doc, timeout=TIMEOUT)
    assert [d.head for d in r.definitions] == ["R^d_{\\Theta,m}"]
    assert [s.status for s in r.steps] == ["PROVED", "REFUTED", "PROVED"]


def test_a_trig_argument_is_read_as_this_literature_writes_it() -> None:
    """cos(n - m)theta is cos((n - m) theta), the function of the product that follows: never the
    parser's cos(n - m) * theta, which would prove a step a mathematician calls false."""
    ok = audit_document(r"$$\cos(n - m)\theta = \cos(m\theta - n\theta)$$", timeout=TIMEOUT).steps[0]
    assert ok.status == "PROVED"
    wrong = audit_document(r"$$\cos(n - m)\theta = \sin(m\theta - n\theta)$$", timeout=TIMEOUT).steps[0]
    assert wrong.status == "REFUTED"
    parser = audit_document(r"$$\cos(n - m)\theta = \theta\cos(n - m)$$", timeout=TIMEOUT).steps[0]
    assert parser.status == "REFUTED"


def test_inner_products_of_complex_values_in_every_convention() -> None:
    """The real inner product is the default; a document may mean sum u conj(v) or sum conj(u) v."""
    doc = "Let $z, w \\in \\mathbb{C}$.\n\n" + "\n\n".join(
        f"$$\\langle z, w \\rangle = {rhs}$$" for rhs in ("z \\bar{w}", "\\bar{z} w", "\\Re[z \\bar{w}]", "z w")
    )
    steps = audit_document(doc, timeout=TIMEOUT).steps
    # true in one convention, false in the others: the reading decides it, so not decided
    assert [s.status for s in steps] == ["UNDECIDED", "UNDECIDED", "UNDECIDED", "REFUTED"]
    assert "read 3 ways" in steps[0].reason and "as the second: PROVED" in steps[0].reason
    assert "as the third: PROVED" in steps[1].reason and "as the first: PROVED" in steps[2].reason
    assert "REFUTED in every one" in steps[3].reason
    # on real values the conventions agree: one reading
    (real,) = audit_document("$$\\langle (a, b), (c, d) \\rangle = a c + b d$$", timeout=TIMEOUT).steps
    assert real.status == "PROVED" and "ways" not in real.reason


def test_an_inner_product_of_vectors_with_a_matrix_inside_an_entry_is_refused() -> None:
    """Read with general matrices, a position may be a matrix inside a cosine: no inner product, not a crash."""
    theta, x = sympy.symbols("theta x")
    m = sympy.MatrixSymbol("m", 3, 3)
    u, v = sympy.Matrix([sympy.cos(theta * m)]), sympy.Matrix([x])
    with pytest.raises(ValueError, match="entries hold matrices"):
        inner_product(u, v)
    doc = (
        "$$f(a, s) = \\begin{pmatrix} \\cos(s\\phi) & -\\sin(s\\phi) \\\\ \\sin(s\\phi) & \\cos(s\\phi) \\end{pmatrix}"
        " \\begin{pmatrix} a^{(1)} \\\\ a^{(2)} \\end{pmatrix}$$\n\n"
        "$$\\langle f(a, s), f(b, t) \\rangle = \\mathbf{a}^T P(s - t) \\mathbf{b}$$"
    )
    (step,) = audit_document(doc, timeout=TIMEOUT).steps
    assert "raised" not in step.reason and step.status in ("UNDECIDED", "UNREAD")


def test_a_misread_would_be_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader that took \\cos(n - m)\\theta only as the parser does would refute a correct twin's step: caught."""
    monkeypatch.setattr(latex_syntax, "_trig_arguments", lambda src, *_: (src, []))
    monkeypatch.setattr(latex_tree, "_PARSED", {})
    text = (AUDIT / "rotation_matrix_correct.md").read_text()
    r = audit_document(text, path="rotation_matrix_correct.md", timeout=None, memory_limit=None)
    assert 41 in [s.line for s in r.steps if s.status == "REFUTED"]


def test_each_step_is_time_bounded() -> None:
    doc = r"$$\cos(x_0 + x_1 + x_2 + x_3 + x_4 + x_5 + x_6 + x_7 + x_8 + x_9 + x_{10} + x_{11} + x_{12}) = 0 = 0$$"
    r = audit_document(doc, timeout=1.0)
    assert r.steps[0].status == "UNDECIDED" and "time limit of 1 s" in r.steps[0].reason
    assert r.steps[1].status == "PROVED"  # the next step still runs


def test_progress_is_reported_per_step() -> None:
    seen: list[tuple[int, str]] = []
    audit_document("$$a = a = a + 1$$", timeout=TIMEOUT, progress=lambda s, n: seen.append((n, s.status)))
    assert seen == [(1, "PROVED"), (2, "REFUTED")]


_DEBRIS = list("\\{}()[]=&^_$,.<>|*+-`") + [
    "\\\\", "\\begin{pmatrix}", "\\end{pmatrix}", "\\langle", "\\rangle", "\\left(", "\\right)", "$$", "\\odot",
    "\\cdots", "\n", "i", "\\theta_", "R_", "^{(1)}", "```", "\\begin{align}", ":=", "\\le",
]  # fmt: skip


@pytest.mark.parametrize("seed", range(8))
def test_mangled_documents_never_raise(seed: int) -> None:
    """Random edits of the test documents: every step gets a verdict, every rendering works; no exception."""
    import random

    from ropecheck.symbolic.audit.render import render_audit_html, render_audit_markdown, render_audit_text

    rng = random.Random(seed)
    lines = (AUDIT / sorted(EXPECTED)[seed % len(EXPECTED)]).read_text().split("\n")
    start = rng.randrange(0, max(1, len(lines) - 20))
    text = "\n".join(lines[start : start + 20])
    for _ in range(rng.randint(1, 5)):
        pos = rng.randrange(0, len(text) + 1)
        cut = rng.randint(1, 5) if rng.random() < 0.5 else 0
        text = text[:pos] + ("" if cut else rng.choice(_DEBRIS)) + text[pos + cut :]
    result = audit_document(text, timeout=3.0)
    assert all(s.status in ("PROVED", "REFUTED", "UNDECIDED", "UNREAD") for s in result.steps)
    json.dumps(result.to_dict())
    assert all(isinstance(f(result), str) for f in (render_audit_text, render_audit_markdown, render_audit_html))
