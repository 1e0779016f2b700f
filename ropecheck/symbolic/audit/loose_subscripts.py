"""Subscripts written without their braces, read as the braced subscript the document means.

Write-ups set a subscript loosely: ``f\\{q,k\\}(x_m, m)`` for the function ``f_{\\{q,k\\}}`` stated for both labels,
``R^d_\\Theta,m`` for ``R^d_{\\Theta,m}``. As written, TeX sets a set of labels beside the letter, or only
``\\Theta`` below it and the ``m`` after a comma, which nothing reads.

* A letter followed by ``\\{`` a list of two or more one-letter labels ``\\}`` and then a call is the function
  subscripted by that set (read as such by :mod:`.label_families`): the braces of a set glued to a letter before
  a bracket of arguments say nothing else.
* ``X_a,b`` (and ``X^s_a,b``) is ``X_{a,b}`` only where the document writes ``X_{a,b}`` (``X^s_{a,b}``) with its
  braces elsewhere, spaces aside: there the document says which name it is. Elsewhere it stays as written (a list,
  ``x_i, y``, or not read).

Design constraints: pure functions of the document's math, columns kept (:class:`..readers.latex_text.Src`);
only the braces are added, nothing is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..readers.latex_text import Src

__all__ = ["braced_loose_subscripts"]

#: ``f\{q,k\}(``: a letter, a set of one-letter labels glued to it, a call
_LABEL_SET = re.compile(r"(?<![\\A-Za-z])([A-Za-z])\\\{(\s*[A-Za-z](?:\s*,\s*[A-Za-z])+\s*)\\\}(?=\s*\()")
#: ``R^d_\Theta,m``: one token below the letter, a comma and one letter after it, no braces
_LOOSE_PAIR = re.compile(
    r"(?<![\\A-Za-z])(?P<base>[A-Za-z])(?P<sup>\s*\^\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?"
    r"\s*_\s*(?P<a>\\[A-Za-z]+|[A-Za-z])\s*,\s*(?P<b>[A-Za-z])(?![A-Za-z_^])"
)


def _compact(text: str) -> str:
    return re.sub(r"\s+", "", text)


def braced_loose_subscripts(srcs: Sequence[Src]) -> list[Src]:
    r"""Each math piece of a document with its loose subscripts braced (see the module's docstring).

    Example:
        >>> [s.text for s in braced_loose_subscripts([Src.of(r"R^d_\Theta,m = A"), Src.of(r"B R^d_{\Theta,m}")])]
        ['R^d_{\\Theta,m} = A', 'B R^d_{\\Theta,m}']
        >>> [s.text for s in braced_loose_subscripts([Src.of(r"R^d_\Theta,m = A"), Src.of(r"R^d_{\Theta,n}")])]
        ['R^d_\\Theta,m = A', 'R^d_{\\Theta,n}']
        >>> braced_loose_subscripts([Src.of(r"f\{q,k\}(x_m, m) = W x_m")])[0].text
        'f_{\\{q,k\\}}(x_m, m) = W x_m'
    """
    written = _compact("\n".join(s.text for s in srcs))
    out = []
    for src in srcs:
        src = src.sub(_LABEL_SET, lambda m: m.group(1) + "_{\\{" + m.group(2) + "\\}}")

        def braced(m: re.Match[str]) -> str:
            sup = _compact(m.group("sup") or "")
            name = f"{m.group('base')}{sup}_{{{m.group('a')},{m.group('b')}}}"
            shapes = [name, f"{m.group('base')}_{{{m.group('a')},{m.group('b')}}}{sup}"] if sup else [name]
            return name if any(s in written for s in shapes) else m.group(0)

        out.append(src.sub(_LOOSE_PAIR, braced))
    return out
