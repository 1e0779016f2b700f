r"""Inner products marked with their field: ``\langle u, v \rangle_\mathbb{R}`` or ``\langle u, v \rangle_\mathbb{C}``
(the real inner product, or the Hermitian one).

This literature marks which inner product it means by a subscript after the closing bracket:

* ``_\mathbb{R}`` (also ``_{\mathbb{R}}``, ``_{\mathbb{R}^d}``): the real inner product, ``sum u_i v_i`` of real
  vectors; of complex vectors taken as real ones (each entry a pair of its real and imaginary parts) it is
  ``Re sum u_i conj(v_i)``, one value whichever argument the Hermitian product conjugates;
* ``_\mathbb{C}`` (also ``_{\mathbb{C}}``, ``_{\mathbb{C}^d}``): the Hermitian inner product, whose two conventions
  differ on complex values (``sum u_i conj(v_i)``, or ``sum conj(u_i) v_i``): a step that writes it is read in
  both, unless they give one value (``\mathrm{Re}`` of it does: the two are conjugates of each other).

An inner product written without a subscript keeps the three readings an audit tries
(:data:`.sympy_syntax.INNER_PRODUCTS`). :func:`inner_field_at` reads a mark after a closing bracket;
:func:`inner_field_options` says, from a step's text, which conventions its inner products are read in.

Design constraint: pure functions of the text; a mark is read only where it follows a closing bracket.
"""

from __future__ import annotations

import re

__all__ = [
    "COMPLEX_FIELD_CONVENTIONS",
    "FIELD_IDENTITY",
    "FIELD_SAID",
    "InnerFieldOption",
    "in_inner_field_mark",
    "inner_field_at",
    "inner_field_options",
    "merged_field_note",
    "real_part_of_hermitian",
]

#: the Hermitian conventions a ``_\mathbb{C}`` inner product is read in
COMPLEX_FIELD_CONVENTIONS = ("conjugate-second", "conjugate-first")

#: a field subscript right after an inner product's closing bracket: ``_\mathbb{R}``, ``_{\mathbb{C}^2}``
_INNER_FIELD_MARK = re.compile(
    r"\s*_\s*(?:\{\s*\\mathbb\s*(?:\{\s*(?P<a>[RC])\s*\}|(?P<b>[RC]))\s*(?:\^\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?\s*\}"
    r"|\\mathbb\s*(?:\{\s*(?P<c>[RC])\s*\}|\s(?P<d>[RC])))"
)

#: an inner product's closing bracket followed by a field subscript, anywhere in a step
_INNER_FIELD_CLOSE = re.compile(r"(?:\\rangle|>)" + _INNER_FIELD_MARK.pattern)

#: words in every note of a reading of a marked inner product: the reading is said in a decided step's reason
FIELD_SAID = "as its subscript"

_FIELD_NOTE = {
    "R": f"<u, v>_R = Re sum u_i conj(v_i), the real inner product ({FIELD_SAID} R says)",
    "conjugate-second": f"<u, v>_C = sum u_i conj(v_i) (the Hermitian product, {FIELD_SAID} C says)",
    "conjugate-first": f"<u, v>_C = sum conj(u_i) v_i (the Hermitian product, {FIELD_SAID} C says)",
}
_EITHER_NOTE = (
    f"<u, v>_C in either Hermitian convention (the Hermitian product, {FIELD_SAID} C says; both read alike here)"
)

#: one way to read a step's inner products: the convention of those without a subscript (or ''), that of those
#: marked C, and the note that says it
InnerFieldOption = tuple[str, str, str]


def inner_field_at(text: str, stop: int) -> tuple[str, int]:
    r"""The field (``'R'`` or ``'C'``) a subscript at ``stop`` (just after a closing ``\rangle`` or ``>``) names,
    and where the subscript ends; ``('', stop)`` where none is written.

        >>> inner_field_at(r"\langle a, b \rangle_\mathbb{R} + 1", 20)
        ('R', 31)
        >>> inner_field_at(r"\langle a, b \rangle_{\mathbb{C}^2}", 20)
        ('C', 35)
        >>> inner_field_at(r"\langle a, b \rangle_j", 20)
        ('', 20)
    """
    m = _INNER_FIELD_MARK.match(text, stop)
    if m is None:
        return "", stop
    return next(g for g in m.group("a", "b", "c", "d") if g), m.end()


#: the reason of a step proved by :func:`real_part_of_hermitian`
FIELD_IDENTITY = (
    "the real inner product (subscript R) is the real part of the Hermitian one (subscript C) of the same two "
    "arguments, whichever argument the Hermitian product conjugates (their values are conjugates of each other): "
    "true by the two definitions, for real vectors and for complex vectors taken as real ones"
)

#: ``\mathrm{Re}(`` and its spellings, then the bracket's body: a Hermitian inner product and nothing else
_REAL_PART_OPEN = re.compile(
    r"^(?:\\(?:mathrm|text|operatorname)\s*\{\s*Re\s*\}|\\Re|Re)\s*(?:\\(?:left|[Bb]igg?l?)\s*)?[(\[]"
)


def _bare_inner(text: str, field_name: str) -> str | None:
    """The two arguments of a side that is one inner product marked ``field_name``, spaces removed, or None."""
    t = re.sub(r"\s+", "", text)
    m = re.match(r"^(?:\\left)?(?:\\langle|<)(.*)(?:\\right)?(?:\\rangle|>)", t)
    if m is None:
        return None
    mark, stop = inner_field_at(t, m.end())
    if mark != field_name or stop != len(t):
        return None
    body = re.sub(r"\\right$", "", m.group(1))
    return None if re.search(r"\\langle|\\rangle|[<>]", body) else body


def real_part_of_hermitian(lhs: str, rhs: str) -> bool:
    r"""Whether a step says ``<u, v>_R = Re(<u, v>_C)`` (either way round) of the same arguments, as written:
    true by the definitions (:data:`FIELD_IDENTITY`).

    >>> real_part_of_hermitian(r"\langle a, b \rangle_\mathbb{R}", r"\mathrm{Re}(\langle a, b \rangle_{\mathbb{C}})")
    True
    >>> real_part_of_hermitian(r"\langle a, b \rangle_\mathbb{R}", r"\mathrm{Re}(\langle b, a \rangle_{\mathbb{C}})")
    False
    """
    for real, other in ((lhs, rhs), (rhs, lhs)):
        args = _bare_inner(real, "R")
        t = re.sub(r"\s+", "", other)
        m = _REAL_PART_OPEN.match(t)
        if args is None or m is None or t[-1] not in ")]":
            continue
        inside = re.sub(r"\\(?:right|[Bb]igg?r?)$", "", t[m.end() : -1])
        if _bare_inner(inside, "C") == args and "," in args:
            return True
    return False


def merged_field_note(kept: str, dropped: str) -> str:
    """The note of a reading kept where another, ``dropped``, gave the same sides: where the two differ only in the
    Hermitian convention, one note that says both read alike; else ``kept``.

    >>> merged_field_note(_FIELD_NOTE["conjugate-second"], _FIELD_NOTE["conjugate-first"]) == _EITHER_NOTE
    True
    """
    first, second = _FIELD_NOTE["conjugate-second"], _FIELD_NOTE["conjugate-first"]
    if first in kept and kept.replace(first, second) == dropped:
        return kept.replace(first, _EITHER_NOTE)
    return kept


def in_inner_field_mark(text: str, pos: int) -> bool:
    r"""Whether the ``\mathbb`` at ``pos`` marks an inner product's field (read by :func:`inner_field_at`).

    >>> in_inner_field_mark(r"\langle a, b \rangle_{\mathbb{R}}", 22), in_inner_field_mark(r"x \in \mathbb{R}", 6)
    (True, False)
    """
    return any(m.start() < pos < m.end() for m in _INNER_FIELD_CLOSE.finditer(text))


def inner_field_options(text: str, conventions: tuple[str, ...], notes: dict[str, str]) -> list[InnerFieldOption]:
    r"""The ways a step's inner products are read: every convention of ``conventions`` for those without a
    subscript (each closing ``\rangle`` or ``>`` not marked counts as one, so a ``>`` that is no bracket only adds
    readings), each Hermitian convention for those marked C, and the real one for those marked R.

        >>> [n for _, _, n in inner_field_options(r"\langle a, b \rangle_\mathbb{R}", ("real",), {"real": "r"})]
        ['<u, v>_R = Re sum u_i conj(v_i), the real inner product (as its subscript R says)']
        >>> len(inner_field_options(r"<a, b>_{\mathbb{C}} = \langle a, b \rangle", ("x", "y", "z"), {}))
        6
    """
    marks = [m.group("a") or m.group("b") or m.group("c") or m.group("d") for m in _INNER_FIELD_CLOSE.finditer(text)]
    closers = len(re.findall(r"\\rangle|>", text))
    plain = conventions if closers > len(marks) else ("",)
    complex_ways = COMPLEX_FIELD_CONVENTIONS if "C" in marks else ("",)
    out: list[InnerFieldOption] = []
    for convention in plain:
        for way in complex_ways:
            said = [notes.get(convention, ""), _FIELD_NOTE["R"] if "R" in marks else "", _FIELD_NOTE.get(way, "")]
            out.append((convention or "real", way or COMPLEX_FIELD_CONVENTIONS[0], ", ".join(filter(None, said))))
    return out
