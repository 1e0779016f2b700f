"""An inner product the document itself writes as the real part of a product with a conjugate.

An inner product of complex values has three conventions (``Re sum u_i conj(v_i)``, ``sum u_i conj(v_i)``,
``sum conj(u_i) v_i``), so a step about one is decided only where they agree (:mod:`.reading`). A display
line that writes it out as ``\\langle A, B \\rangle = \\mathrm{Re}[A \\cdot \\overline{B}]`` -- the same A and B
on both sides, the conjugate on the second -- says which one the document means: the real one. Every other
step of the document then reads its unmarked inner products that way only (a step marked ``_\\mathbb{C}`` keeps
its Hermitian readings, :mod:`..readers.inner_fields`). The line that says it is no evidence about itself: it
keeps the three readings. Only this one form is recognised; a document that writes another form, or none,
keeps the three readings everywhere.

So for ``a \\cdot b`` of two complex values, which reads as their product or as the dot product of the pairs
they stand for (:mod:`..readers.complex_dots`): a display line ``a \\cdot b = \\mathrm{Re}[a \\overline{b}]``
(``\\bar{b}`` and ``b^*`` too) says the document means the second, and its other steps read such a ``\\cdot``
that way only; the line itself keeps both readings.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..readers.latex_text import Src, split_top
from .document import MathBlock

__all__ = ["STATED_INNER", "real_dot_line", "real_inner_line", "states_dot", "states_real_inner"]

#: said in the reason of a step whose inner products are read the one way the document writes it
STATED_INNER = "as the document writes it"

#: ``\langle A, B \rangle = \text{Re}\left[ A \cdot \overline{B} \right]`` with the spaces taken out
_STATEMENT = re.compile(
    r"\\langle(?P<pair>.+)\\rangle=(?:\\(?:text|mathrm|operatorname)\{Re\}|\\Re(?![A-Za-z]))"
    r"(?:\\left)?(?P<open>[\[(])(?P<a>.+?)(?:\\cdot)?\\overline\{(?P<b>.+)\}(?:\\right)?[\])]"
)


#: ``a \cdot b = \mathrm{Re}[a \overline{b}]`` (``\bar{b}``, ``\bar b``, ``b^*``)
_DOT_STATEMENT = re.compile(
    r"\s*(?P<left>[^=]+?)\\cdot(?![A-Za-z])(?P<right>[^=]+)=\s*(?:\\(?:text|mathrm|operatorname)\s*\{\s*Re\s*\}|\\Re(?![A-Za-z]))"
    r"\s*(?:\\left\s*)?[\[(](?P<a>.+?)(?:\\cdot(?![A-Za-z]))?\s*(?:\\overline\s*\{(?P<b>.+)\}|\\bar\s*\{(?P<c>.+)\}"
    r"|\\bar\s*(?P<d>[A-Za-z])|(?P<e>[^\s].*?)\s*\^\s*(?:\{\s*\*\s*\}|\*))\s*(?:\\right\s*)?[\])]\s*"
)


def states_dot(line: str) -> bool:
    """Whether ``line`` (one equation) writes ``a \\cdot b = Re[a conj(b)]``, the same a and b on both sides.

    Example:
        >>> states_dot(r"a \\cdot b = \\mathrm{Re}[a \\bar{b}]"), states_dot(r"a \\cdot b = \\mathrm{Re}[\\bar{a} b]")
        (True, False)
    """
    m = _DOT_STATEMENT.fullmatch(line)
    if m is None:
        return False
    second = next(g for g in m.group("b", "c", "d", "e") if g is not None)
    spaced = [re.sub(r"\s+|\\[,;:! ]", "", g) for g in (m.group("left"), m.group("right"), m.group("a"), second)]
    return spaced[:2] == spaced[2:]


def real_dot_line(blocks: Sequence[MathBlock]) -> int:
    """The line of the first display line that writes ``a \\cdot b`` as a real part (:func:`states_dot`), or 0."""
    return _first_line(blocks, states_dot)


def states_real_inner(line: str) -> bool:
    """Whether ``line`` (one equation) writes ``<A, B> = Re[A conj(B)]``, the same A and B on both sides.

    Example:
        >>> states_real_inner(r"\\langle u, v \\rangle = \\text{Re}\\left[ u \\cdot \\overline{v} \\right]")
        True
        >>> states_real_inner(r"\\langle u, v \\rangle = \\text{Re}\\left[ \\overline{u} \\cdot v \\right]")
        False
    """
    m = _STATEMENT.fullmatch(re.sub(r"\s+", "", line))
    if m is None:
        return False
    parts = split_top(Src.of(m.group("pair")), ",")
    return len(parts) == 2 and [p.text for p in parts] == [m.group("a"), m.group("b")]


def real_inner_line(blocks: Sequence[MathBlock]) -> int:
    """The line of the first display line that writes the document's inner product as a real part
    (:func:`states_real_inner`), or 0."""
    return _first_line(blocks, states_real_inner)


def _first_line(blocks: Sequence[MathBlock], states: Callable[[str], bool]) -> int:
    """The line of the first display line one of whose rows ``states`` says so of, or 0."""
    for block in blocks:
        if block.kind != "display":
            continue
        for k, line in enumerate(block.src.text.split("\n")):
            if any(states(part) for part in re.split(r"\\\\", line)):
                return block.line + k
    return 0
