"""Other spellings of a command that the renderers (KaTeX, MathJax) treat as the same command.

``\\bold{q}`` is KaTeX's and MathJax's alias of ``\\mathbf{q}``; ``\\Bbb{R}`` of ``\\mathbb{R}``;
``\\cdotp`` is KaTeX's centred dot, drawn as ``\\cdot`` (a product). A document that writes the
alias means exactly what the usual spelling means, so the math is read with the usual spelling.

Design constraints: pure text; a whole command is replaced only where its name ends (``\\boldsymbol``
is not ``\\bold``); column positions are kept (:class:`Src`), so steps keep their lines.
"""

from __future__ import annotations

import re

from ..readers.latex_text import Src

__all__ = ["usual_spelling"]

#: each alias and the command the renderers draw for it
COMMAND_ALIASES = {"bold": "mathbf", "Bbb": "mathbb", "cdotp": "cdot"}
_ALIAS_COMMAND = re.compile(r"(?<!\\)\\(" + "|".join(COMMAND_ALIASES) + r")(?![A-Za-z])")


def usual_spelling(src: Src) -> Src:
    r"""The math with each alias spelled as the command it stands for.

    Example:
        >>> usual_spelling(Src.of(r"\bold{q}_m^T \cdotp \bold{k}_n \in \Bbb{R} \boldsymbol{x}")).text
        '\\mathbf{q}_m^T \\cdot \\mathbf{k}_n \\in \\mathbb{R} \\boldsymbol{x}'
    """
    return src.sub(_ALIAS_COMMAND, lambda m: "\\" + COMMAND_ALIASES[m.group(1)])
