r"""Where a bare name the audit could not read (``k``, whose definition ``k = j - i`` is not read) is written
in a step only as part of another name's spelling, which the reader never gives the bare name's value.

A step that uses a name whose definition could not be read is not decided (UNREAD). The letter of that name
also spells other names, which the reader reads as names of their own whatever the bare name is:

* the base of a name with a subscript: ``\mathbf k_j``, ``k_n^{(1)}``, ``k_{3}`` are each a symbol of their own
  (the key vector at j, an entry), never the number k with something attached -- only where the unread value
  is written as arithmetic of indices (``k = j - i``, each letter one the document writes in a subscript), a
  number, which has no entries: an unread vector ``k = R v`` keeps ``k_3``, which may be its entry, a use;
* a subscript of a name that is no family the document defines: ``W_k``, ``f_k``, ``r_{k+1}``
  are labels, read as one symbol each (a family defined over its subscript, ``\theta_i = ...``, is read at the
  subscript's value, and then the bare name's value is used: that use stays).

A family the document defines by a pattern on the same letter with another number of subscripts also spells names
of its own: where ``\theta = \mathrm{diag}(\theta_1, \cdots)`` is not read but ``\theta_j = b^{-2j/d}`` is,
``\theta_j`` is read at the family's value, never the bare name's (and where a vector ``\theta_d = [\theta_{0,d},
\dots]`` is not read but ``\theta_{i,d} = \theta^{2i/d}`` is, so is ``\theta_{i,d}``); a use with as many subscripts
as the unread name (``\theta_d`` itself, or ``\theta_5``) stays a use (:func:`without_family_members`).

Those spellings are blanked before the taint is looked for, so a step that writes only them is read; every
other use stays a use -- the bare name anywhere else, in a superscript (``\mathbf T^k``, ``\Phi^k_m``), after a
command that is no letter (``\sum_{k=1}``), under a decoration the reader does not strip, or as a subscript of a
base written in a form not recognised here.

Design constraints: pure functions of the text, of the families the scope defines and of the document's math;
they only ever take uses away where the reader does not read the bare name's value (a name of its own, a label),
so a step let through is read exactly as it would be were the bare name defined.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["family_bases", "index_arithmetic", "subscript_count", "without_family_members", "without_label_uses"]

#: a bare name the blanking applies to: a letter or a Greek letter's command, nothing attached
_BARE_NAME_KEY = re.compile(r"\\?[A-Za-z]+")
#: Greek letters, which the reader reads as names (a command that is not one, ``\sum``, may bind its subscript)
_GREEK_LETTER_NAMES = frozenset(
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi varpi rho "
    "varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon "
    "Phi Psi Omega".split()
)
#: the base of a subscript, at the end of the text before its ``_``: a Greek letter's command or a lone letter
_LABELLED_BASE = re.compile(r"(?:\\([A-Za-z]+)|(?<![A-Za-z\\])([A-Za-z]))\s*$")


def family_bases(keys: Iterable[str]) -> frozenset[str]:
    """The base letters of the families and functions a scope defines (``R_{\\theta,*}`` -> ``R``, ``f_{q}`` ->
    ``f``, ``\\theta`` -> ``theta``): a subscript of one of them may be read at its value."""
    bases = set()
    for key in keys:
        m = re.match(r"\\?([A-Za-z]+)", key.strip().lstrip("{"))
        if m is not None:
            bases.add(m.group(1))
    return frozenset(bases)


def index_arithmetic(body: str, math: Iterable[str]) -> bool:
    """Whether the value ``body`` is written as whole numbers and letters joined by ``+`` and ``-`` (``j - i``),
    each letter one the document's ``math`` writes in a subscript (an index, ``\\theta_j``, ``x_{2i}``): a number.

    Example:
        >>> index_arithmetic("j - i", [r"a_{i,j} = q_i k_j"]), index_arithmetic("j - v", [r"a_{i,j} = v"])
        (True, False)
    """
    if re.fullmatch(r"\s*[A-Za-z0-9]+\s*(?:[+-]\s*[A-Za-z0-9]+\s*)+", body) is None:
        return False
    letters = set(re.findall(r"[A-Za-z]", body))
    if re.search(r"[A-Za-z]{2}|[A-Za-z][0-9]|[0-9][A-Za-z]", body):
        return False  # jk, 2j: a product or a longer name, not a plain sum
    texts = list(math)
    for letter in letters:
        rx = rf"_\s*(?:{letter}(?![A-Za-z])|\{{[^{{}}]*(?<![\\A-Za-z]){letter}(?![A-Za-z])[^{{}}]*\}})"
        if not any(re.search(rx, t) for t in texts):
            return False
    return True


def without_label_uses(key: str, text: str, families: frozenset[str], *, number: bool) -> str:
    r"""``text`` (normalized LaTeX) with the spellings of other names that contain the bare name ``key`` blanked
    (see the module); ``text`` itself where ``key`` is not a bare name. ``number``: whether the bare name's
    value is known to be a number (:func:`index_arithmetic`), so that a name with a subscript on its letter is
    no entry of it.

    Example:
        >>> without_label_uses("k", r"\mathbf k_j = W_k x^j + T^k", frozenset(), number=True)
        '\\mathbf @_j = W_@ x^j + T^k'
        >>> without_label_uses("k", r"\mathbf k_j = W_k x^j", frozenset(), number=False)
        '\\mathbf k_j = W_@ x^j'
        >>> without_label_uses("k", r"\theta_k + \sum_{k=1} r_{k+1}", frozenset({"theta"}), number=True)
        '\\theta_k + \\sum_{k=1} r_{@+1}'
    """
    if not _BARE_NAME_KEY.fullmatch(key):
        return text
    name = key.lstrip("\\")
    rx = re.compile(r"(?:\\|(?<![A-Za-z\\]))" + re.escape(name) + r"(?![A-Za-z])")
    out, last = [], 0
    for m in rx.finditer(text):
        if (number and _base_of_subscripted(text, m.start(), m.end())) or _label_of(text, m.start(), families):
            out += [text[last : m.start()], "@" * len(name)]
            last = m.end()
    return "".join(out) + text[last:]


def _base_of_subscripted(text: str, start: int, end: int) -> bool:
    """Whether the name at ``text[start:end]`` carries a subscript (``k_j``) and is in no script position itself
    (``\\Phi^k_m`` keeps its k)."""
    if re.match(r"\s*_", text[end:]) is None:
        return False
    return not text[:start].rstrip().endswith(("^", "_"))


def _label_of(text: str, at: int, families: frozenset[str]) -> bool:
    """Whether ``text[at]`` lies in the subscript of a name (a letter or a Greek letter) that is no family in
    ``families``: a label of that name."""
    before = text[:at].rstrip()
    if not before.endswith("_"):
        depth, i = 0, len(before) - 1
        while i >= 0:  # the innermost open brace, which must open a subscript
            depth += {"}": 1, "{": -1}.get(before[i], 0)
            if depth < 0:
                break
            i -= 1
        if i < 0 or not before[:i].rstrip().endswith("_"):
            return False
        before = before[:i].rstrip()
    base = _LABELLED_BASE.search(before[:-1])
    if base is None:
        return False
    command, letter = base.group(1), base.group(2)
    if command is not None and command not in _GREEK_LETTER_NAMES:
        return False
    return (command or letter) not in families


#: a name's letter (a Greek letter's command or a lone letter) and its subscript, braced (one level of nesting) or not
_SUBSCRIPTED = re.compile(
    r"(?:\\(?P<cmd>[A-Za-z]+)|(?<![A-Za-z\\])(?P<letter>[A-Za-z]))\s*_\s*"
    r"(?:\{(?P<braced>(?:[^{}]|\{[^{}]*\})*)\}|(?P<one>[A-Za-z0-9]))"
)


def subscript_count(key: str) -> int:
    """How many subscripts a name's key carries, split at its top-level commas (``theta`` 0, ``theta_{d}`` 1,
    ``theta_{i,*}`` 2).

    Example:
        >>> subscript_count("theta"), subscript_count("theta_{d}"), subscript_count("theta_{i,*}")
        (0, 1, 2)
    """
    _, sep, sub = key.partition("_")
    if not sep:
        return 0
    sub = sub.strip()
    if sub.startswith("{") and sub.endswith("}"):
        sub = sub[1:-1]
    return len(_top_commas(sub))


def without_family_members(base: str, count: int, text: str, patterns: Iterable[str]) -> str:
    r"""``text`` (normalized LaTeX) with each name on the letter ``base`` blanked whose subscripts, other in
    number than ``count`` (those of an unread name on that letter), a pattern in ``patterns`` reads: a plain
    pattern (``\theta``, over one subscript) reads one subscript, a pattern over its last subscript
    (``theta_{i,*}``) reads those with the same subscripts before it.

    Example:
        >>> without_family_members("theta", 0, r"\frac{1}{\theta_j} + \theta", [r"\theta"])
        '\\frac{1}{\\@@@@@_j} + \\theta'
        >>> without_family_members("theta", 1, r"\theta_{i,d} + \theta_{k,d} + \theta_d", ["theta_{i,*}"])
        '\\@@@@@_{i,d} + \\theta_{k,d} + \\theta_d'
    """
    keys = {k.strip().lstrip("\\") for k in patterns}
    out, last = [], 0
    for m in _SUBSCRIPTED.finditer(text):
        if (m.group("cmd") or m.group("letter")) != base:
            continue
        sub = m.group("braced") if m.group("braced") is not None else m.group("one")
        parts = [p.strip() for p in _top_commas(sub)]
        if len(parts) == count:
            continue
        plain = len(parts) == 1 and base in keys
        last_free = len(parts) > 1 and f"{base}_{{{','.join(parts[:-1])},*}}" in keys
        if plain or last_free:
            start = m.start("cmd") if m.group("cmd") else m.start("letter")
            out += [text[last:start], "@" * len(base)]
            last = start + len(base)
    return "".join(out) + text[last:]


def _top_commas(sub: str) -> list[str]:
    """``sub`` split at its commas outside braces."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(sub):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(sub[start:i])
            start = i + 1
    return [*parts, sub[start:]]
