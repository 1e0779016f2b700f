"""Spellings that once gave a false verdict: an unbraced ``\\bar z`` (read as a name ``bar`` times z), ``\\times``
beside bold vectors (a cross product read as a product of numbers), ``\\otimes`` between matrices (a Kronecker
product read entry by entry), ``\\odot`` between matrices never written out (read as the matrix product), ``\\ast``
between factors (read as a name ``ast``), and a bold letter read as a number beside a matrix
(``ropecheck.symbolic.readers.latex_syntax``, ``latex_tree``, ``claim``). Documents that write them:
``tests/fixtures/audit/world/`` (``bar_unbraced``, ``cross_product_bold``, ``kronecker_otimes``,
``hadamard_general`` and their twins)."""

from __future__ import annotations

import pytest

from ropecheck.errors import ClaimParseError
from ropecheck.symbolic.audit.run import audit_document
from ropecheck.symbolic.engine.proof import Verdict
from ropecheck.symbolic.readers.claim import check_claim


def _claim(text: str) -> Verdict:
    return check_claim(text, syntax="latex").verdict


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        # once bar*z*z: the true step refuted, with a name "bar" in the counterexample
        (r"|z|^2 = z\bar z", Verdict.PROVED),
        (r"|z|^2 = z\bar z^2", Verdict.REFUTED),
        (r"|\theta|^2 = \theta\bar\theta", Verdict.PROVED),
        (r"\theta \in \mathbb{C}: |\theta|^2 = \theta\theta", Verdict.REFUTED),
        (r"q, k \in \mathbb{C}: \Re(q\bar k) = \Re(q)\Re(k) + \Im(q)\Im(k)", Verdict.PROVED),
        (r"q, k \in \mathbb{C}: \Re(q\bar k) = \Re(q)\Re(k) - \Im(q)\Im(k)", Verdict.REFUTED),
    ],
)
def test_an_unbraced_bar_conjugates_the_one_token_after_it(claim: str, verdict: Verdict) -> None:
    assert _claim(claim) is verdict


@pytest.mark.parametrize(
    ("claim", "words"),
    [
        # once a*b: the true anticommutation refuted, the false commutation proved
        (r"\mathbf{a} \times \mathbf{b} = -\mathbf{b} \times \mathbf{a}", "cross product"),
        (r"\mathbf{a} \times \mathbf{b} = \mathbf{b} \times \mathbf{a}", "cross product"),
        (r"\vec a \times (\vec b + \vec c) = \vec a \times \vec b + \vec a \times \vec c", "cross product"),
        (r"\mathbf{a} × \mathbf{b} = \mathbf{b} × \mathbf{a}", "cross product"),
        # once the name "ast" times a times b: a product refuted
        (r"a \ast b = ab", "convolution"),
        # once entry by entry: a 2x2 of zeros, the false step proved
        (
            r"\begin{pmatrix} 1 & 0 \\ 0 & 0 \end{pmatrix} \otimes \begin{pmatrix} 0 & 1 \\ 0 & 0 \end{pmatrix}"
            r" = \begin{pmatrix} 0 & 0 \\ 0 & 0 \end{pmatrix}",
            "Kronecker",
        ),
        # once q a number: a matrix scaled, products that commute (a true step refuted, a false one proved)
        (r"(R(a)\mathbf{q})\cdot(R(b)\mathbf{k}) = \mathbf{q}\cdot(R(b-a)\mathbf{k})", "written bold"),
        (r"R(a)\mathbf{q} = \mathbf{q}R(a)", "written bold"),
    ],
)
def test_products_that_read_two_ways_are_refused(claim: str, words: str) -> None:
    with pytest.raises(ClaimParseError, match=words):
        check_claim(claim, syntax="latex")


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        (r"2 \times 32 = 64", Verdict.PROVED),
        (r"2 \times 32 = 66", Verdict.REFUTED),
        (r"k^\ast = \bar k", Verdict.PROVED),
        (r"k^{\ast} = k", Verdict.REFUTED),
        (r"(a, b) \otimes (c, d) = (ac, bd)", Verdict.PROVED),
        (r"(a, b) \otimes (c, d) = (ad, bc)", Verdict.REFUTED),
        (r"\mathbf{R}(a)^T \mathbf{R}(b) = \mathbf{R}(b-a)", Verdict.PROVED),
        (r"\mathbf{R}(a)^T \mathbf{R}(b) = \mathbf{R}(a-b)", Verdict.REFUTED),
        (r"\vec{q}^T \vec{k} = q_1 k_1 + q_2 k_2 \quad \vec{q} = (q_1, q_2), \vec{k} = (k_1, k_2)", Verdict.PROVED),
        (r"\vec{q}^T \vec{k} = q_1 k_1 - q_2 k_2 \quad \vec{q} = (q_1, q_2), \vec{k} = (k_1, k_2)", Verdict.REFUTED),
    ],
)
def test_the_same_signs_between_numbers_or_written_vectors_are_still_read(claim: str, verdict: Verdict) -> None:
    assert _claim(claim) is verdict


def _steps(body: str) -> list[tuple[str, str]]:
    r = audit_document("# Note\n\nOne step.\n\n$$\n" + body + "\n$$\n", path="note.md")
    return [(s.status, s.reason) for s in r.steps]


def test_an_entrywise_product_of_general_matrices_is_not_the_matrix_product() -> None:
    # once W V on both sides: the false step proved by matrix algebra
    [(status, _)] = _steps(r"\mathbf{W} \odot \mathbf{V} = \mathbf{W}\mathbf{V}")
    assert status == "UNDECIDED"
    [(status, _)] = _steps(r"\mathbf{u} \odot \mathbf{v} = \mathbf{v} \odot \mathbf{u}")
    assert status == "PROVED"


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        (r"\mathbf{A}\mathbf{B} = \mathbf{B}\mathbf{A}", Verdict.UNDECIDED),
        (r"\mathbf{W}_q \mathbf{W}_k = \mathbf{W}_k \mathbf{W}_q", Verdict.UNDECIDED),
        (r"(\mathbf{A}+\mathbf{B})^2 = \mathbf{A}^2 + 2\mathbf{A}\mathbf{B} + \mathbf{B}^2", Verdict.UNDECIDED),
        (r"\mathbf{A}(\mathbf{B}+\mathbf{C}) = \mathbf{A}\mathbf{B}+\mathbf{A}\mathbf{C}", Verdict.PROVED),
        (r"\mathbf{W}(\mathbf{x} + \mathbf{y}) = \mathbf{W}\mathbf{x} + \mathbf{W}\mathbf{y}", Verdict.PROVED),
        (r"\mathbf{A}\mathbf{B} = \mathbf{A}\mathbf{C}", Verdict.REFUTED),
    ],
)
def test_bold_capitals_are_proved_only_as_matrices(claim: str, verdict: Verdict) -> None:
    """A claim proved with bold capitals read as numbers stands only where it is also proved with them read as
    general matrices in their written order; a counterexample in numbers (scalar matrices) still refutes."""
    assert _claim(claim) is verdict
