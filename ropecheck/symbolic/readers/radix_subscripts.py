"""A subscript that writes a number in another base: ``p_{(011)_2}`` is ``p_{3}``.

``(011)_2`` is the number 011 written in base 2, three: a name labelled so is the member at that number, as
``p_3`` is. The subscript is written out in base ten before the reader sees it; nothing else is rewritten.

Design constraints: text in, text out; only a bracketed run of two or more decimal digits with a base from 2 to
10 written after it, each digit below the base, as the whole subscript; anything else is left as written (and the
reader says why it cannot read it). A single digit is left too: ``(3)_2`` may be a rising factorial, whose
subscript is no base.
"""

from __future__ import annotations

import re

__all__ = ["RADIX_SUBSCRIPT", "radix_subscript"]

#: ``_{(011)_2}``, ``_{(17)_{8}}``: a whole subscript that is a number written in a base
RADIX_SUBSCRIPT = re.compile(
    r"_\s*\{\s*\(\s*(?P<digits>[0-9]{2,})\s*\)\s*_\s*(?:\{\s*(?P<base>\d+)\s*\}|(?P<one>\d))\s*\}"
)


def radix_subscript(m: re.Match[str]) -> str:
    """The subscript :data:`RADIX_SUBSCRIPT` found, in base ten; as written where a digit is not below the base
    or the base is not from 2 to 10.

    Example:
        >>> RADIX_SUBSCRIPT.sub(radix_subscript, "p_{(011)_2} + q_{(12)_{8}} + r_{(12)_2} + s_{(1)_2}")
        'p_{3} + q_{10} + r_{(12)_2} + s_{(1)_2}'
    """
    base = int(m.group("base") or m.group("one"))
    if not 2 <= base <= 10:
        return m.group(0)
    try:
        value = int(m.group("digits"), base)
    except ValueError:
        return m.group(0)
    return "_{" + str(value) + "}"
