"""Vectors of blocks and block-diagonal matrices written open-ended, read block by block.

A derivation may stack per-frequency pieces without saying where the stack ends:
``[v^{(0)}; v^{(1)}; \\vdots]``, ``diag(R_0(k), R_1(k), \\ddots)``. The entries shown fix block j
(``v^{(j)}``, ``R_j(k)``): they are the same text but for one whole number in a subscript or a label,
0 then 1 (or 1 then 2), and the last row holds only the dots. A vector of that kind named by a line
(``PE_{pos} = [...]``) is a definition over its subscript; a step whose every side is a product of
such constructs and of names so defined, with nothing else, says the same of each block: it holds
for every number of blocks when block j's step holds for a symbolic j, and it fails where block j's
step fails at a block that is written out (the first two), which every size has.

Design constraints: text in, text out (the step reader reads the block's step, and :func:`blockwise` says
what its outcome means for the step); a construct
that fits no pattern, two constructs whose blocks start at different numbers, or anything else in
a side (a name whose value is not a stack of the same blocks, a transpose that would sum over the
blocks) leave the step to the ordinary reader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

import sympy
from sympy import MatrixBase

from ..readers.scope import Scope
from .open_diagonals import CORNER_DOTS, MATRIX_ENV, MATRIX_ROW_BREAK, diagonal_name, open_block_diagonal
from .reading import Outcome
from .result import AuditDefinition

__all__ = [
    "BlockStep",
    "OpenVector",
    "block_step",
    "blockwise",
    "index_letters",
    "names_open_vector",
    "open_vector",
    "open_vector_definition",
    "periodic_column",
    "written_block",
]

_VDOTS = re.compile(r"^\s*(?:\\vdots|⋮)\s*$")
_SPACING = re.compile(r"(?<!\\)\\[,;:! ]|\\quad|\\qquad|~")
#: a name a line may define as a vector of blocks: ``PE_{pos}``, ``P_t``, ``x``
_NAME = re.compile(r"^\s*(?P<base>\\?[A-Za-z]+)\s*(?:_\s*(?:\{\s*(?P<sub>[A-Za-z]+)\s*\}|(?P<one>[A-Za-z])))?\s*$")
#: a bold name with no subscript (``\\boldsymbol{b}``), as a column of repeated pairs may be named
_BOLD_NAME = re.compile(r"^\s*\\(?:boldsymbol|mathbf|bm)\s*\{\s*[A-Za-z]\s*\}\s*$")
_USE = re.compile(
    r"(?<![\\A-Za-z])(?P<base>\\(?:boldsymbol|mathbf|bm)\{(?:\\mathcal\{[A-Za-z]\}|[A-Za-z])\}|\\mathcal\{[A-Za-z]\}"
    r"|\\?[A-Za-z]+)\s*(?:_\s*(?:\{(?P<sub>[^{}]*)\}|(?P<one>[A-Za-z0-9])))?"
)
#: a transpose after a block-diagonal matrix: the matrix of the blocks' transposes
_BLOCKS_TRANSPOSED = re.compile(r"\s*\^\s*(?:T(?![A-Za-z])|\\top(?![A-Za-z])|\{\s*(?:T|\\top)\s*\})")
#: a call of a name given as a block-diagonal matrix in words: ``R(k)``
_BLOCKS_CALL = re.compile(r"(?<![\\A-Za-z])(?P<base>\\?[A-Za-z]+)\s*\(\s*(?P<arg>[^()]*?)\s*\)")


@dataclass(frozen=True)
class OpenVector:
    """A vector of blocks named by a line: ``base_{param}``, block j of it is ``block`` (``{j}`` marks j)."""

    base: str
    param: str
    block: str
    #: the first block's number; None where the text gives the blocks in words only (block j is the block
    #: j of whatever stack it multiplies: see :mod:`.worded_blocks`)
    start: int | None
    #: the name is called (``R(k)``), its parameter the argument, rather than subscripted (``PE_{pos}``)
    call: bool = False
    #: the line of the words that give the blocks (0: written out)
    words: int = 0
    #: a block-diagonal matrix written open-ended (:mod:`.open_diagonals`), not a vector of blocks
    diagonal: bool = False
    #: a column that repeats one pair of entries (``[a, 0, a, 0, \\cdots]^T``): every block is the same two entries,
    #: so it has no first block of its own (``start`` is None) and meets 2x2 blocks written out only
    periodic: bool = False

    def listed(self, line: int, tex: str) -> AuditDefinition:
        """The definition as the audit lists it: block j, and where the blocks start."""
        block = self.block.replace("{j}", "j")
        if self.periodic:
            said = f"the column repeating the pair {block} (block j for every j), read block by block"
        elif self.start is None:
            said = f"block-diagonal with the blocks {block}, block j beside block j of what it multiplies (in words)"
        elif self.diagonal:
            at = f"j = {self.start}, {self.start + 1}, ..."
            said = f"block-diagonal with the blocks {block} for {at}, read block by block"
        else:
            said = f"the blocks {block} for j = {self.start}, {self.start + 1}, ..., read block by block"
        name, params = (f"{self.base}({self.param})", ()) if self.call else (self.base, (self.param,))
        params = params if self.param else ()
        return AuditDefinition(line, name, "pattern", tex, sympy.Symbol(block), "", "", params, said)


def _pattern(entries: list[str]) -> tuple[str, int] | None:
    """Block j's text (``{j}`` for the number that moves) and the first number, from the first two entries."""
    if len(entries) < 2 or any(not e.strip() for e in entries):
        return None
    a, b = (re.split(r"(\d+)", e.strip()) for e in entries[:2])
    if len(a) != len(b):
        return None
    moved = [k for k in range(1, len(a), 2) if a[k] != b[k]]
    if len(moved) != 1 or any(a[k] != b[k] for k in range(0, len(a), 2)):
        return None
    k = moved[0]
    start = int(a[k])
    if not "".join(a[:k]).replace(" ", "").endswith(("_", "_{", "^{(")):
        return None  # the number that moves is a subscript or a label (x_0, R_{0}, v^{(0)}), not an exponent
    if int(b[k]) != start + 1 or start > 1 or a[k] != str(start):
        return None
    for later, e in enumerate(entries[2:], start=2):  # any further entry written out follows the pattern
        if "".join(a[:k]) + str(start + later) + "".join(a[k + 1 :]) != e.strip():
            return None
    return "".join(a[:k]) + "{j}" + "".join(a[k + 1 :]), start


def _rows(body: str) -> list[str]:
    rows = [r for r in MATRIX_ROW_BREAK.split(body)]
    while rows and not rows[-1].strip():
        rows.pop()
    return rows


def open_vector(env: str) -> tuple[str, int] | None:
    """``\\begin{bmatrix} v^{(0)} \\\\ v^{(1)} \\\\ \\vdots \\end{bmatrix}``: (block j, first number), or None."""
    m = MATRIX_ENV.fullmatch(env.strip())
    if m is None:
        return None
    rows = _rows(m.group(2))
    if len(rows) < 3 or not _VDOTS.match(rows[-1]) or any("&" in r or _VDOTS.match(r) for r in rows[:-1]):
        return None
    return _pattern(rows[:-1])


#: a column written as a list: ``[a, 0, a, 0, \\ldots]^\\top`` (also ``\\left[ ... \\right]^T``)
_LISTED_COLUMN = re.compile(
    r"^\s*(?:\\left\s*)?\[(?P<body>[^\[\]]*)(?:\\right\s*)?\]\s*\^\s*(?:\{\s*(?:T|\\top)\s*\}|T(?![A-Za-z])|\\top(?![A-Za-z]))\s*$"
)
_LIST_DOTS = re.compile(r"^\s*(?:\\(?:cdots|ldots|dots|vdots)|⋯|…|\.\.\.)\s*$")


def _split_top(body: str, sep: str) -> list[str]:
    """``body`` split at ``sep`` outside braces and brackets."""
    out, depth, start = [], 0, 0
    for k, c in enumerate(body):
        depth += 1 if c in "{([" else -1 if c in "})]" else 0
        if c == sep and depth == 0:
            out.append(body[start:k])
            start = k + 1
    return [*out, body[start:]]


def periodic_column(text: str) -> str | None:
    """A column that repeats one pair of entries, written open-ended: ``[a, 0, a, 0, \\cdots]^T`` or with the pair
    once more after the dots (``..., \\cdots, a, 0]^T``), or as a ``bmatrix`` with a ``\\vdots`` row; its block j
    (the pair as a 2x1 column), or None where any entry breaks the period (or the pair is shown only once).

    Example:
        >>> periodic_column(r"[\\sqrt{\\lambda}, 0, \\sqrt{\\lambda}, 0, \\ldots]^{\\top}")
        '\\\\begin{pmatrix} \\\\sqrt{\\\\lambda} \\\\\\\\ 0 \\\\end{pmatrix}'
    """
    listed = _LISTED_COLUMN.match(text)
    env = MATRIX_ENV.fullmatch(text.strip()) if listed is None else None
    if listed is not None:
        entries = [e.strip() for e in _split_top(listed.group("body"), ",")]
    elif env is not None and "&" not in env.group(2):
        entries = [e.strip() for e in _rows(env.group(2))]
    else:
        return None
    dots = [k for k, e in enumerate(entries) if _LIST_DOTS.match(e)]
    if len(dots) != 1:
        return None
    before, after = entries[: dots[0]], entries[dots[0] + 1 :]
    if len(before) < 4 or len(before) % 2 or len(after) not in (0, 2) or any(not e for e in before + after):
        return None
    pair = [re.sub(r"\s+", " ", e) for e in before[:2]]
    shown = [re.sub(r"\s+", " ", e) for e in before + after]
    if any(e != pair[k % 2] for k, e in enumerate(shown)) or "_" in "".join(pair):
        return None  # an entry off the period, or a subscript (a number that may move: another reader's)
    return rf"\begin{{pmatrix}} {before[0]} \\ {before[1]} \end{{pmatrix}}"


def _open_diagonal(env: str) -> tuple[str, int] | None:
    """``\\begin{bmatrix} R_0 & & \\\\ & R_1 & \\\\ & & \\ddots \\end{bmatrix}``: (block j, first number), or None."""
    m = MATRIX_ENV.fullmatch(env.strip())
    if m is None:
        return None
    rows = [r.split("&") for r in _rows(m.group(2))]
    n = len(rows)
    if n < 3 or any(len(r) > n for r in rows):
        return None
    cells = [[(r[c] if c < len(r) else "").strip() for c in range(n)] for r in rows]
    if any(cells[r][c] for r in range(n) for c in range(n) if r != c) or not CORNER_DOTS.match(cells[-1][-1]):
        return None
    return _pattern([cells[r][r] for r in range(n - 1)])


def open_vector_definition(name: str, body: str) -> OpenVector | None:
    """``PE_{pos} = [v_{pos}^{(0)}; v_{pos}^{(1)}; \\vdots]``: the vector of blocks the line names, or None."""
    m = _NAME.match(name)
    found = open_vector(body)
    bold = _BOLD_NAME.match(name)
    pair = periodic_column(body) if found is None else None
    if pair is not None and (bold is not None or (m is not None and not (m.group("sub") or m.group("one")))):
        base = re.sub(r"\s+", "", bold.group(0)) if bold is not None else m.group("base")  # type: ignore[union-attr]
        return OpenVector(base, "", pair, None, periodic=True)
    if m is None or found is None:
        named, diagonal = diagonal_name(name), open_block_diagonal(body)
        if named is None or diagonal is None or not re.search(rf"(?<![\\A-Za-z]){named[1]}(?![A-Za-z])", diagonal[0]):
            return None  # a matrix whose blocks do not use its subscript: no family over it
        return OpenVector(named[0], named[1], diagonal[0], diagonal[1], diagonal=True)
    param = m.group("sub") or m.group("one") or ""
    return OpenVector(m.group("base"), param, found[0], found[1])


def _named_block(use: re.Match[str], known: dict[str, OpenVector]) -> tuple[str, int | None] | None:
    """A use of a name defined as a vector of blocks (``PE_{pos+k}``), or called where the name is a block-diagonal
    matrix given in words (``R(k)``): its block j there, or None."""
    v = known.get(use.group("base"))
    called = "arg" in use.re.groupindex
    if v is None or v.call != called:
        return None
    at = use.group("arg") if called else use.group("sub") if use.group("sub") is not None else use.group("one")
    if (at is None) != (not v.param) or (called and not at):
        return None
    block = v.block
    if v.param and at.strip() != v.param:  # the parameter's value: whole in a subscript, bracketed elsewhere
        rx = r"(_\s*\{\s*)" + re.escape(v.param) + r"(\s*\})|(?<![\\A-Za-z])" + re.escape(v.param) + r"(?![A-Za-z])"
        block = re.sub(rx, lambda m: "_{" + at + "}" if m.group(1) else "(" + at + ")", block)
    return block, v.start


#: the size :func:`_side_blocks` gives a column of repeated pairs: 2, but never beside a block of no written size
_PERIODIC = -2


def _written_size(block: str) -> int:
    """The size of a block of a block-diagonal matrix written open-ended (:mod:`.open_diagonals`): 2 or 1."""
    return 2 if block.lstrip().startswith("\\begin{pmatrix}") else 1


def _side_blocks(side: str, known: dict[str, OpenVector]) -> tuple[str, set[int | None], list[str], list[int]] | None:
    """A side that is only a product of open constructs and names defined as vectors of blocks: its block j, the
    numbers its blocks start at, what it reads from words (``R(k)``, given as blocks at line 130), and the sizes of
    the blocks written out entry by entry (:mod:`.open_diagonals`; 0 for a block of no written size)."""
    text = _SPACING.sub(" ", side)
    sizes: list[int] = []
    words: list[str] = []
    out: list[str] = []
    starts: set[int | None] = set()
    at = 0
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        env = MATRIX_ENV.match(text, at)
        call = _BLOCKS_CALL.match(text, at)
        use = _USE.match(text, at)
        found: tuple[str, int | None] | None = None
        matrix: tuple[str, int | None] | None = None
        if call is not None and call.group("base") in known and known[call.group("base")].call:
            found = _named_block(call, known)
            end = call.end()
            v = known[call.group("base")]
            block = v.block.replace("{j}", "j")
            words.append(f"{v.base}({v.param}) as the block-diagonal matrix of the blocks {block}, which the text says "
                         f"in words (line {v.words})")  # fmt: skip
        elif env is not None:
            written = open_block_diagonal(env.group(0))
            matrix = _open_diagonal(env.group(0)) or written
            found = open_vector(env.group(0)) or matrix
            end = env.end()
            sizes.append(_written_size(written[0]) if written is not None and found is written else 0)
        elif use is not None:
            found = _named_block(use, known)
            end = use.end()
            named = known.get(re.sub(r"\s+", "", use.group("base")))
            matrix = found if found is not None and named is not None and named.diagonal else None
            sizes.append(_written_size(named.block) if matrix is not None and named is not None else 0)
            if named is not None and named.periodic:
                sizes[-1] = _PERIODIC
        if found is None:
            return None
        transposed = _BLOCKS_TRANSPOSED.match(text, end)
        if transposed is not None and (matrix is None or found is not matrix):
            return None  # a vector of blocks transposed: its product sums over the blocks
        if transposed is not None:
            end = transposed.end()
        out.append("(" + found[0] + ")" + ("^T" if transposed is not None else ""))
        starts.add(found[1])
        at = end
    return (" ".join(out), starts, words, sizes) if out else None


def index_letters(scope: Scope) -> str:
    """The letters to try for block j: first those the document indexes its per-block definitions with
    (``R_i(k)``, ``T_j(s)``: the body uses the letter), then letters no name of the document carries as a label
    (``W_q``), so block j is read through those definitions and never as a labelled name."""
    out, labels = [], set()
    for key, d in [*scope.functions.items(), *scope.patterns.items(), *scope.symbols.items()]:
        m = re.search(r"_\{?([a-z])\}?$", key)
        body = d.body if isinstance(d.body, (sympy.Basic, MatrixBase)) else sympy.S.Zero
        if m and m.group(1) in {str(x) for x in body.free_symbols} and key not in scope.symbols:
            out.append(m.group(1))
        elif m:
            labels.add(m.group(1))
    return "".join(dict.fromkeys(out)) + "".join(c for c in "jlrsuw" if c not in labels and c not in out)


def names_open_vector(text: str, known: dict[str, OpenVector]) -> bool:
    """Whether ``text`` is a name defined as a vector of blocks, at any subscript (``PE_{pos+k}``): no new name."""
    m = _USE.fullmatch(text.strip())
    return m is not None and m.group("base") in known


class BlockStep(NamedTuple):
    """The step said of block j: its sides, the letter for j, the first block, and what was read from words."""

    left: str
    right: str
    letter: str
    start: int
    words: tuple[str, ...] = ()


def block_step(left: str, right: str, known: dict[str, OpenVector], letters: str = "") -> BlockStep | None:
    """The step said of block j (its left side, its right side, the letter for j, the first block), or None.

    Only where both sides are products of open constructs and names defined as vectors of blocks, and every
    block starts at the same number. ``letters``: the letters to try for j, in order: first those the document indexes
    its per-block definitions with (``R_i(k)``, ``T_j(s)``), so block j is read through them, then letters no
    name of the document carries as a label.

    Example:
        >>> v = r"\\begin{bmatrix} u_0 \\\\ u_1 \\\\ \\vdots \\end{bmatrix}"
        >>> block_step(r"\\begin{bmatrix} A_0 & & \\\\ & A_1 & \\\\ & & \\ddots \\end{bmatrix}" + v, v, {})
        BlockStep(left='(A_j) (u_j)', right='(u_j)', letter='j', start=0, words=())
    """
    sides = [_side_blocks(left, known), _side_blocks(right, known)]
    if sides[0] is None or sides[1] is None:
        return None
    # a matrix given in words has the blocks of what it multiplies: at least one stack must be written out
    starts = {n for n in sides[0][1] | sides[1][1] if n is not None}
    if len(starts) != 1:
        return None
    # blocks written out entry by entry have a size: block j of each factor is the same rows only where every factor's
    # blocks are written so, all of one size (2x2 turns beside 1x1 phases pair other coordinates)
    sizes = set(sides[0][3] + sides[1][3])
    if _PERIODIC in sizes and not sizes <= {_PERIODIC, 2}:
        return None  # a column of repeated pairs meets only 2x2 blocks written out: its block j is a pair there
    sizes = {2 if n == _PERIODIC else n for n in sizes}
    if sizes - {0} and len(sizes) > 1:
        return None
    texts = (sides[0][0] + " " + sides[1][0]).replace("{j}", " ")
    letter = next((c for c in letters or "jlrsuw" if not re.search(rf"(?<![\\A-Za-z]){c}(?![A-Za-z])", texts)), None)
    if letter is None:
        return None
    words = tuple(dict.fromkeys(sides[0][2] + sides[1][2]))
    return BlockStep(
        sides[0][0].replace("{j}", letter), sides[1][0].replace("{j}", letter), letter, starts.pop(), words
    )


def blockwise(o: Outcome, found: BlockStep) -> Outcome:
    """The outcome of block j's step (``found``, from :func:`block_step`) as the step's own: PROVED for every number
    of blocks; REFUTED only at a block written out (or at every block), since a later one may not exist."""
    left, right, letter, start, words = found
    said = f"block by block, for every number of blocks (block {letter}: {left} = {right})"
    said += "".join(f", reading {w}" for w in words)
    values = o.counterexample.values if o.counterexample is not None else {}
    at = next((v for k, v in values.items() if str(k) == letter), None)
    if o.status == "REFUTED" and at is not None and at not in (start, start + 1):
        why = f"{said}; refuted at {letter} = {at}, a block the text does not write out: not decided"
        return Outcome("UNDECIDED", "none", why, None, o.lhs, o.rhs)
    o.reason = f"{said}; {o.reason}" if o.reason else said
    return o


def written_block(left: str, right: str, found: BlockStep, number: int) -> tuple[str, str]:
    """The sides of block j's step (``left``, ``right``, as :func:`block_step` wrote them) at block ``number``, one
    the text writes out: a counterexample there is one for every size.

    Example:
        >>> written_block("(A_j) (u_j)", "(u_j)", BlockStep("(A_j) (u_j)", "(u_j)", "j", 0), 1)
        ('(A_{1}) (u_{1})', '(u_{1})')
    """
    letter = re.compile(rf"(_\s*){found.letter}(?![A-Za-z])|(?<![\\A-Za-z_]){found.letter}(?![A-Za-z])")

    def put(m: re.Match[str]) -> str:
        if m.group(1):
            return f"{m.group(1)}{{{number}}}"  # a subscript: \theta_j
        alone = m.string[m.start() - 1 : m.start()] in ("{", "(") and m.string[m.end() : m.end() + 1] in ("}", ")")
        return str(number) if alone else f"({number})"  # in its own brackets (x^{(j)}, y_{j}), or a factor

    return letter.sub(put, left), letter.sub(put, right)
