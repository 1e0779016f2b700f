r"""A family or a function that the text gives a value only as an example: ``- linear: $\lambda_j = j$``.

Where inline math that the text opens as an example (:mod:`.example_cues`) gives a family or a function a value,
the value is one case, not what the name means; two items of one list of examples that give the name two values
(``\lambda_j = j``, ``\lambda_j = \gamma^{j-1}``) are alternatives, neither in force. The name keeps no value, not
even one a definition gave it before (the example may change it), and the names whose definitions use it have
none either (as for a condition, :mod:`.inline_conditions`): a step that uses such a name is read with it free,
PROVED where it holds for every value, otherwise UNDECIDED, never REFUTED, since the step may hold at the
example. A step that meets the name only through a definition written before the example, and that is REFUTED
with the name free, is UNDECIDED for the same reason (:func:`refuted_at_example`).

A name given a number as an example keeps reading as a value given in passing (:mod:`.steps`); this module is for
the families and functions, which that reading does not cover.

Design constraints: text in, text out; the taint's words are the only record (a step's reason quotes them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .inline_conditions import conditional_column
from .reading import Head, mentions

__all__ = ["COLUMN_EXAMPLE_TAIL", "example_taint", "is_example_taint", "refuted_at_example"]

#: how such a why ends where the example gives the name a column or a matrix (read as a condition's column is)
COLUMN_EXAMPLE_TAIL = ", a column given as an example, not a definition"
#: why a name given a value only as an example has none (one value, or several: alternatives)
_EXAMPLE = re.compile(r"given (?:a value only as an example|values only as examples, alternatives) \(lines? ")
#: the lines an earlier taint of the same name gave it examples at
_LINES = re.compile(r"\(lines? ([\d, and]+)\)")


def example_taint(line: int, value: str, before: Iterable[str] = ()) -> str:
    """Why a name given ``value`` as an example at ``line`` has no value; ``before``: the name's earlier taints,
    whose examples (if any) the new one is an alternative to.

    Example:
        >>> example_taint(8, "j")
        'given a value only as an example (line 8), not a definition'
        >>> example_taint(9, "2^j", [example_taint(8, "j")])
        'given values only as examples, alternatives (lines 8 and 9), not a definition'
    """
    lines = [
        int(n)
        for why in before
        if is_example_taint(why) and (found := _LINES.search(why)) is not None
        for n in re.findall(r"\d+", found.group(1))
    ]
    tail = COLUMN_EXAMPLE_TAIL if conditional_column(value) else ", not a definition"
    if not lines:
        return f"given a value only as an example (line {line}){tail}"
    said = sorted(set(lines) | {line})
    at = ", ".join(str(n) for n in said[:-1]) + f" and {said[-1]}"
    return f"given values only as examples, alternatives (lines {at}){tail}"


def is_example_taint(why: str) -> bool:
    """Whether a taint (or one that a definition took from a name it uses) says the name was given a value only
    as an example.

    Example:
        >>> is_example_taint("whose definition (line 5) uses w_j, " + example_taint(8, "1"))
        True
        >>> is_example_taint("given a value only in a condition (posed by 'when', line 7), not a definition")
        False
    """
    return _EXAMPLE.search(why) is not None


def refuted_at_example(sides: tuple[Any, Any], unread: Iterable[tuple[Head, Any, str]]) -> str:
    """Why a step REFUTED with ``sides`` as read refutes nothing: it reads a member of a family that the text gives
    a value only as an example (``w_{3}`` where ``- flat: $w_j = 1$``), free there; "" where none.

    Example:
        >>> import sympy
        >>> taint = (Head("pattern", "w"), None, example_taint(8, "1"))
        >>> refuted_at_example((sympy.Symbol("c") * sympy.Symbol("w_{3}"), sympy.Integer(8)), [taint])[:57]
        'it reads w_{3} free, which the text gives a value only as'
        >>> refuted_at_example((sympy.Symbol("c"), sympy.Integer(8)), [taint])
        ''
    """
    names = sorted({s.name for side in sides if side is not None for s in side.free_symbols if hasattr(s, "name")})
    for head, _, why in unread:
        if not is_example_taint(why) or head.kind not in ("pattern", "symbol"):
            continue
        used = [n for n in names if mentions(head, n)]
        if used:
            which = why.removesuffix(COLUMN_EXAMPLE_TAIL).removesuffix(", not a definition")
            which = which.replace("given a value", "which the text gives a value", 1)
            which = which.replace("given values", "which the text gives values", 1)
            return f"it reads {', '.join(used)} free, {which}: the step may hold at the example: not decided"
    return ""
