"""LaTeX as text, before any parser sees it: a string that remembers its columns, and bracket scanning.

A claim's LaTeX is rewritten several times before SymPy's LaTeX parser reads it (matrices,
inner products and tuples become placeholders, ``cos(x)`` becomes ``\\cos(x)``, ...). Each
rewrite keeps, for every character, the column it came from in what the user typed, so an
error found at any stage still points at the right column.

Design constraints: pure functions on immutable values; no SymPy here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from ...errors import ClaimParseError

__all__ = [
    "GREEK",
    "GREEK_NAMES",
    "OPENERS",
    "PROSE_WORDS",
    "WORDS_NAME",
    "Src",
    "closing",
    "skip_group",
    "split_top",
    "top_level",
    "words_name",
]

#: The Greek letters LaTeX writes as commands (``\\lambda``), read as names.
GREEK = (
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi omicron pi varpi rho "
    "varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon "
    "Phi Psi Omega"
).split()
#: The Greek commands that name a variable or a function, as a regex alternation (``\\pi`` and its kin are numbers).
GREEK_NAMES = "|".join(g for g in GREEK if g not in ("pi", "varpi", "Pi"))
#: Bracket openers and their closers; ``\\{``/``\\}`` count as braces.
OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = {v: k for k, v in OPENERS.items()}


#: words that join or qualify equations, never names (``a = b \\text{or} -b``, ``\\text{Rotation by }``)
PROSE_WORDS = frozenset(
    "and or if iff for where with when then so else otherwise since because hence thus all any some not is are "
    "be as at by in on of to let such that the a an we it this its from into over under per each every".split()
)
#: ``\\text{seq len}``: two or three words set upright, one name (``seq_len``) when none is a prose word
WORDS_NAME = re.compile(r"\\(?:text|textrm|mathrm|operatorname)\s*\{\s*([A-Za-z]{2,}(?:\s+[A-Za-z]{2,}){1,2})\s*\}")


def words_name(m: re.Match[str]) -> str | None:
    """The name a :data:`WORDS_NAME` match spells (``seq\\_len``), or None when one of its words is prose."""
    words = m.group(1).split()
    return None if any(w.lower() in PROSE_WORDS for w in words) else "\\_".join(words)


@dataclass(frozen=True)
class Src:
    """Text plus, for each character, its 0-based column in the claim (and one past the end)."""

    text: str
    origin: tuple[int, ...]

    @classmethod
    def of(cls, text: str, offset: int = 0) -> Src:
        return cls(text, tuple(range(offset, offset + len(text) + 1)))

    def col(self, i: int) -> int:
        return self.origin[min(max(i, 0), len(self.text))]

    def __len__(self) -> int:
        return len(self.text)

    def slice(self, start: int, end: int) -> Src:
        end = min(end, len(self.text))
        return Src(self.text[start:end], self.origin[start:end] + (self.origin[end],))

    def splice(self, start: int, end: int, new: str) -> Src:
        """``text[start:end]`` replaced by ``new``, whose characters all come from column ``col(start)``."""
        at = self.col(start)
        return Src(
            self.text[:start] + new + self.text[end:],
            self.origin[:start] + (at,) * len(new) + self.origin[end:],
        )

    def sub(self, pattern: re.Pattern[str], repl: Callable[[re.Match[str]], str]) -> Src:
        """Every match of ``pattern`` replaced by ``repl(match)`` (columns kept as in :meth:`splice`)."""
        text: list[str] = []
        origin: list[int] = []
        last = 0
        for m in pattern.finditer(self.text):
            new = repl(m)
            text.append(self.text[last : m.start()])
            origin.extend(self.origin[last : m.start()])
            text.append(new)
            origin.extend([self.col(m.start())] * len(new))
            last = m.end()
        if last == 0 and not text:
            return self
        text.append(self.text[last:])
        origin.extend(self.origin[last:])
        return Src("".join(text), tuple(origin))

    def strip(self) -> Src:
        lead = len(self.text) - len(self.text.lstrip())
        return self.slice(lead, len(self.text.rstrip()))

    def error(self, message: str, at: int) -> ClaimParseError:
        return ClaimParseError(message, self.col(at))


def skip_group(text: str, start: int) -> int:
    """The index just past the bracket group opening at ``text[start]`` (``(``, ``[`` or ``{``); -1 if unclosed.

    ``\\left(``/``\\right)`` are the brackets they contain; ``\\{`` and ``\\}`` count as braces.
    """
    stack: list[str] = []
    i = start
    while i < len(text):
        ch = text[i]
        if ch in OPENERS:
            stack.append(ch)
        elif ch in _CLOSERS:
            if not stack or stack[-1] != _CLOSERS[ch]:
                return -1
            stack.pop()
            if not stack:
                return i + 1
        i += 1
    return -1


def closing(text: str, start: int, open_: str, close: str) -> int:
    """Index of the ``close`` that matches the ``open_`` at ``start`` (nesting counted), or -1."""
    depth, i = 0, start
    while i < len(text):
        if text.startswith(open_, i):
            depth += 1
            i += len(open_)
            continue
        if text.startswith(close, i):
            depth -= 1
            if depth == 0:
                return i
            i += len(close)
            continue
        i += 1
    return -1


def top_level(text: str, extra: tuple[tuple[str, str], ...] = ()) -> list[int]:
    """Bracket depth before each character (``(``, ``[``, ``{`` and the ``extra`` open/close pairs).

    An extra pair that ends in a brace (``\\begin{``, ``\\end{``) takes the name and its closing
    brace with it, so ``\\begin{pmatrix} ... \\end{pmatrix}`` is one level. Where two tokens start at
    one character, the first of ``extra`` wins (each pair's opener before its closer), then a bracket.
    """
    tokens, steps = _tokens(extra)
    depth, out, i = 0, [], 0
    while (m := tokens.search(text, i)) is not None:
        out.extend([depth] * (m.start() - i))
        token = m.group()
        step = steps[token] if token in steps else (1 if token in OPENERS else -1)
        end = m.end()
        if token in steps and token.endswith("{"):
            brace = text.find("}", end)
            end = brace + 1 if brace >= 0 else len(text)
        if step < 0:
            depth -= 1
        out.extend([depth] * (end - m.start()))
        if step > 0:
            depth += 1
        i = end
    out.extend([depth] * (len(text) - i))
    return out


@functools.lru_cache(maxsize=32)
def _tokens(extra: tuple[tuple[str, str], ...]) -> tuple[re.Pattern[str], dict[str, int]]:
    """The pattern of :func:`top_level`'s tokens (``extra``'s, in order, then one bracket) and each extra's step."""
    steps: dict[str, int] = {}
    for open_, close in extra:
        steps.setdefault(open_, 1)
        steps.setdefault(close, -1)
    alternatives = [re.escape(t) for pair in extra for t in pair] + ["[" + re.escape("([{}])") + "]"]
    return re.compile("|".join(alternatives)), steps


def split_top(src: Src, sep: str, extra: tuple[tuple[str, str], ...] = ()) -> list[Src]:
    """``src`` cut at each ``sep`` outside every bracket (``extra``: more open/close pairs)."""
    depth = top_level(src.text, extra)
    parts, last, i = [], 0, 0
    while i < len(src.text):
        if depth[i] == 0 and src.text.startswith(sep, i) and not (sep == "," and src.text[i - 1 : i] == "\\"):
            parts.append(src.slice(last, i))
            i += len(sep)
            last = i
            continue
        i += 1
    parts.append(src.slice(last, len(src.text)))
    return parts
