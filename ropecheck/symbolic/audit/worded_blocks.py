"""A block-diagonal matrix given in words beside a display: "where $R(k)$ is block-diagonal with the $R_i(k)$ blocks".

A derivation that stacks per-frequency blocks (:mod:`.blocks`) often names the whole block-diagonal matrix in a
sentence rather than in a formula: ``PE_{pos+k} = diag(R_0(k), R_1(k), \\ddots) PE_{pos} = R(k) PE_{pos}, where
R(k) is block-diagonal with the R_i(k) blocks``. The sentence, in that plain shape (the name, "is block-diagonal
with", the block, perhaps "blocks" or "on its diagonal", then the end of the clause), in the prose beside the
display (after it, up to the next display, or before it, from the display before), defines the name as an
open-ended block-diagonal matrix: block j of it is the block at j, beside block j of the stack it multiplies.

Design constraints: the name is a call of one letter (``R(k)``) that the document has not defined, the block a
member of a family the document defines, indexed by a letter its body uses (``R_i(k)`` with ``R_i(k) = ...``) and
called with the same letter; anything else is left alone. The name is read only block by block (a step that uses
it otherwise is not read), and every verdict that reads it says that it rests on words.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import sympy

from .blocks import OpenVector
from .document import Link, MathBlock
from .reading import Head

if TYPE_CHECKING:
    from .steps import Auditor

__all__ = ["define_worded_blocks", "worded_block_diagonals"]

#: the words between the name and its block: "is block-diagonal with the", "is a block diagonal matrix with blocks"
_SAYS_BLOCK_DIAGONAL = re.compile(
    r"\s*(?:is|be)\s+(?:a\s+|the\s+)?block[- ]diagonal(?:\s+matrix)?\s+with\s+(?:the\s+)?(?:blocks\s+)?", re.I
)
#: the words after the block, up to the end of the clause: "blocks.", "on its diagonal,"
_BLOCKS_CLAUSE_END = re.compile(r"\s*(?:blocks?\s*)?(?:on\s+(?:its|the)\s+diagonal\s*)?(?:[.,;:]|\n\s*\n|$)", re.I)
_CALLED_NAME = re.compile(r"\s*(?P<base>\\?[A-Za-z]+)\s*\(\s*(?P<param>[A-Za-z])\s*\)\s*")
_INDEXED_BLOCK = re.compile(
    r"\s*(?P<base>\\?[A-Za-z]+)\s*_\s*(?:\{\s*(?P<a>[a-z])\s*\}|(?P<b>[a-z]))\s*\(\s*(?P<param>[A-Za-z])\s*\)\s*"
)
_DELIMITERS = re.compile(r"^(?:\$|\\\))|(?:\$|\\\()$")


def _family_letter(base: str, letter: str, functions: dict[str, object]) -> bool:
    """Whether ``base_letter(...)`` is a function the document defines with a body that uses ``letter``."""
    for key in (f"{base}_{{{letter}}}", f"{base}_{letter}"):
        d = functions.get(key)
        body = getattr(d, "body", None)
        if isinstance(body, (sympy.Basic, sympy.MatrixBase)) and letter in {str(x) for x in body.free_symbols}:
            return True
    return False


def worded_block_diagonals(
    text: str, blocks: list[MathBlock], at: int, functions: dict[str, object]
) -> list[tuple[OpenVector, int]]:
    """The block-diagonal matrices the prose beside display ``at`` gives in words, each with the line of its words.

    ``functions``: the document's functions so far, by key (``R_{i}``), for the families the blocks belong to.

    Example:
        >>> from ropecheck.symbolic.audit.document import math_blocks
        >>> doc = "$$x = 1$$\\n\\nwhere $M(s)$ is block-diagonal with the $T_j(s)$ blocks.\\n"
        >>> blocks, _ = math_blocks(doc)
        >>> found = worded_block_diagonals(doc, blocks, 0, {"T_{j}": type("F", (), {"body": sympy.Symbol("j")})()})
        >>> [(v.base, v.param, v.block, v.start, line) for v, line in found]
        [('M', 's', 'T_{j}(s)', None, 3)]
    """
    first = next((k + 1 for k in range(at - 1, -1, -1) if blocks[k].kind == "display"), 0)
    last = next((k for k in range(at + 1, len(blocks)) if blocks[k].kind == "display"), len(blocks))
    out: list[tuple[OpenVector, int]] = []
    for k in range(first, last - 1):
        a, b = blocks[k], blocks[k + 1]
        if a.kind != "inline" or b.kind != "inline":
            continue
        gap = _DELIMITERS.sub("", text[a.src.col(len(a.src.text)) : b.src.col(0)])
        after = re.sub(r"^(?:\$|\\\))", "", text[b.src.col(len(b.src.text)) :][:80])
        name, block = _CALLED_NAME.fullmatch(a.src.text), _INDEXED_BLOCK.fullmatch(b.src.text)
        if not (_SAYS_BLOCK_DIAGONAL.fullmatch(gap) and _BLOCKS_CLAUSE_END.match(after) and name and block):
            continue
        letter = block.group("a") or block.group("b")
        param = name.group("param")
        if block.group("param") != param or letter == param or not _family_letter(block["base"], letter, functions):
            continue
        out.append((OpenVector(name["base"], param, f"{block['base']}_{{j}}({param})", None, True, a.line), a.line))
    return out


def define_worded_blocks(auditor: Auditor, text: str, blocks: list[MathBlock], at: int) -> None:
    """Define, for display ``at`` and the rest of the document, each block-diagonal matrix the prose beside it gives
    in words and the document has not defined otherwise; elsewhere than block by block the name is not read."""
    scope = auditor.scope
    for v, line in worded_block_diagonals(text, blocks, at, dict(scope.functions)):
        base = v.base.lstrip("\\")
        if v.base in auditor.open_vectors or scope.defines(base) or scope.defines(v.base):
            continue
        auditor.open_vectors[v.base] = v
        why = f"a block-diagonal matrix given in words at line {line}, read only block by block"
        use = Head("decorated", r"(?<![\\A-Za-z])" + re.escape(v.base) + r"\s*\(")
        auditor.unread.append((use, Link(f"{v.base}({v.param})", line), why))
        auditor.definitions.append(v.listed(line, f"{v.base}({v.param}) is block-diagonal with {v.block}"))
