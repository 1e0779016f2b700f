"""Two ways a derivation names a value without writing ``name = value`` as a definition of its own.

A family of vectors written with a subscript and a label, ``v_{pos}^{(i)} = [\\sin(\\omega_i pos);
\\cos(\\omega_i pos)]``: the subscript is the position and the label the frequency, and the same name
at another subscript (``v_{pos+k}^{(i)}``) or label (``v_{pos}^{(0)}``) is the body at those. Read
with its letters as one name, the line would define one name only, and a later ``v_{pos+k}^{(i)}``
would be a free number. :func:`family_head` says whether a left side is such a family and
:func:`define_family_in_child` reads its body, both indices kept as symbols; the reader
(:mod:`..readers.latex_syntax`, ``family_key``) puts the body in at each member.

A name given under a brace, ``\\underbrace{M}_{R_i(k)}``: the brace says that M is R_i(k), so later
steps read R_i(k) as M. :func:`brace_names` finds each such pair in a link; the audit defines the
name only where it is new and reads as a name (:mod:`.steps`).

Design constraints: pure functions of the text and the scope; nothing here forks (the audit runs
:func:`define_family_in_child` in a child) and nothing imports :mod:`.steps`.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ...errors import ClaimLimitError, ClaimParseError
from ..readers.latex_syntax import family_key, normalize_latex, read_latex_side
from ..readers.latex_text import skip_group
from ..readers.limits import check_text
from ..readers.scope import Definition, Scope, domain_symbol
from .document import Link
from .reading import UNREAD, Outcome, error_text, free

__all__ = ["brace_names", "define_family_in_child", "family_head"]

#: ``v_{pos}^{(i)}``, ``u_m^{(j)}``: a base, one index (a letter or a word of letters) and a one-letter label
_FAMILY_HEAD = re.compile(
    r"^\s*(?P<base>[A-Za-z])\s*_\s*(?:\{\s*(?P<sub>[A-Za-z]+)\s*\}|(?P<one>[A-Za-z]))"
    r"\s*\^\s*\{\s*\(\s*(?P<label>[A-Za-z])\s*\)\s*\}\s*$"
)
#: what may stand in a family's body beside its own indices: LaTeX commands, environments, row spacing
_NOT_WORDS = re.compile(r"\\(?:begin|end)\s*\{[^{}]*\}|\\\\\s*\[[^\]]*\]|\\[A-Za-z]+")


def family_head(tex: str) -> tuple[str, str, str] | None:
    """``v_{pos}^{(i)}`` -> ``("v", "pos", "i")``: the base, the subscript's name and the label's, or None.

    The two indices must differ; ``i`` is never the subscript (it is the imaginary unit or an index).
    """
    m = _FAMILY_HEAD.match(normalize_latex(tex))
    if m is None:
        return None
    sub = m.group("sub") or m.group("one")
    if sub == m.group("label") or sub == "i":
        return None
    return m.group("base"), sub, m.group("label")


def define_family_in_child(link: Link, body: Link, scope: Scope) -> Outcome:
    """Read a family's body with its subscript and its label as the two parameters, or say why not.

    The subscript may be a word (``pos``): it is then one name, and the body may use no other word, so
    that a step reading glued letters as a product reads the family the same way at its member. The
    body must use both: a label it does not use names one vector (``u^{(a)}`` beside ``u^{(b)}``), not
    a member of a family, and a later ``u^{(b)} = ...`` is then a definition, never a step.
    """
    found = family_head(link.text)
    if found is None:
        return Outcome(UNREAD, reason="not a family of vectors with a subscript and a label")
    base, sub, label = found
    others = set(re.findall(r"[A-Za-z]{2,}", _NOT_WORDS.sub(" ", body.text))) - {sub}
    if others:
        return Outcome(UNREAD, reason=f"its body uses glued letters other than its index ({sorted(others)[0]})")
    if base in scope.patterns:
        return Outcome(UNREAD, reason=f"{base} is already a sequence of the document ({base}_m)")
    try:
        check_text(body.text)
        value = read_latex_side(body.text, 0, replace(scope, word_reading="name"), bound=frozenset({sub, label}))
    except (ClaimParseError, ClaimLimitError) as exc:
        return Outcome(UNREAD, reason=error_text(exc, body))
    params = tuple(domain_symbol(p, dict(scope.domains)) for p in (sub, label))
    unused = [p for p in params if p not in free(value)]
    if unused:  # a label the body does not use names a vector of its own (u^{(a)}, u^{(b)}): no family
        return Outcome(UNREAD, reason=f"its body does not use its index {unused[0]}")
    d = Definition("pattern", family_key(base), value, params, link.text, link.line, body_source=body.text)
    return Outcome("DEFINED", definition=d)


_BRACE = re.compile(r"\\underbrace\s*(?=\{)")


def brace_names(text: str) -> list[tuple[str, str]]:
    """Each ``\\underbrace{X}_{NAME}`` in ``text`` as (NAME, X), the LaTeX of both.

    An unbalanced brace ends the search (the reader says where)."""
    out = []
    for m in _BRACE.finditer(text):
        end = skip_group(text, m.end())
        label = re.match(r"\s*_\s*\{", text[end:]) if end > 0 else None
        if label is None:
            continue
        at = end + label.end() - 1
        stop = skip_group(text, at)
        if stop < 0:
            break
        out.append((text[at + 1 : stop - 1].strip(), text[m.end() + 1 : end - 1].strip()))
    return out
