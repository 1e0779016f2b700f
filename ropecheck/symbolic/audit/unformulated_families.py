"""Why a step with members of one family the document never wrote out stays undecided.

``q^T R_m^T R_n k = q^T R_{n-m} k``: where the document defines ``R_m`` by a formula in m (a written
2x2 or block-diagonal matrix), the reader puts that formula in at each subscript and the step is
decided. Where it only names ``R_m`` in words ("the rotation matrix at position m"), the members
``R_m``, ``R_n``, ``R_{n-m}`` are read as unrelated general matrices, and what ties them is what the
words mean -- which is not read. :func:`family_note` says so in the reason, naming the members.

Design constraints: a note only, never a verdict; said only where one member's subscript is an
expression (``n-m``, ``b-a``) of letters -- a family at several positions -- so that labels
(``W_q`` beside ``W_k``) are never called a family; and only where the document has no formula for the
base so far (a base it defined is read through its definition).
"""

from __future__ import annotations

import re
from typing import Any

from sympy import MatrixSymbol

from ..readers.scope import Scope

__all__ = ["family_note", "rotation_note"]

#: ``R(\\beta)``, ``R\\big(...\\big)``: the rotation called with its angle
_ROTATION_CALLED = re.compile(r"(?<![\\A-Za-z_^])R\s*(?:\\(?:big|Big|bigg|Bigg|left)[lr]?)?\s*\(")
#: a general matrix's name as the reader spells it: ``R_{m}``, ``calR_{-m + n}``
_FAMILY_MEMBER = re.compile(r"(?P<base>[A-Za-z]+)_\{(?P<sub>[^{}]+)\}")


def _base_key(key: str) -> str:
    """A pattern's key as written (``\\mathrm{calR}``, ``R``) spelled as a general matrix's base (``calR``)."""
    return re.sub(r"\\mathrm\{(cal[A-Z])\}", r"\1", key).lstrip("\\")


def family_note(left: Any, right: Any, scope: Scope) -> str:
    """``"; R_{m}, R_{n}, R_{-m + n} are members of one family R ..."``, or ``""`` where no such family is read.

    Example:
        >>> from sympy import MatrixSymbol, Symbol
        >>> d = Symbol("d")
        >>> R = [MatrixSymbol(n, d, d) for n in ("R_{m}", "R_{n}", "R_{-m + n}")]
        >>> family_note(R[0].T * R[1], R[2], Scope()).startswith("; R_{-m + n}, R_{m}, R_{n} are read")
        True
    """
    names = sorted({a.name for side in (left, right) if hasattr(side, "atoms") for a in side.atoms(MatrixSymbol)})
    members: dict[str, list[tuple[str, str]]] = {}
    for name in names:
        m = _FAMILY_MEMBER.fullmatch(name)
        if m and re.search(r"[A-Za-z]", m.group("sub")):
            members.setdefault(m.group("base"), []).append((name, re.sub(r"\s", "", m.group("sub"))))
    defined = {_base_key(k) for k in scope.patterns} | {_base_key(k) for k in scope.symbols}
    notes = []
    for base, found in sorted(members.items()):
        subs = {sub for _, sub in found}
        if base in defined or len(subs) < 2 or not any(re.search(r"[-+]", sub) for sub in subs):
            continue
        notes.append(
            f"{', '.join(name for name, _ in found)} are read as members of one family {base} at several "
            "positions, which the document defines by no formula in the subscript before this step (at most in "
            "words): how they relate is not read"
        )
    return "".join("; " + note for note in notes)


def rotation_note(text: str, scope: Scope) -> str:
    """``"; R(...) read as ..."`` where ``text`` calls ``R`` with an angle and the document gives R no formula of its
    own: the reader takes it for the rotation of the plane, which the document at most says in words.

    Example:
        >>> rotation_note(r"q^T R(-m\\theta) k", Scope())[:40]
        '; R(...) read as the rotation of the pla'
    """
    if not _ROTATION_CALLED.search(text) or "R" in scope.functions or "R" in scope.patterns or "R" in scope.symbols:
        return ""
    return "; R(...) read as the rotation of the plane by its angle, [[cos, -sin], [sin, cos]]"
