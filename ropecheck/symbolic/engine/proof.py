"""The proof data model: verdicts, counterexamples, steps and proofs.

A :class:`Proof` is a named list of :class:`Step` objects; each step is one equality
``lhs == rhs`` between SymPy expressions (scalars or matrices) together with the verdict the
decision procedure reached, the rewrite that decided it and, for a refutation, the concrete
counterexample.

Design constraints:

* Pure data: no SymPy rewriting happens here (that is :mod:`.decide`), no text layout
  (that is :mod:`ropecheck.symbolic.pages.render`). ``to_dict`` gives a JSON-ready view with
  expressions as ``srepr``-free plain strings and LaTeX.
* A step states what it *expects* (normally PROVED; a deliberately false claim expects
  REFUTED), so a theorem that contains an intended refutation -- dynamic NTK with keys
  cached at another length -- is still "as intended" and the suite exits 0.
* UNDECIDED is never promoted to PROVED anywhere.
"""

from __future__ import annotations

import enum
import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sympy

__all__ = ["Counterexample", "Proof", "Step", "Verdict", "expr_text", "timed"]


class Verdict(str, enum.Enum):
    """The three outcomes of deciding an equality."""

    PROVED = "PROVED"
    REFUTED = "REFUTED"
    UNDECIDED = "UNDECIDED"

    def __str__(self) -> str:
        return self.value


def expr_text(expr: Any, *, latex: bool = False) -> str:
    """``str(expr)`` (or its LaTeX), also for an exact number past Python's int-to-text limit (4300 digits).

    Such a number is shown to 20 significant digits and marked as such, instead of raising ``ValueError``.
    """
    try:
        return sympy.latex(expr) if latex else str(expr)
    except ValueError:
        approx = sympy.N(expr, 20)
        return (sympy.latex(approx) if latex else str(approx)) + " (exact value too long to print)"


@dataclass(frozen=True)
class Counterexample:
    """Values that make the two sides of a claimed equality differ.

    Attributes:
        values: the substitution, symbol (or indexed symbol) -> exact SymPy number.
        lhs: the left side evaluated exactly at ``values``.
        rhs: the right side evaluated exactly at ``values``.
        difference: ``lhs - rhs`` (exact), certified nonzero.
        approx: ``difference`` to 20 significant digits, for humans.
        entry: for a matrix equality, the (row, column) of the differing entry.
    """

    values: dict[Any, Any]
    lhs: Any
    rhs: Any
    difference: Any
    approx: str
    entry: tuple[int, int] | None = None

    def to_dict(self) -> dict[str, Any]:

        return {
            "values": {str(k): expr_text(v) for k, v in self.values.items()},
            "values_latex": {sympy.latex(k): expr_text(v, latex=True) for k, v in self.values.items()},
            "lhs": expr_text(self.lhs),
            "rhs": expr_text(self.rhs),
            "difference": expr_text(self.difference),
            "difference_approx": self.approx,
            "entry": list(self.entry) if self.entry is not None else None,
        }


@dataclass
class Step:
    """One equality of a proof and how it was decided.

    Attributes:
        name: short name of the step.
        statement: one sentence saying what the step establishes.
        lhs: left side (SymPy expression or Matrix).
        rhs: right side.
        verdict: PROVED, REFUTED or UNDECIDED.
        method: the rewrite that decided it (``expand_trig``, ``termwise(expand)``, ...),
            or ``counterexample`` / ``none``.
        counterexample: for REFUTED, the certified counterexample.
        expect: the verdict the step is meant to reach (REFUTED for a deliberately false claim).
        seconds: time the decision took.
        relation: ``"=="`` (an identity) or ``"<="`` (an inequality, lhs <= rhs).
        shown: sub-expressions the pages show by a name (expression -> symbol), so a long
            schedule value reads as ``theta_32(L)``; the decision used the full expressions.
    """

    name: str
    statement: str
    lhs: Any
    rhs: Any
    verdict: Verdict
    method: str
    counterexample: Counterexample | None = None
    expect: Verdict = Verdict.PROVED
    seconds: float = 0.0
    relation: str = "=="
    shown: dict[Any, Any] = field(default_factory=dict)

    @property
    def as_intended(self) -> bool:
        return self.verdict == self.expect

    @property
    def shown_sides(self) -> tuple[Any, Any]:
        """``(lhs, rhs)`` as the pages print them: the named sub-expressions replaced by their names."""
        if not self.shown:
            return self.lhs, self.rhs
        return self.lhs.xreplace(self.shown), self.rhs.xreplace(self.shown)

    def to_dict(self) -> dict[str, Any]:

        return {
            "name": self.name,
            "statement": self.statement,
            "lhs": str(self.lhs),
            "rhs": str(self.rhs),
            "lhs_latex": sympy.latex(self.lhs),
            "rhs_latex": sympy.latex(self.rhs),
            "relation": self.relation,
            "verdict": self.verdict.value,
            "expect": self.expect.value,
            "as_intended": self.as_intended,
            "method": self.method,
            "counterexample": self.counterexample.to_dict() if self.counterexample else None,
            "seconds": round(self.seconds, 6),
        }


@dataclass
class Proof:
    """A theorem: a title, a statement, the symbols' meaning and the decided steps.

    The proof's verdict is REFUTED when a step is refuted, UNDECIDED when a step is
    undecided, PROVED only when every step is proved. ``as_intended`` is True when every
    step reached the verdict it expects.
    """

    name: str
    family: str
    title: str
    statement: str
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    #: the statement as a LaTeX formula, in the theorem's notation (what a reader sees first)
    formula: str = ""
    #: what the symbols are (domains, ranges): LaTeX, one item each
    assumptions: list[str] = field(default_factory=list)
    #: the dimensions the theorem is proved for, in words ("every even d", "d = 64 only")
    scope: str = ""
    #: True when the proof covers every head dimension (no finite list of d behind it)
    every_d: bool = False
    #: the letter after the family's number when the family has more than one page ("a", "b"):
    #: each page then has its own number (1a, 1b; 2 and its concrete-d check 2a)
    part: str = ""

    def number(self, family_number: int | None) -> str:
        """The theorem's number on every page: the family's number and :attr:`part` ("1a"), "" without one."""
        return "" if family_number is None else f"{family_number}{self.part}"

    @property
    def verdict(self) -> Verdict:
        verdicts = [s.verdict for s in self.steps if s.expect == Verdict.PROVED]
        if any(v == Verdict.REFUTED for v in verdicts):
            return Verdict.REFUTED
        if any(v == Verdict.UNDECIDED for v in verdicts) or not self.steps:
            return Verdict.UNDECIDED
        if any(s.verdict != s.expect for s in self.steps):
            return Verdict.UNDECIDED
        return Verdict.PROVED

    @property
    def as_intended(self) -> bool:
        return bool(self.steps) and all(s.as_intended for s in self.steps)

    @property
    def intended_refutations(self) -> list[Step]:
        return [s for s in self.steps if s.expect == Verdict.REFUTED]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "family": self.family,
            "title": self.title,
            "statement": self.statement,
            "formula": self.formula,
            "assumptions": list(self.assumptions),
            "scope": self.scope,
            "every_d": self.every_d,
            "verdict": self.verdict.value,
            "as_intended": self.as_intended,
            "seconds": round(self.seconds, 6),
            "notes": list(self.notes),
            "data": self.data,
            "steps": [s.to_dict() for s in self.steps],
        }


def timed(builder: Callable[..., Proof]) -> Callable[..., Proof]:
    """Decorate a theorem builder so the proof it returns records how long it took (``Proof.seconds``)."""

    @functools.wraps(builder)
    def run(*args: Any, **kwargs: Any) -> Proof:
        t0 = time.perf_counter()
        proof = builder(*args, **kwargs)
        proof.seconds = time.perf_counter() - t0
        return proof

    return run
