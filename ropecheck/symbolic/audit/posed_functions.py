"""An equation one side of which calls a function the document writes there for the first time: it poses it.

RoFormer-style derivations start from ``<f_q(x_m, m), f_k(x_n, n)> = g(x_m, x_n, m - n)``: the inner product must be
*some* function g of the two vectors and their offset. g is new there -- nothing before defines it, uses it or even
names it -- so the equation cannot assert anything about it: it poses g, a requirement on the other side, and no
reading could check it (g may be anything). Read as a step it stayed UNDECIDED, with a reason about how its names
were read that said nothing of what the line is. Such an equation is listed with the conditions, not counted as a
step, and the reason says which function it poses.

Only where all of this holds (anything else stays a step, or what it was):

- the chain is one equation, two sides and ``=`` between them: in a chain ``A = B = g(x)`` the first equality
  still claims something, and a chain ``A = g(x) = B`` claims A = B through g;
- one side is a bare call of a function with two arguments or more, each a name or a sum or difference of names
  (:func:`.reading.head`; one argument in brackets after a name, ``W_q(x_m + p_m)``, may be a product), and the
  other side does not write its name; where the left side is such a call, the line is about it (the form of a
  definition), never about a new function on the right;
- no definition in force gives the name a value, and no math before the equation writes the name -- a call, the
  bare letter, a subscript -- except as a placeholder that only names the function (``g(\\cdot)``); a function
  already written is not posed again, and an equation that uses it is a step;
- the inline math in the prose after the display does not write the name, nor does a display after "where"
  define it (:func:`.where_after.where_after`): there the equation is a step about a function defined for it.

A line that reads as a definition is still one (the auditor tries those first): only a line that would be a step
is a condition instead. Where the posed call is the right side (``... = g(x_m, x_n, m - n)``), the equation is a
requirement the document asks of its left side, and later steps may use it as the document states it
(:mod:`.premises`), as a requirement posed in words is used. Where it is the left side (``g(x_m, x_n, m - n) =
Re[...]``), the line gives the new function a value that the audit did not read as a definition: it poses g only
where the body reads as numbers that depend on the names of the offset through it alone
(:data:`.solution_forms.OFFSET_ONLY`); a body in ``m + n`` under ``g(..., m - n)`` is no function of the offset,
and the line stays a step. It is no premise either: its body is read with every name real, and a later line may be
an instance of that reading and not of what the text means (as with :mod:`.solution_forms`).

Design constraints: pure functions of the document's text and the scope; nothing here decides or raises.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..readers.latex_syntax import normalize_latex
from ..readers.scope import Scope
from .document import Chain, MathBlock
from .reading import head, is_defined
from .where_after import where_after

__all__ = ["PosedCall", "posed_call", "posed_calls", "writes"]

#: a call whose arguments are only placeholders (``g(\cdot)``, ``f(\cdot, \cdot)``): it names the function
_PLACEHOLDER_CALL = r"\s*(?:\\left\s*)?\(\s*(?:(?:\\cdot|\\cdots|\\ldots|\\dots|\.|·)\s*,?\s*)+(?:\\right\s*)?\)"


@dataclass(frozen=True)
class PosedCall:
    """A function an equation poses: its name (as the scope keys it), the side that calls it, and which side."""

    name: str
    call: str
    line: int
    right: bool

    @property
    def word(self) -> str:
        """What poses the equation, as the conditions list it."""
        return f"{self.call} written for the first time (line {self.line})"

    @property
    def reason(self) -> str:
        """Why the equation is a condition and no step."""
        said = f"poses {self.name}, a function written here for the first time (never defined or used before)"
        if self.right:
            return f"{said}: a requirement on the other side, not a step"
        return f"{said}: what the new function is, not a step; its value is not read"


def _letters(name: str) -> str:
    """The letters a mention of the function ``name`` (as the scope keys it) starts with: ``f_{q}`` -> ``f``."""
    return name.split("_")[0].lstrip("\\")


def writes(name: str, text: str) -> bool:
    """Whether ``text`` (LaTeX) writes the function ``name`` in any way but a placeholder call that names it.

    Example:
        >>> writes("g", r"a function g(\\cdot) of the gap"), writes("g", r"g(x, 2) + W_g"), writes("g", r"\\log x")
        (False, True, False)
    """
    letters = re.escape(_letters(name))
    start = r"(?:\\|(?<![A-Za-z\\]))"
    bare = re.sub(start + letters + r"(?:\s*_\s*(?:\{[^{}]*\}|\\?[A-Za-z0-9]+))?" + _PLACEHOLDER_CALL, " ", text)
    return re.search(start + letters + r"(?![A-Za-z])", bare) is not None


def posed_call(left: str, right: str, *, line: int, before: str, scope: Scope) -> PosedCall | None:
    """The function that the equation ``left = right`` at ``line`` poses, or None where it is a step as before.

    ``before``: the math of the document before the equation (and after it, where that may define the name).

    Example:
        >>> posed_call(r"\\langle f(q, m), f(k, n) \\rangle", "g(q, k, m - n)", line=9, before="f(x, m)", scope=Scope())
        PosedCall(name='g', call='g(q, k, m - n)', line=9, right=True)
        >>> posed_call(r"\\langle f(q, m), f(k, n) \\rangle", "g(q, k, m - n)", line=9, before="g", scope=Scope())
    """
    if not left.strip() or not right.strip():
        return None
    name = _new_call(left, before, scope)  # the form of a definition: the line is about its left side
    side, other, on_right = (left, right, False) if name else (right, left, True)
    name = name or _new_call(right, before, scope)
    if name is None or writes(name, normalize_latex(other)):
        return None
    return PosedCall(name, side.strip(), line, on_right)


def _new_call(side: str, before: str, scope: Scope) -> str | None:
    """The name of the function ``side`` calls, where it is a bare call with two arguments or more (one argument in
    brackets after a name may be a product, ``W(x + p)``) of a function that no definition in force gives a value
    and ``before`` does not write; else None."""
    found = head(side, scope)
    if found is None or found.kind != "function" or len(found.params) < 2 or is_defined(found, side, scope):
        return None
    return None if writes(found.key, normalize_latex(before)) else found.key


def posed_calls(
    text: str, where: tuple[list[MathBlock], int], read: list[Chain], lines: Any, scope: Scope
) -> dict[int, PosedCall]:
    """The chains of display ``at`` of ``blocks`` (read as ``read``) that pose a new function, each with it.

    ``scope``: the definitions in force before the display.
    """
    blocks, at = where
    if blocks[at].kind != "display":
        return {}
    earlier = "\n".join(b.src.text for b in blocks[:at])
    out: dict[int, PosedCall] = {}
    for n, chain in enumerate(read):
        links = chain.links
        if len(links) != 2 or links[1].relation != "=":
            continue
        before = "\n".join([earlier, *_texts(c.links for c in read[:n])])
        found = posed_call(links[0].text, links[1].text, line=links[0].line, before=before, scope=scope)
        if found is not None and not _defined_after(found, text, where, lines, scope):
            out[n] = found
    return out


def _texts(chains_before: Iterable[Iterable[Any]]) -> list[str]:
    return [link.text for links in chains_before for link in links]


def _defined_after(found: PosedCall, text: str, where: tuple[list[MathBlock], int], lines: Any, scope: Scope) -> bool:
    """Whether the inline math of the prose after the display writes the function, or a display after "where"
    defines it: the equation is then a step about a function the text defines for it."""
    blocks, at = where
    after: list[str] = []
    for block in blocks[at + 1 :]:
        if block.kind == "display":
            break
        after.append(block.src.text)
    named = where_after(text, blocks, at, lines, scope)
    return any(writes(found.name, t) for t in [*after, *named])
