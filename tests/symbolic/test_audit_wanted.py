"""The words before a display that pose it as a requirement, and those that keep it a claim."""

from __future__ import annotations

import pytest

from ropecheck.symbolic.audit.wanted import requirement_before

POSED = [
    ("we want", "More formally, we want the product of $f(x, m)$ and $f(y, n)$ to be a function $g$ of n - m:\n\n$$"),
    ("The requirement is that", "The requirement is that the product depend on the offset only:\n\n"),
    ("constrains", "Given one of the constrains we mention above: \n\n$$"),
    ("希望", "作者希望內積僅以相對形式編碼位置資訊：\n\n$$"),
    ("理想性质", "如果长度为$L$，那么$n\\le L$，因此这个理想性质可以用如下不等式描述：  \n"),
    ("is required", "The product is required to be a function of the offset. In other words, it should be:\n\n"),
    ("there exists", "For a trained model, there exists a $d_0$ such that the lower pairs are trained.\n\n$$"),
    ("条件", "RoFormer 把这个需求写成一个条件:\n\n$$"),
    ("存在", "任意反对称矩阵 $\\mathbf{B}$（$d$ 为偶数），存在正交矩阵 $\\mathbf{P}$ 使得：\n\n$$"),
    ("存在", "由上一节，存在可逆矩阵 $P$ 满足：\n\n$$"),
    ("存在", "存在正交矩阵 $Q$，使得下式成立。\n\n$$"),  # an existence statement may end with a full stop
]

CLAIMED = [
    "We want to show that the product depends on the offset only:\n\n$$",
    "We want to compute the score:\n\n$$",
    "We want the score; expanding, we get:\n\n$$",
    "Under this constraint, the score is:\n\n$$",
    "由上述条件可知：\n\n$$",
    "在这个条件下，内积为：\n\n$$",
    "We want the product to depend on n - m.\n\n$$",  # a full stop: the display after is not what was asked
    "Here the frequency is fixed:\n\n$$",
    "两者之间存在如下关系：\n\n$$",  # 存在 without 使得: what follows is claimed
    "存在正交矩阵 $P$ 使得 $B = P D P^T$，于是可得：\n\n$$",
]


@pytest.mark.parametrize(("word", "prose"), POSED, ids=lambda v: str(v)[:20])
def test_a_requirement_word_poses_the_display(word: str, prose: str) -> None:
    assert requirement_before(prose) == word


@pytest.mark.parametrize("prose", CLAIMED, ids=lambda v: v[:24])
def test_words_that_claim_the_display_keep_it_a_step(prose: str) -> None:
    assert requirement_before(prose) is None


def test_an_existence_statement_poses_a_condition_never_a_definition() -> None:
    from ropecheck.symbolic.audit.run import audit_document

    doc = (
        "Let $\\mathbf{B}$ be square. 存在正交矩阵 $\\mathbf{P}$ 使得：\n\n"
        "$$\\mathbf{B} = \\mathbf{P}\\operatorname{diag}(b_1, \\ldots, b_d)\\mathbf{P}^\\top$$\n\n"
        "$$(\\mathbf{B}\\mathbf{x})^\\top \\mathbf{y} = \\mathbf{x}^\\top \\mathbf{B}^\\top \\mathbf{y}$$\n"
    )
    r = audit_document(doc, timeout=30)
    assert [c.line for c in r.conditions] == [3] and not r.definitions
    (s,) = r.steps  # B stays any square matrix: no definition of it left unread stops the step
    assert s.status == "PROVED" and "whose definition" not in s.reason
