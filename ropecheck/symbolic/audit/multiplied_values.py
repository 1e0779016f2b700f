"""A name defined as a matrix times a vector the document never writes out (``k_n = R(n\\theta) k``), in a step.

Read as numbers such a definition is not read: ``k`` is a vector with no entries written, so ``k_n`` has no value
and a step that uses it is UNREAD. Read with general matrices (:mod:`.general`) it has one: the product of the
matrix and a general vector ``k``. A step that uses such names, read with each one its definition so read, is
PROVED where it holds for every vector (and matrix) those undefined names may stand for: the rotation of
``q_m^T k_n = q^T R(-m\\theta) R(n\\theta) k``, through ``R(m\\theta)^T = R(-m\\theta)``.

Design constraints: PROVED or nothing -- a step not proved so stays UNREAD, never REFUTED (the vector's entries are
written nowhere, and a counterexample would choose them). Only definitions that stopped at such a vector
(:data:`.general.VECTOR_PROBLEM`) and read with general matrices, of a bare name or a family with one subscript,
whose right side used no name without a value when it was written, read in the scope of their own line (a name
defined again after it keeps its old value there); only where every name without a value the step uses is such a
name, still not defined again, and the step writes a family at its own subscript only (``k_n``, never ``k_1`` or
``k_{G_k}``, which may be an entry or a part of ``k``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..readers.latex_syntax import normalize_latex
from ..readers.scope import Definition, Scope
from .document import Link
from .general import family_read_again, general_body
from .reading import Head, Outcome, general_in_child

__all__ = ["MultipliedValue", "members_at_own_subscript", "multiplied_in_child", "with_multiplied_values"]


@dataclass(frozen=True)
class MultipliedValue:
    """A definition not read that stopped at a vector never written out: its name, right side, line, and the scope
    of that line."""

    head: Head
    name: str
    body: str
    line: int
    scope: Scope


def members_at_own_subscript(value: MultipliedValue, text: str) -> bool:
    """Whether ``text`` (normalized LaTeX) writes the family of ``value`` only at the subscript of its definition
    (``k_n`` for ``k_n = ...``): a bare name's definition always qualifies.

    Example:
        >>> v = MultipliedValue(Head("pattern", "k", ("n",)), "k_n", "R(n) k", 3, Scope())
        >>> members_at_own_subscript(v, "q_m^T k_n"), members_at_own_subscript(v, "k_1 + k_n")
        (True, False)
    """
    if value.head.kind == "symbol":
        return True
    (param,) = value.head.params
    base = re.escape(value.head.key)
    for m in re.finditer(r"(?<![A-Za-z\\])" + base + r"\s*_\s*(\{[^{}]*\}|\\[A-Za-z]+|[^\s{])", text):
        if m.group(1).strip("{} ") != param:
            return False
    return True


def with_multiplied_values(scope: Scope, values: list[MultipliedValue]) -> tuple[Scope, str] | None:
    """``scope`` with each of ``values`` defined as its right side read with general matrices in the scope of its
    own line, and those names in words; None where one does not read so (in a child)."""
    symbols, patterns = dict(scope.symbols), dict(scope.patterns)
    for v in values:
        if v.head.kind == "symbol":
            body = general_body(v.body, v.scope)
            if body is None:
                return None
            symbols[v.head.key] = Definition("symbol", v.head.key, body, (), v.name, v.line, False, v.body)
        else:
            (param,) = v.head.params
            family = family_read_again(v.head.key, param, v.name, v.body, v.line, v.scope)
            if family is None:
                return None
            patterns[v.head.key] = family
    said = ", ".join(f"{normalize_latex(v.name).strip()} (line {v.line})" for v in values)
    return replace(scope, symbols=symbols, patterns=patterns), said


def multiplied_in_child(lhs: Link, rhs: Link, scope: Scope, values: list[MultipliedValue]) -> Outcome:
    """The step read with general matrices and each of ``values`` its definition so read: PROVED, with the
    definitions named, or UNDECIDED (the caller keeps the step unread)."""
    found = with_multiplied_values(scope, values)
    if found is None:
        return Outcome("UNDECIDED")
    read, said = found
    o = general_in_child(lhs, rhs, read)
    if o.status == "PROVED":
        o.reason = (
            f"read with {said} the product its definition writes of a vector the document never writes out, that "
            f"vector any vector: {o.reason}"
        )
    return o
