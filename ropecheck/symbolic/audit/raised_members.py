r"""A step with members of a family named with a raised size (``R^d_{\Theta,m}``), read with general matrices.

RoFormer's notation writes the rotation at position m as ``R^d_{\Theta,m}`` (or ``R_{\Theta,m}^d``): the size d
raised, a label, the position last. Read as written, ``R^d`` is a power or a name the reader keeps as a number,
so ``(R^d_{\Theta,m} W_q x_m)^T (R^d_{\Theta,n} W_k x_n) = x_m^T W_q^T (R^d_{\Theta,m})^T R^d_{\Theta,n} W_k x_n``
is not read. Here each member is written as a stand-in name with the position alone as its subscript
(:func:`.family_names.plain_members`), every member is a general ``d x d`` matrix of its own, and the step is
read again by :func:`.general.general_step`.

Design constraints: only where the document gives the family no value the reader uses (a member read alone is
no matrix); one family per step, and every use of its letter a member of it (else nothing is read). The members
are unrelated general matrices, so a proof holds whatever the family is; a difference that does not vanish is
UNDECIDED (how the members relate, a rotation's law, is what the document says in words) -- never REFUTED.
The stand-in is a calligraphic letter that neither the step nor the scope uses
(:func:`.family_names.free_calligraphic`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sympy import MatrixExpr

from ...errors import ClaimLimitError, ClaimParseError
from ..readers.latex_syntax import calligraphic_as_names, read_latex_side
from ..readers.scope import Scope
from .document import Link
from .family_names import FamilyName, free_calligraphic, plain_members, raised_families
from .general import GeneralStep, all_read_as_general, array_names, general_step
from .reading import Outcome, readable

__all__ = ["covered_by_reading", "raised_in_child", "raised_step"]


def _without_value(family: FamilyName, scope: Scope) -> bool:
    """Whether a member of ``family``, read alone in ``scope``, is no matrix: the document gives it no value."""
    label = f"{family.label}," if family.label else ""
    member = f"{family.base}^{{{family.raised}}}_{{{label}{family.param}}}"
    try:
        value = read_latex_side(calligraphic_as_names(member), 0, scope)
    except (ClaimParseError, ClaimLimitError, RecursionError):
        return True  # not read alone: it has no value the reader uses
    return not isinstance(value, MatrixExpr)


def raised_step(lhs: str, rhs: str, scope: Scope) -> GeneralStep | None:
    r"""The step read with each member of its one raised-size family a general matrix of its own, or None.

    Example:
        >>> sc = Scope(array_names=frozenset({"W", "x"}))
        >>> raised_step(r"(R^d_{\Theta,m} W x)^T R^d_{\Theta,n} x", r"x^T W^T (R^d_{\Theta,m})^T R^d_{\Theta,n} x",
        ...             sc).status
        'PROVED'
    """
    families = raised_families(f"{lhs} = {rhs}")
    if len(families) != 1 or not _without_value(families[0], scope):
        return None
    family = families[0]
    names = [*scope.symbols, *scope.patterns, *scope.functions, *scope.array_names]
    letter = free_calligraphic([lhs, rhs], names, "ABCDEFGHIJKLMNOPQSUVXYZ")
    if letter is None:
        return None
    stand = rf"\boldsymbol{{\mathcal{{{letter}}}}}"
    left, right = (plain_members(side, family, stand) for side in (lhs, rhs))
    if left is None or right is None:
        return None
    _, arrays = array_names([f"{left} = {right}"])
    found = general_step(left, right, replace(scope, array_names=scope.array_names | arrays))
    if found is None or found.lhs is None:
        return None
    label = f"{family.label}," if family.label else ""
    said = (
        f"{family.base}^{{{family.raised}}}_{{{label}\\cdot}} read at each position as a general matrix of its own "
        f"(written cal{letter} here), whatever the family is: how its members relate is not read; "
    )
    status = "UNDECIDED" if found.status == "REFUTED" else found.status
    return GeneralStep(status, said + found.reason, found.lhs, found.rhs, None, found.method)


def raised_in_child(lhs: Link, rhs: Link, scope: Scope) -> Outcome:
    """:func:`raised_step` as an outcome (UNDECIDED with no reason where it does not read the step)."""
    unread = readable(lhs, rhs)
    if unread is not None:
        return unread
    found = raised_step(lhs.text, rhs.text, scope)
    if found is None:
        return Outcome("UNDECIDED")
    method = found.method or ("matrix algebra" if found.status == "PROVED" else "none")
    return Outcome(found.status, method, found.reason, None, found.lhs, found.rhs)


def covered_by_reading(sides: tuple[Any, Any], text: str, unread: list[str], scope: Scope) -> bool:
    """Whether each name without a value the step uses (``unread``, as the document writes it) is the step's one
    raised-size family, or a name read among the general matrices of ``sides``: a proof then holds whatever their
    values (a name read as a number, a scale ``c``, is not covered by a proof for every matrix)."""
    family = [(f.base, f.raised, f.label) for f in raised_families(text)]
    # the family itself is covered: the proof holds for every matrix its members may be
    rest = [where for where in unread if [(f.base, f.raised, f.label) for f in raised_families(where)] != family]
    return all_read_as_general(sides, rest, scope)
