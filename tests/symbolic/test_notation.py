"""Notation whose reading is certain is read that way; notation that reads two ways is never decided.

Each row is a habit of RoPE write-ups that was once misread: a citation taken for a power,
a transpose for a power, a coefficient ``d`` for a differential, a row break swallowing the
next name, glued function names, a conjugated name taken as real.
"""

from __future__ import annotations

import pytest

from ropecheck.errors import ClaimParseError
from ropecheck.symbolic import Verdict, check_claim

#: not decided: UNDECIDED, or not read at all (exit 2, with the reason)
UNREAD = {Verdict.UNDECIDED, None}

# (id, claim, the verdicts that are right for it)
CLAIMS = [
    # a + ib, the i glued to its part: the unit where the formula writes i as the unit (Re, e^{i...}) and no index i
    ("complex-sum-glued", r"\text{Re}[(a_1 + ib_1)(a_2 - ib_2)] = a_1a_2 + b_1b_2", {Verdict.PROVED}),
    ("complex-sum-glued-slip", r"\text{Re}[(a_1 + ib_1)(a_2 - ib_2)] = a_1a_2 - b_1b_2", {Verdict.REFUTED}),
    ("complex-sum-glued-no-unit-said", r"(a_1 + ib_1)(a_2 - ib_2) = a_1a_2 + b_1b_2 + i(b_1a_2 - a_1b_2)", UNREAD),
    ("complex-sum-glued-index-i", r"\text{Re}[(x_i + iy_i)(x_i - iy_i)] = x_i^2 + y_i^2", UNREAD),
    # q_me^{...}: a subscript without braces takes one letter, so the page shows q_m e^{...}
    ("raised-e-after-subscript", r"p_me^{i\theta} = p_m\cos\theta + i p_m\sin\theta", {Verdict.PROVED}),
    ("raised-e-after-subscript-slip", r"p_me^{i\theta} = p_m\cos\theta - i p_m\sin\theta", {Verdict.REFUTED}),
    # one letter set upright is that letter (once read as a product with a name "mathrm"); raised, a label or a power
    ("upright-letter-subscript", r"W_{\mathrm{V}} = W_{V}", {Verdict.PROVED}),
    ("upright-letter-alone", r"\mathrm{K} + \text{K} = 2K", {Verdict.PROVED}),
    ("upright-letter-slip", r"W_{\mathrm{V}} + W_\mathrm{V} = 3W_{V}", {Verdict.REFUTED}),
    ("upright-letter-raised", r"x^{\mathrm{K}} x^{\mathrm{K}} = x^{2\mathrm{K}}", UNREAD),
    ("power-beside-labels", r"u^{(1)}u^{(1)} + u^{(2)}u^2 = u^{(1)}u^{(1)} + u^{(2)}u^{(2)}", UNREAD),
    ("upright-i-before-bracket", r"e^{\text{i}(m-n)x} = \cos((m-n)x) + \text{i}\sin((m-n)x)", {Verdict.PROVED}),
    ("upright-i-before-bracket-slip", r"e^{\text{i}(m-n)x} = \cos((m-n)x) - \text{i}\sin((m-n)x)", {Verdict.REFUTED}),
    ("pair-slice", r"\sum_{i=0}^{N} q_{[2i:2i+1]} = \sum_{j=0}^{N} q_{[2j:2j+1]}", {Verdict.PROVED}),
    ("pair-slice-shifted", r"\sum_{i=0}^{N} q_{[2i:2i+1]} = \sum_{j=0}^{N} q_{[2j+2:2j+3]}", {Verdict.REFUTED}),
    ("slice-not-a-pair", r"q_{[2i+1:2i+2]} = q_{[2i+1:2i+2]}", UNREAD),
    ("citation-superscript", r"e^{i\theta} = \cos\theta + i \sin\theta ^{[4]}", {Verdict.PROVED}),
    ("citation-bracket", r"e^{i\theta} = \cos(\theta) + i \sin(\theta) [4]", {Verdict.PROVED}),
    ("real-part-not-citation", r"\Re[4] = 4", {Verdict.PROVED}),
    ("citation-list", r"e^{i x} = \cos(x) + i \sin(x)^{[2, 7]}", {Verdict.PROVED}),
    # whole numbers in square brackets where an operand stands cite nothing: three or more are a column
    ("number-list-column", r"2 \cdot [0, 1, 1] = [0, 2, 2]", {Verdict.PROVED}),
    ("number-list-column-slip", r"2 \cdot [0, 1, 1] = [0, 2, 1]", {Verdict.REFUTED}),
    ("number-list-citation-after-operand", r"\cos(x)^2 = 1 - \sin(x)^2 [1, 2, 3]", {Verdict.PROVED}),
    ("number-pair-interval-or-column", r"2 \cdot [0, 1] = [0, 2]", UNREAD),
    ("transpose-mathsf", r"(R(a) R(b))^\mathsf{T} = R(b)^\mathsf{T} R(a)^\mathsf{T}", {Verdict.PROVED}),
    ("transpose-mathsf-braced", r"R(a)^{\mathsf T} R(b) = R(b - a)", {Verdict.PROVED}),
    ("transpose-intercal", r"R(a)^\intercal R(b) = R(b - a)", {Verdict.PROVED}),
    ("transpose-prime", r"R(a)' R(b) = R(b - a)", {Verdict.PROVED}),
    ("transpose-of-names", r"q^\mathsf{T} k = k^\mathsf{T} q", UNREAD),
    ("transpose-glued", r"q^\mathsf{T}k = 2", UNREAD),
    ("prime-of-names", r"q' k = k' q", UNREAD),
    ("coefficient-d", r"c x + d y = x c + y d", {Verdict.PROVED}),
    ("coefficient-e", r"e x + 1 = 1 + x e", {Verdict.PROVED}),
    ("coefficient-e-not-euler", r"e = 2", {Verdict.REFUTED}),
    ("euler-mathrm", r"\mathrm{e}^{i x} = \cos(x) + i \sin(x)", {Verdict.PROVED}),
    ("euler-mathrm-alone", r"\mathrm{e} \cdot \mathrm{e} = e^{2}", {Verdict.PROVED}),
    (
        "row-break-name",
        r"\begin{pmatrix} a \\W_q \end{pmatrix} = \begin{pmatrix} a \\ W_q \end{pmatrix}",
        {Verdict.PROVED},
    ),
    ("glued-sin-cos", r"\sin a \cos b = sinacosb", {Verdict.UNDECIDED}),
    ("glued-i-sin", r"\cos\theta + isin\theta = e^{i\theta}", {Verdict.UNDECIDED}),
    ("glued-word-vs-name", r"\mathrm{Attention}(q, k) = Attention(q, k)", UNREAD),
    ("glued-word-score", r"score = s c o r e", UNREAD),
    ("three-letters-are-a-product", r"mn\theta = n m \theta", {Verdict.PROVED}),
    (
        "conjugate-makes-complex",
        r"\Re[q \bar{k} e^{i(m-n)\theta}] = \Re[\bar{q} k e^{i(m-n)\theta}]",
        {Verdict.REFUTED},
    ),
    ("conjugate-star-complex", r"q k^* = k q^*", {Verdict.REFUTED}),
    ("conjugate-true-stays-proved", r"\Re[q \bar{k}] = \Re[\bar{q} k]", {Verdict.PROVED}),
    # the rotation's transpose or inverse written before its bracket: of its value (the inverse function of R
    # takes a matrix, never an angle)
    ("raised-call-transpose", r"R^T(a) R(b) = R(b - a)", {Verdict.PROVED}),
    ("raised-call-transpose-wrong", r"R^T(a) R(b) = R(a - b)", {Verdict.REFUTED}),
    ("raised-call-inverse", r"R^{-1}(a) = R(-a)", {Verdict.PROVED}),
    ("raised-call-inverse-wrong", r"R^{-1}(a) = R(a)", {Verdict.REFUTED}),
    ("raised-call-top", r"R^\top(a) = R^{-1}(a)", {Verdict.PROVED}),
    ("raised-call-of-a-name", r"W^T(a) = W(a)", UNREAD),
    # x^TR: a superscript without braces is one letter (x^T R), never the word TR
    ("transpose-then-letter", r"R(a)^TR(b) = R(b - a)", {Verdict.PROVED}),
    ("transpose-then-letter-wrong", r"R(a)^TR(b) = R(a - b)", {Verdict.REFUTED}),
    # W_qx_m: a subscript without braces is one letter too (W_q x_m), never the word qx
    ("subscript-then-letter", r"W_qx_m + W_kx_n = W_q x_m + W_k x_n", {Verdict.PROVED}),
    ("subscript-then-letter-wrong", r"W_qx_m = W_q x_n", {Verdict.REFUTED}),
    ("subscript-then-word", r"W_qxy_m = W_q x y_m", UNREAD),  # xy_m is still a word or a product
    # [a \\ b]: a column written with row breaks, of one name or number per row; a sum broken over lines is not
    ("row-break-column", r"R(t) [a \\ b] = (a\cos t - b\sin t, a\sin t + b\cos t)", {Verdict.PROVED}),
    ("row-break-column-wrong", r"R(t) [a \\ b] = (a\cos t + b\sin t, a\sin t + b\cos t)", {Verdict.REFUTED}),
    ("row-break-sum", r"[a + b \\ + c] = a + b + c", UNREAD),
    # a row break written \\\ (Markdown that eats a backslash): a row break, then a space
    (
        "row-break-then-space",
        r"\begin{pmatrix} a & b \\\ c & d \end{pmatrix} = \begin{pmatrix} a & b \\ c & d \end{pmatrix}",
        {Verdict.PROVED},
    ),
    ("atan2", r"\mathrm{atan2}(1, 1) = \frac{\pi}{4}", {Verdict.PROVED}),
    ("atan2-wrong", r"\operatorname{atan2}(1, -1) = \frac{\pi}{4}", {Verdict.REFUTED}),
    # \big( ... \big): a larger bracket, never the name big times a bracket
    ("sized-bracket", r"\cos\big((m-n)x\big) = \cos((m-n)x)", {Verdict.PROVED}),
    ("sized-bracket-wrong", r"\cos\big((m-n)x\big) = \cos((m+n)x)", {Verdict.REFUTED}),
    (
        "sized-bracket-left-right",
        r"2\Bigl[a + b\Bigr] + \bigg\langle u, v \bigg\rangle = 2a + 2b + uv",
        {Verdict.PROVED},
    ),
    ("sized-without-delimiter", r"\big a = a", UNREAD),
]


@pytest.mark.parametrize("claim, right", [c[1:] for c in CLAIMS], ids=[c[0] for c in CLAIMS])
def test_reading_is_certain_or_undecided(claim: str, right: set[Verdict]) -> None:
    try:
        result = check_claim(claim, syntax="latex", timeout=None)
    except ClaimParseError as exc:
        assert None in right, str(exc)
        assert "power" not in str(exc) or "never read as a power" in str(exc)
        return
    assert result.verdict in right, (result.verdict, result.lhs, result.rhs, result.limit_message)


def test_primes_opening_a_superscript_mark_the_name_and_the_rest_is_its_power() -> None:
    from ropecheck.symbolic.readers.latex_syntax import normalize_latex

    assert normalize_latex(r"b^{\prime \frac{2d}{D}}").replace(" ", "") == r"b'^{\frac{2d}{D}}"
    assert normalize_latex(r"b^{\prime\prime}").replace(" ", "") == "b''"
    assert normalize_latex(r"b^{\prime}_d").replace(" ", "") == "b'_d"


def test_undecided_reading_says_why() -> None:
    result = check_claim(r"\sin a \cos b = sinacosb", syntax="latex", timeout=None)
    assert result.limit == "reading"
    assert "sinacosb" in (result.limit_message or "")


@pytest.mark.parametrize(
    "claim, note",
    [
        (r"R(a)^\mathsf{T} R(b) = R(b - a)", r"`^\mathsf{T}` read as transpose"),
        (r"e^{i x} = \cos(x) + i \sin(x)^{[4]}", "`^{[4]}` read as a citation"),
        (r"\Re[q \bar{k}] = \Re[\bar{q} k]", "k, q complex (conjugated)"),
        (r"c x + d y = x c + y d", "`d` read as a symbol"),
    ],
)
def test_default_readings_are_stated(claim: str, note: str) -> None:
    result = check_claim(claim, syntax="latex", timeout=None)
    assert any(note in r for r in result.readings), result.readings


def test_a_document_in_these_notations_is_never_refuted() -> None:
    from pathlib import Path

    from ropecheck.symbolic.audit.run import audit_document

    path = Path(__file__).resolve().parents[1] / "fixtures" / "audit" / "notation.md"
    result = audit_document(path.read_text(), path=path.name, timeout=30.0)
    status = {s.line: s.status for s in result.steps}
    glued = {s.line for s in result.steps if "spells a function name" in s.reason}
    assert status == {8: "PROVED", 12: "PROVED", 17: "PROVED", 19: "PROVED", 23: "PROVED", 25: "PROVED",
                      29: "PROVED", 33: "UNDECIDED", 35: "UNDECIDED", 39: "PROVED"}  # fmt: skip
    assert glued == {33, 35}


def test_a_value_given_in_passing_never_decides_a_step() -> None:
    from ropecheck.symbolic.audit.run import audit_document

    doc = "For example, with $z_1 = 1$ the first term vanishes.\n\n$$z_1^2 = z_1$$\n\n$$z_1 z_2 = 2 z_2$$\n"
    steps = audit_document(doc, timeout=30.0).steps
    assert [s.status for s in steps] == ["UNDECIDED", "UNDECIDED"]
    assert "given the value 1" in steps[0].reason  # true at z_1 = 1, false at other values
    # false at z_1 = 1 too, for z_2 nonzero: refuted whichever the text means, but it may be an equation for z_2
    assert "equation to solve" in steps[1].reason


@pytest.mark.parametrize(
    "claim, right",
    [
        ("R(a) @ R(b) == R(a + b)", Verdict.PROVED),
        ("R(a).T @ R(b) = R(b - a)", Verdict.PROVED),
        ("R(a).T @ R(b) == R(a - b)", Verdict.REFUTED),
    ],
)
def test_the_matrix_product_as_numpy_and_torch_write_it(claim: str, right: Verdict) -> None:
    assert check_claim(claim, timeout=None).verdict == right


def test_the_matrix_product_of_numbers_is_refused() -> None:
    with pytest.raises(ClaimParseError, match="@ multiplies two matrices"):
        check_claim("a @ b == b @ a", syntax="sympy", timeout=None)


@pytest.mark.parametrize(
    "claim, right",
    [
        (r"\sum_{j=0}^{d-1} q_j k_j = \sum_{i=0}^{d/2-1} (q_{2i} k_{2i} + q_{2i+1} k_{2i+1})", Verdict.PROVED),
        (r"\sum_{j=0}^{d-1} q_j k_j = \sum_{i=0}^{d/2-1} (q_{2i} k_{2i} + q_{2i+2} k_{2i+1})", Verdict.REFUTED),
        (r"\sum_{j=0}^{d-1} q_j k_j = \sum_{i=0}^{d/2-1} q_{2i} k_{2i}", Verdict.REFUTED),
    ],
)
def test_the_pairwise_sum_lemma_is_decided(claim: str, right: Verdict) -> None:
    """The sum over the head is the sum over its pairs (the lemma under theorem 2), and its wrong twins."""
    result = check_claim(claim, syntax="latex", timeout=None)
    assert result.verdict == right
    if right == Verdict.PROVED:
        assert result.method == "parity_split" and any("even length" in r for r in result.readings)
