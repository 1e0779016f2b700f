"""A decorated name whose right side is not read as a value, read in later steps as that side written out.

A derivation writes ``\\tilde{q}_m = R_{\\Theta,m} q_m`` and then ``\\tilde{q}_m^T \\tilde{k}_n = ...``. Where the
right side is read as a value, the decorated name is a name of its own with that value
(:mod:`.decorations`). Where it is not -- an undefined vector, a block-diagonal matrix written open-ended, a name
whose definition was not read -- the definition still says what the name stands for: its right side. A later
use is then read as that side in brackets, as if the text had written it there: ``\\tilde{q}_n^T`` as
``(R_{\\Theta,n} q_n)^T``, the family's subscript (one letter, a position or an index) set to the one the use
writes. What the step then makes of the side (a general vector, a block read on its own, or not read) is the
step's own reading, with its reasons.

Design constraints: pure functions of the text. Only a family over one letter, used at one letter, or a name
without a subscript used without one, is written out; a right side with a bound letter (a sum, an integral, a
limit, an optimum) or the letter inside a word is never written out (setting the letter there is not the
family's member). An expansion rides in :attr:`.scope.Scope.aliases` beside the upright names, its name field
marked (:func:`expansion_alias`, :func:`alias_word`).
"""

from __future__ import annotations

import re

__all__ = ["alias_word", "expand_use", "expansion_alias", "writes_out"]

#: marks an alias whose name field holds the side to write out: mark, word, parameter, mark, side
_EXPANDS = "\x00"
#: what binds a letter inside a side (a sum, an integral, a limit, an optimum): a side with one is not written out
_BINDS_LETTER = re.compile(r"\\(?:sum|prod|int|oint|lim|max|min|sup|inf|arg)(?![A-Za-z])")
#: a word set upright (``\text{...}``, ``\mathrm{...}``): the family's letter inside it is no letter to set
_UPRIGHT_WORD = r"\\(?:text|mathrm|operatorname)\s*\{{[^{{}}]*(?<![A-Za-z]){x}(?![A-Za-z])[^{{}}]*\}}"
#: a relation inside a side: not one value
_RELATION_INSIDE = re.compile(
    r"(?<![\\{])[=<>]|\\(?:approx|leq?|geq?|neq|in|subset|subseteq|propto|sim|equiv|Rightarrow|Longrightarrow|iff|to)(?![A-Za-z])"
)
#: a family's use: one letter as its subscript, braced or not, nothing glued after it
_ONE_LETTER_USE = r"\s*_\s*(?:\{\s*(?P<arg>[A-Za-z])\s*\}|(?P<bare>[A-Za-z])(?![A-Za-z0-9]))"


def expansion_alias(found: tuple[str, str, str], side: str) -> tuple[str, str] | None:
    r"""For a definition's left side as :func:`.decorations.decorated_alias` reads it, and its normalized right
    side: the alias that writes the side out at each later use (pattern, marked name), or None.

    Example:
        >>> pattern, name = expansion_alias((r"\mathrm{qtilde}_m", r"\\tilde\s*q(?=\s*_)", "qtilde"), r"R_{m} q_m")
        >>> expand_use(name, re.search(pattern, r"\tilde q_n^T x"))
        ' ( R_{n} q_n ) '
        >>> expansion_alias((r"\mathrm{stilde}_m", r"\\tilde\s*s(?=\s*_)", "stilde"), r"\sum_{m} x_m") is None
        True
    """
    left, used, word = found
    if _BINDS_LETTER.search(side) or _RELATION_INSIDE.search(side) or not side.strip():
        return None
    sub = re.fullmatch(r"\\mathrm\{[A-Za-z]+\}(?:_\{?([A-Za-z])\}?)?", left)
    if sub is None:
        return None
    param = sub.group(1) or ""
    if param and re.search(_UPRIGHT_WORD.format(x=param), side):
        return None
    if param:
        if not used.endswith(r"(?=\s*_)"):
            return None  # a subscript before the primes (\theta_i'): not written out
        used = used[: -len(r"(?=\s*_)")] + _ONE_LETTER_USE
    return used, f"{_EXPANDS}{word}{_EXPANDS}{param}{_EXPANDS}{side}"


def alias_word(name: str) -> str:
    """The word an alias's name field names (``qtilde``), whether it writes the side out or not."""
    return name.split(_EXPANDS)[1] if name.startswith(_EXPANDS) else name


def writes_out(name: str) -> bool:
    """Whether an alias's name field holds a side to write out (:func:`expansion_alias`)."""
    return name.startswith(_EXPANDS)


def expand_use(name: str, m: re.Match[str]) -> str:
    """The side an alias writes out, in brackets, with the family's letter set to the one the use writes."""
    _, _, param, side = name.split(_EXPANDS, 3)
    arg = (m.groupdict().get("arg") or m.groupdict().get("bare") or "") if param else ""
    if param and arg != param:
        side = re.sub(rf"(?<![A-Za-z\\]){re.escape(param)}(?![A-Za-z])", arg, side)
    return f" ( {side} ) "
