"""Notation a decided step may have been read wrong by: a raised ``e`` where the document gives ``e`` a value, a
``\\log`` with no base written, a starred name the document gives a value the reader did not take.

* ``e^2 = 9`` after ``$e = 3$`` (a scale named e): the reader takes a raised e as Euler's number; the text may
  mean its own e. Either reading may decide the step, so it is not decided (:func:`raised_e_with_value`).
* ``\\log 100 = 2``: a log with no base is natural in mathematics, of base 10 or 2 elsewhere. A step is kept only
  where it has the same verdict with every one of those bases (:func:`unbased_logs`, :func:`with_log_base`), unless
  it writes e raised or ``\\exp`` beside the log (``\\log e^{x} = x``: natural by the text itself).
* ``\\sin\\theta^* = \\cos\\theta^*`` after ``$\\theta^* = \\pi/4$``: a starred name is read as a conjugate or as
  a name of its own, never with the value the text gives it; a counterexample gives it another value
  (:func:`starred_with_value`).

Design constraints: pure text; each only ever turns a verdict into UNDECIDED (the auditor re-reads a step with
a log's base written, and keeps the verdict only where every base gives it).
"""

from __future__ import annotations

import re

__all__ = ["raised_e_with_value", "starred_with_value", "unbased_logs", "with_log_base"]

#: a raised e as written: ``e^{...}``, ``e^2`` (not ``\\mathrm{e}``, which is Euler's number by its spelling)
_RAISED_E = re.compile(r"(?<![\\A-Za-z])e\s*\^")
#: ``\\log`` with no base after it (``\\log_2``, ``\\log_{10}`` have one)
_UNBASED_LOG = re.compile(r"\\log(?![A-Za-z])(?!\s*_)")
#: a starred name: ``\\theta^*``, ``b^{*}``, ``x^\\ast``
_STARRED = re.compile(r"(\\[A-Za-z]+|(?<![\\A-Za-z])[A-Za-z])\s*\^\s*(?:\{\s*(?:\*|\\ast)\s*\}|\*|\\ast(?![A-Za-z]))")


#: ``e = 3``, ``e := ...`` opening an equation: the document gives the name e a value
_E_GIVEN = re.compile(r"(?:^|[\s,;(\$])e\s*(?::=|=(?!=))")


def raised_e_with_value(text: str, before: str) -> bool:
    r"""Whether the step ``text`` raises a bare e while the math ``before`` it gives the name e a value.

    Example:
        >>> raised_e_with_value("e^2 = 9", "e = 3"), raised_e_with_value("e^{i x} = 1", "x = 0")
        (True, False)
    """
    return _RAISED_E.search(text) is not None and _E_GIVEN.search(before) is not None


#: what makes a log natural by the text itself: Euler's number or the exponential beside it (``\log e^{x} = x``)
_NATURAL = re.compile(r"(?<![\\A-Za-z])e\s*\^|\\exp(?![A-Za-z])|\\ln(?![A-Za-z])|\\mathrm\s*\{\s*e\s*\}")


def unbased_logs(text: str) -> bool:
    r"""Whether ``text`` writes ``\log`` with no base, and nothing that makes it natural (e raised, ``\exp``).

    Example:
        >>> unbased_logs(r"\log 100 = 2"), unbased_logs(r"\log_2 8 = 3"), unbased_logs(r"\log e^{x} = x")
        (True, False, False)
    """
    return _UNBASED_LOG.search(text) is not None and _NATURAL.search(text) is None


def with_log_base(text: str, base: int) -> str:
    r"""``text`` with every ``\log`` of no base given ``base``: ``\log x`` -> ``\log_{10} x``."""
    return _UNBASED_LOG.sub(rf"\\log_{{{base}}}", text)


def starred_with_value(text: str, before: str) -> str | None:
    r"""The first starred name of the step ``text`` that the math ``before`` it gives a value (``\theta^* = ...``
    opening an equation), as written; None where there is none.

    Example:
        >>> starred_with_value(r"\sin\theta^* = \cos\theta^*", r"\theta^* = \pi/4")
        '\\theta^*'
    """
    for m in _STARRED.finditer(text):
        name = re.escape(m.group(1))
        given = r"(?:^|[\s,;(\$])" + name + r"\s*\^\s*(?:\{\s*(?:\*|\\ast)\s*\}|\*|\\ast(?![A-Za-z]))\s*(?:=|:=)"
        if re.search(given, before):
            return m.group(1) + "^*"
    return None
