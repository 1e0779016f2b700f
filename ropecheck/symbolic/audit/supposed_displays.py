"""A display the prose gives as a consequence of a supposition: "Suppose $x + y = 1$; then $$x = 1 - y$$".

Such a display states what follows from the supposition; it does not say what its first name means. Read as a
definition (``x := 1 - y``), every later step would be decided with that value, as if the supposition were a
fact of the document. Where the display's first name is one the supposition writes, the display is a step to
decide (under the supposition, see :mod:`.under_stated`), never a definition.

Design constraints: a pure function of the text; the words must be in one sentence, a supposition word
("suppose", "assume", "if", "given that", "假设", "若", "如果") before inline math and a consequence word
("then", "so", "hence", "therefore", "it follows that", "所以", "则", "因此") just before the display; a plain
definition ("let $x = ...$", "where $x = ...$", "定义") has no such words and is read as before.
"""

from __future__ import annotations

import re

from .document import MathBlock

__all__ = ["supposition_before"]

#: the words that make what follows a supposition
_SUPPOSING = re.compile(
    r"(?i)(?<![A-Za-z])(?:suppose|supposing|assume|assuming|if|given\s+that|provided\s+that)(?![A-Za-z])"
    r"|假设|假定|若|如果"
)
#: the words just before the display that make it a consequence
_CONSEQUENCE = re.compile(
    r"(?i)(?:(?<![A-Za-z])(?:then|so|hence|therefore|thus|consequently|it\s+follows\s+that)(?![A-Za-z])"
    r"|所以|则|因此|于是|从而)\s*[,，:：]?\s*$"
)
#: where a sentence ends (inline math is blanked first, so a dot in it ends nothing)
_SUPPOSITION_STOP = re.compile(r"[.!?。](?:\s|$)|\n[ \t]*\n|。")


def lead_in(text: str, blocks: list[MathBlock], at: int) -> tuple[int, list[MathBlock], str]:
    """The prose that leads into display ``blocks[at]`` since the display before it: where it starts, its inline
    math blocks, and its words with that math blanked (so that only the words are read)."""
    start = 0
    inline: list[MathBlock] = []
    for b in reversed(blocks[:at]):
        if b.kind == "display":
            start = b.end
            break
        inline.insert(0, b)
    prose = list(text[start : blocks[at].src.col(0)])
    for b in inline:
        for k in range(b.src.col(0), b.end):
            prose[k - start] = "x" if not text[k].isspace() else text[k]
    return start, inline, "".join(prose)


def supposition_before(text: str, blocks: list[MathBlock], at: int) -> str:
    """The inline math of the supposition that the sentence before display ``blocks[at]`` draws it from, joined,
    or '' where the display is not given as a consequence of one.

    Example:
        >>> from ..readers.latex_text import Src
        >>> text = "Suppose $x + y = 1$; then $$x = 1 - y$$"
        >>> blocks = [MathBlock("inline", Src.of("x + y = 1", 9), 1), MathBlock("display", Src.of("x = 1 - y", 27), 1)]
        >>> supposition_before(text, blocks, 1)
        'x + y = 1'
    """
    start, inline, words = lead_in(text, blocks, at)
    words = words.rstrip("$ \t\n")
    if not _CONSEQUENCE.search(words):
        return ""
    stops = list(_SUPPOSITION_STOP.finditer(words))
    found = _SUPPOSING.search(words, stops[-1].end() if stops else 0)
    if found is None:
        return ""
    math = [b.src.text for b in inline if start + found.end() < b.src.col(0) < start + len(words)]
    return " ; ".join(math)
