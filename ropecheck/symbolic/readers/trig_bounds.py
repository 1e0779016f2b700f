"""Where a trig argument written without parentheses ends: the marks the writer typed that normalizing hides.

SymPy's LaTeX parser lets ``\\cos`` without parentheses take everything up to the next ``+`` or ``-``: to it,
``\\cos{m\\theta} \\cdot \\cos{n\\theta}`` is cos(m θ cos(n θ)) and ``\\sin\\theta\\, x`` is sin(θ x). The reader's
narrow reading (``_trig_arguments`` in :mod:`.latex_syntax`) cuts the argument where a reader would; this module
gives it what the writer typed:

* a braced group right after the function (``\\cos{m\\theta}``, ``\\cos^2{\\theta}``) is one atom of the argument,
  as the same letters without braces are (TeX sets both alike): ``\\cos{m\\theta} \\cdot x`` is cos(m θ) x, as
  ``\\cos m\\theta \\cdot x`` is, never cos(m θ x);
* an explicit space (``\\,``, ``\\;``, ``\\:``, ``\\ ``, ``~``) between the argument and a further factor the
  argument would take in (``\\sin\\theta\\, x``): the function of the argument alone, or of the product? Not
  guessed: refused (:func:`spaced_factor_problem`);
* the letter ``i`` after the argument (``\\sin\\theta\\, i``, ``\\sin m\\theta i``): the unit times the function, or
  an imaginary angle? Refused too.

Also a row break with its spacing, ``\\\\[2pt]``, is the row break alone (:func:`without_row_spacing`): the
length is layout, never the factor ``2 p t`` of the next entry.

Design constraints: pure text functions; every rewrite keeps the user's columns (:class:`.latex_text.Src`).
"""

from __future__ import annotations

import re

from .latex_text import Src, skip_group

__all__ = ["braced_atom_end", "spaced_factor_problem", "spacing_columns", "without_row_spacing"]

#: a row break followed by the length to add below it (``\\[2pt]``, ``\\ [1.5ex]``): layout only
_ROW_BREAK_SPACING = re.compile(
    r"(?<!\\)((?:\\\\)*\\\\)\s*\[\s*-?\s*(?:\d+(?:\.\d*)?|\.\d+)\s*(?:pt|ex|em|mm|cm|in|bp|pc|sp|dd|cc|mu)\s*\]"
)
#: an explicit space between factors (``\,`` ``\;`` ``\:`` ``\ `` ``~``); ``\!`` takes space away and is not one
_EXPLICIT_SPACE = re.compile(r"(?<!\\)(?:\\\\)*(\\[,;: ]|~)")


def without_row_spacing(src: Src) -> Src:
    r"""``src`` with each row break's spacing dropped (``\\[2pt]`` -> ``\\``), columns kept.

    Example:
        >>> without_row_spacing(Src.of(r"a \\[2pt] b")).text
        'a \\\\      b'
    """
    return src.sub(_ROW_BREAK_SPACING, lambda m: m.group(1) + " " * (len(m.group(0)) - len(m.group(1))))


def spacing_columns(text: str, offset: int = 0) -> frozenset[int]:
    r"""The columns (``offset`` + index in ``text``) of the explicit spaces written in ``text``.

    Example:
        >>> sorted(spacing_columns(r"\sin\theta\, x ~ y"))
        [10, 15]
    """
    return frozenset(offset + m.start(1) for m in _EXPLICIT_SPACE.finditer(text))


def braced_atom_end(text: str, at: int) -> int:
    r"""The index just past a braced group opening at ``text[at]`` (after spaces), or -1 if none opens there.

    Example:
        >>> braced_atom_end(r"\cos{m\theta}\cdot x", 4)
        13
    """
    k = at
    while k < len(text) and text[k] == " ":
        k += 1
    return skip_group(text, k) if text[k : k + 1] == "{" else -1


def spaced_factor_problem(src: Src, at: int, atom: re.Match[str], scripted: bool, spaced: frozenset[int]) -> str:
    r"""Why the ``atom`` matched at ``at`` cannot be read as a further factor of a trig argument, or "".

    ``scripted``: whether the atom carries a script; ``spaced``: the columns of explicit spaces
    (:func:`spacing_columns`), any of which between the argument so far and the atom refuses it, as does a bare i.
    """
    gap = (at, atom.end() - len(atom.group(0).lstrip()))
    letter = None if scripted else atom.group("letter")
    if any(src.col(k) in spaced for k in range(*gap)):
        return (
            "a space written after a trig argument without parentheses, then a factor: the function of the "
            "argument alone, or of the product? write the parentheses"
        )
    if letter == "i":
        return (
            "i after a trig argument without parentheses: the unit times the function, or an imaginary angle? "
            "write the parentheses"
        )
    return ""
