"""A function defined by the parity of an argument, as the sinusoidal position encoding is written.

``PE(p, 2i) = \\sin(p / 10000^{2i/d})`` beside ``PE(p, 2i+1) = \\cos(p / 10000^{2i/d})`` (also ``\\text{PE}(m, 2i)``,
the two lines in one display or in two): together they define the name at every integer index, an even
argument 2i giving the first formula, an odd one 2i + 1 the second. Each line is a definition, not a step (it
asserts nothing), where the name is new at that line -- not defined, and not written in any math above it: after
``PE(i) = [i, \\dots, i]`` a line ``PE(p, 2i) = ...`` speaks of a name in use and stays a step.
A line that gives a half again (the same parity) defines it again from that line on and puts the other half out of
force until it is given again, so two formulas for one parity never stand together (:func:`merged`).

A later call reads the half its argument's parity picks, only where that parity is certain
(:meth:`ParityDefinition.apply`): a whole number, or ``2X`` / ``2X + 1`` with X an integer. A step that calls the
name with ``2X`` or ``2X + 1``, X the letter of the definition (``2i``), reads X as that integer index, as the
definition has it (:func:`parity_step_scope`), and says so; a call at any other argument (``PE(p, k)``, ``PE(p,
2j)`` with j another letter) is not read. The subscript form ``PE_{(pos, 2i)}`` is a glued name
(:func:`.names.glued_head`): :func:`parity_twin` says that its other half, written in a display of its own, is
the same definition.

Design constraints: the recognisers are pure functions of the text; :func:`parity_half_in_child` reads one half
in the audit's child; nothing here imports :mod:`.steps`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

import sympy
from sympy import MatrixBase

from ...errors import ClaimLimitError, ClaimParseError
from ..readers.latex_syntax import (
    PLAIN_FUNCTIONS,
    i_in_exponent_of_e,
    i_indexes_the_step,
    normalize_latex,
    read_latex_side,
)
from ..readers.latex_text import Src, skip_group, split_top
from ..readers.scope import Definition, Scope, domain_symbol
from .names import glued_head
from .reading import UNREAD, Outcome

__all__ = [
    "ParityDefinition",
    "ParityHead",
    "cased_halves",
    "merged",
    "parity_call_rx",
    "parity_half_in_child",
    "parity_head",
    "parity_step_scope",
    "parity_twin",
    "restated_half",
    "used_before",
]

#: the name: a word set upright (``\\text{PE}``) or letters in italics (``PE``, ``f``), then its arguments
_PARITY_HEAD = re.compile(
    r"^\s*(?:\\(?:text|mathrm|operatorname|textrm|mathit)\s*\{\s*(?P<word>[A-Za-z]+)\s*\}|(?P<glued>[A-Za-z]+))"
    r"\s*(?:\\left\s*)?\((?P<args>[^()]*?)(?:\\right\s*)?\)\s*$"
)
#: an argument read by its parity: ``2i`` or ``2i + 1`` (``2t``, ``2k`` ...)
_PARITY_ARGUMENT = re.compile(r"^\s*2\s*(?P<letter>[a-z])\s*(?:\+\s*(?P<one>1))?\s*$")
#: any other argument of the head: a plain name (``p``, ``pos``, ``m``)
_PARITY_PARAM = re.compile(r"^\s*(?P<name>[A-Za-z]+)\s*$")


@dataclass(frozen=True)
class ParityHead:
    """What one half defines: the function's name, its parameters as written (the parity argument as its letter),
    where the parity argument stands, its letter, and whether the half is the odd one."""

    name: str
    params: tuple[str, ...]
    at: int
    letter: str
    odd: bool

    @property
    def written(self) -> tuple[str, ...]:
        """The arguments as the head writes them (``p``, ``2i+1``), for the list of definitions."""
        arg = f"2{self.letter}" + ("+1" if self.odd else "")
        return tuple(arg if k == self.at else p for k, p in enumerate(self.params))


def parity_head(tex: str) -> ParityHead | None:
    """The half a left side ``NAME(p, 2i)`` or ``NAME(p, 2i+1)`` defines, or None.

    Example:
        >>> parity_head(r"\\text{PE}(m, 2i+1)")
        ParityHead(name='PE', params=('m', 'i'), at=1, letter='i', odd=True)
        >>> parity_head("PE(p+k, 2i)") is None, parity_head("PE(p, i)") is None, parity_head(r"\\sin(2i)") is None
        (True, True, True)
    """
    m = _PARITY_HEAD.match(normalize_latex(tex))
    if m is None:
        return None
    name = m.group("word") or m.group("glued")
    if name in PLAIN_FUNCTIONS or name in ("e", "i", "Re", "Im"):
        return None
    args = m.group("args").split(",")
    parity = [(k, p) for k, a in enumerate(args) if (p := _PARITY_ARGUMENT.match(a)) is not None]
    plain = [_PARITY_PARAM.match(a) for k, a in enumerate(args) if k not in {j for j, _ in parity}]
    if len(parity) != 1 or any(p is None for p in plain):
        return None
    at, found = parity[0]
    params = tuple(found.group("letter") if k == at else args[k].strip() for k in range(len(args)))
    if len(set(params)) != len(params) or name in params:
        return None
    return ParityHead(name, params, at, found.group("letter"), found.group("one") is not None)


def parity_call_rx(name: str) -> str:
    """A regular expression that finds the name written (``PE`` in italics, ``\\text{PE}`` upright)."""
    word = re.escape(name)
    return rf"(?<![A-Za-z\\]){word}(?![A-Za-z])|\\(?:text|mathrm|operatorname|textrm|mathit)\s*\{{\s*{word}\s*\}}"


def used_before(name: str, texts: list[str]) -> bool:
    """Whether the math above (``texts``) writes the name: it is then no new name at the line that defines it."""
    rx = re.compile(parity_call_rx(name))
    return any(rx.search(normalize_latex(t)) is not None for t in texts)


def _parity(arg: Any) -> tuple[int, Any] | None:
    """(0, n) where ``arg`` is 2n and (1, n) where it is 2n + 1 with n certainly an integer, else None.

    Example:
        >>> i = sympy.Symbol("i", integer=True)
        >>> _parity(2 * i + 1), _parity(sympy.Integer(6)), _parity(sympy.Symbol("i", real=True) * 2), _parity(i)
        ((1, i), (0, 3), None, None)
    """
    if isinstance(arg, MatrixBase) or not isinstance(arg, sympy.Expr):
        return None
    for half in (0, 1):
        index = sympy.expand((arg - half) / 2)
        if index.is_integer is True:
            return half, index
    return None


@dataclass(frozen=True)
class ParityDefinition(Definition):
    """A function defined by the parity of one argument: ``body`` holds the even half's value and the odd half's
    (``sympy.Tuple``), each at the integer index in ``params[at]``; ``given`` says which halves are defined."""

    at: int = 0
    given: tuple[bool, bool] = (False, False)
    letter: str = ""
    lines: tuple[int, int] = (0, 0)

    def apply(self, args: list[Any]) -> Any:
        """The half the parity argument picks, at the index it gives (``PE(p + k, 2i + 1)``: the odd half at p + k
        and i); a call whose parity is not certain (``PE(p, k)``), or of a half not defined, is not read."""
        if len(args) != len(self.params):
            raise ClaimParseError(
                f"{self.name} was defined with {len(self.params)} argument(s) (line {self.line}), given {len(args)}"
            )
        found = _parity(args[self.at])
        if found is None:
            raise ClaimParseError(
                f"{self.name} is defined by the parity of its argument {self.at + 1} (line {self.line}): the parity of "
                f"{args[self.at]} is not certain (an even or odd whole number, or 2{self.letter} or 2{self.letter} + 1 "
                f"with {self.letter} an integer index), so the call is not read"
            )
        half, index = found
        if not self.given[half]:
            what = ("even", "odd")[half]
            raise ClaimParseError(f"{self.name} is not defined at an {what} argument (line {self.line}): not read")
        plain = Definition("function", self.name, self.body[half], self.params, self.source, self.lines[half])
        return plain.apply([*args[: self.at], index, *args[self.at + 1 :]])


def _params(found: ParityHead, scope: Scope) -> tuple[Any, ...]:
    return tuple(domain_symbol(p, _domains(found.letter, scope)) for p in found.params)


def _domains(letter: str, scope: Scope) -> dict[str, str]:
    """The document's domains, with the parity argument's letter an integer (natural where so declared)."""
    domains = dict(scope.domains)
    if domains.get(letter) not in ("natural", "positive integer"):
        domains[letter] = "integer"
    return domains


def _index_scope(letter: str, scope: Scope, words: bool) -> Scope:
    """The scope a half or a step that calls one is read in: the letter an integer index (a bare i that index,
    never the unit), glued letters one name where a parameter is written so (``pos``)."""
    here = replace(scope, domains=_domains(letter, scope))
    if letter == "i":
        here = replace(here, index_i=True, i_reading="index", complex_sums="off")
    return replace(here, word_reading="name") if words else here


def parity_half_in_child(found: ParityHead, body: str, scope: Scope, line: int) -> Outcome:
    """One half's right side read, its parameters bound (``DEFINED`` with a :class:`ParityDefinition` holding that
    half), or why not (UNREAD). A right side that writes i as the unit (``e^{i x}``) beside the index i is not read."""
    if found.letter == "i" and i_in_exponent_of_e(body):
        return Outcome(UNREAD, reason="i is the parity argument's index and the unit in an exponent of e: not read")
    words = any(len(p) > 1 for p in found.params)
    here = _index_scope(found.letter, scope, words)
    here = replace(here, symbols={k: v for k, v in here.symbols.items() if k not in found.params})
    try:
        value = read_latex_side(body, 0, here, bound=frozenset(found.params))
    except (ClaimParseError, ClaimLimitError) as exc:
        return Outcome(UNREAD, reason=str(exc))
    if isinstance(value, MatrixBase) or not isinstance(value, sympy.Expr):
        return Outcome(UNREAD, reason="a half of a definition by parity is read only as a number")
    halves = (sympy.Integer(0), value) if found.odd else (value, sympy.Integer(0))
    given = (False, True) if found.odd else (True, False)
    lines = (0, line) if found.odd else (line, 0)
    d = ParityDefinition(
        "function", found.name, sympy.Tuple(*halves), _params(found, scope), "", line, False, body, found.at, given,
        found.letter, lines,
    )  # fmt: skip
    return Outcome("DEFINED", definition=d)


def merged(known: Definition | None, new: ParityDefinition) -> tuple[ParityDefinition, str]:
    """The definition in force once a half is read: the two halves together where ``known`` holds only the other
    one over the same parameters; else the new half alone (the name defined again), with a note saying so."""
    if not isinstance(known, ParityDefinition) or known.params != new.params or known.at != new.at:
        return new, ""
    half = 1 if new.given[1] else 0
    if known.given[half]:
        return new, f"defined again, in force from line {new.line} on (the other half until given again: not read)"
    body = tuple(new.body[k] if k == half else known.body[k] for k in (0, 1))
    lines = tuple(new.lines[k] if k == half else known.lines[k] for k in (0, 1))
    both = replace(known, body=sympy.Tuple(*body), given=(True, True), lines=lines)  # type: ignore[arg-type]
    return both, f"with its {('even', 'odd')[1 - half]} half (line {known.lines[1 - half]}): defined by parity"


def _masked_calls(text: str, functions: dict[str, Definition]) -> tuple[str, set[str], list[str]]:
    """The step's text with the letter of each parity argument written as a subscript (``2 c_{i}``), the letters so
    read, and the calls at another letter (not read)."""
    letters: set[str] = set()
    other: list[str] = []
    for name, d in functions.items():
        if not isinstance(d, ParityDefinition):
            continue
        rx = re.compile(rf"(?:{parity_call_rx(name)})\s*(?:\\left\s*)?\(")
        pos = 0
        while (m := rx.search(text, pos)) is not None:
            close = skip_group(text, m.end() - 1) - 1  # the call's closing bracket (-2: none)
            inner = re.sub(r"\\right\s*$", "", text[m.end() : close]) if close > 0 else ""
            args = [a.text for a in split_top(Src.of(inner), ",")] if close > 0 else []
            pos = m.end()
            if len(args) != len(d.params):
                continue
            found = _PARITY_ARGUMENT.match(args[d.at])
            if found is None or found.group("letter") != d.letter:
                other.append(name)
                continue
            letters.add(d.letter)
            start = m.end() + sum(len(a) + 1 for a in args[: d.at])
            arg = args[d.at]
            text = text[:start] + arg.replace(d.letter, f" c_{{{d.letter}}} ", 1) + text[start + len(arg) :]
    return text, letters, other


def parity_step_scope(texts: tuple[str, str], scope: Scope) -> tuple[Scope, str] | None:
    """The scope a step that calls a function defined by parity at ``2X`` or ``2X + 1`` is read in, and what it says
    of the letter X -- an integer index, as the definition has it -- or None where the step calls none so.

    A letter the document gave a value, or a domain other than the integers, is not taken for the index; nor is an
    i the step also writes as the unit (in an exponent of e, or beside a complex sum): the call is then not read.
    """
    functions = dict(scope.functions)
    text = normalize_latex(texts[0] + " = " + texts[1])
    masked, letters, _ = _masked_calls(text, functions)
    letters = {x for x in letters if x not in scope.symbols and scope.domains.get(x, "integer") in _INTEGERS}
    if "i" in letters and not i_indexes_the_step(masked + " + b^{i}"):  # b^{i}: one index-like i, so only the others
        letters.discard("i")
    if not letters:
        return None
    here = scope
    for letter in sorted(letters):
        here = _index_scope(letter, here, False)
    names = sorted(n for n, d in functions.items() if isinstance(d, ParityDefinition) and d.letter in letters)
    said = ", ".join(f"{n} (line {functions[n].line})" for n in names)
    return here, f"{', '.join(sorted(letters))} read as an integer index, as the definition by parity of {said} has it"


#: the domains a parity argument's letter may have been declared in, and still be the integer index
_INTEGERS = ("integer", "natural", "positive integer")
#: a glued name's parity argument, as SymPy spells it: ``2i`` or ``2i+1`` before a comma or the closing bracket
_TWIN_ARGUMENT = re.compile(r"(?<![0-9A-Za-z])2([a-z])(?=\)?[,}])")


def parity_twin(first: str, key: str) -> bool:
    """Whether the glued names ``first`` and ``key`` are the two halves of one definition by parity: the same but for
    the argument, ``2i`` in one and ``2i+1`` in the other (``PE_{(pos,2i)}``, ``PE_{(pos,2i+1)}``).

    Example:
        >>> parity_twin("PE_{(pos,2i)}", "PE_{(pos,2i+1)}"), parity_twin("PE_{(pos,2i)}", "PE_{(pos+k,2i+1)}")
        (True, False)
    """
    a, b = (re.sub(r"\s+", "", x) for x in (first, key))
    for x, y in ((a, b), (b, a)):
        for m in _TWIN_ARGUMENT.finditer(x):
            if x[: m.end()] + "+1" + x[m.end() :] == y:
                return True
    return False


def restated_half(tex: str, scope: Scope) -> ParityDefinition | None:
    """The definition by parity in force whose half the left side ``tex`` writes again (``PE(p, 2i)`` once
    ``PE(p, 2i)`` is defined), or which it calls at plain names (``PE(m, k)``), or None: such a line is a step,
    which may also define the name again.

    Example:
        >>> restated_half("PE(p, 2i)", Scope()) is None
        True
    """
    found = parity_head(tex)
    if found is not None:
        known = scope.functions.get(found.name)
        return known if isinstance(known, ParityDefinition) and known.given[int(found.odd)] else None
    # PE(m, k) = ... : the name at plain names, no parity written -- a claim about it, or the name defined again
    m = _PARITY_HEAD.match(normalize_latex(tex))
    if m is None or not all(_PARITY_PARAM.match(a) for a in m.group("args").split(",")):
        return None
    known = scope.functions.get(m.group("word") or m.group("glued"))
    return known if isinstance(known, ParityDefinition) else None


#: ``\\begin{cases} PE_{(pos, 2i)} &= ... \\\\ PE_{(pos, 2i+1)} &= ... \\end{cases}``: rows that are equations
_CASES_BODY = re.compile(r"^\s*\\begin\s*\{cases\}(?P<rows>.*)\\end\s*\{cases\}\s*$", re.S)


def cased_halves(body: str, family: str, scope: Scope) -> bool:
    """Whether ``body`` writes a glued name's two halves by parity as the rows of cases, each an equation
    (``PE_{(pos)} = \\begin{cases} PE_{(pos,2i)} = \\sin(...) \\\\ PE_{(pos,2i+1)} = \\cos(...)
    \\end{cases}``), the rows' names of the ``family`` of the name defined: the line defines it, states nothing.

    Example:
        >>> rows = r"\\begin{cases} PE_{(pos, 2i)} &= \\sin(pos) \\\\ PE_{(pos, 2i+1)} &= \\cos(pos) \\end{cases}"
        >>> cased_halves(rows, "PE", Scope()), cased_halves(rows.replace("2i+1", "2i+2"), "PE", Scope())
        (True, False)
    """
    m = _CASES_BODY.match(body)
    rows = [r for r in re.split(r"\\\\", m.group("rows")) if r.strip()] if m else []
    lefts = [re.split(r"&?\s*=", r.replace("&", ""), maxsplit=1)[0] for r in rows if "=" in r]
    heads = [glued_head(x, scope) for x in lefts]
    if len(rows) != 2 or len(heads) != 2 or heads[0] is None or heads[1] is None:
        return False
    return heads[0][1] == heads[1][1] == family and parity_twin(heads[0][0].key, heads[1][0].key)
