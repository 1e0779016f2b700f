"""Steps written with dots, decided for every size: the document read again with its patterns written out.

:mod:`..readers.ellipsis` reads the dots of a document's math as patterns over a block index. The
document is then audited again, once per reading, with every pattern written out:

* at two concrete sizes (the size name set to 8 and 12, or the next two that fit every pattern):
  every entry, so that a step is the exact statement at that size;
* as its generic block j (a symbol): each vector and block-diagonal matrix as the entries of block
  j, sums and products as ``\\sum``/``\\prod`` over j -- once per layout a pattern needs (pairs of
  neighbours, or the two halves: :data:`..readers.ellipsis.LAYOUTS`).

A step that was UNREAD for its dots (or for a definition's) then gets: REFUTED where it is refuted
at a concrete size (a counterexample at one size is one for a statement about every size); PROVED
where it is proved at both sizes and for the generic block -- entry by entry for a symbolic j is
every entry of every size at once. A product that sums over a whole vector (``u^T v``, an inner
product) is read as the sum over the blocks of the block's share (:data:`..readers.latex_tree.BLOCK_MARK`)
only when every pattern has one length, and a step is decided so only when each side is linear in
those sums; otherwise UNDECIDED, with what each reading gave. Where a display gives its size name a
value (``$$d = 4$$``), the dots stay unread from there on: a general statement and its example would be
mixed. A value in inline math (``$d = 128$``) is an example: the steps are read, never REFUTED. Patterns in two
size names are written out where the document defines one from the other (``d = 2k``, which gives d no
value), at sizes that keep that relation; only the first name is then given its value in the other steps. Names the
math never relates are set apart, each written out at a size of its own: the steps are then read, never REFUTED (the
text may relate them in words).

Design constraints: the audit itself is not changed; a reading is the same audit of another text,
and the readings are matched step by step (same count, same lines) or not used. Inline math (a matrix between
single dollars) is written out on as many lines as well, none of them blank: a blank line would end it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import sympy

from ..readers.ellipsis import Found, concrete_sizes, expand, find_patterns, layouts_for
from ..readers.latex_syntax import normalize_latex
from ..readers.latex_tree import BLOCK_MARK
from ..readers.scope import Definition, Scope
from .document import MathBlock, math_blocks

if TYPE_CHECKING:
    from .steps import AuditDefinition, AuditResult, AuditStep

__all__ = ["DOTS_REASON", "read_with_patterns", "size_given", "touched_by_dots", "unread_for_dots"]

#: How the reader says it refused dots (in a step's reason, or a definition's it uses).
DOTS_REASON = "stands for terms the reader cannot see"
_INDICES = ("j", "k", "l", "r", "s", "t", "u", "v")
#: where in a text a reason points (``(at column 17)``, ``(line 146, column 56)``)
_WRITTEN_AT = re.compile(r"\s*\((?:at )?(?:line \d+, )?column \d+\)")


def unread_for_dots(reason: str) -> bool:
    """Whether a step is UNREAD because of dots (its own, or in a definition it uses)."""
    return DOTS_REASON in reason


def _dotted_definitions(result: AuditResult) -> set[int]:
    return {d.line for d in result.definitions if unread_for_dots(d.reason)}


def _touched(s: AuditStep, dotted: set[int]) -> bool:
    """Whether a step is UNREAD for dots: its own, or those of a definition it uses."""
    if s.status != "UNREAD":
        return False
    if unread_for_dots(s.reason):
        return True
    m = re.search(r"whose definition \(line (\d+)\) could not be read", s.reason)
    return m is not None and int(m.group(1)) in dotted


def touched_by_dots(result: AuditResult) -> bool:
    """Whether some step of an audit is UNREAD for dots, so that reading them as patterns may decide it."""
    dotted = _dotted_definitions(result)
    return any(_touched(s, dotted) for s in result.steps)


def _letter_used(texts: list[str], letter: str) -> bool:
    return any(re.search(rf"(?<![\\A-Za-z]){letter}(?![A-Za-z])", t) for t in texts)


def size_given(texts: list[str], name: str) -> bool:
    """Whether the math gives the size name a value (``d = 4``, ``d=128``); ``d = 2k`` relates it to another
    name and gives it none (see :func:`_size_relations`)."""
    value = rf"(?<![\\A-Za-z_{{]){name}\s*(?:=|:=)\s*[0-9]+(?![0-9])(?!\s*(?:\\cdot|\\times)?\s*[A-Za-z])"
    return any(re.search(value, t) for t in texts)


def read_with_patterns(
    text: str, latex: bool, original: AuditResult, audit: Callable[[str, Scope], AuditResult]
) -> AuditResult:
    """``original`` with each step UNREAD for its dots decided through the readings of its patterns.

    ``audit(text, scope)`` audits another text of the document from ``scope``.
    """
    blocks, lines = math_blocks(text, latex=latex)
    # a block whose math the reader rewrote onto other lines (``\\left[\n\\begin{array}`` as one matrix) is left as
    # written: its patterns written out would move every later step off the line it is matched by
    per_block = [(b, find_patterns(b.src.text)[0]) for b in blocks if _keeps_lines(b, text)]
    per_block = [(b, f) for b, f in per_block if f]
    found = [f for _, fs in per_block for f in fs]
    texts = [b.src.text for b in blocks]
    if not found:
        return _explained(original, _NO_PATTERN)
    names = sorted({n for f in found for n in f.size_names()})
    relations = _size_relations(original, names)
    sizes = concrete_sizes(found, relations)
    # size names the math never relates (d and K): each written out at its own size, never REFUTED so (the text
    # may relate them in words: a counterexample where they disagree need not be one of the document)
    apart = tuple(names) if not sizes and len(names) > 1 else ()
    sizes = sizes or (concrete_sizes(found, relations, apart=True) if apart else [])
    given = _sizes_given(blocks, names, lines.line)
    dotted = _dotted_definitions(original)
    fixed = given.fixed if given else None
    if fixed is not None and not any(s.line < fixed[1] and _touched(s, dotted) for s in original.steps):
        return _explained(original, _given_reason(fixed))
    if not sizes:
        return _explained(original, "its dots read as patterns, but no size from 8 to 24 writes every one of them out")
    index = next((x for x in _INDICES if not _letter_used(texts, x)), None)
    if index is None:
        return _explained(original, "no letter is left for the block index of its dots")

    def written(**how: object) -> str:
        out = text
        for block, fs in sorted(per_block, key=lambda bf: -bf[0].src.col(0)):
            a, b = block.src.col(0), block.src.col(len(block.src.text))
            new = expand(block.src.text, fs, **how)  # type: ignore[arg-type]
            if block.kind == "inline":  # the lines its patterns leave, kept, but never blank: a blank line ends $...$
                new = re.sub(r"\n(?=\n)", "\n ", new)
            out = out[:a] + new + out[b:]
        return out

    concrete = []
    for size in sizes:
        # only the first size name is given its value: a name the document relates to it (``d = 2k``) sets the
        # length of its own patterns, but the letter may stand for something else in other steps (a vector k)
        symbols = {str(k): Definition("symbol", str(k), sympy.Integer(v), source=f"{k} = {v}")
                   for k, v in list(size.items())[:1]}  # fmt: skip
        concrete.append((size, audit(written(size=size), Scope(strict_products=True, symbols=symbols))))
    generic = []
    if names:
        domains = {index: "natural"} | {n: "positive integer" for n in names}
        # an inner product of blocks is their share of a sum over every block only when every vector and
        # matrix has the same length: then all sums run over the same blocks
        sums = len(_lengths(found, _blocks_of_two(per_block, concrete, lines.line))) == 1
        for layout in layouts_for(found):
            scope = Scope(strict_products=True, generic_blocks=True, block_sums=sums, domains=domains)
            generic.append((layout, audit(written(layout=layout, index=index), scope)))
    by_line: dict[int, list[tuple[Found, str]]] = {}  # each pattern, with its text, by the line it starts on
    for b, fs in per_block:
        for f in fs:
            by_line.setdefault(lines.line(b.src.col(f.span[0])), []).append((f, b.src.text[f.span[0] : f.span[1]]))
    return _merge(original, concrete, generic, index, by_line, given, apart)


@dataclass(frozen=True)
class SizeGiven:
    """Where the math gives a size name of the dots a value (the name, the line): ``first``, anywhere; ``fixed``, the
    first display that does (``$$d = 4$$``). A value in inline math (``$d = 128$``, "for example") is an example,
    never substituted: the steps are still read for every size, but never REFUTED (the text may mean that size
    alone). A display fixes the size: from its line on the dots are not read for every size."""

    first: tuple[str, int]
    fixed: tuple[str, int] | None


def _sizes_given(blocks: list[MathBlock], names: list[str], line_of: Callable[[int], int]) -> SizeGiven | None:
    """Where the math first gives one of the size ``names`` a value, and where a display first does, if it does."""
    given = [(n, line_of(b.src.col(0)), b.kind) for b in blocks for n in names if size_given([b.src.text], n)]
    if not given:
        return None
    displays = [(n, line) for n, line, kind in given if kind == "display"]
    first = min(given, key=lambda g: g[1])
    return SizeGiven((first[0], first[1]), min(displays, key=lambda g: g[1]) if displays else None)


def _keeps_lines(block: MathBlock, text: str) -> bool:
    """Whether the block's math, as the reader reads it, spans as many lines as the document's text it stands for."""
    a, b = block.src.col(0), block.src.col(len(block.src.text))
    return block.src.text.count("\n") == text[a:b].count("\n")


def _size_relations(result: AuditResult, names: list[str]) -> dict[sympy.Symbol, sympy.Expr]:
    """What the document defines a size name to be in the others (``d = 2k``): so patterns in two size names
    are written out at sizes that keep it, never at two sizes chosen apart."""
    out: dict[sympy.Symbol, sympy.Expr] = {}
    for d in result.definitions:
        body = d.body
        if d.kind != "symbol" or d.name not in names or not isinstance(body, sympy.Expr) or body.is_Number:
            continue
        got = {str(x) for x in body.free_symbols}
        if not got or not got <= set(names) - {d.name} or sympy.Symbol(d.name) in out:
            continue
        plain = {x: sympy.Symbol(str(x)) for x in body.free_symbols}
        out[sympy.Symbol(d.name)] = body.xreplace(plain)
    return out


def _given_reason(given: tuple[str, int]) -> str:
    name, line = given
    return f"the document gives {name} a value (line {line}), so from there on its dots are not read for every {name}"


_NO_PATTERN = (
    "the entries around the dots fit no pattern (each the same entry but for subscripts that move by a "
    "fixed step from one block to the next, and the last ones written after the dots)"
)


def _explained(result: AuditResult, why: str, read: frozenset[int] = frozenset()) -> AuditResult:
    """``result`` with each step and definition still UNREAD for its dots saying why they were not read
    (``read``: the lines where dots were read as a pattern, whose steps are left as they are)."""
    steps = [replace(s, reason=f"{s.reason}; {why}")
             if s.status == "UNREAD" and unread_for_dots(s.reason)
             and not read & set(range(s.line, max(s.end_line, s.line) + 1)) else s
             for s in result.steps]  # fmt: skip
    # a definition's dots may start on a later line than its name (``R =`` then the matrix below it)
    definitions = [replace(d, reason=f"{d.reason}; {why}")
                   if not d.read and unread_for_dots(d.reason)
                   and not read & set(range(d.line, d.line + 1 + d.tex.count("\n"))) else d
                   for d in result.definitions]  # fmt: skip
    return replace(result, steps=steps, definitions=definitions)


def _blocks_of_two(
    per_block: list[tuple[MathBlock, list[Found]]],
    concrete: list[tuple[dict[sympy.Symbol, int], AuditResult]],
    line_of: Callable[[int], int],
) -> set[int]:
    """The diagonals drawn with one entry per block (``R(m\\theta_0)``, ...) whose definition reads, at every size
    written out, as a square matrix of twice as many rows as entries: each entry a 2x2 block (by ``id``)."""
    out: set[int] = set()
    for b, fs in per_block:
        for f in fs:
            if f.kind != "diagonal" or f.block != 1 or len(f.segments) != 1 or not concrete:
                continue
            line = line_of(b.src.col(f.span[0]))
            if all(_read_rows(r, line) == 2 * sympy.sympify(f.segments[0].last + 1).subs(size) for size, r in concrete):
                out.add(id(f))
    return out


def _read_rows(result: AuditResult, line: int) -> int | None:
    """The rows of the one square matrix a definition drawn on ``line`` reads as, or None."""
    read = [
        d.body
        for d in result.definitions
        if d.line <= line <= d.line + d.tex.count("\n") and isinstance(d.body, sympy.MatrixBase) and d.body.is_square
    ]
    return int(read[0].rows) if len(read) == 1 else None


def _lengths(found: list[Found], blocks_of_two: AbstractSet[int] = frozenset()) -> list[sympy.Expr]:
    """The distinct lengths of the vectors and the sizes of the matrices written with dots (``blocks_of_two``: the
    diagonals whose entries read as 2x2 blocks, twice as wide as their number of entries)."""
    out: list[sympy.Expr] = []
    for f in found:
        if f.kind in ("sum", "product"):
            continue
        block = 2 if id(f) in blocks_of_two else f.block
        size = block * (f.segments[0].last + 1) if f.kind == "diagonal" else sum(s.length for s in f.segments)
        if not any(sympy.simplify(size - x) == 0 for x in out):
            out.append(sympy.sympify(size))
    return out


def _block_linear(value: object) -> bool:
    """Whether a side read block by block is a sum over the blocks that the block's share decides: at most
    linear in :data:`BLOCK_MARK` (a product of two such sums is not the sum of the products; a function of one
    is not the function's sum), and no block index outside it. A vector or matrix: each entry."""
    if isinstance(value, sympy.MatrixBase):
        return all(_block_linear(e) for e in value)
    if not isinstance(value, sympy.Basic) or not value.has(BLOCK_MARK):
        return True
    try:
        poly = sympy.Poly(sympy.expand(value), BLOCK_MARK)
    except sympy.PolynomialError:
        return False
    if poly.degree() > 1 or any(c.has(BLOCK_MARK) for c in poly.all_coeffs()):
        return False
    constant = poly.all_coeffs()[-1] if poly.degree() == 1 else sympy.S.Zero
    return not any(isinstance(x, sympy.Symbol) and x.name in _INDICES for x in constant.free_symbols)


def _linear_pair(lhs: object, rhs: object) -> bool:
    """Whether two sides read block by block are decided by the block's share: each :func:`_block_linear`, or each the
    square root of such a side (two norms, ``\\|R x\\| = \\|x\\|``: the roots of two sums agree where the sums do)."""
    if _block_linear(lhs) and _block_linear(rhs):
        return True
    roots = [_radicand(x) for x in (lhs, rhs)]
    return all(r is not None and r.has(BLOCK_MARK) and _block_linear(r) for r in roots)


def _radicand(value: object) -> sympy.Expr | None:
    """``x`` of a side that is its square root, ``sqrt(x)``, or ``sqrt(BLOCK_MARK) * sqrt(y)`` as SymPy splits it
    (``x`` is ``BLOCK_MARK * y``); None for any other side."""
    if isinstance(value, sympy.Pow) and value.exp == sympy.S.Half:
        return value.base
    if isinstance(value, sympy.Mul) and len(value.args) == 2 and sympy.sqrt(BLOCK_MARK) in value.args:
        other = next(a for a in value.args if a != sympy.sqrt(BLOCK_MARK))
        if isinstance(other, sympy.Pow) and other.exp == sympy.S.Half and not other.base.has(BLOCK_MARK):
            return BLOCK_MARK * other.base
    return None


def _merge(
    original: AuditResult,
    concrete: list[tuple[dict[sympy.Symbol, int], AuditResult]],
    generic: list[tuple[str, AuditResult]],
    index: str,
    by_line: dict[int, list[tuple[Found, str]]],
    given: SizeGiven | None,
    apart: tuple[str, ...] = (),
) -> AuditResult:
    """The original with its steps UNREAD for dots decided by the readings. Where the document gives the size a
    value (``given``), the steps are never REFUTED: the text may mean that size alone; where a display gives it,
    only the steps before that line are read for every size."""
    readings = [r for _, r in concrete] + [r for _, r in generic]
    keyed = [_by_place(r) for r in readings]
    steps = list(original.steps)
    dotted = _dotted_definitions(original)
    definitions = [_definition(d, readings, by_line, index) for d in original.definitions]
    # the dotted definitions the readings read: a name unread only for one of them is unread for its own reason
    lifted = {d.line for d in definitions if d.line in dotted and d.read}
    definitions = [_dependent(d, readings, lifted) for d in definitions]
    fixed = given.fixed if given else None
    for i, (place, s) in enumerate(_by_place(original).items()):
        if fixed and s.line >= fixed[1] and _touched(s, dotted):  # the size is fixed from there on
            steps[i] = replace(s, reason=f"{s.reason}; {_given_reason(fixed)}")
            continue
        # an UNREAD step is read again: for its dots, a definition's, or one that was taken for a definition
        # because a name it uses was unread (R_0 = R_m^T R_m); the other readings change nothing else
        if s.status != "UNREAD" or any(place not in k for k in keyed) or (fixed and s.line >= fixed[1]):
            continue
        at = [(size, keyed[n][place]) for n, (size, _) in enumerate(concrete)]
        blockwise = [(layout, keyed[len(concrete) + n][place]) for n, (layout, _) in enumerate(generic)]
        cited = _CITED.search(s.reason)
        read_now = cited is not None and int(cited.group(1)) in lifted
        steps[i] = _decided(s, at, blockwise, index, given.first if given else None, apart, lifted=read_now)
    why = _NO_PATTERN if fixed is None else _given_reason(fixed)
    return _explained(replace(original, steps=steps, definitions=definitions), why, frozenset(by_line))


def _generic_status(g: AuditStep) -> str:
    """A step's verdict read as a generic block: a counterexample there need not be an instance of the
    document (the size is any whole number there, odd ones too), so it refutes nothing."""
    return "not proved (a counterexample at a symbolic size refutes nothing)" if g.status == "REFUTED" else g.status


def _by_place(result: AuditResult) -> dict[tuple[int, int], AuditStep]:
    """The steps by where they are: their line, and their order among the steps of that line.

    A reading may find steps the document's first reading took for definitions (``R_0 = R_m^T R_m`` once
    R_m is read), so steps are matched by place, not by number."""
    out: dict[tuple[int, int], AuditStep] = {}
    for s in result.steps:
        n = sum(1 for line, _ in out if line == s.line)
        out[(s.line, n)] = s
    return out


def _sizes_text(size: dict[sympy.Symbol, int]) -> str:
    return ", ".join(f"{k} = {v}" for k, v in size.items()) or "the size written"


def _decided(
    s: AuditStep,
    at: list[tuple[dict[sympy.Symbol, int], AuditStep]],
    blockwise: list[tuple[str, AuditStep]],
    j: str,
    given: tuple[str, int] | None = None,
    apart: tuple[str, ...] = (),
    *,
    lifted: bool = False,
) -> AuditStep:
    """The verdict of a step with dots from its readings at the concrete sizes and as a generic block (never
    REFUTED where the document gives the size a value: ``given``, or where size names it never relates were set
    apart: ``apart``). ``lifted``: the step was unread for a dotted definition that the readings read, so where
    every reading stops at one other name, that is why it is unread."""
    for size, c in at:
        if c.status == "REFUTED" and given is None and not apart:
            why = f"its dots written out at {_sizes_text(size)}: refuted there, so for the general size"
            return replace(c, number=s.number, lhs_tex=s.lhs_tex, rhs_tex=s.rhs_tex, reason=why, end_line=s.end_line)
    if not blockwise:  # the patterns have a number of entries, not a size name: written out is the statement
        c = at[0][1]
        why = "its dots written out (the pattern has a fixed number of entries)" + (f"; {c.reason}" if c.reason else "")
        return replace(c, number=s.number, lhs_tex=s.lhs_tex, rhs_tex=s.rhs_tex, reason=why, end_line=s.end_line)
    proved = [(layout, g) for layout, g in blockwise if g.status == "PROVED" and _linear_pair(g.lhs, g.rhs)]
    if proved and len(at) >= 2 and all(c.status == "PROVED" for _, c in at):  # two sizes: lengths agree for every size
        layout, g = proved[0]
        where = " and ".join(_sizes_text(size) for size, _ in at)
        why = (
            f"for every size: proved with each pattern read for a symbolic {j} (a vector or matrix as its block "
            f"{j}, {layout} layout; a sum or product over {j}), and with every entry written out at {where}"
        )
        if given is not None:
            why += f" (the text gives {given[0]} a value at line {given[1]}: it holds there too)"
        if apart:
            why += f" ({_apart_text(apart)}, each for every value)"
        if not (_block_linear(g.lhs) and _block_linear(g.rhs)):
            why += f"; each side the square root of a sum over {j}, which agree where the sums agree"
        if g.reason:  # how the block was read (``x read as the column (x_{2 j}, x_{2 j + 1}) ...``)
            why += f"; as block {j}: {g.reason}"
        shown = {BLOCK_MARK: sympy.Symbol(f"sum_over_{j}")}
        lhs, rhs = (x.xreplace(shown) if isinstance(x, sympy.Basic) else x for x in (g.lhs, g.rhs))
        return replace(
            g, number=s.number, lhs_tex=s.lhs_tex, rhs_tex=s.rhs_tex, reason=why, end_line=s.end_line, lhs=lhs, rhs=rhs
        )
    read = [c for _, c in at if c.status != "UNREAD"] + [g for _, g in blockwise if g.status != "UNREAD"]
    if not read:
        c = at[0][1]
        if unread_for_dots(s.reason) and unread_for_dots(c.reason):
            return replace(s, reason=f"{s.reason}; some of its dots read as a pattern, others not: {_NO_PATTERN}")
        unread_definition = "could not be read" in s.reason  # a definition with dots, read in the reading
        stops = {_WRITTEN_AT.sub("", x.reason) for x in [c for _, c in at] + [g for _, g in blockwise]}
        if lifted and len(stops) == 1 and not unread_for_dots(c.reason):  # each reading stops at one other name
            return replace(s, reason=f"its dots read as a pattern; then: {stops.pop()}")
        if unread_for_dots(c.reason) or "could not be read" in c.reason:
            return s
        if not unread_for_dots(s.reason) and not unread_definition:
            return s
        return replace(s, reason=f"its dots read as a pattern; then: {c.reason}")
    says = [f"at {_sizes_text(size)}: {c.status}" for size, c in at]
    if given is not None and any(c.status == "REFUTED" for _, c in at):
        says.append(f"refuted at a size the text may not mean: it gives {given[0]} a value at line {given[1]}")
    if apart and any(c.status == "REFUTED" for _, c in at):
        says.append(f"refuted at sizes the text may not mean: {_apart_text(apart)}, and it may relate them in words")
    says += [
        f"as block {j} ({layout} layout): {_generic_status(g)}" + (f" ({g.reason})" if g.reason else "")
        for layout, g in blockwise
    ]
    if any(g.status == "PROVED" and not _linear_pair(g.lhs, g.rhs) for _, g in blockwise):
        says.append("a product (or a function) of sums over the blocks is not decided block by block")
    base = read[0]
    return replace(
        base, number=s.number, lhs_tex=s.lhs_tex, rhs_tex=s.rhs_tex, status="UNDECIDED", method="none",
        counterexample=None, reason="its dots read as a pattern; " + "; ".join(says), end_line=s.end_line,
    )  # fmt: skip


#: where a reason says which definition left a name without a value
_CITED = re.compile(r"whose definition \(line (\d+)\) could not be read")


def _dependent(d: AuditDefinition, readings: list[AuditResult], lifted: set[int]) -> AuditDefinition:
    """A definition unread only for a name whose definition with dots the readings read (``lifted``: their
    lines): where every reading stops at one other thing, that is why it is unread (``q_m = R(m) q``, once R(m) is
    read: q has no value). Otherwise as it was."""
    cited = _CITED.search(d.reason)
    if cited is None or int(cited.group(1)) not in lifted:
        return d
    same = [e for r in readings for e in r.definitions if e.line == d.line and e.name == d.name]
    why = {_WRITTEN_AT.sub("", e.reason) for e in same}
    if len(same) != len(readings) or any(e.read for e in same) or len(why) != 1:
        return d
    stop = why.pop()
    if unread_for_dots(stop):
        return d
    return replace(d, reason=f"its dots read as a pattern (line {cited.group(1)}); then: {stop}")


def _unslashed(name: str) -> str:
    """A name with its spacing and backslashes dropped, a one-letter subscript braced: ``R_{\\Theta}(m)`` and
    ``R_{Theta}(m)`` are one, as are ``R_{G_k}(m)`` and ``R_{G_{k}}(m)``."""
    return re.sub(r"_([A-Za-z0-9])", r"_{\1}", re.sub(r"[\s\\]", "", name))


def _apart_text(apart: tuple[str, ...]) -> str:
    """The size names set apart, in words (``d and K set apart: the math never relates them``)."""
    names = ", ".join(apart[:-1]) + " and " + apart[-1]
    return f"{names} set apart: the math never relates them"


def _member_name(name: str, family: str) -> bool:
    """Whether ``name`` (``R_m``, ``\\boldsymbol{\\mathcal{R}}_m``) is a member of ``family`` as a reading names it
    (``R``, ``\\mathrm{calR}``): a family R_m is the pattern R once read, its subscript a parameter."""
    plain = re.sub(r"\s+", "", normalize_latex(name)).lstrip("\\")
    return plain.startswith(re.sub(r"\s+", "", family).lstrip("\\") + "_")


_SUB_THEN_SUP = re.compile(r"^(\\?[A-Za-z]+)(_\{.*\})\^(\{[^{}]*\}|[A-Za-z0-9])$")


def _spelled(name: str) -> str:
    """A name as one spelling: ``R_{\\Theta, m}^d`` and ``R^d_{\\Theta,m}`` are ``R^{d}_{\\Theta,m}``."""
    plain = re.sub(r"\s+", "", name)
    m = _SUB_THEN_SUP.match(plain)
    if m is not None:
        plain = m.group(1) + "^" + m.group(3) + m.group(2)
    return re.sub(r"\^([A-Za-z0-9])", r"^{\1}", plain)


def _definition(
    d: AuditDefinition, readings: list[AuditResult], by_line: dict[int, list[tuple[Found, str]]], index: str
) -> AuditDefinition:
    """A definition unread for its dots, as a reading of its pattern read it (the generic one first: it
    holds the pattern, not one size), with the pattern in words."""
    if not unread_for_dots(d.reason):
        return d
    near = [ft for line in range(d.line, d.line + 1 + d.tex.count("\n")) for ft in by_line.get(line, [])]
    squashed = re.sub(r"\s+", "", d.tex)
    # the patterns of its own right side, not those of the rest of the display (R_m q: R_m's, not q's)
    found = [f for f, t in near if re.sub(r"\s+", "", t) in squashed] or [f for f, _ in near]
    pattern = "; ".join(f.describe(index) for f in found)
    for r in readings[::-1]:
        for e in r.definitions:
            # R^{d}_{\Theta,m}, read as the family R^{d}_{\Theta,*}: its head is the name as written
            # (``\mathbf{R}_{\Theta, m}``: the head as the reader spells it, its font dropped)
            head = _spelled(e.head)
            member = _member_name(d.name, e.name) or head in (_spelled(d.name), _spelled(normalize_latex(d.name)))
            # R_{\Theta}(m), read as the function R_{Theta}: its head as written, the backslashes dropped
            called = e.kind == d.kind == "function" and _unslashed(e.head) == _unslashed(normalize_latex(d.name))
            same = e.name == d.name or (e.kind == d.kind == "pattern" and member) or called
            if e.line == d.line and same and e.read:
                return replace(e, tex=d.tex, pattern=pattern)
    # read in no reading: where the readings stop at the same thing, not the dots, that is why it is not read
    # (the columns are those of the text written out, not the document's: dropped)
    why = list(dict.fromkeys(
        _WRITTEN_AT.sub("", e.reason) for r in readings for e in r.definitions if e.line == d.line and e.name == d.name
    ))  # fmt: skip
    if found and len(why) == 1 and not unread_for_dots(why[0]):
        return replace(d, reason=f"its dots read as a pattern ({pattern}); then: {why[0]}")
    if found and why and not any(unread_for_dots(w) for w in why):  # each reading stops at its own entries
        return replace(d, reason=f"its dots read as a pattern ({pattern}); then, written out: {why[0]}")
    return d
