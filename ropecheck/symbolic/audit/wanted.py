"""What the prose before a display asks for: a requirement, a goal or an assumption, not a claim.

Many derivations state what they want before they derive it: "we want the inner product ... to be a function
g of the relative position only:", "the requirement is that ...:", "希望内积 ...：", "the ideal property can be
described by the inequality:". The display after such words poses the equation (or inequality) as a condition;
it is not a step of the derivation, and deciding it as one would judge what the text never claims.

Design constraints: the words must stand in the sentence that leads into the display (the text after the last
sentence end before it, inline math included), or in the sentence just before one that only says "in formula"
("in other words", "写成公式"); an existence statement ("there exists a d such that ...", "存在正交矩阵 P 使得：",
存在 counted only with 使得, 满足 or 使 after it in its clause) may end with a full stop, and the display after it
is a condition on its names, never a definition of its left side; so is inline math written right after the
"such that" of such a statement ("存在可逆矩阵 $P$，使得 $B = P D P^{-1}$", :func:`existence_before`). A word
that turns the sentence into a claim after the requirement word ("we want to show that", "we want to compute", "we
get", "可得", "证明") makes the display a step again. Only whole words count, and only a few (see
:data:`REQUIREMENT_WORDS`); anything else is left to :func:`.reading.condition_before`.
"""

from __future__ import annotations

import re

__all__ = [
    "REQUIREMENT_WORDS",
    "SENTENCE_END",
    "asks_for",
    "existence_before",
    "requirement_before",
    "states_existence",
]

#: Words that pose what follows as a requirement, a goal or an assumption.
REQUIREMENT_WORDS = (
    "we want", "want", "wants", "wish", "we would like", "would like", "we hope", "hope",
    "the goal is", "the aim is", "is required", "are required",
    "the requirement is that", "requirement", "constraint", "constraints", "constrains", "there exists", "there exist",
    "希望", "想要", "要求", "需求", "条件", "约束", "理想性质", "只需",
)  # fmt: skip
#: Words that, after a requirement word, make the display a claim again ("we want to show that ...").
_CLAIM_WORDS = (
    "show", "shows", "prove", "proves", "verify", "check", "confirm", "demonstrate", "compute", "calculate",
    "evaluate", "simplify", "expand", "derive", "get", "gets", "obtain", "yields", "gives", "becomes", "hence",
    "thus", "therefore", "so", "then", "see", "note", "follows", "find", "rewrite", "we have", "is", "equals",
    "equal", "under",
    "证明", "验证", "可得", "可知", "得到", "推出", "推导", "于是", "所以", "从而", "因此", "因而", "故", "则",
    "计算", "化简", "展开", "看到", "发现", "求解", "解得", "为", "等于", "是",
    "證明", "驗證", "推導", "於是", "從而", "計算", "發現", "則", "為",
)  # fmt: skip
#: A sentence that only says the display writes the sentence before it in symbols.
_RESTATING = re.compile(
    r"^\s*(?:in other words|formally|in symbols|written as a formula|that is|i\.e\.|写成公式|用公式表示|公式表达|"
    r"用数学语言|即)",
    re.I,
)
#: a Chinese existence statement: 存在 with 使(得) or 满足 after it in the same clause ("存在正交矩阵 P 使得："); 存在
#: alone ("存在如下关系：") leads into a claim
_EXISTS_SUCH_THAT = r"存在(?=[^。！？；;.!?]*?(?:使(?!用)|满足))"
#: Existence statements, which may end with a full stop before the display that states them.
_EXISTENCE = re.compile(r"(?<![A-Za-z])there exists?(?![A-Za-z])|" + _EXISTS_SUCH_THAT, re.I)
#: the delimiter that opens the display, at the end of the prose before it
_OPENING = re.compile(r"\s*(?:\$+|\\\[|\\\()\s*$")
#: where a sentence ends in prose, English or Chinese (a full stop and a space, or a blank line)
SENTENCE_END = re.compile(r"[.!?。！？；;](?:\s|$)|\n[ \t]*\n")
#: ``such that`` right after ``find``: a goal ("the goal is to find f such that ..."), not a computation
_FIND_SUCH_THAT = re.compile(r"(?<![A-Za-z])find(?![A-Za-z])(?=.*(?<![A-Za-z])such that(?![A-Za-z]))", re.I | re.S)


def _words_rx(words: tuple[str, ...]) -> re.Pattern[str]:
    alts = sorted(words, key=len, reverse=True)
    ascii_rx = [r"(?<![A-Za-z])" + re.escape(w) + r"(?![A-Za-z])" for w in alts if w.isascii()]
    other = [re.escape(w) for w in alts if not w.isascii()]
    return re.compile("|".join(ascii_rx + other), re.I)


_REQUIREMENT_RX = re.compile(_words_rx(REQUIREMENT_WORDS).pattern + "|" + _EXISTS_SUCH_THAT, re.I)
_CLAIM_RX = _words_rx(_CLAIM_WORDS)


def _sentences(prose: str) -> list[str]:
    """The sentences of ``prose``, the last one (after the last sentence end) included even when empty."""
    out, start = [], 0
    for m in SENTENCE_END.finditer(prose):
        out.append(prose[start : m.end()])
        start = m.end()
    return [*out, prose[start:]]


def _leading_clause(prose: str) -> str:
    """The words that lead into the display: its last sentence, with the one before where the last only restates
    it in symbols, or the last full sentence where it is an existence statement ending in a full stop."""
    sentences = _sentences(_OPENING.sub("", prose).rstrip())
    last = sentences[-1]
    if not last.strip() and len(sentences) >= 2 and _EXISTENCE.search(sentences[-2]):
        return sentences[-2]
    if len(sentences) >= 2 and _RESTATING.search(last):
        return sentences[-2] + last
    return last


def requirement_before(prose: str) -> str | None:
    """The requirement word that poses the display right after ``prose``, or None where the words claim it.

    Example:
        >>> requirement_before("More formally, we want the product of $f(x, m)$ and $f(y, n)$ to depend on n - m:")
        'we want'
        >>> requirement_before("We want to show that the product depends on n - m only:") is None
        True
    """
    clause = _leading_clause(prose)
    found = None
    for m in _REQUIREMENT_RX.finditer(clause):
        found = m
    if found is None:
        return None
    rest = _FIND_SUCH_THAT.sub(" ", clause[found.end() :])
    if _CLAIM_RX.search(rest):
        return None
    return found.group(0)


def asks_for(word: str) -> bool:
    """Whether ``word`` (as :func:`requirement_before` gives it) asks for what follows: then the display, a
    condition and no step, is still an equation the document asserts, which later steps may use at other
    positions (:mod:`.premises`).

    Example:
        >>> asks_for("The requirement is that"), asks_for("when")
        (True, False)
    """
    return word.lower() in _ASKING


_ASKING = frozenset(w.lower() for w in (*REQUIREMENT_WORDS, "存在"))


def states_existence(word: str) -> bool:
    """Whether ``word`` (as :func:`requirement_before` gives it) states that something exists: the display after it
    ("there exists an orthogonal P such that B = P D P^T", "存在正交矩阵 P 使得") is a condition on the names,
    never a definition of its left side (B stays whatever it was).

    Example:
        >>> states_existence("存在"), states_existence("There exists"), states_existence("we want")
        (True, True, False)
    """
    return word.lower() in _EXISTING


_EXISTING = frozenset({"there exists", "there exist", "存在"})


#: the words after an existence word that introduce what the thing found satisfies
_SUCH_THAT = re.compile(r"(?<![A-Za-z])such that(?![A-Za-z])|使得|使(?!用)|满足", re.I)
#: inline math in the prose (an earlier equation of the same condition, the name that exists)
_INLINE_MATH = re.compile(r"\$[^$]*\$|\\\((?:(?!\\\)).)*\\\)", re.S)
#: what may stand between "such that" and the inline math it leads into: punctuation, "and", other inline math
_JOINING = re.compile(r"[\s,，、:：]*(?:(?:and|且|和|以及|并且)[\s,，、:：]*)?", re.I)


def existence_before(prose: str) -> str:
    """The existence word ("存在", "there exists") whose "such that" leads right into the inline math after
    ``prose`` (the text from the display before, inline math included, up to the math), or "": that math is a
    condition the thing found satisfies, never a definition of its left side.

    Example:
        >>> existence_before("也就是说，存在可逆矩阵$P$，使得$")
        '存在'
        >>> existence_before("There exists an orthogonal $P$ such that $")
        'There exists'
        >>> existence_before("存在可逆矩阵$P$，使得$B$可以对角化，于是$"), existence_before("存在$")
        ('', '')
    """
    clause = _sentences(_OPENING.sub("", prose).rstrip())[-1]
    found = list(_EXISTENCE.finditer(clause))
    if not found:
        return ""
    such = list(_SUCH_THAT.finditer(clause, found[-1].end()))
    if not such:
        return ""
    gap = _INLINE_MATH.sub(" ", clause[such[-1].end() :])
    return found[-1].group(0) if _JOINING.fullmatch(gap) else ""
