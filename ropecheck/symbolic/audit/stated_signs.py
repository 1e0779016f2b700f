"""A name the document bounds below by a number that makes it positive (``k > 1``, ``s \\ge 2``): read as positive.

A derivation that scales a base or a position states the scale's range once (``where $k > 1$``) and then
distributes powers of it (``(10000 k^{d/(d-2)})^{-2i/d} = 10000^{-2i/d} k^{-2i/(d-2)}``), which holds for a
positive k and not for every real one. The bound stays what it was (a counterexample may break it, so a step
that uses the name is never REFUTED); here it also gives the name the domain it implies, positive, so that a
rewrite that needs a positive base can prove such a step. The verdict says which bound it rests on.

Design constraints: only ``name > c`` and ``name \\gg c`` with c a written number >= 0, and ``name \\ge c`` with
c > 0 (the name alone on the left, written before the step); a name already given a domain keeps it, and a
name bounded so more than once keeps the first bound. The domain is only ever narrowed to what the text states.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import sympy

from ..readers.scope import domain_key

__all__ = ["positive_from_bound", "said_bound", "sign_note"]

_WRITTEN_NUMBER = re.compile(r"\s*(\d+(?:\.\d+)?)\s*")
_STRICT = ("\\gt", "\\gg")
_WIDE = ("\\ge", "\\geq")
_SAID = {"\\gt": ">", "\\gg": ">>", "\\ge": ">=", "\\geq": ">="}


def positive_from_bound(name: str, relation: str, value: str) -> str | None:
    """The domain key of ``name`` when ``name <relation> value`` makes it positive, else None.

    Example:
        >>> positive_from_bound("k", "\\\\gt", "1"), positive_from_bound("\\\\alpha", "\\\\ge", "0")
        ('k', None)
    """
    m = _WRITTEN_NUMBER.fullmatch(value)
    if m is None or not re.fullmatch(r"\\?[A-Za-z]+(?:_\{?[A-Za-z0-9]+\}?)?", name.strip()):
        return None
    bound = sympy.Rational(m.group(1))
    if (relation in _STRICT and bound >= 0) or (relation in _WIDE and bound > 0):
        return domain_key(name.strip())
    return None


def said_bound(name: str, relation: str, value: str) -> str:
    """The bound as a verdict's reason says it.

    Example:
        >>> said_bound("k", "\\\\gt", " 1")
        'k > 1'
    """
    return f"{name.strip()} {_SAID.get(relation, relation)} {value.strip()}"


def sign_note(names: set[str], signs: Mapping[str, tuple[str, int]]) -> str:
    """What a decided step's reading of these names (their domain keys) rests on: "" when it rests on no bound.

    Example:
        >>> sign_note({"k", "d"}, {"k": ("k > 1", 308)})
        'read with k positive, as the text states k > 1 (line 308)'
    """
    used = sorted(n for n in names if n in signs)
    if not used:
        return ""
    said = ", ".join(f"{signs[n][0]} (line {signs[n][1]})" for n in used)
    return f"read with {', '.join(used)} positive, as the text states {said}"
