"""A letter with a prime, ``L'``, read as a name of its own where the document leaves no other reading.

Documents on context extension write ``L'`` for the new length beside the trained length ``L``, and say so in
words (``s = L'/L``). A prime after a letter is, in general, one of three things: the transpose of a matrix,
a derivative, or another name. A document settles it when it never differentiates (no ``\\frac{d}{dx}``,
``\\partial``, ``\\nabla``, ``\\dot x``, ``\\mathrm{d}x``; a fraction of the dimension, ``\\frac{d}{2}``,
``\\frac{d}{d-2}``, is none), never writes the letter as a function (``L(x)``,
``L'(x)``), never as a matrix or vector (transposed, in bold, written out) and never writes ``L'`` as an
entry of a written-out vector or matrix (a definition entry by entry, which is not read): then ``L'`` can only be a
number of its own, and it is read as the name ``Lprime`` (as a definition ``L' = sL`` would make it).

Design constraints: pure functions of the document's math; one letter with one prime and no subscript after
it (``q'_m``, ``\\theta'_i`` are left alone: an entry, a family or a new name, the reader cannot tell); a
letter the document also defines with an equation is read by that definition (:mod:`.steps`), which replaces
this reading. A letter whose prime a sentence of the text names (``$q'$ its transpose``, ``$f'$ the
derivative``) is one of the other readings, and is left alone.
"""

from __future__ import annotations

import re

from ..readers.decorations import decorated_alias
from ..readers.scope import Scope

__all__ = ["prime_read_otherwise", "primed_number_aliases"]

#: the d of a derivative, in any spelling
_DIFFERENTIAL_D = r"(?:\\(?:mathrm|text|operatorname)\s*\{\s*d\s*\}|d)"
#: what differentiates: d/dx in any spelling (a fraction whose denominator is d before a variable: ``\frac{d}{2}``,
#: ``\frac{d}{d-2}`` are the dimension), partial derivatives, gradients, dots over a name
_DIFFERENTIATES = re.compile(
    rf"\\frac\s*\{{\s*{_DIFFERENTIAL_D}(?:[^{{}}]|\{{[^{{}}]*\}})*\}}\s*\{{\s*{_DIFFERENTIAL_D}\s*(?:\\[,;:!]\s*)?"
    r"(?:[A-Za-z]|\\(?!cdot|times|left|right)[A-Za-z]+)"
    r"|\\partial|\\nabla|\\(?:dot|ddot)(?![A-Za-z])\s*[{\\A-Za-z]"
    r"|\\mathrm\s*\{\s*d\s*\}\s*[A-Za-z\\]|(?<![A-Za-z\\])d\s*/\s*d\s*[A-Za-z]|\\operatorname\s*\{\s*d\s*\}"
)
#: ``L'``: one letter, one prime, nothing raised or subscripted after it
_PRIMED_LETTER = re.compile(r"(?<![A-Za-z\\])([A-Za-z])\s*'(?!\s*['_^])")
#: a written-out vector or matrix
_MATRIX = re.compile(r"\\begin\s*\{\s*([pbvBV]?matrix|array)\s*\}.*?\\end\s*\{\s*\1\s*\}", re.S)
#: the document's bold, transposed or written-out spellings of a letter (a matrix or vector), or a call
_NOT_A_NUMBER = (
    r"\\(?:mathbf|boldsymbol|bm|vec|overrightarrow)\s*\{{\s*{x}\s*\}}|(?<![A-Za-z\\]){x}\s*'?\s*(?:\\left\s*)?\("
    r"|(?<![A-Za-z\\]){x}\s*'?\s*\^\s*\{{?\s*(?:T|\\top|\\intercal|\\mathsf\s*\{{\s*T\s*\}})"
    r"|(?<![A-Za-z\\]){x}\s*'?\s*=\s*(?:\\left\s*)?(?:\[|\\begin)"
)
#: a sentence that names what a prime means: the transpose, a derivative, a gradient
_PRIME_NAMED_IN_WORDS = re.compile(r"transpos|derivative|differentia|gradient", re.I)


def primes_named_in_words(prose: str) -> frozenset[str]:
    r"""The letters whose prime a sentence of the text calls a transpose or a derivative.

    Example:
        >>> sorted(primes_named_in_words("Let $q$ be a column and $q'$ its transpose. Here $L'$ is the new length."))
        ['q']
    """
    out = set()
    for sentence in re.split(r"(?<=[.;:!?])\s+|\n\s*\n", prose):
        if _PRIME_NAMED_IN_WORDS.search(sentence):
            out |= {m.group(1) for m in _PRIMED_LETTER.finditer(sentence)}
    return frozenset(out)


def primed_number_aliases(texts: list[str], matrices: frozenset[str]) -> tuple[tuple[str, str], ...]:
    r"""The uses of each primed letter the document can only mean as a number of its own, and its name.

    Example:
        >>> [name for _, name in primed_number_aliases([r"s = L'/L", r"\frac{L}{L'} m"], frozenset())]
        ['Lprime']
        >>> primed_number_aliases([r"s = L'/L", r"\frac{\partial f}{\partial x}"], frozenset())
        ()
        >>> [name for _, name in primed_number_aliases([r"s = L'/L", r"b^{\frac{d}{d-2}}"], frozenset())]
        ['Lprime']
        >>> [name for _, name in primed_number_aliases([r"s = L'/L", r"L' m", r"(\theta_0, \dots)"], frozenset())]
        ['Lprime']
        >>> primed_number_aliases([r"W' x", r"W^T"], frozenset({"W"}))
        ()
        >>> primed_number_aliases([r"\begin{pmatrix} u' \\ w' \end{pmatrix} = R u", r"u'^2 + w'^2"], frozenset())
        ()
    """
    math = "\n".join(texts)
    if _DIFFERENTIATES.search(math):
        return ()
    # an entry of a written-out vector or matrix (``(u', w')^T = R (u, w)^T``): defined entry by entry, not free
    entries = {m.group(1) for env in _MATRIX.finditer(math) for m in _PRIMED_LETTER.finditer(env.group(0))}
    out = []
    for letter in sorted({m.group(1) for m in _PRIMED_LETTER.finditer(math)} - {"e", "i"} - matrices - entries):
        if re.search(_NOT_A_NUMBER.format(x=re.escape(letter)), math):
            continue
        found = decorated_alias(letter + "'")
        if found is not None:
            out.append((found[1], found[2]))
    return tuple(out)


def prime_read_otherwise(texts: list[str], word: str, scope: Scope) -> bool:
    r"""Whether a document may read the prime of the letter a primed name (``bprime``) is made of as something
    else: it differentiates, or writes the letter transposed, in bold, as an array or called (``b(x)``).

    Example:
        >>> prime_read_otherwise([r"b' = b s^2", r"\frac{b}{b'}"], "bprime", Scope())
        False
        >>> prime_read_otherwise([r"q' = R q", r"q^T k"], "qprime", Scope())
        True
    """
    letter = re.sub(r"(?:prime)+$", "", word)
    math = "\n".join(texts)
    if _DIFFERENTIATES.search(math) or letter in scope.matrix_names | scope.array_names:
        return True
    spelled = re.escape(letter) if len(letter) == 1 else r"\\" + re.escape(letter)
    return re.search(_NOT_A_NUMBER.format(x=spelled), math) is not None
