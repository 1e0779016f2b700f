r"""The complex number written from its parts, ``X + iY``: where its ``i`` is the imaginary unit.

``a + ib`` is how texts write a complex number from its real and imaginary parts, the ``i`` often glued to the
component after it (``q_m^{(1)} + iq_m^{(2)}``, ``q_j + iq_{j+d/2}``). Read otherwise, ``iq`` is a name or a
product of two letters (see :func:`.latex_syntax.read_latex_side`), and its ``i``, in a text that also indexes
with i, the unit or that index; so the ``i`` is read as the unit only where nothing else can be meant:

* it stands after a ``+`` or ``-`` that follows an operand (a sum, not a sign), glued to one Latin letter with
  a subscript or a superscript (a component: ``q_1``, ``q_m^{(2)}``, ``k_{j+d/2}``) that ends the term (a
  bracket, a comma, a sign, ``=`` or the end follows);
* the text writes ``i`` as the unit: in an exponent of e (``e^{i\theta}``) or under Re or Im, in the same formula
  or elsewhere in the document (``Scope.complex_sums`` is ``"document"``);
* nothing indexes with i there: no subscript with i (``x_i + iy_i`` keeps both readings), no sum or product over
  i, no definition with i as a parameter, and the step it is in writes none either (``"off"``).

Anything else is read as before: ``q_0 + i q_1`` too, its ``i`` apart (no glued word to read) -- in a text
that indexes with i it stays the unit or the index, read both ways in a step.

Design constraint: pure text in, columns out; the caller writes the unit.
"""

from __future__ import annotations

import re

__all__ = ["indexes_with_i", "unit_sum_columns", "writes_complex_parts"]

#: ``X + iY``: the sign after an operand, ``i``, then one letter with its scripts, the term ending there
_COMPLEX_SUM = re.compile(
    r"(?<=[A-Za-z0-9})\]'])\s*(?:[+-]|\\pm(?![A-Za-z])|\\mp(?![A-Za-z]))\s*"
    r"(?<![\\A-Za-z])(?P<unit>i)(?P<part>[A-HJ-Za-hj-z])"
    r"(?:\s*[_^]\s*(?:\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}|[A-Za-z0-9]))+"
    r"(?=\s*(?:$|[)\],=+\-&]|\\\\|\\right(?![A-Za-z])|\\pm(?![A-Za-z])|\\mp(?![A-Za-z])))"
)
#: ``\theta_i``, ``x_{2i}``, ``\sum_i``, ``\sum_{i=1}``: i as an index
_INDEX_I = re.compile(
    r"_\s*(?:i(?![A-Za-z])|\{[^{}]*(?<![\\A-Za-z])i(?![A-Za-z])[^{}]*\})"
    r"|\\(?:sum|prod)\s*(?:\\limits\s*)?_\s*\{?\s*i(?![A-Za-z])"
)
#: ``\text{Re}``, ``\operatorname{Im}``, ``\Re``: a real or imaginary part, of a complex number
_PART = re.compile(r"\\(?:text|textrm|mathrm|operatorname)\s*\{\s*(?:Re|Im)\s*\}|\\(?:Re|Im)(?![A-Za-z])")
#: a command's argument, which holds no sum of the formula
_ARGUMENT = re.compile(r"\\(?:mathit|mathrm|mathsf|text|textrm|operatorname|begin|end)\s*\{[^{}]*\}")


def indexes_with_i(text: str) -> bool:
    r"""Whether ``text`` uses ``i`` as an index: in a subscript (``q_i``, ``x_{2i}``) or under a sum or product.

    Example:
        >>> indexes_with_i(r"\sum_i x_i"), indexes_with_i(r"q_0 + iq_1")
        (True, False)
    """
    return bool(_INDEX_I.search(text))


def writes_complex_parts(text: str) -> bool:
    r"""Whether ``text`` takes a real or imaginary part (``\text{Re}[z]``): the values there are complex.

    Example:
        >>> writes_complex_parts(r"\text{Re}[q k^*]"), writes_complex_parts(r"q_0 + iq_1")
        (True, False)
    """
    return bool(_PART.search(text))


def unit_sum_columns(text: str) -> list[int]:
    r"""The columns of each ``i`` of ``text`` written as the unit of a complex number ``X + iY`` (see the module).

    The caller says whether the text (or its document) writes ``i`` as the unit; this finds the sums only, and
    none where ``text`` indexes with i.

    Example:
        >>> unit_sum_columns(r"q_m^{(1)} + iq_m^{(2)}"), unit_sum_columns(r"(x_1 + iy_1)(x_2 - iy_2)")
        ([12], [7, 19])
        >>> unit_sum_columns(r"q_0 + i q_1")
        []
        >>> unit_sum_columns(r"x_i + iy_i"), unit_sum_columns(r"a + ib"), unit_sum_columns(r"a + iq_1 z")
        ([], [], [])
    """
    if indexes_with_i(text):
        return []
    masked = [(m.start(), m.end()) for m in _ARGUMENT.finditer(text)]
    out = []
    for m in _COMPLEX_SUM.finditer(text):
        at = m.start("unit")
        if not any(a <= at < b for a, b in masked):
            out.append(at)
    return out
