"""The norm of a vector the document writes out: ``r = \\|z\\|_2`` after ``z = (x, y)``.

A name the document defines as a column (or row) of entries has a Euclidean length that follows
from the entries alone: ``\\|z\\|`` and ``\\|z\\|_2`` are ``sqrt(|z_1|^2 + ... + |z_n|^2)``, for real
or complex entries. Only that norm is read: another subscript (``\\|z\\|_1``, ``\\|z\\|_\\infty``),
the norm of a matrix (which norm is meant is not said), or of a name whose value was given in
passing (an example, a condition) is left as before, not read.

Design constraints: no parsing here; the caller matches the LaTeX and hands over the definition.
"""

from __future__ import annotations

import re
from typing import Any

import sympy
from sympy import MatrixBase

from .scope import Definition

__all__ = ["EUCLIDEAN_NORM", "NAMED_NORM", "euclidean_norm_of", "norm_subscript"]

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
