"""A step that writes one letter both decorated and plain: ``\\vec z \\cdot \\vec z = z^2``.

The reader drops ``\\vec``, ``\\mathbf``, ``\\boldsymbol``, ``\\bm`` and ``\\overrightarrow`` (``\\mathbf{q}``
and ``q`` are one name, as most write-ups mean). A step that writes both ``\\vec z`` and a bare ``z`` may mean two
things (a vector and its length, a vector and a scalar): read as one name, a verdict may be about another
statement. :func:`decorated_beside_plain` finds such a letter; the auditor keeps a PROVED only where the step
also holds with the decorated letter a name of its own (:func:`as_own_name`), and never keeps a REFUTED.

Design constraints: pure text; only ever turns a verdict into UNDECIDED; a letter with a subscript
(``\\mathbf{q}_m``, ``q_i``: a label or an entry) is left alone.
"""

from __future__ import annotations

import re

__all__ = ["as_own_name", "decorated_beside_plain"]

_DECORATION = r"\\(?:vec|mathbf|boldsymbol|bm|overrightarrow)\s*"
#: ``\\vec z``, ``\\vec{z}``, ``\\mathbf{z}``: a decorated letter with no subscript after it
_DECORATED_LETTER = re.compile(
    _DECORATION + r"(?:\{\s*(?P<a>[A-Za-z]|\\[A-Za-z]+)\s*\}|(?<=[a-z])\s+(?P<b>[A-Za-z])(?![A-Za-z]))(?!\s*_)"
)


_ANY_DECORATED = re.compile(_DECORATION + r"(?:\{[^{}]*\}|(?<=[a-z])\s+[A-Za-z](?![A-Za-z])|\\[A-Za-z]+)")
_NOT_SCRIPTED = r"(?<![_^])(?<![_^]\{)(?<![_^] )(?<![_^]\{ )"


def decorated_beside_plain(text: str) -> str | None:
    r"""The first letter ``text`` writes both decorated and bare (neither with a subscript), or None.

    Example:
        >>> decorated_beside_plain(r"\vec z \cdot \vec z = z^2"), decorated_beside_plain(r"\mathbf{q}_m = q_m")
        ('z', None)
        >>> decorated_beside_plain(r"\mathbf{a} = g_a(1)"), decorated_beside_plain(r"\mathbf{k} = k^{(1)} + k'")
        (None, None)
        >>> decorated_beside_plain(r"\mathbf{k}_n = R_n \mathbf{k}")
    """
    decorated = {m.group("a") or m.group("b") for m in _DECORATED_LETTER.finditer(text)}
    rest = _ANY_DECORATED.sub(" ", text)  # every decorated letter, with a subscript or not (\mathbf{k}_n)
    rest = re.sub(r"\\(?:text|mathrm|operatorname|label|tag)\s*\{[^{}]*\}", " ", rest)
    for letter in sorted(decorated):
        pattern = re.escape(letter) if letter.startswith("\\") else r"(?<![\\A-Za-z])" + letter
        # bare: not in a subscript or superscript (g_a, x^{a}), nor labelled (k_i, k^{(1)}, k')
        if re.search(_NOT_SCRIPTED + pattern + r"(?![A-Za-z])(?!\s*(?:_|'|\^\s*\{\s*\())", rest):
            return letter
    return None


def as_own_name(text: str, letter: str) -> str:
    r"""``text`` with the decorated ``letter`` written as a name of its own (``\vec z`` -> ``\mathrm{vecz}``)."""
    word = "vec" + re.sub(r"[^A-Za-z]", "", letter)

    def own(m: re.Match[str]) -> str:
        return rf" \mathrm{{{word}}} " if (m.group("a") or m.group("b")) == letter else m.group(0)

    return _DECORATED_LETTER.sub(own, text)
