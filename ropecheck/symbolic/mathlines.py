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
    "aligned_latex",
    "aligned_mathml",
    "expression_lines",
    "latex_to_mathml",
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
            column_widths[j] = max(column_widths[j], *(sum(c.width for c in line) for line in lines))
            texts = [" ".join(c.tex for c in line) for line in lines]
            if len(texts) == 1:
                cells.append(texts[0])
            else:
                body = " \\\\ ".join([texts[0], *(_INDENT + t for t in texts[1:])])
                cells.append(f"\\begin{{array}}{{l}} {body} \\end{{array}}")
        rows.append(" & ".join(cells))
    tex = r"\left[\begin{matrix}" + r" \\ ".join(rows) + r"\end{matrix}\right]"
    return [_Chunk(tex, sum(column_widths) + 2 * m.cols)]


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
        return _bracketed(prefix + r"\Big(", _pieces(expr.function, inner, depth + 1), r"\Big)")
    if expr.is_Pow and expr.exp.is_Integer and expr.exp > 0 and expr.base.is_Add:
        return _bracketed(r"\Big(", _pieces(expr.base, inner, depth + 1), rf"\Big)^{{{sympy.latex(expr.exp)}}}")
    if isinstance(expr, sympy.Abs):
        return _bracketed(r"\Big|", _pieces(expr.args[0], inner, depth + 1), r"\Big|")
    if isinstance(expr, (sympy.cos, sympy.sin, sympy.exp)):
        name = {sympy.cos: r"\cos", sympy.sin: r"\sin", sympy.exp: r"\exp"}[type(expr)]
        return _bracketed(rf"{name}\Big(", _pieces(expr.args[0], inner, depth + 1), r"\Big)")
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


def _rows(lhs: Any, relation: str, rhs: Any, width: int) -> list[tuple[str, str]] | None:
    """(relation column, content) rows; None when the whole equation fits one line."""
    rel = _RELATION_TEX[relation]
    lhs_tex, rhs_tex = sympy.latex(lhs), sympy.latex(rhs)
    one_line = not isinstance(lhs, sympy.MatrixBase) and not isinstance(rhs, sympy.MatrixBase)
    if visual_length(lhs_tex) + 3 + visual_length(rhs_tex) <= width and one_line:
        return None
    left, right = expression_lines(lhs, width), expression_lines(rhs, width - 2)
    if len(left) == 1 and len(right) == 1 and visual_length(left[0]) + 3 + visual_length(right[0]) <= width:
        return None
    rows = [("", left[0])] + [("", _INDENT + line) for line in left[1:]]
    rows += [(rel, right[0])] + [("", _INDENT + line) for line in right[1:]]
    return rows


def aligned_latex(lhs: Any, relation: str, rhs: Any, *, width: int = LINE_WIDTH) -> str:
    """``lhs = rhs`` (or ``<=``): one line, or ``\\begin{aligned}`` with both sides broken at their terms."""
    rows = _rows(lhs, relation, rhs, width)
    if rows is None:
        return f"{sympy.latex(lhs)} {_RELATION_TEX[relation]} {sympy.latex(rhs)}"
    body = " \\\\\n".join(f"{rel} {{}} & {content}" if rel else f"& {content}" for rel, content in rows)
    return "\\begin{aligned}\n" + body + "\n\\end{aligned}"


def latex_to_mathml(tex: str, *, display: bool = True) -> str:
    """LaTeX (one line, no alignment) as presentation MathML, as browsers render it (MathML Core)."""
    markup = latex2mathml.converter.convert(tex, display="block" if display else "inline")
    return markup.replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "")


def _inner_mathml(tex: str) -> str:
    markup = latex_to_mathml(tex)
    return markup[markup.index(">") + 1 : markup.rindex("</math>")]


def aligned_mathml(lhs: Any, relation: str, rhs: Any, *, width: int = LINE_WIDTH) -> str:
    """``lhs = rhs`` as MathML: one row, or an ``<mtable>`` of the lines :func:`aligned_latex` makes."""
    rows = _rows(lhs, relation, rhs, width)
    if rows is None:
        return latex_to_mathml(f"{sympy.latex(lhs)} {_RELATION_TEX[relation]} {sympy.latex(rhs)}")
    cells = []
    for rel, content in rows:
        tex = f"{rel} {content}" if rel else content
        cells.append(f'<mtr><mtd columnalign="left">{_inner_mathml(tex)}</mtd></mtr>')
    return f'<math display="block"><mtable columnalign="left">{"".join(cells)}</mtable></math>'
