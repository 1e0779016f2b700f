"""Inline math the text opens as an example: "for example, take $\\beta = \\alpha + \\pi$".

A sentence that gives a name a value "for example", "for instance" or "as an example" sets a case, not what the
name means: the name stays free in the steps after it (as a value given in passing, see :mod:`.steps`), so a step
that holds only in that case is never PROVED by it.

Design constraints: a pure function of the document's text; only the clause just before the math is read (from
the last sentence end), and only these explicit words count, so a definition stated plainly is read as before.
"""

from __future__ import annotations

import re

from .document import MathBlock

__all__ = ["opens_as_example"]

#: the words that make what follows an example
_EXAMPLE_WORDS = re.compile(r"(?i)\b(?:for\s+(?:example|instance)|as\s+an\s+example|eg)\b")
#: where a sentence (or a paragraph) ends; "e.g." is removed before
_SENTENCE_END = re.compile(r"[.!?:;](?:\s|$)|\n[ \t]*\n")


def opens_as_example(text: str, blocks: list[MathBlock], at: int) -> bool:
    """Whether the clause just before inline math ``blocks[at]`` says that what it gives is an example.

    Example:
        >>> from ..readers.latex_text import Src
        >>> text = "One case. As an example, take $b = a + 1$ here."
        >>> opens_as_example(text, [MathBlock("inline", Src.of("b = a + 1", text.index("$") + 1), 1)], 0)
        True
        >>> opens_as_example("Define $r = n - m$.", [MathBlock("inline", Src.of("r = n - m", 8), 1)], 0)
        False
    """
    start = blocks[at - 1].src.col(len(blocks[at - 1].src.text)) if at else 0
    prose = re.sub(r"(?i)\be\.g\.", "eg", text[start : blocks[at].src.col(0)])
    ends = list(_SENTENCE_END.finditer(prose))
    clause = prose[ends[-1].end() :] if ends else prose
    return bool(_EXAMPLE_WORDS.search(clause))
