"""A function defined once for a listed set of labels, read as one definition per label.

``f_{t:t\\in\\{q,k,v\\}}(x_i, i) = W_{t:t\\in\\{q,k,v\\}}(x_i + p_i)`` and ``f_t(x_i, i) = W_t(x_i + p_i), \\quad t
\\in \\{q, k, v\\}`` each state ``f_q(...) = W_q(...)``, ``f_k(...) = W_k(...)`` and ``f_v``: the label is written in
the function's name and in every name of the body that carries the same index (:func:`label_definitions`). The set
written as the subscript itself (``f_{\\{q,k\\}}``) is one name, as before (:mod:`.reading`), not read here.

Design constraints: read only where the set is written out as a list of labels (letters or words), the index
is one letter, and the body uses that letter only as a whole subscript (``W_t``, ``W_{t}``), so that the label
takes its place everywhere the index stands; otherwise None, and the display is read as before. A parameter
written ``i`` (``f_t(x_i, i)``) is the position the function takes, not the imaginary unit, where the body
writes ``i`` only as a whole subscript: it is then renamed to a letter the definition does not use, so that
the reader takes it for a name (:func:`position_renamed`). Nothing here decides anything.
"""

from __future__ import annotations

import re

from .document import Chain

__all__ = ["label_definitions", "labels_after", "position_renamed", "LabelDefinition"]

#: the listed labels: ``\{q, k, v\}`` (letters or words, two or more)
_LABEL_SET = r"\\\{\s*(?P<labels>[A-Za-z]+(?:\s*,\s*[A-Za-z]+)+)\s*\\\}"
_IN = r"(?:\\in(?![A-Za-z])|∈)"
#: ``f_{t:t\in\{q,k,v\}}`` or ``f_t:t∈\{q,k,v\}`` (the subscript holding the index and its set)
_IN_SUBSCRIPT = re.compile(
    r"_\s*(?:\{\s*(?P<a>[A-Za-z])\s*:\s*(?P=a)\s*" + _IN + r"\s*" + _LABEL_SET + r"\s*\}"
    r"|(?P<b>[A-Za-z])\s*:\s*(?P=b)\s*" + _IN + r"\s*" + _LABEL_SET.replace("labels", "labels_b") + r")"
)
#: ``t \in \{q, k, v\}``: the index's set written after the formula
_RANGE_OF_LABELS = re.compile(r"\s*(?P<index>[A-Za-z])\s*" + _IN + r"\s*" + _LABEL_SET + r"\s*")
#: the function's name: one letter, or a command (``\phi``), before the subscript
_NAME = re.compile(r"\s*(?:[A-Za-z]|\\[A-Za-z]+)\s*")


class LabelDefinition(tuple[str, str, str]):
    """One label's definition: (label, the left side, the body), the label written in."""

    __slots__ = ()


def labels_after(read: list[Chain]) -> list[Chain]:
    """The chains of a display, a chain ``t \\in \\{q, k, v\\}`` that only states the set of the index of the
    function defined right before it (``f_t(x_i, i) = W_t(x_i + p_i), \\qquad t \\in \\{q, k, v\\}``) kept as that
    definition's range instead of a chain of its own."""
    out: list[Chain] = []
    for chain in read:
        text = chain.links[0].text if len(chain.links) == 1 else ""
        m = _RANGE_OF_LABELS.fullmatch(text)
        before = out[-1] if out else None
        if m and before is not None and len(before.links) == 2 and not before.range and before.line == chain.line:
            if _indexed_head(before.links[0].text, m.group("index")):
                out[-1] = Chain(before.links, before.line, chain.then, text.strip())
                continue
        out.append(chain)
    return out


def _indexed_head(text: str, index: str) -> bool:
    m = _NAME.match(text)
    rest = text[m.end() :] if m else ""
    return re.match(r"_\s*(?:\{\s*" + index + r"\s*\}|" + index + r"(?![A-Za-z]))", rest) is not None


def label_definitions(left: str, body: str, stated_range: str) -> list[LabelDefinition] | None:
    """Each label's definition, where ``left`` defines a function for a listed set of labels (see the module
    docstring), else None.

    Example:
        >>> [tuple(d) for d in label_definitions("f_{t:t\\\\in\\\\{q,k\\\\}}(x, m)", "W_t x", "")]
        [('q', 'f_{q}(x, m)', 'W_{q} x'), ('k', 'f_{k}(x, m)', 'W_{k} x')]
    """
    name = _NAME.match(left)
    if name is None:
        return None
    rest = left[name.end() :]
    found = _IN_SUBSCRIPT.match(rest)
    ranged = _RANGE_OF_LABELS.fullmatch(stated_range) if stated_range else None
    if found is not None:
        index, labels = found.group("a") or found.group("b"), found.group("labels") or found.group("labels_b")
        spellings = [_IN_SUBSCRIPT.pattern, r"_\s*\{\s*" + index + r"\s*\}", r"_\s*" + index + r"(?![A-Za-z0-9])"]
    elif ranged is not None and _indexed_head(left, ranged.group("index")):
        index, labels = ranged.group("index"), ranged.group("labels")
        found = re.match(r"_\s*(?:\{\s*" + index + r"\s*\}|" + index + r"(?![A-Za-z]))", rest)
        spellings = [r"_\s*\{\s*" + index + r"\s*\}", r"_\s*" + index + r"(?![A-Za-z0-9])"]
    else:
        return None
    assert found is not None
    args = rest[found.end() :]
    if not re.fullmatch(r"\s*\([^()]*\)\s*", args):
        return None  # f_t := W_t(x_i + p_i) without its arguments: of what it is a function is not written
    body = re.sub(r"\s*[，；。]\s*$", "", body)  # a full-width comma closing the formula
    if index and re.search(r"(?<![A-Za-z\\])" + index + r"(?![A-Za-z])", args):
        return None  # f_t(x_t, t): the index is also a parameter
    out = []
    for label in re.split(r"\s*,\s*", labels.strip()):
        written, put = body, "_{" + label + "}"
        for spelling in spellings:
            written = re.sub(spelling, put.replace("\\", "\\\\"), written)
        # the index anywhere else (p_{i,2t}, a factor t): the label cannot take its place with certainty
        if index and re.search(r"(?<![A-Za-z\\])" + index + r"(?![A-Za-z])", written):
            return None
        if re.search(r"\\\{|∈|\\in(?![A-Za-z])", written):
            return None
        out.append(LabelDefinition((label, f"{left[: name.end()].strip()}_{{{label}}}{args.rstrip()}", written)))
    return out if len({d[0] for d in out}) == len(out) else None


#: letters a renamed position may take, in order; one the definition does not write is taken
_FREE_LETTERS = "jlsuw"


def position_renamed(left: str, body: str) -> tuple[str, str, str] | None:
    """``f_q(x_i, i) = W_q(x_i + p_i)``: the parameter ``i`` renamed, in the left side and the body, to a letter
    neither writes, where the body writes ``i`` only as a whole subscript (``x_i``, ``p_{i}``); with the letter
    it took. None where no parameter is ``i`` or the body writes it otherwise (``e^{i m \\theta}``).

    Example:
        >>> position_renamed("f_{q}(x_i, i)", "W_{q}(x_i + p_i)")
        ('f_{q}(x_{j}, j)', 'W_{q}(x_{j} + p_{j})', 'j')
    """
    m = re.fullmatch(r"(?P<name>[^()]*)\((?P<args>[^()]*)\)\s*", left)
    if m is None or "i" not in [a.strip() for a in m.group("args").split(",")]:
        return None
    as_index = r"_\s*(?:\{\s*i\s*\}|i(?![A-Za-z0-9]))"
    if re.search(r"(?<![A-Za-z\\])i(?![A-Za-z])", re.sub(as_index, "", body)):
        return None
    args = [a.strip() for a in m.group("args").split(",")]
    if any(a != "i" and re.search(r"(?<![A-Za-z\\])i(?![A-Za-z])", re.sub(as_index, "", a)) for a in args):
        return None
    written = left + body
    letter = next((c for c in _FREE_LETTERS if not re.search(r"(?<![A-Za-z\\])" + c + r"(?![A-Za-z])", written)), None)
    if letter is None:
        return None
    new_args = [letter if a == "i" else re.sub(as_index, "_{" + letter + "}", a) for a in args]
    return (
        f"{m.group('name')}({', '.join(new_args)})",
        re.sub(as_index, "_{" + letter + "}", body),
        letter,
    )
