"""Steps about one block-diagonal family between vectors the document never defines, read through the blocks."""

from __future__ import annotations

import sympy

from ropecheck.symbolic.audit.block_families import BlockFamily, dotted_family, family_step
from ropecheck.symbolic.audit.family_names import FamilyName, family_name, plain_members
from ropecheck.symbolic.audit.general import GeneralStep, array_names
from ropecheck.symbolic.readers.scope import Definition, Scope

_TURN = r"\begin{pmatrix} \cos(a\phi_{j}) & -\sin(a\phi_{j}) \\ \sin(a\phi_{j}) & \cos(a\phi_{j}) \end{pmatrix}"
#: the same turn whose first block is by the place itself (the rate at block 0 is 1)
_FIRST_BY_PLACE = r"\begin{pmatrix} \cos(a 2^{j}) & -\sin(a 2^{j}) \\ \sin(a 2^{j}) & \cos(a 2^{j}) \end{pmatrix}"
_T = BlockFamily(r"\mathcal{T}", "a", _TURN, 0, 3)


def _step(lhs: str, rhs: str, family: BlockFamily = _T, scope: Scope | None = None) -> GeneralStep | None:
    _, arrays = array_names([f"{lhs} = {rhs}"])
    scope = scope or Scope()
    return family_step(lhs, rhs, Scope(array_names=arrays, domains=scope.domains, patterns=scope.patterns), family)


def _status(lhs: str, rhs: str, family: BlockFamily = _T) -> str | None:
    found = _step(lhs, rhs, family)
    return None if found is None else found.status


def test_the_gap_between_vectors_is_proved_for_every_number_of_blocks() -> None:
    found = _step(r"p^T \mathcal{T}_a^T \mathcal{T}_b r", r"p^T \mathcal{T}_{b-a} r")
    assert found is not None and found.status == "PROVED" and found.counterexample is None
    assert "for every size (every number of blocks)" in found.reason and "p d x 1" in found.reason


def test_the_gap_the_wrong_way_between_vectors_is_undecided_never_refuted() -> None:
    found = _step(r"p^T \mathcal{T}_a^T \mathcal{T}_b r", r"p^T \mathcal{T}_{a-b} r")
    assert found is not None and found.status == "UNDECIDED" and "do not sum to zero" in found.reason


def test_the_identity_stands_where_no_member_is() -> None:
    assert _status(r"p^T \mathcal{T}_a^T \mathcal{T}_a r", r"p^T r") == "PROVED"
    assert _status(r"p^T \mathcal{T}_a \mathcal{T}_b r", r"p^T \mathcal{T}_{b-a} r") == "UNDECIDED"


def test_a_matrix_between_members_is_never_moved_past_them() -> None:
    assert _step(r"p^T \mathcal{T}_a^T M \mathcal{T}_b r", r"p^T M \mathcal{T}_{b-a} r") is None


def test_a_squared_norm_of_real_names_is_the_product_with_its_transpose() -> None:
    norm = r"\|\boldsymbol{\mathcal{T}}_a \boldsymbol{z}\|^2"
    found = _step(norm, r"\boldsymbol{z}^T \boldsymbol{z}")
    assert found is not None and found.status == "PROVED" and "read as E^T E" in found.reason
    assert _step(norm, r"\boldsymbol{z}^T \boldsymbol{z}", scope=Scope(domains={"z": "complex"})) is None


def test_members_alone_are_refuted_at_the_first_block_only_in_the_positions() -> None:
    first = BlockFamily(r"\mathcal{T}", "a", _FIRST_BY_PLACE, 0, 3)
    found = _step(r"\mathcal{T}_a^T \mathcal{T}_b", r"\mathcal{T}_{a-b}", first)
    assert found is not None and found.status == "REFUTED" and "block 0" in found.reason
    cex = found.counterexample
    assert {str(k) for k in cex.values} <= {"a", "b"}
    entry = (found.lhs - found.rhs)[cex.entry].xreplace(cex.values)  # the first blocks differ at the values shown
    assert abs(complex(sympy.N(entry, 30))) > 1e-12
    # the first block's rate a name of its own: a counterexample would choose it too
    found = _step(r"\mathcal{T}_a^T \mathcal{T}_b", r"\mathcal{T}_{a-b}")
    assert found is not None and found.status == "UNDECIDED" and found.counterexample is None


def test_an_earlier_value_of_the_name_gives_way_to_the_drawing_but_a_later_one_does_not() -> None:
    earlier = Definition("pattern", r"\mathrm{calT}", None, source="T_a = O^a", line=2)
    found = _step(
        r"p^T \mathcal{T}_a^T \mathcal{T}_b r", r"p^T \mathcal{T}_{b-a} r", scope=Scope(patterns={"calT": earlier})
    )
    assert found is not None and found.status == "PROVED"
    later = Definition("pattern", r"\mathrm{calT}", None, source="T_a = O^a", line=9)
    assert (
        _step(r"p^T \mathcal{T}_a^T \mathcal{T}_b r", r"p^T \mathcal{T}_{b-a} r", scope=Scope(patterns={"calT": later}))
        is None
    )


def test_a_drawing_with_dots_to_its_last_block_is_a_family_over_its_subscript() -> None:
    body = (
        r"\begin{pmatrix} \boldsymbol{B}_{m\phi_0} & \boldsymbol{0} & \cdots & \boldsymbol{0} \\ "
        r"\boldsymbol{0} & \boldsymbol{B}_{m\phi_1} & \cdots & \boldsymbol{0} \\ \vdots & \vdots & \ddots & \vdots \\ "
        r"\boldsymbol{0} & \boldsymbol{0} & \cdots & \boldsymbol{B}_{m\phi_{h/2-1}} \end{pmatrix}"
    )
    family = dotted_family(r"\boldsymbol{\mathcal{T}}", "m", body, 7)
    assert family is not None and family.block == r"\boldsymbol{B}_{m\phi_{{j}}}" and family.start == 0
    assert dotted_family(r"\boldsymbol{\mathcal{T}}", "n", body, 7) is None  # its blocks do not use n
    assert dotted_family(r"\boldsymbol{\mathcal{T}}", "m", body + r" + \boldsymbol{I}", 7) is None


def test_a_labelled_name_with_a_raised_size_is_split_and_its_members_written_plainly() -> None:
    name = family_name(r"R_{\Theta, m}^d")
    assert name == FamilyName("R", "d", r"\Theta", "m")
    step = r"x_m^\top W_q^\top R_{\Theta, m}^{d\top} R_{\Theta, n}^d W_k x_n"
    assert plain_members(step, name, "P") == r"x_m^\top W_q^\top P_{m}^{\top} P_{n} W_k x_n"
    # another raised size, another label, or the letter used otherwise: not members of this family
    assert plain_members(r"R_{\Theta, m}^{2} x", name, "P") is None
    assert plain_members(r"R_{\Phi, m}^d x", name, "P") is None
    assert plain_members(r"R(\theta) x", name, "P") is None
    assert family_name(r"R_m") is None and family_name(r"R^d_{\Theta, 2m}") is None


def test_raised_size_families_are_found_and_their_members_read_as_general_matrices() -> None:
    from ropecheck.symbolic.audit.family_names import raised_families
    from ropecheck.symbolic.audit.raised_members import raised_step
    from ropecheck.symbolic.audit.run import audit_document
    from ropecheck.symbolic.readers.scope import Scope

    # a raised word of letters on a capital names a family; a power, a transpose or a lower-case letter does not
    found = raised_families(r"R^d_{\Theta,m} x + \mathbf{p}^i_{m} + A^{-1}_m + B^T_m")
    assert [(f.base, f.raised, f.label, f.param) for f in found] == [("R", "d", r"\Theta", "m")]
    sc = Scope(array_names=frozenset({"W", "x"}))
    right = raised_step(r"(R^d_{\Theta,m} W x)^T R^d_{\Theta,n} x", r"x^T W^T (R^d_{\Theta,m})^T R^d_{\Theta,n} x", sc)
    swapped = raised_step(
        r"(R^d_{\Theta,m} W x)^T R^d_{\Theta,n} x", r"x^T W^T R^d_{\Theta,n} (R^d_{\Theta,m})^T x", sc
    )
    assert right is not None and right.status == "PROVED"
    assert swapped is not None and swapped.status == "UNDECIDED" and "may vanish" in swapped.reason
    # a family the document writes out is read through its entries, not here
    doc = (
        "Let $R^d_{\\Theta,m} = \\begin{pmatrix} \\cos m & -\\sin m \\\\ \\sin m & \\cos m \\end{pmatrix}$.\n\n"
        "$$(R^d_{\\Theta,m})^T R^d_{\\Theta,n} = R^d_{\\Theta,n-m}$$\n"
    )
    (step,) = audit_document(doc, timeout=60).steps
    assert step.status == "PROVED" and "of its own" not in step.reason


def test_a_block_named_with_one_index_more_is_the_defined_family_at_any_rate_of_its_own() -> None:
    a, phi = sympy.symbols("a phi")
    turn = sympy.Matrix([[sympy.cos(a * phi), -sympy.sin(a * phi)], [sympy.sin(a * phi), sympy.cos(a * phi)]])
    two = Definition("pattern", "B", turn, (a,), line=4)
    rates = Definition("pattern", "phi", 3 ** (-a), (a,), line=6)
    family = dotted_family("B", "a", r"\text{diag}\left(B^{(2)}_{\Phi,a,1}, \dots, B^{(2)}_{\Phi,a,h/2}\right)", 6)
    assert family is not None and family.block == r"B^{(2)}_{\Phi,a,{j} + 1}"
    scope = Scope(patterns={r"B^{(2)}_{\Phi,*}": two, r"\phi": rates})
    found = _step(r"p^T B_a^T B_b r", r"p^T B_{b-a} r", family, scope)
    assert found is not None and found.status == "PROVED" and "a number of block j's own" in found.reason
    # the wrong way round needs a value of the rate to be refuted: never refuted
    wrong = _step(r"p^T B_a^T B_b r", r"p^T B_{a-b} r", family, scope)
    assert wrong is None or wrong.status == "UNDECIDED"
    # where the text does not give the rate per index, what the last index chooses is not read
    assert _step(r"p^T B_a^T B_b r", r"p^T B_{b-a} r", family, Scope(patterns={r"B^{(2)}_{\Phi,*}": two})) is None


def test_a_block_that_is_a_name_with_no_value_is_never_read_as_a_number() -> None:
    family = BlockFamily("G", "a", r"K_{\phi_{j}, a}", 0, 3, dotted=True)
    assert _step(r"G_a^T", r"G_a", family) is None  # true of numbers, false of turns
    assert _step(r"p^T G_a^T G_b r", r"p^T G_{b-a} r", family) is None
