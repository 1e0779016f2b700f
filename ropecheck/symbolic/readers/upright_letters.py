r"""One letter set upright, ``W_{\mathrm{V}}``, ``\text{K}``: the letter itself, never a product with a command.

An upright word is one name (:mod:`.latex_syntax`), ``\mathrm{i}`` the unit, ``\mathrm{e}`` Euler's number and
``\mathrm{d}`` a differential; a single other letter set upright (``\mathrm{V}``, ``\text{K}``, ``\mathit{x}``) is
that letter -- in a subscript a label (``W_{\mathrm{V}}`` is ``W_{V}``), standing alone a name, with the subscript
written inside the group (``\mathrm{a_{i,j}}`` is ``a_{i,j}``). Raised, it is a
label (``x^{\mathrm{K}}``, the key's x) or a power by a constant named K: that reads two ways and is not read.
Before, the parser took the command for a name and read ``W_{\mathrm{V}}`` as ``W_{V*mathrm}`` and
``x^{\mathrm{K}}`` as ``x**(K*mathrm)``.

A blackboard letter as the whole subscript of a one-letter name (``W_\mathbb{Q}``) is a label too, of its own:
``W_{bbQ}``, never ``W_{Q}`` (a font may set two things apart) nor the set of rationals. A colour
(``{\color{red} p_i}``, ``\textcolor{red}{p_i}``) changes how a term looks, never what it is: it is dropped.

What no rule reads (``\mathrm{x_i}``, an upright name with its subscript inside) the parser takes for a product
with a name spelled like the command (``mathrm*x_i``): :func:`font_left_as_name` finds such a name in a parse, and
the reader refuses the formula instead of deciding it so (``\mathrm{x_i} \mathrm{x_i} = \mathrm{x_i}^2`` was
REFUTED).

Design constraint: pure text in, text out; a raised letter is left as written (the caller refuses it when it reads
the formula, and text only scanned for names keeps it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "BLACKBOARD_LABEL",
    "COLOUR",
    "RAISED_UPRIGHT_LETTER",
    "UPRIGHT_LETTER",
    "blackboard_label",
    "font_left_as_name",
    "upright_letter",
]

_UPRIGHT = (
    r"\\(?:mathrm|text|textrm|mathit|operatorname|textit|mathup)\s*\{\s*(?P<letter>[A-HJ-Za-ce-hj-z])"
    r"(?P<sub>\s*_\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?\s*\}"
)
#: one letter set upright (i, e and d are read by their own rules, before this one), its subscript with it if it
#: is inside the group (``\mathrm{a_{i,j}}``: the name a_{i,j})
UPRIGHT_LETTER = re.compile(_UPRIGHT)
#: one such letter raised: ``x^{\mathrm{K}}``, ``x^\mathrm{K}``
RAISED_UPRIGHT_LETTER = re.compile(r"\^\s*\{?\s*" + _UPRIGHT)


def upright_letter(m: re.Match[str]) -> str:
    r"""The letter of an :data:`UPRIGHT_LETTER` match, or the match as written where it is raised.

    Example:
        >>> UPRIGHT_LETTER.sub(upright_letter, r"W_{\mathrm{V}} x^{\mathrm{K}} \mathrm{a_{i,j}}")
        'W_{ V } x^{\\mathrm{K}}  a_{i,j} '
    """
    if re.search(r"\^\s*\{?\s*$", m.string[: m.start()]):
        return m.group(0)
    return " " + m.group("letter") + re.sub(r"^\s*_\s*", "_", m.group("sub") or "") + " "


#: a blackboard letter that is the whole subscript of a one-letter name: ``W_\mathbb{Q}``, ``W_{\mathbb{K}}``
BLACKBOARD_LABEL = re.compile(
    r"(?:(?<![\\A-Za-z])|(?<=_[A-Za-z0-9]))([A-Za-z])\s*_\s*(?:\{\s*\\mathbb\s*\{\s*([A-Za-z])\s*\}\s*\}|\\mathbb\s*\{\s*([A-Za-z])\s*\})"
)


def blackboard_label(m: re.Match[str]) -> str:
    r"""The name of a :data:`BLACKBOARD_LABEL` match, its label the letter marked as blackboard.

    Example:
        >>> BLACKBOARD_LABEL.sub(blackboard_label, r"x_i W_\mathbb{Q} W_{\mathbb{K}}^T x_iW_\mathbb{Q}")
        'x_i  W_{\\mathrm{bbQ}}  W_{\\mathrm{bbK}}^T x_i W_{\\mathrm{bbQ}}'
    """
    return f" {m.group(1)}_{{\\mathrm{{bb{m.group(2) or m.group(3)}}}}}"  # set apart: x_iW_Q is x_i times W_Q


#: a colour: ``\color{red}``, ``\color[rgb]{1,0,0}``, and the command of ``\textcolor{red}{...}`` (its group stays)
COLOUR = re.compile(r"\\(?:color|textcolor)\s*(?:\[[^\[\]]*\])?\s*\{[^{}]*\}")


#: the commands of a font or of upright text, which the parser keeps as a name where no rule read them
_FONT_COMMANDS = (
    "mathrm|text|textrm|textit|textbf|textnormal|textsf|texttt|mbox|operatorname|mathup|mathsf|mathtt|mathbf|"
    "boldsymbol|bm|mathbb|mathcal|mathfrak|mathscr"
)
_FONT_AS_NAME = re.compile(r"(?<![A-Za-z])(?:" + _FONT_COMMANDS + r")(?![A-Za-z])")


def font_left_as_name(names: Iterable[str]) -> str | None:
    r"""The first font command among ``names`` (the names of a parse's symbols and functions), or None.

    Example:
        >>> font_left_as_name(["x_{i}", "mathrm"]), font_left_as_name(["W_{V mathrm}"]), font_left_as_name(["x"])
        ('mathrm', 'mathrm', None)
    """
    for name in names:
        m = _FONT_AS_NAME.search(name)
        if m is not None:
            return m.group(0)
    return None
