"""``A \\propto B``: what deciding the equality ``A = B`` says about the proportion.

Proportional means equal up to a factor that does not depend on what varies -- and which names vary the
text seldom says (positions? the vectors? the dimension?). The one sure case is the factor 1: sides that are
equal are proportional, so an equality PROVED is a proportion PROVED. Sides that differ may still be
proportional (a normaliser the text drops, ``A_{mn} \\propto \\exp(s_{mn})``), so a refuted or undecided
equality leaves the proportion UNDECIDED -- read, and said so -- and sides that cannot be read leave it UNREAD,
with the reader's reason.

Design constraints: a pure function of the equality's outcome; it never refutes a proportion.
"""

from __future__ import annotations

from dataclasses import replace

from .reading import Outcome

__all__ = ["as_proportion"]

#: why a proportion whose sides are read and not equal is not decided
NOT_DECIDED = (
    "\\propto: the sides are read but not equal, and they may still be proportional through a factor that "
    "does not depend on what varies -- which names vary the text does not say: not decided"
)


def as_proportion(o: Outcome) -> Outcome:
    """The outcome of ``A \\propto B`` given that of ``A = B``.

    Example:
        >>> as_proportion(Outcome("REFUTED", "counterexample")).status, as_proportion(Outcome("PROVED")).reason
        ('UNDECIDED', 'the sides are equal: proportional with the factor 1')
    """
    if o.status == "PROVED":
        why = "; ".join(x for x in (o.reason, "the sides are equal: proportional with the factor 1") if x)
        return replace(o, reason=why)
    if o.status == "UNREAD":
        return o
    return replace(o, status="UNDECIDED", method="none", reason=NOT_DECIDED, counterexample=None)
