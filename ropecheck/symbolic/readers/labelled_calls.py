r"""A letter with a word set upright as its subscript, right before a bracket (``a_{\text{lin}}(s)``): a call.

``a_{\text{lin}}`` alone is one name, ``a_lin`` (never a times the letters of "lin"). In front of a bracket it is
written as ``f(x)`` is: the value of a function at its arguments -- the interpolation ``a_{\text{lin}}(s)``, the
rotary map ``f_{\text{RoPE}}(x, m)`` -- read as ``f(x)`` is read:

* the document defines it as a function (``a_{\text{lin}}(s) := ...``, a call of plain names on the left): its
  definition at the arguments written;
* the document gives the name a value as a number (``d_{\text{model}} = 512``): the number times the bracket, as
  before;
* neither: a function of its own, whose values the reader does not know -- a step is then decided only where it
  holds for every such function, and never refuted through it; as with ``n(n + 1)``, the name written alone in the
  same step makes the call a product (:func:`.latex_tree.index_sums`).

Design constraints: pure functions of the text and the scope; the name is the one the reader gives the labelled
name alone (``\lambda_{\mathrm{ref}}`` -> ``lambda_ref``), so a definition and its uses meet; a label of one letter
(``q_{\text{q}}``) and a base that is a command other than a Greek letter are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from .latex_text import GREEK_NAMES
from .scope import Scope

__all__ = ["LABELLED_CALL", "labelled_call", "labelled_call_notes", "labelled_name"]

_UPRIGHT = r"\\(?:text|textrm|mathrm|operatorname)\s*\{\s*"
#: ``a_{\text{lin}}(``, ``a_\mathrm{lin} \left(``: a letter (or a Greek one), a word of two letters or more set
#: upright as its subscript, then the bracket (not a letter of a word or command, nor a subscript or power itself)
LABELLED_CALL = re.compile(
    rf"(?<![\\A-Za-z_^'])(?P<base>[A-Za-z]|\\(?:{GREEK_NAMES})(?![A-Za-z]))\s*_\s*"
    rf"(?:\{{\s*{_UPRIGHT}(?P<word1>[A-Za-z]{{2,}})\s*\}}\s*\}}|{_UPRIGHT}(?P<word2>[A-Za-z]{{2,}})\s*\}})"
    r"\s*(?=\\left\s*\(|\()"
)


def labelled_name(m: re.Match[str]) -> str:
    r"""The name the reader gives the labelled name of a :data:`LABELLED_CALL` match (``a_{\text{lin}}`` -> ``a_lin``).

    Example:
        >>> labelled_name(LABELLED_CALL.search(r"2 \lambda_{\mathrm{ref}}(s)"))
        'lambda_ref'
    """
    return m.group("base").lstrip("\\") + "_" + (m.group("word1") or m.group("word2"))


def _a_number(name: str, scope: Scope) -> bool:
    """Whether the document gives ``name`` a value that is no function (``d_{\\text{model}} = 512``)."""
    return name not in scope.functions and (scope.defines(name) or name in scope.domains)


def labelled_call(text: str, pos: int, scope: Scope, bound: Collection[str]) -> tuple[int, str, int] | None:
    r"""The first labelled name read as a call at or after ``pos``: (its start, its name, the end of the name), or
    None. A name bound here (a sum's index) or one the document gives a value as a number is skipped.

    Example:
        >>> labelled_call(r"1 + a_{\text{lin}}(s)", 0, Scope(), ())
        (4, 'a_lin', 18)
        >>> labelled_call(r"d_{\text{model}}(L + 1)", 0, Scope(symbols={"d_model": None}), ()) is None
        True
    """
    for m in LABELLED_CALL.finditer(text, pos):
        name = labelled_name(m)
        if name not in bound and not _a_number(name, scope):
            return m.start(), name, m.end()
    return None


def labelled_call_notes(text: str, scope: Scope, called: Collection[str]) -> list[str]:
    r"""What each labelled call of ``text`` is read as, in words, the reader's default said (see the module);
    ``called``: the functions the step as read calls (a name alone in the step too makes its call a product).

    Example:
        >>> labelled_call_notes(r"a_{\text{lin}}(s) = 0", Scope(), {"a_lin"})[0].split(",")[0]
        'a_{\\text{lin}}(...) read as a function of its own'
    """
    notes = []
    for m in LABELLED_CALL.finditer(text):
        name, written = labelled_name(m), re.sub(r"\s+", "", m.group(0))
        d = scope.functions.get(name)
        if d is not None:
            at = f" (line {d.line})" if d.line else ""
            notes.append(f"{written}(...) read as the function {name} the document defines{at}")
        elif name in called and not _a_number(name, scope):
            notes.append(
                f"{written}(...) read as a function of its own, whose values are not known here (or {name} times the "
                "bracket: not decided as a product)"
            )
    return list(dict.fromkeys(notes))
