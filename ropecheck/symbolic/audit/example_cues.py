"""Math the text opens as an example: "for example, take $\\beta = \\alpha + \\pi$", a display after "For example,",
or a list of examples.

A sentence that gives a name a value "for example", "for instance", "as an example", "such as" (例如, 比如, 譬如)
sets a case, not what the name means: the name stays free in the steps after it (as a value given in passing, see
:mod:`.steps`), so a step that holds only in that case is never PROVED by it. So does an item of a list that such
a sentence opens ("For example:" then ``- linear: $\\lambda_j = j$``, ``- geometric: $\\lambda_j = \\gamma^{j-1}$``):
each item is one example, and two items that give one name two values are alternatives, neither the definition.

Design constraints: a pure function of the document's text; only the clause just before the math is read (from
the last sentence end; a colon right after the example word does not end it, nor do the blank lines before a
display, which goes on with the sentence before it), or, for math on a list item, the
item's own words before the math and the line that opens the list, whose last clause must hold the example word
and end the line with a colon. Only these explicit words count, so a definition stated plainly is read as before,
and so is a list that a sentence without them opens, even where such a word stands in an earlier sentence.
"""

from __future__ import annotations

import re

from .document import MathBlock

__all__ = ["opens_as_example"]

#: the words that make what follows an example
_EXAMPLE_WORDS = re.compile(
    r"(?i)\b(?:for\s+(?:example|instance)|as\s+an\s+example|eg|such\s+as)\b|例如|比如|譬如|举例来说|举个例子"
)
#: where a sentence (or a paragraph) ends; "e.g." is removed before; a colon right after an example word does not
_SENTENCE_END = re.compile(r"(?<!\x00)[.!?:;](?:\s|$)|[。！？；]|(?<!\x00)[：]|\n[ \t]*\n")
#: a list item's marker at the start of its line
_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+")
#: what opens a display, and the blank lines before it: the sentence before a display goes on through them
_DISPLAY_OPENS = re.compile(r"\s*(?:\$\$|\\\[|\\begin\s*\{[A-Za-z*]+\})?\s*$")
#: a line that opens a list of examples ends with a colon
_OPENS_LIST = re.compile(r"[:：]\s*$")


def opens_as_example(text: str, blocks: list[MathBlock], at: int) -> bool:
    """Whether the clause just before the math ``blocks[at]`` says that what it gives is an example, or the math
    stands on an item of a list that a sentence opens as a list of examples.

    Example:
        >>> from ..readers.latex_text import Src
        >>> text = "One case. As an example, take $b = a + 1$ here."
        >>> opens_as_example(text, [MathBlock("inline", Src.of("b = a + 1", text.index("$") + 1), 1)], 0)
        True
        >>> opens_as_example("Define $r = n - m$.", [MathBlock("inline", Src.of("r = n - m", 8), 1)], 0)
        False
        >>> text = "Two choices, for example:\\n- flat: $w = 1$\\n"
        >>> opens_as_example(text, [MathBlock("inline", Src.of("w = 1", text.index("$") + 1), 2)], 0)
        True
        >>> text = "One choice, for example,\\n\\n$$w = 2$$\\n"
        >>> opens_as_example(text, [MathBlock("display", Src.of("w = 2", text.index("$$") + 2), 3)], 0)
        True
    """
    start = blocks[at - 1].src.col(len(blocks[at - 1].src.text)) if at else 0
    here = blocks[at].src.col(0)
    prose = text[start:here]
    if blocks[at].kind == "display":  # a display set apart by blank lines goes on with the sentence before it
        prose = _DISPLAY_OPENS.sub("", prose)
    if _cue_in_clause(prose):
        return True
    return _opened_list_item(text, here)


def _cue_in_clause(prose: str) -> bool:
    """Whether the last clause of ``prose`` holds an example word (a colon right after one does not end it)."""
    prose = re.sub(r"(?i)\be\.g\.", "eg", prose)
    prose = re.sub(r"(?i)(for\s+(?:example|instance)|such\s+as|eg|例如|比如|譬如)(\s*)([:：])", "\\1\\2\x00\\3", prose)
    ends = list(_SENTENCE_END.finditer(prose))
    clause = prose[ends[-1].end() :] if ends else prose
    return bool(_EXAMPLE_WORDS.search(clause))


def _opened_list_item(text: str, here: int) -> bool:
    """Whether the math at ``here`` stands on a list item of a list whose opening line ends with a colon after an
    example word in its last clause; the items above it (and one blank line before the first) are passed over."""
    line_start = text.rfind("\n", 0, here) + 1
    if not _ITEM.match(text[line_start:here]):
        return False
    lines = text[:line_start].split("\n")[:-1]
    while lines and _ITEM.match(lines[-1]):
        lines.pop()
    if lines and not lines[-1].strip():
        lines.pop()
    if not lines or _ITEM.match(lines[-1]) or not _OPENS_LIST.search(lines[-1]):
        return False
    return _cue_in_clause(lines[-1])
