"""A primed name called on one argument (``a''(s)``, ``\\phi_j'(t)``): a derivative, or a value of its own.

A prime after a letter is, in general, a transpose, a derivative or another name. Called on an argument, it is a
transpose only where the name is a vector or matrix, or a function whose value is one (``R'(s)`` of a rotation),
which is left alone; elsewhere two readings remain:

* the name is a function the document defines of one argument, whose value is a number (``a(s) = \\sum_j h_j
  e^{i s \\theta_j}``): the primes are its derivatives in that argument, taken exactly (SymPy's ``diff`` of the
  value the document's definitions give at a fresh real argument, then put at the argument written);
* the name is defined nowhere (``\\phi_j''(s)``): the primed name is a function of its own, whose value the
  reader does not know -- the name ``phiprimeprime_{j}``; a step with it is never REFUTED (see
  :func:`unknown_primed`: the text may relate it to the unprimed name in words).

Design constraints: a name the document writes transposed or in bold, a function of several arguments, a
function whose value is a vector or matrix, a name the document gives a value as a number or a sequence, and a
definition whose value still holds the letter of its own argument after it is put in, or a name the text gives a
value only in passing (``$y = x$``: a constant, or a function of the argument?), are left as written, for the
reader to refuse as before. A derivative whose value still holds a derivative, a step function or a sign (a body
not differentiable as written), or a non-holomorphic part (``\\mathrm{Re}``, a modulus, a conjugate) at an
argument not known to be real, is not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import sympy
from sympy.core.function import AppliedUndef

from ...errors import ClaimParseError
from .latex_text import GREEK_NAMES, Src, skip_group, split_top
from .latex_tree import index_sums
from .scope import Scope

__all__ = ["PRIMED_CALL", "PRIMED_WORD", "primed_call_bracket", "primed_calls_read", "primed_notes", "unknown_primed"]

#: the word a prime is spelled with in the name of a primed function the document does not define
PRIMED_WORD = "prime"
_SUB = r"\s*_\s*(?:\{[^{}]*\}|[A-Za-z0-9])"
#: a letter (or a Greek one), a subscript before or after its primes, then an opening bracket
PRIMED_CALL = re.compile(
    rf"(?<![\\A-Za-z_^'])(?P<letter>[A-Za-df-hj-z]|\\(?:{GREEK_NAMES})(?![A-Za-z]))"
    rf"(?P<sub1>{_SUB})?\s*(?P<primes>'+)(?P<sub2>{_SUB})?\s*(?=\\left\s*\(|\()"
)
#: the fresh argument a defined function is differentiated in
_FRESH = sympy.Symbol("ZQPRIMEARG", real=True)
#: what a derivative that is not read exactly leaves behind
_NOT_EXACT = (sympy.Derivative, sympy.Subs, sympy.Heaviside, sympy.DiracDelta, sympy.sign)
#: the parts that are no holomorphic function of their argument
_NOT_HOLOMORPHIC = (sympy.re, sympy.im, sympy.Abs, sympy.conjugate, sympy.arg)


#: the name of a primed function of its own (:func:`unknown_primed`)
_PRIMED_OWN = re.compile(rf"^[A-Za-z]+?(?:{PRIMED_WORD})+(?:_|$)")


def primed_call_bracket(text: str, m: re.Match[str]) -> tuple[int, int]:
    """Where the bracket of the :data:`PRIMED_CALL` match ``m`` opens in ``text``, and where it ends (past its
    closer; negative where it does not close)."""
    opening = m.end() + text[m.end() :].find("(")
    return opening, skip_group(text, opening)


def _plain(m: re.Match[str]) -> str:
    """The name of a :data:`PRIMED_CALL` match as written without its primes: ``\\phi_j''`` -> ``\\phi_j``."""
    return m.group("letter") + (m.group("sub1") or m.group("sub2") or "")


def _call_key(plain: str, probe: Callable[[str], Any]) -> str | None:
    """The name the reader gives a call of ``plain`` (``\\phi_j`` -> ``phi_{j}``), or None; ``probe`` reads a piece
    of LaTeX with no definitions (None where it cannot)."""
    found = probe(plain + "(x)")
    return found.func.__name__ if isinstance(found, AppliedUndef) else None


def _written_as_array(m: re.Match[str], key: str, scope: Scope) -> bool:
    """Whether the document writes the name transposed or in bold (a prime after it may be a transpose)."""
    letter = m.group("letter").lstrip("\\")
    arrays = scope.matrix_names | scope.array_names
    return bool({letter, key, key.split("_")[0]} & arrays)


def _primed_name(key: str, primes: int) -> str:
    """``phi_{j}`` with two primes: ``phiprimeprime_{j}``."""
    base, _, sub = key.partition("_")
    return base + PRIMED_WORD * primes + ("_" + sub if sub else "")


def _derivative(value: Any, primes: int, arg: Any, at: int, domains: Mapping[str, str]) -> Any:
    """``value`` (a function of :data:`_FRESH`) differentiated ``primes`` times, then put at ``arg``; the names
    subscripted by a sum's index are its entries first (``h_j`` in ``\\sum_j h_j e^{i s \\theta_j}``), never one
    number that SymPy would take out of the sum."""
    value, _ = index_sums(value, sympy.S.Zero, dict(domains))
    out = sympy.diff(value, _FRESH, primes)
    if out.has(*_NOT_EXACT) or any(_FRESH in f.free_symbols for f in out.atoms(AppliedUndef)):
        raise ClaimParseError("a primed call read as a derivative that is not taken exactly: not read", at)
    if out.has(*_NOT_HOLOMORPHIC) and getattr(arg, "is_real", None) is not True:
        raise ClaimParseError(
            "a primed call read as a derivative of a real variable at an argument not known to be real: not read", at
        )
    return out.xreplace({_FRESH: arg})


def _defined_value(plain: str, key: str, at: int, scope: Scope, read: Callable[[Src], Any], fresh: str) -> Any | None:
    """The value of the defined function ``key`` at :data:`_FRESH`, or None where it is not one number of one
    argument whose value holds no name written with the argument's letter or given a value in passing; ``fresh``
    stands for :data:`_FRESH`."""
    d = scope.functions.get(key)
    if d is None or len(d.params) != 1 or isinstance(d.body, sympy.MatrixBase):
        return None
    value = read(Src.of(plain + "(" + fresh + ")", at))
    if isinstance(value, sympy.MatrixBase) or not isinstance(value, sympy.Basic):
        return None
    # the argument's own letter, or a name the text gives a value only in passing (``y`` after ``$y = x$``): either
    # may vary with the argument, so the derivative is not the one of the body as read
    held = {str(d.params[0])} | set(scope.symbols)
    if any(str(s) in held for s in value.free_symbols):
        return None
    return value


def primed_calls_read(
    src: Src,
    bound: frozenset[str],
    scope: Scope,
    read: Callable[[Src, frozenset[str]], Any],
    mark: Callable[[Any], str],
    probe: Callable[[str], Any],
) -> Src:
    """Every primed call in ``src`` read as a derivative or a value of its own (see the module) and put in as
    ``mark`` of its value; a primed call not read so is left as written. ``probe`` reads a name with no definitions.

    Example:
        >>> from .latex_syntax import read_latex_side
        >>> read_latex_side("g''(s)")
        gprimeprime(s)
    """
    pos = 0
    while (m := PRIMED_CALL.search(src.text, pos)) is not None:
        pos = m.end()
        open_at, end = primed_call_bracket(src.text, m)
        if m.group("sub1") and m.group("sub2") or end < 0:
            continue
        plain = _plain(m)
        key = _call_key(plain, probe)
        inner = src.slice(open_at + 1, end - 1)
        inner = inner.slice(0, len(re.sub(r"\\right\s*$", "", inner.text.rstrip())))
        if key is None or key in bound or _written_as_array(m, key, scope) or len(split_top(inner, ",")) != 1:
            continue
        primes = len(m.group("primes"))
        if key in scope.functions:
            at = src.col(m.start())
            value = _defined_value(plain, key, at, scope, lambda s: read(s, bound), mark(_FRESH))
            if value is None:
                continue
            found = _derivative(value, primes, read(inner, bound), at, scope.domains)
        elif scope.defines(key) or scope.defines(m.group("letter")) or scope.defines(m.group("letter").lstrip("\\")):
            continue
        else:
            found = sympy.Function(_primed_name(key, primes), commutative=not scope.ordered_functions)(
                read(inner, bound)
            )
        src = src.splice(m.start(), end, mark(found))
        pos = m.start()
    return src


def unknown_primed(value: Any) -> list[str]:
    """The primed functions of their own (:func:`primed_calls_read`) a value holds, by name."""
    if not isinstance(value, (sympy.Basic, sympy.MatrixBase)):
        return []
    return sorted({f.func.__name__ for f in value.atoms(AppliedUndef) if _PRIMED_OWN.match(f.func.__name__)})


def primed_notes(text: str, scope: Scope, probe: Callable[[str], Any]) -> list[str]:
    """What each primed call of ``text`` is read as, in words (``a''(s)`` the second derivative of a); ``probe`` as
    :func:`primed_calls_read` takes it."""
    notes = []
    for m in PRIMED_CALL.finditer(text):
        plain = _plain(m)
        key = _call_key(plain, probe)
        written = re.sub(r"\s+", "", m.group(0))
        primes = len(m.group("primes"))
        order = {1: "first", 2: "second", 3: "third"}.get(primes, f"order-{primes}")
        if key is not None and key in scope.functions:
            line = scope.functions[key].line
            at = f" (line {line})" if line else ""
            notes.append(f"{written}(...) read as the {order} derivative of {plain}, which the document defines{at}")
        elif key is not None and not scope.defines(key):
            notes.append(f"{written}(...) read as a function of its own, which the document does not define")
    return list(dict.fromkeys(notes))
