"""Which uses of a bare name whose definition could not be read are only parts of other names' spellings."""

from __future__ import annotations

import pytest

from ropecheck.symbolic.audit.label_uses import (
    family_bases,
    index_arithmetic,
    subscript_count,
    without_family_members,
    without_label_uses,
)
from ropecheck.symbolic.readers.latex_syntax import normalize_latex


def _uses(text: str, families: frozenset[str] = frozenset()) -> bool:
    return "k" in without_label_uses("k", normalize_latex(text), families, number=True)


@pytest.mark.parametrize(
    "text",
    [
        r"\mathbf k_j",
        r"\mathbf{k}_j^{(1)}",
        r"k_{3} + k_n",
        r"W_k x",
        r"\mathbf W_k x",
        r"r_{k+1}",
        r"\theta_{k}",
        r"k^T_j",  # the transpose of k_j: TeX sets k^T_j as k_j^T
    ],
)
def test_other_names_spelled_with_the_letter_are_not_the_bare_name(text: str) -> None:
    assert not _uses(text)


@pytest.mark.parametrize(
    "text",
    [r"p^{i+k}", r"\mathbf T^k", r"\Phi^k_m", r"2k", r"\sum_{k=1}^{n} a", r"\hat{k}_j", r"k_j + k"],
)
def test_the_bare_name_itself_stays_a_use(text: str) -> None:
    assert _uses(text)


def test_a_subscript_of_a_defined_family_stays_a_use() -> None:
    # theta_i = ... and f_t = ...: theta_k and f_k(x) are read at the bare k's value
    families = family_bases([r"\theta", "f", r"R_{\Theta,*}"])
    assert families == frozenset({"theta", "f", "R"})
    for text in (r"\theta_k", r"f_k(x, n)", r"R_{\Theta,k}"):
        assert _uses(text, families)
    assert not _uses(r"W_k", families)


def test_a_name_with_a_subscript_is_left_as_it_is() -> None:
    assert without_label_uses("k_{j}", r"k_j + W_k", frozenset(), number=True) == r"k_j + W_k"


def test_a_name_with_a_subscript_may_be_an_entry_of_a_value_not_known_to_be_a_number() -> None:
    # k = R v, not read: k_3 may be its third entry, so it stays a use; W_k is a label still
    text = without_label_uses("k", r"k_3 + W_k", frozenset(), number=False)
    assert text == r"k_3 + W_@"


def test_only_arithmetic_of_indices_is_a_number() -> None:
    math = [r"a_{i,j} = q_i k_j", r"x_{2m} + y_n"]
    assert index_arithmetic("j - i", math) and index_arithmetic("m + 1 - n", math)
    assert not index_arithmetic("j - v", math)  # v is no index the document writes
    assert not index_arithmetic("2j - i", math)  # a product
    assert not index_arithmetic(r"R_{\Theta} v", math) and not index_arithmetic("j", math)


@pytest.mark.parametrize(
    ("count", "text", "patterns", "kept"),
    [
        (0, r"\frac{2\pi}{\theta_j}", [r"\theta"], False),  # the family member, read at the family's value
        (0, r"\theta_{5} + \theta", [r"\theta"], True),  # the bare name itself stays a use
        (0, r"\frac{2\pi}{\theta_j}", [r"\phi"], True),  # no family on the letter: a possible entry
        (1, r"\theta_{i,d}", ["theta_{i,*}"], False),  # two subscripts, read by the family over the last one
        (1, r"\theta_{k,d}", ["theta_{i,*}"], True),  # another first subscript: no member of that family
        (1, r"\theta_d", [r"\theta"], True),  # as many subscripts as the unread name: a use
    ],
)
def test_members_of_a_family_on_the_letter_are_blanked(count: int, text: str, patterns: list[str], kept: bool) -> None:
    out = without_family_members("theta", count, normalize_latex(text), patterns)
    assert ("theta" in out) is kept


def test_subscripts_are_counted_at_top_level_commas() -> None:
    assert [subscript_count(k) for k in ("q", "q_{m}", "R_{\\theta,*}", "a_{{i,j},k}")] == [0, 1, 2, 2]
