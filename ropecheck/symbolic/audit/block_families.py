r"""A step about one block-diagonal family and vectors the document never defines, decided for every size.

``q_m^T R_m^T R_n k_n = q_m^T R_{n-m} k_n``, with ``R_m`` drawn open-ended (:mod:`.open_diagonals`: its block j
written out, the number of blocks left open) and ``q_m``, ``k_n`` never defined: read with general matrices
(:mod:`.general`), the sides differ by ``q_m^T (R_m^T R_n - R_{n-m}) k_n``. Every member of the family is
block-diagonal with the same blocks in the same rows, so a sum of products of members (transposes and the
identity allowed) is block-diagonal too, its block j the same sum of products of the members' blocks j. When
that sum of blocks is exactly zero for a symbolic j (and symbolic positions), the matrix is zero for every number
of blocks, and so is the difference, whatever the vectors around it: PROVED, with the reading said.

The same holds for a family drawn with dots to its last block (:func:`dotted_family`, from the pattern of
:mod:`..readers.ellipsis`), whose name may carry a label and a raised size (``R^d_{\Theta,m}``: :mod:`.family_names`).

Design constraints: one family per step (two families may have blocks of other sizes or rows); the members of
a term must stand side by side -- a general matrix between them (``R_m W_q R_n``) is never moved past them;
terms are grouped by the general factors around their members, and each group must cancel on its own (as
:func:`.general.general_step` does for written-out matrices). A difference that does not cancel is UNDECIDED
(what the document means by the vectors may make it vanish) -- except where the difference is members alone
(``R_m^T R_n - R_{m-n}``, no vector): then block ``start``, which every size writes out, is decided, and a
counterexample there in the positions alone refutes the step. ``\|E\|^2`` of an expression is read as
``(E)^T (E)`` only where the step sets no imaginary unit and no name of E has a complex domain (said so).
"""

from __future__ import annotations

import functools
import operator
import re
from dataclasses import dataclass, replace
from typing import Any

import sympy
from sympy import MatrixExpr, MatrixSymbol
from sympy.core.function import AppliedUndef

from ...errors import ClaimLimitError, ClaimParseError
from ..engine.decide import Verdict, decide
from ..readers.ellipsis import find_patterns
from ..readers.general_matrices import written_value
from ..readers.latex_syntax import calligraphic_as_names, normalize_latex, read_latex_side
from ..readers.scope import Scope, apply_domains
from ..readers.written_norms import SQUARED_SIDES_NOTE, squared_norm_sides
from .document import Link
from .family_names import FamilyName, plain_members, stand_in
from .general import GeneralStep, array_names, general_step
from .indexed_members import indexed_block
from .open_diagonals import open_block_diagonal
from .patterns import size_given
from .reading import Outcome, for_every_value, readable

__all__ = ["DOTTED_FAMILY", "BlockFamily", "dotted_family", "family_in_child", "family_step"]


@dataclass(frozen=True)
class BlockFamily:
    """A block-diagonal family over a position: ``R_m`` with block j ``block`` (``{j}`` where j stands), its first
    block numbered ``start``, drawn at ``line``. ``base`` is the name as the document writes it (``\\mathcal{R}``)."""

    base: str
    param: str
    block: str
    start: int
    line: int
    #: a size raised on the name and a label before the position (``R^d_{\Theta,m}``: ``d``, ``\Theta``)
    raised: str = ""
    label: str = ""
    #: drawn with dots to its last block: the document is also read with its dots written out
    #: (:mod:`.patterns`), which may refute a step this reading leaves undecided
    dotted: bool = False
    #: the names its last block is written in (``d`` of ``\theta_{d/2-1}``)
    sizes: tuple[str, ...] = ()

    def size_given(self, texts: list[str]) -> list[tuple[int, str]]:
        """Which of the math ``texts`` give a size name of the drawing a value (``d = 64``), as :mod:`.patterns`
        reads them: (the text's place, the name)."""
        return sorted((at, name) for name in self.sizes for at, t in enumerate(texts) if size_given([t], name))


#: what the reason of a step read through a family drawn with dots to its last block says (:mod:`.run` then still
#: reads the document with its dots written out, which lists the drawing's pattern)
DOTTED_FAMILY = "drawn with dots to its last block"

#: a member's name as the general reading spells it: its base and its subscript
_MEMBER = re.compile(r"^(?P<base>.+?)_\{(?P<sub>.+)\}$")
#: ``\|E\|^2`` (or ``\lVert E\rVert^2``) of one level of text
_SQUARED_NORM = re.compile(
    r"(?:\\\||\\lVert)(?P<inner>(?:(?!\\\||\\lVert|\\rVert).)+?)(?:\\\||\\rVert)\s*\^\s*\{?\s*2\s*\}?"
)


#: a block written as a name alone (``R_{\theta_j, m}``, ``B(m\theta_j)``): a number only where the text gives its value
_BARE_NAME = re.compile(
    r"^\s*(?:\\(?:boldsymbol|mathbf|bm|mathcal)\s*\{[^{}]*\}|\\?[A-Za-z]+)\s*"
    r"(?:_\s*(?:\{.*\}|\w)|\(.*\))\s*(?:\^\s*(?:\{.*\}|\w))?\s*$",
    re.S,
)

#: the name block j's index takes while the pattern of a drawing with dots is written for it
_INDEX_MARK = sympy.Symbol("QBLOCKINDEX")


def dotted_family(base: str, param: str, body: str, line: int) -> BlockFamily | None:
    r"""A block-diagonal matrix drawn with dots from its first block to its last (``diag(R_{m\theta_0}, \ldots,
    R_{m\theta_{d/2-1}})`` as a ``pmatrix`` with ``\cdots``, ``\vdots``, ``\ddots``), as a family over ``param``:
    block j the pattern's block (:mod:`..readers.ellipsis`), from j = 0; or drawn open-ended
    (:mod:`.open_diagonals`). None where the body is not one such drawing whose blocks use ``param``.

    Example:
        >>> body = r"\begin{pmatrix} e^{m a_0} & \cdots & 0 \\ \vdots & \ddots & \vdots \\ 0 & \cdots & e^{m a_{k}}"
        >>> dotted_family("A", "m", body + r" \end{pmatrix}", 4).block
        'e^{m a_{{j}}}'
    """
    found, _ = find_patterns(body)
    if len(found) != 1 or found[0].kind != "diagonal" or len(found[0].segments) != 1 or found[0].segments[0].prefix:
        drawn = open_block_diagonal(body)  # drawn open-ended, with no last block
        uses = drawn is not None and re.search(r"(?<![\\A-Za-z])" + re.escape(param) + r"(?![A-Za-z])", drawn[0])
        return BlockFamily(base, param, drawn[0], drawn[1], line) if drawn is not None and uses else None
    f, seg = found[0], found[0].segments[0]
    if body[: f.span[0]].strip() or body[f.span[1] :].strip():
        return None  # the drawing is the whole body
    entries = [seg.entry(r, _INDEX_MARK) for r in range(seg.period)]
    if f.block == 2:
        block = rf"\begin{{pmatrix}} {entries[0]} & {entries[1]} \\ {entries[2]} & {entries[3]} \end{{pmatrix}}"
    elif f.block == 1 and len(entries) == 1:
        block = entries[0]
    else:
        return None
    block = block.replace(_INDEX_MARK.name, "{j}")
    if not re.search(r"(?<![\\A-Za-z])" + re.escape(param) + r"(?![A-Za-z])", block):
        return None
    sizes = tuple(sorted(str(x) for x in sympy.sympify(seg.last).free_symbols))
    return BlockFamily(base, param, block, 0, line, dotted=True, sizes=sizes)


def _spelled_base(family: BlockFamily) -> str | None:
    """The family's base as the general reading spells a member (``calR``), or None."""
    text = calligraphic_as_names(f"{family.base}_{{{family.param}}}")
    m = _MEMBER.match(normalize_latex(text).replace(" ", ""))
    if m is None:
        return None
    base = m.group("base")
    base = re.sub(r"\\(?:boldsymbol|mathbf|bm)\s*\{\s*(.*?)\s*\}$", r"\1", base)
    return re.sub(r"\\mathrm\{(cal[A-Z])\}", r"\1", base).lstrip("\\")


def _shown(family: BlockFamily) -> str:
    r"""The family's name at its parameter, as the document writes it (``R^{d}_{\Theta,m}``)."""
    raised = f"^{{{family.raised}}}" if family.raised else ""
    label = f"{family.label}," if family.label else ""
    return f"{family.base}{raised}_{{{label}{family.param}}}" if raised or label else f"{family.base}_{family.param}"


def _members_written(lhs: str, rhs: str, family: BlockFamily) -> tuple[str, str, BlockFamily, str] | None:
    r"""The sides with the members of a family named with a label or a raised size (``R^d_{\Theta,m}``) written
    as a stand-in with the position alone (:mod:`.family_names`), the family as so written, and what was renamed
    in words ("" where nothing was); None where a use of the base is not such a member."""
    if not (family.raised or family.label):
        return lhs, rhs, family, ""
    name = FamilyName(family.base, family.raised, family.label, family.param)
    written = stand_in([lhs, rhs])
    sides = [plain_members(side, name, written) for side in (lhs, rhs)] if written is not None else [None]
    if written is None or sides[0] is None or sides[1] is None:
        return None
    said = f"; {_shown(family)} written {_spelled_base(replace(family, base=written))}_{{{family.param}}}"
    return sides[0], sides[1], replace(family, base=written, raised="", label=""), said


def _without_family(scope: Scope, base: str, line: int) -> Scope | None:
    """The scope without an earlier value of the family's name (``R_n = O^n`` said before the drawing): the drawing
    the step's members are read through is the name's latest definition (None where a value comes after it)."""

    def plain(key: str) -> str:
        return re.sub(r"\\mathrm\{(cal[A-Z])\}", r"\1", key).lstrip("\\")

    patterns = {k: v for k, v in scope.patterns.items() if plain(k) != base}
    symbols = {k: v for k, v in scope.symbols.items() if not plain(k).startswith(base + "_")}
    dropped = [
        v for k, v in (*scope.patterns.items(), *scope.symbols.items()) if k not in patterns and k not in symbols
    ]
    if any(v.line > line for v in dropped):
        return None
    return replace(scope, patterns=patterns, symbols=symbols) if dropped else scope


def _norms_as_products(text: str, scope: Scope) -> tuple[str, bool]:
    """``text`` with each ``\\|E\\|^2`` written ``(E)^T (E)`` where every name may be real; and whether any was."""
    if re.search(r"\\mathrm\s*\{\s*i\s*\}|\\imath|(?<![\\A-Za-z])i(?![A-Za-z])", text):
        return text, False
    complex_names = {k for k, v in scope.domains.items() if "complex" in v}

    def put(m: re.Match[str]) -> str:
        inner = m.group("inner")
        if any(re.search(r"(?<![\\A-Za-z])" + re.escape(n) + r"(?![A-Za-z])", inner) for n in complex_names):
            return m.group(0)
        return f"({inner})^{{T}} ({inner})"

    out = _SQUARED_NORM.sub(put, text)
    return out, out != text


def _members(value: Any, base: str) -> bool:
    return any(_member_of(s, base) is not None for s in value.atoms(MatrixSymbol))


def _member_of(factor: Any, base: str) -> tuple[str, bool] | None:
    """The subscript of a member of the family (``calR_{n-m}``: ``n-m``) and whether it is transposed, or None."""
    transposed = isinstance(factor, sympy.Transpose)
    inner = factor.arg if transposed else factor
    if not isinstance(inner, MatrixSymbol) or written_value(inner) is not None:
        return None
    m = _MEMBER.match(inner.name)
    return (m.group("sub"), transposed) if m is not None and m.group("base") == base else None


def _terms(difference: Any) -> list[Any]:
    return list(difference.args) if isinstance(difference, sympy.MatAdd) else [difference]


def _factors(term: Any) -> tuple[Any, list[Any]]:
    if isinstance(term, sympy.MatMul):
        coeff, matrices = term.as_coeff_matrices()
        return coeff, list(matrices)
    return sympy.S.One, [term]


_Group = dict[tuple[tuple[Any, ...], tuple[Any, ...]], list[tuple[Any, list[tuple[str, bool]]]]]


def _grouped(difference: Any, base: str) -> _Group | None:
    """The terms as ``coefficient * P * (members side by side) * S``, grouped by ``(P, S)``; None where a term has
    members apart, or a term without members fits no group's ``P, S`` (the identity between them) in one way only."""
    groups: _Group = {}
    bare: list[tuple[Any, list[Any]]] = []
    for term in _terms(difference):
        coeff, factors = _factors(term)
        at = [i for i, f in enumerate(factors) if _member_of(f, base) is not None]
        if not at:
            bare.append((coeff, factors))
            continue
        if at != list(range(at[0], at[-1] + 1)):
            return None  # a general factor between members: never moved past them
        key = (tuple(factors[: at[0]]), tuple(factors[at[-1] + 1 :]))
        run = [_member_of(f, base) for f in factors[at[0] : at[-1] + 1]]
        groups.setdefault(key, []).append((coeff, [r for r in run if r is not None]))
    for coeff, factors in bare:  # the identity between P and S: the split must name one group
        fits = [k for k in ((tuple(factors[:i]), tuple(factors[i:])) for i in range(len(factors) + 1)) if k in groups]
        if len(fits) != 1:
            return None
        groups[fits[0]].append((coeff, []))
    return groups


@dataclass(frozen=True)
class _Blocks:
    """Block j of each member, read in the step's scope: ``at(sub, transposed)``."""

    family: BlockFamily
    scope: Scope
    letter: str

    def template(self) -> sympy.Matrix:
        text = self.family.block.replace("{j}", self.letter)
        indexed = indexed_block(text, self.scope, self.family.param, self.letter)
        if indexed is not None:  # R^{(2)}_{\Theta,m,j}: the defined family with one index more
            return sympy.Matrix(indexed.value)
        value = read_latex_side(text, 0, self.scope)
        if _BARE_NAME.match(text) and isinstance(value, (sympy.Symbol, AppliedUndef)):
            raise ClaimParseError(f"the family's block {text} is a name with no value: it may be a matrix")
        if not isinstance(value, sympy.MatrixBase) or value.rows != value.cols:
            value = sympy.Matrix([[value]]) if isinstance(value, sympy.Expr) and not value.is_Matrix else None
        if value is None:
            raise ClaimParseError("the family's block is not read as a square matrix")
        return sympy.Matrix(value)

    def at(self, sub: str, transposed: bool) -> sympy.Matrix:
        block = self.template()
        position = read_latex_side(sub, 0, self.scope)
        if not isinstance(position, sympy.Expr) or isinstance(position, MatrixExpr):
            raise ClaimParseError(f"the subscript {sub} is not read as a position")
        swap = {s: position for s in block.free_symbols if getattr(s, "name", None) == self.family.param}
        out = block.xreplace(swap)
        return out.T if transposed else out


def _block_sum(runs: list[tuple[Any, list[tuple[str, bool]]]], blocks: _Blocks) -> sympy.Matrix:
    """Block j of ``sum c * (product of members)``, each member its block j, no member the identity."""
    size = blocks.template().rows
    parts = [c * functools.reduce(operator.mul, [blocks.at(s, t) for s, t in run], sympy.eye(size)) for c, run in runs]
    return sympy.Matrix(functools.reduce(operator.add, parts))


def _letter(texts: list[str]) -> str | None:
    return next((c for c in "jlrsuw" if not any(re.search(rf"(?<![\\A-Za-z]){c}(?![A-Za-z])", t) for t in texts)), None)


def _decide_groups(sides: tuple[Any, Any], family: BlockFamily, base: str, scope: Scope) -> tuple[str, Any] | None:
    """PROVED (every group's block sum is zero for a symbolic j), REFUTED (members alone, the first block differs
    in the positions alone: its counterexample and the two sides' first blocks), UNDECIDED (a block sum does not
    vanish), or None (not read so)."""
    difference = sympy.expand((sides[0] - sides[1]).doit())
    if not isinstance(difference, MatrixExpr):
        return None
    for turned in (False, True):
        terms = _terms(difference)
        if turned and difference.shape == (1, 1):
            terms = [min(t, t.T.doit(), key=sympy.default_sort_key) for t in terms]
        groups = _grouped(sympy.MatAdd(*terms) if len(terms) > 1 else terms[0], base)
        if groups is not None:
            break
    if not groups:
        return None
    letter = _letter([family.block, *(s for runs in groups.values() for _, run in runs for s, _ in run)])
    if letter is None:
        return None
    blocks = _Blocks(family, scope, letter)
    sums = [apply_domains(_block_sum(runs, blocks), scope.domains) for runs in groups.values()]
    verdicts = [decide(s, sympy.zeros(*s.shape))[0] for s in sums]
    if all(v == Verdict.PROVED for v in verdicts):
        return "PROVED", letter
    if list(groups) == [((), ())]:  # members alone: block `start` is written out at every size
        first = [_first_block(side, blocks, base, scope) for side in sides]
        verdict, _, cex = (
            decide(first[0], first[1]) if first[0] is not None and first[1] is not None else (None, 0, None)
        )
        positions = {str(x) for _, run in groups[((), ())] for s, _ in run for x in _names(s)}
        positions -= {k for k, d in scope.symbols.items() if d.stated_value}  # a value in passing may be a condition
        if verdict == Verdict.REFUTED and cex is not None and {str(k) for k in cex.values} <= positions:
            return "REFUTED", (cex, first[0], first[1])
    return "UNDECIDED", letter


def _first_block(side: Any, blocks: _Blocks, base: str, scope: Scope) -> Any:
    """The first block (``start``) of a side that is members alone, as read; None for another side."""
    groups = _grouped(sympy.expand(side.doit()), base)
    if groups is None or list(groups) != [((), ())]:
        return None
    total = apply_domains(_block_sum(groups[((), ())], blocks), scope.domains)
    return total.xreplace(
        {s: sympy.Integer(blocks.family.start) for s in total.free_symbols if str(s) == blocks.letter}
    )


def _names(sub: str) -> set[str]:
    return set(re.findall(r"[A-Za-z](?:_\{?\w+\}?)?", sub))


def family_step(lhs: str, rhs: str, scope: Scope, family: BlockFamily) -> GeneralStep | None:
    """The step decided through the blocks of ``family`` (its sides as read with general matrices), or None where it
    is not read so (no member in it, other names than general vectors and matrices, a difference not grouped).
    A limit met while reading the blocks (a name the text gives a value in passing: ``$m = 3$``) is raised.

    Example:
        >>> fam = BlockFamily(r"\\mathcal{R}", "m", r"\\begin{pmatrix} \\cos m & -\\sin m \\\\ \\sin m & \\cos m "
        ...                   r"\\end{pmatrix}", 0, 3)
        >>> sc = Scope(array_names=frozenset({"u", "v", "calR_{m}", "calR_{n}", "calR_{n-m}"}))
        >>> family_step(r"u^T \\mathcal{R}_m^T \\mathcal{R}_n v", r"u^T \\mathcal{R}_{n-m} v", sc, fam).status
        'PROVED'
    """
    written = _members_written(lhs, rhs, family)
    if written is None:
        return None
    lhs, rhs, reading_family, renamed = written
    base = _spelled_base(reading_family)
    latest = _without_family(scope, base, family.line) if base is not None else None
    if base is None or latest is None:
        return None
    scope = latest
    if renamed:  # the stand-in is a matrix, and so is each name it multiplies
        scope = replace(scope, array_names=scope.array_names | array_names([f"{lhs} = {rhs}"])[1])
    squared = squared_norm_sides(lhs, rhs)  # \|R u\| = \|u\|: their squares hold or fail together
    lhs, rhs = squared if squared is not None else (lhs, rhs)
    (lhs, normed_l), (rhs, normed_r) = _norms_as_products(lhs, scope), _norms_as_products(rhs, scope)
    if normed_l or normed_r:  # the vector under a norm, its first name after the transpose written for it
        scope = replace(scope, array_names=scope.array_names | array_names([f"{lhs} = {rhs}"])[1])
    found = general_step(lhs, rhs, scope)
    if found is None or found.lhs is None or not (_members(found.lhs, base) or _members(found.rhs, base)):
        return None
    if found.status == "PROVED":
        decided: tuple[str, Any] | None = ("PROVED", None)
    else:
        try:
            decided = _decide_groups((found.lhs, found.rhs), family, base, scope)
        except ClaimLimitError:
            raise  # a name the text gives a value in passing, met in a block: read for every value (family_in_child)
        except (ClaimParseError, RecursionError, TypeError, ValueError, sympy.ShapeError):
            return None
    if decided is None:
        return None
    status, detail = decided
    reading = found.reason.split(": the sides", 1)[0] + renamed
    reading += SQUARED_SIDES_NOTE if squared is not None and (normed_l or normed_r) else ""
    reading += "; \\|E\\|^2 read as E^T E (real entries)" if normed_l or normed_r else ""
    block = family.block.replace("{j}", "j")
    drawn = f", {DOTTED_FAMILY}," if family.dotted else ""
    indexed = indexed_block(block, scope, family.param, "j")
    said = (
        f"{reading}; {_shown(family)}{drawn} as the block-diagonal matrix with block j = {block} "
        f"(line {family.line}), for every size (every number of blocks)"
        + (f"; block j: {indexed.said}" if indexed is not None else "")
    )
    around = "around the same other factors"
    if status == "PROVED" and detail is None:
        why = f"{said}: the sides agree by the rules of matrix algebra"
    elif status == "PROVED":
        why = f"{said}: the members' blocks {detail} (a symbolic {detail}) sum to zero {around}"
    elif status == "REFUTED":
        why = f"{said}: block {family.start}, which every size writes out, differs"
    else:
        why = (
            f"{said}: the members' blocks {detail} do not sum to zero {around}, but what the document means by the "
            "other names may make the difference vanish: not decided"
        )
    if status == "REFUTED":  # the sides as decided: their first blocks
        return GeneralStep(status, why, detail[1], detail[2], detail[0], "block-diagonal family")
    return GeneralStep(
        status, why, found.lhs, found.rhs, None, "block-diagonal family" if status != "UNDECIDED" else ""
    )


def family_in_child(lhs: Link, rhs: Link, scope: Scope, family: BlockFamily) -> Outcome:
    """:func:`family_step` as an outcome (UNDECIDED with no reason where it does not read the step). Where a block
    meets a name the text gives a value in passing (``$m = 3$`` beside ``\\mathcal{R}_m``), the step is read again with
    such names free (:func:`.reading.for_every_value`): PROVED there holds at the value too; anything else is
    UNDECIDED with no reason, as before (a counterexample at another value refutes nothing)."""
    unread = readable(lhs, rhs)
    if unread is not None:
        return unread
    try:
        found = family_step(lhs.text, rhs.text, scope, family)
    except ClaimLimitError as stop:
        stopped = Outcome("UNDECIDED", "none", str(stop))
        again = for_every_value(functools.partial(_family_again, family=family), lhs, rhs, scope, stopped)
        return again if again.status == "PROVED" else Outcome("UNDECIDED")
    if found is None:
        return Outcome("UNDECIDED")
    return Outcome(found.status, found.method or "none", found.reason, found.counterexample, found.lhs, found.rhs)


def _family_again(lhs: Link, rhs: Link, scope: Scope, *, family: BlockFamily) -> Outcome:
    """:func:`family_in_child` in ``scope`` (the names given values in passing free), a limit met again UNDECIDED."""
    try:
        return family_in_child(lhs, rhs, scope, family)
    except ClaimLimitError as stop:
        return Outcome("UNDECIDED", "none", str(stop))
