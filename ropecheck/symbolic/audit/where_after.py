"""A name a display uses, defined by the display after it: ``$$ A = x^T R_{n-m} y $$ where $$ R_{n-m} = R_m^T R_n $$``.

The audit reads a document in order, so a name its steps use before the text defines it is any value there
(a step with it is never REFUTED). When only the word "where" (or "其中") stands between a display and the next
one, and that next display is one equation giving a new name a value (a name with a subscript, used first in
the display above and defined nowhere before), the name is the shorthand the sentence says it is: the steps of
the display above read it as its value, and their reason says so.

Design constraints: the value is put in place of the name as it is written, in brackets, only in the steps of
the display just above (never in a definition, never further on: there the definition is read in order as any
other); the name must be written the same way there (its spelling, with a subscript); a value that uses the
name itself is no definition and is left alone.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ..readers.latex_syntax import normalize_latex
from ..readers.scope import Scope
from .document import Link, MathBlock, chains
from .reading import head, is_defined

__all__ = ["where_after", "with_where_after"]

#: what may stand between the two displays: the word, and the displays' own delimiters
_WHERE_GAP = re.compile(r"\s*(?:\$\$|\\\]|```)?\s*(?:where|其中)\s*[:,：，]?\s*(?:\$\$|\\\[|```math)?\s*", re.I)
#: a name with a subscript, perhaps in bold: ``\mathbf{R}_{\theta,n-m}``, ``h_t``
_SUBSCRIPTED_NAME = re.compile(
    r"(?:\\(?:mathbf|boldsymbol|bm|mathrm)\s*\{\s*\\?[A-Za-z]+\s*\}|\\?[A-Za-z]+)\s*_\s*(?:\{[^{}]+\}|[A-Za-z0-9])"
)


def _spelled(name: str) -> re.Pattern[str]:
    """The name as written, not part of a longer name (``h_t`` is not in ``\\mathbf{h_t}``'s neighbour ``gh_t``)."""
    return re.compile(r"(?<![\\A-Za-z0-9])" + re.escape(name) + r"(?![A-Za-z0-9_{])")


def where_after(text: str, blocks: list[MathBlock], at: int, lines: Any, scope: Scope) -> dict[str, tuple[str, int]]:
    """The names the display after display ``at`` defines, where "where" alone stands between them: each name as
    written -> (its value as written, its line); empty where there is none.

    ``scope``: the definitions in force before display ``at`` (a name defined there is not new).
    """
    if at + 1 >= len(blocks) or blocks[at].kind != "display" or blocks[at + 1].kind != "display":
        return {}
    first, second = blocks[at], blocks[at + 1]
    if not _WHERE_GAP.fullmatch(text[first.src.col(len(first.src.text)) : second.src.col(0)]):
        return {}
    after = chains(second, lines)
    if len(after) != 1 or len(after[0].links) != 2 or after[0].links[1].relation != "=":
        return {}
    name, value = after[0].links[0].text.strip(), after[0].links[1]
    found = head(name, scope)
    if not _SUBSCRIPTED_NAME.fullmatch(name) or found is None or is_defined(found, name, scope):
        return {}
    spelled = _spelled(name)
    if any(len(c.links) >= 2 and c.links[0].text.strip() == name for c in chains(first, lines)):
        return {}  # the display above defines the name itself
    if spelled.search(value.text) or spelled.search(text[: first.src.col(0)]) or not spelled.search(first.src.text):
        return {}
    return {name: (value.text.strip(), value.line)}


def with_where_after(read: tuple[Link, Link], where: dict[str, tuple[str, int]]) -> tuple[tuple[Link, Link], str]:
    """The step's sides with each name that ``where`` defines as its value, in brackets, and what was read so.

    Example:
        >>> sides, said = with_where_after((Link("a", 1), Link("b h_t", 1)), {"h_t": ("c + 1", 3)})
        >>> sides[1].text, said
        ('b (c + 1)', "reading h_t as c + 1, as the display after the step defines it ('where', line 3)")
    """
    left, right = read
    said = []
    for name, (value, line) in where.items():
        spelled = _spelled(name)
        if not (spelled.search(left.text) or spelled.search(right.text)):
            continue
        bracketed = ("(" + value + ")").replace("\\", "\\\\")  # a template: its backslashes as written
        left = replace(left, text=spelled.sub(bracketed, left.text))
        right = replace(right, text=spelled.sub(bracketed, right.text))
        shown = [re.sub(r"\s+(?=[_^])", "", normalize_latex(t)) for t in (name, value)]
        said.append(
            f"reading {shown[0]} as {shown[1]}, as the display after the step defines it ('where', line {line})"
        )
    return (left, right), "; ".join(said)
