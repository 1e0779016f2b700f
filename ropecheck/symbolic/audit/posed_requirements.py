"""A function posed by a requirement, read through that requirement where a later step states its value.

RoFormer-style derivations pose ``g`` by a requirement, ``<f_q(x_m, m), f_k(x_n, n)> = g(x_m, x_n, m - n)``
(:mod:`.posed_functions`, or words such as "is required"), later define ``f_q`` and ``f_k``, and then state g's
value: ``g(x_m, x_n, m - n) = Re[(W_q x_m)(W_k x_n)^* e^{i(m - n)\\theta}]``. g has no value of its own: what the
requirement says of it is all there is, so the step is true exactly when the requirement's other side equals the
step's other side with the document's definitions. Such a step is read with its call of g replaced by that side
(the requirement at these arguments), decided as any other step, and its reason says so ("g read through the
requirement at line N").

Only where all of this holds (anything else leaves the step as it was):

- the requirement is one equation, ``E = g(a_1, ..., a_k)`` (or ``g(...) = E``), listed as a condition; its call
  is a bare call of a function with no definition in force there, each argument a name or a sum or difference of
  names, and E does not write g; E calls at least one function, and none of them has a definition in force at the
  requirement (they are the unknowns it poses; the step reads them as defined since);
- one side of the step is a bare call of g whose arguments are the requirement's, or those arguments with the
  requirement's one-letter names renamed one to one (``g(x_a, x_b, a - b)`` for ``g(x_m, x_n, m - n)``): a
  subscript follows its letter (``x_m`` becomes ``x_a`` only with ``m`` becoming ``a``), the base of a name never
  changes, a new letter is neither ``e`` nor ``i``, has no value and is not written in E, and a renamed letter
  subscripts nothing in E but the arguments (``f_q`` stays where ``q`` is renamed: no renaming then); ``n - m`` is
  no renaming of ``m - n`` beside ``x_m, x_n`` kept;
- E reads one way: one inner product, whose three conventions the step's readings try (:func:`certain_form`), or
  an expression of functions whose values are all real; ``f_q \\cdot f_k`` of complex values is not read
  through (a product of numbers, or the dot product of the plane vectors they stand for), and the reason says so;
- the definitions meet the requirement: E with the positions moved along the arguments (:func:`shifted`: ``m - t``
  and ``n - t`` for ``m - n``) is PROVED the same, in every reading (the caller's check), or g is no function of
  its arguments and there is nothing to read;
- every requirement that poses g before the step poses it with the same two sides, and nothing gives g a value: no
  definition in force or listed (read or not), no condition with g on the left (:mod:`.posed_functions`), no inline
  math stating its value (``$g(x_m, x_n, m - n) = \\Re[...]$`` in a list of a solution's parts).

Design constraints: pure functions of the text and the scope; nothing here decides. The substituted step goes
through every check a step meets (an inner product of complex values keeps its three readings, names with no
value keep their doubts), and a function of E whose definition was not read leaves the step as it was (the
caller's check).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

import sympy
from sympy import Symbol
from sympy.core.function import AppliedUndef

from ..readers.latex_syntax import normalize_latex, read_quiet
from ..readers.latex_text import Src, split_top, top_level
from ..readers.scope import Scope
from .document import Link
from .posed_functions import writes
from .premises import called_names
from .reading import head

__all__ = [
    "Requirement",
    "Through",
    "arguments",
    "certain_form",
    "posed_requirement",
    "read_through",
    "renaming",
    "shifted",
]

#: a name with a subscript as the reader names it: ``x_{m}``
_SUBSCRIPTED = re.compile(r"^(?P<base>.+?)_\{(?P<sub>[^{}]+)\}$")
#: letters a renaming never brings in: the constants the reader knows by them
_CONSTANT_LETTERS = frozenset("ei")
#: a side that is one inner product (``\langle A, B \rangle``, ``<A, B>``), its field marked or not
_INNER = re.compile(r"^\s*(?:\\left\s*)?(?:\\langle|<)(?P<pair>.*)(?:\\right\s*)?(?:\\rangle|>)\s*(?:_\s*\S.*)?$")


@dataclass(frozen=True)
class Requirement:
    """An equation that poses a function on one side: its name (as the scope keys it), the call and the other side
    as written, its line, and the call's arguments as read."""

    name: str
    call: str
    side: str
    line: int
    args: tuple[Any, ...]

    def same(self, other: Requirement) -> bool:
        """Whether ``other`` poses the function with the same two sides (spaces aside)."""
        return all(_spaceless(a) == _spaceless(b) for a, b in ((self.call, other.call), (self.side, other.side)))


def _spaceless(tex: str) -> str:
    return re.sub(r"\s+", "", normalize_latex(tex))


def arguments(call: str, scope: Scope) -> tuple[Any, ...] | None:
    """The arguments of the bare call ``call``, each as read (a name, or a sum or difference of names), or None.

    Example:
        >>> arguments("g(x_m, x_n, m - n)", Scope())
        (x_{m}, x_{n}, m - n)
    """
    text = normalize_latex(call).strip()
    depth = top_level(text)
    start = next((k for k, c in enumerate(text) if c == "(" and depth[k] == 0), -1)
    if start < 0 or not text.endswith(")") or any(d == 0 for d in depth[start + 1 : len(text) - 1]):
        return None
    inner = re.sub(r"\\right\s*$", "", text[start + 1 : -1])
    out = []
    for part in split_top(Src.of(inner), ","):
        value = read_quiet(part.text, Scope(domains=scope.domains)) if part.text.strip() else None
        if not isinstance(value, sympy.Expr) or not value.free_symbols or not _names_only(value):
            return None
        out.append(value)
    return tuple(out)


def _names_only(value: Any) -> bool:
    """A name, or a sum or difference of names (each with coefficient 1 or -1)."""
    if isinstance(value, Symbol):
        return True
    terms = value.as_coefficients_dict() if isinstance(value, sympy.Add) else {}
    return bool(terms) and all(isinstance(t, Symbol) and c in (1, -1) for t, c in terms.items())


def _function_key(name: str, scope: Scope) -> str | None:
    """The scope's key of the function written ``name`` (``f_q``: ``f_{q}``), or None where it reads as none."""
    probe = read_quiet(name + "(x)", Scope(domains=scope.domains))
    return probe.func.__name__ if isinstance(probe, AppliedUndef) else None


def posed_requirement(call: str, side: str, line: int, scope: Scope) -> Requirement | None:
    """The requirement ``side = call`` (``scope``: the definitions in force there), where ``call`` is a bare call of
    a function with no definition in force and ``side`` calls only functions with none either; else None.

    Example:
        >>> posed_requirement("g(x_m, x_n, m - n)", r"\\langle f_q(x_m, m), f_k(x_n, n) \\rangle", 4, Scope()).name
        'g'
        >>> posed_requirement("g(x_m, x_n, m - n)", r"\\langle x_m, x_n \\rangle", 4, Scope()) is None
        True
    """
    found = head(call, scope)
    if found is None or found.kind != "function" or found.key in scope.functions:
        return None
    if writes(found.key, normalize_latex(side)):
        return None
    keys = [_function_key(n, scope) for n in called_names(side)]
    if not keys or any(k is None or k in scope.functions or k == found.key for k in keys):
        return None
    args = arguments(call, scope)
    return None if args is None else Requirement(found.key, call.strip(), side.strip(), line, args)


def renaming(posed: tuple[Any, ...], stated: tuple[Any, ...], scope: Scope) -> dict[str, str] | None:
    """The one-letter names of ``posed`` renamed to make it ``stated`` (a name to itself where it stays), or None
    where no such renaming does (see the module's rules).

    Example:
        >>> m, n, a, b = sympy.symbols("m n a b")
        >>> xm, xn, xa, xb = sympy.symbols("x_{m} x_{n} x_{a} x_{b}")
        >>> renaming((xm, xn, m - n), (xa, xb, a - b), Scope())
        {'m': 'a', 'n': 'b'}
        >>> renaming((xm, xn, m - n), (xm, xn, n - m), Scope()) is None
        True
    """
    if len(posed) != len(stated):
        return None
    pairs: dict[Symbol, Symbol] = {}
    for a, b in zip(posed, stated):
        matched = _matched(a, b)
        if matched is None:
            return None
        for x, y in matched:
            if pairs.setdefault(x, y) != y:
                return None
    if len(set(pairs.values())) != len(pairs):
        return None
    letters = {x.name: y.name for x, y in pairs.items() if _SUBSCRIPTED.match(x.name) is None}
    if any(len(x) != 1 or len(y) != 1 for x, y in letters.items() if x != y):
        return None
    for x, y in pairs.items():
        parts, into = _SUBSCRIPTED.match(x.name), _SUBSCRIPTED.match(y.name)
        if (parts is None) != (into is None):
            return None
        if parts is not None and into is not None:
            sub = parts.group("sub")
            if into.group("base") != parts.group("base") or into.group("sub") != letters.get(sub, sub):
                return None
    for x, y in letters.items():
        if x != y and (y in _CONSTANT_LETTERS or scope.defines(y)):
            return None
    return letters


def _matched(a: Any, b: Any) -> list[tuple[Symbol, Symbol]] | None:
    """The names of ``a`` paired with those of ``b`` where they are the same form (a name, or a sum or difference
    with one name per coefficient), else None."""
    if isinstance(a, Symbol) and isinstance(b, Symbol):
        return [(a, b)]
    if not (isinstance(a, sympy.Add) and isinstance(b, sympy.Add)):
        return None
    terms_a, terms_b = a.as_coefficients_dict(), b.as_coefficients_dict()
    by_a, by_b = {c: t for t, c in terms_a.items()}, {c: t for t, c in terms_b.items()}
    if len(by_a) != len(terms_a) or len(by_b) != len(terms_b) or set(by_a) != set(by_b):
        return None
    return [(by_a[c], by_b[c]) for c in by_a]


def certain_form(side: str, scope: Scope) -> bool:
    """Whether the requirement's side ``side`` reads one way with the definitions in ``scope``: one inner product
    (whose conventions the step's readings try, each), or an expression whose functions all have real numbers for
    values; ``f_q(x_m, m) \\cdot f_k(x_n, n)`` of complex values is a product of numbers, or the dot product of
    the plane vectors they stand for (``Re`` of one times the conjugate of the other), and of matrices a product or
    the sum of the entries' products.

    Example:
        >>> certain_form(r"\\langle f(a, m), f(b, n) \\rangle", Scope())
        True
        >>> certain_form(r"f(a, m) \\cdot f(b, n)", Scope())
        False
    """
    text = normalize_latex(side)
    inner = _INNER.match(text)
    pair = inner.group("pair") if inner is not None else ""
    if inner is not None and not re.search(r"\\[lr]angle|[<>]", pair) and len(split_top(Src.of(pair), ",")) == 2:
        return True
    keys = [_function_key(n, scope) for n in called_names(side)]
    bodies = [scope.functions[k].body if k is not None and k in scope.functions else None for k in keys]
    return bool(bodies) and all(_real_number(b) for b in bodies)


def _real_number(body: Any) -> bool:
    """Whether a function's value, as read, is a number with no imaginary unit and no complex name in it."""
    if not isinstance(body, sympy.Expr) or body.has(sympy.I):
        return False
    return all(s.is_real is True for s in body.free_symbols)


def _renamed(side: str, letters: dict[str, str], args: tuple[Any, ...]) -> str | None:
    """``side`` with each one-letter name renamed (a subscript too), or None where a new letter is written there, or
    a renamed letter labels a name that is no argument (``f_q`` beside ``q`` renamed: the label stays)."""
    moved = {x: y for x, y in letters.items() if x != y}
    if not moved:
        return side
    free = re.compile(r"(?<![A-Za-z\\])([A-Za-z])(?![A-Za-z])")
    written = {m.group(1) for m in free.finditer(side)}
    if any(y in written and y not in moved for y in moved.values()):
        return None
    bases = [p.group("base") for a in args if isinstance(a, Symbol) and (p := _SUBSCRIPTED.match(a.name))]
    for x in moved:
        labels = len(re.findall(rf"_\s*\{{?\s*{x}(?![A-Za-z])", side))
        on_args = sum(
            len(re.findall(rf"(?<![A-Za-z]){re.escape(b)}\s*\}}?\s*_\s*\{{?\s*{x}(?![A-Za-z])", side))
            for b in set(bases)
        )
        if labels != on_args:
            return None
    return free.sub(lambda m: moved.get(m.group(1), m.group(1)), side)


def _shown(tex: str) -> str:
    """``tex`` as a reason shows it: normalised, no space before a subscript (``\\boldsymbol{x}_m`` is ``x_m``)."""
    return re.sub(r"\s+(?=[_^])", "", normalize_latex(tex)).strip()


@dataclass(frozen=True)
class Through:
    """A step read through a requirement: its sides so (None where it is not, ``said`` saying why), what was read,
    and the requirement's side with the positions moved along every argument (``""`` where no argument is a sum or
    difference): the side must not change, or the requirement does not hold with the definitions in force."""

    sides: tuple[Link, Link] | None
    said: str
    side: str = ""
    shifted: str = ""


#: a one-letter name, with the subscript mark before it where it is one (kept as written there)
_LETTER = re.compile(r"(?P<sub>_\s*\{?\s*)?(?<![A-Za-z\\])(?P<x>[A-Za-z])(?![A-Za-z])")


def shifted(side: str, args: tuple[Any, ...], scope: Scope) -> str | None:
    """``side`` with the names of each argument written as a sum or difference of two names moved so that the
    argument stays (``m - n``: m as m - t, n as n - t, t a new letter), subscripts left as written; ``""`` where no
    argument is such a sum, None where one cannot be moved so (more than two names, a name in two arguments).

    Example:
        >>> m, n, xm, xn = sympy.symbols("m n x_{m} x_{n}")
        >>> shifted(r"\\langle f(x_m, m), f(x_n, n) \\rangle", (xm, xn, m - n), Scope())
        '\\\\langle f(x_m, (m - t)), f(x_n, (n - t)) \\\\rangle'
    """
    compound = [a for a in args if not isinstance(a, Symbol)]
    if not compound:
        return ""
    used = [s for a in args for s in a.free_symbols]
    written = {m.group("x") for m in _LETTER.finditer(side)}
    fresh = next((t for t in "tsuvw" if t not in written and not scope.defines(t) and Symbol(t) not in used), None)
    moves: dict[str, str] = {}
    for arg in compound:
        terms = list(arg.as_coefficients_dict().items())
        if len(terms) != 2 or fresh is None:
            return None
        (first, c1), (second, c2) = terms
        if any(used.count(x) != 1 or len(x.name) != 1 for x in (first, second)):
            return None
        moves[first.name] = f"({first.name} {'+' if c2 > 0 else '-'} {fresh})"
        moves[second.name] = f"({second.name} {'-' if c1 > 0 else '+'} {fresh})"

    def moved(m: re.Match[str]) -> str:
        return m.group(0) if m.group("sub") else moves.get(m.group("x"), m.group(0))

    return _LETTER.sub(moved, side)


def read_through(read: tuple[Link, Link], requirements: list[Requirement], scope: Scope) -> Through | None:
    """The step's sides with its call of a posed function read as the requirement's other side, and what was read
    so; no sides where the requirement's side does not read one way (:func:`certain_form`) or its positions cannot
    be moved (:func:`shifted`), and why; None where neither side is such a call, or no requirement gives it soundly.
    ``requirements``: those that may be used (one per function: the caller drops a function posed twice otherwise
    or given a value).

    Example:
        >>> m, n = sympy.symbols("m n")
        >>> xm, xn = sympy.symbols("x_{m} x_{n}")
        >>> req = Requirement("g", "g(x_m, x_n, m - n)", r"\\langle a(x_m, m), b(x_n, n) \\rangle", 3, (xm, xn, m - n))
        >>> found = read_through((Link("g(x_m, x_n, m-n)", 9), Link("c", 9)), [req], Scope())
        >>> found.sides[0].text
        '\\\\langle a(x_m, m), b(x_n, n) \\\\rangle'
        >>> found.said.split(" (")[0]
        'g(x_m, x_n, m-n) read through the requirement at line 3'
    """
    by_name = {r.name: r for r in requirements}
    for k, link in enumerate(read):
        found = head(link.text, scope)
        posed = by_name.get(found.key) if found is not None and found.kind == "function" else None
        args = arguments(link.text, scope) if posed is not None else None
        letters = renaming(posed.args, args, scope) if posed is not None and args is not None else None
        if posed is None or args is None or letters is None:
            continue
        side = _renamed(posed.side, letters, posed.args)
        other = read[1 - k]
        if side is None or writes(posed.name, normalize_latex(other.text)):
            return None
        stated = f"the requirement at line {posed.line} ({_shown(posed.side)} = {_shown(posed.call)}"
        if not certain_form(side, scope):
            why = "of values not all real, a product there may be of numbers or the dot product of the vectors"
            return Through(None, f"{_shown(link.text)} is not read through {stated}): {why} they stand for")
        moved_side = shifted(side, args, scope)
        if moved_side is None:
            why = "an argument of more than two names, or a name in two arguments"
            return Through(None, f"{_shown(link.text)} is not read through {stated}): {why}")
        sides = list(read)
        sides[k] = replace(link, text=side)
        moved = ", ".join(f"{x} as {y}" for x, y in sorted(letters.items()) if x != y)
        said = f"{_shown(link.text)} read through {stated}" + (f", with {moved}" if moved else "") + ")"
        return Through((sides[0], sides[1]), said, side, moved_side)
    return None
