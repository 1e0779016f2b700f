"""子 and 母 in a chain: the numerator and the denominator of the fraction the side before wrote.

Chinese derivations shorten a long fraction in the next sides of a chain to its parts, 子 for 分子 (the
numerator) and 母 for 分母 (the denominator): after ``-\\sum_{j=1}^n \\frac{e^{x_j}}{\\sum_j e^{x_j}} \\log
\\frac{e^{x_j}}{\\sum_j e^{x_j}}`` comes ``= \\frac{\\sum 子 \\log 母}{母} - \\frac{\\sum 子 \\log 子}{母}``. The
placeholders stand for that fraction's parts only where the nearest side before them that writes no placeholder
has exactly one such pair: every fraction there (``\\frac``, ``\\dfrac``, ``\\tfrac``) has the same numerator and
the same denominator. A ``\\sum`` written bare beside them (no index, no range) is the sum that side writes
around its fractions, which must then be the only sum there outside them. Each placeholder is read as its
expression, never as a name of its own (``\\sum 子`` is the denominator itself when that is the same sum).
Otherwise the step is UNREAD with the reason; where it is read, its reason says what 子 and 母 were read as.

Design constraints: pure text, no SymPy; only sides of one chain are looked at, never the prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..readers.latex_text import skip_group
from .document import Link

__all__ = ["PlaceholderSide", "fill_placeholders"]

#: 分子/分母 written out, or 子/母 alone (not inside a longer Chinese word such as 子空间), perhaps set upright
_CJK = "\u4e00-\u9fff"
_HAN_PART = re.compile(
    r"\\(?:text|mathrm|textrm)\s*\{\s*(分子|分母|子|母)\s*\}"
    rf"|(分子|分母)|(?<![{_CJK}])(子|母)(?![{_CJK}])"
)
_FRACTION = re.compile(r"\\[dt]?frac(?![A-Za-z])\s*")
_SUM = re.compile(r"\\sum(?![A-Za-z])(\s*\\limits)?\s*")
#: the subscript of the sum around the fractions: one letter = its lower limit
_INDEX = re.compile(r"^\s*([A-Za-z])\s*=\s*[^=]+$")


@dataclass(frozen=True)
class PlaceholderSide:
    """One side of a chain as it is read: ``text`` with its placeholders filled in, ``note`` saying how they were
    read ("" where it has none), ``unread`` why they could not be ("" where they could)."""

    text: str
    note: str = ""
    unread: str = ""


def _group(text: str, at: int) -> tuple[str, int] | None:
    """The argument at ``text[at]`` (a braced group, or one character or command) and the index past it."""
    while at < len(text) and text[at].isspace():
        at += 1
    if at >= len(text):
        return None
    if text[at] == "{":
        end = skip_group(text, at)
        return None if end < 0 else (text[at + 1 : end - 1], end)
    m = re.match(r"\\[A-Za-z]+|[^\s{}]", text[at:])
    return None if m is None else (m.group(0), at + len(m.group(0)))


def _fractions(text: str) -> list[tuple[str, str, int, int]] | None:
    """Every fraction of ``text``: numerator, denominator and span; None where one cannot be cut out."""
    out = []
    for m in _FRACTION.finditer(text):
        num = _group(text, m.end())
        den = _group(text, num[1]) if num is not None else None
        if num is None or den is None:
            return None
        out.append((num[0], den[0], m.start(), den[1]))
    return out


def _sum_range(text: str, spans: list[tuple[int, int]]) -> tuple[str, str, str] | None:
    """(index, subscript, superscript) of the one sum of ``text`` outside its fractions, or None."""
    found = []
    for m in _SUM.finditer(text):
        if any(a <= m.start() < b for a, b in spans):
            continue
        if not text.startswith("_", m.end()):
            return None
        sub = _group(text, m.end() + 1)
        rest = text[sub[1] :].lstrip() if sub is not None else ""
        sup = _group(rest, 1) if rest.startswith("^") else None
        index = _INDEX.match(sub[0]) if sub is not None else None
        if sub is None or sup is None or index is None:
            return None
        found.append((index.group(1), sub[0], sup[0]))
    return found[0] if len(found) == 1 else None


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _parts(source: Link) -> tuple[str, str, tuple[str, str, str] | None] | str:
    """The one (numerator, denominator) of ``source``'s fractions and the sum around them, or why there is none."""
    fractions = _fractions(source.text)
    pairs = {(_squeeze(n), _squeeze(d)) for n, d, _, _ in fractions or []}
    if not fractions or len(pairs) != 1:
        many = f"{len(pairs)} different fractions" if fractions else "no fraction it can cut out"
        return (
            f"子 and 母 stand for the numerator and the denominator of the fraction on the side before, which writes "
            f"{many} (line {source.line}): not read"
        )
    num, den = fractions[0][0].strip(), fractions[0][1].strip()
    around = _sum_range(source.text, [(a, b) for _, _, a, b in fractions])
    if around is not None and not re.search(rf"(?<![A-Za-z\\]){around[0]}(?![A-Za-z])", num):
        around = None  # the sum's index is not the numerator's: not the sum around the fraction
    return num, den, around


def _fill(link: Link, source: Link) -> PlaceholderSide:
    parts = _parts(source)
    if isinstance(parts, str):
        return PlaceholderSide(link.text, unread=parts)
    num, den, around = parts
    bare = [m for m in _SUM.finditer(link.text) if not link.text.startswith(("_", "^"), m.end())]
    if bare and around is None:
        why = (
            f"a bare \\sum beside 子 and 母, and the side before (line {source.line}) writes no one sum around its "
            "fraction whose range it may take: not read"
        )
        return PlaceholderSide(link.text, unread=why)
    what = {"子": num, "分子": num, "母": den, "分母": den}
    text = _HAN_PART.sub(lambda m: f"\\left({what[next(g for g in m.groups() if g)]}\\right)", link.text)
    ranged = f"\\sum_{{{around[1]}}}^{{{around[2]}}} " if around is not None else ""
    for m in reversed([m for m in _SUM.finditer(text) if not text.startswith(("_", "^"), m.end())]):
        text = text[: m.start()] + ranged + text[m.end() :]
    note = (
        f"子 and 母 read as the numerator {num} and the denominator {den} of the fraction on the side before "
        f"(line {source.line})"
    )
    if bare and around is not None:
        note += f", a bare \\sum as its \\sum_{{{around[1]}}}^{{{around[2]}}}"
    return PlaceholderSide(text, note=note)


def fill_placeholders(sides: list[Link]) -> list[PlaceholderSide] | None:
    """Each side of a chain as it is read (see the module docstring); None where no side writes 子 or 母.

    Example:
        >>> a = Link(r"\\frac{x_j}{\\sum_{j=1}^{n} x_j}", 3)
        >>> fill_placeholders([a, Link(r"\\frac{子}{母}", 4)])[1].text
        '\\\\frac{\\\\left(x_j\\\\right)}{\\\\left(\\\\sum_{j=1}^{n} x_j\\\\right)}'
    """
    if not any(_HAN_PART.search(s.text) for s in sides):
        return None
    out: list[PlaceholderSide] = []
    source: Link | None = None
    for side in sides:
        if not _HAN_PART.search(side.text):
            out.append(PlaceholderSide(side.text))
            source = side
        elif source is None:
            why = "子 and 母 stand for the parts of a fraction, and no side before them writes one"
            out.append(PlaceholderSide(side.text, unread=why))
        else:
            out.append(_fill(side, source))
    return out
