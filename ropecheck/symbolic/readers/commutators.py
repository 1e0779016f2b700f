r"""A bracket of two matrices, ``[A, B]``, read as their commutator ``AB - BA`` where the document defines it so.

Lie theory writes the commutator of two matrices as a bracket, ``[A, B] = AB - BA``, and goes on with
``[A, B]^T = (AB - BA)^T`` or ``[A, [A, B]]``. The claim reader reads a bracket list as a column, so such a step
would compare a column of two matrices with a matrix. A document that states the definition itself
(:func:`defines_commutator`: ``[A, B] = AB - BA``, the two names ones it writes as vectors or matrices) means the
commutator by every bracket of two matrices: each is read as ``(X)(Y) - (Y)(X)`` (:func:`commutators_written_out`),
innermost first, so ``[A, [A, B]]`` nests as written.

Design constraints: text in, text out; columns kept (:class:`.latex_text.Src`). Only where
:attr:`.scope.Scope.commutators` says the document defines the bracket so; only a plain ``[`` (never ``\left[``,
``\big[``) holding exactly two parts split by one comma outside any group, each part naming a matrix of the document
(a capital among :attr:`.scope.Scope.array_names`): a bracket of numbers (``[0, 1]``), a slice (``q_{[2i:2i+1]}``)
or a list of three stays what it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .latex_text import Src, split_top

__all__ = ["commutators_written_out", "defines_commutator"]

#: the definition, in normalized LaTeX (bold dropped): ``[A, B] = AB - BA`` (also ``:=``, ``\equiv``)
_DEFINITION = re.compile(
    r"\[\s*(?P<a>[A-Za-z])\s*,\s*(?P<b>[A-Za-z])\s*\]\s*(?::=|=|\\equiv)\s*"
    r"(?P=a)\s*(?P=b)\s*-\s*(?P=b)\s*(?P=a)\s*(?:$|[,.;，。]|\\quad|\\text)"
)
#: a command right before a bracket (``\left[``, ``\big[``): a delimiter of its own, never a commutator
_SIZED = re.compile(r"\\[A-Za-z]+\s*$")
#: a command's name, whose letters are no names
_COMMAND = re.compile(r"\\[A-Za-z]+")


def defines_commutator(texts: Iterable[str], arrays: frozenset[str]) -> bool:
    """Whether one of ``texts`` (normalized LaTeX) defines the bracket of two of the document's vectors or matrices
    as their commutator.

    Example:
        >>> defines_commutator(["[A , B ] = A B  - B A "], frozenset("AB"))
        True
        >>> defines_commutator(["[a, b] = ab - ba"], frozenset())
        False
    """
    bases = {a.split("_")[0] for a in arrays}
    return any(m["a"] in bases and m["b"] in bases for t in texts for m in _DEFINITION.finditer(t.strip()))


def _parts(inner: str) -> list[str] | None:
    """The two parts of a bracket's inside split at its one comma outside groups (a ``\\,`` space is no comma), or
    None."""
    parts = [p.text.strip() for p in split_top(Src.of(inner), ",")]
    return parts if len(parts) == 2 and all(parts) and ":" not in inner else None


def _innermost(text: str) -> list[tuple[int, int]]:
    """The plain brackets ``[...]`` with no bracket inside, as (opening, closing) indices."""
    out, opened = [], -1
    for i, c in enumerate(text):
        if c == "[":
            opened = -1 if _SIZED.search(text[:i]) else i
        elif c == "]" and opened >= 0:
            out.append((opened, i))
            opened = -1
    return out


def commutators_written_out(src: Src, arrays: frozenset[str]) -> Src:
    """Each bracket of two parts that name matrices of the document written out as their commutator.

    Example:
        >>> commutators_written_out(Src.of("[A , [A , B ]]^{T} + [0, 1]"), frozenset("AB")).text
        '((A)(((A)(B) - (B)(A))) - (((A)(B) - (B)(A)))(A))^{T} + [0, 1]'
    """
    bases = {b for a in arrays if (b := a.split("_")[0]).isupper()}  # a matrix: a capital
    for _ in range(src.text.count("[")):
        found = None
        for start, end in _innermost(src.text):
            parts = _parts(src.text[start + 1 : end])
            if parts and all(set(_COMMAND.sub(" ", p)) & bases for p in parts):
                found = (start, end, parts)
                break
        if found is None:
            return src
        start, end, (x, y) = found
        src = src.splice(start, end + 1, f"(({x})({y}) - ({y})({x}))")
    return src
