r"""A family over two numbered indices, ``R_{m_1, m_2} = ...``: one matrix (or number) for each pair.

A document that turns a vector by two angles at once writes ``R_{m_1, m_2}`` with a body in ``m_1`` and
``m_2``, then uses ``R_{n_1, n_2}`` and ``R_{n_1 - m_1, n_2 - m_2}``: the body at those two values. Before,
``R_{m_1, m_2}`` was one name of its own (a comma pattern needs a plain letter last, ``R_{\theta, m}``), the
definition a step comparing a free number with a matrix, and every member a general matrix.

:func:`pair_head` says whether a left side is such a family: a base, then exactly two subscripts each a letter
with a number below it (``m_1``, ``m_{2}``), two different names. Only that spelling is read: ``R_{\theta, m}``
stays the comma pattern over its last subscript, and ``a_{i,j}`` an entry. The family is kept under
:func:`pair_key` (``R_{*,*}``), which no name as written spells. :func:`pair_member` splits a member's
subscript into its two values; a member whose two values are both plain numbers (``R_{1, 2}``) may be an entry
of a matrix named R, and is not read as the family.

Design constraint: pure text in, text out; the caller reads the values and puts in the body.
"""

from __future__ import annotations

import re

__all__ = ["pair_head", "pair_key", "pair_member"]

#: one index of the head: a letter with a number below it, braced or not (``m_1``, ``m_{2}``)
_INDEX = r"[A-Za-z]\s*_\s*(?:\{\s*\d\s*\}|\d)"
_PAIR_HEAD = re.compile(
    rf"^\s*(?P<base>\\[A-Za-z]+|[A-Za-z])\s*_\s*\{{\s*(?P<first>{_INDEX})\s*,\s*(?P<second>{_INDEX})\s*\}}\s*$"
)


def _name(index: str) -> str:
    """``m_1``, ``m _ {1}`` -> ``m_{1}``: the name the reader gives the index."""
    letter, _, number = re.sub(r"\s+", "", index).partition("_")
    return f"{letter}_{{{number.strip('{}')}}}"


def pair_key(base: str) -> str:
    """The key a family over two indices is kept under.

    Example:
        >>> pair_key("R")
        'R_{*,*}'
    """
    return base.strip().lstrip("\\") + "_{*,*}"


def pair_head(tex: str) -> tuple[str, str, str] | None:
    """``R_{m_1, m_2}`` -> ``("R", "m_{1}", "m_{2}")``: the base and the two indices' names, or None.

    Example:
        >>> pair_head("R_{m_1, m_2}"), pair_head("R_{\\theta, m}"), pair_head("R_{m_1, m_1}")
        (('R', 'm_{1}', 'm_{2}'), None, None)
    """
    m = _PAIR_HEAD.match(tex)
    if m is None:
        return None
    first, second = _name(m.group("first")), _name(m.group("second"))
    if first == second:
        return None
    return m.group("base").lstrip("\\"), first, second


def pair_member(name: str) -> tuple[str, str, str] | None:
    """``R_{n_1 - m_1, n_2 - m_2}`` -> ``("R", "n_1 - m_1", "n_2 - m_2")``: the base and the two values as
    written, or None where the subscript is not two values or both are plain numbers (an entry, ``R_{1,2}``).

    Example:
        >>> pair_member("R_{n_1-m_1,n_2-m_2}"), pair_member("R_{1,2}")
        (('R', 'n_1-m_1', 'n_2-m_2'), None)
    """
    base, sep, sub = name.partition("_")
    sub = sub.strip()
    if not sep or not (sub.startswith("{") and sub.endswith("}")):
        return None
    parts = sub[1:-1].split(",")
    if len(parts) != 2 or not all(p.strip() for p in parts):
        return None
    if all(re.fullmatch(r"\s*-?\d+\s*", p) for p in parts):
        return None
    return base.strip().lstrip("\\"), parts[0].strip(), parts[1].strip()
