"""Names the prose declares complex in words: "for complex $z$", "where $z$ is complex", "复数 $z$".

A declaration in math (``$z \\in \\mathbb{C}$``) is read by :mod:`..readers.scope`; the same said in words is the
same declaration, and a step about ``z`` read with ``z`` real (the default) may be proved where the text means a
statement that is false (``|e^{iz}| = 1``). The words declare the names of inline math that holds only names:
"complex" (or "complex number", "complex-valued", "复数") just before it, or "is complex", "are complex numbers",
"是复数" just after it. A display followed by "where", "for" or "with" and such words in the same sentence is read
with the names declared (the words after a display say what its names are), and so is one followed by "where"
and inline math that only declares domains (``where $\\phi \\in \\mathbb{C}$``).

Design constraints: a pure function of the text; only these words, next to the math, count ("more complex $f$",
"non-complex $z$", "complex $d$-dimensional", "$w$ is the complex conjugate of $z$", a sentence with a negating
word such as "it fails for complex $z$" or "$z$ is not complex" declare nothing; one that poses it as a case, "if
$z$ is complex", declares nothing either, and the audit reads the name both ways); only complex is read (real
is every name's default, so a word "real" changes nothing and is not read here).
"""

from __future__ import annotations

import re
from typing import Protocol

import sympy

from ...errors import RopeCheckError
from ..readers.scope import domain_key, merge_domains, parse_declaration
from .document import MathBlock
from .result import AuditStep
from .stated_signs import CASE_WORDS, NEGATING_WORDS, sentence_around

__all__ = [
    "declare_in_words",
    "declared_after",
    "integers_in_words",
    "matrices_in_words",
    "said_in_words",
    "worded_complex",
]


#: the words before and after inline math that declare its names (see :func:`_inline_names`)
_Words = tuple[re.Pattern[str], re.Pattern[str]] | None


class _Declares(Protocol):
    declared: dict[str, str]
    cased_complex: dict[str, int]

    def declare(self, found: dict[str, str]) -> None: ...


#: a name as a declaration writes it (``z``, ``q_m``, ``\theta``), and inline math that is only names
_DECLARED_NAME = r"\\?[A-Za-z]+(?:_(?:\{[^{}\s]+\}|[A-Za-z0-9]))?"
_ONLY_NAMES = re.compile(rf"\s*{_DECLARED_NAME}(?:\s*,\s*{_DECLARED_NAME})*\s*")
#: the words just before the math that make its names complex
_COMPLEX_BEFORE = re.compile(
    r"(?i)(?<![A-Za-z-])(?<!non-)(?<!non )(?<!more )(?<!less )(?<!most )(?<!too )(?<!very )(?<!quite )"
    r"complex(?:[- ]valued)?(?:\s+(?:numbers?|scalars?|variables?|values?))?\s*$"
    r"|(?<!非)复数\s*$"
)
#: the words just after the math that make its names complex
_COMPLEX_AFTER = re.compile(
    r"(?i)^\s*(?:is|are|be)\s+(?:(?:a|an|any|arbitrary|some)\s+)?complex(?:-valued)?(?![A-Za-z-]|\s+conjugat)"
    r"|^\s*(?:是|为)\s*(?:一个|任意)?\s*复数"
)
#: the words that open what follows a display as saying what its names are
_AFTER_DISPLAY = re.compile(r"(?i)^\s*[,.]?\s*(?:where|for|with|here)\b|^\s*[,，]?\s*(?:其中|这里|对于)")
#: where a sentence ends
_SENTENCE_STOP = re.compile(r"[.!?;:。；：](?:\s|$)|\n[ \t]*\n|[。；]")
#: the words that join two inline names into one list
_JOINED = re.compile(r"(?i),?\s*(?:and|or)?\s*|[、，]|和|与|及")
_NOT_NAMES = frozenset({"e", "i", "\\pi", "d"})


def _gap(text: str, blocks: list[MathBlock], at: int) -> str:
    """The words between inline math ``blocks[at]`` and the math after it."""
    end = blocks[at + 1].src.col(0) if at + 1 < len(blocks) else len(text)
    return text[blocks[at].end : end].strip("$ \t")


def _inline_names(
    text: str, blocks: list[MathBlock], at: int, step: int = 0, cased: bool | None = False, words: _Words = None
) -> dict[str, int]:
    """The names of inline math ``blocks[at]`` that the words beside it declare complex: domain key -> line.
    ``step`` (-1, 1): the block is joined by "and" or a comma to the one before or after, which the words
    beside that one declare ("complex $q$ and $k$", "$q$ and $k$ are complex"). ``cased``: the names of a sentence
    that poses them complex as a case ("if $z$ is complex") instead, and only those; None: either. ``words``: the
    words before and after that declare (complex where None)."""
    before_words, after_words = words or (_COMPLEX_BEFORE, _COMPLEX_AFTER)
    block = blocks[at]
    if block.kind != "inline" or not _ONLY_NAMES.fullmatch(block.src.text):
        return {}
    before = text[blocks[at - 1].end if at else 0 : block.src.col(0)].rstrip("$ \t")
    after = text[block.end : blocks[at + 1].src.col(0) if at + 1 < len(blocks) else len(text)].lstrip("$")
    if re.match(r"-[A-Za-z]", after):
        return {}
    said = bool(step <= 0 and before_words.search(before)) or bool(step >= 0 and after_words.match(after))
    for side in (-1, 1) if not said and step == 0 else ():
        joined = at + side
        if 0 <= joined < len(blocks) and _JOINED.fullmatch(_gap(text, blocks, min(at, joined))):
            said = bool(_inline_names(text, blocks, joined, side, cased, words))
            if said:
                break
    sentence = sentence_around(text, blocks, at)
    if not said or NEGATING_WORDS.search(sentence) or cased not in (None, bool(CASE_WORDS.search(sentence))):
        return {}  # "it fails for complex $z$", "$z$ is not complex": no declaration; "if $z$ is complex": a case
    names = [n.strip() for n in block.src.text.split(",")]
    return {domain_key(n): block.line for n in names if n not in _NOT_NAMES}


#: the words just before inline math that make its names matrices ("the matrices $A$, $B$", "矩阵 $W$")
_MATRIX_BEFORE = re.compile(r"(?i)(?<![A-Za-z-])matri(?:x|ces)\s*$|矩阵\s*$")
#: the words just after it ("$A$ and $B$ are square matrices", "$W$ 是一个可逆矩阵")
_MATRIX_AFTER = re.compile(
    r"(?i)^\s*(?:is|are|be)\s+(?:(?:a|an|any|two|some|arbitrary|general|real|complex|square|invertible|orthogonal"
    r"|symmetric|skew-symmetric|antisymmetric|diagonal|block-diagonal|rotation|weight|projection|learned|learnable"
    r"|fixed|constant)\s+){0,3}matri(?:x|ces)(?![A-Za-z])(?!\s*\$)"
    r"|^\s*(?:是|为)\s*(?:一个|两个|任意|可逆|正交|实|方|对称|反对称|旋转|权重|投影|的|\s)*矩阵(?!\s*\$)"
)


def matrices_in_words(text: str, blocks: list[MathBlock]) -> frozenset[str]:
    """The names the prose says are matrices ("let $A$ and $B$ be matrices", "the matrix $W$", "矩阵 $W$"), as
    inline math of names only beside those words: a name so called is a vector or matrix wherever the document
    uses it, and its products do not commute (a case, "if $A$ is a matrix", counts: a matrix is the more general
    reading). A sentence with a negating word declares nothing.

    Example:
        >>> from ..readers.latex_text import Src
        >>> text = "Let $A$ and $B$ be matrices."
        >>> at = [text.index("$A") + 1, text.index("$B") + 1]
        >>> sorted(matrices_in_words(text, [MathBlock("inline", Src.of(text[i], i), 1) for i in at]))
        ['A', 'B']
    """
    return frozenset(_named_in_words(text, blocks, (_MATRIX_BEFORE, _MATRIX_AFTER)))


#: the words just before inline math that make its names whole numbers ("for an integer $k$", "正整数 $n$")
_INTEGER_BEFORE = re.compile(
    r"(?i)(?<![A-Za-z-])(?<!non-)(?<!non )(?:(?:positive|negative|non-?negative|even|odd|any|every|some)\s+)?"
    r"(?:integers?|whole\s+numbers?|natural\s+numbers?)(?:\s+(?:index|indices|values?))?\s*$"
    r"|(?<!非)(?:正|负|非负)?整数\s*$|自然数\s*$"
)
#: the words just after it ("$k$ is an integer", "$m, n$ are whole numbers", "$k$ 为整数")
_INTEGER_AFTER = re.compile(
    r"(?i)^\s*(?:is|are|be)\s+(?:(?:a|an|any|arbitrary|some|positive|negative|non-?negative|even|odd)\s+){0,2}"
    r"(?:integers?|whole\s+numbers?|natural\s+numbers?)(?![A-Za-z-])"
    r"|^\s*(?:是|为)\s*(?:一个|任意|正|负|非负)*\s*(?:整数|自然数)"
)


def integers_in_words(text: str, blocks: list[MathBlock]) -> dict[str, int]:
    """The names the prose calls whole numbers ("for an integer $k$", "$m, n$ are natural numbers", "整数 $k$"),
    as inline math of names only beside those words, by domain key with the line of the words: anywhere in the
    document, and also where the sentence poses it as a case ("if $k$ is an integer") -- these names only keep a
    counterexample that gives them a fraction from refuting a step (:meth:`.steps.Auditor.refuted_doubts`), so
    the more they hold, the fewer verdicts they allow. A sentence with a negating word declares nothing.

    Example:
        >>> from ..readers.latex_text import Src
        >>> def whole(text):
        ...     return integers_in_words(text, [MathBlock("inline", Src.of("k", text.index("$") + 1), 1)])
        >>> whole("For an integer $k$ we have"), whole("Let $k$ be a positive integer."), whole("整数 $k$")
        ({'k': 1}, {'k': 1}, {'k': 1})
        >>> whole("For $k$ not an integer"), whole("the real $k$")
        ({}, {})
    """
    return _named_in_words(text, blocks, (_INTEGER_BEFORE, _INTEGER_AFTER))


def _named_in_words(text: str, blocks: list[MathBlock], words: _Words) -> dict[str, int]:
    """The names of every inline math of names only that ``words`` (before, after) name, a case included, by
    domain key with the line of the first words that name each."""
    found: dict[str, int] = {}
    for at in range(len(blocks)):
        for key, line in _inline_names(text, blocks, at, cased=None, words=words).items():
            found.setdefault(key, line)
    return found


def said_in_words(steps: list[AuditStep], worded: dict[str, int]) -> None:
    """Each decided step that reads a name complex because the words declared it (``worded``: the name's key and
    the line of the words) says so in its reason."""
    for s in steps:
        read = {x.name for e in (s.lhs, s.rhs) if isinstance(e, sympy.Basic) for x in e.free_symbols if x.is_Symbol}
        keys = {domain_key(d["symbol"]) for d in s.domains if d["domain"] == "complex" and d["symbol"] in read}
        said = [f"{k} (line {worded[k]})" for k in sorted(keys & set(worded))]
        if said and s.status in ("PROVED", "REFUTED"):
            note = f"read with {', '.join(said)} complex, as the text says in words"
            s.reason = f"{note}; {s.reason}" if s.reason else note


def _where_sentence(text: str, blocks: list[MathBlock], at: int) -> list[int]:
    """The inline math in the sentence after display ``blocks[at]`` that opens with "where", "for", "with"."""
    found: list[int] = []
    end = blocks[at].end
    for j in range(at + 1, len(blocks)):
        if blocks[j].kind != "inline":
            break
        between = text[end : blocks[j].src.col(0)].lstrip("$").lstrip()
        if _SENTENCE_STOP.search(between) or not _AFTER_DISPLAY.match(between):
            break
        found.append(j)
    return found


def declared_after(text: str, blocks: list[MathBlock], at: int) -> dict[str, str]:
    r"""The domains that inline math declaring only domains (``$\phi \in \mathbb{C}$``) states in the sentence
    after display ``blocks[at]`` that opens with "where", "for", "with": they are the display's names' domains.

    Example:
        >>> from ..readers.latex_text import Src
        >>> text = "$$|e^{i p}| = 1$$ where $p \\in \\mathbb{C}$."
        >>> at = text.index("where") + 7
        >>> shown = MathBlock("display", Src.of("|e^{i p}| = 1", 2), 1)
        >>> declared_after(text, [shown, MathBlock("inline", Src.of(text[at:-2], at), 1)], 0)
        {'p': 'complex'}
    """
    if blocks[at].kind != "display":
        return {}
    found: dict[str, str] = {}
    for j in _where_sentence(text, blocks, at):
        try:
            declared = parse_declaration(blocks[j].src.text) or {}
            merge_domains(found, declared)
        except RopeCheckError:
            return {}  # a name given two domains: none is taken here
    return found


def worded_complex(text: str, blocks: list[MathBlock], at: int, cased: bool = False) -> dict[str, int]:
    """The names declared complex in words at ``blocks[at]`` (by domain key, with the line of the words): those of
    inline math, or, for a display, those of the inline math in the sentence after it that opens with "where",
    "for", "with".

    Example:
        >>> from ..readers.latex_text import Src
        >>> text = "For complex $z$ we have"
        >>> worded_complex(text, [MathBlock("inline", Src.of("z", text.index("$") + 1), 1)], 0)
        {'z': 1}
        >>> text = "For more complex $f$ we have"
        >>> worded_complex(text, [MathBlock("inline", Src.of("f", text.index("$") + 1), 1)], 0)
        {}
    """
    if blocks[at].kind == "inline":
        return _inline_names(text, blocks, at, cased=cased)
    found: dict[str, int] = {}
    for j in _where_sentence(text, blocks, at):
        found.update(_inline_names(text, blocks, j, cased=cased))
    return found


def declare_in_words(auditor: _Declares, text: str, blocks: list[MathBlock], at: int, in_words: dict[str, int]) -> None:
    """Declare the domains the words at ``blocks[at]`` state (:func:`declared_after`, :func:`worded_complex`);
    ``in_words`` gets the names declared complex in words that took effect (a name declared before keeps its
    domain), with the line of the words."""
    after = declared_after(text, blocks, at)
    if after:
        auditor.declare(after)
    for key, line in worded_complex(text, blocks, at, cased=True).items():  # "if $z$ is complex": read both ways
        auditor.cased_complex.setdefault(key, line)
    worded = worded_complex(text, blocks, at)
    if worded:
        auditor.declare(dict.fromkeys(worded, "complex"))
        for key, line in worded.items():
            if key not in in_words and auditor.declared.get(key) == "complex":
                in_words[key] = line
