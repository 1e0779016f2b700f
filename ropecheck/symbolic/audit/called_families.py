"""Families named as a call of a function that nothing defines (``q_m = f(q, m)``, f never given), read with general
matrices.

The default reader keeps such a member as the call ``f(q, m)``, a number, so its transpose is not read. Each member
is some vector the document never gives; with general matrices it is read as a vector of its own, any vector, so a
step is PROVED only where it holds for every vector, which covers whatever f gives.

Design constraints: a matrix of the document before a bracket (``W_q(x_m + p_m)``, read as a call kept in its
order) is a product, no such function. A refutation at entries chosen for such a member is never kept: its letter
names the family, which :mod:`.sized_vectors` treats as a tie between the names (UNDECIDED).
"""

from __future__ import annotations

from typing import Any

from sympy import MatrixSymbol
from sympy.core.function import AppliedUndef

from ..readers.general_matrices import is_array
from ..readers.scope import Definition, Scope

__all__ = ["called_members", "undefined_call"]


def undefined_call(pattern: Definition, scope: Scope) -> bool:
    """Whether a family is named as a call of a function that no definition in force gives (``q_m = f(q, m)``); a
    matrix of the document before a bracket (``W_q(x_m + p_m)``, kept in its order) is no such function."""
    body = pattern.body
    if not isinstance(body, AppliedUndef):
        return False
    name = body.func.__name__
    return name not in scope.functions and not is_array(name, scope.array_names)


def called_members(sides: tuple[Any, Any], scope: Scope) -> str:
    """The general vectors of ``sides`` that are members of a family named as a call of a function no definition
    gives (``q_{m}`` of ``q_m = f(q, m)``), in words with the lines that name them; "" where there is none: each is
    some vector, read as any, whose entries the document never gives.

    Example:
        >>> from sympy import Function, Symbol
        >>> family = Definition("symbol", "q", Function("f")(Symbol("q"), Symbol("m")), (Symbol("m"),), "", 4)
        >>> side = MatrixSymbol("q_{m}", 3, 1)
        >>> called_members((side.T * side, side.T * side), Scope(patterns={"q": family}))
        'q_{m} (q_m = f(q, m), line 4, f defined nowhere before)'
    """
    said = []
    for s in sorted({s for side in sides for s in side.atoms(MatrixSymbol)}, key=str):
        base = s.name.split("_")[0]
        family = scope.patterns.get(base)
        if "_" in s.name and family is not None and undefined_call(family, scope):
            call, head = family.body, family.body.func.__name__
            said.append(
                f"{s.name} ({base}_{family.params[0]} = {call}, line {family.line}, {head} defined nowhere before)"
            )
    return "; ".join(said)
