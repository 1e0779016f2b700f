r"""Block-diagonal matrices written open-ended with their blocks written out entry by entry.

A derivation often draws the rotation of a whole vector as its first blocks, then dots that run to no last
block: a column of ``\cdots`` on the right, a row of ``\vdots`` below, ``\ddots`` in the corner, or blank
cells with ``\ddots`` alone::

    \begin{pmatrix} \cos m\theta_1 & -\sin m\theta_1 & 0 & 0 & \cdots \\
                    \sin m\theta_1 & \cos m\theta_1 & 0 & 0 & \cdots \\
                    0 & 0 & \cos m\theta_2 & -\sin m\theta_2 & \cdots \\
                    0 & 0 & \sin m\theta_2 & \cos m\theta_2 & \cdots \\
                    \vdots & \vdots & \vdots & \vdots & \ddots \end{pmatrix}

Its size is not written, so it is not read as a matrix: the blocks shown fix block j (here
``[[\cos m\theta_{j}, ...]]`` from j = 1 on), and :mod:`.blocks` reads a step about such matrices block by
block -- for every number of blocks.

Design constraints: text in, text out. Every cell off the blocks is 0 or blank; the blocks are 1x1 or 2x2 on
the diagonal, at least two of them, the same text but for whole numbers in subscripts, each of which moves by
one from a block to the next (the first block's at 0 or 1); the last row holds only dots (``\ddots`` in its last
cell) and the last column only ``\cdots`` or blanks. Anything else (a last block written after the dots, which
fixes a size: :mod:`..readers.ellipsis`; a number that moves another way) is left to the other readers.
"""

from __future__ import annotations

import re

__all__ = ["CORNER_DOTS", "MATRIX_ENV", "MATRIX_ROW_BREAK", "diagonal_name", "open_block_diagonal"]

#: a matrix environment and its body (``\\begin{pmatrix} ... \\end{pmatrix}``)
MATRIX_ENV = re.compile(r"\\begin\s*\{([bpBv]?matrix)\}(.*?)\\end\s*\{\1\}", re.S)
#: a row break, with an optional spacing (``\\\\[2pt]``)
MATRIX_ROW_BREAK = re.compile(r"\\\\(?:\s*\[[^\]]*\])?")
#: a cell that holds only the diagonal dots
CORNER_DOTS = re.compile(r"^\s*(?:\\ddots|⋱)\s*$")
_ROW_OF_DOTS = re.compile(r"^\s*(?:\\vdots|\\ddots|\\cdots|⋮|⋱|⋯)?\s*$")
_COLUMN_OF_DOTS = re.compile(r"^\s*(?:\\cdots|\\ldots|⋯)?\s*$")
#: a zero off the blocks: blank, 0, or the zero set bold
_OFF_BLOCK_ZERO = re.compile(r"^\s*(?:(?:\\(?:boldsymbol|mathbf|bm)\s*)?(?:\{\s*0\s*\}|0))?\s*$")
_ANY_DOTS = re.compile(r"\\(?:cdots|ldots|vdots|ddots|dots)(?![A-Za-z])|[⋮⋱⋯…]|\.\.\.")
#: a name set in a font, or a plain one, with a one-letter subscript: ``\boldsymbol{\mathcal{R}}_m``, ``R_{m}``
_DIAGONAL_NAME = re.compile(
    r"^\s*(?P<base>\\(?:boldsymbol|mathbf|bm)\s*\{\s*(?:\\mathcal\s*\{\s*[A-Za-z]\s*\}|[A-Za-z])\s*\}"
    r"|\\mathcal\s*\{\s*[A-Za-z]\s*\}|\\?[A-Za-z]+)"
    r"\s*_\s*(?:\{\s*(?P<sub>[A-Za-z])\s*\}|(?P<one>[A-Za-z]))\s*$"
)


def diagonal_name(name: str) -> tuple[str, str] | None:
    r"""The base and the one-letter subscript of a name a line may define as such a matrix, or None.

    Example:
        >>> diagonal_name(r"\boldsymbol{\mathcal{R}}_m")
        ('\\boldsymbol{\\mathcal{R}}', 'm')
    """
    m = _DIAGONAL_NAME.match(name)
    if m is None:
        return None
    return re.sub(r"\s+", "", m.group("base")), m.group("sub") or m.group("one")


def _cells(body: str) -> list[list[str]] | None:
    """The rows of a matrix body as cells, short rows padded with blank cells (as LaTeX sets them)."""
    if "\\begin" in body:
        return None
    rows = MATRIX_ROW_BREAK.split(body)
    while rows and not rows[-1].strip():
        rows.pop()
    grid = [r.split("&") for r in rows]
    width = max((len(r) for r in grid), default=0)
    return [[c.strip() for c in r] + [""] * (width - len(r)) for r in grid]


def _block_texts(inner: list[list[str]], size: int) -> list[str] | None:
    """The blocks on the diagonal (``size`` 1 or 2) as text, where every other cell is zero; else None."""
    n = len(inner)
    if n % size or n // size < 2:
        return None
    for i in range(n):
        for j in range(n):
            if i // size != j // size and not _OFF_BLOCK_ZERO.match(inner[i][j]):
                return None
    out = []
    for b in range(0, n, size):
        cells = [inner[b + a][b + c] for a in range(size) for c in range(size)]
        if any(not c or _ANY_DOTS.search(c) for c in cells):
            return None
        out.append(
            cells[0]
            if size == 1
            else rf"\begin{{pmatrix}} {cells[0]} & {cells[1]} \\ {cells[2]} & {cells[3]} \end{{pmatrix}}"
        )
    return out


def _moving_numbers(blocks: list[str]) -> tuple[str, int] | None:
    """Block j's text (``{j}`` where a number moves) and the first block's number, where the blocks are the same
    text but for whole numbers in subscripts that each move by one per block; else None."""
    parts = [re.split(r"(\d+)", b) for b in blocks]
    if any(len(p) != len(parts[0]) for p in parts) or any(p[0::2] != parts[0][0::2] for p in parts):
        return None
    template = list(parts[0])
    starts = set()
    for k in range(1, len(template), 2):
        numbers = [int(p[k]) for p in parts]
        if len(set(numbers)) == 1 and all(p[k] == parts[0][k] for p in parts):
            continue
        if numbers != list(range(numbers[0], numbers[0] + len(numbers))) or any(
            p[k] != str(n) for p, n in zip(parts, numbers)
        ):
            return None
        if not "".join(template[:k]).replace(" ", "").endswith(("_", "_{")):
            return None  # a number that moves is a subscript (\theta_0, \theta_{1}), never an exponent
        starts.add(numbers[0])
        template[k] = "{j}"
    if len(starts) != 1 or next(iter(starts)) > 1:
        return None
    return "".join(template), starts.pop()


def open_block_diagonal(env: str) -> tuple[str, int] | None:
    r"""A block-diagonal matrix written open-ended, its blocks written out: (block j, the first block's number).

    Example:
        >>> m = r"\begin{pmatrix} a_0 & 0 & \cdots \\ 0 & a_1 & \cdots \\ \vdots & \vdots & \ddots \end{pmatrix}"
        >>> open_block_diagonal(m)
        ('a_{j}', 0)
    """
    m = MATRIX_ENV.fullmatch(env.strip())
    grid = _cells(m.group(2)) if m is not None else None
    if not grid or len(grid) < 3 or any(len(r) != len(grid) for r in grid):
        return None
    last = grid[-1]
    if not CORNER_DOTS.match(last[-1]) or not all(_ROW_OF_DOTS.match(c) for c in last):
        return None
    if not all(_COLUMN_OF_DOTS.match(r[-1]) for r in grid[:-1]):
        return None
    inner = [r[:-1] for r in grid[:-1]]
    for size in (2, 1):
        blocks = _block_texts(inner, size)
        found = _moving_numbers(blocks) if blocks else None
        if found is not None:
            return found
    return None
