r"""Names of a matrix family written with a label and a raised size: ``R^d_{\Theta,m}``, ``R_{\Theta,m}^d``.

RoFormer's notation names the rotation at position m ``R^d_{\Theta,m}``: the size d raised, the set of
frequencies as a label before the position. The general reading (:mod:`.general`) reads one letter with one
subscript as a matrix's name, so the members of such a family are written here as one stand-in name with the
position alone as its subscript (``\boldsymbol{\mathcal{P}}_{n-m}``), a transpose raised with the size kept
(``R_{\Theta,m}^{d\top}``).

Design constraints: text in, text out. Every member in the text must carry the same label and the same raised
size as the family's name, and every use of the base letter must be such a member: otherwise nothing is written
(None). The stand-in is a calligraphic letter the text does not use.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from string import ascii_uppercase

from ..readers.latex_text import skip_group

__all__ = [
    "FamilyName",
    "family_name",
    "free_calligraphic",
    "plain_members",
    "raised_families",
    "raised_sibling",
    "stand_in",
    "without_raised",
]

_BASE = r"\\(?:boldsymbol|mathbf|bm)\s*\{\s*[A-Za-z]\s*\}|\\mathbf\s+[A-Za-z]|(?<![\\A-Za-z])[A-Z]"
_BASE_AT = re.compile(_BASE)
_TOP = re.compile(r"^(?:\\top|\\intercal|T|\\mathsf\s*\{\s*T\s*\})$")
_POSITION = re.compile(r"^[A-Za-z0-9+\-\s]+$")


@dataclass(frozen=True)
class FamilyName:
    """A family's name split: ``base`` (``\\boldsymbol{R}``), ``raised`` (``d``), ``label`` (``\\Theta``), ``param``."""

    base: str
    raised: str
    label: str
    param: str


def _script(text: str, at: int) -> tuple[str, str, int] | None:
    """The script at ``at`` (``_{...}``, ``^d``): its mark, its content, and where it ends; None if none is there."""
    m = re.compile(r"\s*([_^])\s*").match(text, at)
    if m is None:
        return None
    start = m.end()
    if start < len(text) and text[start] == "{":
        end = skip_group(text, start)
        return (m.group(1), text[start + 1 : end - 1], end) if end > 0 else None
    token = re.compile(r"\\[A-Za-z]+|[A-Za-z0-9]").match(text, start)
    return (m.group(1), token.group(0), token.end()) if token else None


def _member(text: str, at: int) -> tuple[str, str, str, bool, int] | None:
    """The base at ``at`` with its scripts: (base, raised, subscript, transposed in the raised part, end)."""
    base = _BASE_AT.match(text, at)
    if base is None:
        return None
    raised, sub, transposed, end = "", None, False, base.end()
    for _ in range(2):
        found = _script(text, end)
        if found is None or (found[0] == "_" and sub is not None) or (found[0] == "^" and raised):
            break
        mark, content, after = found
        if mark == "_":
            sub = content
        else:
            top = re.search(r"(\\top|\\intercal|\\mathsf\s*\{\s*T\s*\}|T)\s*$", content)
            if top is not None and content[: top.start()].strip():  # d\top: the size, then a transpose
                content, transposed = content[: top.start()], True
            elif _TOP.match(content.strip()):
                break  # a transpose alone: left as written, after the member
            raised = content.strip()
        end = after
    if sub is None:
        return None
    return re.sub(r"\s+", "", base.group(0)), raised, sub, transposed, end


def family_name(text: str) -> FamilyName | None:
    r"""The parts of a family's name written with a label or a raised size, or None.

    Example:
        >>> family_name(r"\mathbf{R}^d_{\Theta, m}")
        FamilyName(base='\\mathbf{R}', raised='d', label='\\Theta', param='m')
    """
    found = _member(text.strip(), 0)
    if found is None or found[4] != len(text.strip()) or found[3]:
        return None
    base, raised, sub, _, _ = found
    label, comma, param = sub.rpartition(",")
    if not re.fullmatch(r"[A-Za-z]", param.strip()) or not (raised or comma):
        return None
    return FamilyName(base, raised, re.sub(r"\s+", "", label), param.strip())


def raised_families(text: str) -> list[FamilyName]:
    r"""The matrix families ``text`` writes members of with a raised size or label (a word of letters) and a position,
    their letter a capital: each once, its ``param`` the position of its first member there.

    Example:
        >>> raised_families(r"(R^d_{\Theta,m} W x)^T R_{\Theta,n}^{d} y + R^{-1}_m z")
        [FamilyName(base='R', raised='d', label='\\Theta', param='m')]
    """
    found: dict[tuple[str, str, str], FamilyName] = {}
    for m in _BASE_AT.finditer(text):
        member = _member(text, m.start())
        if member is None or not re.fullmatch(r"[A-Za-z]+", member[1]) or not member[0].rstrip("}")[-1].isupper():
            continue
        base, raised, sub, _, _ = member
        label, _, position = sub.rpartition(",")
        if _POSITION.match(position):
            key = (base, raised, re.sub(r"\s+", "", label))
            found.setdefault(key, FamilyName(*key, position.strip()))
    return list(found.values())


def free_calligraphic(texts: list[str], names: Iterable[str] = (), letters: str = ascii_uppercase) -> str | None:
    """The first of ``letters`` that no ``\\mathcal`` of ``texts`` writes and no name of ``names`` reads as
    (``calR`` for ``\\mathcal{R}``), or None."""
    used, taken = " ".join(texts), tuple(names)
    for letter in letters:
        if not re.search(r"\\mathcal\s*\{\s*" + letter, used) and not any(n.startswith(f"cal{letter}") for n in taken):
            return letter
    return None


def stand_in(texts: list[str]) -> str | None:
    """A bold calligraphic letter none of ``texts`` uses, for the members of a family, or None."""
    letter = free_calligraphic(texts)
    return None if letter is None else rf"\boldsymbol{{\mathcal{{{letter}}}}}"


def plain_members(text: str, name: FamilyName, written: str) -> str | None:
    r"""``text`` with each member of the family written as ``written`` with the position alone as its subscript;
    None where a use of the base is no member of this family.

    Example:
        >>> plain_members(r"x^T (R^d_{\Theta,m})^T R^d_{\Theta,n} y", family_name(r"R^d_{\Theta,m}"), "P")
        'x^T (P_{m})^T P_{n} y'
    """
    out, pos = [], 0
    for m in _BASE_AT.finditer(text):
        if m.start() < pos or re.sub(r"\s+", "", m.group(0)) != name.base:
            continue
        found = _member(text, m.start())
        if found is None:
            return None
        _, raised, sub, transposed, end = found
        label, comma, position = sub.rpartition(",")
        if raised != name.raised or re.sub(r"\s+", "", label) != name.label or bool(comma) != bool(name.label):
            return None
        if not _POSITION.match(position):
            return None
        out.append(text[pos : m.start()] + f"{written}_{{{position.strip()}}}" + ("^{\\top}" if transposed else ""))
        pos = end
    return "".join(out) + text[pos:]


#: a pattern's key as the reader spells it: the base, a raised size or none, and the label before the position
_PATTERN_KEY = re.compile(
    r"^\\?(?P<base>[A-Za-z]+)(?:\^(?:\{(?P<braced>[A-Za-z]+)\}|(?P<one>[A-Za-z])))?_\{(?P<sub>.*),\*\}$"
)


def raised_sibling(key: str, other: str) -> tuple[str, str, str] | None:
    r"""Where the pattern ``other`` is the pattern ``key`` with a raised size added (``R^d_{\Theta,*}`` beside
    ``R_{\Theta,*}``): (base, raised size, label); else None.

    Example:
        >>> raised_sibling(r"R_{\Theta,*}", r"R^d_{\Theta,*}")
        ('R', 'd', '\\Theta')
    """
    plain, raised = _PATTERN_KEY.match(key), _PATTERN_KEY.match(other)
    if plain is None or raised is None or plain.group("braced") or plain.group("one"):
        return None
    size = raised.group("braced") or raised.group("one")
    same = plain.group("base") == raised.group("base") and plain.group("sub") == raised.group("sub")
    return (raised.group("base"), size, re.sub(r"\s+", "", raised.group("sub"))) if size and same else None


def without_raised(text: str, base: str, raised: str, label: str) -> str:
    r"""``text`` with each member of the family named with the raised size ``raised`` and the label ``label`` written
    as ``0``: a name of its own, which a use of the same letter without the size (``R_{\Theta,m}``) does not
    mention.

    Example:
        >>> without_raised(r"(R_{\Theta,m}^d)^T R^d_{\Theta,n} = R_{\Theta,n-m}", "R", "d", r"\Theta")
        '(0)^T 0 = R_{\\Theta,n-m}'
    """
    out, pos = [], 0
    for m in _BASE_AT.finditer(text):
        if m.start() < pos or re.sub(r"\s+", "", m.group(0)).lstrip("\\") != base:
            continue
        found = _member(text, m.start())
        if found is None or found[1] != raised:
            continue
        label_written, comma, _ = found[2].rpartition(",")
        if not comma or re.sub(r"\s+", "", label_written) != label:
            continue
        out.append(text[pos : m.start()] + "0")
        pos = found[4]
    return "".join(out) + text[pos:]
