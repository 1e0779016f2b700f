r"""``\pm`` and ``\mp`` written on both sides of a claim: two claims, one for each sign.

``\sin(\alpha \pm \beta) = \sin\alpha\cos\beta \pm \cos\alpha\sin\beta`` states the identity for the upper
signs and for the lower ones: every ``\pm`` is ``+`` and every ``\mp`` ``-`` in the first, the reverse in the
second. The claim holds when both do and is false when either is. A ``\pm`` on one side only is another
thing -- one of two values (the roots of a quadratic) or a margin (``3.2 \pm 0.1``) -- and is not read so.

Design constraints: a pure function of the claim's text; the caller decides the two texts.
"""

from __future__ import annotations

import re

__all__ = ["SIGN_NAMES", "kept_of_both", "sign_pair", "sign_sides"]

#: ``\pm``, ``\mp`` (not the start of a longer command)
_SIGN = re.compile(r"\\(pm|mp)(?![A-Za-z])")
#: the two readings, in the order :func:`sign_pair` gives them
SIGN_NAMES = ("the upper signs (\\pm as +, \\mp as -)", "the lower signs (\\pm as -, \\mp as +)")


def _equals_at(text: str) -> int:
    """Where the claim's ``=`` stands outside every bracket and brace, or -1."""
    depth = 0
    for at, ch in enumerate(text):
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif ch == "=" and depth == 0:
            return at
    return -1


def sign_pair(text: str) -> tuple[str, str] | None:
    r"""The claim with the upper signs and with the lower ones, when both sides write ``\pm`` or ``\mp``; else None.

    Example:
        >>> sign_pair(r"\cos(a \pm b) = \cos a\cos b \mp \sin a\sin b")
        ('\\cos(a  +  b) = \\cos a\\cos b  -  \\sin a\\sin b', '\\cos(a  -  b) = \\cos a\\cos b  +  \\sin a\\sin b')
        >>> sign_pair(r"x = 1 \pm 2") is None
        True
    """
    at = _equals_at(text)
    if at < 0 or not _SIGN.search(text, 0, at) or not _SIGN.search(text, at + 1):
        return None
    return _signed(text, "+"), _signed(text, "-")


def _signed(text: str, plus: str) -> str:
    """``text`` with each ``\\pm`` as ``plus`` and each ``\\mp`` as the other sign, keeping every column."""
    minus = "-" if plus == "+" else "+"
    return _SIGN.sub(lambda m: f" {plus if m.group(1) == 'pm' else minus} ", text)


def sign_sides(lhs: str, rhs: str) -> list[tuple[str, str]] | None:
    """:func:`sign_pair` of a claim given as its two sides: the sides with the upper signs, then with the lower."""
    if not _SIGN.search(lhs) or not _SIGN.search(rhs):
        return None
    return [(_signed(lhs, sign), _signed(rhs, sign)) for sign in "+-"]


def kept_of_both(statuses: list[str]) -> int:
    """Which of the two readings' verdicts stands for the claim: the first REFUTED one, else the first that is
    not PROVED (UNDECIDED, UNREAD), else the first (both PROVED).

    Example:
        >>> kept_of_both(["PROVED", "REFUTED"]), kept_of_both(["UNDECIDED", "PROVED"]), kept_of_both(["PROVED"] * 2)
        (1, 0, 0)
    """
    if "REFUTED" in statuses:
        return statuses.index("REFUTED")
    return next((k for k, v in enumerate(statuses) if v != "PROVED"), 0)
