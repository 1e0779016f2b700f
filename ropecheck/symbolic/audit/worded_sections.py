"""A domain said in words lasts as long as the section it is said in: "for complex $z$" in one section, not the next.

:mod:`.worded_domains` reads "for complex $z$" as a declaration. Said in one section ("## The complex case"),
it says nothing of a z in the next ("## Real angles"), where ``|e^{iz}| = 1`` is the statement about a real angle:
read with z complex there, it is REFUTED, wrongly. Here such a declaration ends where its section ends (the next
heading of the same level or higher), unless it was said before the first heading (then it holds for the whole
document). After the end the name is not read as real either (a later section may still mean it complex, and a
step true only of real z would be PROVED wrongly): each step that uses it is decided with it real and with it
complex, UNDECIDED where the two differ (as "if $z$ is complex" is, see :meth:`.steps.Auditor.complex_as_case`),
until the text says what it is again: "let $z$ be real", "for real $z$", "$z$ is real" (read as real, also within
the section that made it complex), a declaration in math, or another "for complex $z$".

Design constraints: only the domains the words declared are ended (a declaration in math, ``$z \\in \\mathbb{C}$``,
or a flag holds for the whole document, and a name declared before the words keeps its domain); "real" is read only
for a name whose complex domain came from words (real is every name's default), with the same care as "complex"
(inline math of names only, right beside the word; a sentence that negates it or poses it as a case declares
nothing); what the words said stays a reading the verdicts name ("as the text says in words").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from ..readers.scope import Scope, domain_key
from .document import MathBlock
from .redeclared import redeclared
from .result import AuditStep
from .stated_signs import CASE_WORDS, NEGATING_WORDS, section_end, sentence_around
from .worded_domains import declare_in_words, said_in_words

__all__ = ["WordedSections", "worded_real"]


class _Reads(Protocol):
    declared: dict[str, str]
    cased_complex: dict[str, int]
    complex_ended: dict[str, int]
    scope: Scope
    steps: list[AuditStep]

    def declare(self, found: dict[str, str]) -> None: ...

    def domains(self) -> dict[str, str]: ...


#: inline math that holds only names (``z``, ``q_m, k_n``, ``\theta``)
_WORDED_NAME = r"\\?[A-Za-z]+(?:_(?:\{[^{}\s]+\}|[A-Za-z0-9]))?"
_ONLY_NAMES_HERE = re.compile(rf"\s*{_WORDED_NAME}(?:\s*,\s*{_WORDED_NAME})*\s*")
#: the words just before the math that make its names real ("for real $z$", "实数 $z$")
_REAL_BEFORE = re.compile(
    r"(?i)(?<![A-Za-z-])real(?:[- ]valued)?(?:\s+(?:numbers?|scalars?|variables?|values?|angles?))?\s*$|(?<!非)实数\s*$"
)
#: the words just after the math that make its names real ("$z$ is real", "$z$ 是实数")
_REAL_AFTER = re.compile(
    r"(?i)^\s*(?:is|are|be)\s+(?:(?:a|an|any|arbitrary|some|now|again)\s+)?real(?:-valued)?(?![A-Za-z-]|\s+parts?)"
    r"|^\s*(?:是|为)\s*(?:一个|任意)?\s*实数"
)


def worded_real(text: str, blocks: list[MathBlock], at: int) -> set[str]:
    """The names (domain keys) that the words beside inline math ``blocks[at]`` declare real.

    Example:
        >>> from ..readers.latex_text import Src
        >>> def real(text):
        ...     return worded_real(text, [MathBlock("inline", Src.of("z", text.index("$") + 1), 1)], 0)
        >>> real("Now let $z$ be real."), real("For real $z$ we have")
        ({'z'}, {'z'})
        >>> real("If $z$ is real, then"), real("$z$ is not real")
        (set(), set())
    """
    block = blocks[at]
    if block.kind != "inline" or not _ONLY_NAMES_HERE.fullmatch(block.src.text):
        return set()
    start = blocks[at - 1].src.col(len(blocks[at - 1].src.text)) if at else 0
    before = text[start : block.src.col(0)].rstrip("$ \t")
    end = blocks[at + 1].src.col(0) if at + 1 < len(blocks) else len(text)
    after = text[block.src.col(len(block.src.text)) : end].lstrip("$")
    if not (_REAL_BEFORE.search(before) or _REAL_AFTER.match(after)):
        return set()
    sentence = sentence_around(text, blocks, at)
    if NEGATING_WORDS.search(sentence) or CASE_WORDS.search(sentence):
        return set()
    return {domain_key(n.strip()) for n in block.src.text.split(",")}


@dataclass
class WordedSections:
    """The domains said in words while the document is read, and where each ends.

    ``levels``: the document's headings and their levels (:func:`.stated_signs.heading_levels`).
    """

    levels: list[tuple[int, int]]
    #: names declared complex in words (by domain key), with the line of the words: for the verdicts' reasons
    in_words: dict[str, int] = field(default_factory=dict)
    #: names whose complex domain came from words: the line of the words, and the first step that may use it
    from_words: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: the line at which a name's domain said in words ends, and, where that domain is "real", the line of the words
    #: that made it complex before (read both ways again after the end)
    ends: dict[str, tuple[int, int | None]] = field(default_factory=dict)

    def declare(self, auditor: _Reads, text: str, where: tuple[list[MathBlock], int]) -> None:
        """Read what the words at ``blocks[at]`` declare (:func:`.worded_domains.declare_in_words`, "real"), after
        ending the domains whose section ended before the block."""
        blocks, at = where
        line = blocks[at].line
        for key in [k for k, (end, _) in self.ends.items() if end <= line]:
            self._end(auditor, key)
        for key in [k for k in auditor.complex_ended if k in auditor.declared]:  # declared again: as declared
            del auditor.complex_ended[key]
        before = set(auditor.declared)
        declare_in_words(auditor, text, blocks, at, self.in_words)
        for key, said in self.in_words.items():
            if key not in before and key not in self.from_words and auditor.declared.get(key) == "complex":
                self.from_words[key] = (said, len(auditor.steps))
                auditor.complex_ended.pop(key, None)
                end = section_end(self.levels, said)
                if end is not None:
                    self.ends[key] = (end, None)
        for key in worded_real(text, blocks, at):
            self._real(auditor, key, line)

    def _real(self, auditor: _Reads, key: str, line: int) -> None:
        """Read "let $z$ be real": z is real as real from here (a complex domain said in words is ended), and where this
        section ends, with the domain said before (both ways where that came from words)."""
        was = auditor.complex_ended.pop(key, None)
        if key in self.from_words:
            was = self.from_words[key][0]
            self._end(auditor, key)
            auditor.complex_ended.pop(key, None)
        if was is None:
            return
        end = section_end(self.levels, line)
        if end is not None:
            self.ends[key] = (end, was)

    def _end(self, auditor: _Reads, key: str) -> None:
        """The domain said in words for ``key`` ends: its steps so far name the words, and from here the name is
        decided both ways (or, after "let $z$ be real" ends, both ways again)."""
        _, before = self.ends.pop(key, (0, None))
        if before is not None:  # the section that said "real" ended: as after the complex domain ended
            auditor.complex_ended[key] = before
            return
        said, first = self.from_words.pop(key)
        said_in_words(auditor.steps[first:], {key: said})
        self.in_words.pop(key, None)
        auditor.declared.pop(key, None)
        auditor.complex_ended[key] = said
        auditor.scope = redeclared(auditor.scope.with_domains(auditor.domains()), {key})

    def finish(self, auditor: _Reads) -> None:
        """The steps that read a name complex because the words said so name the words (the domains in force at the
        end of the document; those that ended already did)."""
        for key, said in self.in_words.items():
            first = self.from_words.get(key, (said, 0))[1]
            said_in_words(auditor.steps[first:], {key: said})
