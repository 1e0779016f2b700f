r"""A function named by a word set in italic, ``score(q_m, k_n) = q_m^T k_n``: the word as one upright name.

A left side that is a word of four letters or more called with names (``score(x, y)``) is read as if written
``\mathrm{score}(x, y)``: a definition of a function named by that word (or, where the document defined it
already, a new definition). The other reading, the product of the letters times a bracket, would make the line a
step about five free numbers, which no derivation means. Only where that product could not be anything else: no
letter of the word is a name the document defines or declares complex, the word has no ``i`` (the unit), is not a
function SymPy knows (``tanh``), and is no name of the document other than a function (which it defines again).

Design constraint: pure text in, text out; the caller reads the rewritten head as any upright function head.
"""

from __future__ import annotations

import re

from ..readers.scope import Scope

__all__ = ["word_call_head"]

#: the whole left side: a word, then its bracketed arguments
_WORD_CALL = re.compile(r"^\s*(?P<word>[A-Za-z]{4,})(?P<call>\s*(?:\\left\s*)?\([^()]*?(?:\\right\s*)?\)\s*)$")
#: functions SymPy's parser reads by name, written without a backslash
_KNOWN = frozenset(
    "sqrt exp log sinh cosh tanh coth sech csch asin acos atan arcsin arccos arctan conjugate floor ceiling "
    "sign Abs Max Min".split()
)


def word_call_head(text: str, scope: Scope) -> str | None:
    """``score(x, y)`` -> ``\\mathrm{score}(x, y)``, or None where the left side is not such a call.

    Example:
        >>> word_call_head("score(q_m, k_n)", Scope())
        '\\\\mathrm{score}(q_m, k_n)'
        >>> word_call_head("sinh(x)", Scope()) is None, word_call_head("ab(x)", Scope()) is None
        (True, True)
    """
    m = _WORD_CALL.match(text)
    if m is None:
        return None
    word = m.group("word")
    if "i" in word or word in _KNOWN or word.lower() in _KNOWN or word in scope.symbols or word in scope.patterns:
        return None
    if any(scope.defines(ch) or scope.domains.get(ch, "real") == "complex" for ch in word):
        return None
    return r"\mathrm{" + word + "}" + m.group("call")
