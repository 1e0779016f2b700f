r"""Inline math that a word poses as a condition and that gives names a written column: ``当 $b = [...]^\top$ 时``.

"可以证明，当 $\boldsymbol{a} = \boldsymbol{b} = [\sqrt{\lambda}, 0, \cdots, \sqrt{\lambda}, 0]^\top$ 时, ..." says what
follows under a choice of a and b; it does not say what a and b are. Such inline math is a condition: it is
listed with the conditions and the names keep no value from it (a step that uses them is not read, and says
why). A number or a name given so (``当 $m = n$ 时``) is read as before: a value given in passing, an example or
a condition, never substituted.

Design constraints: text in, text out. Only the words that pose a case ("when", "if", "suppose", "assume",
"provided", 当, 若, 如果, 假设), in the clause right before the inline math; words that define ("let", "set",
令, 设, 取) are left as they were read. The value must be written as a column or a matrix (a bracket list with
commas, or a matrix environment).
"""

from __future__ import annotations

import re

from .document import MathBlock
from .reading import condition_before

__all__ = ["conditional_column", "inline_condition"]

#: the words, among those that pose an equation (:data:`.reading.CONDITION_WORDS`), that pose a case
_CASE_WORDS = frozenset({"when", "if", "suppose", "assume", "assuming", "provided", "当", "若", "如果", "假设"})
_COLUMN = re.compile(r"\\begin\s*\{[bpBvV]?matrix\}|(?:\\left\s*)?\[[^\[\]]*,[^\[\]]*(?:\\right\s*)?\]")


def inline_condition(text: str, blocks: list[MathBlock], at: int) -> str:
    """The word that poses inline block ``at`` as a case (``当``, "if"), or "".

    Example:
        >>> from ropecheck.symbolic.audit.document import math_blocks
        >>> blocks, _ = math_blocks("可以证明，当$b=[1, 0, \\\\cdots]^T$时成立。", latex=False)
        >>> inline_condition("可以证明，当$b=[1, 0, \\\\cdots]^T$时成立。", blocks, 0)
        '当'
    """
    block = blocks[at]
    if block.kind != "inline":
        return ""
    start = blocks[at - 1].end if at else 0
    word = condition_before(text[start : block.src.col(0)].strip("$"))
    return word if word is not None and word.lower() in _CASE_WORDS else ""


def conditional_column(value: str) -> bool:
    """Whether a value is written as a column or a matrix (a bracket list with commas, a matrix environment).

    Example:
        >>> conditional_column(r"[\\sqrt{\\lambda}, 0, \\cdots]^{\\top}"), conditional_column("n")
        (True, False)
    """
    return _COLUMN.search(value) is not None
