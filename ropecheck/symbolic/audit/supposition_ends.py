"""Where a supposition stops: "Suppose $x + y = 1$" holds until the text speaks of every x, y, or its section ends.

An equation the prose supposes ("suppose $x + y = 1$", "if", "assume", "假设") is one of the equations stated
before a step (:mod:`.stated_before`, :mod:`.under_stated`): a step whose counterexample breaks it is decided under
it, and ``(x + y)^2 = 1`` is PROVED after it. The text may then leave it: "for any $x, y$:" before a display states
that display of every x and y, and a later section is no longer under the supposition. Read as still in force there,
``(x + y)^2 = 1`` would be PROVED for every x and y, which is false.

So, for the display that the words "for any", "for all", "for every", "for arbitrary" ("任意", "对任意", "对于所有")
lead into, with the names they quantify in inline math right after them, no equation stated before that writes
only those names is in force: the display is decided without them (REFUTED where it is false for some values).
From that display on, and from the end of the section a supposition is made in (the next heading of the same
level or higher), the supposition -- and each equation stated while it was in force that writes one of its names
(what was drawn from it) -- may no longer hold: it proves nothing, but a counterexample that breaks it still
refutes nothing (the step is UNDECIDED); a value it gives a name ("suppose $p = 2q$", read as a definition of p)
is from then on a value given in passing (a step that uses p is decided for every value of it). "In general"
("一般地") before a display ends the suppositions the same way, without naming what it quantifies.

Design constraints: pure functions of the text, and a small record the audit keeps; a supposition is inline math
in a sentence whose supposing word comes before it and that negates nothing ("if we set $\theta = ...$", "若令"
lead into a definition, no supposition); the quantifying words must lead
into the display (the sentence just before it); equations stated without a supposition are left in force, except
where the display is stated for every value of all their names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Protocol

from ..readers.latex_text import GREEK
from ..readers.scope import Scope, domain_key
from .document import MathBlock
from .premises import Premise
from .stated_signs import NEGATING_WORDS, section_end, sentence_around
from .supposed_displays import lead_in

__all__ = ["SuppositionEnds", "generalised_over", "math_names", "supposes"]

#: the words that make the inline math after them a supposition
_SUPPOSING_WORDS = re.compile(
    r"(?i)(?<![A-Za-z])(?:suppose|supposing|assume|assuming|if|given\s+that|provided\s+that)(?![A-Za-z])"
    r"|假设|假定|若|如果"
)
#: a supposing word that only leads into a definition ("if we set $\theta = ...$", "若令"): no supposition
_DEFINING_AFTER = re.compile(
    r"(?i)(?:if|assume|assuming|suppose)\s+(?:that\s+)?we\s+(?:now\s+)?(?:set|let|define|take|choose|denote|write|use|pick"
    r"|substitute|plug|introduce)|(?:若|如果|假设)\s*(?:我们)?\s*(?:令|设|定义|记|取)"
)
#: the words that state a display for every value of the names in the inline math right after them
_FOR_EVERY = re.compile(
    r"(?i)(?<![A-Za-z])for\s+(?:any|all|every|arbitrary)(?:\s+[A-Za-z-]+){0,3}\s*$"
    r"|(?:对于|对)?\s*(?:任意|任何|所有|一切)(?:的)?\s*(?:[\u4e00-\u9fff]{0,4})\s*$"
)
#: the words that state a display in general, naming nothing
_IN_GENERAL = re.compile(r"(?i)(?<![A-Za-z])in\s+general(?![A-Za-z])|一般地|一般而言|一般情况下")
#: where a sentence ends (inline math blanked first)
_LEAD_IN_STOP = re.compile(r"[.!?;](?:\s|$)|[。！？；]|\n[ \t]*\n")
_NAME = re.compile(r"\\([A-Za-z]+)|([A-Za-z])(?:_(\{[^{}]*\}|[A-Za-z0-9]))?")
_QUANTIFIED_NAME = r"\\?[A-Za-z]+(?:_(?:\{[^{}]*\}|[A-Za-z0-9]))?"
_NAMES_ONLY = re.compile(rf"\s*{_QUANTIFIED_NAME}(?:\s*,\s*{_QUANTIFIED_NAME})*\s*")


def math_names(text: str) -> set[str]:
    """The names an equation writes (letters, Greek letters, each with its subscript), as domain keys.

    Example:
        >>> sorted(math_names(r"x_1 + \\frac{y}{2} = \\cos\\theta"))
        ['theta', 'x_1', 'y']
    """
    out = set()
    for m in _NAME.finditer(text):
        if m.group(1) is not None:
            if m.group(1) in GREEK:
                out.add(m.group(1))
        elif not (m.start() and text[m.start() - 1].isalpha()) and not text[m.end() : m.end() + 1].isalpha():
            out.add(domain_key(m.group(0)))
    return out


def supposes(text: str, blocks: list[MathBlock], at: int) -> bool:
    """Whether inline math ``blocks[at]`` is a supposition: a supposing word before it in its sentence, no negation.

    Example:
        >>> from ..readers.latex_text import Src
        >>> def s(text):
        ...     return supposes(text, [MathBlock("inline", Src.of("x + y = 1", text.index("$") + 1), 1)], 0)
        >>> s("Suppose $x + y = 1$. Then"), s("Here $x + y = 1$ holds."), s("If $x + y = 1$ were not so")
        (True, False, False)
    """
    block = blocks[at]
    if block.kind != "inline" or "=" not in block.src.text:
        return False
    start = next((b.end for b in reversed(blocks[:at]) if b.kind == "display"), 0)  # a display ends a sentence
    lead = _words(text, blocks, (start, block.src.col(0)))
    stops = list(_LEAD_IN_STOP.finditer(lead))
    lead = lead[stops[-1].end() :] if stops else lead
    sentence = sentence_around(text, blocks, at)
    after = sentence[sentence.find(block.src.text) + len(block.src.text) :] if block.src.text in sentence else ""
    if _DEFINING_AFTER.search(lead) or NEGATING_WORDS.search(lead + " " + after):
        return False
    return bool(_SUPPOSING_WORDS.search(lead))


def _words(text: str, blocks: list[MathBlock], span: tuple[int, int]) -> str:
    """The text of ``span`` with the inline math in it blanked (only the words are read)."""
    start, end = span
    prose = list(text[start:end])
    for b in blocks:
        if b.kind == "inline" and start <= b.src.col(0) and b.end <= end:
            for k in range(b.src.col(0), b.end):
                prose[k - start] = "x" if not text[k].isspace() else text[k]
    return "".join(prose)


def generalised_over(text: str, blocks: list[MathBlock], at: int) -> set[str] | None:
    """The names (domain keys) the sentence leading into display ``blocks[at]`` states it for every value of ("for
    any $x, y$:"); an empty set where it says "in general", naming nothing; None where it quantifies nothing.

    Example:
        >>> from ..readers.latex_text import Src
        >>> text = "For any $x, y$: $$(x+y)^2 = 1$$"
        >>> blocks = [MathBlock("inline", Src.of("x, y", 9), 1), MathBlock("display", Src.of("(x+y)^2 = 1", 18), 1)]
        >>> sorted(generalised_over(text, blocks, 1))
        ['x', 'y']
    """
    start, inline, words = lead_in(text, blocks, at)
    stops = list(_LEAD_IN_STOP.finditer(words.rstrip("$ \t\n")))
    lead = stops[-1].end() if stops else 0
    names: set[str] = set()
    quantified, prev = False, lead
    for b in inline:
        here = b.src.col(0) - start
        if here < lead:
            continue
        before, prev = words[prev:here].rstrip("$ \t"), b.end - start
        if _FOR_EVERY.search(before) and _NAMES_ONLY.fullmatch(b.src.text):
            names |= {domain_key(n.strip()) for n in b.src.text.split(",")}
            quantified = True
    if quantified:
        return names
    return set() if _IN_GENERAL.search(words[lead:]) else None


def _key(p: Premise) -> tuple[int, str, str]:
    return p.line, p.left.text, p.right.text


class _Keeps(Protocol):
    stated: list[Premise]
    scope: Scope
    heading_levels: list[tuple[int, int]]
    #: equations stated before that a supposition's end leaves out where they would prove a step, and why
    unsupposed: dict[tuple[int, str, str], str]
    #: equations stated before that are not in force for the display being read (it is stated for all their names)
    generalised: frozenset[tuple[int, str, str]]


@dataclass
class _Supposition:
    line: int
    first: int  # the index of its first equation in the auditor's ``stated``
    names: set[str]
    end: int | None  # the line of the heading that ends its section
    defined: list[str]  # the names it gives a value ("suppose $p = 2q$" defines p)


@dataclass
class SuppositionEnds:
    """The suppositions in force while the document is read, and their ends."""

    held: list[_Supposition] = field(default_factory=list)
    #: the block read last, whether it was a supposition, and how many equations were stated before it
    last: tuple[int, bool, int] = (-1, False, 0)

    def before_block(self, auditor: _Keeps, text: str, where: tuple[list[MathBlock], int]) -> None:
        """Record the supposition the block before was, end those whose section ended or that this display
        generalises over, and say which equations stated before are not in force for it."""
        blocks, at = where
        _, was_supposed, count = self.last
        if was_supposed and len(auditor.stated) > count:
            line = blocks[at - 1].line
            names = set().union(*(math_names(p.left.text + "=" + p.right.text) for p in auditor.stated[count:]))
            end = section_end(auditor.heading_levels, line)
            defined = [k for k, d in auditor.scope.symbols.items() if d.line == line and not d.stated_value]
            self.held.append(_Supposition(line, count, names, end, defined))
        self.last = (at, blocks[at].kind == "inline" and supposes(text, blocks, at), len(auditor.stated))
        line = blocks[at].line
        for s in [s for s in self.held if s.end is not None and s.end <= line]:
            self._end(auditor, s, f"supposed at line {s.line}, in a section that has ended")
        auditor.generalised = frozenset()
        over = generalised_over(text, blocks, at) if blocks[at].kind == "display" else None
        if over is None:
            return
        for s in [s for s in self.held if not over or s.names & over]:
            self._end(auditor, s, f"supposed at line {s.line}, before the text spoke in general")
        if over:  # "for any $x, y$": no relation between those names alone holds in this display
            keys = [_key(p) for p in auditor.stated if math_names(p.left.text + "=" + p.right.text) <= over]
            auditor.generalised = frozenset(keys)

    def _end(self, auditor: _Keeps, s: _Supposition, why: str) -> None:
        """The supposition ``s`` ends: it, and what was stated while it held that writes its names, prove nothing."""
        self.held.remove(s)
        symbols = dict(auditor.scope.symbols)
        for k in [k for k in s.defined if k in symbols and symbols[k].line == s.line]:
            symbols[k] = replace(symbols[k], stated_value=True)  # a value in passing: a step is read for every value
        auditor.scope = replace(auditor.scope, symbols=symbols)
        for p in auditor.stated[s.first :]:
            if math_names(p.left.text + "=" + p.right.text) & s.names:
                auditor.unsupposed.setdefault(_key(p), why)
