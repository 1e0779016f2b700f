r"""Inner products typed with the signs ``<`` and ``>`` as brackets, glued to the relation after them: ``<a, b>=c``.

Many pages write ``\langle a, b \rangle`` as ``<a, b>`` and type no space before the ``=`` that follows, so the
``>`` and the ``=`` look like ``>=``, which is never a relation in a display. Where the pair is certainly a pair of
brackets, that ``=`` is the relation of the equation, and the sides read as ``\langle a, b \rangle`` would (the
readers take ``<a, b>`` as the inner product).

Design constraints: a pair is read only where it cannot be a comparison. The ``<`` (or ``\left<``) opens a side:
nothing is before it but spacing, or a relation is (``=``, ``\le``, ... , or the glued ``=`` after another pair);
its ``>`` is the first sign ``>`` after it, at its own depth of round, square and curly brackets, with no other
``<`` or ``>`` between them and exactly one comma at that depth, between two sides that are not blank; after the
``>`` come spacing, then the end, a relation or an operator. ``0 < a, b > 1``, ``a < b, c > d`` and ``x > 0``
have a side before their ``<`` (or no ``<``): they stay what they were.
"""

from __future__ import annotations

import re

__all__ = ["angle_pairs", "glued_equals"]

#: spacing between a pair and what stands next to it
_SPACE = r"(?:\s|~|\\[,;:! ]|\\q?quad(?![A-Za-z]))*"
#: a relation closing the text before a ``<`` (``=`` not the end of ``<=``, ``>=``, ``!=``, ``==``)
_RELATION_BEFORE = re.compile(
    r"(?:(?<![<>!=])=|:=|\\(?:approx|equiv|simeq|cong|propto|neq?|leq?|geq?|lt|gt|sim|coloneqq|triangleq)"
    r"|[≈≤≥≠])" + _SPACE + r"(?:\\left\s*)?$"
)
#: what may follow the ``>``: the end (a last stop), a relation or an operator
_AFTER = re.compile(
    _SPACE + r"(?:[.,;]?\s*$|=(?![=>])|:=|\\(?:approx|equiv|simeq|cong|propto|neq?|leq?|geq?|lt|gt|sim)(?![A-Za-z])"
    r"|[≈≤≥≠]|[-+*/^_]|\\(?:cdot|times)(?![A-Za-z]))"
)
_OPENS = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


def _close(text: str, start: int) -> int:
    """Where the ``>`` that closes the ``<`` at ``start`` is, or -1 where the two are not certainly one pair."""
    depth, commas = 0, []
    for i in range(start + 1, len(text)):
        ch = text[i]
        depth += _OPENS.get(ch, 0)
        if depth < 0 or (ch == "<" or (ch == ">" and depth > 0)):
            return -1
        if ch == "," and depth == 0 and text[i - 1] != "\\":
            commas.append(i)
        if ch == ">" and depth == 0:
            inner = re.sub(r"\\right\s*$", "", text[start + 1 : i])
            sides = (inner[: commas[0] - start - 1], inner[commas[0] - start :]) if len(commas) == 1 else ()
            return i if sides and all(re.sub(_SPACE, "", s) for s in sides) else -1
    return -1


def angle_pairs(text: str) -> list[tuple[int, int]]:
    r"""The ``<`` and ``>`` of each pair that is certainly an inner product, as ``(open, close)`` positions.

    Example:
        >>> angle_pairs("<f(x, m), h(y, n)>=g(x, y, m - n)")
        [(0, 17)]
        >>> angle_pairs("<a, b>=<b, a>"), angle_pairs(r"u = \left< a, b \right> + 1")
        ([(0, 5), (7, 12)], [(9, 22)])

    Comparisons are never pairs: a side stands before their ``<``, or a number after their ``>``.
        >>> angle_pairs("0 < a, b > 1"), angle_pairs("a < b, c > d"), angle_pairs("<a, b> 1"), angle_pairs("<a> = b")
        ([], [], [], [])
    """
    out: list[tuple[int, int]] = []
    for m in re.finditer(r"<(?![=<-])", text):
        before = text[: m.start()]
        closes = [c for _, c in out]
        glued = re.search(r"(?<=>)=" + _SPACE + r"(?:\\left\s*)?$", before)
        opens_side = (
            re.fullmatch(_SPACE + r"(?:\\left\s*)?", before) is not None
            or bool(_RELATION_BEFORE.search(before))
            or bool(glued and glued.start() - 1 in closes)
        )
        end = _close(text, m.start()) if opens_side and not before.endswith("\\") else -1
        if end >= 0 and _AFTER.match(text, end + 1):
            out.append((m.start(), end))
    return out


def glued_equals(text: str) -> list[re.Match[str]]:
    """The ``=`` right after the ``>`` of a pair (``<a, b>=c``): the relation of the equation, not half of ``>=``.

    Example:
        >>> [m.start() for m in glued_equals("<a, b>=<b, a>")], glued_equals("x >= 0"), glued_equals("<a, b> = c")
        ([6], [], [])
    """
    if ">=" not in text:  # the = stands right after a pair's >: no such text, no pair to look for (every block)
        return []
    equals = re.compile(r"=(?![=>:])")
    found = (equals.match(text, close + 1) for _, close in angle_pairs(text))
    return [m for m in found if m is not None]
