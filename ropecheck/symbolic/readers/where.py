"""A claim's where-clause: ``R x = (...) \\quad R = \\begin{pmatrix}...\\end{pmatrix}, x = (x_1, x_2)^T``.

Papers state a claim and then what its names stand for, after ``\\quad``, ``\\qquad``,
``\\text{where}`` (``with``, ``for``), ``\\mathrm{where}`` or the word ``where``. The clause is a list
of ``name = value`` (or ``:=``) separated by commas, semicolons, ``\\quad`` or ``\\text{and}``; a
name is a letter or command with an optional subscript, in bold or not (``\\mathbf{q}``,
``\\boldsymbol{k}``, ``R_m``, ``\\theta``). Each value is read with the names defined before it, and
the claim with all of them.

A clause that is not such a list is refused with its column (a condition such as ``\\quad m \\ne n``
would otherwise be dropped, and the claim decided without it).

Design constraints: pure text; the values are read by the caller (:mod:`.claim`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import ClaimParseError
from .latex_text import Src, split_top, top_level

__all__ = ["Clause", "split_where"]

_OPENS = re.compile(
    r"\\q?quad(?![A-Za-z])|\\(?:text|mathrm|textrm|mbox)\s*\{\s*(?:where|with|for)\s*\}|(?<![\\A-Za-z])where(?![A-Za-z])"
)
_APART = re.compile(
    r"\\q?quad(?![A-Za-z])|\\(?:text|mathrm|textrm|mbox)\s*\{\s*and\s*\}|(?<![\\A-Za-z])and(?![A-Za-z])|(?<!\\);"
)
_NAME = re.compile(
    r"(?:\\(?:mathbf|boldsymbol|bm|vec|mathbfit)\s*\{\s*\\?[A-Za-z]+\s*\}|\\?[A-Za-z]+)"
    r"(?:\s*_\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?"
)
_SPACING = re.compile(r"(?<!\\)\\[,;:! ]|~")


@dataclass(frozen=True)
class Clause:
    """One ``name = value`` of a where-clause, with the column where each starts."""

    name: str
    value: str
    name_column: int
    value_column: int


def _pieces(src: Src) -> list[Src]:
    """The clause cut at its separators (commas, semicolons, ``\\quad``, "and") outside brackets."""
    depth = top_level(src.text)
    out: list[Src] = []
    last = 0
    for m in _APART.finditer(src.text):
        if depth[m.start()] == 0:
            out.append(src.slice(last, m.start()))
            last = m.end()
    out.append(src.slice(last, len(src.text)))
    return [q for p in out for q in split_top(p, ",", (("\\begin{", "\\end{"),))]


def split_where(text: str) -> tuple[str, list[Clause]]:
    """The claim without its where-clause, and the clause's definitions (none when there is no clause)."""
    depth = top_level(text)
    opener = next((m for m in _OPENS.finditer(text) if depth[m.start()] == 0 and "=" in text[m.end() :]), None)
    if opener is None or "=" not in text[: opener.start()]:
        return text, []
    claim = text[: opener.start()].rstrip()
    claim = re.sub(r"(?:,|\\[,;:! ])\s*$", "", claim).rstrip()
    clauses: list[Clause] = []
    for piece in _pieces(Src.of(text[opener.end() :], opener.end())):
        body = piece.text
        if not _SPACING.sub(" ", body).strip(" .\t\n"):
            continue
        depth = top_level(body)
        eq = [m for m in re.finditer(r":=|(?<![<>!:\\])=", body) if depth[m.start()] == 0]
        head = _SPACING.sub(" ", body[: eq[0].start()]).strip() if len(eq) == 1 else ""
        if len(eq) != 1 or not _NAME.fullmatch(head):
            raise ClaimParseError(
                "the text after the claim is not read: a where-clause lists 'name = value' parts (e.g. "
                "\\quad q = (q_1, q_2)^T, k = (k_1, k_2)^T); a condition there would be dropped",
                piece.col(0),
            )
        value = body[eq[0].end() :]
        stripped = _SPACING.sub(" ", value).rstrip(" .\t\n")
        clauses.append(Clause(head, stripped, piece.col(body.index(head[0]) if head else 0), piece.col(eq[0].end())))
    return claim, clauses
