r"""Blocks of a drawn matrix named by a letter that the next display defines: ``\mathbf{M}_1 & \mathbf{0} & \cdots``.

A derivation may draw a block-diagonal matrix with its blocks named, then say what the blocks are::

    $$\mathbf{R}_{\Theta,m}^d = \begin{pmatrix} \mathbf{M}_1 & \mathbf{0} & \cdots & \mathbf{0} \\ ... \\
      \mathbf{0} & \cdots & \mathbf{M}_{d/2} \end{pmatrix}$$
    where each block $\mathbf{M}_i$ is a 2-D rotation:
    $$\mathbf{M}_i = \begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i \end{pmatrix}$$

Read in order, the drawing names blocks with no value yet, and its definition is not read. Here the display
after it is read first, so that the drawing's blocks have their values (a position the block's value writes,
``m``, is then the drawing's own: the family is read with its value in place).

Design constraints: text in, an index out. The drawing is one equation (a matrix drawn with dots, which the
reader of patterns writes out at sizes and as its block j); the next display is one equation that gives a value to
a name with a one-letter subscript (``\mathbf{M}_i``, ``B_k``), a value that uses that letter, and neither the name
itself nor the name the drawing defines; that name's letter is a capital the drawing writes with a subscript, and
nothing before the drawing gives it a value or writes it. The prose between the two displays writes the name
(``$\mathbf{M}_i$``) or is only "where" (``其中``): it says what the blocks are. Anything else is
read in order as before.
"""

from __future__ import annotations

import re
from typing import Any

from ..readers.latex_syntax import normalize_latex
from ..readers.scope import Scope
from .document import MathBlock, chains
from .reading import head, is_defined, mentions

__all__ = ["blocks_named_after"]

#: a name with a one-letter subscript, its letter a capital, perhaps in bold: ``\mathbf{M}_i``, ``B_{k}``
_BLOCK_NAME = re.compile(
    r"^\s*(?P<base>\\(?:mathbf|boldsymbol|bm)\s*\{\s*[A-Z]\s*\}|(?<![\\A-Za-z])[A-Z])"
    r"\s*_\s*(?:\{\s*(?P<sub>[a-z])\s*\}|(?P<one>[a-z]))\s*$"
)
_WHERE = re.compile(r"^\s*(?:where|with|其中)\s*[:,：，]?\s*$", re.I)


def _spelled(base: str) -> re.Pattern[str]:
    """The base as a name with a subscript (``\\mathbf{M}_1``, ``\\mathbf {M}_{d/2}``), spaces aside."""
    letter = re.search(r"[A-Z]", base)
    assert letter is not None
    bold = r"\\(?:mathbf|boldsymbol|bm)\s*\{\s*" + letter.group(0) + r"\s*\}"
    plain = r"(?<![\\A-Za-z{])" + letter.group(0) + r"(?![A-Za-z])"
    return re.compile(r"(?:" + (bold if base.startswith("\\") else plain) + r")\s*_")


def blocks_named_after(text: str, blocks: list[MathBlock], at: int, lines: Any, scope: Scope) -> int | None:
    """The index of the next display after display ``at`` (inline math between) to read before it, where that
    display defines the blocks the matrix drawn at ``at`` names (see the module's docstring); else None.

    ``scope``: the definitions in force before display ``at``.
    """
    nxt = next((k for k in range(at + 1, len(blocks)) if blocks[k].kind == "display"), None)
    if nxt is None or blocks[at].kind != "display":
        return None
    first, second = blocks[at], blocks[nxt]
    drawn, after = chains(first, lines), chains(second, lines)
    if len(drawn) != 1 or len(drawn[0].links) != 2 or len(after) != 1 or len(after[0].links) != 2:
        return None
    body = drawn[0].links[1].text
    if drawn[0].links[1].relation != "=":
        return None
    name, value = after[0].links[0].text, after[0].links[1]
    m = _BLOCK_NAME.match(name)
    if m is None or value.relation != "=":
        return None
    index = m.group("sub") or m.group("one")
    spelled = _spelled(m.group("base"))
    if not spelled.search(body) or spelled.search(value.text) or spelled.search(text[: first.src.col(0)]):
        return None  # the drawing does not write the name, the value uses it, or the text wrote it before
    if spelled.search(drawn[0].links[0].text + "_"):
        return None  # the blocks share the drawing's own letter (R = diag(R_1, ...)): one family or two?
    if not re.search(r"(?<![\\A-Za-z])" + index + r"(?![A-Za-z])", value.text):
        return None  # a value that does not use its index is no family of blocks
    found, drawing = head(name, scope), head(drawn[0].links[0].text, scope)
    if found is None or is_defined(found, name, scope):
        return None
    if drawing is None or mentions(drawing, normalize_latex(value.text)):
        return None  # the value uses the name the drawing defines: read in order
    gap = text[first.src.col(len(first.src.text)) : second.src.col(0)].strip("$\\[]() \t\n")
    if not (_WHERE.match(gap) or (len(gap) <= 200 and spelled.search(gap))):
        return None
    return nxt
