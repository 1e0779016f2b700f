r"""Inline math that a word poses as a condition and that gives names a written column: ``当 $b = [...]^\top$ 时``.

"可以证明，当 $\boldsymbol{a} = \boldsymbol{b} = [\sqrt{\lambda}, 0, \cdots, \sqrt{\lambda}, 0]^\top$ 时, ..." says what
follows under a choice of a and b; it does not say what a and b are. Such inline math is a condition: it is
listed with the conditions and the names keep no value from it (a step that uses them is not read, and says
why) up to the end of the condition's section, where the case ends: the names are then as they were before it
(:func:`restored_values`).

A number or a name given so (``当 $m = n$ 时``) is read as before: a value given in passing, an example or
a condition, never substituted.

A step that uses such a name (or a name whose definition uses one) is read with the name free, whatever a
definition gave it before (:func:`without_values`): PROVED where it holds for every value and the name was read
as a general vector or matrix -- the condition gives it a column or a matrix, so a proof with it a number covers
nothing -- and the reason says for which names (:func:`case_outcome`); otherwise UNDECIDED, never REFUTED: a
counterexample at another value refutes nothing where the step may hold under the condition.

Design constraints: text in, text out. Only the words that pose a case ("when", "if", "suppose", "assume",
"provided", 当, 若, 如果, 假设), in the clause right before the inline math; words that define ("let", "set",
令, 设, 取) are left as they were read. The value must be written as a column or a matrix (a bracket list with
commas, or a matrix environment).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from sympy import MatrixSymbol, Symbol

from ..readers.latex_syntax import calligraphic_as_names, read_quiet
from ..readers.scope import Scope
from .document import MathBlock
from .reading import Head, Outcome, condition_before, mentions
from .wanted import existence_before

__all__ = [
    "CONDITION_TAINT",
    "case_outcome",
    "cases_said",
    "condition_taint",
    "conditional_column",
    "inline_condition",
    "inline_existence",
    "restored_values",
    "unsettled_kind",
    "without_values",
]

#: why a name given a column only in a condition has no value (a step that uses it says so)
CONDITION_TAINT = "given a value only in a condition"
#: how such a why ends where the condition draws a matrix of several columns
MATRIX_TAIL = ", a matrix, not a definition"
#: such a why, as :func:`condition_taint` writes it
_POSED = re.compile(
    re.escape(CONDITION_TAINT) + r" \(posed by '(?P<word>[^']*)', line (?P<line>\d+)\)(?:, a matrix)?, not a definition"
)
#: why a proof with a name read as a number (or not read as one name) covers no column
_AS_NUMBER = "it holds with such a name read as a number, but the condition gives it a column or a matrix"
#: a matrix drawn with several columns (a ``&`` in a matrix environment)
_DRAWN_MATRIX = re.compile(r"\\begin\s*\{[bpBvV]?matrix\}(?:(?!\\end)[^&])*&")

#: the words, among those that pose an equation (:data:`.reading.CONDITION_WORDS`), that pose a case
_CASE_WORDS = frozenset({"when", "if", "suppose", "assume", "assuming", "provided", "当", "若", "如果", "假设"})
_COLUMN = re.compile(r"\\begin\s*\{[bpBvV]?matrix\}|(?:\\left\s*)?\[[^\[\]]*,[^\[\]]*(?:\\right\s*)?\]")


def inline_condition(text: str, blocks: list[MathBlock], at: int) -> str:
    """The word that poses inline block ``at`` as a case (``当``, "if"), or "".

    Example:
        >>> from ropecheck.symbolic.audit.document import math_blocks
        >>> blocks, _ = math_blocks("可以证明，当$b=[1, 0, \\\\cdots]^T$时成立。", latex=False)
        >>> inline_condition("可以证明，当$b=[1, 0, \\\\cdots]^T$时成立。", blocks, 0)
        '当'
    """
    block = blocks[at]
    if block.kind != "inline":
        return ""
    start = blocks[at - 1].end if at else 0
    word = condition_before(text[start : block.src.col(0)].strip("$"))
    return word if word is not None and word.lower() in _CASE_WORDS else ""


def inline_existence(text: str, blocks: list[MathBlock], at: int) -> str:
    """The existence word whose "such that" leads right into inline block ``at`` ("存在可逆矩阵 $P$，使得 $B = P D
    P^{-1}$"), or "": the block states what the thing found satisfies, a condition on its names, never the value of
    its left side (see :func:`.wanted.existence_before`).

    Example:
        >>> from ropecheck.symbolic.audit.document import math_blocks
        >>> text = "存在可逆矩阵$P$，使得$B = P D P^{-1}$，于是"
        >>> blocks, _ = math_blocks(text, latex=False)
        >>> inline_existence(text, blocks, 1), inline_existence(text, blocks, 0)
        ('存在', '')
    """
    block = blocks[at]
    if block.kind != "inline":
        return ""
    shown = [b for b in blocks[:at] if b.kind == "display"]
    return existence_before(text[shown[-1].end if shown else 0 : block.src.col(0)])


def conditional_column(value: str) -> bool:
    """Whether a value is written as a column or a matrix (a bracket list with commas, a matrix environment).

    Example:
        >>> conditional_column(r"[\\sqrt{\\lambda}, 0, \\cdots]^{\\top}"), conditional_column("n")
        (True, False)
    """
    return _COLUMN.search(value) is not None


def condition_taint(word: str, line: int, value: str) -> str:
    """Why a name that ``word`` gives ``value`` (a column or a matrix) only in a condition at ``line`` has no value;
    a matrix of several columns is said (a step must read the name as one).

    Example:
        >>> condition_taint("when", 7, "[1, 0, 1, 0, \\\\cdots]^T")
        "given a value only in a condition (posed by 'when', line 7), not a definition"
    """
    tail = MATRIX_TAIL if _DRAWN_MATRIX.search(value) else ", not a definition"
    return f"{CONDITION_TAINT} (posed by '{word}', line {line}){tail}"


def cases_said(cases: Iterable[tuple[str, str]]) -> str:
    """The names a step uses that have a value only in a condition, each with why (its taint), in words: those one
    condition gives together, and each name whose definition uses such a name.

    Example:
        >>> column, drawn = "[1, 0, 1, 0]^T", r"\\begin{pmatrix} 1 & 0 \\\\ 0 & 1 \\end{pmatrix}"
        >>> cases_said([("a", condition_taint("when", 7, column)), ("C", condition_taint("when", 7, drawn))])
        "a and C, which line 7 gives values only in a condition (posed by 'when')"
        >>> cases_said([("k", "whose definition (line 9) uses c, " + condition_taint("if", 7, column))])
        "k, whose definition (line 9) uses c, given a value only in a condition (posed by 'if', line 7)"
    """
    posed: dict[tuple[str, str], list[str]] = {}
    through = []
    for name, why in cases:
        found = _POSED.fullmatch(why)
        if found is not None:
            posed.setdefault((found["line"], found["word"]), []).append(name)
        else:  # whose definition uses such a name
            through.append(f"{name}, {why.removesuffix(MATRIX_TAIL).removesuffix(', not a definition')}")
    said = [
        f"{' and '.join(names)}, which line {line} gives {'a value' if len(names) == 1 else 'values'} only in a "
        f"condition (posed by '{word}')"
        for (line, word), names in posed.items()
    ]
    return "; and of ".join(said + through)


def without_values(scope: Scope, heads: Iterable[Head]) -> Scope:
    """The scope with no value for ``heads`` (symbols and families, with the members of a family given values of
    their own, ``q_m = [q_1, q_2]^T`` beside ``q_m = W x_m``): free names, whatever a definition gave them before
    the condition (which may not hold under it)."""
    heads = list(heads)
    drop = {(h.kind, h.key) for h in heads}
    families = [h for h in heads if h.kind == "pattern"]
    return replace(
        scope,
        symbols={
            k: d
            for k, d in scope.symbols.items()
            if ("symbol", k) not in drop and not any(mentions(h, k) for h in families)
        },
        patterns={k: d for k, d in scope.patterns.items() if ("pattern", k) not in drop},
    )


def restored_values(scope: Scope, before: Scope, head: Head) -> Scope:
    """The scope with the values ``before`` gave ``head`` (a symbol, or a family and its members given values of
    their own) put back where nothing defines them now: a condition's case has ended (its section has), so what
    the name meant before the condition is in force again.

    Example:
        >>> from ropecheck.symbolic.readers.scope import Definition
        >>> before = Scope(symbols={"b": Definition("symbol", "b", "x", "x")})
        >>> sorted(restored_values(Scope(), before, Head("symbol", "b")).symbols)
        ['b']
        >>> sorted(restored_values(Scope(), before, Head("symbol", "c")).symbols)
        []
    """

    def taken(key: str) -> bool:  # what without_values took for the head: the symbol, or the family's members
        return key == head.key if head.kind == "symbol" else head.kind == "pattern" and mentions(head, key)

    symbols = {k: d for k, d in before.symbols.items() if k not in scope.symbols and taken(k)}
    patterns = {k: d for k, d in before.patterns.items() if head.kind == "pattern" and k == head.key}
    patterns = {k: d for k, d in patterns.items() if k not in scope.patterns}
    if not symbols and not patterns:
        return scope
    return replace(scope, symbols={**scope.symbols, **symbols}, patterns={**scope.patterns, **patterns})


def unsettled_kind(sides: tuple[Any, Any], names: list[str], matrices: list[str], scope: Scope) -> str:
    """Why a proof of a step with ``sides`` as read does not cover the names a condition gives columns (``names``,
    read as general vectors or matrices) and matrices of several columns (``matrices``, read as general matrices
    of several columns: ``w^T A w`` is 1 x 1, so equal to its transpose, only where w is a vector); "" where it
    does.

    Example:
        >>> import sympy
        >>> d = sympy.Symbol("d")
        >>> unsettled_kind((MatrixSymbol("W", d, d), MatrixSymbol("w", d, 1)), ["w"], ["W"], Scope())
        ''
        >>> unsettled_kind((MatrixSymbol("W", d, d), MatrixSymbol("w", d, 1)), [], ["w"], Scope())
        'it holds with such a name read as a vector, but the condition draws it as a matrix'
    """
    if None in sides:
        return _AS_NUMBER
    read = {m.name: m for side in sides for m in side.atoms(MatrixSymbol)}
    spelled = [read_quiet(calligraphic_as_names(where), Scope(domains=scope.domains)) for where in names + matrices]
    if any(not isinstance(n, Symbol) or n.name not in read for n in spelled):
        return _AS_NUMBER
    if any(read[n.name].shape[1] == 1 for n in spelled[len(names) :]):
        return "it holds with such a name read as a vector, but the condition draws it as a matrix"
    return ""


def case_outcome(o: Outcome, said: str, *, unsettled: str = "", where: str = "under the condition") -> Outcome | None:
    """A step read with the names ``said`` describes free: PROVED where it holds for every value and each of them
    was read as its condition gives it (``unsettled`` says how not: see :func:`unsettled_kind`); else UNDECIDED,
    saying what the reading gave -- never REFUTED, the step may hold under the condition; None where the step was
    not read. ``where``: where the step may hold (under the condition; at the example, :mod:`.example_values`).

    Example:
        >>> case_outcome(Outcome("REFUTED"), "c").status
        'UNDECIDED'
    """
    if o.status == "PROVED" and not unsettled:
        return replace(o, reason=f"proved for every value of {said}" + (f"; {o.reason}" if o.reason else ""))
    if o.status == "PROVED":
        why = unsettled
    elif o.status == "REFUTED":
        values = o.counterexample.values if o.counterexample is not None else {}
        at = ", ".join(f"{k} = {v}" for k, v in sorted(values.items(), key=str))
        why = f"false at {at}" if at else "false at some value"
    elif o.status == "UNDECIDED":
        why = o.reason.removesuffix(": not decided") or "no rewrite reduced the difference to 0"
    else:
        return None
    why = f"read for every value of {said}: {why}; the step may hold {where}: not decided"
    return Outcome("UNDECIDED", "none", why, None, o.lhs, o.rhs)
