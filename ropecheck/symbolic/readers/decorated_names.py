"""A name written with a decoration that the document does not define, read as a name of its own.

``\\hat{x}_m``, ``\\tilde{p}_{m-n}``, ``\\dot{\\Sigma}^{(l)}``, ``\\hat{base}``, ``w^{\\star}``: a hat, a tilde, a dot
or a star on a name makes another name, which a write-up relates to the bare one in words if at all (an estimate, a
complex number made of a vector's entries, a derivative, an optimum). Where the document defines such a name with an
equation it is read by that definition (:mod:`.decorations`, :mod:`.decorated_values`); everywhere else
:func:`decorated_as_names` spells it as an upright name of its own -- never the bare letter, never a product of
letters -- named as a definition would name it (``\\mathrm{xhat}_m``, ``\\mathrm{wstar}``).

A subscript written inside the decoration (``\\hat{\\theta_j}``) is the name's, as one after it is; a superscript
inside it (``\\tilde{p_r^v}``), or a one-letter superscript set apart with a space after it (``\\tilde{p}_{m-n}^{\\
v}``), labels the name (``^{(v)}``), never a power; a star after the decoration (``\\hat{x}^*_m``) is written after
the subscript, where the reader reads a conjugate. ``\\bar``, ``\\overline``, ``\\vec`` and the bold commands keep
their meaning (a conjugate; the name itself); a decoration over anything but a name (``\\widehat{AB}``) is not
rewritten and stays unread.

Design constraints: pure functions of the text, columns kept (:class:`.latex_text.Src`). Such a name is a name
without a value: :func:`undefined_decorations` finds what is left of it after a document's definitions, and the
audit never keeps a REFUTED that rests on it (the text may relate it to another name in words).
"""

from __future__ import annotations

import re

from .latex_text import GREEK, Src

__all__ = [
    "DECORATED_WORD",
    "DECORATION_SUFFIX",
    "decorated_as_names",
    "decorated_as_words",
    "spaced_labels",
    "undefined_decorations",
]

#: the decorations that make a name of their own, and the word the name is spelled with
_WORDS = {
    "hat": "hat", "widehat": "hat", "tilde": "tilde", "widetilde": "tilde", "check": "check", "breve": "breve",
    "dot": "dot", "ddot": "ddot",
}  # fmt: skip
#: the word a decorated name read as one of its own ends with (``xhat``, ``Sigmadot``, ``wstar``)
DECORATION_SUFFIX = "(?:" + "|".join(sorted({*_WORDS.values(), "star"})) + ")"
#: the upright name a decorated name is read as (this module's, or a definition's: ``\\mathrm{ktilde}``)
DECORATED_WORD = r"\\mathrm\{[A-Za-z]+(?:" + DECORATION_SUFFIX + r"|prime)\}"
_LETTERS = r"(?:[A-Za-z]+|\\[A-Za-z]+)"
_SCRIPT = r"(?:\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9])"
#: ``\hat{x}``, ``\hat x``, ``\tilde{p_r^v}``, ``\hat{\theta_j}``: a decoration over one name, its scripts inside
_DECORATED = re.compile(
    rf"\\(?P<deco>{'|'.join(_WORDS)})(?![A-Za-z])\s*"
    rf"(?:\{{\s*(?P<base>{_LETTERS})\s*(?:_\s*(?P<isub>{_SCRIPT}))?\s*(?:\^\s*(?P<isup>{_SCRIPT}))?\s*\}}"
    r"|(?P<bare>\\[A-Za-z]+|(?<=[a-z])\s+[A-Za-z](?![A-Za-z])))"
    r"(?P<star1>\s*\^\s*(?:\{\s*(?:\*|\\ast)\s*\}|\*|\\ast(?![A-Za-z])))?"
    rf"(?:\s*_\s*(?P<sub>{_SCRIPT}))?"
    r"(?P<star2>\s*\^\s*(?:\{\s*(?:\*|\\ast)\s*\}|\*|\\ast(?![A-Za-z])))?"
)
#: ``\tilde{p}_{m-n}^{\ v}``: one letter raised on a decorated name, set apart with a space: a label
_SPACED_LABEL = re.compile(
    rf"(\\(?:{'|'.join(_WORDS)})(?![A-Za-z])\s*(?:\{{[^{{}}]*\}}|\\[A-Za-z]+)(?:\s*_\s*{_SCRIPT})?)"
    r"\s*\^\s*\{\s*\\[ ,;:]\s*([A-Za-z])\s*\}"
)
#: ``w^{\star}``, ``x_i^\star``: a starred name (one letter or a Greek one), never a conjugate here
_STARRED = re.compile(
    rf"(?<![A-Za-z\\])(?P<base>[A-Za-z]|\\[A-Za-z]+)(?:\s*_\s*(?P<sub1>{_SCRIPT}))?\s*"
    r"\^\s*(?:\{\s*\\star\s*\}|\\star(?![A-Za-z]))"
    rf"(?:\s*_\s*(?P<sub2>{_SCRIPT}))?"
)


def _script(text: str | None) -> str:
    """A subscript's or superscript's body, braced."""
    if not text:
        return ""
    text = text.strip()
    return text if text.startswith("{") else "{" + text + "}"


def _name(m: re.Match[str]) -> str | None:
    """The upright name a decorated name is spelled as, or None where it is no name (a command that is no letter,
    a subscript both inside and after the decoration)."""
    base = (m.group("base") or m.group("bare")).strip()
    if base.startswith("\\") and base[1:] not in GREEK:
        return None
    if m.group("isub") and m.group("sub"):
        return None
    sub = _script(m.group("isub") or m.group("sub"))
    label = m.group("isup")
    raised = "^{(" + _script(label)[1:-1].strip() + ")}" if label else ""
    star = "^{*}" if m.group("star1") or m.group("star2") else ""
    if raised and star:
        return None
    word = base.lstrip("\\") + _WORDS[m.group("deco")]
    return f" {_upright(word)}" + (f"_{sub}" if sub else "") + raised + star + " "


def _starred(m: re.Match[str]) -> str:
    base = m.group("base")
    if base.startswith("\\") and base[1:] not in GREEK:
        return m.group(0)
    if m.group("sub1") and m.group("sub2"):
        return m.group(0)
    sub = _script(m.group("sub1") or m.group("sub2"))
    return f" {_upright(base.lstrip(chr(92)) + 'star')}" + (f"_{sub}" if sub else "") + " "


def _upright(word: str) -> str:
    return rf"\mathrm{{{word}}}"


def spaced_labels(src: Src) -> Src:
    r"""Each letter raised on a decorated name after a space (``\tilde{p}_{m-n}^{\ v}``) as the label it is
    (``^{(v)}``): read before the spacing is dropped, after which it would read as a power.

    Example:
        >>> spaced_labels(Src.of(r"\tilde{p}_{m-n}^{\ v} + x^{\ v}")).text
        '\\tilde{p}_{m-n}^{(v)} + x^{\\ v}'
    """
    return src.sub(_SPACED_LABEL, lambda m: m.group(1) + "^{(" + m.group(2) + ")}")


def decorated_as_names(src: Src) -> Src:
    r"""Each name written with a hat, tilde, check, breve, dot or star as the upright name of its own it stands for.

    Example:
        >>> decorated_as_names(Src.of(r"\hat{x}^*_m e^{i} \hat{x}_n")).text
        ' \\mathrm{xhat}_{m}^{*}  e^{i}  \\mathrm{xhat}_{n} '
        >>> decorated_as_names(Src.of(r"\tilde{p_r^v} + w^{\star} + \dot{\Sigma}^{(l)}")).text
        ' \\mathrm{ptilde}_{r}^{(v)}  +  \\mathrm{wstar}  +  \\mathrm{Sigmadot} ^{(l)}'
        >>> decorated_as_names(Src.of(r"\widehat{A B}")).text
        '\\widehat{A B}'
    """
    src = src.sub(_DECORATED, lambda m: _name(m) or m.group(0))
    return src.sub(_STARRED, _starred)


def decorated_as_words(text: str) -> str:
    r"""``text`` with each decorated name as a plain word (``\hat{x}^*_m`` -> `` xhat_{m}^{*} ``): the spelling the
    finders of conjugated names read a name in (:func:`.latex_syntax.conjugated_names`).

    Example:
        >>> decorated_as_words(r"\hat{x}^*_m \hat{x}_n")
        ' \\xhat_{m}^{*}   \\xhat_{n} '
    """
    return re.sub(r"\\mathrm\{([A-Za-z]+)\}", r"\\\1", decorated_as_names(Src.of(text)).text)


def undefined_decorations(text: str) -> list[str]:
    r"""The names written with a decoration in ``text`` (what a document's definitions left of it), as written.

    Example:
        >>> undefined_decorations(r"\hat{x}_m + w^\star = \mathrm{ktilde} + \bar{z}")
        ['\\hat{x}_m', 'w^\\star']
    """
    found = [m for m in _DECORATED.finditer(text) if _name(m) is not None]
    found += [m for m in _STARRED.finditer(text) if _starred(m) != m.group(0)]
    return [re.sub(r"\s+", "", m.group(0)) for m in sorted(found, key=lambda m: m.start())]
