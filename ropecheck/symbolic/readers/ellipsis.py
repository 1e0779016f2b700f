"""Ellipses in general-size notation, read as patterns over a block index.

Derivations state the general case with dots: ``(x_0, x_1, \\ldots, x_{d-1})``, a column vector
with a ``\\vdots`` row, RoFormer's block-diagonal matrix with ``\\cdots``/``\\vdots``/``\\ddots``, a
sum ``q_0 k_0 + q_1 k_1 + \\cdots + q_{d-1} k_{d-1}``, a product ``\\mu_1 \\mu_2 \\cdots \\mu_{D/2}``.
The entries shown before the dots fix a pattern, those after them fix where it ends:

* every entry of one kind is the same LaTeX with other subscripts, and each subscript is an
  affine function of the block index j. Its step is read from the first two blocks shown; when
  only one block is shown before the dots the step is 1 (the literature writes ``x_0, \\ldots,
  x_{d-1}`` for consecutive entries), or 0 where the subscript does not change;
* the pattern repeats every p entries: p = 1, else 2 (``q_0 \\cos m\\theta_0, q_1 \\cos m\\theta_0,
  q_2 \\cos m\\theta_1, \\ldots``); a block-diagonal matrix repeats a 1x1 or 2x2 block;
* the entries after the dots are the last blocks: every subscript there must give the same last
  block index J (``q_{d-1}`` after ``q_0, q_1``: J = d - 1), in one size name (d) or a number;
* a subscript that holds subscripts of its own is read through them (``R_{m\\theta_0}``: the pattern runs over
  θ's index); an index raised in parentheses (``q_m^{(0)}``) is an index too, the label the reader reads, and is
  written out only where it stays one number or letter (``q^{(j + 1)}`` would read as a power); a block-diagonal
  matrix may set its zero blocks bold (``\\boldsymbol{0}``), and stop a row after its last entry (the blank cells
  left out, as LaTeX sets them); a subscript that lists indices (``\\theta_{k,1}``) is one subscript per part.

A construct whose entries fix no pattern, or fix it two ways, is left as written: the reader then
refuses its dots, as before. Two vectors separated by several dots are segments (the halves of
``rotate_half``: ``(-x_{d/2}, \\ldots, -x_{d-1}, x_0, \\ldots, x_{d/2-1})``); the entries between two
dots are split between them only where exactly one split reads.

:func:`expand` writes every pattern of a piece of math out, either at a concrete size
(``size=8``: every entry, in one size name set to 8) or as its generic block (``layout=``): the
entries of block j as a small vector or matrix, with j a symbol. Vectors compared entry by entry
for a symbolic j are compared for every size; :data:`LAYOUTS` says how block j sits in a vector.

Design constraints: pure text in, text out (the reader reads what this writes); SymPy only
for the arithmetic of subscripts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import sympy

from .diag_lists import diag_word_before, write_diagonal, write_diagonal_block
from .latex_text import Src, closing, skip_group, split_top

__all__ = ["LAYOUTS", "Found", "Segment", "concrete_sizes", "expand", "find_patterns", "has_ellipsis", "layouts_for"]

#: How the entries of block j sit in a vector of length L: ``contiguous`` (entries 2j, 2j+1: pairs
#: of neighbours, the interleaved layout), ``strided`` (entries j and j + L/2: the two halves, the
#: rotate_half layout), ``single`` (entry j alone; written as a 2-vector with a 0 beside it).
LAYOUTS = ("contiguous", "strided", "single")

_DOTS = (
    r"\\cdot\s*\\cdot\s*\\cdot(?![A-Za-z])|\\(?:cdots|ldots|dots|vdots|ddots|dotsc|dotsb|dotsm)(?![A-Za-z])"
    r"|\.\.\.|…|⋯|⋮|⋱"
)
_DOT = re.compile(_DOTS)
_ONLY_DOTS = re.compile(r"^\s*(?:" + _DOTS + r")?\s*$")
_ENV = re.compile(r"\\begin\{(pmatrix|bmatrix|Bmatrix|matrix|vmatrix|Vmatrix|smallmatrix)\}")
_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|\S")
_INDEX_TEXT = re.compile(r"^[0-9A-Za-z+\-*/() ]*$")
_FRAC = re.compile(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}|\\tfrac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SIZES = (8, 12, 16, 24)


def has_ellipsis(text: str) -> bool:
    """Whether the math holds dots of any kind."""
    return _DOT.search(text) is not None


# --------------------------------------------------------------------------- entries and their subscripts


def _index_value(content: str) -> Any | None:
    """A subscript as a number or an affine expression in one-letter names (``d/2-1``, ``2i+1``); None for a label."""
    text = _FRAC.sub(lambda m: f"(({m.group(1) or m.group(3)})/({m.group(2) or m.group(4)}))", content)
    text = text.replace("\\cdot", "*").replace("\\left", "").replace("\\right", "").strip()
    if not text or not _INDEX_TEXT.match(text) or re.search(r"[A-Za-z]{2,}", text):
        return None
    text = re.sub(r"(?<=[0-9A-Za-z)])\s*(?=[A-Za-z(])", "*", text)
    try:
        value = sympy.sympify(text, locals={c: sympy.Symbol(c) for c in set(re.findall(r"[A-Za-z]", text))})
    except (sympy.SympifyError, SyntaxError, TypeError, ZeroDivisionError):
        return None
    if not isinstance(value, sympy.Expr) or value.has(sympy.zoo, sympy.nan) or not value.is_polynomial():
        return None
    return sympy.expand(value) if all(sympy.degree(value, s) <= 1 for s in value.free_symbols) else None


class _NoLabel(ValueError):
    """An index raised in parentheses that would not be written as one number or letter."""


@dataclass(frozen=True)
class Entry:
    """One entry as written: its tokens with every subscript blanked, the subscripts' spans and values."""

    text: str
    shape: tuple[str, ...]
    spans: tuple[tuple[int, int], ...]
    values: tuple[Any, ...]  # a SymPy value, or the label's text
    #: the spans that are parts of a subscript listing several indices (``\theta_{k,1}``)
    listed: frozenset[tuple[int, int]] = frozenset()

    def at(self, values: list[Any], *, checked: bool = True) -> str:
        """The entry with its subscripts set to ``values`` (SymPy values or labels), each in braces (``checked``:
        raising :class:`_NoLabel` where an index raised in parentheses would not stay a label)."""
        out, last = [], 0
        for (a, b), v in zip(self.spans, values):
            braced = self.text[a - 1 : a] == "{" and self.text[b : b + 1] == "}"
            out.append(self.text[last : a - 1] if braced else self.text[last:a])
            written = v if isinstance(v, str) else sympy.latex(v)
            # an index in parentheses (``q^{(2)}``) keeps them as its only brackets, and stays one number or letter:
            # the reader takes ``q^{(j + 1)}`` for a power, not a label
            parenthesised = self.text[a - 1 : a] == "(" and self.text[b : b + 1] == ")"
            if checked and parenthesised and not re.fullmatch(r"[A-Za-z0-9]+", written):
                raise _NoLabel(written)
            # a part of a listed subscript (``\theta_{k,1}``) is written as it is, between its commas
            out.append(written if parenthesised or (a, b) in self.listed else "{" + written + "}")
            last = b + 1 if braced else b
        out.append(self.text[last:])
        return "".join(out)


#: a superscript in parentheses, ``^{(2i+1)}``: the literature's index of an entry (as the reader reads it: a label)
_PARENTHESISED_INDEX = re.compile(r"\s*\{\s*\(\s*([^(){}]*?)\s*\)\s*\}")


def _entry(text: str) -> Entry | None:
    text = text.strip()
    if not text or _DOT.search(text):
        return None
    spans: list[tuple[int, int]] = []
    values: list[Any] = []
    shape: list[str] = []
    listed: set[tuple[int, int]] = set()
    i = 0
    while i < len(text):
        m = _TOKEN.match(text, i)
        if m is None:  # whitespace
            i += 1
            continue
        index = _PARENTHESISED_INDEX.match(text, m.end()) if m.group(0) == "^" else None
        if index is not None and _index_value(index.group(1)) is not None:  # ``q_m^{(2)}``: an index, not a power
            spans.append(index.span(1))
            values.append(_index_value(index.group(1)))
            shape.append("^(#)")
            i = index.end()
            continue
        if m.group(0) != "_":
            shape.append(m.group(0))
            i = m.end()
            continue
        j = i + 1
        while j < len(text) and text[j].isspace():
            j += 1
        if j < len(text) and text[j] == "{":
            end = closing(text, j, "{", "}")
            if end < 0:
                return None
            a, b, i = j + 1, end, end + 1
        else:
            t = _TOKEN.match(text, j)
            if t is None:
                return None
            a, b, i = t.start(), t.end(), t.end()
        content = text[a:b]
        value = _index_value(content)
        parts = _listed_subscript(content, a) if value is None else None
        if parts is not None:  # ``\theta_{k,1}``, ``R_{\Theta, m, 1}``: each part of the list its own subscript
            spans.extend(x for x, _ in parts)
            listed.update(x for x, _ in parts)
            values.extend(v for _, v in parts)
            shape.extend(("_{", *("#" if isinstance(v, sympy.Expr) else v for _, v in parts), "}"))
            continue
        inner = _nested_entry(content) if value is None else None
        if inner is not None:  # ``R_{m\theta_0}``: the pattern runs over the subscript's own subscripts
            lead = a + len(content) - len(content.lstrip())
            spans.extend((lead + x, lead + y) for x, y in inner.spans)
            values.extend(inner.values)
            shape.extend(("_{", *inner.shape, "}"))
            continue
        spans.append((a, b))
        values.append(value if value is not None else " ".join(content.split()))
        shape.append("_#")
    return Entry(text, tuple(shape), tuple(spans), tuple(values), frozenset(listed))


def _listed_subscript(content: str, at: int) -> list[tuple[tuple[int, int], Any]] | None:
    """A subscript that lists several indices (``k,1``, ``\\Theta, m, 1``): each part's span (from ``at``) and its
    value (a number, an affine expression, or the part's text as a label); None where it lists none, where a part
    is empty or carries subscripts of its own, or where every part is a label (the whole is then one label)."""
    if "," not in content:
        return None
    out, start = [], 0
    labels = {p.strip() for p in content.split(",")}
    for part in content.split(","):
        lead = len(part) - len(part.lstrip())
        text = part.strip()
        if not text or (("{" in text or "_" in text) and _group_size(text, labels) is None):
            return None
        value = _index_value(text) if "_" not in text else _group_size(text, labels)
        out.append(((at + start + lead, at + start + lead + len(text)), value if value is not None else text))
        start += len(part) + 1
    return out if any(not isinstance(v, str) for _, v in out) else None


#: a one-letter name with a one-letter subscript (``d_k``, ``d_{k}``)
_SUBSCRIPTED_LETTER = re.compile(r"([A-Za-z])_(?:([A-Za-z])|\{\s*([A-Za-z])\s*\})")


def _group_size(part: str, labels: set[str]) -> Any | None:
    """A part of a listed subscript that names the size of the group another part labels (``d_k`` in
    ``\\theta_{k,d_k}``, k a part of the same list): the last index of a list that runs over group k, as one size
    name (``d_k``, a symbol of its own); None for any other part with a subscript."""
    m = _SUBSCRIPTED_LETTER.fullmatch(part)
    if m is None or (label := m.group(2) or m.group(3)) not in labels or label == m.group(1):
        return None
    return sympy.Symbol(f"{m.group(1)}_{label}")


def _nested_entry(content: str) -> Entry | None:
    """A subscript that carries subscripts of its own (``m\\theta_0``, ``n\\theta_{d/2-1}``) as an entry, so
    that a pattern may run over them; None where it carries none (a label such as ``\\text{max}``)."""
    if "_" not in content:
        return None
    inner = _entry(content)
    return inner if inner is not None and inner.spans else None


# --------------------------------------------------------------------------- patterns


@dataclass(frozen=True)
class Segment:
    """``period`` entries per block j = 0 .. ``last``; ``templates[r]`` is entry r of block 0 and ``steps[r]``
    the step of each of its subscripts; ``shown`` blocks are written out (before and after the dots)."""

    templates: tuple[Entry, ...]
    steps: tuple[tuple[Any, ...], ...]
    last: Any
    shown: int
    #: entries written before a pattern that they do not fit, kept as written (one block): see :func:`_prefixed`
    prefix: bool = False

    @property
    def period(self) -> int:
        return len(self.templates)

    @property
    def length(self) -> Any:
        return self.period * (self.last + 1)

    def entry(self, r: int, j: Any, *, checked: bool = True) -> str:
        """Entry r of block j (a number or a symbol)."""
        t = self.templates[r]
        return t.at([v if isinstance(v, str) else v + s * j for v, s in zip(t.values, self.steps[r])], checked=checked)

    def at(self, k: Any) -> str:
        """Entry k of the whole segment, for a period of 1."""
        return self.entry(0, k)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return sympy.simplify(a - b) == 0


def _residue(heads: list[Entry], tails: list[Entry], lone: tuple[int, ...] = ()) -> tuple[tuple[Any, ...], Any] | None:
    """The steps of one entry's subscripts and the last block index they give (None: no pattern). With one block
    shown, subscript s moves by ``lone[s]`` (1 where not given) from one block to the next."""
    steps: list[Any] = []
    lasts: list[Any] = []
    for s, v0 in enumerate(heads[0].values):
        hv = [e.values[s] for e in heads]
        tv = [e.values[s] for e in tails]
        if isinstance(v0, str) or any(isinstance(v, str) for v in hv + tv):
            if any(v != v0 for v in hv + tv):
                return None
            steps.append(0)
            continue
        if len(hv) >= 2:
            step = sympy.simplify(hv[1] - v0)
            if not step.is_Integer or any(not _same(v, v0 + k * step) for k, v in enumerate(hv)):
                return None
        else:
            step = sympy.Integer(0 if _same(tv[-1], v0) else (lone[s] if s < len(lone) else 1))
        steps.append(step)
        if step != 0:
            lasts.append(sympy.expand((tv[-1] - v0) / step))
    if not lasts:
        return tuple(steps), None
    return tuple(steps), lasts[0] if all(_same(x, lasts[0]) for x in lasts) else False


def _segment(heads_text: list[str], tails_text: list[str]) -> Segment | None:
    """The pattern the entries before and after the dots fix, period 1 tried first, then 2."""
    heads = [_entry(t) for t in heads_text]
    tails = [_entry(t) for t in tails_text]
    if not heads or not tails or None in heads or None in tails:
        return None
    for p in (1, 2):
        found = _period(heads, tails, p)  # type: ignore[arg-type]
        if found is not None:
            return found
    return None


def _period(heads: list[Entry], tails: list[Entry], p: int) -> Segment | None:
    if not heads or not tails or len(heads) % p or len(tails) % p:
        return None
    a, b = len(heads) // p, len(tails) // p
    steps, lasts = [], []
    lone = _tiling_steps(heads[:p]) if a == 1 else ()
    for r in range(p):
        hs, ts = heads[r::p], tails[r::p]
        if any(e.shape != hs[0].shape for e in hs + ts):
            return None
        got = _residue(hs, ts, lone)
        if got is None or got[1] is False:
            return None
        steps.append(got[0])
        if got[1] is not None:
            lasts.append(got[1])
    if not lasts or any(not _same(x, lasts[0]) for x in lasts):
        return None
    seg = Segment(tuple(heads[:p]), tuple(steps), lasts[0], a + b)
    # every shown entry after the dots is the pattern's entry in its block
    for k, e in enumerate(tails):
        block = seg.last - (b - 1 - k // p)
        if not _same_entry(seg, k % p, block, e):
            return None
    return seg


def _tiling_steps(block: list[Entry]) -> tuple[int, ...]:
    """How each subscript moves from the one block shown to the next: by the block's length where the block's
    entries carry that many different whole numbers there, one after another (``x_0, x_1`` or ``-u_1, u_0``:
    the next block is ``x_2, x_3``, as pairs are written, never ``x_1, x_2``); by 1 elsewhere (``c_0, c_0``)."""
    if len(block) < 2 or any(len(e.values) != len(block[0].values) for e in block):
        return ()
    out = []
    for s in range(len(block[0].values)):
        got = [e.values[s] for e in block]
        whole = all(isinstance(v, sympy.Integer) for v in got)
        out.append(len(block) if whole and sorted(got) == list(range(min(got), min(got) + len(block))) else 1)
    return tuple(out)


def _same_entry(seg: Segment, r: int, block: Any, e: Entry) -> bool:
    t = seg.templates[r]
    return all(
        (v == w) if isinstance(v, str) else _same(v + s * block, w) for v, s, w in zip(t.values, seg.steps[r], e.values)
    )


# --------------------------------------------------------------------------- constructs in the text


@dataclass
class Found:
    """A construct read as a pattern: ``kind`` vector (a column), row, diagonal (a block-diagonal matrix
    with ``block`` x ``block`` blocks), sum or product; ``segments``; ``span`` in the text."""

    kind: str
    segments: list[Segment]
    span: tuple[int, int]
    block: int = 1

    def size_names(self) -> set[str]:
        return {s.name for seg in self.segments for s in sympy.sympify(seg.last).free_symbols}

    def describe(self, index: str = "j") -> str:
        """The pattern in words: ``x_{j} for j = 0 … d - 1`` (each segment, block or term)."""
        j = sympy.Symbol(index)
        parts = []
        for seg in self.segments:
            entries = [seg.entry(r, j, checked=False) for r in range(seg.period)]
            if self.kind == "diagonal" and self.block == 2:
                body = f"[[{entries[0]}, {entries[1]}], [{entries[2]}, {entries[3]}]]"
            else:
                body = entries[0] if len(entries) == 1 else "(" + ", ".join(entries) + ")"
            parts.append(f"{body} for {index} = 0 … {sympy.latex(seg.last)}")
        what = {"diagonal": "block-diagonal, block", "sum": "the sum of", "product": "the product of"}.get(
            self.kind, ""
        )
        return (what + " " if what else "") + ", then ".join(parts)


def _split_cells(body: str, sep: str) -> list[str]:
    """``body`` cut at ``sep`` outside brackets and nested environments (as matrices are read)."""
    return [part.text for part in split_top(Src.of(body), sep, ((r"\begin{", r"\end{"),))]


def _is_dots(cell: str) -> bool:
    return _ONLY_DOTS.match(cell) is not None and bool(cell.strip())


def _segments(entries: list[str]) -> list[Segment] | None:
    """The segments of a list of entries with dots between them (one reading of every split, or None)."""
    groups: list[list[str]] = [[]]
    for e in entries:
        if _is_dots(e):
            groups.append([])
        else:
            groups[-1].append(e)
    if len(groups) < 2 or any(not g for g in groups):
        return None
    return _split_groups(groups) or (_prefixed(groups) if len(groups) == 2 else None)


def _prefixed(groups: list[list[str]]) -> list[Segment] | None:
    """``(c_m, c_1, c_2, c_2, \\vdots, c_{d/2}, c_{d/2})``: the first block fits no pattern with the others, which
    do fit one, though its subscripts are the pattern's (``c_1, c_1`` one block before ``c_2, c_2``) -- a slip in
    what is not a subscript (``\\cos m\\theta_1`` for ``\\cos t\\theta_1``). Read as that block as written, then the
    pattern: every subscript shown follows it, so the dots are filled as for any pattern. A statement about such
    a vector is decided only at written-out sizes (never for every size: :func:`_generic` refuses it), so a slip
    in a written entry is refuted. None where no such reading, or more than one, fits."""
    readings = []
    for k in (1, 2):
        head, rest = groups[0][:k], groups[0][k:]
        entries = [_entry(t) for t in head]
        seg = _segment(rest, groups[1]) if rest else None
        if seg is None or seg.period != k or any(e is None for e in entries):
            continue
        if all(_subscripts_before(seg, r, e) for r, e in enumerate(entries)):  # type: ignore[arg-type]
            steps = tuple((0,) * len(e.values) for e in entries)  # type: ignore[union-attr]
            readings.append([Segment(tuple(entries), steps, 0, 1, prefix=True), seg])  # type: ignore[arg-type]
    return readings[0] if len(readings) == 1 else None


def _subscripts_before(seg: Segment, r: int, e: Entry) -> bool:
    """Whether the subscripts of ``e`` are those of entry r of the block before the pattern's first."""
    t = seg.templates[r]
    if len(e.values) != len(t.values):
        return False
    return all(
        (v == w) if isinstance(v, str) or isinstance(w, str) else _same(v - s, w)
        for v, s, w in zip(t.values, seg.steps[r], e.values)
    )


def _split_groups(groups: list[list[str]]) -> list[Segment] | None:
    if len(groups) == 2:
        seg = _segment(groups[0], groups[1])
        return [seg] if seg else None
    readings = []
    middle = groups[1]
    for k in range(1, len(middle)):
        first = _segment(groups[0], middle[:k])
        if first is None:
            continue
        rest = _split_groups([middle[k:], *groups[2:]])
        if rest is not None:
            readings.append([first, *rest])
    return readings[0] if len(readings) == 1 else None


def _matrix(text: str, start: int) -> Found | None:
    m = _ENV.match(text, start)
    if m is None:
        return None
    env = m.group(1)
    end = closing(text, start, "\\begin{" + env + "}", "\\end{" + env + "}")
    if end < 0:
        return None
    span = (start, end + len("\\end{" + env + "}"))
    # Markdown writes a row break as \\\ (an escaped backslash, then a control space): the space is no entry
    rows = [re.sub(r"^\s*\\(?=\s)", " ", r) for r in _split_cells(text[m.end() : end], "\\\\")]
    rows = [r for r in rows if r.strip()]
    grid = [_split_cells(r, "&") for r in rows]
    # a row closed by a stray & (``\\vdots & \\vdots & \\``) has an empty cell more than the others: nothing
    widths = {len(r) for r in grid if r[-1].strip()}
    grid = [r[:-1] if not r[-1].strip() and len(r) - 1 in widths else r for r in grid]
    # a row with fewer cells than the others ends in blank ones, as LaTeX sets it (``& R_1 & \\`` beside ``& & & R_2``)
    width = max((len(r) for r in grid), default=0)
    grid = [r + [""] * (width - len(r)) for r in grid]
    if all(len(r) == 1 for r in grid):
        segs = _segments([r[0] for r in grid])
        return Found("vector", segs, span) if segs else None
    if len(grid) == 1:
        segs = _segments(grid[0])
        return Found("row", segs, span) if segs else None
    return _block_diagonal(grid, span)


def _one_run(indices: list[int]) -> bool:
    """Whether ``indices`` are one run of neighbours (``[4]``, ``[4, 5]``)."""
    return bool(indices) and indices == list(range(indices[0], indices[0] + len(indices)))


def _block_diagonal(grid: list[list[str]], span: tuple[int, int]) -> Found | None:
    """RoFormer's matrix: one row of dots, one column of dots (or two side by side), blocks on the diagonal and 0
    elsewhere."""
    width = len(grid[0])
    if any(len(r) != width for r in grid):
        return None
    dot_rows = [i for i, r in enumerate(grid) if all(_is_dots(c) or not c.strip() for c in r)]
    dot_cols = [
        j
        for j in range(width)
        if all(_is_dots(r[j]) or not r[j].strip() for i, r in enumerate(grid) if i not in dot_rows)
    ]
    # the gap may be drawn twice (two rows of dots, two columns: one per block's row and column): one gap
    if not _one_run(dot_rows) or not _one_run(dot_cols):
        return None
    rows = [r for i, r in enumerate(grid) if i not in dot_rows]
    cells = [[c for j, c in enumerate(r) if j not in dot_cols] for r in rows]
    head_r, head_c = dot_rows[0], dot_cols[0]
    if head_r != head_c or len(cells) != len(cells[0]):
        return None
    n = len(cells)
    for block in (2, 1):
        if head_r % block or (n - head_r) % block or head_r < block:
            continue
        found = _diagonal_of(cells, head_r, block)
        if found is not None:
            return Found("diagonal", found, span, block=block)
    return None


#: a zero off the diagonal, plain or set bold as the zero block (``\boldsymbol{0}``, ``\mathbf 0``, ``\bm{0}``)
_ZERO_CELL = re.compile(
    r"^\s*(?:(?:\\(?:boldsymbol|mathbf|bm|pmb)\s*)?\{\s*0\s*\}|(?:\\(?:boldsymbol|mathbf|bm|pmb)\s*)?0)?\s*$"
)


def _zero_cell(cell: str) -> bool:
    """Whether an entry off the diagonal is empty or zero (a zero number, or the zero block set bold)."""
    return _ZERO_CELL.match(cell) is not None


def _diagonal_of(cells: list[list[str]], head: int, block: int) -> list[Segment] | None:
    """The blocks on the diagonal as one segment of ``block``**2 entries per block (row by row)."""
    n = len(cells)
    starts = list(range(0, head, block)) + list(range(head, n, block))
    inside = {(s + a, s + b) for s in starts for a in range(block) for b in range(block)}
    for i in range(n):
        for j in range(n):
            if (i, j) not in inside and not _zero_cell(cells[i][j]) and not _is_dots(cells[i][j]):
                return None
    flat = [[cells[s + a][s + b] for a in range(block) for b in range(block)] for s in starts]
    heads = [_entry(c) for s, cs in zip(starts, flat) if s < head for c in cs]
    tails = [_entry(c) for s, cs in zip(starts, flat) if s >= head for c in cs]
    if None in heads or None in tails:
        return None
    seg = _period(heads, tails, block * block)  # type: ignore[arg-type]
    return [seg] if seg is not None else None


_TRANSPOSED = re.compile(
    r"\s*\^\s*(?:T|\{\s*T\s*\}|\\top|\{\s*\\top\s*\}|\\intercal|\{\s*\\mathsf\s*\{?\s*T\s*\}?\s*\})"
)


def _enclosing(text: str, pos: int) -> tuple[int, int] | None:
    """The innermost ``(...)``/``[...]`` around ``pos``: the opener's and the closer's index."""
    depth = 0
    for i in range(pos - 1, -1, -1):
        ch = text[i]
        if ch in ")]}":
            depth += 1
        elif ch in "([{":
            if depth == 0:
                if ch == "{":
                    return None
                end = skip_group(text, i) - 1  # the closer's index; -2 when unclosed
                return (i, end) if end > pos else None
            depth -= 1
    return None


def _list(text: str, pos: int) -> Found | None:
    """``(x_0, x_1, \\ldots, x_{d-1})`` or ``[...]``: a column vector, with or without ^T."""
    around = _enclosing(text, pos)
    if around is None:
        return None
    a, b = around
    before = text[:a].rstrip()
    if before.endswith("\\left"):
        a = len(before) - len("\\left")
        before = text[:a].rstrip()
    elif before[-1:].isalnum() or before[-1:] in ("}", ")", "_", "^"):
        return None  # f(x_0, \ldots, x_n): arguments, not a vector
    inner = text[around[0] + 1 : b]
    if inner.rstrip().endswith("\\right"):
        inner = inner.rstrip()[: -len("\\right")]
    items = _split_cells(inner, ",")
    if len(items) < 3 or not any(_is_dots(x) for x in items):
        return None
    segs = _segments(items)
    if segs is None:
        return None
    end = b + 1
    t = _TRANSPOSED.match(text, end)
    if t:
        end = t.end()
    return Found("vector", segs, (a, end))


_SIZED_CLOSER = re.compile(r"\\(?:right|big|Big|bigg|Bigg)r?\s*$")


def _diag_list(text: str, pos: int) -> Found | None:
    """``\\operatorname{diag}(a_1, \\ldots, a_n)``, ``\\mathrm{blockdiag}\\big(R(m\\theta_1), \\dots\\big)``: a
    diagonal whose entries (numbers or blocks: the reader says which, :mod:`.diag_lists`) fit one pattern."""
    around = _enclosing(text, pos)
    if around is None:
        return None
    a, b = around
    head = diag_word_before(text, a)
    if head is None:
        return None
    items = _split_cells(_SIZED_CLOSER.sub("", text[a + 1 : b]), ",")
    if len(items) < 3 or not any(_is_dots(x) for x in items):
        return None
    segs = _segments(items)
    return Found("diagonal", segs, (head, b + 1)) if segs else None


_BREAK = re.compile(r"=|&|\\\\|,|;|<|>|\\(?:le|ge|leq|geq|approx|quad|qquad|neq|ne|sim)(?![A-Za-z])")
_FACTOR = re.compile(r"(?:\\[A-Za-z]+|[A-Za-z])\s*(?:_\{[^{}]*\}|_[A-Za-z0-9])(?:\s*\^\{[^{}]*\}|\s*\^[A-Za-z0-9])?")


def _terms(text: str, lo: int, hi: int) -> list[tuple[int, int, str]]:
    """The top-level terms of ``text[lo:hi]`` with the sign before each ('+', '-', or '' after a break)."""
    out: list[tuple[int, int, str]] = []
    depth, start, sign, i = 0, lo, "", lo
    while i < hi:
        ch = text[i]
        if ch == "\\" and text.startswith(("\\{", "\\}"), i):
            i += 2
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and ch in "+-" and text[start:i].strip():
            out.append((start, i, sign))
            start, sign = i + 1, ch
        elif depth == 0 and (m := _BREAK.match(text, i)):
            if text[start:i].strip():
                out.append((start, i, sign))
            start, sign, i = m.end(), "", m.end()
            continue
        i += 1
    if text[start:hi].strip():
        out.append((start, hi, sign))
    return out


def _sum(text: str, pos: int, end: int) -> Found | None:
    """``a_0 + a_1 + \\cdots + a_n``: the terms around the dots, all added."""
    around = _enclosing(text, pos)
    lo, hi = (around[0] + 1, around[1]) if around else (0, len(text))
    terms = _terms(text, lo, hi)
    at = next((k for k, (a, b, _) in enumerate(terms) if a <= pos < b), None)
    if at is None or text[terms[at][0] : terms[at][1]].strip() != text[pos:end] or at == 0 or at + 1 >= len(terms):
        return None
    if terms[at][2] != "+" or terms[at + 1][2] != "+":
        return None
    first = at - 1  # the terms added before the dots, back to a break or a subtraction
    while first - 1 >= 0 and terms[first][2] == "+":
        first -= 1
    stop = at + 1  # and after them
    while stop + 1 < len(terms) and terms[stop + 1][2] == "+":
        stop += 1
    seg, k, t = None, 0, 0
    for k in range(first, at):  # the longest run of terms before, then after, that reads as one pattern
        if terms[k][2] == "-":
            continue
        for t in range(stop, at, -1):
            seg = _segment([text[a:b] for a, b, _ in terms[k:at]], [text[a:b] for a, b, _ in terms[at + 1 : t + 1]])
            if seg is not None:
                break
        if seg is not None:
            break
    if seg is None:
        return None
    span = (terms[k][0], terms[t][1])
    return Found("sum", [seg], span)


def _product(text: str, pos: int, end: int) -> Found | None:
    """``\\mu_1 \\mu_2 \\cdots \\mu_{D/2}``: subscripted factors around the dots, multiplied."""
    heads: list[tuple[int, int]] = []
    i = pos
    while True:
        left = re.search(r"(" + _FACTOR.pattern + r")\s*(?:\\cdot|\\times)?\s*$", text[:i])
        if not left:
            break
        heads.insert(0, (left.start(1), left.end(1)))
        i = left.start(1)
    tails: list[tuple[int, int]] = []
    j = end
    while True:
        right = re.compile(r"\s*(?:\\cdot|\\times)?\s*(" + _FACTOR.pattern + r")").match(text, j)
        if not right or (tails and text[j : right.start(1)].strip() not in ("", "\\cdot", "\\times")):
            break
        tails.append((right.start(1), right.end(1)))
        j = right.end(1)
        if not re.match(r"\s*(?:\\cdot|\\times)?\s*[\\A-Za-z]", text[j:]):
            break
    if not heads or not tails:
        return None
    seg = _segment([text[a:b] for a, b in heads], [text[a:b] for a, b in tails])
    if seg is None or seg.period != 1:
        return None
    span = (heads[0][0], tails[-1][1])
    return Found("product", [seg], span)


def _matrix_around(text: str, pos: int) -> int | None:
    """The start of the innermost matrix environment around ``pos``."""
    best = None
    for m in _ENV.finditer(text, 0, pos):
        end = closing(text, m.start(), "\\begin{" + m.group(1) + "}", "\\end{" + m.group(1) + "}")
        if end > pos:
            best = m.start()
    return best


def find_patterns(text: str) -> tuple[list[Found], list[int]]:
    """Every construct with dots read as a pattern, in order, and the offsets of dots left unread."""
    found: list[Found] = []
    unread: list[int] = []
    for m in _DOT.finditer(text):
        if any(f.span[0] <= m.start() < f.span[1] for f in found):
            continue
        start = _matrix_around(text, m.start())
        if start is not None:
            f = _matrix(text, start)
        else:
            f = _diag_list(text, m.start()) or _list(text, m.start())
            f = f or _sum(text, m.start(), m.end()) or _product(text, m.start(), m.end())
        if f is None or any(f.span[0] < g.span[1] and g.span[0] < f.span[1] for g in found):
            unread.append(m.start())
        else:
            found.append(f)
    return sorted(found, key=lambda f: f.span[0]), unread


# --------------------------------------------------------------------------- writing a pattern out


def _concrete(f: Found, size: dict[sympy.Symbol, int]) -> str | None:
    """Every entry, with the size names set; None where the size does not fit the pattern."""
    entries: list[list[str]] = []
    for seg in f.segments:
        if seg.prefix:  # entries kept as written
            entries.append([t.text for t in seg.templates])
            continue
        last = sympy.sympify(seg.last).subs(size)
        if not last.is_Integer or last + 1 < seg.shown:
            return None
        block = []
        for j in range(int(last) + 1):
            row = []
            for r, t in enumerate(seg.templates):
                values = [v if isinstance(v, str) else sympy.sympify(v + s * j).subs(size)
                          for v, s in zip(t.values, seg.steps[r])]  # fmt: skip
                # a subscript that moves must land on whole numbers; one that stays (``q_m``) stays as written
                if any(not isinstance(v, str) and not v.is_Integer and (s != 0 or v.free_symbols & set(size))
                       for v, s in zip(values, seg.steps[r])):  # fmt: skip
                    return None
                row.append(t.at(values))
            block.append(row)
        entries.extend(block)
    return _write(f, entries)


def _write(f: Found, blocks: list[list[str]]) -> str:
    """A construct from its blocks' entries."""
    if f.kind == "sum":
        return r"\left(" + " + ".join(r"\left(" + " + ".join(b) + r"\right)" for b in blocks) + r"\right)"
    if f.kind == "product":
        return r"\left(" + r" \cdot ".join(e for b in blocks for e in b) + r"\right)"
    if f.kind == "diagonal" and f.block == 1:  # numbers or blocks, as the reader reads each entry
        return write_diagonal([e for b in blocks for e in b])
    if f.kind == "diagonal":
        k = f.block
        n = k * len(blocks)
        rows = [["0"] * n for _ in range(n)]
        for j, b in enumerate(blocks):
            for a in range(k):
                for c in range(k):
                    rows[j * k + a][j * k + c] = b[a * k + c]
        return r"\begin{pmatrix} " + r" \\ ".join(" & ".join(r) for r in rows) + r" \end{pmatrix}"
    flat = [e for b in blocks for e in b]
    sep = " & " if f.kind == "row" else r" \\ "
    return r"\begin{pmatrix} " + sep.join(flat) + r" \end{pmatrix}"


def _generic(f: Found, layout: str, j: sympy.Symbol) -> str | None:
    """The entries of block ``j`` in ``layout`` (see :data:`LAYOUTS`); None where the pattern does not fit it."""
    segs = f.segments
    if any(seg.prefix for seg in segs):
        return None
    if f.kind in ("sum", "product"):
        seg = segs[0]
        term = " + ".join(seg.entry(r, j) for r in range(seg.period))
        op = r"\sum" if f.kind == "sum" else r"\prod"
        return rf"{op}_{{{j}=0}}^{{{sympy.latex(seg.last)}}} \left({term}\right)"
    seg = segs[0]
    if f.kind == "diagonal":
        if f.block == 2:
            return _write(f, [[seg.entry(r, j) for r in range(4)]]) if layout == "contiguous" else None
        cells = _window(seg, layout, j)
        return None if cells is None else write_diagonal_block(layout, cells, seg.at(j))
    if len(segs) == 2 and layout == "strided" and all(s.period == 1 for s in segs):
        if not _same(segs[0].last, segs[1].last):
            return None
        return _write(f, [[segs[0].at(j), segs[1].at(j)]])
    if len(segs) != 1:
        return None
    if seg.period == 2:
        return _write(f, [[seg.entry(0, j), seg.entry(1, j)]]) if layout == "contiguous" else None
    cells = _window(seg, layout, j)
    return None if cells is None else _write(f, [cells])


def _window(seg: Segment, layout: str, j: sympy.Symbol) -> list[str] | None:
    if seg.period != 1:
        return None
    if layout == "contiguous":
        return [seg.at(2 * j), seg.at(2 * j + 1)]
    if layout == "strided":
        return [seg.at(j), seg.at(j + (seg.last + 1) / 2)]
    return [seg.at(j), "0"]


def layouts_for(found: list[Found]) -> list[str]:
    """The layouts in which the patterns of a document are written as blocks: those some pattern needs."""
    need = []
    found = [f for f in found if not any(s.prefix for s in f.segments)]
    if any((f.kind == "diagonal" and f.block == 2) or any(s.period == 2 for s in f.segments) for f in found):
        need.append("contiguous")
    if any(len(f.segments) == 2 for f in found):
        need.append("strided")
    need = need or ["single"]
    # a diagonal of one entry per block may hold 2x2 blocks (as the reader finds): read by pairs of neighbours too
    if any(f.kind == "diagonal" and f.block == 1 for f in found) and "contiguous" not in need:
        need.append("contiguous")
    return need


def expand(
    text: str, found: list[Found], *, size: dict[sympy.Symbol, int] | None = None, layout: str = "", index: str = "j"
) -> str:
    """``text`` with each pattern in ``found`` written out: at ``size`` (every entry), else as block ``index``
    in ``layout``. A pattern that does not fit stays as written. The text keeps its number of lines."""
    j = sympy.Symbol(index)
    out = text
    for f in sorted(found, key=lambda f: -f.span[0]):
        try:
            new = _concrete(f, size) if size is not None else _generic(f, layout, j)
        except _NoLabel:
            new = None
        if new is None:
            continue
        a, b = f.span
        out = out[:a] + new + "\n" * out[a:b].count("\n") + out[b:]
    return out


def concrete_sizes(
    found: list[Found], relations: dict[sympy.Symbol, sympy.Expr] | None = None, *, apart: bool = False
) -> list[dict[sympy.Symbol, int]]:
    """Two sizes at which every pattern can be written out (a size name set to 8, 12, 16 or 24), or none.

    Patterns in two size names are written out only where ``relations`` (what the document defines: ``d = 2k``)
    gives the other name from the first, as a positive whole number; with ``apart``, a name no relation gives is
    set to a number of its own, larger than the first's (the caller then refutes nothing: the text may relate
    them in words)."""
    names = {s for f in found for seg in f.segments for s in sympy.sympify(seg.last).free_symbols}
    if not names:
        return [{}]
    fits = []
    for name in sorted(names, key=str):
        for n in _SIZES:
            size = _related_size(name, n, names, relations or {}, apart=apart)
            if size is not None and all(_written_at(f, size) for f in found):
                fits.append(size)
        if fits:
            return fits[:2]
    return []


def _written_at(f: Found, size: dict[sympy.Symbol, int]) -> bool:
    try:
        return _concrete(f, size) is not None
    except _NoLabel:
        return False


def _related_size(
    name: sympy.Symbol,
    n: int,
    names: set[sympy.Symbol],
    relations: dict[sympy.Symbol, sympy.Expr],
    *,
    apart: bool = False,
) -> dict[sympy.Symbol, int] | None:
    """``name`` set to ``n`` and every other size name to the value a relation gives it; None where one has none
    (or one larger than the sizes tried: every entry is written out). With ``apart``, a name that no relation ties
    to any size name is set to a size of its own, 4 more than the last one set (``n + 4``, ``n + 8``, ...): never
    the same as another's, so that a step equating a thing of one size with a thing of another is not proved where
    the two happen to agree."""
    size = {name: n}
    for other in sorted(names - {name}, key=str):
        if other in relations and relations[other].free_symbols == {name}:
            value = relations[other].subs(name, n)
        elif name in relations and relations[name].free_symbols == {other}:
            roots = sympy.solve(sympy.Eq(relations[name], n), other)
            value = roots[0] if len(roots) == 1 else None
        elif apart and not any(other in r.free_symbols or k == other for k, r in relations.items()):
            value = sympy.Integer(max(size.values()) + 4)
        else:
            return None
        if value is None or not value.is_Integer or not 0 < value <= max(_SIZES):  # as small as the sizes tried
            return None
        size[other] = int(value)
    return size
