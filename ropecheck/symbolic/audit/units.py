"""A number written with a unit: ``32\\text{MB}``, ``32\\,\\text{GB}``, ``5\\mathrm{ms}``, ``10\\%``.

A word set upright right after a number (nothing but spacing between them) names the unit of that number:
``32\\text{MB}`` is 32 megabytes, not the number 32 with a remark after it, nor 32 times a name ``MB``. A side
written so is a quantity, not a number: the auditor leaves such a step UNREAD, naming the unit
(:func:`number_with_unit`), and the document reader does not take the word for prose between two equations
(:func:`unit_word_at`).

Design constraints: a unit is a word of two or more letters with no space in it (``\\text{ for }``, a spaced
remark, stays a note; ``\\mathrm{e}``, ``\\mathrm{d}``, ``\\text{i}`` stay what they are), not a word of prose
(``\\text{if}``), not called (``2\\mathrm{Re}(z)``), right after digits that are no subscript or power of a name
(``x_2\\text{MB}`` is not read as a unit), and not written elsewhere in the same text other than after a number
(there it is a name set upright); or ``\\%`` right after digits.
"""

from __future__ import annotations

import re

from ..readers.latex_text import PROSE_WORDS

__all__ = ["number_with_unit", "unit_word_at"]

#: digits (a decimal point allowed) that stand alone, then spacing, then an upright word or ``\\%`` (one upright letter
#: too: ``4\\text{k}``, ``2\\,\\mathrm{s}``; not d, e, i, T: a differential, Euler's number, the unit, a transpose)
_NUMBER_UNIT = re.compile(
    r"(?<![A-Za-z0-9_^.}\\])(?P<number>\d+(?:\.\d+)?)(?:\s|\\[,;:! ]|~)*"
    r"(?P<unit>\\(?:text|textrm|mathrm|mbox|textnormal|operatorname)\s*\{\s*(?P<word>[A-Za-z]{2,}|(?![deiT]\s*\})[A-Za-z])\s*\}"
    r"(?!\s*(?:\\left|\\begin|[({\[]))|\\%)"
)


#: an upright word anywhere, to tell a unit from a name written upright (``\\mathrm{Attention}``)
_UPRIGHT_WORD = re.compile(r"\\(?:text|textrm|mathrm|mbox|textnormal|operatorname)\s*\{\s*([A-Za-z]+)\s*\}")


def _units(text: str, document: str = "") -> list[re.Match[str]]:
    """The numbers with a unit in ``text``: a word that ``text`` or the ``document`` around it also writes
    elsewhere, not after a number, is a name there (``\\mathrm{Attention} + \\mathrm{Attention} =
    2\\,\\mathrm{Attention}``; ``\\mathrm{dim} = 31`` before ``2\\,\\mathrm{dim}``), not a unit."""
    found = [m for m in _NUMBER_UNIT.finditer(text) if (m.group("word") or "").lower() not in PROSE_WORDS]
    if not found:
        return []
    named: set[str] = set()
    for where in (text, document):
        after = {m.start("unit") for m in _NUMBER_UNIT.finditer(where)}
        named |= {w.group(1) for w in _UPRIGHT_WORD.finditer(where) if w.start() not in after}
    return [m for m in found if m.group("word") not in named]


def number_with_unit(text: str, document: str = "") -> str:
    """The first number written with a unit in ``text`` (a side, a step), as written (``32\\text{MB}``); "" where
    there is none. ``document``: the math around it, where a word written as a name is no unit."""
    found = _units(text, document)
    return re.sub(r"\s+", " ", found[0].group(0)) if found else ""


def unit_word_at(text: str, start: int) -> bool:
    """Whether the upright word starting at ``start`` in ``text`` is the unit of a number right before it."""
    return any(m.start("unit") == start for m in _units(text))
