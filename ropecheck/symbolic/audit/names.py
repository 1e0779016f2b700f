"""Names a line may define that the claim reader does not take as names: decorated, glued, with a set after them.

A derivation introduces new names by decorating old ones -- ``\\tilde{q}_m``, ``\\hat{q}``,
``q'``, ``\\theta_i^{'}``, ``f'(x, m)`` -- or by writing a word with a
subscript (``PE_{(pos,2i)}``), and it may say where a name lives right after it
(``R \\in \\mathbb{R}^{d\\times d} = ...``). A line whose left side is such a name, new to the document,
introduces it: it is a definition, not a step. :func:`decorated_head` and :func:`glued_head` say what
such a left side names; :func:`without_membership` drops the set after a name. A definition may
also use an entry of a sequence defined only after it (``g = \\lambda_0 + 1``, then ``\\lambda_j = ...``):
:func:`bind_late_entries` gives it the entry's value then, and :func:`bind_late_calls` a call's value once
the function is defined (``q_m = f_q(x_m, m)``, then ``f_q(x_m, m) = R_m W_q x_m``); :func:`named_by_call` says
which members given a value in between (an example) give way to that call then. :func:`entry_of` says which
names a family's definition reads again (``R_{\\theta,n-m}`` once ``R_{\\theta,t}`` is defined),
:func:`without_subscripts` drops the subscripts that only label a name (``R_{\\Theta,t}``),
:func:`without_set_labels` as well the names a set's name only begins (``\\Theta_q`` beside the set ``\\Theta``), and
:func:`norm_beside_name` finds a norm read as a name of its own beside the name inside it (``‖q‖`` and ``q``,
or ``‖q‖`` and ``‖q‖_{2}``), and :func:`norm_of_family` one beside a family on its letter (``‖q‖`` and ``q_m = ...``),
which a counterexample may not respect. :func:`bracket_part_head` says which new name a left side gives only a
part of, as a subscript on a bracket (``\\left(R_{\\theta,m}\\right)_{i}``, its block i); :func:`word_call_head` which
word in italics a left side calls as a new function (``Attention(Q, K, V)_i``).

Design constraints: pure functions of the text and the scope. A decorated name whose definition is
read becomes a name of its own (:mod:`ropecheck.symbolic.readers.decorations`), read in later steps
where it is spelled as it was defined; any other spelling of it stays unread (the reader does not
read a tilde, and reads a prime elsewhere as a transpose). Glued names are listed, never substituted.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import sympy
from sympy import MatrixBase, Symbol
from sympy.core.function import AppliedUndef

from ...errors import ClaimLimitError, ClaimParseError
from ..readers.default_doubts import norm_beside_name, norm_of_family
from ..readers.latex_syntax import PLAIN_FUNCTIONS, normalize_latex
from ..readers.scope import Definition, Scope, domain_symbol
from ..readers.sympy_syntax import suggest_function
from .reading import Head, free, head, is_defined, read_quiet

__all__ = [
    "bind_late_calls",
    "bind_late_entries",
    "bracket_part_head",
    "decorated_head",
    "entry_of",
    "optimum_head",
    "false_for_every_value",
    "glued_head",
    "norm_beside_name",
    "norm_of_family",
    "operator_head",
    "value_of_entry",
    "named_by_call",
    "renewed_calls",
    "without_membership",
    "without_set_labels",
    "without_subscripts",
    "word_call_head",
]

#: decorations that make a new name of a letter: ``\\tilde{q}``, ``\\hat{q}`` (a calligraphic capital,
#: ``\\mathcal{R}``, is a letter of its own that the reader reads: ``calR``)
_DECORATION = re.compile(
    r"\\(?:tilde|widetilde|hat|widehat|check|breve|mathscr)\s*(?:\{\s*([^{}]*?)\s*\}|(\\[A-Za-z]+|[A-Za-z]))"
)
_WRAPPER = re.compile(r"\\(?:boldsymbol|mathbf|bm|mathit)\s*\{\s*([^{}]*?)\s*\}")
#: primes on a name: ``q'``, ``q^{\\prime}``, ``\\theta_i^{'}``
_PRIMES = re.compile(r"\^\s*\{\s*(?:'+|\\prime)\s*\}|\^\s*\\prime(?![A-Za-z])|'+")
#: a star on a name, ``w^{\\star}`` (never ``*``, which may conjugate)
_STAR_MARK = re.compile(r"\^\s*(?:\{\s*\\star\s*\}|\\star(?![A-Za-z]))")
#: ``R \\in \\mathbb{R}^{d\\times d}`` after the name a line defines: where the value lives, not part of the name
#: (the size may hold braces of its own: ``\\mathbb{R}^{\\frac{D}{2}\\times\\frac{D}{2}}``)
_MEMBERSHIP = re.compile(
    r"\s*\\in\s*\\mathbb\s*\{\s*[RCZN]\s*\}\s*(?:\^\s*(?:\{(?:[^{}]|\{[^{}]*\})*\}|[A-Za-z0-9]))?\s*$"
)


def without_membership(tex: str) -> str:
    """``x \\in \\mathbb{R}^d`` -> ``x``: the name alone, when a set it belongs to follows it (else ``tex``).

    Example:
        >>> without_membership(r"W \\in \\mathbb{R}^{d\\times d}"), without_membership("x + y")
        ('W', 'x + y')
        >>> without_membership(r"\\text{diag}(s) \\in \\mathbb{R}^{\\frac{D}{2}\\times\\frac{D}{2}}")
        '\\\\text{diag}(s)'
    """
    stripped = _MEMBERSHIP.sub("", tex)
    return stripped if stripped.strip() else tex


def decorated_head(tex: str, scope: Scope) -> tuple[Head, Head, str] | None:
    """A name written with a decoration (``\\tilde{q}_m``, ``q'``, ``f'(x, m)``):
    (how its uses are recognised, the head of the name without the decoration, that name as written),
    or None.

    The decorated name is another name than the plain one: it is defined by the line, never read as
    the plain name (a prime, read elsewhere as a transpose, is a new name here). The first Head is of
    kind ``decorated``: its key is a regular expression that finds the name primed, for the taint on
    later steps (the reader refuses ``\\tilde`` itself).
    """
    text = normalize_latex(tex)
    plain, marks = text, 0
    while True:
        plain, n = _DECORATION.subn(lambda m: m.group(1) if m.group(1) is not None else m.group(2), plain)
        plain, k = _WRAPPER.subn(lambda m: m.group(1), plain)
        marks += n
        if not n and not k:
            break
    plain, primes = _PRIMES.subn("", plain)
    plain, stars = _STAR_MARK.subn("", plain)
    if not marks and not primes and not stars:
        return None
    undecorated = head(plain, scope)
    if undecorated is None and marks and re.fullmatch(r"\s*[A-Za-z]{2,}\s*", plain):
        undecorated = Head("symbol", plain.strip())  # \hat{base}: a word under the decoration is one name
    base = re.match(r"\s*(\\[A-Za-z]+|[A-Za-z]+)", plain)
    if undecorated is None or base is None:
        return None
    rx = ""
    if stars:  # later steps that write the base starred (w^\star) use this name
        rx = r"(?<![A-Za-z\\])" + re.escape(base.group(1)) + r"(?![A-Za-z])\s*" + _STAR_MARK.pattern
    if primes:  # later steps that write the base primed (q', q'_p, \lambda^{\prime}_d) use this name
        rx = (
            r"(?<![A-Za-z\\])" + re.escape(base.group(1)) + r"(?![A-Za-z])\s*(?:_\s*(?:\{[^{}]*\}|\\[A-Za-z]+|\w)\s*)?"
            r"(?:'|\^\s*\{\s*'|\^\s*\{?\s*\\prime)"
        )
    mark = Head("decorated", rx or re.escape(re.sub(r"\s+", "", text)), undecorated.params)
    return mark, undecorated, plain


#: ``\\text{Rotated} [x_1; x_2]``, ``\\operatorname{Rot} \\begin{bmatrix} ... \\end{bmatrix}``: an upright word in
#: front of one bracket or one matrix, which is all of the side
_OPERATOR_HEAD = re.compile(r"^\s*\\(?:text|textrm|mathrm|operatorname)\s*\{\s*([A-Za-z]{2,})\s*\}\s*")
_ONE_MATRIX = re.compile(r"\\begin\s*\{(\w*matrix)\}(?:(?!\\begin).)*\\end\s*\{\1\}\s*", re.S)


def operator_head(tex: str, body: str, scope: Scope) -> Head | None:
    """``\\text{Rotated} [x_1; x_2] = M [x_1; x_2]``: an upright word, new to the document and absent from the right
    side, in front of the one bracket or matrix that ends the left side says what an operator does to it.

    The line defines the operator (in words the reader does not read); it asserts nothing about known names. The
    head (kind ``decorated``, a regular expression) finds the word again, so a later step that uses it is not read.

    Example:
        >>> operator_head(r"\\text{Rotated} [x_1; x_2]", r"M [x_1; x_2]", Scope()).key.endswith(r"Rotated\\s*\\}")
        True
        >>> operator_head(r"\\text{Rotated} [x_1; x_2] + y", "y", Scope()) is None
        True
    """
    text = normalize_latex(tex)
    m = _OPERATOR_HEAD.match(text)
    if m is None or m.group(1) in ("Re", "Im") or scope.defines(m.group(1)) or m.group(1) in scope.functions:
        return None
    rest = text[m.end() :]
    if not (_ONE_MATRIX.fullmatch(rest) or _one_bracket(rest)):
        return None
    rx = r"\\(?:text|textrm|mathrm|operatorname)\s*\{\s*" + m.group(1) + r"\s*\}"
    if re.search(rx, normalize_latex(body)):
        return None  # Rot[x] = 2 Rot[x] - Rot[x]: an equation about the operator
    return Head("decorated", rx)


#: ``Attention(Q, K, V)_i``: a word of four letters or more, set in italics, called on a list of names, perhaps
#: with a subscript after the call; all of the side
_WORD_CALL_HEAD = re.compile(
    r"^\s*(?P<word>[A-Za-z]{4,})\s*\(\s*(?:\\?[A-Za-z]\w*\s*,\s*)*\\?[A-Za-z]\w*\s*\)"
    r"\s*(?:_\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?\s*$"
)


def word_call_head(tex: str, body: str, scope: Scope) -> Head | None:
    """``Attention(Q, K, V)_i = ...``: a word in italics, new to the document and absent from the right side, called
    on names, says what a function so named gives. Read as a product of its letters the side would mean nothing
    (``n`` called on ``(Q, K, V)``), so the line is a definition in words the audit does not read, as
    :func:`operator_head` has it: not a step; a later step that calls the word is not read.

    Example:
        >>> re.search(word_call_head(r"Attention(Q, K, V)_i", "a + b", Scope()).key, "x + Attention(Q, K, V)_2")
        <re.Match object; span=(4, 14), match='Attention('>
        >>> word_call_head(r"Attention(Q, K, V)_i", r"2 Attention(Q, K, V)_i", Scope()) is None
        True
    """
    m = _WORD_CALL_HEAD.match(normalize_latex(tex))
    if m is None:
        return None
    word = m.group("word")
    known = [*PLAIN_FUNCTIONS, "Re", "Im", *scope.functions]
    if word in known or suggest_function(word, known) or scope.defines(word):
        return None  # a known function, or a name close to one (``cosine``): a slip, which the reader names
    rx = r"(?<![\\A-Za-z])" + word + r"\s*\("
    if re.search(rx, normalize_latex(body)):
        return None  # Attention(x) = 2 Attention(x) - Attention(x): an equation about the function
    return Head("decorated", rx)


def _one_bracket(text: str) -> bool:
    """Whether ``text`` is one square bracket (``[x_1; x_2]``, ``\\left[ ... \\right]``), closed at its end."""
    t = re.sub(r"\\(?:left|right)\s*(?=[\[\]])", "", text).strip()
    depth = 0
    for k, ch in enumerate(t):
        depth += (ch == "[") - (ch == "]")
        if depth == 0:
            return k == len(t) - 1 and t.startswith("[")
    return False


#: an entry of a sequence at a number, alone on a side: ``\\theta_2``, ``\\theta_{64}``
_ENTRY_AT_NUMBER = re.compile(r"^\s*\\?[A-Za-z]+\s*_\s*(?:\{\s*\d+\s*\}|\d)\s*$")


def value_of_entry(sides: tuple[str, str], refuted_with: list[str], domains: dict[str, str]) -> list[str]:
    """``\\theta_2 = 10000^{-2/128}``: an entry at a number set equal to a number, refuted only through names its
    definition uses and the step does not write (``d_{model}``): the names, else none.

    Such a line states the entry's value at the text's example (``with d = 128``, maybe in words), so a
    counterexample that gives those names other values refutes nothing.

    Example:
        >>> value_of_entry((r"\\theta_2", "10^{-2/8}"), ["d"], {}), value_of_entry((r"\\theta_2", "d"), ["d"], {})
        (['d'], [])
    """
    plain = Scope(domains=domains)
    for entry, number in (sides, sides[::-1]):
        value = read_quiet(number, plain) if _ENTRY_AT_NUMBER.match(entry) else None
        if isinstance(value, sympy.Basic) and not value.free_symbols and refuted_with:
            written = {str(x) for x in free(read_quiet(entry, plain))}
            return refuted_with if written.isdisjoint(refuted_with) else []
    return []


#: what a side may be built of for :func:`false_for_every_value`: numbers, the one name, + * ** and exp/log
_SOLVABLE_PARTS = (sympy.Add, sympy.Mul, sympy.Pow, sympy.exp, sympy.log, sympy.Symbol, sympy.Number)


def false_for_every_value(lhs: Any, rhs: Any, names: list[str]) -> str:
    """``\\theta_1 = 10000^{-0/128}`` with ``\\theta_i = 10000^{-2i/d}``: the name (``d``) left without a value,
    where no real value of it makes the sides equal (SymPy's ``solveset`` over the reals gives the empty set,
    and ``solve`` finds no root either); else "".

    Then the step is false at every value the text may have meant, and refuting it does not rest on a value.
    Only one name, and sides of numbers, sums, products, powers, exp and log (no trigonometry, whose roots
    ``solveset`` may not list in full).

    Example:
        >>> d = sympy.Symbol("d", real=True)
        >>> false_for_every_value(10000 ** (-2 / d), sympy.Integer(1), ["d"])
        'd'
        >>> false_for_every_value(10000 ** (-4 / d), 10000 ** sympy.Rational(-4, 128), ["d"])
        ''
    """
    if not all(isinstance(e, sympy.Expr) and not isinstance(e, MatrixBase) for e in (lhs, rhs)):
        return ""
    difference = lhs - rhs
    unset = list(difference.free_symbols)
    if len(unset) != 1 or str(unset[0]) not in names or unset[0].is_real is not True:
        return ""
    if any(not isinstance(part, _SOLVABLE_PARTS) for part in sympy.preorder_traversal(difference)):
        return ""
    x = sympy.Dummy("x", real=True)
    equation = difference.subs(unset[0], x)
    try:
        empty = sympy.solveset(equation, x, sympy.S.Reals) is sympy.S.EmptySet and sympy.solve(equation, x) == []
    except (NotImplementedError, ValueError, TypeError):
        return ""
    return str(unset[0]) if empty else ""


#: a name with glued letters and a subscript: ``PE_{(pos,2i)}``, ``v_{pos}^{(i)}``
_GLUED_HEAD = re.compile(
    r"^\s*(?P<base>[A-Za-z]+)\s*_\s*(?P<sub>\{(?:[^{}]|\{[^{}]*\})*\}|[A-Za-z0-9])\s*(?P<label>\^\s*\{\s*\([^{}]*\)\s*\})?\s*$"
)


def glued_head(tex: str, scope: Scope) -> tuple[Head, str] | None:
    """A name written with glued letters and a subscript (``PE_{(pos,2i)}``, ``v_{pos}^{(i)}``), read as one
    name: (its head, its base and label, the family it belongs to), or None.

    Such a left side is what the line defines when its letters are one name; read as a product of
    letters it would be no definition at all, and the product reading of it is never a step either.
    """
    m = _GLUED_HEAD.match(normalize_latex(tex))
    if m is None or not re.search(r"[A-Za-z]{2,}", m.group("base") + m.group("sub")):
        return None
    name = read_quiet(tex, replace(scope, word_reading="name"))
    if not isinstance(name, Symbol):
        return None
    return Head("symbol", name.name), m.group("base") + (m.group("label") or "").replace(" ", "")


def bind_late_entries(d: Definition, tables: tuple[dict[str, Definition], ...], domains: dict[str, str]) -> None:
    """Earlier definitions that use an entry of the sequence ``d`` defines (``\\lambda_0``, ``\\lambda_j``), free in
    them when they were read, take its value there: a step reads the entry through ``d``, and the two must agree.

    An entry at arithmetic of whole numbers and names (``\\lambda_{j+1}``) is bound too; an entry written
    otherwise is left as it was.
    """
    if d.kind != "pattern" or len(d.params) != 1:
        return
    rx = re.compile(re.escape(d.name.lstrip("\\")) + r"_\{?\s*(.+?)\s*\}?")
    if d.name.endswith(",*}"):  # R_{\theta,*}, a family over its last subscript: R_{\theta,m}
        rx = re.compile(re.escape(d.name.lstrip("\\")[:-2]) + r"\s*(.+?)\s*\}")
    for table in tables:
        for key, other in list(table.items()):
            body = other.body
            if other is d or not isinstance(body, (sympy.Basic, MatrixBase)):
                continue
            mapping = {}
            for x in free(body):
                m = rx.fullmatch(getattr(x, "name", ""))
                if m is None or x in other.params:
                    continue
                index = _entry_index(m.group(1), domains)
                try:
                    if index is not None:
                        mapping[x] = d.apply([index])
                except (ClaimParseError, ClaimLimitError, TypeError, ValueError):
                    continue  # an entry the definition cannot give: left as it was
            if mapping:
                table[key] = replace(other, body=body.subs(mapping))


def bind_late_calls(d: Definition, tables: tuple[dict[str, Definition], ...]) -> None:
    """Earlier definitions that call the function ``d`` defines, undefined then (``q_m = f_q(x_m, m)``), take the
    call's value. A call the body cannot be applied to (a function read with general matrices only) stays."""
    for table in tables:
        for key, other in list(table.items()):
            body = other.body
            if other is d or not isinstance(body, sympy.Basic) or isinstance(body, MatrixBase):
                continue
            calls = [f for f in body.atoms(AppliedUndef) if f.func.__name__ == d.name]
            try:
                values = {f: d.apply(list(f.args)) for f in calls}
            except ClaimParseError:
                continue
            if values and not any(isinstance(v, MatrixBase) for v in values.values()):
                table[key] = replace(other, body=body.xreplace(values))


def named_by_call(
    d: Definition, symbols: dict[str, Definition], patterns: dict[str, Definition], families: dict[str, Definition]
) -> tuple[list[str], dict[str, Definition]]:
    """What a family named as a call of ``d``'s function (``q_m = f_q(x_m, m)``, ``f_q`` undefined then; its first
    definition, kept in ``families``) was given in between (``q_m = W_q(x_m + p_m)``, an example): defining the
    function says again what the family is. Returns the members' keys in ``symbols`` that give way, and the
    families (by key in ``patterns``) that are the call again from here on."""
    drop, again = [], {}
    for key, family in families.items():
        body = family.body
        if not (isinstance(body, AppliedUndef) and body.func.__name__ == d.name and family.line < d.line):
            continue
        if len(family.params) != 1 or family.params[0] not in body.free_symbols:
            continue
        drop += [k for k, s in symbols.items() if k.startswith(family.name + "_") and family.line < s.line < d.line]
        now = patterns.get(key)
        if now is not None and now is not family and family.line < now.line < d.line:
            again[key] = family
    return drop, again


def renewed_calls(
    d: Definition, tables: tuple[dict[str, Definition], dict[str, Definition], dict[str, Definition]], pairs: Any
) -> tuple[list[str], dict[str, Definition]]:
    """:func:`named_by_call` for a function ``d`` defined (symbols, patterns, the families named as calls), never
    taking back a name whose column the document states to be a complex number (``pairs``: the scope's
    ``complex_pairs``): a family named as a call given again (``q_m = f_q(x_m, m)``, then ``f_q`` defined) leaves
    ``q_m`` the column the document stated after it."""
    if d.kind != "function":
        return [], {}
    symbols, patterns, calls = tables
    paired = {p[0] for p in pairs}
    return named_by_call(d, {k: v for k, v in symbols.items() if k not in paired}, patterns, calls)


def _entry_index(sub: str, domains: dict[str, str]) -> Any:
    """The index a subscript as SymPy names it spells (``0``, ``j``, ``j + 1``, ``2*i``), or None."""
    if not re.fullmatch(r"[A-Za-z0-9+\-*/() ]+", sub) or re.search(r"[A-Za-z]{2,}", sub):
        return None
    names = {c: domain_symbol(c, domains) for c in set(re.findall(r"[A-Za-z]", sub))}
    try:
        return sympy.sympify(sub, locals=names)
    except (sympy.SympifyError, SyntaxError, TypeError):
        return None


def entry_of(name: Head, family: Head) -> bool:
    """Whether ``name`` is one entry of the ``family`` defined over its last subscript: ``R_{\\theta,n-m}`` of
    ``R_{\\theta,t}``, ``h_{d/2}`` of ``h_i``."""
    if name.kind != "symbol" or family.kind != "pattern":
        return False
    key, base = name.key.lstrip("\\"), family.key.lstrip("\\")
    if base.endswith(",*}"):
        return re.fullmatch(re.escape(base[:-2]) + r".+\}", key) is not None
    return re.fullmatch(re.escape(base) + r"_(?:\{.+\}|\w)", key) is not None


_SUBSCRIPT = re.compile(r"_\s*\{(?:[^{}]|\{[^{}]*\})*\}")


def without_subscripts(text: str) -> str:
    """The text without its braced subscripts (``R_{\\Theta,t}`` -> ``R``), where a name is only a label."""
    return _SUBSCRIPT.sub(" ", text)


def without_set_labels(key: str, text: str) -> str:
    """The text without the names a set's name only begins (``\\Theta_{q}`` of ``\\Theta``: a name of its own,
    the set's name with a subscript) and without its braced subscripts (``R_{\\Theta,t}`` -> ``R``)."""
    own = r"(?:\\|(?<![A-Za-z\\]))" + re.escape(key.lstrip("\\")) + r"\s*_\s*(?:\{(?:[^{}]|\{[^{}]*\})*\}|[A-Za-z0-9])"
    return without_subscripts(re.sub(own, " ", text))


#: ``\\left(R_{\\theta, m}\\right)_{i}``, ``(W)_{jk}``: a part (an entry, a block) of a name, subscript on a bracket
_BRACKET_PART = re.compile(
    r"\s*(?:\\left\s*)?\(\s*(?P<inner>[^()]+?)\s*(?:\\right\s*)?\)\s*_\s*(?:\{[^{}]*\}|[A-Za-z0-9])\s*"
)


def bracket_part_head(tex: str, scope: Scope) -> Head | None:
    """The name new to the document of which ``tex`` is a part, written as a subscript on a bracket, or None.

    A line that gives such a part a value (``\\left(R_{\\theta,m}\\right)_{i} = [...]``, block i of R) defines the
    name part by part: a definition, not a step. The reader reads no subscript on a bracket, so the name is not
    read, and steps that use it are not decided. A name the document defined before is no new name: the line is
    then a claim about its part (a step).

    Example:
        >>> bracket_part_head(r"\\left(R_{\\theta, m}\\right)_{i}", Scope()).key
        'R_{\\\\theta,*}'
    """
    m = _BRACKET_PART.fullmatch(normalize_latex(tex))
    if m is None:
        return None
    found = head(m.group("inner"), scope)
    if found is None or found.kind == "function" or is_defined(found, m.group("inner"), scope):
        return None
    return found


#: ``b^*`` (or ``b^{\ast}``) alone on its side: a starred name
_STARRED = re.compile(
    r"^\s*((?:\\[A-Za-z]+|[A-Za-z])(?:\s*_\{[^{}]*\}|\s*_[A-Za-z0-9])?)\s*\^\s*(?:\{\s*(?:\*|\\ast)\s*\}|\*|\\ast)\s*$"
)
#: a side that is an infimum, supremum, minimum or maximum over something (``\inf\{b \mid ...\}``, ``\arg\min_b``)
_OPTIMUM_OF = re.compile(
    r"^\s*(?:\\arg\s*)?\\(?:inf|sup|min|max)(?![A-Za-z])|^\s*\\operatorname\*?\{arg\s*\\?,?\s*(?:min|max)\}"
)


def optimum_head(tex: str, body: str) -> Head | None:
    """``b^* = \\inf\\{b \\mid ...\\}``: the starred name an optimum defines, as a head that finds it written
    again (kind ``decorated``, a regular expression), or None.

    Read as b's conjugate the line would say that a conjugate equals an infimum, which no text means: in either
    reading it gives the optimum a name, a definition and not a step.

    Example:
        >>> found = optimum_head("b^*", r"\\inf\\{ b \\mid f_b(m) \\geq 0 \\}")
        >>> bool(re.search(found.key, r"L / b^{*}")), bool(re.search(found.key, r"a b")), optimum_head("b^*", "2 b")
        (True, False, None)
    """
    m = _STARRED.match(normalize_latex(tex))
    if m is None or not _OPTIMUM_OF.match(body):
        return None
    name = re.escape(re.sub(r"\s+", "", m.group(1))).replace("_", r"\s*_")
    return Head("decorated", rf"(?<![A-Za-z\\]){name}\s*\^\s*(?:\{{\s*(?:\*|\\ast)\s*\}}|\*|\\ast)")
