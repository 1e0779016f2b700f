r"""``\mathbb{E}[A] = \mathbb{E}[B]``: two expectations of quantities equal for every value, equal.

An expectation without a subscript is not read (what it averages over, and how, is not in the formula: see
:mod:`..readers.expectation`). A step whose two sides are each the whole of one such expectation, written the same
way, needs none of that where ``A = B`` holds for every value of every name: the same average of the same quantity,
whatever it averages over and however. Such a step is PROVED where ``A = B`` is, decided as any other step (names
given a value only in a condition read free, block-diagonal families block by block), and the reason says so.
Otherwise the step is left as the default reading left it: ``A`` and ``B`` apart at some value refute nothing, an
average may agree where the quantities do not.

Design constraints: text in, text out. Both sides must be one expectation and nothing else: the same operator
spelled the same way (``\mathbb{E}``, ``\mathrm{E}``, ``\operatorname{E}``, ``E``), with no subscript and no
power, of one bracket (``[...]``, ``\left[...\right]``, ``(...)``, with ``\big`` and its kin); anything after the
bracket, or a bracket that does not close, leaves the step as it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..readers.latex_text import skip_group

__all__ = ["equal_expectations", "expectations_said"]

#: the operator and its opening bracket: ``\mathbb{E}[``, ``\mathrm{E}\left[``, ``E\big(``
_OPEN = re.compile(
    r"^\s*(?P<op>\\(?:mathbb|mathrm|operatorname|mathbf)\s*\{\s*E\s*\}|E)\s*"
    r"(?P<size>\\(?:left|big|Big|bigg|Bigg)\s*)?(?=[\[(])"
)
#: a sizing command that closes the bracket, left at the end of the argument
_CLOSE_SIZE = re.compile(r"\\(?:right|big|Big|bigg|Bigg)\s*$")


def _argument(side: str) -> tuple[str, str] | None:
    r"""The operator as written (spaces dropped) and the argument of a side that is one expectation, or None.

    Example:
        >>> _argument(r"\mathbb{E}[a^T u]"), _argument(r"\mathbb{E}_{q}[a]"), _argument(r"\mathbb{E}[a] + 1")
        (('\\mathbb{E}', 'a^T u'), None, None)
    """
    m = _OPEN.match(side)
    if m is None:
        return None
    start = m.end()
    end = _closing(side, start)
    if end < 0 or side[end:].strip():
        return None
    inner = _CLOSE_SIZE.sub("", side[start + 1 : end - 1].strip()).strip()
    return (re.sub(r"\s+", "", m["op"]), inner) if inner else None


def _closing(side: str, start: int) -> int:
    """The index after the bracket opened at ``start`` (``[`` or ``(``), or -1 where it does not close."""
    if side[start] == "(":
        return skip_group(side, start)
    depth = 0
    for at in range(start, len(side)):
        depth += {"[": 1, "]": -1}.get(side[at], 0)
        if depth == 0:
            return at + 1
    return -1


def equal_expectations(left: str, right: str) -> tuple[str, str] | None:
    r"""The arguments ``(A, B)`` of a step ``E[A] = E[B]`` whose sides are each one expectation, written the same way
    and without a subscript; None otherwise.

    Example:
        >>> equal_expectations(r"\mathbb{E}[a^T R_m^T R_n k]", r"\mathbb{E}\left[a^T R_{n-m} k\right]")
        ('a^T R_m^T R_n k', 'a^T R_{n-m} k')
        >>> equal_expectations(r"\mathbb{E}[a]", r"\mathrm{E}[a]") is None, equal_expectations("E[a]", "0") is None
        (True, True)
    """
    found = [_argument(side) for side in (left, right)]
    if found[0] is None or found[1] is None or found[0][0] != found[1][0]:
        return None
    return found[0][1], found[1][1]


def expectations_said(reason: str, real: Iterable[str] = ()) -> str:
    """The reason of a step ``E[A] = E[B]`` proved by ``A = B`` (whose reason is ``reason``), with the positions
    ``real`` read as any real number (the average may run over values that are not whole).

    Example:
        >>> expectations_said("by expand", ["m", "n"]).split(":")[0]
        'the same expectation of A and B, and A = B for every value (m, n any real number)'
    """
    every = f" ({', '.join(real)} any real number)" if real else ""
    said = f"the same expectation of A and B, and A = B for every value{every}: equal whatever it averages over"
    return f"{said}; {reason}" if reason else said
