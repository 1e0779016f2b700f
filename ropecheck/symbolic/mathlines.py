"""Equations broken over lines so nothing runs off a phone's or a laptop's screen.

A proof step ``lhs = rhs`` is typeset as an aligned chain

    lhs = term_1 + term_2
        + term_3 - term_4

The expression is cut into *chunks* -- pieces of LaTeX between which a line may break -- from
the top down: a sum breaks before its terms, a product of long factors between its factors
(each long factor in ``\\Big( ... \\Big)`` so it may itself break), a long ``\\sum`` or
``\\cos`` around its body; a block-diagonal matrix prints as ``diag(B_0, B_1, ...)`` and any
other wide matrix breaks inside its cells. Chunks fill lines greedily up to a width given in
*rendered* characters (see :func:`visual_length`).

The lines are LaTeX, each complete on its own, so one layout serves every format:
``\\begin{aligned}`` for Markdown and the LaTeX document, and a MathML ``<mtable>`` whose rows
latex2mathml converts, for the HTML report.

Design constraints: pure functions; terms print in SymPy's own order (the order
``sympy.latex`` uses for the whole side), so a broken equation reads as the unbroken one.
"""

from __future__ import annotations

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
    "equation_rows",
    "expression_lines",
    "latex_to_mathml",
    "list_rows",
    "rows_from_latex",
    "rows_latex",
    "rows_mathml",
    "visual_length",
]

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
        chunks = [_chunk(sympy.latex(b)) for b in blocks]
        chunks = [_suffixed([c], ",")[0] for c in chunks[:-1]] + chunks[-1:]
        return _bracketed(r"\operatorname{diag}\Big(", chunks, r"\Big)")
    cell_width = max(12, (width - 2 * m.cols) // max(m.cols, 1))
    rows, column_widths = [], [0] * m.cols
    for i in range(m.rows):
        cells = []
        for j in range(m.cols):
            lines = _fill(_pieces(m[i, j], cell_width), cell_width)
            sizes = [sum(c.width + 1 for c in line) + (2 if k else 0) for k, line in enumerate(lines)]
            column_widths[j] = max(column_widths[j], *sizes)
            texts = [" ".join(c.tex for c in line) for line in lines]
            if len(texts) == 1:
                cells.append(texts[0])
            else:
                body = " \\\\ ".join([texts[0], *(_INDENT + t for t in texts[1:])])
                cells.append(f"\\begin{{array}}{{l}} {body} \\end{{array}}")
        rows.append(" & ".join(cells))
    tex = r"\left[\begin{matrix}" + r" \\ ".join(rows) + r"\end{matrix}\right]"
    return [_Chunk(tex, sum(column_widths) + 2 * m.cols)]  # column gaps and brackets


def _pieces(expr: Any, width: int, depth: int = 0) -> list[_Chunk]:
    """``expr`` cut into chunks, each at most ``width`` wide where a cut exists."""
    tex = sympy.latex(expr)
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
        prefix = "".join(
            rf"\sum_{{{sympy.latex(i)}={sympy.latex(a)}}}^{{{sympy.latex(b)}}} " for i, a, b in expr.limits
        )
        room = max(width - visual_length(prefix) - 1, 8)
        return _bracketed(prefix + r"\Big(", _pieces(expr.function, room, depth + 1), r"\Big)")
    if expr.is_Pow and expr.exp.is_Integer and expr.exp > 0 and expr.base.is_Add:
        return _bracketed(r"\Big(", _pieces(expr.base, inner, depth + 1), rf"\Big)^{{{sympy.latex(expr.exp)}}}")
    if isinstance(expr, sympy.Abs):
        return _bracketed(r"\Big|", _pieces(expr.args[0], inner, depth + 1), r"\Big|")
    if isinstance(expr, (sympy.cos, sympy.sin, sympy.exp)):
        name = {sympy.cos: r"\cos", sympy.sin: r"\sin", sympy.exp: r"\exp"}[type(expr)]
        return _bracketed(rf"{name}\Big(", _pieces(expr.args[0], max(width - 5, 8), depth + 1), r"\Big)")
    return [_chunk(tex)]


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
    lhs_tex, rhs_tex = sympy.latex(lhs), sympy.latex(rhs)
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
