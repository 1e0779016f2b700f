"""Displays the words right before them mark as false: ``It is false that $$(a+b)^2 = a^2 + b^2$$``.

A write-up often shows the mistake it warns against (``this is wrong:``, ``a common mistake is to write``,
``以下等式不成立：``, ``错误的是``). Such a display is not asserted by the document: refuting it would blame the
text for what it rejects, and proving it would contradict the text. Its equations are no steps; the audit lists
them with the words that mark them (:func:`stated_false_before`), as it lists a condition.

Design constraints: pure text; conservative -- only a marker that ends the prose right before the display (the
last clause, nothing after the marker but ``that``, ``to write``, a colon) counts, never one negated
(``it is not false that``), nor one further back in the sentence; a marker missed leaves a step as before.
"""

from __future__ import annotations

import re

from .wanted import SENTENCE_END

__all__ = ["asked_or_conditional_after", "stated_false_after", "stated_false_before", "stated_false_tag"]

#: what may follow the marker before the display: "that", "to write", "the identity", a colon
_FALSE_TAIL = (
    r"(?:\s+(?:to\s+(?:write|claim|assume|think|say|expect|conclude)|that|the\s+(?:identity|equation|formula|claim)"
    r"|(?:as|is|reads?)))*\s*(?:that)?\s*[:：,，]?\s*$"
)
#: the English markers: "it is false that", "this is wrong", "a common mistake is", "one might wrongly write"
_FALSE_EN = re.compile(
    r"(?<![A-Za-z])(?:"
    r"(?:it\s+is|it's|this\s+is|that\s+is|is|are|would\s+be|seems?)\s+(?:(?:plainly|clearly|simply|completely)\s+)?"
    r"(?:false|wrong|incorrect|not\s+true|untrue|invalid|a\s+mistake|an\s+error)"
    r"|(?:a\s+|the\s+)?(?:common|typical|frequent|classic)\s+(?:mistake|error|pitfall|misconception|slip)(?:\s+is)?"
    r"|(?:wrong|incorrect|false|mistaken|erroneous|bogus|invalid)\s*(?:claim|statement|identity|formula|equation|"
    r"expansion|version|derivation|step|result)?\s*[:：]"
    r"|(?:one|we|you|people|many)\s+(?:might|may|could|often|would)\s+(?:wrongly|mistakenly|incorrectly|naively)"
    r"\s+(?:write|think|claim|assume|expect|conclude)"
    r"|does\s+not\s+hold|doesn't\s+hold|do\s+not\s+hold"
    r")" + _FALSE_TAIL,
    re.IGNORECASE,
)
#: the same in Chinese: "不成立", "错误的是", "是错误的", "常见的错误是", "错误写法"
_FALSE_ZH = re.compile(
    r"(?:不成立|并不成立|不正确|是错(?:误)?的|错误的(?:是|写法|等式|结论|推导)|常见(?:的)?错误(?:是|为)?|错误(?:写法|地写成|地认为)"
    r"|误以为|并不等于)(?:是|为|如下|下式|以下)?(?:认为|以为|写成|写作)?\s*[:：,，]?\s*$"
)
#: what, right after a display, says it is false: "is wrong.", "is a common mistake;", "but this is not so", "不成立"
_FALSE_AFTER = re.compile(
    r"^[\s,，.]*(?:(?:which|that|this)\s+)?(?:(?:is|are)\s+(?:(?:plainly|clearly|simply)\s+)?(?:false|wrong|incorrect|"
    r"not\s+true|untrue|invalid|(?:a|an)\s+(?:(?:common|typical|frequent|classic)\s+)?(?:mistake|error|pitfall|"
    r"misconception))|does\s+not\s+hold|doesn't\s+hold|(?:but\s+)?this\s+is\s+(?:not\s+so|false|wrong|incorrect))"
    r"(?:\s+in\s+general)?\s*(?:[.;:!,]|$|\s+(?:since|because|as|in\s+fact|and|but)\b)"
    r"|^[\s,，]*(?:(?:这|此|上式|该式)\s*)?(?:是错(?:误)?的|不成立|并不成立|不正确)",
    re.IGNORECASE,
)
#: a heading right before the display that names it a mistake: ``## Incorrect``, ``### 错误写法``
_FALSE_HEADING = re.compile(
    r"^#{1,6}\s*(?:(?:the\s+)?wrong(?:\s+way)?|incorrect|(?:a\s+)?(?:common\s+)?(?:mistakes?|pitfalls?)|错误|错误示范|"
    r"错误写法|常见错误)\s*[:：]?\s*$",
    re.IGNORECASE,
)
#: struck out: ``~~$$...$$~~``, ``<del>``, ``<s>`` opening right before the display (never the ``~~~`` that closes a
#: code fence above it)
_STRUCK = re.compile(r"(?:(?<!~)~~|<del>|<s>)\s*$")
#: a tag inside the display that marks it: ``\quad \text{(wrong)}``, ``\text{错误}``, ✗
_FALSE_TAG = re.compile(
    r"\\(?:text|textrm|mbox|textbf|textit|mathrm)\s*\{\s*\(?\s*(?:wrong|incorrect|false|not\s+true|(?:a\s+)?mistake|"
    r"错误|错|不成立|不对)\s*[!.]?\s*\)?\s*\}|✗|❌|✘",
    re.IGNORECASE,
)
#: right after a display, a question (``hold?``, ``吗？``) or a condition it holds only under (``only when``, ``仅在``)
_ASKED_AFTER = re.compile(r"^[\s,，]*(?:(?:hold|holds|true|follow)\s*)?[?？]|^[\s,，]*(?:吗|是否成立)", re.IGNORECASE)
_CONDITIONAL_AFTER = re.compile(
    r"^[\s,，]*(?:(?:which|that|this|it)\s+)?(?:(?:only\s+)?holds?\s+only|is\s+(?:true|valid)\s+only|only\s+holds|"
    r"only\s+(?:when|if|for)|if\s+and\s+only\s+if|iff)\b|^[\s,，]*(?:仅|只有?|唯有)(?:在|当)|^[\s,，]*当且仅当",
    re.IGNORECASE,
)
#: a negation right before a marker: "it is not false that", "这并非错误"
_NEGATED = re.compile(r"(?:\bnot|n't|never|hardly|并非|不是)\s*$", re.IGNORECASE)


def stated_false_before(prose: str) -> str | None:
    """The words that mark the display right after ``prose`` as false, or None.

    ``prose`` is the text between the math before and the display; only its last clause is read.

    Example:
        >>> stated_false_before("A common slip. It is false that"), stated_false_before("It is not false that")
        ('It is false that', None)
        >>> stated_false_before("以下等式不成立："), stated_false_before("If this is wrong, then")
        ('以下等式不成立：', None)
    """
    prose = prose.rstrip().rstrip("$").rstrip()
    ends = list(SENTENCE_END.finditer(prose))
    clause = prose[ends[-1].end() :] if ends else prose
    clause = clause.strip()
    if _STRUCK.search(prose):
        return prose[_STRUCK.search(prose).start() :].strip()  # type: ignore[union-attr]
    if not clause or len(clause) > 120:
        return None
    if _FALSE_HEADING.match(clause):
        return clause
    for rx in (_FALSE_EN, _FALSE_ZH):
        m = rx.search(clause)
        if m is None or _NEGATED.search(clause[: m.start()]):
            continue
        if re.match(r"\s*(?:(?:if|when|unless|whether|suppose)\b|假如|如果|若)", clause, re.IGNORECASE):
            return None  # "if this is wrong:" poses a case, it marks nothing
        return clause
    return None


def stated_false_after(prose: str) -> str | None:
    """The words that open ``prose`` (the text right after a display, up to the next math) when they mark the
    display as false (``$$A = B$$ is a common mistake;``), or None. Nothing may stand before them but a comma.

    Example:
        >>> stated_false_after(" is wrong: the cross term is missing"), stated_false_after(" is wrong unless a = 0")
        ('is wrong:', None)
    """
    m = _FALSE_AFTER.match(prose)
    return m.group(0).strip(" ,，\n") if m else None


def stated_false_tag(display: str) -> str | None:
    r"""A tag inside the display that marks it false (``\quad \text{(wrong)}``), or None."""
    m = _FALSE_TAG.search(display)
    return m.group(0) if m else None


def asked_or_conditional_after(prose: str) -> tuple[str, str] | None:
    """What the words right after a display make of it when they ask it (``hold?``) or say it holds only under a
    condition (``only when``, ``仅在 ... 时成立``): (the words, "asked" or "conditional"); None otherwise.

    Example:
        >>> asked_or_conditional_after(" hold? No."), asked_or_conditional_after(" 仅在 ")
        (('hold?', 'asked'), ('仅在', 'conditional'))
    """
    for rx, kind in ((_ASKED_AFTER, "asked"), (_CONDITIONAL_AFTER, "conditional")):
        m = rx.match(prose)
        if m:
            return m.group(0).strip(" ,，\n"), kind
    return None
