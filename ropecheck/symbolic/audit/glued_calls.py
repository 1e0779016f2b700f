r"""A function named by glued letters and called on two or more names, ``PE(p, i) = \sin(p / \theta^{i/d})``.

Read as a product of its letters, such a left side is letters times a bracket that holds a list (``(p, i)``),
which means nothing: the word can only be one function's name, and a display whose only equation sets that call
equal to a value that does not write the word gives the function its form. The line is a definition, listed,
not a step, where the call is new: no math above writes the word with as many arguments (``PE(i)`` above is a
function of one argument), nothing defines the word, and each argument is a plain name, none twice. Its value
is not read: later steps read the word as before (two ways), and halves by parity given after it stay steps.

A call written above with as many arguments makes the line something said of a function in use, a step, as is
a line that writes the word on its right side too.

Design constraint: pure text in, an answer out; the caller lists the definition.
"""

from __future__ import annotations

import re

from ..readers.latex_syntax import PLAIN_FUNCTIONS, normalize_latex
from ..readers.latex_text import Src, split_top
from ..readers.scope import Scope

__all__ = ["calls_with", "glued_call_head", "lists_nothing"]

#: the whole left side: glued letters (no backslash), then one bracket of arguments
_GLUED_CALL = re.compile(r"^\s*(?P<word>[A-Za-z]{2,})\s*(?:\\left\s*)?\((?P<args>[^()]*?)(?:\\right\s*)?\)\s*$")
#: an argument: a plain name, no subscript, no decoration
_PLAIN_ARGUMENT = re.compile(r"^\s*[A-Za-z]+\s*$")
#: functions SymPy's parser reads by name written without a backslash, which are no new names
_KNOWN = frozenset(PLAIN_FUNCTIONS) | frozenset("arcsin arccos arctan asin acos atan Abs Max Min max min".split())


def glued_call_head(text: str, scope: Scope) -> tuple[str, tuple[str, ...]] | None:
    """``PE(p, i)`` -> ``("PE", ("p", "i"))``: the word and its arguments, or None where the left side is not
    glued letters called on two or more distinct plain names, or the word is defined or known.

    Example:
        >>> glued_call_head(r"PE(p, i)", Scope()), glued_call_head(r"PE(i)", Scope())
        (('PE', ('p', 'i')), None)
        >>> glued_call_head(r"PE(p+k, i)", Scope()), glued_call_head(r"PE(p, p)", Scope())
        (None, None)
    """
    m = _GLUED_CALL.match(normalize_latex(text))
    if m is None:
        return None
    word, args = m.group("word"), [a.text.strip() for a in split_top(Src.of(m.group("args")), ",")]
    if len(args) < 2 or len(set(args)) != len(args) or not all(_PLAIN_ARGUMENT.match(a) for a in args):
        return None
    if word in _KNOWN or word.lower() in _KNOWN or scope.defines(word) or word in scope.functions:
        return None
    return word, tuple(args)


def calls_with(word: str, count: int, texts: list[str]) -> bool:
    """Whether any of ``texts`` calls ``word`` (not as part of a longer word) on ``count`` arguments.

    Example:
        >>> calls_with("PE", 2, [r"PE(i) = 1", r"|PE(k+p) - PE(p)|"]), calls_with("PE", 1, [r"x + PE(2)"])
        (False, True)
        >>> calls_with("PE", 2, [r"\\frac{1}{2} PE\\left(p + k, 2i\\right)"]), calls_with("PE", 2, [r"RoPE(a, b)"])
        (True, False)
    """
    rx = re.compile(r"(?<![A-Za-z\\])" + re.escape(word) + r"\s*(?:\\left\s*)?\(")
    for text in texts:
        plain = normalize_latex(text)
        for m in rx.finditer(plain):
            depth, at = 1, m.end()
            while at < len(plain) and depth:
                depth += {"(": 1, ")": -1}.get(plain[at], 0)
                at += 1
            inside = re.sub(r"\\right\s*$", "", plain[m.end() : at - 1])
            if len(split_top(Src.of(inside), ",")) == count:
                return True
    return False


def lists_nothing(body: str) -> bool:
    """Whether a right side writes no list: no comma and no row break, so that the left side cannot be a number
    times a pair that the right side writes out (``ab(x, y) = (abx, aby)``).

    Example:
        >>> lists_nothing(r"\\sin\\left(\\frac{p}{\\theta^{i/d}}\\right)"), lists_nothing(r"(abx, aby)")
        (True, False)
        >>> lists_nothing(r"\\begin{bmatrix} ax \\\\ ay \\end{bmatrix}")
        False
    """
    plain = normalize_latex(body)
    return "," not in plain and "\\\\" not in plain and "matrix" not in plain
