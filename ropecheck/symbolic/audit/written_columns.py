r"""An undefined vector read as the column of its entries that the step writes beside it.

``\mathbf{R}_m \mathbf{q}_m = \begin{bmatrix} \cos m & -\sin m \\ \sin m & \cos m \end{bmatrix}
\begin{bmatrix} q_0 \\ q_1 \end{bmatrix}``: the document never defines ``q_m``, but the step itself writes the
column of its entries, named by the vector's letter with a number each (``q_0``, ``q_1``). The default reader stops
at ``q_m`` (a name a matrix multiplies from the right, so a vector, with no value); here ``q_m`` is read as that
column and the step decided so, the reason saying it ("q_m read as the column (q_0, q_1) the step writes").

Design constraints: read so only where the document itself fixes the vector. The column is written in the step
as a matrix environment of one column whose rows are, each alone, the vector's letter with the numbers 0 (or 1) to
N in order (two entries at least); where the step is one block of vectors written with dots (``generic_blocks``),
the column of the block's two entries (``q_{2 j}``, ``q_{2 j + 1}``, one apart, in order). The name's letter is the
entries' letter; the name is no entry itself; nothing in the scope gives the name, its family or an entry a value;
and every in-order column of that letter the step writes is the same one (two of them say two things); a side that
is the column alone (``R q_m = (q_0, q_1)``: its entries may be the turned ones) is not read so. Anything else is
left as it was. The entries are the document's own names, free numbers as everywhere: a REFUTED here
comes from entries the step writes, never from entries it does not.

Beside it, ``\exp(A) = \exp(B)`` with such vectors in A and B (``\exp((R_m q_m)^T (R_n k_n)) = \exp(q_m^T R_{n-m}
k_n)``): the exponential of a product of vectors is a number, which the general reading does not take; the step is
PROVED where ``A = B`` is (the same function of equal arguments), and otherwise UNDECIDED with what ``A = B`` gave
(see ``reading._vector_as_column``): a difference of the arguments, with entries the document never writes, refutes
nothing here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import sympy
from sympy import Symbol

from ..readers.latex_syntax import normalize_latex, read_quiet
from ..readers.latex_text import skip_group
from ..readers.scope import Definition, Scope

__all__ = ["WrittenColumn", "exponent_argument", "with_written_column", "written_column"]

#: the reader's stop at an undefined name a matrix multiplies: the name as the reader spells it (``q_{m}``)
_STOP = re.compile(r"^([A-Za-z])(?:_\{([^{}]*)\})? multiplies a matrix from the right")
#: a matrix environment and its body
_ENVIRONMENT = re.compile(r"\\begin\s*\{\s*([pbBvV]?matrix)\s*\}(.*?)\\end\s*\{\s*\1\s*\}", re.S)


@dataclass(frozen=True)
class WrittenColumn:
    """The name read as a column: its key in the scope, its definition, and the words the reason says."""

    name: str
    definition: Definition
    note: str


def _rows(body: str) -> list[str] | None:
    """The rows of a matrix body of one column (no ``&``), each stripped; None for more columns."""
    if "&" in body:
        return None
    return [r.strip() for r in re.split(r"\\\\", body) if r.strip()]


def _entry(row: str, letter: str) -> str | None:
    """The subscript of ``row`` where the row is the letter with one subscript alone (``q_0``, ``q_{2 j + 1}``)."""
    m = re.fullmatch(rf"{letter}\s*_\s*(?:\{{\s*([^{{}}]+?)\s*\}}|([0-9]))", row)
    return None if m is None else (m.group(1) or m.group(2))


def _in_order(subscripts: list[str], blocks: bool) -> bool:
    """Whether the subscripts are 0 (or 1) to N in order, two at least; with ``blocks``, two one apart in one index."""
    if len(subscripts) < 2:
        return False
    if not blocks:
        if not all(s.isdigit() for s in subscripts):
            return False
        numbers = [int(s) for s in subscripts]
        return numbers[0] in (0, 1) and numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    if len(subscripts) != 2:
        return False
    try:
        first, second = (sympy.sympify(re.sub(r"(\d)\s*([A-Za-z])", r"\1*\2", s)) for s in subscripts)
    except (sympy.SympifyError, SyntaxError, TypeError):
        return False
    return len(first.free_symbols | second.free_symbols) == 1 and sympy.expand(second - first) == 1


def _columns(text: str, letter: str, blocks: bool) -> set[tuple[str, ...]]:
    """The in-order columns of the letter's entries the text writes (their subscripts)."""
    found = set()
    for m in _ENVIRONMENT.finditer(text):
        rows = _rows(m.group(2))
        if rows is None:
            continue
        subscripts = [_entry(r, letter) for r in rows]
        if all(s is not None for s in subscripts):
            kept = [s for s in subscripts if s is not None]
            if _in_order(kept, blocks):
                found.add(tuple(kept))
    return found


def _column_alone(side: str) -> bool:
    """Whether the side is one matrix environment and nothing else."""
    m = _ENVIRONMENT.fullmatch(normalize_latex(side).strip())
    return m is not None and "\\begin" not in m.group(2)


def _given(key: str, scope: Scope) -> bool:
    """Whether the scope gives ``key`` (or a name spelled like it) a value."""
    plain = re.sub(r"[\\{}\s]", "", key)
    names = (*scope.symbols, *scope.patterns, *scope.functions)
    return any(re.sub(r"[\\{}\s]", "", n) == plain for n in names)


def _family_given(letter: str, scope: Scope) -> bool:
    """Whether the scope gives a value to a pattern of the letter (``q_m`` defined as a family), or the bare letter."""
    return letter in scope.symbols or any(re.match(rf"{letter}_", n) for n in scope.patterns)


def written_column(lhs: str, rhs: str, scope: Scope, problem: str) -> WrittenColumn | None:
    """The undefined vector of ``problem`` (the reader's stop) as the column of its entries the step writes, or None.

    Example:
        >>> lhs, rhs = r"T q_m", r"T \\begin{bmatrix} q_0 \\\\ q_1 \\end{bmatrix}"
        >>> written_column(lhs, rhs, Scope(), "q_{m} multiplies a matrix from the right, ...").note
        'q_{m} read as the column (q_0, q_1) the step writes'
        >>> written_column(lhs, rhs.removeprefix("T "), Scope(), "q_{m} multiplies a matrix from the right") is None
        True
    """
    m = _STOP.match(problem)
    if m is None or m.group(2) is None or re.fullmatch(r"\s*\d+\s*", m.group(2)):
        return None  # a bare letter is the components' reading; a numbered name may be an entry itself
    letter, name = m.group(1), f"{m.group(1)}_{{{m.group(2)}}}"
    if _given(name, scope) or _family_given(letter, scope):
        return None
    text = normalize_latex(lhs + " " + rhs)
    columns = _columns(text, letter, scope.generic_blocks)
    if any(_column_alone(side) for side in (lhs, rhs)):
        return None  # R q_m = (q_0, q_1): the column a side of its own, perhaps other entries (the turned ones)
    if len(columns) != 1:
        return None
    (subscripts,) = columns
    if any(_given(f"{letter}_{{{s}}}", scope) for s in subscripts):
        return None
    entries = [read_quiet(f"{letter}_{{{s}}}", Scope(domains=scope.domains)) for s in subscripts]
    if any(not isinstance(e, Symbol) for e in entries):
        return None
    column = sympy.ImmutableMatrix(len(entries), 1, entries)
    written = ", ".join(f"{letter}_{s}" if s.isdigit() else f"{letter}_{{{s}}}" for s in subscripts)
    definition = Definition("symbol", name, column, (), f"{name} = ({written})^T")
    return WrittenColumn(name, definition, f"{name} read as the column ({written}) the step writes")


def with_written_column(
    lhs: str, rhs: str, scope: Scope, problem: str, decide_in: Callable[[Scope], Any]
) -> Any | None:
    """The outcome of ``decide_in`` with the vector read as its written column (the note first in its reason), or
    None where no such column applies or the step is still unread so."""
    found = written_column(lhs, rhs, scope, problem)
    if found is None:
        return None
    outcome = decide_in(replace(scope, symbols={**scope.symbols, found.name: found.definition}))
    if outcome.status == "UNREAD":
        return None
    outcome.reason = "; ".join(x for x in (found.note, outcome.reason) if x)
    return outcome


#: a side that is the exponential of one bracket: ``\exp(``, ``\exp\left(``, ``\exp\big(``
_EXP_OPEN = re.compile(r"^\s*\\exp\s*(?:\\(?:left|big|Big|bigg|Bigg)\s*)?(?=\()")


def exponent_argument(side: str) -> str | None:
    """The argument of a side that is ``\\exp`` of one bracket and nothing else, or None.

    Example:
        >>> exponent_argument(r"\\exp((R q)^T (R k))"), exponent_argument(r"\\exp(a) + 1")
        ('(R q)^T (R k)', None)
    """
    m = _EXP_OPEN.match(side)
    if m is None:
        return None
    end = skip_group(side, m.end())
    if end < 0 or side[end:].strip():
        return None
    inner = side[m.end() + 1 : end - 1]
    return re.sub(r"\\(?:right|big|Big|bigg|Bigg)\s*$", "", inner.strip()).strip()
