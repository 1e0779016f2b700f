"""An inner product the document itself writes as the real part of a product with a conjugate.

An inner product of complex values has three conventions (``Re sum u_i conj(v_i)``, ``sum u_i conj(v_i)``,
``sum conj(u_i) v_i``), so a step about one is decided only where they agree (:mod:`.reading`). A display
line that writes it out as ``\\langle A, B \\rangle = \\mathrm{Re}[A \\cdot \\overline{B}]`` -- the same A and B
on both sides, the conjugate on the second -- says which one the document means: the real one. Every other
step of the document then reads its unmarked inner products that way only (a step marked ``_\\mathbb{C}`` keeps
its Hermitian readings, :mod:`..readers.inner_fields`). The line that says it is no evidence about itself: it
keeps the three readings. Only this one form is recognised; a document that writes another form, or none,
keeps the three readings everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..readers.latex_text import Src, split_top
from .document import MathBlock

__all__ = ["STATED_INNER", "real_inner_line", "states_real_inner"]

#: said in the reason of a step whose inner products are read the one way the document writes it
STATED_INNER = "as the document writes it"

#: ``\langle A, B \rangle = \text{Re}\left[ A \cdot \overline{B} \right]`` with the spaces taken out
_STATEMENT = re.compile(
    r"\\langle(?P<pair>.+)\\rangle=(?:\\(?:text|mathrm|operatorname)\{Re\}|\\Re(?![A-Za-z]))"
    r"(?:\\left)?(?P<open>[\[(])(?P<a>.+?)(?:\\cdot)?\\overline\{(?P<b>.+)\}(?:\\right)?[\])]"
)


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
    for block in blocks:
        if block.kind != "display":
            continue
        for k, line in enumerate(block.src.text.split("\n")):
            if any(states_real_inner(part) for part in re.split(r"\\\\", line)):
                return block.line + k
    return 0
