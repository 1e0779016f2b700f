"""A new name introduced by giving an old one in terms of it: ``let $d = 2k$``, d a size the text already uses.

A derivation that has worked with a head size d for a while writes, in passing, "let $d = 2k$, so the head
holds k pairs". d keeps meaning what it meant (every size the text considers); the sentence names half of it.
Read as a value d is given in passing (an example or a condition), it would leave every later step that uses
d undecided, and a definition written with d (``PE(m, 2i) = \\sin(m / 10000^{2i/d})``) unread.

What is decided here, and how:

* The sentence opens the inline math with a word that introduces (``let``, ``set``, ``设``, ``令``, the last
  words before it; never ``假设``, "suppose", "when", "if": those pose a case, as before), and the math is
  ``A = B``, giving a name A that steps above it already use and that has no value (no definition in force),
  where B is a linear expression, with a nonzero rational slope, in exactly one name that has no value and
  that no math before it in its section uses (a bound index of a sum, ``\\sum_{k=0}^{\\infty}``, or a longer
  name, ``k_n``, is no use). Such a sentence introduces the new name: it is defined as the solution of
  ``A = B`` for it (``k = d/2``) up to the end of the section (the next heading of its level or above; the end
  of the document where no heading comes before it), and A stays free. A name written bold in the rest of the
  section (``\\boldsymbol{k}``, a vector) or with a subscript there (``k_n``) is not introduced so: the audit
  reads it as the same name. A family of that letter defined before (``k_n = W_K x_n``) stays in force.
* The new name must be a plain real name (no domain the text gives or infers, such as an integer index): over
  the reals the linear map is one to one, so reading ``k = d/2`` for every d states exactly ``d = 2k``, no
  more and no less. A new name with a domain of its own (``k`` an integer makes d even) is left as before: a
  value given in passing.
* A number (``$d = 64$``), a single name (``$m = n$``), an expression in names already used or defined, an
  expression not linear in the new name, a sentence in a list of examples, or a display definition: as before.

Design constraints: nothing here decides a step; it only says which name a sentence defines. A step that uses d
afterwards is read for every value of d, with k in terms of d, which is what the sentence states.
"""

from __future__ import annotations

import re
from typing import Any

import sympy

from ..readers.latex_syntax import normalize_latex
from ..readers.scope import Scope
from .document import MathBlock
from .stated_signs import section_end

#: the last words before inline math that introduce what it writes ("let $d = 2k$", "设 $d = 2k$")
_INTRODUCING = re.compile(r"(?:(?<![A-Za-z])(?:[Ll]et|[Ss]et)|(?<!假)设|令)\s*\$*$")

#: a sum or product over an index: the index is bound there, not a use of a name of the text
_BOUND_INDEX = r"\\(?:sum|prod)\s*_\s*\{?\s*{name}\s*="


def introduced_value(known: Any, body: Any, scope: Scope) -> tuple[str, Any] | None:
    """The new name ``body`` is written in and its value in terms of ``known`` (a symbol of the name the line
    gives), where ``known = body`` introduces it (see the module docstring; earlier uses are checked by the
    caller); else None."""
    if not isinstance(known, sympy.Symbol) or not isinstance(body, sympy.Expr) or isinstance(body, sympy.Symbol):
        return None
    names = body.free_symbols
    if len(names) != 1 or body.atoms(sympy.Function) or body.has(sympy.I):
        return None
    (new,) = names
    if not isinstance(new, sympy.Symbol) or new == known or new != sympy.Symbol(new.name, real=True):
        return None
    if new.name in scope.domains or new.name in scope.symbols or new.name in scope.functions or new.name in scope.freed:
        return None
    slope, rest = sympy.expand(body).as_independent(new, as_Add=True)[::-1]
    slope = sympy.simplify(slope / new)
    if not (slope.is_Rational and slope != 0 and rest.is_Rational):
        return None
    return new.name, (known - rest) / slope


def introduces(text: str, blocks: list[MathBlock], at: int) -> bool:
    """Whether the words right before inline block ``at`` introduce what it writes ("let", "设", "令").

    Example:
        >>> from .document import math_blocks
        >>> text = "设 $d = 2k$，则"
        >>> blocks, _ = math_blocks(text, latex=False)
        >>> introduces(text, blocks, 0), introduces("假设 $d = 2k$", *math_blocks("假设 $d = 2k$", latex=False)[:1], 0)
        (True, False)
    """
    block = blocks[at]
    if block.kind != "inline":
        return False
    start = blocks[at - 1].src.col(len(blocks[at - 1].src.text)) if at else 0
    return _INTRODUCING.search(text[start : block.src.col(0)]) is not None


def section_extent(name: str, math: list[tuple[int, str]], at: int, levels: list[tuple[int, int]]) -> int | None:
    """The line where the section of math block ``at`` ends (``math``: each block's line and LaTeX text;
    ``levels``: the document's headings), or -1 where ``name`` cannot be introduced there: math before the block
    in its section uses the name (not as a sum's index), or math in the rest of the section writes it bold (a
    vector, ``\\boldsymbol{k}``) or with a subscript (``k_n``, a family of that letter); None where the section
    runs to the end of the document.

    Example:
        >>> section_extent("k", [(1, "d + 1"), (3, "d = 2k"), (4, "v_{k-1}")], 1, [(2, 2), (6, 2)])
        6
        >>> section_extent("k", [(1, "\\sum_{k=0}^{3} k"), (3, "d = 2k")], 1, [])
        >>> section_extent("k", [(1, "(-1)^k"), (3, "d = 2k")], 1, [])
        -1
    """
    line = math[at][0]
    end = section_end(levels, line)
    start = max((h for h, _ in levels if h <= line), default=0)
    if any(start <= where < line and uses_free(name, normalize_latex(text)) for where, text in math[:at]):
        return -1
    rest = [text for where, text in math[at:] if end is None or where < end]
    bold = re.compile(r"\\(?:boldsymbol|mathbf|bm|vec|mathbfit)\s*\{\s*" + re.escape(name) + r"\s*\}")
    family = re.compile(r"(?<![A-Za-z\\])" + re.escape(name) + r"\s*_")  # k_n: a family of that letter
    return -1 if any(bold.search(t) or family.search(normalize_latex(t)) for t in rest) else end


def uses_free(name: str, text: str) -> bool:
    """Whether ``text`` (math above the line, normalized LaTeX) uses ``name`` other than as the bound index of a
    sum or a product written in it."""
    if re.search(_BOUND_INDEX.replace("{name}", re.escape(name)), text):
        return False  # \sum_{k=0}^{\infty} J^{2k}/(2k)!: k is the sum's own
    return re.search(r"(?<![A-Za-z\\])" + re.escape(name) + r"(?![A-Za-z]|\s*_)", text) is not None


__all__ = ["introduced_value", "introduces", "section_extent", "uses_free"]
