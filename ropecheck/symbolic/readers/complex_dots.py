"""``\\cdot`` between two complex values: their product, or the dot product of the pairs they stand for.

A RoPE derivation often writes a pair of entries as one complex number (``q = q_0 + i q_1`` for the pair
(q_0, q_1)) and the dot product of two such pairs as ``a \\cdot b``: ``Re(a conj(b))``, the real inner product of
the two numbers (the one ``\\langle a, b \\rangle`` reads, :func:`.sympy_syntax.inner_product`). Read as the
complex product, the same letters say ``a b``. So where both operands of one ``\\cdot`` may stand for pairs --
each holds a name, and a factor of it is not real for a complex name or the unit i in it (a defined function
whose value is complex, ``q e^{im\\theta}``), other than a turn alone (``z \\cdot e^{i\\phi}`` turns z by
phi, and ``e^{ia} \\cdot e^{ib}`` multiplies two turns) -- the ``\\cdot`` reads two ways, :data:`DOT_CHOICES`,
picked by ``Scope.dot_reading``; unpicked, the reader raises :class:`.latex_syntax.AmbiguousReading`, so a
caller decides both and keeps a verdict only where they agree. A ``\\cdot`` beside a real operand, between
numbers, or between vectors or matrices is the product, as before. So is one inside a real or an imaginary part
(``\\mathrm{Re}[a \\cdot \\bar b]``): the dot product is real already, and the text takes the part of a
complex number, the product.

The operands are what the LaTeX grammar multiplies by the ``\\cdot``: the run of factors written side by side
around it, up to a sign, a relation, a comma, another explicit operator or the bracket that holds it
(``q e^{im\\theta} \\cdot k`` is (q e^{im θ}) · k). A run that holds a big operator (``\\sum``, ``\\prod``,
``\\int``, ``\\lim``), whose body the grammar reads otherwise, or an empty one, leaves the ``\\cdot`` the product.

Design constraints: text scanning and one test on a value; the reader reads the operands and builds the value.
"""

from __future__ import annotations

import re
from typing import Any

import sympy
from sympy.core.function import AppliedUndef

from .latex_text import top_level

__all__ = ["DOT", "DOT_CHOICES", "dot_spans", "stands_for_pair"]

#: the two readings of ``a \cdot b`` of complex values, by the value of ``Scope.dot_reading``
DOT_CHOICES = {
    "product": "\\cdot between complex values their product",
    "pairs": "\\cdot between complex values the dot product of the pairs they stand for, Re(a conj(b))",
}

#: a ``\cdot`` (never the dots ``\cdots``)
DOT = re.compile(r"\\cdot(?![A-Za-z])")
#: what ends a run of factors side by side: a sign, a relation, a comma, an explicit operator, a row break
_SEPARATOR = re.compile(
    r"\\(?:cdot|times|div|pm|mp|quad|qquad|le|ge|leq|geq|neq|ne|lt|gt|approx|equiv|sim|simeq|propto|to|mid)"
    r"(?![A-Za-z])|\\\\|[-+=,&/<>|;:]"
)
#: a big operator, whose body the grammar reads past a ``\cdot``
_BIG_OPERATOR = re.compile(r"\\(?:sum|prod|int|lim|max|min|sup|inf)(?![A-Za-z])")
#: brackets' sizes, which close a run with the bracket after them (``\right)``)
_SIZE_AT_END = re.compile(r"\\(?:right|bigr|Bigr|biggr|Biggr|big|Big|bigg|Bigg)\s*$")


def dot_spans(text: str) -> list[tuple[int, int, int, int]]:
    """Each ``\\cdot`` of ``text`` whose two operands can be told (runs of factors, no big operator), left to
    right: where the left operand starts, where the ``\\cdot`` starts and ends, where the right operand ends.

    Example:
        >>> text = r"f(a) \\cdot g(b) + 2 \\cdot x"
        >>> [(text[s:d].strip(), text[e:r].strip()) for s, d, e, r in dot_spans(text)]
        [('f(a)', 'g(b)'), ('2', 'x')]
    """
    depth = top_level(text)
    out = []
    for m in DOT.finditer(text):
        level = depth[m.start()]
        start = max((j + 1 for j in range(m.start()) if depth[j] < level), default=0)
        end = min((j for j in range(m.end(), len(text)) if depth[j] < level), default=len(text))
        cuts = [s for s in _SEPARATOR.finditer(text, start, end) if depth[s.start()] == level]
        left = max((s.end() for s in cuts if s.end() <= m.start()), default=start)
        right = min((s.start() for s in cuts if s.start() >= m.end()), default=end)
        right = _left_of_size(text, m.end(), right)
        operands = (text[left : m.start()], text[m.end() : right])
        if all(o.strip() and not _BIG_OPERATOR.search(o) for o in operands):
            out.append((left, m.start(), m.end(), right))
    return out


def _left_of_size(text: str, start: int, end: int) -> int:
    """``end`` moved back past a bracket's size written just before it (``b \\right)``: the operand is ``b``)."""
    m = _SIZE_AT_END.search(text, start, end)
    return m.start() if m else end


def stands_for_pair(value: Any) -> bool:
    """Whether ``value`` is a number that may stand for a pair: it holds a name, and a factor of it is not real for
    a complex name or the unit i in it, other than a turn (``e^{i\\phi}``, ``\\cos\\phi + i \\sin\\phi``, i
    itself), which turns a pair and is none. A root or a log of a real name is real here (no i is written), a call
    of a function with no definition too (its values are not known); a vector or a matrix is no number.

    Example:
        >>> a, b = sympy.symbols("a b", real=True)
        >>> z = a + sympy.I * b
        >>> stands_for_pair(z * sympy.exp(sympy.I * b)), stands_for_pair(a * sympy.exp(sympy.I * b))
        (True, False)
        >>> stands_for_pair(a * b), stands_for_pair(sympy.I), stands_for_pair(sympy.cos(a) + sympy.I * sympy.sin(a))
        (False, False, False)
    """
    if not isinstance(value, sympy.Expr) or value.is_Matrix or not value.free_symbols:
        return False
    if value.has(AppliedUndef):
        value = value.replace(lambda e: isinstance(e, AppliedUndef), lambda e: sympy.Dummy(real=True))
    return any(_complex_factor(f) for f in sympy.Mul.make_args(value))


def _complex_factor(factor: Any) -> bool:
    """A factor not real for an i or a complex name in it, and no turn."""
    if factor.is_real is True:
        return False
    if not factor.has(sympy.I) and all(s.is_real is True for s in factor.free_symbols):
        return False
    return not all(_turn(f) for f in sympy.Mul.make_args(sympy.expand(factor.rewrite(sympy.exp))))


def _turn(factor: Any) -> bool:
    """i, a real number, or an exponential (or a whole power of one): a factor that turns, or scales, a pair."""
    if factor.is_Pow and factor.exp.is_integer:
        factor = factor.base
    return factor == sympy.I or factor.is_real is True or isinstance(factor, sympy.exp)
