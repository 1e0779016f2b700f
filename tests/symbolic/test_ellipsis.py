"""Dots in general-size notation read as patterns (``ropecheck.symbolic.readers.ellipsis``), and the audit
that decides steps written with them: PROVED for every size only through a symbolic block index and two
written-out sizes, REFUTED through a written-out size, never a reading the entries do not fix."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from ropecheck.errors import ClaimLimitError
from ropecheck.symbolic.audit.patterns import _block_linear
from ropecheck.symbolic.audit.run import audit_document
from ropecheck.symbolic.readers.ellipsis import concrete_sizes, expand, find_patterns, layouts_for
from ropecheck.symbolic.readers.latex_syntax import read_latex_side
from ropecheck.symbolic.readers.latex_tree import BLOCK_MARK
from ropecheck.symbolic.readers.scope import Definition, Scope

d = sympy.Symbol("d")
ROFORMER = (
    r"\begin{pmatrix} \cos m\theta_1 & -\sin m\theta_1 & 0 & 0 & \cdots & 0 & 0 \\"
    r" \sin m\theta_1 & \cos m\theta_1 & 0 & 0 & \cdots & 0 & 0 \\"
    r" 0 & 0 & \cos m\theta_2 & -\sin m\theta_2 & \cdots & 0 & 0 \\"
    r" 0 & 0 & \sin m\theta_2 & \cos m\theta_2 & \cdots & 0 & 0 \\"
    r" \vdots & \vdots & \vdots & \vdots & \ddots & \vdots & \vdots \\"
    r" 0 & 0 & 0 & 0 & \cdots & \cos m\theta_{d/2} & -\sin m\theta_{d/2} \\"
    r" 0 & 0 & 0 & 0 & \cdots & \sin m\theta_{d/2} & \cos m\theta_{d/2} \end{pmatrix}"
)


def _one(text: str):  # type: ignore[no-untyped-def]
    found, unread = find_patterns(text)
    assert len(found) == 1 and not unread, (found, unread)
    return found[0]


@pytest.mark.parametrize(
    "text,kind,periods,length",
    [
        (r"(x_0, x_1, \ldots, x_{d-1})", "vector", [1], d),
        (r"(x_1, \dots, x_d)^T", "vector", [1], d),
        (r"\begin{pmatrix} u_0 \\ u_1 \\ \vdots \\ u_{D-1} \end{pmatrix}", "vector", [1], sympy.Symbol("D")),
        (r"\begin{pmatrix} a_0 & a_2 & \cdots & a_{d-2} \end{pmatrix}", "row", [1], d / 2),
        (r"(-x_1, x_0, -x_3, x_2, \ldots, -x_{d-1}, x_{d-2})", "vector", [2], d),
        (r"(\cos m\theta_0, \cos m\theta_0, \ldots, \cos m\theta_{d/2-1}, \cos m\theta_{d/2-1})", "vector", [2], d),
        (r"(-x_{d/2}, \ldots, -x_{d-1}, x_0, \ldots, x_{d/2-1})", "vector", [1, 1], d),
        (r"[u_0 + i u_1, u_2 + i u_3, \ldots, u_{d-2} + i u_{d-1}]", "vector", [1], d / 2),
        (r"q_0 k_0 + q_1 k_1 + \cdots + q_{d-1} k_{d-1}", "sum", [1], d),
        (r"\cos^2 a_0 + \sin^2 a_0 + \cdots + \cos^2 a_{n} + \sin^2 a_{n}", "sum", [2], 2 * sympy.Symbol("n") + 2),
        (r"\mu_1 \mu_2 \cdots \mu_{D/2}", "product", [1], sympy.Symbol("D") / 2),
        (ROFORMER, "diagonal", [4], 2 * d),  # 4 entries (one 2x2 block) per block: d/2 blocks
    ],
)
def test_the_entries_shown_fix_one_pattern(text: str, kind: str, periods: list[int], length: object) -> None:
    f = _one(text)
    assert f.kind == kind
    assert [s.period for s in f.segments] == periods
    assert sympy.simplify(sum(s.length for s in f.segments) - length) == 0  # type: ignore[operator]


@pytest.mark.parametrize(
    "text",
    [
        r"(q_0 c_0, q_2 c_1, \ldots, q_d c_{d-1})",  # q steps by 2 and ends at J = d/2, c at J = d - 1
        r"(x_1, x_2^2, \ldots, x_d^d)",  # the entries differ by more than their subscripts
        r"f(x_0, \ldots, x_n)",  # the arguments of a function, not a vector
        r"(x_0, \ldots, x_5, \ldots, x_{d-1})",  # two segments, and no split of the middle reads
        r"x_0 - x_1 + \cdots + x_n",  # a subtraction before the run
        r"(x_0, \ldots, x_{d-1}, \ldots, y_0)",  # a second segment of one entry fixes no end
    ],
)
def test_entries_that_fix_no_pattern_are_left_as_written(text: str) -> None:
    found, unread = find_patterns(text)
    assert not found and unread
    assert expand(text, found, size={d: 8}) == text


def test_written_out_at_a_size_and_as_a_block() -> None:
    f = _one(r"(x_0, x_1, \ldots, x_{d-1})")
    assert concrete_sizes([f]) == [{d: 8}, {d: 12}]
    out = expand(r"(x_0, x_1, \ldots, x_{d-1})", [f], size={d: 8})
    assert out.count(r"\\") == 7 and "x_{7}" in out
    assert (
        expand("(x_0, x_1, \\ldots,\n x_{d-1})", [_one("(x_0, x_1, \\ldots,\n x_{d-1})")], size={d: 8}).count("\n") == 1
    )
    assert "x_{2 j + 1}" in expand(r"(x_0, x_1, \ldots, x_{d-1})", [f], layout="contiguous")
    assert r"x_{\frac{d}{2} + j}" in expand(r"(x_0, x_1, \ldots, x_{d-1})", [f], layout="strided")
    halves = _one(r"(-x_{d/2}, \ldots, -x_{d-1}, x_0, \ldots, x_{d/2-1})")
    assert layouts_for([halves]) == ["strided"]
    assert expand("h", [], layout="contiguous") == "h"
    # a block-diagonal matrix of 2x2 blocks has no block in the halves' layout: left as written
    g = _one(ROFORMER)
    assert expand(ROFORMER, [g], layout="strided") == ROFORMER
    # at d = 4 the matrix shows three blocks of the two it has: no size below 6 fits
    assert concrete_sizes([g])[0][d] >= 6
    # a size name in a subscript that gives no whole number at any size: nothing to write out
    assert concrete_sizes(find_patterns(r"(x_0, x_1, \ldots, x_{d/7 + 1/2})")[0]) == []


def test_a_block_is_never_summed_as_if_it_were_the_whole_vector() -> None:
    u = Definition("symbol", "u", sympy.ImmutableMatrix([sympy.Symbol("u_{j}"), sympy.Symbol("u_{j + 1}")]))
    w = Definition("symbol", "w", sympy.ImmutableMatrix([sympy.Symbol("w_{j}"), sympy.Symbol("w_{j + 1}")]))
    blocks = Scope(symbols={"u": u, "w": w}, generic_blocks=True)
    for text in (r"u^T w", r"\langle u, w \rangle"):
        with pytest.raises(ClaimLimitError, match="every entry"):
            read_latex_side(text, scope=blocks)
        whole = read_latex_side(text, scope=Scope(symbols={"u": u, "w": w}))  # the same text, whole vectors
        assert whole != 0 and not whole.has(BLOCK_MARK)
        # where every vector has one length: the block's share of the sum over the blocks, marked
        marked = read_latex_side(text, scope=replace(blocks, block_sums=True))
        assert sympy.expand(marked - BLOCK_MARK * whole) == 0


def test_only_a_side_linear_in_the_sums_over_blocks_is_decided_block_by_block() -> None:
    f, g = sympy.symbols("f g")
    assert _block_linear(BLOCK_MARK * f + 3) and _block_linear(sympy.ImmutableMatrix([BLOCK_MARK * f, g]))
    assert not _block_linear(BLOCK_MARK**2 * f)  # (sum F)(sum G) is not sum(F G)
    assert not _block_linear(sympy.cos(BLOCK_MARK * f))  # cos(sum F) is not sum(cos F)
    assert not _block_linear(BLOCK_MARK * f + sympy.Symbol("j"))  # a block index outside the sum


def test_inner_products_for_every_size() -> None:
    vectors = "$$x = (x_0, x_1, \\ldots, x_{d-1})$$\n\n$$y = (y_0, y_1, \\ldots, y_{d-1})$$\n\n"
    got = _statuses(vectors + "$$x^T y + 1 = y^T x + 1$$\n\n$$(x^T y)^2 = x^T y \\cdot y^T x$$\n")
    assert [(line, status) for line, status, _ in got] == [(5, "PROVED"), (7, "UNDECIDED")]
    assert "not decided block by block" in got[1][2]
    # two lengths in one document: the sums over the blocks may not run over the same blocks
    halves = vectors + "$$u = (u_0, u_1, \\ldots, u_{d/2-1})$$\n\n$$x^T x + u^T u = u^T u + x^T x$$\n"
    ((_, status, reason),) = _statuses(halves)
    # not block by block; the step holds for any vectors, though, which matrix algebra alone shows
    assert status == "PROVED" and "for every matrix" in reason and "block" not in reason


def _statuses(doc: str) -> list[tuple[int, str, str]]:
    return [(s.line, s.status, s.reason) for s in audit_document(doc, timeout=30.0).steps]


def test_true_at_the_written_sizes_only_is_not_proved() -> None:
    # the right side differs from the left by (d - 8)(d - 12) y: equal at d = 8 and 12, not for every d
    doc = r"$$x_0 + x_1 + \cdots + x_{d-1} = x_0 + x_1 + \cdots + x_{d-1} + (d - 8)(d - 12) y$$"
    ((_, status, reason),) = _statuses(doc)
    assert status == "UNDECIDED" and "at d = 8: PROVED" in reason and "at d = 12: PROVED" in reason


def test_a_size_the_document_fixes_leaves_the_dots_unread() -> None:
    doc = "$$d = 4$$\n\n" r"$$x_0 + x_1 + \cdots + x_{d-1} = x_1 + x_0 + \cdots + x_{d-1}$$"
    ((_, status, reason),) = _statuses(doc)
    assert status == "UNREAD" and "cannot see" in reason


def test_general_d_steps_are_decided_at_their_lines() -> None:
    doc = (
        "$$x = (x_0, x_1, \\ldots, x_{d-1})$$\n\n"
        "$$h = (-x_{d/2}, \\ldots, -x_{d-1}, x_0, \\ldots, x_{d/2-1})$$\n\n"
        "$$h \\odot h = (x_{d/2}^2, \\ldots, x_{d-1}^2, x_0^2, \\ldots, x_{d/2-1}^2)$$\n\n"
        "$$h + x = (x_0 - x_{d/2}, \\ldots, x_{d/2-1} - x_{d-1}, x_{d/2} + x_0, \\ldots, x_{d-1} + x_{d/2-1})$$\n\n"
        "$$h + x = (x_0 - x_{d/2}, \\ldots, x_{d/2-1} - x_{d-1}, x_{d/2} + x_1, \\ldots, x_{d-1} + x_{d/2})$$\n"
    )
    got = [(line, status) for line, status, _ in _statuses(doc)]
    assert got == [(5, "PROVED"), (7, "PROVED"), (9, "REFUTED")]


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "audit"


# every step of tests/fixtures/audit/general_d_correct.md proved for every size: test_audit.py checks it with the
# planted twin, from the one audit of the document


_ENTRIES = ["x_0", "x_1", "x_{d-1}", "x_{d/2}", r"\cos m\theta_0", r"\sin m\theta_{d/2-1}", "0", "q_{2i}", "a_{n}", "y"]
_DOTS = [r"\cdots", r"\vdots", r"\ddots", r"\ldots", "...", ""]
_SEPS = [",", r" \\ ", " & ", " + ", " "]


@given(
    st.lists(st.sampled_from(_ENTRIES + _DOTS), min_size=1, max_size=14),
    st.sampled_from(_SEPS),
    st.sampled_from(["({})", "[{}]", r"\begin{{pmatrix}} {} \end{{pmatrix}}", "{}", r"\left({}\right)^T"]),
)
def test_any_arrangement_of_entries_and_dots_reads_or_is_left_alone(items: list[str], sep: str, wrap: str) -> None:
    text = wrap.format(sep.join(items))
    found, unread = find_patterns(text)
    for size in concrete_sizes(found) or [{d: 8}]:
        out = expand(text, found, size=size)
        assert out.count("\n") == text.count("\n")
    for layout in layouts_for(found) if found else ["single"]:
        expand(text, found, layout=layout)
    assert all(0 <= f.span[0] < f.span[1] <= len(text) for f in found)


def test_a_counterexample_at_a_symbolic_size_refutes_nothing() -> None:
    # true for every even d; as a generic block the sum runs to d/2, which odd sizes make a fraction
    doc = (
        "$$\\theta_i = 10000^{-2i/d}$$\n\n"
        "$$\\cos m\\theta_0 + \\cos m\\theta_1 + \\cdots + \\cos m\\theta_{d/2-1} + \\cos m\\theta_{d/2} = "
        "\\cos m\\theta_0 + \\cos m\\theta_1 + \\cdots + \\cos m\\theta_{d/2-1} + \\cos \\frac{m}{10000}$$\n"
    )
    ((_, status, reason),) = _statuses(doc)
    assert status in ("PROVED", "UNDECIDED") and "REFUTED" not in reason


def test_dots_left_unread_say_why() -> None:
    ((_, status, reason),) = _statuses(r"$$(x_1, x_2^2, \ldots, x_d^d) = (y_1, y_2, \ldots, y_d)$$")
    assert status == "UNREAD" and "fit no pattern" in reason  # the left side's entries differ by more
    ((_, status, reason),) = _statuses("$$d = 4$$\n\n" r"$$x_0 + x_1 + \cdots + x_{d-1} = s$$")
    assert status == "UNREAD" and "gives d a value" in reason


def test_a_size_given_in_inline_math_is_an_example_that_fixes_nothing() -> None:
    # a display fixes d (above); "say $d = 4$" is an example: the step is read for every d, never refuted
    doc = "Say $d = 4$.\n\n" r"$$2(x_0 + x_1 + \cdots + x_{d-1}) = 2x_0 + 2x_1 + \cdots + 2x_{d-1}$$"
    ((_, status, reason),) = _statuses(doc)
    assert status == "PROVED" and "for every size" in reason and "gives d a value at line 1" in reason
    slip = "Say $d = 4$.\n\n" r"$$2(x_0 + x_1 + \cdots + x_{d-1}) = 2x_0 + 2x_1 + \cdots + 2x_{d-1} - x_0$$"
    ((_, status, reason),) = _statuses(slip)
    assert status == "UNDECIDED" and "refuted at a size the text may not mean" in reason


def test_a_matrix_with_dots_read_in_no_reading_says_what_stopped_them() -> None:
    # the dots fit a pattern; what is not read is `cosm`, a function name without a backslash, its sines glued to
    # another letter (`sint`): no cosine and sine of one angle, as a turn is drawn
    doc = (
        "$$R_m = \\begin{pmatrix} cosm\\theta_0 & -sint\\theta_0 & \\cdots & 0 & 0 \\\\ "
        "sint\\theta_0 & cosm\\theta_0 & \\cdots & 0 & 0 \\\\ \\vdots & \\vdots & \\ddots & \\vdots & \\vdots \\\\ "
        "0 & 0 & \\cdots & cosm\\theta_{d/2-1} & -sint\\theta_{d/2-1} \\\\ "
        "0 & 0 & \\cdots & sint\\theta_{d/2-1} & cosm\\theta_{d/2-1} \\end{pmatrix}$$\n\n"
        "$$R_m^T R_m = R_0$$\n"
    )
    r = audit_document(doc, timeout=30.0)
    (definition,) = [d for d in r.definitions if d.line == 1]
    assert not definition.read and "its dots read as a pattern (block-diagonal" in definition.reason
    assert "then: 'cosm' spells a function name without a backslash" in definition.reason
    assert "fit no pattern" not in definition.reason and [s.status for s in r.steps] == ["UNREAD"]


def test_a_turn_drawn_with_its_functions_glued_to_the_position_is_read() -> None:
    # `cosm\theta_0 & -sinm\theta_0 \\ sinm\theta_0 & cosm\theta_0`: a cosine and a sine of each angle, glued to one
    # letter, as the blocks of a turn are drawn: read as \cos m\theta_0, ...; a turn by the wrong gap is refuted
    doc = (
        "$$R_m = \\begin{pmatrix} cosm\\theta_0 & -sinm\\theta_0 & \\cdots & 0 & 0 \\\\ "
        "sinm\\theta_0 & cosm\\theta_0 & \\cdots & 0 & 0 \\\\ \\vdots & \\vdots & \\ddots & \\vdots & \\vdots \\\\ "
        "0 & 0 & \\cdots & cosm\\theta_{d/2-1} & -sinm\\theta_{d/2-1} \\\\ "
        "0 & 0 & \\cdots & sinm\\theta_{d/2-1} & cosm\\theta_{d/2-1} \\end{pmatrix}$$\n\n"
        "$$R_m^T R_m = R_0$$\n\n$$R_m R_m = R_0$$\n"
    )
    r = audit_document(doc, timeout=30.0)
    (definition,) = [d for d in r.definitions if d.line == 1]
    assert definition.read and "block-diagonal" in definition.pattern
    assert [s.status for s in r.steps] == ["PROVED", "REFUTED"]


def test_a_family_with_a_superscript_written_with_dots_is_listed_as_its_pattern() -> None:
    doc = (
        "$$R^{d}_{\\Theta,m} = \\begin{pmatrix} \\cos m\\theta_0 & -\\sin m\\theta_0 & & & \\\\ "
        "\\sin m\\theta_0 & \\cos m\\theta_0 & & & \\\\ & & \\ddots & & \\\\ "
        "& & & \\cos m\\theta_{d/2-1} & -\\sin m\\theta_{d/2-1} \\\\ "
        "& & & \\sin m\\theta_{d/2-1} & \\cos m\\theta_{d/2-1} \\end{pmatrix}$$\n\n"
        "$$(R^{d}_{\\Theta,m})^T R^{d}_{\\Theta,m} = R^{d}_{\\Theta,0}$$\n"
    )
    r = audit_document(doc, timeout=30.0)
    (definition,) = [d for d in r.definitions if d.line == 1]
    assert definition.read and "block-diagonal" in definition.pattern
    assert [s.status for s in r.steps] == ["PROVED"]
    # written with the subscript first, the definition is the same family
    doc = doc.replace("R^{d}_{\\Theta,m}", "R_{\\Theta, m}^d").replace("R^{d}_{\\Theta,0}", "R_{\\Theta, 0}^d")
    r = audit_document(doc, timeout=30.0)
    (definition,) = [d for d in r.definitions if d.line == 1]
    assert definition.read and "block-diagonal" in definition.pattern


@pytest.mark.parametrize(
    ("text", "written"),
    [
        # one pair shown: the next pair is the next two entries, not the pair moved by one
        (r"\begin{pmatrix} -u_1 \\ u_0 \\ \vdots \\ -u_{d-1} \\ u_{d-2} \end{pmatrix}", "-u_{1} u_{0} -u_{3} u_{2}"),
        (r"\begin{pmatrix} x_0 c_0 \\ x_1 c_0 \\ \vdots \\ x_{d-2} c_{d/2-1} \\ x_{d-1} c_{d/2-1} \end{pmatrix}",
         "x_{0} c_{0} x_{1} c_{0} x_{2} c_{1} x_{3} c_{1}"),
        # the same subscript twice in the pair: it moves by one
        (r"\begin{pmatrix} c_0 \\ c_0 \\ \vdots \\ c_{d/2-1} \\ c_{d/2-1} \end{pmatrix}", "c_{0} c_{0} c_{1} c_{1}"),
    ],
)  # fmt: skip
def test_one_block_shown_before_the_dots_is_followed_by_the_next_block(text: str, written: str) -> None:
    found, unread = find_patterns(text)
    assert unread == [] and len(found) == 1
    out = expand(text, found, size={d: 8})
    entries = [e.strip() for e in out.split(r"\begin{pmatrix}")[1].split(r"\end{pmatrix}")[0].split(r"\\")]
    assert len(entries) == 8
    assert " ".join(entries).startswith(written)


BOLD_BLOCKS = (
    r"\begin{pmatrix} \mathbf{G}_{t\omega_0} & \mathbf{0} & \cdots & \mathbf{0} \\"
    r" \mathbf{0} & \mathbf{G}_{t\omega_1} & \cdots & \mathbf{0} \\"
    r" \vdots & \vdots & \ddots & \vdots \\"
    r" \mathbf{0} & \mathbf{0} & \cdots & \mathbf{G}_{t\omega_{d/2-1}} \end{pmatrix}"
)


def test_blocks_indexed_inside_their_subscript_between_bold_zeros_are_a_pattern() -> None:
    f = _one(BOLD_BLOCKS)
    assert f.kind == "diagonal" and f.block == 1
    written = expand(BOLD_BLOCKS, [f], size={d: 8})
    assert r"\mathbf{G}_{t\omega_{3}}" in written and r"\omega_{4}" not in written


@pytest.mark.parametrize(
    "off",
    [r"\mathbf{1}", r"\mathbf{O}", "x", r"\mathbf{0}_{2}"],
    ids=["bold one", "bold letter O", "a name", "a zero with a subscript"],
)
def test_a_block_off_the_diagonal_that_is_not_zero_fixes_no_pattern(off: str) -> None:
    last = r" & \cdots & \mathbf{G}_{t\omega_{d/2-1}}"
    text = BOLD_BLOCKS.replace(r"\mathbf{0}" + last, off + last)
    assert text != BOLD_BLOCKS
    assert not find_patterns(text)[0]


def test_subscripts_inside_a_subscript_that_do_not_move_fix_no_pattern() -> None:
    # the same inner subscript in every block: no block index, nothing to write out
    assert not find_patterns(BOLD_BLOCKS.replace(r"\omega_1}", r"\omega_0}").replace(r"\omega_{d/2-1}", r"\omega_0"))[0]


def test_two_size_names_are_written_out_only_as_a_relation_the_document_states_ties_them() -> None:
    h, k = sympy.symbols("h k")
    found = [_one(BOLD_BLOCKS), _one(r"\begin{pmatrix} c_0 \\ c_1 \\ \vdots \\ c_{h-1} \end{pmatrix}")]
    assert concrete_sizes(found) == []  # d and h chosen apart: never
    assert concrete_sizes(found, {d: 2 * h}) == [{d: 8, h: 4}, {d: 12, h: 6}]
    assert concrete_sizes(found, {h: d / 2}) == [{d: 8, h: 4}, {d: 12, h: 6}]
    assert concrete_sizes(found, {d: 2 * k}) == []  # a relation to another name ties nothing
    assert concrete_sizes(found, {h: d / 16}) == []  # h whole only where d is too large to write out


def test_an_index_raised_in_parentheses_is_a_pattern_written_as_a_label() -> None:
    text = r"\begin{pmatrix} q_m^{(0)} \\ q_m^{(1)} \\ \vdots \\ q_m^{(d-1)} \end{pmatrix}"
    f = _one(text)
    assert r"q_{m}^{(7)} \end{pmatrix}" in expand(text, [f], size={d: 8})
    assert expand(text, [f], layout="single") == r"\begin{pmatrix} q_{m}^{(j)} \\ 0 \end{pmatrix}"
    # counted from one, block j would hold q^{(j + 1)}, which the reader takes for a power: left as written
    ones = r"\begin{pmatrix} q^{(1)} \\ q^{(2)} \\ \vdots \\ q^{(d)} \end{pmatrix}"
    g = _one(ones)
    assert expand(ones, [g], layout="single") == ones
    assert concrete_sizes([g]) == [{d: 8}, {d: 12}]


def test_a_raised_index_without_parentheses_fixes_no_pattern() -> None:
    # x^2, x^3, ... may be powers: never read as entries
    assert find_patterns(r"(x^{2}, x^{3}, \ldots, x^{d})")[0] == []


def test_a_subscript_that_lists_indices_moves_in_the_part_that_moves() -> None:
    f = _one(r"\text{diag}\left(e^{i\phi_{k,1}t}, e^{i\phi_{k,2}t}, \cdots, e^{i\phi_{k,n}t}\right)")
    assert f.kind == "diagonal" and r"\phi_{k,j + 1}" in f.describe()
    written = expand(r"\text{diag}\left(e^{i\phi_{k,1}t}, e^{i\phi_{k,2}t}, \cdots, e^{i\phi_{k,n}t}\right)", [f],
                     size={sympy.Symbol("n"): 3})  # fmt: skip
    assert r"e^{i\phi_{k,3}t}" in written and "{k}" not in written
    # a label part that changes from one entry to the next fits no pattern
    assert find_patterns(r"\text{diag}\left(\phi_{a,1}, \phi_{b,2}, \cdots, \phi_{a,n}\right)")[0] == []


def test_a_list_that_ends_at_its_group_size_runs_to_that_size() -> None:
    # the last index names the size of the group another part labels (n_k beside k): one size name, n_k
    listed = r"\text{diag}\left(e^{i\phi_{k,1}t}, e^{i\phi_{k,2}t}, \cdots, e^{i\phi_{k,n_k}t}\right)"
    f = _one(listed)
    assert f.describe() == r"block-diagonal, block e^{i\phi_{k,j + 1}t} for j = 0 … n_{k} - 1"
    assert f.size_names() == {"n_k"}
    assert r"e^{i\phi_{k,3}t}\right)" in expand(listed, [f], size={sympy.Symbol("n_k"): 3})
    assert _one(listed.replace("n_k", "n_{k}")).size_names() == {"n_k"}
    # a size labelled by a letter that is not a part of the list, or by the size's own letter, is no group's size
    for other in ("n_j", "k_k", "n_{12}", "n_k + 1"):
        assert find_patterns(listed.replace("n_k", other))[0] == [], other


def test_rows_cut_short_end_in_blank_cells() -> None:
    # the second row stops after its block, as LaTeX allows
    short = r"\begin{bmatrix} A_{0} & & & \\ & A_{1} & \\ & & \ddots & \\ & & & A_{h-1} \end{bmatrix}"
    f = _one(short)
    assert f.kind == "diagonal" and f.describe() == "block-diagonal, block A_{j} for j = 0 … h - 1"
    # a row cut short is blank where it stops: a row with an entry beyond the others still fits no pattern
    assert find_patterns(short.replace(r"& A_{h-1}", r"& A_{h-1} & B"))[0] == []
