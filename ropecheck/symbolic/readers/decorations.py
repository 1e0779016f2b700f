"""A name written with a decoration that a document defines, read as a name of its own.

A derivation introduces names by decorating a letter: ``\\tilde{k} = q + \\varepsilon``,
``b' = b s^{2}``, ``\\lambda^{\\prime}_d = 2\\pi b'^{2d/D}``. On its own such a spelling is not read
(a tilde is no operation, a prime may be a transpose or a derivative); once the document defines
it, the definition settles what it is: another name. :func:`decorated_alias` gives, for the left
side of such a definition, the upright name it stands for (``\\mathrm{ktilde}``,
``\\mathrm{lambdaprime}_d``) and how later uses are found; :func:`apply_aliases` rewrites those
uses before the reader sees them (:attr:`.scope.Scope.aliases`).

Design constraints: pure functions of the text. A use is rewritten only where it is written the
way the definition was -- with a subscript where the definition had one (a family), without one
where it had none -- so ``q'_1`` after ``q' = 2q`` (an entry of a vector, or another name) is
never read as the name; what is not rewritten stays unread, as before. A primed name defined with a
subscript other than one letter (``x'_{2j+1} = ...``) is one entry: only a use with that same
subscript (spaces aside) is read as it, never ``x'_{2j}`` nor ``x'_{2i+1}``; a tilde or hat so
written is not read.
"""

from __future__ import annotations

import functools
import re

from .decorated_values import expand_use, writes_out
from .latex_text import Src

__all__ = ["apply_aliases", "decorated_alias", "is_entry"]

#: decorations that make a new name of a letter, and the word the name is spelled with
_WORDS = {"tilde": "tilde", "widetilde": "tilde", "hat": "hat", "widehat": "hat", "check": "check", "breve": "breve"}
_BASE = r"(?:\\[A-Za-z]+|[A-Za-z])"
_SUB = r"_\s*(?:\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9])"
_PRIMES = r"(?:'+|\^\s*\{\s*'+\s*\})"
#: ``\tilde{k}_m``, ``\hat q``: one decoration over a letter, a subscript after it
_DECORATED = re.compile(
    rf"^\\(?P<deco>{'|'.join(_WORDS)})(?![A-Za-z])\s*(?:\{{\s*(?P<a>{_BASE}|[A-Za-z]{{2,}})\s*\}}|(?P<b>{_BASE}))\s*(?P<sub>{_SUB})?$"
)
#: ``b'``, ``\lambda'_d``, ``\theta_i^{'}``: primes on a letter, a subscript before or after them
_PRIMED = re.compile(rf"^(?P<base>{_BASE})\s*(?P<sub1>{_SUB})?\s*(?P<primes>{_PRIMES})\s*(?P<sub2>{_SUB})?$")
#: ``w^{\star}``, ``\theta^\star``: a starred letter (an optimum, a value found), no subscript
_STARRED = re.compile(rf"^(?P<base>{_BASE})\s*\^\s*(?:\{{\s*\\star\s*\}}|\\star(?![A-Za-z]))$")
#: the subscript of a family: one letter (its parameter)
_LETTER_SUB = re.compile(r"_\s*(?:\{\s*(?:[A-Za-z]|\\[A-Za-z]+)\s*\}|[A-Za-z]|\\[A-Za-z]+)\s*")
#: begins the pattern of one primed entry (a regular-expression comment: it matches nothing)
_ENTRY_TAG = "(?#entry)"
#: commands that are no letter a name could be made of
_NOT_LETTERS = frozenset("cos sin tan exp log ln sqrt frac sum prod int mathrm text mathit left right cdot pi".split())


def decorated_alias(text: str) -> tuple[str, str, str] | None:
    """For the normalized left side of a definition: (the left side as the name it stands for, the pattern of
    later uses, that name), or None where the side is not one decorated letter.

    Example:
        >>> decorated_alias(r"\\lambda'_d")[0], decorated_alias(r"\\tilde{k }")[0]
        ('\\\\mathrm{lambdaprime}_d', '\\\\mathrm{ktilde}')
        >>> decorated_alias(r"x'_{2j + 1}")[0]
        '\\\\mathrm{xprime}_{2j+1}'
        >>> decorated_alias(r"\\hat{base}")[0], decorated_alias(r"w^{\\star}")[0]
        ('\\\\mathrm{basehat}', '\\\\mathrm{wstar}')
    """
    text = text.strip()
    m = _DECORATED.match(text)
    star = _STARRED.match(text)
    if star is not None:
        base = star.group("base")
        if base.lstrip("\\") in _NOT_LETTERS:
            return None
        used = rf"(?<![A-Za-z\\]){re.escape(base)}(?![A-Za-z])\s*\^\s*(?:\{{\s*\\star\s*\}}|\\star(?![A-Za-z]))(?!\s*_)"
        name = base.lstrip("\\") + "star"
        return rf"\mathrm{{{name}}}", used, name
    if m is not None:
        base, sub, word = m.group("a") or m.group("b"), m.group("sub"), _WORDS[m.group("deco")]
        letter = rf"(?:\{{\s*{re.escape(base)}\s*\}}|{re.escape(base)}(?![A-Za-z]))"
        if re.fullmatch(r"[A-Za-z]{2,}", base):  # a word (\hat{base}): only braced, \hat base is b's hat, then ase
            letter = rf"\{{\s*{base}\s*\}}"
        used = rf"\\(?:{'|'.join(k for k, v in _WORDS.items() if v == word)})(?![A-Za-z])\s*{letter}"
    else:
        m = _PRIMED.match(text)
        if m is None or (m.group("sub1") and m.group("sub2")):
            return None
        base, sub = m.group("base"), m.group("sub1") or m.group("sub2")
        n = m.group("primes").count("'")
        word = "prime" * n
        primes = rf"(?:'{{{n}}}(?!')|\^\s*\{{\s*'{{{n}}}\s*\}})"
        letter = rf"(?<![A-Za-z\\]){re.escape(base)}(?![A-Za-z])\s*"
        # a family: the subscript before the primes (kept) or after them (left in place)
        used = rf"{letter}(?:(?P<sub>{_SUB})\s*{primes}|{primes}(?=\s*_))" if sub else rf"{letter}{primes}"
    if base.lstrip("\\") in _NOT_LETTERS:
        return None
    name = base.lstrip("\\") + word
    if sub and not _LETTER_SUB.fullmatch(sub):
        # a subscript other than one letter (x'_{2j+1}, \tilde{x}_{m+1}): one entry, used only as written
        if m.re is _DECORATED:
            return None
        return rf"\mathrm{{{name}}}" + re.sub(r"\s+", "", sub), _entry_use(letter, primes, sub), name
    # a family is used with a subscript, a lone name without one: another spelling is not this name
    if m.re is _DECORATED or not sub:
        used += r"(?=\s*_)" if sub else r"(?!\s*_)"
    left = rf"\mathrm{{{name}}}" + (re.sub(r"\s+", "", sub) if sub else "")
    return left, used, name


def _entry_use(letter: str, primes: str, sub: str) -> str:
    """The pattern of the uses of one primed entry (``x'_{2j+1}``): its subscript written as the definition wrote
    it (spaces aside, braced or not where it is one sign), before or after the primes; tagged as an entry."""
    inner = sub.strip()[1:].strip()  # after the underscore
    if inner.startswith("{"):
        inner = inner[1:-1]
    tokens = re.findall(r"\\[A-Za-z]+|\S", inner)
    body = r"\s*".join(re.escape(t) for t in tokens)
    written = rf"_\s*(?:\{{\s*{body}\s*\}}|{body}(?![A-Za-z0-9]))" if len(tokens) == 1 else rf"_\s*\{{\s*{body}\s*\}}"
    return rf"{_ENTRY_TAG}{letter}(?:(?P<sub>{written})\s*{primes}|{primes}(?=\s*{written}))"


def is_entry(pattern: str) -> bool:
    """Whether an alias's pattern finds one primed entry (``x'_{2j+1}``), not a lone name or a family."""
    return pattern.startswith(_ENTRY_TAG)


def apply_aliases(src: Src, aliases: tuple[tuple[str, str], ...]) -> Src:
    """Every use of a decorated name the document defined, as the upright name it stands for (columns kept)."""
    for pattern, name in aliases:
        upright = functools.partial(expand_use if writes_out(name) else _upright, name)
        src = src.sub(re.compile(pattern), upright)
    return src


def _upright(name: str, m: re.Match[str]) -> str:
    return rf" \mathrm{{{name}}}{_subscript(m)} "


def _subscript(m: re.Match[str]) -> str:
    """The subscript written between the letter and its primes (``\\theta_i^{'}``), moved after the name."""
    groups = m.groupdict()
    return re.sub(r"\s+", "", groups.get("sub") or "")
