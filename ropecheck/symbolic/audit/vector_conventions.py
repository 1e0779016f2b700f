r"""Which vectors a document writes as rows, and which capitals it uses as vectors.

Read with general matrices (:mod:`..readers.general_matrices`), a lower-case name is a column ``d x 1`` and an
upper-case one a matrix ``d x d``. Two ways of writing break that: vectors as rows multiplied by matrices on the
right (``q_i k_j^\top = (x_i + p_i) W_Q W_K^\top (x_j + p_j)^\top``), and capitals as vectors inside an inner
product (``\langle R_a X, R_b Y \rangle = X^T R_a^T R_b Y``). Here the document's own uses decide each name.

Design constraints: a name is read so only where every use of it in the document fits: a row is written right
before a matrix (``x_i W``), and never right after a matrix untransposed (``W x_i``) nor transposed right before
one (``x_i^T W``); with it the other members of its family (``x_j`` beside ``x_i``), unless one of them is written
as a column (a family may be rows in one part and columns in another: then only the names written as rows are).
A capital is the last factor of an argument of ``\langle \cdot, \cdot \rangle`` (``R_a X``), and never written
right before a matrix untransposed (``X W``) nor transposed right after one (``W X^T``). Only names the document
already uses as vectors or matrices are read so (and the capitals a row is multiplied by, which are matrices).
An identity proved for every row (every column) of every size holds whatever the name stands for there; a name
used otherwise elsewhere (a number, a column) is excluded by the uses above, or gives shapes that do not fit.
"""

from __future__ import annotations

import re

from ..readers.general_matrices import is_array
from ..readers.latex_syntax import calligraphic_as_names, normalize_latex
from .general import spelled_name

__all__ = ["column_capitals", "row_matrices", "row_vectors"]

_VC_SUB = r"(?:\s*_\s*(?:\{[^{}]*\}|\{\s*\\[A-Za-z]+\s*\{[^{}]*\}\s*\}|[A-Za-z0-9]|\\[A-Za-z]+(?:\s*\{[^{}]*\})?))"
#: a one-letter name as written, its subscript kept, not itself a subscript or exponent
_VC_NAME = r"(?<![\\A-Za-z_^])(?<![_^]\s)([A-Za-z]" + _VC_SUB + r"?)(?!\s*_)"
#: a transpose however spelled (``^T``, ``^{\top}``), and the mark :func:`_vc_plain` writes for it: no letter in it
_VC_TRANSPOSE_SPELLED = re.compile(r"\s*\^\s*(?:\{\s*(?:T|\\top)\s*\}|T(?![A-Za-z])|\\top(?![A-Za-z]))")
_VC_TRANSPOSE = r"\s*\^\s*'"
#: braces and colour commands between two factors (``{\color{red}p_i}W``)
_VC_GAP = r"(?:\s|[{}]|\\color\s*\{[a-z]+\})*"
_VC_CAPITAL = r"(?<![\\A-Za-z_^])([A-Z]" + _VC_SUB + r"?)(?!\s*_)"


def _vc_plain(texts: list[str]) -> list[str]:
    """The texts normalized, a name written right after a one-character subscript set apart (``W_qx_m``)."""
    plains = [normalize_latex(calligraphic_as_names(t)) for t in texts]
    plains = [re.sub(r"((?<![\\A-Za-z])[A-Za-z]\s*_\s*[A-Za-z0-9])(?=[A-Za-z])", r"\1 ", p) for p in plains]
    return [_VC_EXPONENT.sub(" ", _VC_TRANSPOSE_SPELLED.sub("^'", p)) for p in plains]


#: an exponent that is no transpose (``\theta^{2k}``, ``x^2``): no factor of a product, set aside
_VC_EXPONENT = re.compile(r"\^\s*(?:\{[^{}]*\}|[A-Za-z0-9])")


def _vc_pairs(plains: list[str], pattern: str) -> set[tuple[str, str]]:
    """The spelled (first, second) names of each match of ``pattern`` (two groups) in the texts."""
    out = set()
    for plain in plains:
        for m in re.finditer(pattern, plain):
            a, b = spelled_name(m.group(1)), spelled_name(m.group(2))
            if a is not None and b is not None:
                out.add((a, b))
    return out


def _vc_matrices(arrays: frozenset[str]) -> set[str]:
    return {n for n in arrays if re.match(r"[A-Z](?:_|$)", n)}


def row_vectors(texts: list[str], arrays: frozenset[str]) -> frozenset[str]:
    """The lower-case names (of ``arrays``) the texts write as rows: right before a matrix, and never right after one
    untransposed nor transposed right before one; with them the members of ``arrays`` of their family, where no
    member of it is ever so written.

    Example:
        >>> sorted(row_vectors([r"(x_i + p_i) W_Q W_K^T (x_j + p_j)^T = x_i W_Q W_K^T x_j^T + p_i W_Q W_K^T p_j^T"],
        ...                    frozenset({"x_{i}", "x_{j}", "p_{j}", "W_{Q}", "W_{K}"})))
        ['p_{i}', 'p_{j}', 'x_{i}', 'x_{j}']
        >>> sorted(row_vectors([r"x_i W_Q", r"W_K x_j"], frozenset({"x_{i}", "W_{Q}", "W_{K}"})))
        ['x_{i}']
    """
    plains = _vc_plain(texts)
    # a vector right before a capital: the capital multiplies it on the right (a number C is the matrix C I)
    before = _vc_pairs(plains, _VC_NAME + _VC_GAP + r"(?=" + _VC_CAPITAL + ")")
    found = {a for a, _ in before if a[0].islower() and is_array(a, arrays)}
    after = _vc_pairs(plains, _VC_CAPITAL + "(?:" + _VC_TRANSPOSE + ")?" + _VC_GAP + _VC_NAME + r"(?!\s*\^)")
    turned = _vc_pairs(plains, _VC_NAME + _VC_TRANSPOSE + _VC_GAP + r"(?=" + _VC_CAPITAL + ")")
    columns = {b for _, b in after} | {a for a, _ in turned}
    rows = {n for n in found if n not in columns}
    # a family no member of which is ever a column is rows throughout (x_j^T beside x_i W); else only the names seen
    whole = {n for n in rows if not any(is_array(c, frozenset({n})) for c in columns)}
    return frozenset(rows | {a for a in arrays if is_array(a, frozenset(whole))})


def row_matrices(texts: list[str], rows: frozenset[str]) -> frozenset[str]:
    """The capitals written in a run of factors right after a row of ``rows`` (``x_i W_Q W_K^T``): matrices, which
    multiply the row on the right.

    Example:
        >>> sorted(row_matrices([r"x_i W_\\mathbb{Q} W_K^T x_j^T + c"], frozenset({"x_{i}"})))
        ['W_bbQ', 'W_{K}']
    """
    run = _VC_NAME + r"((?:" + _VC_GAP + _VC_CAPITAL + "(?:" + _VC_TRANSPOSE + ")?)+)"
    found = set()
    for plain in _vc_plain(texts):
        for m in re.finditer(run, plain):
            name = spelled_name(m.group(1))
            if name is None or not is_array(name, rows):
                continue
            found |= {n for c in re.finditer(_VC_CAPITAL, m.group(2)) if (n := spelled_name(c.group(1))) is not None}
    return frozenset(found)


def _vc_arguments(plain: str) -> list[str]:
    """The arguments of each ``\\langle a, b \\rangle`` of ``plain`` (at top level of its brackets)."""
    out = []
    for m in re.finditer(r"\\langle(?![A-Za-z])(.*?)\\rangle", plain):
        depth, start, body = 0, 0, m.group(1)
        for k, ch in enumerate(body):
            depth += ch in "({[" and 1 or (-1 if ch in ")}]" else 0)
            if ch == "," and depth == 0:
                out.append(body[start:k])
                start = k + 1
        out.append(body[start:])
    return out


def column_capitals(texts: list[str], arrays: frozenset[str]) -> frozenset[str]:
    """The upper-case names (of ``arrays``) the texts use as vectors: the last factor of an argument of an inner
    product, and never written right before a matrix untransposed nor transposed right after one.

    Example:
        >>> sorted(column_capitals([r"\\langle R_a X, R_b Y \\rangle = X^T R_a^T R_b Y"], frozenset("XY") | {"R_{a}"}))
        ['X', 'Y']
        >>> sorted(column_capitals([r"\\langle R X, Y \\rangle", r"X W"], frozenset({"X", "Y", "R", "W"})))
        ['Y']
    """
    plains = _vc_plain(texts)
    found = set()
    for plain in plains:
        for argument in _vc_arguments(plain):
            m = re.search(_VC_CAPITAL + r"\s*$", argument)
            name = spelled_name(m.group(1)) if m else None
            if name is not None and name in arrays:
                found.add(name)
    matrices = _vc_matrices(arrays)
    before = _vc_pairs(plains, _VC_CAPITAL + r"(?!\s*\^)" + _VC_GAP + r"(?=" + _VC_CAPITAL + ")")
    turned = _vc_pairs(plains, _VC_CAPITAL + _VC_GAP + _VC_CAPITAL + _VC_TRANSPOSE)
    misfit = {a for a, b in before if b in matrices} | {b for a, b in turned if a in matrices}
    return frozenset(n for n in found if not any(is_array(m, frozenset({n})) for m in misfit))
