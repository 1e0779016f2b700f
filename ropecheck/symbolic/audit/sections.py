"""Values an example section sets for itself: "Let $c = 3$." at the start of a section, in force up to the next heading.

A value given in passing ("substituting $n = m + 1$", "at position $m = 2$") is an example or a case:
it is never substituted into a step (see :mod:`.steps`). A section that opens by setting a value
("### Step 2" then "Using $W_q = W_k = I$ for clarity:") states what its own steps assume. Those steps
may then be decided at that value, and the verdict says so; steps after the next heading, and steps of
a section whose setting comes after some of its math, are not.

Design constraints: pure functions of the document's text; a setting is recognised only where a
sentence opens with a setting word (let, assume, suppose, set, take, using, we use ...) and the value's
formula follows within a few words, so a value named in passing is never taken for one.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..readers.scope import Scope
from .document import MathBlock

__all__ = ["FENCE", "heading_level", "heading_lines", "in_force", "section_setting"]

#: a Markdown heading (``## Setup``) and a LaTeX sectioning command (``\subsection{Setup}``)
_MARKDOWN_HEADING = re.compile(r"^ {0,3}(#{1,6})\s")
_LATEX_HEADING = re.compile(r"^\s*\\(part|chapter|section|subsection|subsubsection|paragraph)\*?\s*[\[{]")
_LATEX_LEVELS = ("part", "chapter", "section", "subsection", "subsubsection", "paragraph")
#: a line that opens or closes a fenced code block (its ``#`` lines are comments, no headings)
FENCE = re.compile(r"^ {0,3}(?:```|~~~)")
#: a sentence that opens by setting a value: the word, then at most four words before the formula
_SETTING = re.compile(
    r"(?i)^(?:let|assume|assuming|suppose|set|setting|take|taking|using|use|fix|choose"
    r"|we\s+(?:use|set|take|let|assume|fix|choose))\b(?:\s+[\w,()-]+){0,4}\s*$"
)
#: words that make "using ... $x = 1$" cite a fact (an identity, a result) rather than set a value
_FACT = re.compile(
    r"(?i)\b(?:that|fact|identity|identities|result|formula|property|rule|definition|equation|theorem|lemma)s?\b"
)
#: where a sentence (or a paragraph, or a list item) ends
_CLAUSE_END = re.compile(r"[.!?:;](?:\s|$)|\n[ \t]*\n|\n[ \t]*(?:[-*+]|\d+[.)])\s|\n {0,3}#{1,6}\s[^\n]*(?:\n|$)")
#: Markdown marks a sentence may open with (bold, a list bullet, a quote)
_LEAD = re.compile(r"^[\s>*_+-]*")


def heading_level(line: str) -> int | None:
    """A heading's level: one per ``#`` of a Markdown heading, a LaTeX sectioning command by its rank; else None.

    Example:
        >>> heading_level("## B"), heading_level("\\\\section{C}"), heading_level("text")
        (2, 3, None)
    """
    m = _MARKDOWN_HEADING.match(line)
    if m is not None:
        return len(m.group(1))
    m = _LATEX_HEADING.match(line)
    return _LATEX_LEVELS.index(m.group(1)) + 1 if m is not None else None


def heading_lines(text: str, *, latex: bool) -> list[int]:
    """The lines (1-based) that start a section: Markdown headings outside code fences, or LaTeX sectioning.

    Example:
        >>> heading_lines("# A\\n```\\n# a comment\\n```\\n## B\\n", latex=False)
        [1, 5]
    """
    out, fenced = [], False
    for number, line in enumerate(text.splitlines(), start=1):
        if not latex and FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        if (_LATEX_HEADING if latex else _MARKDOWN_HEADING).match(line):
            out.append(number)
    return out


def section_setting(text: str, blocks: list[MathBlock], at: int, headings: list[int]) -> tuple[int, int] | None:
    """(the line, the next heading's line) where inline math ``blocks[at]`` sets a value for its section, or None.

    It does where a sentence opens with a setting word just before it, the block lies in a section (a
    heading above it) and no display of that section comes before it. The section ends at the next heading
    (or after the document's last line).
    """
    block = blocks[at]
    above = [h for h in headings if h <= block.line]
    if not above:
        return None
    if any(b.kind == "display" and above[-1] < b.line < block.line for b in blocks[:at]):
        return None
    start = blocks[at - 1].src.col(len(blocks[at - 1].src.text)) if at else 0
    prose = "\n" + text[start : block.src.col(0)].rstrip("$ \t")  # a heading on the first line ends a clause too
    ends = list(_CLAUSE_END.finditer(prose))
    clause = prose[ends[-1].end() :] if ends else prose
    opening = _LEAD.sub("", clause).replace("*", "")
    if not _SETTING.match(opening) or _FACT.search(opening):
        return None
    below = [h for h in headings if h > block.line]
    return block.line, below[0] if below else text.count("\n") + 2


def in_force(settings: dict[str, tuple[int, int]], scope: Scope, line: int, stop: str) -> tuple[Scope, str] | None:
    """The scope with the values sections set that are in force at ``line`` substituted, and those values in
    words; None when the step (stopped with reason ``stop``) stopped at none of them.

    ``settings``: each name a section sets -> (the line of its value, the line the section ends).
    """
    force = {
        k: scope.symbols[k]
        for k, (start, end) in settings.items()
        if start < line < end and k in scope.symbols and scope.symbols[k].stated_value
    }
    if not force or "is given the value" not in stop:
        return None
    symbols = {**scope.symbols, **{k: replace(d, stated_value=False) for k, d in force.items()}}
    # the names the step stopped at, or was read for every value of: those it uses
    used = [(k, d) for k, d in sorted(force.items()) if re.search(_NAMED_AT.format(re.escape(k)), stop)]
    said = ", ".join(f"{k} = {d.body_source or d.body} (line {d.line})" for k, d in used or sorted(force.items()))
    said += f", {'the values' if len(used) > 1 else 'a value'} its section sets for its steps"
    return replace(scope, symbols=symbols), said


#: where a step's reason names a value given in passing that it uses (``{}``: the name, escaped)
_NAMED_AT = r"(?<![\w{{}}\\]){} (?:=|is given)"
