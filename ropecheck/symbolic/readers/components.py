"""Superscripts that label a vector's components, ``q_m = [q_m^1 \\\\ q_m^2]``: names of their own, not powers.

A derivation may name the entries of a vector by the vector's own name with a number above it and say so
in a definition: ``q = [q^1, q^2]``, ``x_m = (x_m^1, x_m^2)``, ``k_n = \\begin{bmatrix} k_n^1 \\\\ k_n^2
\\end{bmatrix}``. Read as powers, such a line would define the name by itself (``q = [q, q^2]``), which no
one writes: the superscripts there are labels, and they are in the whole document. :func:`component_vectors`
finds the names a document so defines; :func:`components_as_labels` writes their numbered superscripts as
the reader's labels (``q_m^{(1)}``, a name of its own); :func:`without_components` drops them from a text
where a caller looks for the vector's own name (an entry is a number of its own, whatever the vector's
value).

Design constraints: only a definition whose right side is one bracket or matrix whose entries are exactly
the name with the numbers 1, 2, ... (or 0, 1, ...) above it, at least two, makes the superscripts labels;
any other entry (``q = [q^1, 2]``) or order (``[q^2, q^1]``) leaves them powers. Pure functions of the text.
"""

from __future__ import annotations

import re

from .latex_text import Src

__all__ = ["component_vectors", "components_as_labels", "without_components"]

#: a name and its subscript: ``q``, ``q_m``, ``q _{m}``, ``\\theta_i``
_NAME = r"\\?[A-Za-z]+(?:\s*_\s*(?:\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9]))?"
#: ``NAME = [ ... ]``, ``( ... )`` or a bracket or parenthesis matrix, maybe transposed
_VECTOR = re.compile(
    r"(?<![A-Za-z\\])(?P<name>" + _NAME + r")\s*=\s*"
    r"(?:\\left\s*)?(?:\[|\(|\\begin\s*\{\s*[bp]matrix\s*\})"
    r"(?P<body>(?:[^\[\](){}]|\{[^{}]*\})*?)"
    r"(?:\\right\s*)?(?:\]|\)|\\end\s*\{\s*[bp]matrix\s*\})"
)
#: what separates the entries: a comma, a semicolon, a row break, a column, a control space
_SEPARATOR = re.compile(r"\\\\|\\\s|[,;&]")


def _key(name: str) -> str:
    """``q _{m}`` -> ``q_m``: the name without spaces or the braces of a subscript."""
    return re.sub(r"[\s{}]", "", name)


def component_vectors(text: str) -> frozenset[str]:
    r"""The names ``text`` (normalized LaTeX) defines as vectors of their own numbered components.

    Example:
        >>> sorted(component_vectors(r"q_m = [q_m^1 \\ q_m^2], \quad k = (k^1, k^{2}), \quad p = [p^1, 2]"))
        ['k', 'q_m']
    """
    found = set()
    for m in _VECTOR.finditer(text):
        name = _key(m.group("name"))
        entries = [re.sub(r"\s+", "", e) for e in _SEPARATOR.split(m.group("body"))]
        entries = [e for e in entries if e]
        entry = re.compile(re.escape(name.replace("_", "_{", 1) + "}" if "_" in name else name) + r"\^\{?(\d+)\}?")
        plain = re.compile(re.escape(name) + r"\^\{?(\d+)\}?")
        numbers = []
        for e in entries:
            hit = plain.fullmatch(e) or entry.fullmatch(e)
            if hit is None:
                break
            numbers.append(int(hit.group(1)))
        if len(numbers) == len(entries) >= 2 and numbers in (
            list(range(1, len(numbers) + 1)),
            list(range(len(numbers))),
        ):
            found.add(name)
    return frozenset(found)


def _component(name: str) -> str:
    """A regular expression for ``name`` (a key, ``q_m``) with a number above it, written any way LaTeX allows."""
    base, _, sub = name.partition("_")
    rx = r"(?<![A-Za-z\\])" + re.escape(base)
    if sub:
        after = r"(?![A-Za-z]))" if sub[0] == "\\" else ")"  # \theta, not \thetab
        rx += r"\s*_\s*(?:\{\s*" + re.escape(sub) + r"\s*\}|" + re.escape(sub) + after
    else:
        rx += r"(?![A-Za-z])"
    return rx + r"\s*\^\s*(?:\{\s*(?P<n>\d+)\s*\}|(?P<d>\d))"


def _components(names: frozenset[str]) -> re.Pattern[str]:
    """One regular expression for every name's components; group ``c<k>`` says which name (in sorted order)."""
    alternatives = []
    for k, name in enumerate(sorted(names)):
        rx = _component(name).replace("?P<n>", f"?P<n{k}>").replace("?P<d>", f"?P<d{k}>")
        alternatives.append(f"(?P<c{k}>{rx})")
    return re.compile("|".join(alternatives))


def components_as_labels(src: Src, names: frozenset[str]) -> Src:
    r"""``q_m^1`` -> ``q_{m}^{(1)}`` for each name in ``names``: the reader's label, a name of its own.

    Example:
        >>> components_as_labels(Src.of(r"q _m^1 k_{n}^{2} + q_m^T"), frozenset({"q_m", "k_n"})).text
        ' q_{m}^{(1)}  k_{n}^{(2)} + q_m^T'
    """
    if not names:
        return src
    ordered = sorted(names)
    rx = _components(names)

    def label(m: re.Match[str]) -> str:
        k = next(k for k in range(len(ordered)) if m.group(f"c{k}") is not None)
        base, _, sub = ordered[k].partition("_")
        number = m.group(f"n{k}") or m.group(f"d{k}")
        return f" {base}" + (f"_{{{sub}}}" if sub else "") + f"^{{({number})}}"

    return src.sub(rx, label)


def without_components(text: str, names: frozenset[str]) -> str:
    r"""``text`` with each numbered component of a name in ``names`` written as a plain 1.

    Example:
        >>> without_components(r"q_m^1 \cos x + q_m^T k", frozenset({"q_m"}))
        ' 1  \\cos x + q_m^T k'
    """
    if not names:
        return text
    return _components(names).sub(" 1 ", text)
