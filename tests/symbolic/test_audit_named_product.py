"""``R_m q`` = a written matrix times ``q``'s own column: read as the definitions of both names, and only so."""

from __future__ import annotations

from ropecheck.symbolic.audit.named_product import named_product
from ropecheck.symbolic.audit.run import audit_document

MATRIX = r"\begin{pmatrix} \cos m\theta & -\sin m\theta \\ \sin m\theta & \cos m\theta \end{pmatrix}"
TIMEOUT = 30.0


def test_a_product_of_names_equal_to_a_matrix_times_the_vectors_entries_names_both() -> None:
    found = named_product(r"R_{\Theta, m}^d x", MATRIX + r" \begin{pmatrix} x_1 \\ x_2 \end{pmatrix}")
    assert found == (r"R_{\Theta, m}^d", MATRIX, "x", r"\begin{pmatrix} x_1 \\ x_2 \end{pmatrix}")
    assert named_product("R_mq", MATRIX + r"\begin{pmatrix} q_0 \\ q_1 \end{pmatrix}") is not None


def test_anything_else_is_not_read_so() -> None:
    column = r"\begin{pmatrix} q_0 \\ q_1 \end{pmatrix}"
    assert named_product("R_m q", MATRIX + r"\begin{pmatrix} q_0 \\ q_2 \end{pmatrix}") is None  # not its entries
    assert named_product("R_m q", MATRIX + r"\begin{pmatrix} k_0 \\ k_1 \end{pmatrix}") is None  # another's
    assert named_product("R_m q", MATRIX + r"\begin{pmatrix} q_0 \\ q_1 \\ q_2 \end{pmatrix}") is None  # sizes
    assert named_product("R_m q k", MATRIX + column) is None  # three names
    assert named_product("2 R_m q", MATRIX + column) is None
    assert named_product("R_m q", r"\begin{pmatrix} q & 0 \\ 0 & 1 \end{pmatrix}" + column) is None  # uses q
    assert named_product("R_m q", column + MATRIX) is None


def test_a_name_defined_before_is_not_defined_again_by_the_product() -> None:
    doc = "$$\nq = \\begin{pmatrix} a \\\\ b \\end{pmatrix}\n$$\n\n$$\nR_m q = " + MATRIX
    doc += r" \begin{pmatrix} q_0 \\ q_1 \end{pmatrix}" + "\n$$\n"
    r = audit_document(doc, timeout=TIMEOUT)
    assert [s.line for s in r.steps] == [6] and [d.name for d in r.definitions] == ["q"]


def test_a_column_whose_entry_has_a_value_is_no_vector_of_its_own_entries() -> None:
    doc = "$$\nq_0 = 3\n$$\n\n$$\nR_m q = " + MATRIX + r" \begin{pmatrix} q_0 \\ q_1 \end{pmatrix}" + "\n$$\n"
    r = audit_document(doc, timeout=TIMEOUT)
    assert [s.line for s in r.steps] == [6] and [d.name for d in r.definitions] == ["q_{0}"]
