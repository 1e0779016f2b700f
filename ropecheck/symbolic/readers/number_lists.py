"""Whole numbers in square brackets: a citation closing a side, or a column where an operand stands.

``a + b [4]`` and ``x^{[2, 7]}`` cite a source: the bracket is dropped, as before. A bracket of whole numbers
where an operand must stand -- the whole side, or right after a relation or an operator (``p_3 = [0, 1, 1]``,
``u + [1, 0, 2]``) -- cites nothing, since a citation follows the formula it cites. There a list of three or
more whole numbers is a column vector, read as any bracketed list is (:meth:`.latex_syntax._Reader.tuples`).

Design constraints: a column only where nothing else can be meant. Three or more entries are never an interval
(two ends) nor a commutator (two matrices, and of numbers it would be 0); a citation never opens an operand.
One or two numbers there (``[0, 1]``: an interval or a column?; ``[4]``) are not read, with that reason
(:func:`unsure_list_at`, where a side is read), never dropped as a citation (which left an empty side). A
bracket after an operand (``M [1, 2, 3]``, ``\\frac{1}{2} [1, 2, 3]``) stays a citation, as before: a factor or
a citation is not certain there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .latex_text import Src

__all__ = ["CITATION", "citations", "drop_citations", "unsure_list_at"]

#: ``^{[4]}``, ``^{[2, 7]}`` and ``[4]`` closing a side: a citation, not math (or a list, see the module)
CITATION = re.compile(
    r"\s*\^\s*(?:\{\s*\[\s*\d+(?:\s*[,-]\s*\d+)*\s*\]\s*\}|\[\s*\d+(?:\s*[,-]\s*\d+)*\s*\])"
    r"|(?<!Re)(?<!Im)(?<!Re )(?<!Im )\s*\[\s*\d+(?:\s*[,-]\s*\d+)*\s*\]\s*$"
)
#: three or more whole numbers between commas in square brackets
_COLUMN = re.compile(r"\[\s*\d+(?:\s*,\s*\d+){2,}\s*\]")
#: what may stand right before an operand: nothing, a relation, an operator or an opening bracket
_OPERAND_OPENS = re.compile(r"(?:^|[=+\-(\[{,&<>]|\\(?:cdot|times|left[(\[]|le|ge|leq|geq|neq))\s*$")


def _in_operand(m: re.Match[str]) -> bool:
    """Whether the bracket ``m`` found stands where an operand must (not a citation after a formula)."""
    return m.group(0).lstrip()[:1] == "[" and _OPERAND_OPENS.search(m.string[: m.start()]) is not None


def citations(text: str) -> Iterator[re.Match[str]]:
    """The citations of ``text``: each match of :data:`CITATION` that does not stand where an operand must.

    Example:
        >>> [m.group(0).strip() for m in citations("a + b [4]")], list(citations("p = [0, 1, 1]"))
        (['[4]'], [])
    """
    return (m for m in CITATION.finditer(text) if not _in_operand(m))


def drop_citations(src: Src) -> Src:
    """``src`` with its citations dropped; whole numbers in square brackets where an operand stands kept as written
    (three or more are a column, fewer are refused by :func:`unsure_list_at`).

    Example:
        >>> drop_citations(Src.of("a + b [4]")).text, drop_citations(Src.of("[0, 0, 1]")).text
        ('a + b ', '[0, 0, 1]')
    """
    return src.sub(CITATION, lambda m: m.group(0) if _in_operand(m) else " ")


def unsure_list_at(text: str) -> tuple[int, str] | None:
    """Where ``text`` writes one or two whole numbers in square brackets where an operand stands (``s = [0, 1]``:
    a column, an interval or a citation?), with the reason it is not read; None where it writes none.

    Example:
        >>> unsure_list_at("[0, 1]")[0], unsure_list_at("[0, 1, 1]"), unsure_list_at("a + [4]")[0]
        (0, None, 4)
    """
    for m in CITATION.finditer(text):
        listed = m.group(0).strip()
        if _in_operand(m) and not _COLUMN.fullmatch(listed):
            why = (
                f"{listed} stands where an operand does: a column, an interval or a citation? not read with certainty "
                "(three or more whole numbers in square brackets are read as a column)"
            )
            return m.start() + len(m.group(0)) - len(m.group(0).lstrip()), why
    return None
