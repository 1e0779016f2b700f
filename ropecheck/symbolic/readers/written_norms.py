"""The norm of a vector the document writes out: ``r = \\|z\\|_2`` after ``z = (x, y)``.

A name the document defines as a column (or row) of entries has a Euclidean length that follows
from the entries alone: ``\\|z\\|`` and ``\\|z\\|_2`` are ``sqrt(|z_1|^2 + ... + |z_n|^2)``, for real
or complex entries. Only that norm is read: another subscript (``\\|z\\|_1``, ``\\|z\\|_\\infty``),
the norm of a matrix (which norm is meant is not said), or of a name whose value was given in
passing (an example, a condition) is left as before, not read.

The norm of an expression (``\\|R u\\|``) is read where the expression reads as a column (or row) vector:
written out, its Euclidean length as above (:func:`column_norm_squared`); a general vector (names read as general
matrices and vectors of any size), only squared and only where every name in it and every written-out entry is
real, as ``E^T E`` (:func:`general_norm_squared`) -- of a complex vector that is no norm. A step whose two sides are
each one norm, unsquared, is the step between their squares (:func:`squared_norm_sides`): norms are never
negative, so the two steps hold or fail together. A matrix under the bars, or another subscript, is not read.

Design constraints: no parsing here; the caller matches the LaTeX and hands over the definition or the value read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import sympy
from sympy import MatrixBase, MatrixExpr, MatrixSymbol, Symbol

from .general_matrices import written_value
from .scope import Definition, domain_symbol

__all__ = [
    "EUCLIDEAN_NORM",
    "NAMED_NORM",
    "NORM_BAR",
    "SQUARED_SIDES_NOTE",
    "column_norm_squared",
    "euclidean_norm_of",
    "general_norm_squared",
    "norm_pairs",
    "norm_subscript",
    "polar_modulus",
    "polar_note",
    "squared_norm_sides",
]

#: ``\|z\|`` of one plain name, with an optional subscript 2 after it (``\|z\|_2``, ``\|z\|_{2}``)
EUCLIDEAN_NORM = re.compile(
    r"\\\|\s*(\\?[A-Za-z]+(?:\s*_\s*(?:\{[A-Za-z0-9]+\}|[A-Za-z0-9]))?)\s*\\\|(?P<sub>\s*_\s*(?:\{\s*2\s*\}|2))?"
)

#: ``\|q\|``, ``\|q\|_2``, ``\|x\|_{1}``, ``\|x\|_\infty`` of one plain name: read as a name of its own (the
#: subscript, which norm, kept in the name, so ``\|q\|_2`` and ``\|q\|`` are never taken for one another)
NAMED_NORM = re.compile(
    r"\\\|\s*(\\?[A-Za-z]+(?:\s*_\s*(?:\{[A-Za-z0-9]+\}|[A-Za-z0-9]))?)\s*\\\|"
    r"(?:\s*_\s*(?:\{\s*(?P<p>\d+|\\infty)\s*\}|(?P<q>\d|\\infty(?![A-Za-z]))))?"
)


def norm_subscript(m: re.Match[str]) -> str:
    """The subscript of a norm matched by :data:`NAMED_NORM` as the name spells it (``_{2}``), or ""."""
    sub = m.group("p") or m.group("q")
    return f"_{{{sub}}}" if sub else ""


def euclidean_norm_of(d: Definition | None) -> Any:
    """The Euclidean length of the vector ``d`` defines, as an expression of its entries; None when ``d``
    is no definition of a written-out vector (a matrix, a number, a value given in passing)."""
    if d is None or d.kind != "symbol" or d.stated_value or d.params:
        return None
    body = d.body
    if not isinstance(body, MatrixBase) or min(body.shape) != 1 or max(body.shape) < 2:
        return None
    return sympy.sqrt(sum((sympy.Abs(e) ** 2 for e in body), sympy.Integer(0)))


def polar_modulus(d: Definition | None, norm: Symbol) -> bool:
    """Whether the definition ``d`` writes its name in polar form with the norm ``norm`` (``q = \\|q\\| e^{i\\theta_q}``
    with ``norm`` the name ``‖q‖``). The name is then the complex number of that modulus -- ``\\|q\\| e^{i\\theta}``
    has modulus ``\\|q\\|`` for every real angle -- so the norm the definition writes is the name's own. Only a
    body that is that norm (a positive name) times ``e`` raised to i times a real angle counts; any other factor,
    an angle not known to be real, or a norm with another subscript is no polar form."""
    if d is None or d.kind != "symbol" or d.stated_value or d.params or not isinstance(d.body, sympy.Expr):
        return False
    if not norm.is_positive or norm not in d.body.free_symbols:
        return False
    rest = sympy.powsimp(d.body / norm)
    if rest.has(norm) or not isinstance(rest, sympy.exp):
        return False
    angle = sympy.expand(rest.args[0] / sympy.I)
    return angle.is_real is True and bool(angle.free_symbols)


#: how the reader spells the norm of a name, a name of its own: ``‖x‖`` (``latex_syntax.NORM_OPEN``)
_NORM_MARK = "\u2016"


def polar_note(sides: tuple[Any, ...], symbols: Mapping[str, Definition]) -> str:
    """What a decided step whose sides use a norm read through :func:`polar_modulus` says of it: ``‖q‖ read as
    the modulus of q, whose polar form line 5 defines``; "" when it uses none."""
    said = []
    for side in sides:
        for x in sorted(side.free_symbols if isinstance(side, sympy.Basic) else (), key=str):
            parts = x.name.split(_NORM_MARK)
            inner = parts[1] if len(parts) == 3 and not parts[0] else ""
            d = symbols.get(inner)
            if d is not None and polar_modulus(d, x):
                said.append(f"{x.name} read as the modulus of {inner}, whose polar form line {d.line} defines")
    return "; ".join(dict.fromkeys(said))


#: a norm's bar in any spelling (``\\Vert``, ``\\lVert``, ``\\left\\|``), which the reader writes ``\\|``
NORM_BAR = re.compile(r"(?<!\\)(?:\\(?:left|right|[Bb]igg?[lr]?)\s*)?(?:\\[lr]?Vert(?![A-Za-z])|\\\|)")
#: a norm's bar as the reader writes every spelling of it
_BAR = re.compile(r"(?<!\\)\\\|")
#: what may follow a norm's closing bar: the Euclidean subscript (``_2``), another one, a square
_AFTER = re.compile(
    r"(?P<sub>\s*_\s*(?:\{\s*(?P<p>[^{}]*?)\s*\}|(?P<q>\\[A-Za-z]+|[A-Za-z0-9])))?"
    r"(?P<sq>\s*\^\s*(?:\{\s*2\s*\}|2(?![0-9])))?"
)

#: what a step decided through the squares of its two norms says
SQUARED_SIDES_NOTE = "; \\|A\\| = \\|B\\| decided as \\|A\\|^2 = \\|B\\|^2 (a norm is never negative)"


def norm_pairs(text: str) -> list[tuple[int, int, int, bool, str]]:
    """Each norm in ``text`` whose bars are written ``\\|``, first bar to the next: (where it opens, where its
    closing bar starts, where it ends -- after a subscript and a square --, whether it is squared, its subscript
    as written or ""). Bars in an odd number give none (which closes which is unclear)."""
    bars = [m.start() for m in _BAR.finditer(text)]
    if len(bars) % 2:
        return []
    out = []
    for a, b in zip(bars[::2], bars[1::2]):
        m = _AFTER.match(text, b + 2)
        sub = (m.group("p") or m.group("q") or "") if m is not None else ""
        out.append((a, b, m.end() if m is not None else b + 2, bool(m is not None and m.group("sq")), sub))
    return out


def column_norm_squared(value: Any) -> Any:
    """``|v_1|^2 + ... + |v_n|^2`` of a written-out column or row of two or more entries (real or complex), or None
    for anything else (a matrix, a number, a general vector)."""
    if not isinstance(value, MatrixBase) or min(value.shape) != 1 or max(value.shape) < 2:
        return None
    return sum((sympy.Abs(e) ** 2 for e in value), sympy.Integer(0))


def general_norm_squared(value: Any, domains: Mapping[str, str]) -> Any:
    """``E^T E`` of a general column ``E`` (``R u``: one column, rows not 1) whose names and written-out entries are
    all real, or None: of a complex vector, or a matrix, it is not the squared norm."""
    if not isinstance(value, MatrixExpr) or isinstance(value, MatrixBase) or value.shape[1] != 1:
        return None
    if value.shape[0] == 1 or value.has(sympy.I):
        return None
    for atom in value.atoms(MatrixSymbol):
        written = written_value(atom)
        if written is not None and (written.has(sympy.I) or any(e.is_real is not True for e in written)):
            return None
        if written is None and domain_symbol(atom.name, domains).is_real is not True:
            return None
    if any(s.is_real is not True for s in value.atoms(Symbol) if not isinstance(s, MatrixSymbol)):
        return None
    return value.T * value


def squared_norm_sides(lhs: str, rhs: str) -> tuple[str, str] | None:
    """The sides of a step whose two sides are each one norm, unsquared (``\\|R u\\| = \\|u\\|``), each squared;
    None for any other step (bars in any spelling).

    Example:
        >>> squared_norm_sides(r"\\|R u\\|", r"\\|u\\|_2")
        ('\\\\|R u\\\\|^{2}', '\\\\|u\\\\|_2^{2}')
    """
    out = []
    for side in (lhs.strip(), rhs.strip()):
        bars = NORM_BAR.sub(lambda _: "\\|", side)
        pairs = norm_pairs(bars)
        if len(pairs) != 1 or pairs[0][0] != 0 or pairs[0][2] != len(bars) or pairs[0][3]:
            return None
        if pairs[0][4] not in ("", "2"):
            return None
        out.append(side + "^{2}")
    return out[0], out[1]
