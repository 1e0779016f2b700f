r"""One letter set upright, ``W_{\mathrm{V}}``, ``\text{K}``: the letter itself, never a product with a command.

An upright word is one name (:mod:`.latex_syntax`), ``\mathrm{i}`` the unit, ``\mathrm{e}`` Euler's number and
``\mathrm{d}`` a differential; a single other letter set upright (``\mathrm{V}``, ``\text{K}``, ``\mathit{x}``) is
that letter -- in a subscript a label (``W_{\mathrm{V}}`` is ``W_{V}``), standing alone a name. Raised, it is a
label (``x^{\mathrm{K}}``, the key's x) or a power by a constant named K: that reads two ways and is not read.
Before, the parser took the command for a name and read ``W_{\mathrm{V}}`` as ``W_{V*mathrm}`` and
``x^{\mathrm{K}}`` as ``x**(K*mathrm)``.

Design constraint: pure text in, text out; a raised letter is left as written (the caller refuses it when it reads
the formula, and text only scanned for names keeps it).
"""

from __future__ import annotations

import re

__all__ = ["RAISED_UPRIGHT_LETTER", "UPRIGHT_LETTER", "upright_letter"]

_UPRIGHT = r"\\(?:mathrm|text|textrm|mathit|operatorname|textit|mathup)\s*\{\s*(?P<letter>[A-HJ-Za-ce-hj-z])\s*\}"
#: one letter set upright (i, e and d are read by their own rules, before this one)
UPRIGHT_LETTER = re.compile(_UPRIGHT)
#: one such letter raised: ``x^{\mathrm{K}}``, ``x^\mathrm{K}``
RAISED_UPRIGHT_LETTER = re.compile(r"\^\s*\{?\s*" + _UPRIGHT)


def upright_letter(m: re.Match[str]) -> str:
    r"""The letter of an :data:`UPRIGHT_LETTER` match, or the match as written where it is raised.

    Example:
        >>> UPRIGHT_LETTER.sub(upright_letter, r"W_{\mathrm{V}} x^{\mathrm{K}}")
        'W_{ V } x^{\\mathrm{K}}'
    """
    if re.search(r"\^\s*\{?\s*$", m.string[: m.start()]):
        return m.group(0)
    return " " + m.group("letter") + " "
