"""A function stated once for a listed set of labels: one definition per label, only where certain."""

from __future__ import annotations

import pytest
from sympy import MatrixSymbol, Symbol

from ropecheck.symbolic.audit.document import Chain, Link
from ropecheck.symbolic.audit.general import indexed_renamed
from ropecheck.symbolic.audit.label_families import label_definitions, labels_after, position_renamed


@pytest.mark.parametrize(
    ("left", "body", "stated", "expected"),
    [
        (
            "f_{t:t\\in\\{q, k\\}}(x_i, i)",
            "W_{t:t\\in\\{q, k\\}}(x_i + p_i)",
            "",
            ["W_{q}(x_i + p_i)", "W_{k}(x_i + p_i)"],
        ),
        ("f_t:t∈\\{q,k\\}(x_i, i)", "W_{t}(x_i + p_i)", "", ["W_{q}(x_i + p_i)", "W_{k}(x_i + p_i)"]),
        ("f_{t}(x_i,i)", "W_{t}(x_i+p_i)", "t\\in\\{q,k\\}", ["W_{q}(x_i+p_i)", "W_{k}(x_i+p_i)"]),
    ],
    ids=["set-in-subscript", "unbraced", "set-after"],
)
def test_each_label_takes_the_index_place(left: str, body: str, stated: str, expected: list[str]) -> None:
    found = label_definitions(left, body, stated)
    assert found is not None and [d[2] for d in found] == expected
    assert [d[1].split("(")[0] for d in found] == ["f_{q}", "f_{k}"]


@pytest.mark.parametrize(
    ("left", "body", "stated"),
    [
        ("f_{t}(x_i, i)", "W_t (x_i + p_{i,2t})", "t \\in \\{q, k\\}"),  # the index elsewhere than as a subscript
        ("f_{t}(x_i, i)", "W_t (x_i + p_i)", ""),  # no set stated
        ("f_{t}(x_i, i)", "W_t (x_i + p_i)", "t \\in \\mathbb{N}"),  # a set, not a list of labels
        ("f_{t:t\\in\\{q\\}}(x_i, i)", "W_t x_i", ""),  # one label is no list
        ("f_{t}(x_i, i)", "W_t x_i", "s \\in \\{q, k\\}"),  # another index
    ],
    ids=["index-elsewhere", "no-set", "not-listed", "one-label", "other-index"],
)
def test_no_reading_without_a_listed_set_used_only_as_the_index(left: str, body: str, stated: str) -> None:
    assert label_definitions(left, body, stated) is None


def test_the_set_after_the_formula_becomes_its_range() -> None:
    a, b = Link("f_{t}(x_i, i)", 3), Link("W_t x_i", 3, "=")
    read = labels_after([Chain((a, b), 3, "\\qquad"), Chain((Link("t \\in \\{q, k\\}", 3),), 3)])
    assert len(read) == 1 and read[0].range == "t \\in \\{q, k\\}"
    kept = labels_after([Chain((Link("g(x)", 3), b), 3), Chain((Link("t \\in \\{q, k\\}", 3),), 3)])
    assert len(kept) == 2  # g carries no index t: the set is said of something else


def test_the_position_i_is_renamed_only_where_it_is_a_subscript() -> None:
    assert position_renamed("f_{q}(x_i, i)", "W_{q}(x_i + p_i)") == ("f_{q}(x_{j}, j)", "W_{q}(x_{j} + p_{j})", "j")
    assert position_renamed("f_{q}(x_i, i)", "W_{q} x_i e^{i \\theta}") is None  # i also the imaginary unit
    assert position_renamed("f_{q}(x_m, m)", "W_{q} x_m") is None


def test_a_call_renames_only_names_indexed_by_the_parameter_alone() -> None:
    x_i, p_i, x_m = MatrixSymbol("x_{i}", 3, 1), MatrixSymbol("p_{i}", 3, 1), MatrixSymbol("x_{m}", 3, 1)
    moved = indexed_renamed(x_i + p_i, (x_i, Symbol("i")), [x_m, Symbol("m")])
    assert {k: v.name for k, v in moved.items()} == {"x_{i}": "x_{m}", "p_{i}": "p_{m}"}
    assert indexed_renamed(x_i + x_m, (x_i, Symbol("i")), [x_m, Symbol("m")]) == {}  # would merge two names
    r_prev = MatrixSymbol("r_{i-1}", 3, 1)
    assert indexed_renamed(r_prev, (Symbol("i"),), [Symbol("m")]) == {}


def test_a_function_written_without_its_arguments_is_not_read() -> None:
    assert label_definitions("f_{t:t\\in\\{q,k\\}}", "W_t (x_i + p_i)", "") is None
    found = label_definitions("f_t:t∈\\{q,k\\}(x_i, i)", "W_{t}(x_i + p_i)，", "")
    assert found is not None and found[0][2] == "W_{q}(x_i + p_i)"
    assert label_definitions("f_{t}(x_t, t)", "W_t x_t", "t \\in \\{q, k\\}") is None  # the index is a parameter too


def test_the_set_written_as_the_subscript_is_left_to_the_one_name_reading() -> None:
    # f_{\{q,k\}} is one name of its own (a claim about it at m = 0 after its definition is a step)
    assert label_definitions("f_{\\{q,k\\}}(x_m,m)", "R_m W_{\\{q,k\\}} x_m", "") is None
