"""A product of two new names set equal to a written matrix times a written column: the line names both.

``R_m q = \\begin{pmatrix}\\cos m\\theta & -\\sin m\\theta \\\\ \\sin m\\theta & \\cos m\\theta\\end{pmatrix}
\\begin{pmatrix}q_0 \\\\ q_1\\end{pmatrix}``, where the document gave neither ``R_m`` nor ``q`` a value, states
what they are: ``q`` is the column of its own entries (any vector) and ``R_m`` the written matrix, a family
over its subscript. Since the line holds for every ``q`` (its entries are free), the matrix is the only value
of ``R_m`` it allows. The line is read so only when every part is plain: the left side is exactly a
matrix-like name (a capital letter, maybe with sub- and superscripts) then a vector name (one small letter);
both are new; the right side is a square matrix written out then a column written out, of the same size; the
column's entries are the vector's own entries (``q_0, q_1`` or ``x_1, x_2``: its letter, consecutive
indices from 0 or 1); and the matrix does not use the vector's letter. Each name is then defined the way
the audit defines ``R_m = [...]`` and ``q = [q_0; q_1]`` written apart (:meth:`.steps.Auditor.maybe_define`),
and the line is listed as those definitions, not as a step. Anything else is left as it was.

Design constraints: :func:`named_product` is a pure function of the text; :func:`define_named_product` only
calls the auditor's own reading and defining (both names read before either is defined, so a line is read
whole or not at all); nothing here imports :mod:`.steps`.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Protocol

from ..readers.latex_syntax import normalize_latex
from ..readers.scope import Scope
from .document import Link
from .reading import Head, Outcome, head, is_defined
from .result import AuditDefinition
from .unknowns import own_entries

__all__ = ["define_named_product", "named_product"]

_NAMED_PRODUCT_SCRIPT = r"\s*[_^]\s*(?:\{[^{}]*\}|[A-Za-z0-9])"
#: ``R_m q``, ``R_{\\Theta, m}^d x``: a capital letter with at most two scripts, then one small letter
_NAMED_PRODUCT_LEFT = re.compile(rf"^\s*(?P<mat>[A-Z](?:{_NAMED_PRODUCT_SCRIPT}){{0,2}})\s*(?P<vec>[a-z])\s*$")
#: one matrix written out, with no matrix inside it
_NAMED_PRODUCT_MATRIX = (
    r"(?P<whole{k}>\\begin\s*\{{\s*(?P<env{k}>[pb]matrix)\s*\}}(?P<body{k}>(?:(?!\\begin|\\end).)*)"
    r"\\end\s*\{{\s*(?P=env{k})\s*\}})"
)
_NAMED_PRODUCT_RIGHT = re.compile(
    rf"^\s*{_NAMED_PRODUCT_MATRIX.format(k=1)}\s*{_NAMED_PRODUCT_MATRIX.format(k=2)}\s*$", re.S
)


def _rows(body: str) -> list[list[str]]:
    rows = [r for r in re.split(r"\\\\", body) if r.strip()]
    return [[e.strip() for e in r.split("&")] for r in rows]


def _own_entries(letter: str, column: list[list[str]]) -> bool:
    """Whether the column lists ``letter``'s entries, ``q_0, q_1, ...`` or ``q_1, q_2, ...``."""
    if any(len(row) != 1 for row in column):
        return False
    found = [re.fullmatch(rf"{letter}\s*_\s*(?:\{{\s*(\d+)\s*\}}|(\d))", row[0]) for row in column]
    if any(m is None for m in found):
        return False
    indices = [int(m.group(1) or m.group(2)) for m in found if m is not None]
    return indices[0] in (0, 1) and indices == list(range(indices[0], indices[0] + len(indices)))


def named_product(left: str, right: str) -> tuple[str, str, str, str] | None:
    """``R_m q`` = matrix times ``q``'s column -> (``R_m``, the matrix, ``q``, the column), the LaTeX of each;
    None unless the line reads so in every part (see the module's docstring)."""
    lm = _NAMED_PRODUCT_LEFT.match(normalize_latex(left))
    rm = _NAMED_PRODUCT_RIGHT.match(normalize_latex(right))
    if lm is None or rm is None:
        return None
    letter = lm.group("vec")
    matrix, column = _rows(rm.group("body1")), _rows(rm.group("body2"))
    size = len(column)
    if size < 2 or len(matrix) != size or any(len(row) != size for row in matrix):
        return None
    if not _own_entries(letter, column) or re.search(rf"(?<![\\A-Za-z]){letter}(?![A-Za-z])", rm.group("body1")):
        return None
    return lm.group("mat").strip(), rm.group("whole1"), letter, rm.group("whole2")


class _Definer(Protocol):
    """What :func:`define_named_product` uses of the auditor."""

    scope: Scope
    definitions: list[AuditDefinition]

    def read_definition(self, head: Head, link: Link, body: Link) -> Outcome: ...

    def maybe_define(self, link: Link, body: Link, *, audited: bool) -> bool: ...


def define_named_product(auditor: _Definer, links: list[Link], *, audited: bool) -> list[Link]:
    """The chain less its last side where its last two links are ``R_m q`` = matrix times column and both names
    are new and read (each defined by ``auditor``); else ``links`` as they are."""
    if not audited or len(links) < 2:
        return links
    left, right = links[-2], links[-1]
    found = named_product(left.text, right.text) if right.relation == "=" else None
    if found is None:
        return links
    pairs = [
        (Link(found[0], left.line), Link(found[1], right.line, "=")),
        (Link(found[2], left.line), Link(found[3], right.line, "=")),
    ]
    heads = [head(name.text, auditor.scope) for name, _ in pairs]
    if any(h is None or is_defined(h, name.text, auditor.scope) for h, (name, _) in zip(heads, pairs)):
        return links
    matrix, vector = heads
    if matrix is None or vector is None or vector.kind != "symbol" or matrix.key == vector.key:
        return links
    if vector.key in auditor.scope.patterns or matrix.key in auditor.scope.symbols:
        return links  # q beside a sequence q_m (is q_0 its member?), R_m beside a matrix R: not new
    outcomes = [auditor.read_definition(h, name, body) for h, (name, body) in ((matrix, pairs[0]), (vector, pairs[1]))]
    if any(o.status != "DEFINED" or o.definition is None or o.uses_head for o in outcomes):
        return links
    entries = outcomes[1].definition
    if entries is None or not own_entries(vector, entries.body, auditor.scope):
        return links  # an entry q_0 the document gave a value: the column is not any vector
    listed = len(auditor.definitions)
    for name, body in pairs:
        auditor.maybe_define(name, body, audited=audited)
    done = all(h is not None and is_defined(h, name.text, auditor.scope) for h, (name, _) in zip(heads, pairs))
    if not done:
        return links
    why = f"read from {left.text.strip()} = (a matrix written out) times the column of {found[2]}'s own entries"
    for at in range(listed, len(auditor.definitions)):
        d = auditor.definitions[at]
        auditor.definitions[at] = replace(d, reason="; ".join(filter(None, (d.reason, why))))
    return links[:-1]
