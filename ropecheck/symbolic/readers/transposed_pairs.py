"""``q_i^T k_j`` between numbers: the inner product of two vectors the document never wrote out, one real name.

Attention derivations write ``e^{\\lambda q_i^T k_j}`` and ``\\log \\sum_j e^{\\lambda q_i^T k_j}``: the
vectors appear only through the number ``q_i^T k_j``, inside functions no general matrix may enter. Read
by :func:`inner_product_names`, each such product of two undefined lower-case names the document uses as
vectors is one name, ``q^Tk_{i,j}`` (an entry of the table of inner products, so a sum over j reads the
entries), real unless one of the vectors is declared complex.

Design constraints: a step read so holds for every value of each such name, and every table of values
is the inner products of some vectors (of a size at least the table's), so PROVED and REFUTED both
stand -- unless the names are related: ``q^T k`` beside ``k^T q`` (one number written two ways),
``q^T q`` (never negative) or a norm (bounded by the inner products), which :func:`check_related` refuses.
A product where only one vector has a subscript is not read (``q_i^T k`` and ``q^T k_i`` would meet).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from sympy import Symbol

from ...errors import ClaimParseError

__all__ = ["RELATED", "check_related", "inner_product_names"]

#: the end of the reason :func:`check_related` gives; it begins as the reader's own reason for a transpose it does
#: not read, so that the step is read again with general matrices
RELATED = "the product is not read as a number of its own"
_TRANSPOSE = "^T (transpose) applies to a matrix or vector"

_NAME = r"([a-z])\s*(?:_\s*(\{\s*[A-Za-z0-9]+\s*\}|[A-Za-z0-9]))?"
_T = r"\s*\^\s*(?:\{\s*(?:T|\\top)\s*\}|T(?![A-Za-z])|\\top(?![A-Za-z]))\s*"
#: ``q_i^T k_j``: a name, its transpose, a name that is neither transposed, called nor glued to more letters
_PAIR = re.compile(r"(?<![\\A-Za-z0-9_^'])" + _NAME + _T + _NAME + r"(?![A-Za-z0-9_^('{])")
#: the name :func:`inner_product_names` gives a pair: ``q^Tk`` and its subscripts
_PRODUCT = re.compile(r"^([a-z])\^T([a-z])(?:_\{.*\})?$")
#: how a norm read as a name begins (see ``latex_syntax.NORM_OPEN``)
_NORM = "‖"


def _spelled(letter: str, sub: str | None) -> str:
    return f"{letter}_{{{sub.strip('{} ')}}}" if sub else letter


def inner_product_names(
    text: str, vectors: frozenset[str], defined: Any, complex_names: frozenset[str]
) -> list[tuple[int, int, Symbol]]:
    """Where ``text`` writes ``u^T v`` of two vectors (names in ``vectors``, not ``defined(name)``), with the
    name each product is read as, in order.

    Example:
        >>> vectors = frozenset({"q_{i}", "k_{j}"})
        >>> [s for _, _, s in inner_product_names(r"e^{q_i^T k_j}", vectors, lambda name: False, frozenset())]
        [q^Tk_{i,j}]
    """
    out = []
    for m in _PAIR.finditer(text):
        (a, sa), (b, sb) = m.group(1, 2), m.group(3, 4)
        u, v = _spelled(a, sa), _spelled(b, sb)
        if bool(sa) != bool(sb) or u not in vectors or v not in vectors or defined(u) or defined(v):
            continue
        name = f"{a}^T{b}" + (f"_{{{sa.strip('{} ')},{sb.strip('{} ')}}}" if sa and sb else "")
        complex_ = bool({u, v, a, b} & complex_names)
        out.append((m.start(), m.end(), Symbol(name, complex=True) if complex_ else Symbol(name, real=True)))
    return out


def check_related(names: Iterable[str]) -> None:
    """Raise where the names read from ``u^T v`` products are related, so that reading each as a free number
    could refute a correct step: ``q^T k`` with ``k^T q``, ``q^T q``, a norm, or the vectors used otherwise
    (``q_1``, ``q`` alone: ``q^T k = \\sum_i q_i k_i`` would read as two unrelated numbers)."""
    names = list(names)
    pairs = {(m.group(1), m.group(2)) for n in names if (m := _PRODUCT.match(n))}
    if not pairs:
        return
    others = [n for n in names if not _PRODUCT.match(n)]
    for a, b in sorted(pairs):
        if a == b or (b, a) in pairs:
            raise ClaimParseError(f"{_TRANSPOSE}; {a}^T {b} beside {b}^T {a} or {a}^T {a}: {RELATED}")
        if any(n in (a, b) or n.startswith((a + "_", b + "_")) for n in others):
            raise ClaimParseError(f"{_TRANSPOSE}; {a}^T {b} beside {a} or {b} used otherwise: {RELATED}")
    if any(n.startswith(_NORM) for n in names):
        raise ClaimParseError(f"{_TRANSPOSE}; an inner product u^T v beside a norm, which bounds it: {RELATED}")
