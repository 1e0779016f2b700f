"""A name the document bounds below by a number that makes it positive (``k > 1``, ``s \\ge 2``): read as positive.

A derivation that scales a base or a position states the scale's range once (``where $k > 1$``) and then
distributes powers of it (``(10000 k^{d/(d-2)})^{-2i/d} = 10000^{-2i/d} k^{-2i/(d-2)}``), which holds for a
positive k and not for every real one. The bound stays what it was (a counterexample may break it, so a step
that uses the name is REFUTED only at values that keep it, :func:`keeps_bound`); here it also gives the name the
domain it implies, positive, so that a rewrite that needs a positive base can prove such a step. The verdict says
which bound it rests on.

Design constraints: only ``name > c`` and ``name \\gg c`` with c a written number >= 0, and ``name \\ge c`` with
c > 0 (the name alone on the left, written before the step); a name already given a domain keeps it, and a
name bounded so more than once keeps the first bound. The domain is only ever narrowed to what the text states.
A bound the sentence around it poses as a case, a supposition or something false ("if $k > 1$", "suppose",
"otherwise", "$k > 1$ is not true", "如果") gives no sign (:func:`bound_hedged`); a later bound on the name that
does not make it positive (``k < -1``) or a later declaration of its domain lifts the sign (the caller), and so
does the end of the section the bound is stated in (the next heading of its level or above, :func:`section_end`):
"the series holds for $x > 0$" in one section says nothing of a position x in the next.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import sympy

from ..readers.scope import domain_key
from .document import MathBlock
from .sections import FENCE, heading_level

__all__ = [
    "CASE_WORDS",
    "NEGATING_WORDS",
    "bound_hedged",
    "heading_levels",
    "keeps_bound",
    "positive_from_bound",
    "said_bound",
    "section_end",
    "sentence_around",
    "sign_note",
]

_WRITTEN_NUMBER = re.compile(r"\s*(\d+(?:\.\d+)?)\s*")
_STRICT = ("\\gt", "\\gg")
_WIDE = ("\\ge", "\\geq")
#: words that say what their sentence states is not so ("not", "never", "fails", "不")
NEGATING_WORDS = re.compile(
    r"(?i)(?<![A-Za-z])(?:not|never|no|nor|neither|false|wrong|fails?|instead|except|cannot|isn't|doesn't|can't|"
    r"aren't|won't)(?![A-Za-z])|不是|不成立|不为|并不|并非|而非|不能|不会|不一定|不满足|未必"
)
#: words that make a bound in their sentence a case, a supposition or an example
CASE_WORDS = re.compile(
    r"(?i)(?<![A-Za-z])(?:if|when|whenever|unless|otherwise|else|suppose|supposing|assume|assuming|case|cases|"
    r"whether|example|instance|eg)(?![A-Za-z])|如果|若|假设|假如|当|否则|是否|例如|比如"
)
#: where a sentence ends (a full stop before a space, a CJK full stop, a blank line)
_SIGN_SENTENCE_END = re.compile(r"[.!?;:](?=\s|$)|[。！？；：]|\n[ \t]*\n")
_SAID = {"\\gt": ">", "\\gg": ">>", "\\ge": ">=", "\\geq": ">="}


def positive_from_bound(name: str, relation: str, value: str) -> str | None:
    """The domain key of ``name`` when ``name <relation> value`` makes it positive, else None.

    Example:
        >>> positive_from_bound("k", "\\\\gt", "1"), positive_from_bound("\\\\alpha", "\\\\ge", "0")
        ('k', None)
    """
    m = _WRITTEN_NUMBER.fullmatch(value)
    if m is None or not re.fullmatch(r"\\?[A-Za-z]+(?:_\{?[A-Za-z0-9]+\}?)?", name.strip()):
        return None
    bound = sympy.Rational(m.group(1))
    if (relation in _STRICT and bound >= 0) or (relation in _WIDE and bound > 0):
        return domain_key(name.strip())
    return None


def bound_hedged(text: str, blocks: list[MathBlock], at: int) -> bool:
    """Whether the sentence around ``blocks[at]`` (its math included) poses what it states as a case, a
    supposition, an example or a falsehood, so that a bound written there is no fact about the name.

    Example:
        >>> from ..readers.latex_text import Src
        >>> def hedged(text):
        ...     return bound_hedged(text, [MathBlock("inline", Src.of("k > 1", text.index("$") + 1), 1)], 0)
        >>> hedged("Here $k > 1$ is the scale."), hedged("If $k > 1$ then it shrinks."), hedged("So $k > 1$ is false.")
        (False, True, True)
    """
    sentence = sentence_around(text, blocks, at)
    return bool(CASE_WORDS.search(sentence) or NEGATING_WORDS.search(sentence))


def sentence_around(text: str, blocks: list[MathBlock], at: int) -> str:
    """The sentence ``blocks[at]`` stands in, its math included (from the last sentence end before it to the first
    after it; "e.g." and "i.e." end none).

    Example:
        >>> from ..readers.latex_text import Src
        >>> text = "One. Two, i.e. $k > 1$ here. Three."
        >>> sentence_around(text, [MathBlock("inline", Src.of("k > 1", text.index("$") + 1), 1)], 0)
        'Two, ie   $k > 1$ here'
    """
    text = re.sub(r"(?i)(?<![A-Za-z])(e|i)\.(g|e)\.", lambda m: m.group(1) + m.group(2) + "  ", text)  # same length
    start, end = blocks[at].src.col(0), blocks[at].src.col(len(blocks[at].src.text))
    before = [m.end() for m in _SIGN_SENTENCE_END.finditer(text, 0, start)]
    after = _SIGN_SENTENCE_END.search(text, end)
    return text[(before[-1] if before else 0) : (after.start() if after else len(text))].strip()


def heading_levels(text: str) -> list[tuple[int, int]]:
    """The document's headings as (line, level): one per ``#`` of a Markdown heading, a LaTeX command by its rank;
    a ``#`` comment inside a fenced code block is no heading.

    Example:
        >>> heading_levels("# A\\ntext\\n## B\\n\\\\section{C}")
        [(1, 1), (3, 2), (4, 3)]
        >>> heading_levels("## A\\n```\\n# a comment\\n```\\n## B")
        [(1, 2), (5, 2)]
    """
    out, fenced = [], False
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            fenced = not fenced
        level = None if fenced else heading_level(line)
        if level is not None:
            out.append((number, level))
    return out


def section_end(levels: list[tuple[int, int]], line: int) -> int | None:
    """The line of the first heading after ``line`` at the level of the heading above it or higher (the end of the
    section it stands in), or None where the section runs to the end (or no heading comes before it).

    Example:
        >>> section_end([(1, 1), (3, 2), (9, 2), (12, 1)], 5), section_end([(1, 1), (3, 2)], 5)
        (9, None)
    """
    above = [level for at, level in levels if at <= line]
    if not above:
        return None
    return next((at for at, level in levels if at > line and level <= above[-1]), None)


def said_bound(name: str, relation: str, value: str) -> str:
    """The bound as a verdict's reason says it.

    Example:
        >>> said_bound("k", "\\\\gt", " 1")
        'k > 1'
    """
    return f"{name.strip()} {_SAID.get(relation, relation)} {value.strip()}"


#: a bound as :func:`said_bound` says it: ``k > 1``, ``s >= 2``
_SAID_BOUND = re.compile(r"\S+ (?P<op>>=|>) (?P<value>\d+(?:\.\d+)?)")


def keeps_bound(value: Any, said: str) -> bool:
    """Whether ``value`` meets the bound a text states (``k > 1``); False for a bound not read so, or a value not
    a real number.

    Example:
        >>> keeps_bound(sympy.Integer(2), "k > 1"), keeps_bound(sympy.Integer(1), "k > 1"), keeps_bound(3, "k >> 1")
        (True, False, False)
    """
    m = _SAID_BOUND.fullmatch(said)
    value = sympy.sympify(value)
    if m is None or not (value.is_number and value.is_real):
        return False
    bound = sympy.Rational(m.group("value"))
    return bool(value > bound) if m.group("op") == ">" else bool(value >= bound)


def sign_note(names: set[str], signs: Mapping[str, tuple[str, int]]) -> str:
    """What a decided step's reading of these names (their domain keys) rests on: "" when it rests on no bound.

    Example:
        >>> sign_note({"k", "d"}, {"k": ("k > 1", 308)})
        'read with k positive, as the text states k > 1 (line 308)'
    """
    used = sorted(n for n in names if n in signs)
    if not used:
        return ""
    said = ", ".join(f"{signs[n][0]} (line {signs[n][1]})" for n in used)
    return f"read with {', '.join(used)} positive, as the text states {said}"
