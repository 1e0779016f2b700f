"""Equations broken over lines so nothing runs off a phone's or a laptop's screen.

A proof step ``lhs = rhs`` is typeset as an aligned chain

    lhs = term_1 + term_2
        + term_3 - term_4

The expression is cut into *chunks* -- pieces of LaTeX between which a line may break -- from
the top down: a sum breaks before its terms, a product of long factors between its factors
(each long factor in ``\\Big( ... \\Big)`` so it may itself break), a long ``\\sum`` around
its body. A line never breaks inside a function's argument (``\\cos(...)`` is one chunk) or
inside a matrix cell: a block-diagonal matrix prints as ``diag(B_0, B_1, ...)`` (a break
between blocks), and an equation whose matrix is too wide for the line is shown entry by entry.
Chunks fill lines greedily up to a width given in *rendered* characters (see
:func:`visual_length`); :func:`break_violations` checks a typeset display for breaks in the
wrong place.

A formula written by hand in LaTeX (a statement's display, a note's chain of inequalities, long
inline math) is cut the same way at its top level -- at its relations, then before its binary
operators, never inside a group, a bracket pair or an environment (:func:`formula_rows`,
:func:`inline_pieces`): a browser does not wrap MathML, so long inline math becomes several
inline pieces with a break opportunity between them, as TeX breaks inline math.

The lines are LaTeX, each complete on its own, so one layout serves every format:
``\\begin{aligned}`` for Markdown and the LaTeX document, and a MathML ``<mtable>`` whose rows
latex2mathml converts, for the HTML report.

Design constraints: pure functions; terms print in SymPy's own order (the order
``sympy.latex`` uses for the whole side), so a broken equation reads as the unbroken one.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

import latex2mathml.converter
import sympy

__all__ = [
    "LINE_WIDTH",
    "Rows",
    "aligned_latex",
    "aligned_mathml",
    "break_violations",
    "equation_rows",
    "expression_lines",
    "formula_rows",
    "inline_mathml",
    "inline_pieces",
    "latex_of",
    "latex_to_mathml",
    "list_rows",
    "rows_from_latex",
    "rows_latex",
    "rows_mathml",
    "visual_length",
]


def latex_of(expr: Any) -> str:
    """``sympy.latex(expr)``, printed once per expression: a page prints the same sides and their parts many times
    (in Markdown, MathML and LaTeX, and once more for each cut of a side too long for a line). Expressions that
    compare equal are the same tree, so they print alike; the type is part of the key (``True`` is not ``1``).

    Example:
        >>> x = sympy.Symbol("x")
        >>> print(latex_of(x**2 / 2), latex_of(sympy.Matrix([[x]])))
        \\frac{x^{2}}{2} \\left[\\begin{matrix}x\\end{matrix}\\right]
    """
    try:
        return _latex_once(f"{type(expr).__module__}.{type(expr).__qualname__}", expr)
    except TypeError:  # unhashable (a mutable matrix): printed each time
        return sympy.latex(expr)


@functools.lru_cache(maxsize=1 << 14)
def _latex_once(kind: str, expr: Any) -> str:
    return sympy.latex(expr)


#: Rendered characters per line: fits a 390 px screen at the report's font size.
LINE_WIDTH = 34

_RELATION_TEX = {"==": "=", "<=": r"\le"}
_INDENT = r"\quad "

_NAMED = r"cos|sin|tan|exp|log|max|min|Re|Im|det|diag"


def _group(tex: str, start: int) -> int:
    """The index just past the brace group that opens at ``tex[start] == "{"``."""
    level, i = 0, start
    while i < len(tex):
        level += {"{": 1, "}": -1}.get(tex[i], 0)
        i += 1
        if level == 0:
            break
    return i


def visual_length(tex: str) -> int:
    """An estimate of how many characters ``tex`` renders to.

    Named functions count their letters, other commands (``\\theta``, ``\\sum``) one glyph,
    sizing commands and braces nothing, and a binary operator three (it is spaced on both sides).
    Sub- and superscripts count two thirds (they are set smaller); a fraction is as wide as the
    wider of its numerator and denominator.
    """
    k = tex.find("\\frac{")
    if k >= 0:
        mid = _group(tex, k + 5)
        end = _group(tex, mid)
        width = max(visual_length(tex[k + 6 : mid - 1]), visual_length(tex[mid + 1 : end - 1]))
        return visual_length(tex[:k]) + width + visual_length(tex[end:])
    tex = re.sub(r"\\(left|right|big|Big|bigg|Bigg|quad|qquad|operatorname|mathrm|text)\b", "", tex)
    tex = re.sub(r"\\[,;!]", "", tex)
    tex = re.sub(rf"\\({_NAMED})\b", lambda m: m.group(1), tex)
    tex = re.sub(r"\\[A-Za-z]+", "x", tex)
    scripts = sum(len(s) for s in re.findall(r"[_^]\{([^{}]*)\}", tex))
    tex = re.sub(r"[{}^_]", "", tex).replace(" ", "")
    operators = len(re.findall(r"[+=<>-]", tex))
    return len(tex) + 2 * operators - scripts // 3


@dataclass(frozen=True)
class _Chunk:
    """A piece of LaTeX between two places a line may break."""

    tex: str
    width: int


def _chunk(tex: str) -> _Chunk:
    return _Chunk(tex, visual_length(tex))


def _prefixed(prefix: str, chunks: list[_Chunk]) -> list[_Chunk]:
    return [_chunk(f"{prefix}{chunks[0].tex}"), *chunks[1:]] if prefix else chunks


def _suffixed(chunks: list[_Chunk], suffix: str) -> list[_Chunk]:
    return [*chunks[:-1], _chunk(f"{chunks[-1].tex}{suffix}")]


def _bracketed(open_: str, chunks: list[_Chunk], close: str) -> list[_Chunk]:
    return _suffixed(_prefixed(open_, chunks), close)


def _signed(term: Any) -> tuple[str, Any]:
    """('+' or '-', the term's magnitude) for printing a continuation."""
    coeff, _ = term.as_coeff_Mul()
    return ("-", -term) if coeff.is_negative else ("+", term)


def _block_diagonal(m: Any) -> list[Any] | None:
    """The 2x2 blocks of a block-diagonal matrix of size at least 4, else None."""
    if m.rows != m.cols or m.rows < 4 or m.rows % 2:
        return None
    blocks = []
    for i in range(0, m.rows, 2):
        for j in range(0, m.cols, 2):
            if i != j and any(m[i + a, j + b] != 0 for a in (0, 1) for b in (0, 1)):
                return None
        blocks.append(m[i : i + 2, i : i + 2])
    return blocks


def _matrix_chunks(m: Any, width: int) -> list[_Chunk]:
    blocks = _block_diagonal(m)
    if blocks is not None:
        chunks = [_chunk(latex_of(b)) for b in blocks]
        chunks = [_suffixed([c], ",")[0] for c in chunks[:-1]] + chunks[-1:]
        return _bracketed(r"\operatorname{diag}\Big(", chunks, r"\Big)")
    # a cell is never broken: the matrix is one chunk as wide as its widest cells (an equation
    # too wide for the line is then shown entry by entry, see equation_rows)
    column_widths = [max(visual_length(latex_of(m[i, j])) for i in range(m.rows)) for j in range(m.cols)]
    return [_Chunk(latex_of(m), sum(column_widths) + 2 * m.cols)]  # column gaps and brackets


def _pieces(expr: Any, width: int, depth: int = 0) -> list[_Chunk]:
    """``expr`` cut into chunks, each at most ``width`` wide where a cut exists."""
    tex = latex_of(expr)
    if (visual_length(tex) <= width and not isinstance(expr, sympy.MatrixBase)) or depth > 12:
        return [_chunk(tex)]
    inner = max(width - 2, 8)
    if isinstance(expr, sympy.MatrixBase):
        if visual_length(tex) <= width:
            return [_chunk(tex)]
        return _matrix_chunks(expr, width)
    if expr.is_Add:
        terms = list(expr.as_ordered_terms())
        out = _pieces(terms[0], width, depth + 1)
        for t in terms[1:]:
            sign, mag = _signed(t)
            out += _prefixed(f"{sign} ", _pieces(mag, inner, depth + 1))
        return out
    numerator, denominator = sympy.fraction(expr) if expr.is_Mul else (expr, sympy.S.One)
    if denominator != 1 and not denominator.is_Number:
        return _bracketed(r"\Big(", _pieces(numerator, inner, depth + 1), r"\Big)") + _bracketed(
            r"\Big/ \Big(", _pieces(denominator, inner, depth + 1), r"\Big)"
        )
    if expr.is_Mul:
        factors = list(expr.as_ordered_factors())
        sign = ""
        if factors[0] == -1:
            sign, factors = "- ", factors[1:]
        out = []
        for f in factors:
            if f.is_Add:
                part = _pieces(f, inner, depth + 1)
                if len(part) == 1:
                    out.append(_chunk(rf"\left({part[0].tex}\right)"))
                else:
                    out += _bracketed(r"\Big(", part, r"\Big)")
            else:
                out += _pieces(f, width, depth + 1)
        return _prefixed(sign, out)
    if isinstance(expr, sympy.Sum):
        prefix = "".join(rf"\sum_{{{latex_of(i)}={latex_of(a)}}}^{{{latex_of(b)}}} " for i, a, b in expr.limits)
        room = max(width - visual_length(prefix) - 1, 8)
        return _bracketed(prefix + r"\Big(", _pieces(expr.function, room, depth + 1), r"\Big)")
    if expr.is_Pow and expr.exp.is_Integer and expr.exp > 0 and expr.base.is_Add:
        return _bracketed(r"\Big(", _pieces(expr.base, inner, depth + 1), rf"\Big)^{{{latex_of(expr.exp)}}}")
    if isinstance(expr, sympy.Abs):
        return _bracketed(r"\Big|", _pieces(expr.args[0], inner, depth + 1), r"\Big|")
    return [_chunk(tex)]  # a function application and its argument stay on one line


def _fill(chunks: list[_Chunk], width: int) -> list[list[_Chunk]]:
    """Chunks packed greedily into lines; continuation lines are indented (two characters narrower)."""
    lines: list[list[_Chunk]] = [[]]
    used = 0
    for c in chunks:
        room = width if len(lines) == 1 else width - 2
        if lines[-1] and used + c.width > room:
            lines.append([])
            used = 0
        lines[-1].append(c)
        used += c.width + 1
    return lines


def expression_lines(expr: Any, width: int = LINE_WIDTH) -> list[str]:
    """``expr`` as lines of LaTeX, each at most ``width`` rendered characters where a break exists."""
    return [" ".join(c.tex for c in line) for line in _fill(_pieces(expr, width), width)]


Rows = list[tuple[str, str]]


def equation_rows(lhs: Any, relation: str, rhs: Any, *, width: int = LINE_WIDTH) -> Rows:
    """``lhs = rhs`` as (relation column, LaTeX line) rows: one row when it fits ``width``."""
    rel = _RELATION_TEX.get(relation, relation)
    lhs_tex, rhs_tex = latex_of(lhs), latex_of(rhs)
    matrices = isinstance(lhs, sympy.MatrixBase) or isinstance(rhs, sympy.MatrixBase)
    if matrices and (_too_wide(lhs, width) or _too_wide(rhs, width - 2)):
        return _entry_rows(lhs, rel, rhs, width)
    if visual_length(lhs_tex) + 3 + visual_length(rhs_tex) <= width and not matrices:
        return [("", f"{lhs_tex} {rel} {rhs_tex}")]
    left, right = expression_lines(lhs, width), expression_lines(rhs, width - 2)
    if len(left) == 1 and len(right) == 1 and visual_length(left[0]) + 3 + visual_length(right[0]) <= width:
        return [("", f"{left[0]} {rel} {right[0]}")]
    rows = [("", left[0])] + [("", _INDENT + line) for line in left[1:]]
    rows += [(rel, right[0])] + [("", _INDENT + line) for line in right[1:]]
    return rows


def _too_wide(m: Any, width: int) -> bool:
    """A matrix that cannot be set within ``width`` even with its cells broken."""
    return isinstance(m, sympy.MatrixBase) and any(c.width > width for c in _pieces(m, width))


def _entry_rows(lhs: Any, rel: str, rhs: Any, width: int) -> Rows:
    """A matrix equation too wide for the page, entry by entry (entries that are 0 on both sides left out)."""
    rows: Rows = []
    skipped = 0
    for i in range(lhs.rows):
        for j in range(lhs.cols):
            a, b = lhs[i, j], rhs[i, j]
            if a == 0 and b == 0:
                skipped += 1
                continue
            rows.append(("", rf"\text{{entry }} ({i + 1}, {j + 1})\text{{:}}"))
            rows += [(r, _INDENT + line if not r else line) for r, line in equation_rows(a, rel, b, width=width - 2)]
    if skipped:
        rows.append(("", rf"\text{{the other {skipped} entries: }} 0 {rel} 0"))
    return rows


def list_rows(items: list[str], *, width: int = LINE_WIDTH, separator: str = r",\quad ") -> Rows:
    """Short LaTeX items (``x = 3``) packed into rows of at most ``width``."""
    rows: list[list[str]] = [[]]
    used = 0
    for item in items:
        size = visual_length(item) + 2
        if rows[-1] and used + size > width:
            rows.append([])
            used = 0
        rows[-1].append(item)
        used += size
    return [("", separator.join(row)) for row in rows if row]


def rows_latex(rows: Rows) -> str:
    """Rows as LaTeX: the line itself when there is one, else ``\\begin{aligned}``."""
    if len(rows) == 1 and not rows[0][0]:
        return rows[0][1]
    body = " \\\\\n".join(f"{rel} {{}} & {content}" if rel else f"& {content}" for rel, content in rows)
    return "\\begin{aligned}\n" + body + "\n\\end{aligned}"


def rows_from_latex(tex: str) -> Rows:
    """The rows :func:`rows_latex` wrote (a single line, or its ``aligned`` block), read back."""
    tex = tex.strip()
    if not tex.startswith("\\begin{aligned}"):
        return [("", tex)]
    body = tex[len("\\begin{aligned}") : tex.rindex("\\end{aligned}")].strip()
    rows: Rows = []
    for row in re.split(r"\s*\\\\\n", body):
        rel, _, content = row.strip().partition("&")
        rows.append((rel.replace("{}", "").strip(), content.strip()))
    return rows


def rows_mathml(rows: Rows) -> str:
    """Rows as block MathML: one row, or an ``<mtable>`` of rows (latex2mathml converts each)."""
    if len(rows) == 1 and not rows[0][0]:
        return latex_to_mathml(rows[0][1])
    cells = []
    for rel, content in rows:
        tex = f"{rel} {content}" if rel else content
        cells.append(f'<mtr><mtd columnalign="left">{_inner_mathml(tex)}</mtd></mtr>')
    return f'<math display="block"><mtable columnalign="left">{"".join(cells)}</mtable></math>'


def aligned_latex(lhs: Any, relation: str, rhs: Any, *, width: int = LINE_WIDTH) -> str:
    """``lhs = rhs`` (or ``<=``): one line, or ``\\begin{aligned}`` with both sides broken at their terms."""
    return rows_latex(equation_rows(lhs, relation, rhs, width=width))


def latex_to_mathml(tex: str, *, display: bool = True) -> str:
    """LaTeX (one line, no alignment) as presentation MathML, as browsers render it (MathML Core)."""
    markup = latex2mathml.converter.convert(tex, display="block" if display else "inline")
    return markup.replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "")


def _inner_mathml(tex: str) -> str:
    markup = latex_to_mathml(tex)
    return markup[markup.index(">") + 1 : markup.rindex("</math>")]


def aligned_mathml(lhs: Any, relation: str, rhs: Any, *, width: int = LINE_WIDTH) -> str:
    """``lhs = rhs`` as MathML: one row, or an ``<mtable>`` of the lines :func:`aligned_latex` makes."""
    return rows_mathml(equation_rows(lhs, relation, rhs, width=width))


#: Where hand-written LaTeX may break (at the top level only): relations, then binary operators.
_TEX_RELATIONS = frozenset({"=", "<", ">", r"\le", r"\leq", r"\ge", r"\geq", r"\ne", r"\neq", r"\approx", r"\equiv"})
_TEX_SUMS = frozenset({"+", "-", r"\pm"})
_TEX_PRODUCTS = frozenset({r"\odot", r"\cdot", r"\times"})
_TEX_OPERATORS = _TEX_SUMS | _TEX_PRODUCTS
_TEX_OPEN = frozenset({"(", "[", "{", r"\{", r"\langle", r"\lfloor", r"\lceil", r"\begin"})
_TEX_CLOSE = frozenset({")", "]", "}", r"\}", r"\rangle", r"\rfloor", r"\rceil", r"\end"})
_TEX_SIZES = frozenset({r"\big", r"\Big", r"\bigg", r"\Bigg", r"\bigl", r"\Bigl", r"\bigr", r"\Bigr"})
_TEX_TOKENS = re.compile(r"\\[A-Za-z]+|\\.|\s+|.", re.S)


def _tex_cuts(tex: str) -> list[tuple[int, str]]:
    """Top-level places ``tex`` may break: (offset of the relation or operator, its kind "rel", "sum"
    for + and -, or "product" for a product sign such as ``\\odot``).

    Depth counts brace groups, brackets, ``\\left ... \\right`` and environments; a bare ``|``
    opens an absolute value or closes the one open. An operator right after a relation, an
    opening bracket, a comma or another operator is a sign, not a place to break.
    """
    stack: list[str] = []
    cuts: list[tuple[int, str]] = []
    side = ""  # "left" / "right" after \left / \right: the next delimiter opens / closes
    operand = False  # whether what precedes is an operand (so +/- is binary)
    for m in _TEX_TOKENS.finditer(tex):
        tok = m.group()
        if tok.isspace() or tok in _TEX_SIZES or tok in (r"\,", r"\;", r"\!", r"\ ", r"\quad", r"\qquad"):
            continue
        if tok in (r"\left", r"\right"):
            side = tok[1:]
            continue
        if tok in ("|", r"\|", r"\vert", r"\Vert", "."):
            if side == "left" or (not side and tok != "." and (not stack or stack[-1] != tok)):
                stack.append(tok)
                operand = False
            elif side == "right" or (stack and stack[-1] == tok):
                stack.pop() if stack else None
                operand = True
            side = ""
            continue
        side = ""
        if tok in _TEX_OPEN:
            stack.append(tok)
            operand = False
        elif tok in _TEX_CLOSE:
            if stack:
                stack.pop()
            operand = True
        elif not stack and tok in _TEX_RELATIONS:
            cuts.append((m.start(), "rel"))
            operand = False
        elif not stack and tok in _TEX_OPERATORS and operand:
            cuts.append((m.start(), "sum" if tok in _TEX_SUMS else "product"))
            operand = False
        else:
            operand = tok not in _TEX_OPERATORS and tok not in _TEX_RELATIONS and tok != ","
    return cuts


def _tex_split(tex: str, kinds: frozenset[str]) -> list[str]:
    """``tex`` cut before each top-level break of the given kinds; each piece after the first
    starts with its relation or operator."""
    starts = [0, *(at for at, kind in _tex_cuts(tex) if kind in kinds), len(tex)]
    return [tex[a:b].strip() for a, b in zip(starts, starts[1:]) if tex[a:b].strip()]


def _pack(pieces: list[str], width: int) -> list[str]:
    """Pieces joined greedily into lines of at most ``width`` rendered characters."""
    lines: list[str] = []
    for piece in pieces:
        if lines and visual_length(f"{lines[-1]} {piece}") <= width:
            lines[-1] = f"{lines[-1]} {piece}"
        else:
            lines.append(piece)
    return lines


def _tex_lines(tex: str, width: int, levels: tuple[str, ...]) -> list[str]:
    """``tex`` cut at its first level of breaks (say, relations), a piece still wider than
    ``width`` at the next level (then sums, then products), and packed into lines."""
    if visual_length(tex) <= width or not levels:
        return [tex]
    pieces = _tex_split(tex, frozenset(levels[:1]))
    return _pack([line for piece in pieces for line in _tex_lines(piece, width, levels[1:])], width)


def _relation_of(piece: str) -> tuple[str, str]:
    """(the relation a piece starts with, the rest)."""
    head = re.match(r"\\[A-Za-z]+|[=<>]", piece)
    assert head is not None and head.group() in _TEX_RELATIONS, piece
    return head.group(), piece[head.end() :].strip()


def formula_rows(tex: str, *, width: int = LINE_WIDTH) -> Rows:
    r"""A one-line formula written by hand, as (relation column, LaTeX line) rows of at most ``width``:
    broken at its top-level relations (``a = b \le c``), and a side still too wide before its
    top-level binary operators. One row when it fits, or when there is no place to break.

    Example:
        >>> formula_rows(r"|a + b| \le |a| + |b| = c", width=12)
        [('', '|a + b|'), ('\\le', '|a| + |b|'), ('=', 'c')]
    """
    tex = tex.strip()
    if visual_length(tex) <= width or tex.startswith("\\begin"):
        return [("", tex)]
    rows: Rows = []
    for k, side in enumerate(_tex_split(tex, frozenset({"rel"}))):
        rel, body = _relation_of(side) if k else ("", side)
        lines = _tex_lines(body, width - 2, ("sum", "product")) if body else [""]
        if rows and visual_length(f"{rows[-1][1]} {side}") + (3 if rows[-1][0] else 0) <= width:
            rows[-1] = (rows[-1][0], f"{rows[-1][1]} {side}")
            continue
        rows.append((rel, lines[0]))
        rows += [("", _INDENT + line) for line in lines[1:]]
    return rows


def inline_pieces(tex: str, *, width: int = LINE_WIDTH - 2) -> list[str]:
    """Inline math written by hand, cut at its top-level relations and binary operators into pieces
    of at most ``width`` rendered characters (one piece when it fits or cannot be cut)."""
    return _tex_lines(tex, width, ("rel", "sum", "product"))


def inline_mathml(tex: str, *, width: int = LINE_WIDTH - 2) -> str:
    """Inline math as MathML a browser can wrap: one ``<math>`` per piece of :func:`inline_pieces`,
    with a break opportunity (``<wbr>``) between them. A piece that starts with a binary operator
    marks it ``form="infix"``, so it is spaced as in the unbroken formula."""
    out = []
    for k, piece in enumerate(inline_pieces(tex, width=width)):
        markup = latex_to_mathml(piece, display=False)
        if k and _relation_or_operator(piece):
            markup = markup.replace("<mo>", '<mo form="infix">', 1)
        out.append(markup)
    return "<wbr>".join(out)


def _relation_or_operator(piece: str) -> bool:
    head = re.match(r"\\[A-Za-z]+|.", piece)
    return head is not None and (head.group() in _TEX_RELATIONS or head.group() in _TEX_OPERATORS)


_MATRIX_ENVS = frozenset({"matrix", "pmatrix", "bmatrix", "vmatrix", "Vmatrix", "smallmatrix", "array"})
_TOKEN = re.compile(
    r"\\begin\{(?P<begin>\w+\*?)\}(?:\{[^{}]*\})?|\\end\{(?P<end>\w+\*?)\}|(?P<row>\\\\)"
    r"|(?P<open>(?:\\(?:left|big|Big|bigg|Bigg)l?)?\(|\{)|(?P<close>(?:\\(?:right|big|Big|bigg|Bigg)r?)?\)|\})"
)
_FUNCTION_BEFORE = re.compile(rf"\\(?:{_NAMED}|operatorname\{{[^{{}}]*\}})\s*(?:\{{\s*)?$")


def break_violations(tex: str) -> list[str]:
    """Where a typeset display breaks a line in the wrong place: inside a function's argument, or
    inside a matrix cell (a cell set over several lines). Empty when every break is allowed.

    A break is a ``\\\\`` of the display's ``aligned`` (or ``gathered``) block; one inside a
    matrix separates its rows and is allowed only directly in the matrix, not in a cell's own
    environment.

    Example:
        >>> break_violations(r"\\begin{aligned} & \\cos\\Big(a \\\\ & + b\\Big) \\end{aligned}")
        ['line 1 ends inside the argument of \\\\cos']
    """
    stack: list[tuple[str, str]] = []  # ("env", name) | ("fn", name) | ("group", "")
    problems: list[str] = []
    line = 1
    for m in _TOKEN.finditer(tex):
        if m.group("begin"):
            stack.append(("env", m.group("begin")))
        elif m.group("end"):
            while stack and stack[-1] != ("env", m.group("end")):
                stack.pop()  # an unbalanced group closes with its environment
            if stack:
                stack.pop()
        elif m.group("open"):
            before = _FUNCTION_BEFORE.search(tex[: m.start()])
            if before and (m.group("open") != "{" or not tex[: m.start()].rstrip().endswith("}")):
                stack.append(("fn", before.group(0).strip().rstrip("{").strip()))
            else:
                stack.append(("group", ""))
        elif m.group("close"):
            if stack and stack[-1][0] != "env":
                stack.pop()
        else:
            envs = [i for i, (kind, _) in enumerate(stack) if kind == "env"]
            innermost = stack[envs[-1]][1] if envs else ""
            # only what is open inside the innermost environment: a matrix inside diag(...) may end its rows
            functions = [name for kind, name in stack[envs[-1] + 1 if envs else 0 :] if kind == "fn"]
            cells = [name for kind, name in stack[: envs[-1]] if kind == "env" and name in _MATRIX_ENVS] if envs else []
            between_arguments = tex[: m.start()].rstrip().endswith(",") and stack[-1] == ("fn", r"\operatorname{diag}")
            if innermost not in _MATRIX_ENVS:
                if functions and not between_arguments:  # diag(B_0, \\ B_1): a break between arguments
                    problems.append(f"line {line} ends inside the argument of {functions[-1]}")
                line += 1
            elif cells:
                problems.append(f"a cell of a {cells[-1]} is broken over lines ({innermost} inside it)")
            elif functions:
                problems.append(f"a matrix row ends inside the argument of {functions[-1]}")
    return problems
