"""Names the audit has no value for, and names whose value is any value: read so only where that is certain.

A line may name the entries of a vector by the vector's own letter (``q_i = [q_{2i}, q_{2i+1}]^T``) -- the most
general vector, never an example (:func:`own_entries`); a sequence may be defined as the list of its members
with dots (``x = [x_1, \\dots, x_m]``), which the reader does not read, yet a member ``x_2`` is a name of its own
(:func:`lists_members`, :func:`without_members`); a position given values only in passing may be shifted,
``m = m - n``, and stays any position (:func:`shifted_free`); a column of primed names on the left of a line
defines them (:data:`COLUMN`). A step decided with a name read as any column must not also hold an unknown
function's value, which may itself be a vector (:func:`unknown_values`).

Design constraints: pure functions of the text, the scope and what was read; nothing here forks or decides.
"""

from __future__ import annotations

import re
from typing import Any

import sympy
from sympy import MatrixBase

from ..readers.latex_syntax import normalize_latex
from ..readers.scope import Definition, Scope
from .reading import Head, Outcome, applied

__all__ = ["COLUMN", "lists_members", "own_entries", "shifted_free", "unknown_values", "without_members"]

#: a bracket list: ``[x_1, \\dots, x_m]``, ``(x_1, x_2, \\ldots, x_n)``
_LIST = re.compile(r"^\s*(?:\\left\s*)?[\[(](?P<body>.*)(?:\\right\s*)?[\])]\s*(?:\^\s*\{?\s*T\s*\}?)?\s*$", re.S)
_DOTS = re.compile(r"\\(?:[lcv]?dots|ddots)(?![A-Za-z])|\.\.\.|…|⋯")


def _member_rx(name: str) -> str:
    """A regular expression for ``name`` (one letter or command, as normalized) with a subscript after it."""
    return r"(?<![A-Za-z\\])" + re.escape(name) + r"\s*_\s*(?:\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9])"


def lists_members(name_tex: str, body_tex: str) -> bool:
    """Whether ``body_tex`` is a list of the name's own members, with dots maybe (``x = [x_1, \\dots, x_m]``)."""
    name = re.sub(r"\s+", "", normalize_latex(name_tex))
    m = _LIST.match(normalize_latex(body_tex))
    if m is None or not re.fullmatch(r"\\?[A-Za-z]+", name):
        return False
    entries = [e.strip() for e in _DOTS.sub(",", m.group("body")).split(",") if e.strip() and e.strip() != "\\"]
    return len(entries) >= 2 and all(re.fullmatch(_member_rx(name), e) for e in entries)


def without_members(name_tex: str, text: str) -> str:
    """``text`` with each member of the name (``x_2``) written as a plain 1."""
    name = re.sub(r"\s+", "", normalize_latex(name_tex))
    return re.sub(_member_rx(name), " 1 ", text)


def own_entries(head: Head, body: Any, scope: Scope) -> bool:
    """Whether ``body`` is a vector of distinct names, each written on the defined name's own letter (``q_{2i}`` in
    ``q_i = [q_{2i}, q_{2i+1}]^T``) and given no value: the vector of its entries, whatever they are."""
    if not isinstance(body, MatrixBase) or min(body.shape) != 1 or len(body) < 2:
        return False
    base = re.sub(r"[\\{}\s]", "", head.key).split("_")[0]
    names = [getattr(e, "name", None) for e in body]
    return (
        len(set(names)) == len(names)
        and all(isinstance(e, sympy.Symbol) for e in body)
        and all(n is not None and re.match(re.escape(base) + r"[_^]", n) and not scope.defines(n) for n in names)
    )


def unknown_values(o: Outcome, key: str) -> bool:
    """Whether the sides read use a function the document gave no value (other than the entries of ``key``)."""
    fresh = re.sub(r"[\\{}\s]", "", key) + "["
    calls = set().union(*(applied(side) for side in (o.lhs, o.rhs)))
    return any(not c.func.__name__.startswith(fresh) for c in calls)


#: one column written out: ``\\begin{pmatrix} a \\\\\\\\ b \\end{pmatrix}`` (or bmatrix)
COLUMN = re.compile(r"^\s*\\begin\s*\{\s*([pb]matrix)\s*\}(?P<body>.*)\\end\s*\{\s*\1\s*\}\s*$", re.S)


def shifted_free(scope: Scope, head: Head, d: Definition) -> bool:
    """Whether ``d`` (``m = m - n``, said in passing) shifts a free name by an amount of its domain: a name only
    ever given values in passing, that no definition in force uses. The shift is onto its domain, so the name
    after it is again any value there; a step that uses it refutes or proves nothing it would not unshifted."""
    sym = scope.symbols.get(head.key)
    if head.kind != "symbol" or sym is None or not sym.stated_value or not isinstance(d.body, sympy.Basic):
        return False
    name = next((s for s in d.body.free_symbols if getattr(s, "name", "") == head.key), None)
    if name is None:
        return False
    shift = d.body - name
    if shift.has(name) or shift == 0:
        return False
    if (name.is_integer and shift.is_integer is not True) or (name.is_real and shift.is_real is not True):
        return False
    tables = (scope.symbols, scope.patterns, scope.functions)
    for table in tables:
        for other in table.values():
            body = other.body if isinstance(other.body, sympy.Basic) else None
            used = body is not None and name in body.free_symbols and name not in other.params
            if other is not sym and used:
                return False
    return True
