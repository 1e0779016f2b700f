"""A star after a bracket, ``(z_1 z_2)* = (z_1)*(z_2)*``, read as the conjugate where the document says the star is one.

Notes written fast drop the caret: ``(z_1z_2)*`` for ``(z_1 z_2)^*``. As written, a star between factors may be a
product (code writes ``a*b``) and a star closing a side is nothing; LaTeX does not raise it. Where the document
itself says that its star conjugates -- the words of a sentence (the paragraph that leads into a display, or the
one an inline formula sits in) name the conjugate ("conjugate", "共轭") beside math that writes a raised star
(``(k e^{in\\theta})^*``), and do not deny it ("a star for optimal, not a conjugate") -- each such star is that
conjugate, raised: ``(z_1z_2)^{*}``.

Design constraints: pure functions of the document. Only math every one of whose bare stars follows a closing
bracket, one of them closing a side, is rewritten (a star after a letter or a number, ``a*b``, or only between
brackets, ``(a+b)*(c+d)``, may be a product: then nothing is); stars already raised are left alone. Elsewhere
the math stays as written, and is not read as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..readers.latex_text import Src

__all__ = ["raised_bracket_stars", "star_said_conjugate"]

#: a raised star: ``^*``, ``^{*}``, ``^\ast``
_RAISED_STAR = re.compile(r"\^\s*(?:\{\s*(?:\*|\\ast)\s*\}|\*|\\ast(?![A-Za-z]))")
#: the words that name the conjugate, and those that deny it ("a star for optimal, not a conjugate")
_CONJUGATE_WORD = re.compile(r"conjugat|共轭|共軛|共役", re.I)
_DENIED = re.compile(
    r"\b(?:not|no|never|nor|rather\s+than|instead\s+of)\b[^.;:!?]{0,40}conjugat"
    r"|不是共轭|非共轭|并非共轭|不是共軛|而非共轭",
    re.I,
)
#: a star written on the line, not raised: after a bracket (``)*``) or after anything else
_BARE_STAR = re.compile(r"(?<![\^\\{])(?<!\^\s)\*")
_BRACKET_STAR = re.compile(r"(\))\s*\*")
#: the delimiters of math around the prose between two pieces of math
_OPENER = re.compile(r"(?:\$\$|\$|\\\[|\\\(|\\begin\s*\{[^{}]*\})\s*$")
_CLOSER = re.compile(r"^\s*(?:\$\$|\$|\\\]|\\\)|\\end\s*\{[^{}]*\})")


def _words_around(text: str, start: int, end: int, before: int) -> str:
    """The prose of the paragraph that leads into the math at ``start:end`` (blank lines between skipped), and, where
    the math sits inside a paragraph, that paragraph's words after it."""
    chunk = _CLOSER.sub("", _OPENER.sub("", text[before:start]))
    paragraphs = [p for p in re.split(r"\n\s*\n", chunk) if p.strip()]
    lead = paragraphs[-1] if paragraphs else ""
    inside = not re.search(r"\n\s*\n\s*$", chunk)
    return lead + (re.split(r"\n\s*\n", _CLOSER.sub("", text[end:]), maxsplit=1)[0] if inside else "")


def star_said_conjugate(text: str, srcs: Sequence[Src]) -> bool:
    """Whether the document says its star conjugates: prose naming the conjugate leads into, or holds, math that
    writes a raised star.

    Example:
        >>> doc = "The product with the conjugate of the other:\\n\\n$$ (k e^{i})^* $$\\n\\n$$ (ab)* $$"
        >>> star_said_conjugate(doc, [Src.of(doc).slice(49, 61), Src.of(doc).slice(68, 74)])
        True
        >>> doc = "A product:\\n\\n$$ (k e^{i})^* $$"
        >>> star_said_conjugate(doc, [Src.of(doc).slice(15, 27)])
        False
    """
    previous = 0
    for src in srcs:
        start, end = src.col(0), src.col(len(src.text))
        words = _words_around(text, start, end, previous) if _RAISED_STAR.search(src.text) else ""
        if _CONJUGATE_WORD.search(words) and not _DENIED.search(words):
            return True
        previous = end
    return False


def raised_bracket_stars(src: Src) -> Src:
    r"""``src`` with each star after a closing bracket raised (``(z_1)*`` -> ``(z_1)^{*}``), where every bare star of
    it follows a bracket; else ``src`` as it is.

    Example:
        >>> raised_bracket_stars(Src.of("(z_1z_2)*=(z_1)*(z_2)*")).text
        '(z_1z_2)^{*}=(z_1)^{*}(z_2)^{*}'
        >>> raised_bracket_stars(Src.of("(a+b)*c = a*c + b*c")).text, raised_bracket_stars(Src.of("(a+b)*(c+d)")).text
        ('(a+b)*c = a*c + b*c', '(a+b)*(c+d)')
    """
    stars = [m.start() for m in _BARE_STAR.finditer(src.text)]
    if not stars or any(not src.text[:at].rstrip().endswith(")") for at in stars):
        return src
    if not any(re.match(r"\s*(?:=|&|\\\\|$)", src.text[at + 1 :]) for at in stars):
        return src  # (a+b)*(c+d) alone: a product, perhaps; a star closing a side is no product
    return src.sub(_BRACKET_STAR, lambda m: m.group(1) + "^{*}")
