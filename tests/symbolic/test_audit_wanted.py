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
]


@pytest.mark.parametrize(("word", "prose"), POSED, ids=lambda v: str(v)[:20])
def test_a_requirement_word_poses_the_display(word: str, prose: str) -> None:
    assert requirement_before(prose) == word


@pytest.mark.parametrize("prose", CLAIMED, ids=lambda v: v[:24])
def test_words_that_claim_the_display_keep_it_a_step(prose: str) -> None:
    assert requirement_before(prose) is None
