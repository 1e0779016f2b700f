"""Claims with a where-clause (``... \\quad q = (q_1, q_2)^T``): the names it defines are read in the claim,
the clause is said in the readings, and a clause that is not a list of definitions is refused."""

from __future__ import annotations

import pytest

from ropecheck.errors import ClaimParseError
from ropecheck.symbolic.engine.proof import Verdict
from ropecheck.symbolic.readers.claim import check_claim
from ropecheck.symbolic.readers.where import split_where

ROTATION = r"\begin{pmatrix} \cos t & -\sin t \\ \sin t & \cos t \end{pmatrix}"


@pytest.mark.parametrize(
    "claim,verdict",
    [
        (
            r"\mathbf{q}^T \mathbf{k} = q_1 k_1 + q_2 k_2 \quad \mathbf{q} = (q_1, q_2)^T, \mathbf{k} = (k_1, k_2)^T",
            "PROVED",
        ),
        (
            r"\mathbf{q}^T \mathbf{k} = q_1 k_1 + q_1 k_2 \text{ where } "
            r"\mathbf{q} = (q_1, q_2), \mathbf{k} = (k_1, k_2)",
            "REFUTED",
        ),
        (
            rf"R x = (x_1 \cos t - x_2 \sin t, x_1 \sin t + x_2 \cos t), \quad R = {ROTATION}, \; x = (x_1, x_2)^T",
            "PROVED",
        ),
        (
            rf"R x = (x_1 \cos t + x_2 \sin t, x_1 \sin t + x_2 \cos t), \quad R = {ROTATION}, \; x = (x_1, x_2)^T",
            "REFUTED",
        ),
        (
            r"\boldsymbol{q}^{\mathsf T} \boldsymbol{k} = \boldsymbol{k}^\top \boldsymbol{q} "
            r"\qquad \boldsymbol{q} = (a, b), \boldsymbol{k} = (c, d)",
            "PROVED",
        ),
        # a later definition uses an earlier one
        (r"y = 2 x \quad x = (a, b), \; y = x + x", "PROVED"),
    ],
)
def test_a_where_clause_defines_the_claims_names(claim: str, verdict: str) -> None:
    r = check_claim(claim)
    assert r.verdict == Verdict(verdict)
    assert any("(the where-clause)" in x for x in r.readings)


def test_without_the_clause_the_same_claim_is_another_statement() -> None:
    # q^T k of two numbers is not read; with the clause it is the dot product
    with pytest.raises(ClaimParseError, match="transpose"):
        check_claim(r"\mathbf{q}^T \mathbf{k} = q_1 k_1 + q_2 k_2")


@pytest.mark.parametrize(
    "claim,words",
    [
        (r"a = b \quad a = 1 + 1 = 2", "name = value"),  # two '=' in one part
        (r"a = b \quad 2 a = 1", "name = value"),  # not a name on the left
        (r"a = b \quad a = 1, a = 2", "defined twice"),
    ],
)
def test_a_clause_that_is_not_a_list_of_definitions_is_refused(claim: str, words: str) -> None:
    with pytest.raises(ClaimParseError, match=words) as exc:
        check_claim(claim)
    assert exc.value.position is not None and exc.value.position > claim.index("\\quad")


def test_the_clause_is_cut_where_it_starts() -> None:
    claim, clauses = split_where(r"R x = (a, b)^T, \quad R = I, \; x = (x_1, x_2)^T.")
    assert claim == "R x = (a, b)^T"
    assert [(c.name, c.value) for c in clauses] == [("R", " I"), ("x", " (x_1, x_2)^T")]
    assert split_where(r"a = b") == ("a = b", [])
    assert split_where(r"a = b \quad m \ne n") == (r"a = b \quad m \ne n", [])  # no definition: not a clause
