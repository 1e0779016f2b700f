"""A display that opens with a relation goes on from the display before it, across a few words between.

``$$ A = B $$ Step 1: expand. $$ = C $$`` and ``$$ A = B $$ 代入公式： $$ = C $$``: a display that starts
with ``=`` (or another relation) has no left side of its own; the one it means is the last side of the
display before, whatever short words (a step's title, a reason, inline math stating the fact used) stand
between them. :func:`~.document.continues` joins two displays across a connecting word only; this joins
them across a few words, and only for a display that opens with a relation -- which nothing else completes.

Design constraints: pure text. What may stand between is short (at most :data:`WORDS_BETWEEN_AT_MOST`
characters), has no heading (a new section), and its inline math states facts (``$R^T R = I$``, a relation
in each): an inline expression (``the norm $\\|Rx\\|^2$``) may be the left side the display goes on from,
so there the chain is not joined and the step keeps its empty side.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from .document import Chain, Link, MathBlock, continues

__all__ = ["WORDS_BETWEEN_AT_MOST", "AboveBlock", "resumes_after_words"]

#: the most characters between the two displays: a step's title or a one-line reason, not a paragraph
WORDS_BETWEEN_AT_MOST = 120
#: inline math in the words between, and a relation that makes it a statement rather than an expression
_INLINE = re.compile(r"(?<![\\$])\$([^$]+)\$|\\\((.+?)\\\)", re.S)
_STATES = re.compile(r"=|<|>|\\(?:le|ge|leq|geq|neq|ne|in|approx|sim|equiv|to|mapsto)(?![A-Za-z])")


def resumes_after_words(text: str, shown: MathBlock, block: MathBlock, headings: list[int]) -> bool:
    """Whether display ``block`` may go on from display ``shown``, the display before it: no heading, at most
    :data:`WORDS_BETWEEN_AT_MOST` characters and no inline expression stand between them. (The caller checks
    that ``block`` opens with a relation and that ``shown`` ends with a complete side.)

    Example:
        >>> doc = "$$ a = b $$\\nSince $b = c$:\\n$$ = c $$\\n## Next\\n$$ = d $$\\nso $d$\\n$$ = e $$"
        >>> from .document import math_blocks
        >>> first, _, second, third, _, fourth = math_blocks(doc)[0]
        >>> [resumes_after_words(doc, *pair, [4]) for pair in ((first, second), (second, third), (third, fourth))]
        [True, False, False]
    """
    if shown.kind != "display" or block.kind != "display":
        return False
    start, end = shown.src.col(len(shown.src.text)), block.src.col(0)
    if end - start > WORDS_BETWEEN_AT_MOST:
        return False
    if any(not _STATES.search(m.group(1) or m.group(2)) for m in _INLINE.finditer(text, start, end)):
        return False  # an inline expression just before may be the left side: not joined
    first, last = text.count("\n", 0, start) + 1, text.count("\n", 0, end) + 1
    at = bisect.bisect_right(headings, first)
    return at >= len(headings) or headings[at] > last


@dataclass
class AboveBlock:
    """What a display that opens with a relation may go on from: the block before (any kind) with the last side of
    the chain it ends with (None where it ends open, or is inline math), and the same for the display before."""

    block: MathBlock | None = None
    tail: Link | None = None
    shown: MathBlock | None = None
    shown_tail: Link | None = None

    def passed(self, block: MathBlock, tail: Link | None) -> None:
        """``block`` has been read; ``tail`` is the last side a display after it may go on from."""
        self.block, self.tail = block, tail
        if block.kind == "display":
            self.shown, self.shown_tail = block, tail

    def goes_on_from(self, text: str, block: MathBlock, read: list[Chain], headings: list[int]) -> Link | None:
        """The side the first chain of display ``block`` (read as ``read``) goes on from, or None: the block just
        before across a connecting word (:func:`~.document.continues`), else the display before across any words
        (:func:`resumes_after_words`) -- only where ``block`` opens with a relation."""
        if not read or read[0].links[0].text or len(read[0].links) < 2:
            return None
        if self.tail is not None and self.block is not None and continues(text, self.block, block):
            return self.tail
        if self.shown is not None and resumes_after_words(text, self.shown, block, headings):
            return self.shown_tail
        return None
