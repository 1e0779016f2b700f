"""A step about matrices and vectors the document never wrote out, decided by SymPy's matrix algebra.

``(W_q x_m)^T (W_k x_n) = x_m^T W_q^T W_k x_n`` names no entries: read by the default reader, a
transpose of ``x_m`` is not read. Here the step is read again with the undefined one-letter names as
general matrices (upper-case, ``d x d``) and vectors (lower-case, ``d x 1``; see
:mod:`..readers.general_matrices`).

Design constraints: PROVED only when the difference of the sides, transposes of products taken
and products distributed, is exactly the zero matrix -- then it holds for every matrix and vector the
names may stand for. Otherwise UNDECIDED with the reading shown, never REFUTED: what the document
means by a name (``q_m = W_q x_m`` said in words, ``R`` a rotation) may make the difference vanish --
except where every name left is a vector whose size the written-out matrices fix (:mod:`.sized_vectors`:
decided entry by entry). A name a written-out matrix multiplies (``R(beta) k``) is a vector; ``<u, v>``
of vectors is ``u^T v`` where their names are real; a capital with something raised on it
(``R^d_{Theta,m}``) is never a number; sides whose products fit only at size 1 (vectors of one entry,
numbers) are not read so.
Only names the document uses as vectors or matrices are read so -- written transposed or in bold, right
after a transpose, a written-out matrix or such a matrix, or of a family one member of which is one (a
plain ``m`` stays a number); a definition is used when its right side reads as general matrices too
(``q_m = W_q(x_m + p_m)``, a family ``q_m = R_m W_q x_m`` read again at each index); a function of the
names leaves the step unread, except the exponential of a square one (``exp(n B)``), a matrix of its own merged
and transposed only by rules that hold for every matrix (:func:`..readers.general_matrices.exponential_form`). A
written-out matrix among them stands as a matrix of its own: the step is
also PROVED when, around the same general factors, the written-out products sum to exactly the zero
matrix (then the difference is zero for every value of the general ones), or when the terms cancel once each run
of adjacent written-out matrices is their exact product (:mod:`.written_products`). Values given in passing
(``n = 5``, ``W_q = I``) are read for every value, which covers theirs.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import sympy
from sympy import MatrixExpr, MatrixSymbol, Symbol
from sympy.core.function import AppliedUndef
from sympy.matrices.exceptions import ShapeError

from ...errors import ClaimLimitError, ClaimParseError
from ..engine.decide import Verdict, decide
from ..readers.commutators import commutators_written_out
from ..readers.general_matrices import (
    DIMENSION,
    MatrixExponential,
    exponential_form,
    general_name,
    is_array,
    plain_algebra,
    written_symbol,
    written_value,
)
from ..readers.latex_syntax import calligraphic_as_names, normalize_latex, read_latex_side, read_quiet
from ..readers.latex_text import Src, skip_group
from ..readers.scope import Definition, Scope, apply_domains, domain_symbol
from ..readers.written_norms import NORM_BAR, SQUARED_SIDES_NOTE, squared_norm_sides
from .called_families import called_members, undefined_call
from .sized_vectors import general_size_fits, sized_step
from .unformulated_families import family_note, rotation_note
from .written_products import merged_written

__all__ = [
    "all_read_as_general",
    "spelled_name",
    "GENERAL_READING",
    "GeneralStep",
    "MULTIPLIED_PROBLEM",
    "MultiplyingFunction",
    "TRANSPOSE_PROBLEM",
    "VECTOR_PROBLEM",
    "VectorFunction",
    "any_column_scopes",
    "array_names",
    "family_read_again",
    "general_body",
    "commuted_arrays",
    "general_step",
    "unwritten_vectors",
    "vector_function",
]

#: what the reason adds where a side has a matrix exponential: the only rules of it that are used
_EXPONENTIAL_NOTE = (
    "; exp of a matrix read as the matrix exponential, with (exp X)^T = exp(X^T), exp(aX) exp(bX) = exp((a + b)X) "
    "and exp(0) = I only"
)
#: a series of powers over a factorial (``\\sum_{k=0}^{\\infty} \\frac{B^k}{k!}``): read as the exponential it defines
_SERIES_WRITTEN = re.compile(r"\\sum(?![A-Za-z]).*!")
_SERIES_NOTE = "; the series sum of X^k/k! over k >= 0 read as exp(X), which it defines"
#: the start of the default reader's reason for not reading a transpose of an undefined name
TRANSPOSE_PROBLEM = "^T (transpose) applies to a matrix or vector"
#: how a reason with names read as general matrices begins
GENERAL_READING = "names read as general matrices and vectors"
#: the words of the default reader's stop at an undefined name a written-out matrix multiplies (``R_m x``)
VECTOR_PROBLEM = "multiplies a matrix from the right, so it is a vector"
#: the words of a call, read as numbers, of a function whose body multiplies a vector never written out
MULTIPLIED_PROBLEM = "multiplies in its body a vector the document never writes out"


@dataclass(frozen=True)
class GeneralStep:
    """A step read with general matrices: PROVED or UNDECIDED, why, and the sides as read."""

    status: str
    reason: str
    lhs: Any
    rhs: Any
    counterexample: Any = None
    method: str = ""


_LETTER = r"(?:[A-Za-z]|\\mathrm\{cal[A-Z]\})"
_SUB = r"(?:_\s*(?:\{[^{}]*\}|[A-Za-z0-9]|\\[A-Za-z]+))"
_NAME_BODY = _LETTER + r"\s*" + _SUB + "?"
_NAME = r"(?<![\\A-Za-z])(" + _NAME_BODY + ")"
_T = r"\s*\^\s*(?:\{\s*(?:T|\\top)\s*\}|T(?![A-Za-z])|\\top(?![A-Za-z]))"
#: a one-letter name (its subscript kept) directly transposed, after the reader's spelling of ``^\mathsf{T}``
_TRANSPOSED = re.compile(_NAME + _T)
_BOLD = re.compile(r"\\(?:mathbf|boldsymbol|bm)\s*\{\s*(" + _LETTER + r")\s*\}(\s*" + _SUB + ")?")
#: what makes the name right after it a vector or matrix: a transpose (``q^T k``), a written-out matrix,
#: or a name that is a matrix (``W x``, ``W(x + p)``)
_FACTOR = re.compile(
    r"(?:(?<![\\A-Za-z])" + _NAME_BODY + _T + r"|\)" + _T + r"|\\end\s*\{\s*[pbBvV]?matrix\s*\}"
    r"|(?<![\\A-Za-z])(?P<matrix>" + _NAME_BODY + r"))(?=\s*(?P<open>\()?\s*(?P<after>" + _NAME_BODY + "))"
)
#: a word set upright (``\text{Im}(x)``, ``\operatorname{diag}``): its letters name nothing, so I of Im is no matrix
#: that m multiplies (a calligraphic capital, spelled ``\mathrm{calR}``, stays)
_UPRIGHT_WORD = re.compile(r"\\(?:text|textrm|mathrm|operatorname)\s*\{(?!cal[A-Z]\})\s*[A-Za-z]{2,}\s*\}")
#: a name the text defines as a function of a bracket (``R_{\Theta}(m) = \mathrm{diag}(...)``): what a bracket
#: right after it holds is its argument, never a vector it multiplies
_FUNCTION_HEAD = re.compile(r"(?:^|\\\\|&)\s*(" + _NAME_BODY + r")\s*\([^()]*\)\s*(?::=|=)")


#: ``R(\\beta)``: the rotation the reader reads as a function of its angle -- a matrix, never R times a bracket
_ROTATION_CALL = re.compile(r"(?<![\\A-Za-z_^])R\s*(?=\()")


def _rotations_as_matrices(plain: str) -> str:
    """``plain`` with each call ``R(...)`` of the rotation as the end of a written-out matrix: the names of its
    angle are no vectors, and the name after the call is one the matrix multiplies (``R(n\\theta) k``)."""
    out, pos = [], 0
    for m in _ROTATION_CALL.finditer(plain):
        if m.start() < pos:
            continue
        end = skip_group(plain, m.end())
        if end < 0:
            break
        out.append(plain[pos : m.start()] + r" \end{pmatrix} ")
        pos = end
    return "".join(out) + plain[pos:]


def all_read_as_general(sides: tuple[Any, Any], names: list[str], scope: Scope) -> bool:
    """Whether each of ``names`` (as the document writes them) is one of the general matrices or vectors the sides
    were read with: a proof for every matrix then covers whatever they stand for (a name read as a number, a set
    or a function is not covered)."""
    read = {m.name for side in sides for m in side.atoms(MatrixSymbol)}
    for where in names:
        named = read_quiet(calligraphic_as_names(where), Scope(domains=scope.domains))
        if not isinstance(named, Symbol) or named.name not in read:
            return False
    return True


def spelled_name(text: str) -> str | None:
    """The name a piece of LaTeX reads as, or None where it is not one name (or is not read)."""
    try:
        value = read_latex_side(text, 0, Scope())
    except Exception:  # a piece the reader refuses names nothing here
        return None
    return value.name if isinstance(value, Symbol) else None


def _multiplied(plains: list[str], arrays: set[str], spelled: dict[str, str | None]) -> set[str]:
    """The names written right after a transpose, a written-out matrix or a matrix of ``arrays`` -- save a bracket's
    first name after a matrix the text defines as a function of a bracket (``R_{\\Theta}(m)``: its argument, never a
    vector)."""
    calls = {n for plain in plains for m in _FUNCTION_HEAD.finditer(plain) if (n := spelled_name(m.group(1)))}
    found: set[str] = set()
    for plain in plains:
        for m in _FACTOR.finditer(plain):
            before = m.group("matrix")
            if before is not None:
                name = spelled.setdefault(before, spelled_name(before))
                if name is None or not is_array(name, frozenset(arrays)) or not re.match(r"(?:cal)?[A-Z]", name):
                    continue
                if m.group("open") and name in calls:
                    continue
            found.add(m.group("after"))
    return found


def array_names(texts: list[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The names written transposed, and those plus the names the document otherwise uses as vectors or matrices
    (written in bold, or right after a transpose, a written-out matrix or a matrix), as the reader spells them.

    Example:
        >>> transposed, arrays = array_names([r"\\mathbf{x}_m^\\mathsf{T} \\mathbf{W}_q y + \\mathcal{R}_n^\\top k"])
        >>> sorted(transposed), sorted(arrays)
        (['x_{m}'], ['W_{q}', 'calR_{n}', 'k', 'x_{m}', 'y'])
    """
    transposed, bold = set(), set()
    plains = []
    for text in texts:
        text = calligraphic_as_names(text)
        plain = normalize_latex(text)
        plains.append(_rotations_as_matrices(_UPRIGHT_WORD.sub(" ", plain)))
        # a subscript or exponent transposed is the whole name's (R_m^T): not a name of its own
        transposed |= {
            m.group(1) for m in _TRANSPOSED.finditer(plain) if not plain[: m.start()].rstrip().endswith(("_", "^"))
        }
        bold |= {m.group(1) + (m.group(2) or "") for m in _BOLD.finditer(text)}
    spelled: dict[str, str | None] = {t: spelled_name(t) for t in transposed | bold}
    seen = frozenset(n for t in transposed if (n := spelled[t]) is not None and not n.startswith("cal"))
    arrays = set(seen) | {n for t in transposed | bold if (n := spelled[t]) is not None}
    for _ in range(3):  # W x: x is a vector once W is a matrix, and so on along a product
        more = {n for t in _multiplied(plains, arrays, spelled) if (n := spelled.setdefault(t, spelled_name(t)))}
        if more <= arrays:
            break
        arrays |= more
    return seen, frozenset(arrays)


def commuted_arrays(used: set[str], scope: Scope) -> list[str]:
    """The names of ``used`` the document uses as vectors or matrices, when there are two or more and one is a
    matrix (an upper-case letter): read as numbers, their products commute, so a proof there proves the step for
    numbers only (``W_k R_n x = R_n W_k x``); else none."""
    arrays = sorted(n for n in used if is_array(n, scope.array_names) and general_name(n) is not None)
    matrices = [n for n in arrays if (g := general_name(n)) is not None and g.shape[1] != 1]
    return arrays if len(arrays) >= 2 and matrices else []


def _reads_as_number(d: Definition, scope: Scope) -> bool:
    """Whether a definition's reading treats a vector or matrix of the document as a number."""
    body = d.body
    if isinstance(body, sympy.MatrixBase) or not isinstance(body, sympy.Basic):
        return False
    used = {s.name for s in body.free_symbols if isinstance(s, Symbol)}
    called = {f.func.__name__ for f in body.atoms(AppliedUndef)}
    return bool((used | called) & scope.array_names)


def _general_scope(scope: Scope) -> Scope:
    """The scope with general matrices, each definition that read a vector as a number read again so."""
    general = replace(scope, general_matrices=True)
    # a value given in passing (n = 5, W_q = I) is any value here: what holds for every value holds for it
    passing = _in_passing(scope)
    symbols = {k: d for k, d in scope.symbols.items() if k not in passing}
    for name, d in sorted(scope.symbols.items(), key=lambda kv: kv[1].line):
        if d.kind != "symbol" or d.stated_value or not d.body_source or not _reads_as_number(d, scope):
            continue
        earlier = replace(general, symbols={k: v for k, v in symbols.items() if k != name})
        try:
            body = read_latex_side(d.body_source, 0, earlier)
        except (ClaimParseError, ClaimLimitError, RecursionError):
            continue
        if isinstance(body, MatrixExpr) and _only_general(body, scope):
            symbols[name] = replace(d, body=body)
    # a family defined in general (q_m = f_q(x_m, m)) and later one member in particular (q_m = W_q x_m):
    # the later definition holds from there on
    # a family named as a call of a function nothing defines (q_m = f(q, m)): each member is a vector of its own
    later = {k: p for k, p in scope.patterns.items() if not _redefined(p, scope) and not undefined_call(p, scope)}
    earlier = replace(general, symbols=symbols, patterns=later)
    for key, d in later.items():  # q_m = R_m W_q x_m: each member read again, with general matrices
        if d.body_source and len(d.params) == 1 and _arrays_as_numbers(d.body, scope):
            again = _ReadAgain(d.kind, d.name, d.body, d.params, d.source, d.line, False, d.body_source, earlier)
            if _only_general(_member(again, d.params[0]), scope):
                later = {**later, key: again}
    functions = dict(scope.functions)
    for key, d in scope.functions.items():  # f_q(x_m, m) = R_m W_q x_m: read again, with general matrices
        again_f = _called_again(d, scope, replace(earlier, patterns=later))
        if again_f is not None:
            functions[key] = again_f
    # a family named as a call (q_m = f_q(x_m, m)) of a function read again: each member is that call, so read
    # with the function's body as read again (f_q defined after the family, as R_m W_q x_m)
    called = replace(earlier, patterns=later, functions=functions)
    again_read = [k for k, f in functions.items() if f is not scope.functions[k]]
    for key, d in scope.patterns.items():
        if key not in later or len(d.params) != 1 or not d.body_source:
            continue
        if not any(_called_in(k, d.body_source) for k in again_read):
            continue
        again = _ReadAgain(d.kind, d.name, d.body, d.params, d.source, d.line, False, d.body_source, called)
        if _only_general(_member(again, d.params[0]), scope):
            later = {**later, key: again}
    return replace(general, symbols=symbols, patterns=later, functions=functions)


def _called_again(d: Definition, scope: Scope, earlier: Scope) -> Definition | None:
    """A function of vectors and positions (``f_q(x_m, m) = R_{theta,m} W_q x_m``) whose body, read as numbers,
    took a vector or matrix of the document for a number, or could not be read as numbers at all (a
    :class:`VectorFunction`): its body read again with general matrices, or None."""
    if isinstance(d, VectorFunction):
        bound = {x.name for p in d.params for x in p.free_symbols if isinstance(x, Symbol)}
        earlier = replace(earlier, symbols={k: v for k, v in earlier.symbols.items() if k not in bound})
    elif d.kind != "function" or not d.body_source or not _arrays_as_numbers(d.body, scope):
        return None
    return _read_general(d, d.body_source, earlier, scope, _CalledAgain)


#: a kind of definition read with general matrices (:class:`VectorFunction`, :class:`_CalledAgain`)
_D = TypeVar("_D", bound=Definition)


@dataclass(frozen=True)
class VectorFunction(Definition):
    """A function whose body reads only with general matrices (``g(x_m, x_n, n - m) = x_m^T W_q^T R_{n-m} W_k
    x_n``: a vector written transposed). Read as numbers, a call is not read (it says so, and the step is read
    again with general matrices, where the body is read again in the step's scope: see :func:`_called_again`).
    A parameter may be a sum or difference of names (``n - m``): a call then gives it its argument only where the
    body depends on those names through it alone."""

    def apply(self, args: list[Any]) -> Any:
        raise ClaimParseError(
            f"{TRANSPOSE_PROBLEM}: {self.name} transposes one in its body (line {self.line}), so a call of it is read "
            "with general matrices only"
        )


@dataclass(frozen=True)
class MultiplyingFunction(VectorFunction):
    """A function whose body multiplies a vector the document never writes out: a parameter (``f_q(q_m, m) =
    R(m\\theta) q_m``) or a name of its own (``f_q(x_q, m) = R_{\\theta,m} q``). Read as a
    :class:`VectorFunction`: a call is read with general matrices only, each such vector of any size beside a
    general matrix and of a written-out matrix's size beside one. Its entries are written nowhere, so a step
    refuted only at entries chosen for them is not decided (:func:`unwritten_vectors`)."""

    def apply(self, args: list[Any]) -> Any:
        raise ClaimParseError(
            f"{self.name} {MULTIPLIED_PROBLEM} (line {self.line}), so a call of it is read with general matrices only"
        )

    def vectors(self) -> list[str]:
        """The vectors of the body that are not written out (``q_{m}``), as the reader spells them."""
        return sorted(s.name for s in self.body.atoms(MatrixSymbol) if written_value(s) is None and s.shape[1] == 1)


def unwritten_vectors(sides: tuple[Any, Any], scope: Scope) -> str:
    """The vectors of ``sides`` (read with general matrices) that the body of a function of the scope multiplies and
    the document never writes out (:class:`MultiplyingFunction`), in words with the lines that define them; "" where
    there is none: however the step reaches them (a call, a family named as a call, the name itself), their entries
    are written nowhere.

    Example:
        >>> body = MatrixSymbol("q_{m}", DIMENSION, 1)
        >>> f = MultiplyingFunction("function", "f_{q}", body, (Symbol("q_{m}"),), "f_q(q_m)", 3, False, "q_m")
        >>> unwritten_vectors((body, body), Scope(functions={"f_{q}": f}))
        'q_{m} (multiplied in the body of f_{q}, line 3)'
    """
    used = {s.name for side in sides for s in side.atoms(MatrixSymbol)}
    said = [
        f"{', '.join(found)} (multiplied in the body of {d.name}, line {d.line})"
        for d in scope.functions.values()
        if isinstance(d, MultiplyingFunction) and (found := [v for v in d.vectors() if v in used])
    ]
    return "; ".join(sorted(said))


def vector_function(d: Definition, scope: Scope, *, multiplied: bool = False) -> VectorFunction | None:
    """A function definition whose body, read as numbers, transposes a vector (``d.body`` is None), as a
    :class:`VectorFunction` when the body reads as sums, products and transposes of general matrices, else None.
    With ``multiplied`` the body stopped instead at a vector the document never writes out, which a matrix
    multiplies (``R(m\\theta) q_m``): a :class:`MultiplyingFunction`.

    Example:
        >>> d = Definition("function", "g", None, (Symbol("x"), Symbol("y")), body_source="x^T y")
        >>> vector_function(d, Scope(array_names=frozenset("xy"))).body
        x.T*y
    """
    kind = MultiplyingFunction if multiplied else VectorFunction
    return _read_general(d, calligraphic_as_names(d.body_source), _general_scope(scope), scope, kind)


def _read_general(d: Definition, source: str, reading: Scope, scope: Scope, kind: type[_D]) -> _D | None:
    """``d`` with its body ``source`` read in ``reading``, as a ``kind``, where it reads as sums, products and
    transposes of the general matrices of ``scope`` only; else None."""
    try:
        body = read_latex_side(source, 0, reading)
    except (ClaimParseError, ClaimLimitError, RecursionError):
        return None
    if not _only_general(body, scope):
        return None
    return kind(d.kind, d.name, body, d.params, d.source, d.line, False, d.body_source)


@dataclass(frozen=True)
class _CalledAgain(Definition):
    """A function whose body is read with general matrices. A vector parameter takes only itself as its
    argument (``f_q(x_m, 0)``: the name ``x_m`` is kept, and no other vector can be written in its place with
    certainty); a number parameter is replaced in the entries of the written-out matrices and in the
    coefficients. A general matrix whose subscript holds that parameter (an undefined ``R_{m-1}``) cannot be
    renamed with certainty: the call is then not read -- except one whose whole subscript is a parameter given a
    plain letter (``x_i``, ``p_i`` of ``f_q(x_i, i)`` called at ``(x_m, m)``: ``x_m``, ``p_m``; see
    :func:`indexed_renamed`), a vector parameter so renamed taking that argument."""

    def apply(self, args: list[Any]) -> Any:
        if len(args) != len(self.params):
            raise ClaimParseError(f"{self.name} was defined with {len(self.params)} argument(s), given {len(args)}")
        numbers: dict[Any, Any] = {}
        fixed: set[str] = set()  # m of a parameter n - m: what the call leaves of it must not depend on m
        vectors = {s.name for s in self.body.atoms(MatrixSymbol)}
        moved = indexed_renamed(self.body, self.params, args)
        for p, arg in zip(self.params, args):
            name = getattr(p, "name", None)
            if isinstance(arg, MatrixExpr) or name in vectors:
                if getattr(arg, "name", None) != getattr(moved.get(name or ""), "name", name):
                    raise ClaimParseError(f"{self.name} is called with {arg} for its vector parameter {name}")
            elif isinstance(p, Symbol) and isinstance(arg, Symbol) and arg.name == p.name:
                continue  # f_q(x_m, m) called at m itself: nothing to rename (an undefined R_m stays R_m)
            elif isinstance(p, Symbol) and isinstance(arg, sympy.Basic):
                numbers[p] = arg
            elif isinstance(p, sympy.Add) and isinstance(arg, sympy.Basic) and not isinstance(arg, MatrixExpr):
                solved, value = _solved(p, arg)
                numbers[solved] = value
                fixed |= {x.name for x in p.free_symbols} - {solved.name} - {x.name for x in arg.free_symbols}
            else:
                raise ClaimParseError(f"{self.name} is called with {arg} for {p}: not read with general matrices")
        kept = {getattr(p, "name", None) for p in self.params if p not in numbers}
        by_name = {p.name: arg for p, arg in numbers.items()}
        if DIMENSION.name in {*by_name, *fixed}:  # d is the size of every general matrix here: not a parameter
            raise ClaimParseError(f"{self.name} has a parameter d, the size of the general matrices: not read")
        swap: dict[Any, Any] = {}
        for s in self.body.atoms(MatrixSymbol):
            value = written_value(s)
            if s.name in moved:
                swap[s] = moved[s.name]
            elif value is not None:
                swap[s] = written_symbol(sympy.ImmutableMatrix(_named(value, by_name)))
            elif s.name not in kept and any(
                re.search(r"(?<![A-Za-z\\])" + re.escape(name) + r"(?![A-Za-z])", s.name) for name in {*by_name, *fixed}
            ):
                raise ClaimParseError(f"{s.name} is indexed by a parameter of {self.name}: not renamed with certainty")
        out = _named(self.body.xreplace(swap), by_name)
        left = fixed & _names_in(out)
        if left:
            raise ClaimParseError(
                f"{self.name}'s body depends on {', '.join(sorted(left))} other than through its parameter: not read"
            )
        return out


def indexed_renamed(body: Any, params: tuple[Any, ...], args: list[Any]) -> dict[str, MatrixSymbol]:
    """The general matrices of a function's body whose whole subscript is a number parameter given a plain name
    (``f_q(x_i, i) = W_q (x_i + p_i)`` called as ``f_q(x_m, m)``), each with that name as its subscript (``x_m``,
    ``p_m``): a name indexed by the parameter alone is that family's member at the argument, renamed with
    certainty. Any other subscript holding the parameter (``R_{i-1}``) is left to the caller, which does not read
    the call.

    Example:
        >>> from sympy import MatrixSymbol, Symbol
        >>> body = MatrixSymbol("x_{i}", 3, 1) + MatrixSymbol("p_{i}", 3, 1)
        >>> sorted(indexed_renamed(body, (MatrixSymbol("x_{i}", 3, 1), Symbol("i")), [None, Symbol("m")]))
        ['p_{i}', 'x_{i}']
    """
    letters = {
        p.name: a.name
        for p, a in zip(params, args)
        if type(p) is Symbol and isinstance(a, Symbol) and a.name != p.name and re.fullmatch(r"[A-Za-z]", a.name)
    }
    names = {s.name for s in body.atoms(MatrixSymbol)}
    out: dict[str, MatrixSymbol] = {}
    for s in body.atoms(MatrixSymbol):
        m = re.fullmatch(r"(?P<base>[A-Za-z]|\\[A-Za-z]+)_\{(?P<sub>[A-Za-z])\}", s.name)
        if m is None or m.group("sub") not in letters or written_value(s) is not None:
            continue
        renamed = f"{m.group('base')}_{{{letters[m.group('sub')]}}}"
        if renamed in names:  # x_i and x_m both in the body: renaming would merge two names
            return {}
        out[s.name] = MatrixSymbol(renamed, *s.shape)
    return out


def _solved(param: Any, arg: Any) -> tuple[Symbol, Any]:
    """A parameter ``n - m`` given the value ``arg``: the name it is solved for (the first with coefficient 1 or
    -1, in sorted order) and that name's value (``n = arg + m``)."""
    for x in sorted(param.free_symbols, key=str, reverse=True):
        c = param.coeff(x)
        if c in (1, -1) and isinstance(x, Symbol):
            return x, sympy.expand((arg - (param - c * x)) / c)
    raise ClaimParseError(f"the parameter {param} cannot be given the value {arg}")  # pragma: no cover - by head()


def _names_in(value: Any) -> set[str]:
    """The names ``value`` depends on, the entries of its written-out matrices included, each expanded first (so
    that ``theta (m + t) - theta m`` depends on t alone)."""
    parts = [value] if not isinstance(value, MatrixExpr) else []
    for s in value.atoms(MatrixSymbol) if isinstance(value, sympy.Basic) else ():
        written = written_value(s)
        parts += list(written) if written is not None else []
    found = {x.name for p in parts for x in sympy.expand(p).free_symbols if isinstance(x, Symbol)}
    if isinstance(value, MatrixExpr):  # the scalar factors of a matrix product
        found |= {x.name for x in value.free_symbols if isinstance(x, Symbol)}
    return found


def _named(value: Any, by_name: Mapping[str, Any]) -> Any:
    """``value`` with every symbol of a name in ``by_name`` replaced (whatever its assumptions), and none left."""
    out = value.xreplace({s: by_name[s.name] for s in value.free_symbols if getattr(s, "name", None) in by_name})
    given = {s.name for arg in by_name.values() for s in getattr(arg, "free_symbols", ())}  # f(x, m + 1) keeps m
    left = [s.name for s in out.free_symbols if isinstance(s, Symbol) and s.name in set(by_name) - given]
    if left:
        raise ClaimParseError(f"{', '.join(left)} left after the call: not read with general matrices")
    return out


@dataclass(frozen=True)
class _ReadAgain(Definition):
    """A family of vectors or matrices (``q_m = R_m W_q x_m``) whose member at an index is its source read again
    with the index written in the parameter's place, so that ``x_m`` becomes ``x_n`` as a name, not only as a
    number (a general matrix's name carries its subscript)."""

    scope: Any = None

    def apply(self, args: list[Any]) -> Any:
        (index,) = args
        param = re.escape(str(self.params[0]))
        text = re.sub(r"(?<![A-Za-z\\])" + param + r"(?![A-Za-z])", "{(" + sympy.latex(index) + ")}", self.body_source)
        return read_latex_side(text, 0, self.scope)


def general_body(source: str, scope: Scope) -> Any:
    """A definition's right side ``source`` read with general matrices in ``scope`` (the scope of its line), where it
    reads as sums, products and transposes of general matrices only (``R(n\\theta) k``: a written-out matrix times
    a general vector); else None (:mod:`.multiplied_values`)."""
    try:
        body = read_latex_side(calligraphic_as_names(source), 0, _general_scope(scope))
    except (ClaimParseError, ClaimLimitError, RecursionError):
        return None
    return body if _only_general(body, scope) else None


def family_read_again(key: str, param: str, name: str, source: str, line: int, scope: Scope) -> Definition | None:
    """A family with one subscript (``k_n = R(n\\theta) k``) whose member at an index is ``source`` read again with
    general matrices in ``scope`` (the scope of its line), the index in the subscript's place; None where its
    member at the subscript itself does not read so (:mod:`.multiplied_values`)."""
    general = _general_scope(scope)
    params = (domain_symbol(param, dict(scope.domains)),)
    again = _ReadAgain("pattern", key, None, params, name, line, False, calligraphic_as_names(source), general)
    return again if _only_general(_member(again, params[0]), scope) else None


def _arrays_as_numbers(body: Any, scope: Scope) -> bool:
    """Whether a family's body, as first read, takes a vector or matrix of the document for a number."""
    values = list(body) if isinstance(body, sympy.MatrixBase) else [body]
    used = {s.name for v in values for s in getattr(v, "free_symbols", ()) if isinstance(s, Symbol)}
    return any(is_array(n, scope.array_names) and general_name(n) is not None for n in used)


def _member(d: _ReadAgain, index: Any) -> Any:
    try:
        return d.apply([index])
    except (ClaimParseError, ClaimLimitError, RecursionError):
        return None


def _in_passing(scope: Scope) -> frozenset[str]:
    """The names the text gives values in passing, when every value lies in its name's domain (else none: a
    proof for every value of the domain would not cover a value outside it)."""
    given = {k: d.body for k, d in scope.symbols.items() if d.stated_value}
    for name, value in given.items():
        if isinstance(value, MatrixExpr) and not isinstance(value, sympy.MatrixBase):
            continue  # W_q = I: read as any matrix
        if not isinstance(value, sympy.Basic) or isinstance(value, sympy.MatrixBase):
            return frozenset()
        sym = domain_symbol(name, dict(scope.domains))
        for assumption in ("integer", "real", "positive", "nonnegative"):
            if getattr(sym, f"is_{assumption}") and getattr(value, f"is_{assumption}") is not True:
                return frozenset()
    return frozenset(given)


def _passing_used(left: Any, right: Any, scope: Scope) -> str:
    """Which names given values in passing the sides use, in words (they were read for every value)."""
    found: set[str] = set()
    for side in (left, right):
        found |= {s.name for s in side.atoms(Symbol, MatrixSymbol)}
        for w in side.atoms(MatrixSymbol):
            value = written_value(w)
            found |= {s.name for s in value.free_symbols} if value is not None else set()
    used = sorted(found & _in_passing(scope) - {DIMENSION.name})  # d as the size of the general matrices
    return f"; {', '.join(used)}, given values in passing, read for every value" if used else ""


def _redefined(pattern: Definition, scope: Scope) -> bool:
    return any(n.startswith(pattern.name + "_") and d.line > pattern.line for n, d in scope.symbols.items())


def _only_general(value: Any, scope: Scope) -> bool:
    """Sums, products and transposes of names the document uses as vectors or matrices, and numbers.

    A lower-case letter left a number is one (a position ``m``, a coefficient): were it a vector, no product
    with it would fit. An upper-case one may be a matrix the document never marked as one, and matrices do
    not commute: a step with one is not read.
    """
    if not isinstance(value, MatrixExpr) or not plain_algebra(value) or value.atoms(AppliedUndef):
        return False
    if any(written_value(s) is None and not is_array(s.name, scope.array_names) for s in value.atoms(MatrixSymbol)):
        return False
    names = [s.name for s in value.free_symbols if isinstance(s, Symbol)]
    if any(_RAISED_CAPITAL.match(n) for n in names):
        return False  # R^d_{Theta,m}: a capital with a raised size or label names a matrix, which no number stands for
    numbers = [general_name(n) for n in names]
    return not any(n is not None and n.shape[1] != 1 for n in numbers)


#: a name read as a number that is a capital letter with something raised on it (``R^d_{Theta,m}``, ``W^Q``)
_RAISED_CAPITAL = re.compile(r"^(?:cal)?[A-Z]\s*\^")


def _definitions_used(text: str, scope: Scope, general: Scope) -> str:
    """Which definitions the general reading wrote out (``q_{m}`` by line 41), in words."""
    used = [
        f"{d.name}({', '.join(str(p) for p in d.params)}) by line {d.line}"
        for d in general.functions.values()
        if isinstance(d, _CalledAgain) and _called_in(d.name, text)
    ]
    try:
        value = read_latex_side(text, 0, Scope(general_matrices=True, array_names=scope.array_names))
        written = {s.name for s in value.atoms(MatrixSymbol)}
    except Exception:  # the names are said only when they can be listed
        written = set()
    again = {n: d for n, d in general.symbols.items() if d is not scope.symbols.get(n)}
    used += [f"{n} by line {d.line}" for n, d in again.items() if n in written]
    used += [
        f"{d.name}_{d.params[0]} by line {d.line}"
        for d in general.patterns.values()
        if isinstance(d, _ReadAgain) and re.search(re.escape(d.name) + r"\s*_", normalize_latex(text))
    ]
    return f"; with {', '.join(sorted(used))} as general matrices" if used else ""


def _called_in(name: str, text: str) -> bool:
    """Whether ``text`` calls the function the reader spells ``name`` (``f_{q}``: written ``f_q(`` or ``f_{q}(``)."""
    base, _, sub = name.partition("_")
    sub = sub.strip("{}")
    spelled = re.escape(base) + (r"\s*_\s*\{?\s*" + re.escape(sub) + r"\s*\}?" if sub else "")
    return re.search(r"(?<![\\A-Za-z])" + spelled + r"\s*\(", text) is not None


def _identity_side(side: Any, other: Any, scope: Scope) -> Any:
    """``side`` as a multiple of the identity where it is a multiple of an undefined I alone (a number, or a general
    matrix named I) and ``other`` is a square general matrix expression of more than one row; else as it was."""
    if not isinstance(other, MatrixExpr) or other.shape[0] != other.shape[1] or other.shape == (1, 1):
        return side
    if scope.defines(_IDENTITY_NAME) or isinstance(side, sympy.MatrixBase) or not isinstance(side, sympy.Basic):
        return side
    found = [s for s in side.atoms(Symbol, MatrixSymbol) if getattr(s, "name", None) == _IDENTITY_NAME]
    if len(found) != 1:
        return side
    eye = sympy.Identity(other.shape[0])
    if isinstance(found[0], MatrixSymbol) and found[0].shape == other.shape:
        if isinstance(side, MatrixSymbol) or (
            isinstance(side, sympy.MatMul) and side.args[-1] == found[0] and len(side.as_coeff_matrices()[1]) == 1
        ):
            return side.xreplace({found[0]: eye})
        return side
    if isinstance(side, MatrixExpr):
        return side
    expanded = sympy.expand(side)
    coefficient = expanded.coeff(found[0], 1)
    if coefficient == 0 or coefficient.has(found[0]) or sympy.expand(expanded - coefficient * found[0]) != 0:
        return side
    return coefficient * eye


#: the name an undefined identity matrix is written with
_IDENTITY_NAME = "I"


def _exponent_letters(sides: tuple[Any, Any]) -> frozenset[str]:
    """The plain lower-case letters (``m`` of ``exp(m B)``) read as vectors that the sides use only inside the
    exponent of a matrix exponential."""
    inside = {
        s.name
        for side in sides
        for e in side.atoms(MatrixExponential)
        for s in e.exponent.atoms(MatrixSymbol)
        if 1 in s.shape and re.fullmatch(r"[a-z]", s.name)
    }
    for side in sides:
        outside = side.replace(lambda e: isinstance(e, MatrixExponential), lambda e: sympy.Identity(e.shape[0]))
        inside -= {s.name for s in outside.atoms(MatrixSymbol)}
    return frozenset(inside)


def _general_sides(
    lhs: str, rhs: str, scope: Scope, general: Scope, *, again: bool = True
) -> tuple[Any, Any, str] | None:
    """The sides read with general matrices, and what the reading says of an I read as the identity; or None.

    A plain lower-case letter the document uses as a vector elsewhere that stands only in the exponent of a matrix
    exponential (``exp(m B)``), where as a vector it fits only at size 1, is read as a number, and said so."""
    try:
        left = read_latex_side(lhs, 0, general)
        right = read_latex_side(rhs, 0, general)
    except (ClaimParseError, ClaimLimitError, RecursionError):
        return None
    both = isinstance(left, MatrixExpr) and isinstance(right, MatrixExpr)
    letters = _exponent_letters((left, right)) if both else frozenset()
    if again and letters and not general_size_fits(left, right):  # the definitions read again with them numbers
        scope = replace(scope, array_names=scope.array_names - letters)
        found = _general_sides(lhs, rhs, scope, _general_scope(scope), again=False)
        if found is None:
            return None
        said = f"; {', '.join(sorted(letters))} read as a number in an exponent (as a vector it fits only at size 1)"
        return found[0], found[1], found[2] + said
    read = _identity_side(left, right, scope), _identity_side(right, left, scope)
    note = "; I, which nothing defines, read as the identity beside a square matrix" if read != (left, right) else ""
    left, right = read
    if not (isinstance(left, MatrixExpr) and isinstance(right, MatrixExpr)) or left.shape != right.shape:
        return None
    if not (_only_general(left, scope) and _only_general(right, scope)) or not general_size_fits(left, right):
        return None
    return left, right, note


def _turned(difference: Any) -> Any:
    """A 1 x 1 difference with each term as the one of it and its transpose that sorts first.

    A 1 x 1 matrix is its own transpose (``x^T y = y^T x`` whatever the entries), so this changes
    no value, and terms that are transposes of each other cancel.
    """
    if not isinstance(difference, MatrixExpr) or difference.shape != (1, 1):
        return difference
    terms = difference.args if isinstance(difference, sympy.MatAdd) else (difference,)
    turned = [min(t, t.T.doit(), key=sympy.default_sort_key) for t in terms]
    return sympy.expand(sympy.MatAdd(*turned).doit())


def _size_words(name: MatrixSymbol) -> str:
    """``name``'s shape in words (a row ``1 x d``, a column ``d x 1`` or a matrix ``d x d``)."""
    return " x ".join("1" if n == 1 else "d" for n in name.shape)


def _convention_note(names: list[Any]) -> str:
    """Why names read as rows or as columns though written as capitals were so read (:mod:`.vector_conventions`)."""
    rows = [s.name for s in names if s.shape[0] == 1]
    capitals = [s.name for s in names if s.shape[1] == 1 and re.match(r"(?:cal)?[A-Z]", s.name)]
    note = f"; {', '.join(rows)} read as rows: the document multiplies them by matrices on the right" if rows else ""
    if capitals:
        note += f"; {', '.join(capitals)} read as columns: the document takes their inner product <., .>"
    return note


def _shapes(left: Any, right: Any) -> str:
    names = sorted({s for side in (left, right) for s in side.atoms(MatrixSymbol)}, key=str)
    said = [f"{s.name} {_size_words(s)}" for s in names if written_value(s) is None]
    written = [f"{s.name} = {value.tolist()}" for s in names if (value := written_value(s)) is not None]
    return (
        f"{GENERAL_READING} of any size d"
        + (f" ({', '.join(said)})" if said else "")
        + (f", each written-out matrix as a matrix of its own ({'; '.join(written)})" if written else "")
        + _convention_note([s for s in names if written_value(s) is None])
    )


def _merged_note(made: list[MatrixSymbol]) -> str:
    """What the reason adds where adjacent written-out matrices were multiplied out (:mod:`.written_products`)."""
    said = "; adjacent written-out matrices multiplied out, equal products one matrix"
    shown = [f"{s.name} = {value.tolist()}" for s in made if (value := written_value(s)) is not None]
    return said + (f" ({'; '.join(shown)})" if shown else "")


def _factors(term: Any) -> tuple[Any, list[Any]]:
    """A term of a sum of matrix products as its scalar coefficient and its matrix factors in order."""
    if isinstance(term, sympy.MatMul):
        coeff, matrices = term.as_coeff_matrices()
        return coeff, list(matrices)
    return sympy.S.One, [term]


def _written(factor: Any) -> Any:
    """The written-out matrix a factor (a symbol or its transpose) stands for, or None for a general one."""
    if isinstance(factor, sympy.Transpose):
        inner = written_value(factor.arg)
        return None if inner is None else inner.T
    return written_value(factor)


def _written_cancel(difference: Any, domains: Mapping[str, str]) -> bool:
    """Whether the written-out matrices make ``difference`` vanish for every value of the general ones.

    Each term is a coefficient, general factors, one run of written-out matrices, general factors. Terms
    with the same general factors around their run are one sum ``P (c_1 W_1 + c_2 W_2 + ...) S``; when
    every such sum of written-out products is exactly the zero matrix, so is the difference, whatever the
    general matrices are (``x^T A^T R_m^T R_n B y - x^T A^T R_{n-m} B y`` with ``R`` written out). The
    entries' names take the step's domains, as in every other reading.
    """
    terms = difference.args if isinstance(difference, sympy.MatAdd) else (difference,)
    groups: dict[tuple[Any, Any], list[tuple[Any, list[Any]]]] = {}
    for term in terms:
        coeff, factors = _factors(term)
        at = [i for i, f in enumerate(factors) if _written(f) is not None]
        if not at or at != list(range(at[0], at[-1] + 1)):
            return False  # a term of general matrices alone, or two runs of written ones: not settled here
        key = (tuple(factors[: at[0]]), tuple(factors[at[-1] + 1 :]))
        groups.setdefault(key, []).append((coeff, [_written(f) for f in factors[at[0] : at[-1] + 1]]))
    for runs in groups.values():
        try:
            total = functools.reduce(operator.add, [c * functools.reduce(operator.mul, run) for c, run in runs])
        except (ShapeError, TypeError, ValueError):
            return False
        if not isinstance(total, sympy.MatrixBase):
            return False
        total = apply_domains(total, domains)
        if decide(total, sympy.zeros(*total.shape))[0] != Verdict.PROVED:
            return False
    return True


def _identities(value: Any) -> Any:
    """``value`` with each written-out square matrix that is exactly the identity (``R_{\\theta,0}``: its entries
    are 1 and 0 as read) as the identity of the general size: a product with it is its other factors, whatever
    their size (the rotation at position 0 times a projection of any shape).
    """
    swap: dict[Any, Any] = {}
    for s in value.atoms(MatrixSymbol):
        written = written_value(s)
        if written is None or written.cols == 1:
            continue
        if sympy.ImmutableMatrix(written) == sympy.eye(written.rows):
            swap[s] = sympy.Identity(DIMENSION)
    return value.xreplace(swap) if swap else value


#: the reader's stop at a name a written-out matrix multiplies: the name as the reader spells it
_PRODUCT_VECTOR = re.compile(r"^(\S+) " + re.escape(VECTOR_PROBLEM))


def _with_product_vectors(lhs: str, rhs: str, scope: Scope) -> Scope:
    """The scope with each undefined name that, read with general matrices, a written-out matrix multiplies from
    the right (``R(beta) k``) among the names the document uses as vectors: the product settles that it is one."""
    general = _general_scope(scope)
    arrays = set(scope.array_names)
    for _ in range(4):  # one name per reading of a side: a few rounds
        found = set()
        for side in (lhs, rhs):
            try:
                read_latex_side(side, 0, replace(general, array_names=frozenset(arrays)))
            except ClaimParseError as exc:
                m = _PRODUCT_VECTOR.match(str(exc))
                if m and general_name(m.group(1)) is not None and m.group(1) not in scope.symbols:
                    found.add(m.group(1))
            except (ClaimLimitError, RecursionError):
                continue
        if not found - arrays:
            break
        arrays |= found
    return scope if arrays == set(scope.array_names) else replace(scope, array_names=frozenset(arrays))


#: what a step that writes a bracket of two matrices says, where the document defines the bracket so
_COMMUTATOR_NOTE = "; [X, Y] of matrices read as the commutator XY - YX, as the document defines it"


def _writes_commutator(text: str, scope: Scope) -> bool:
    """Whether ``text`` writes a bracket of two matrices that the reader takes for their commutator."""
    if not scope.commutators:
        return False
    normalized = normalize_latex(text)
    return commutators_written_out(Src.of(normalized), scope.array_names).text != normalized


#: a norm written in a step (any spelling of its bars)
_NORM_WRITTEN = NORM_BAR


def general_step(lhs: str, rhs: str, scope: Scope, as_numbers: tuple[str, ...] = ()) -> GeneralStep | None:
    """The step read with general matrices and decided where the matrix algebra decides it, or None.

    None when the sides cannot be read so (a function of a matrix, shapes that do not fit, a side
    that is a number) -- unless the default reading took ``as_numbers``, names the document writes
    transposed, for numbers: then the step is not decided, and says why.

    Example:
        >>> general_step("(W x)^T (W y)", "x^T W^T W y", Scope(array_names=frozenset("Wxy"))).status
        'PROVED'
    """
    lhs, rhs = calligraphic_as_names(lhs), calligraphic_as_names(rhs)
    squared = squared_norm_sides(lhs, rhs)  # \|R u\| = \|u\|: their squares hold or fail together
    lhs, rhs = squared if squared is not None else (lhs, rhs)
    scope = _with_product_vectors(lhs, rhs, scope)
    general = _general_scope(scope)
    sides = _general_sides(lhs, rhs, scope, general)
    if sides is None:
        if not as_numbers:
            return None
        why = (
            f"{', '.join(as_numbers)} is written transposed in the document, so a vector or matrix, but read here "
            "as a number (or inside a function or a written-out matrix): not decided"
        )
        return GeneralStep("UNDECIDED", why, None, None)
    left, right, identity = sides
    reading = (
        _shapes(left, right)
        + _definitions_used(f"{lhs} + {rhs}", scope, general)
        + _passing_used(left, right, scope)
        + rotation_note(f"{lhs} + {rhs}", scope)
    )
    if called := called_members((left, right), scope):
        reading += f"; each member of a family named as a call of a function with no definition, any vector: {called}"
    if re.search(r"\\langle(?![A-Za-z])", lhs + rhs):
        reading += "; <u, v> of vectors read as u^T v (real entries)"
    reading += SQUARED_SIDES_NOTE if squared is not None else ""
    if _NORM_WRITTEN.search(lhs + rhs):
        reading += "; a norm read as a Euclidean length (\\|E\\|^2 of a real vector as E^T E)"
    reading += _COMMUTATOR_NOTE if _writes_commutator(f"{lhs} + {rhs}", scope) else ""
    if left.has(MatrixExponential) or right.has(MatrixExponential):
        reading += _EXPONENTIAL_NOTE + (_SERIES_NOTE if _SERIES_WRITTEN.search(lhs + rhs) else "")
    reading += identity
    difference = exponential_form(sympy.expand((_identities(left) - _identities(right)).doit()))
    difference = exponential_form(_turned(difference))
    if difference == 0 or getattr(difference, "is_ZeroMatrix", False):
        return GeneralStep("PROVED", f"{reading}: the sides agree by the rules of matrix algebra", left, right)
    if _written_cancel(difference, scope.domains):
        why = f"{reading}: the sides agree by the rules of matrix algebra and the entries of the written-out matrices"
        return GeneralStep("PROVED", why, left, right)
    merged = merged_written(difference, scope.domains)
    if merged is not None:
        difference = merged[0]
        reading += _merged_note(merged[1])
        if difference == 0 or getattr(difference, "is_ZeroMatrix", False) or _written_cancel(difference, scope.domains):
            why = (
                f"{reading}: the sides agree by the rules of matrix algebra and the entries of the written-out matrices"
            )
            return GeneralStep("PROVED", why, left, right)
    sized = sized_step(left, right, scope)
    unwritten = unwritten_vectors((left, right), scope) if sized is not None and sized.status == "REFUTED" else ""
    if sized is not None and unwritten:  # a counterexample that chooses entries the document never writes
        why = (
            f"{sized.reason.split(': the sides differ')[0]}: the sides differ only at entries chosen for "
            f"{unwritten}, which the document never writes out: not refuted"
        )
        sized = replace(sized, status="UNDECIDED", reason=why, counterexample=None)
    if sized is not None and sized.status != "UNDECIDED":
        why = f"{reading}; {sized.reason}"
        return GeneralStep(sized.status, why, sized.lhs, sized.rhs, sized.counterexample, "entrywise")
    why = (
        f"{reading}: the sides differ by {difference}, which may vanish for what the document means by these "
        "names: not decided" + family_note(left, right, scope) + (f"; {sized.reason}" if sized is not None else "")
    )
    return GeneralStep("UNDECIDED", why, left, right)


#: the sizes at which a name without a value is tried as a column: one of them must be the only one that reads
_COLUMN_SIZES = (1, 2, 3, 4)


def any_column_scopes(scope: Scope, kind: str, key: str, params: tuple[str, ...]) -> list[tuple[int, Scope]]:
    """The scope with the name ``key`` (a symbol, or a pattern over ``params``: ``q_m``) given no value but a
    column of fresh complex numbers, at each size of :data:`_COLUMN_SIZES`, and (size 0) a fresh complex number.

    A pattern's entries are functions of its index, so ``q_m`` and ``q_n`` stay two vectors. A step that reads at
    one size only, and is PROVED there and wherever the number reads, holds for every value the name may have
    (another size does not fit the step's written-out matrices). Empty for a function's name.
    """
    if kind not in ("symbol", "pattern"):
        return []
    index = tuple(domain_symbol(p, scope.domains) for p in params)
    plain = re.sub(r"[\\{}\s]", "", key)

    def entry(label: str) -> Any:
        if kind == "symbol":
            return Symbol(f"{plain}[{label}]", complex=True)
        return sympy.Function(f"{plain}[{label}]", complex=True)(*index)

    out = []
    for size in (0,) + _COLUMN_SIZES:
        body = entry("any") if size == 0 else sympy.Matrix([entry(str(k + 1)) for k in range(size)])
        d = Definition(kind, key, body, index, key)
        if kind == "symbol":
            out.append((size, replace(scope, symbols={**scope.symbols, key: d})))
        else:
            out.append((size, replace(scope, patterns={**scope.patterns, key: d})))
    return out
