"""Reading Coq source and coqc's output for :mod:`ropecheck.symbolic.coq.certify`.

Comments are stripped the way Coq's lexer does it (nested ``(* ... *)``, string literals
inside comments), keeping every offset and line break, so that line numbers found in the
stripped text are the source's. Sentences end at a ``.`` followed by white space.

Design constraints: standard library only; pure functions of text (no files written, no
processes started).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "assumption_blocks",
    "parse_assumptions",
    "parse_coq_error",
    "requires",
    "scan_source",
    "sentences",
    "statements",
    "strip_comments",
]

_SENTENCE_END = re.compile(r"(?<!\.)\.(?=\s|$)")
_ERROR = re.compile(
    r'File "(?P<file>[^"]+)", line (?P<line>\d+), characters \d+-\d+:\s*Error:\s*(?P<msg>.*)', re.DOTALL
)
_HEADING = re.compile(r"^[A-Z][A-Za-z]*(?: [A-Za-z]+)*:$")
_PRINT = re.compile(r"Print\s+Assumptions\s+([\w.']+)\s*\.$")
_CHARS = re.compile(r"^Chars (\d+) - (\d+) \[")
_REQUIRE = re.compile(r"(?:From\s+(\S+)\s+)?Require\s+(?:(?:Import|Export)\s+)?([^.]*(?:\.\w[^.\s]*)*)\.(?=\s|$)")
_THEOREM = re.compile(r"\s*(?:Theorem|Lemma|Corollary|Proposition|Fact|Remark)\s+([\w']+)")
_ADMIT = re.compile(r"\b(Admitted|admit|Admit|give_up)\b")
_UNSAFE = re.compile(r"\bUnset\s+(?:Guard|Positivity|Universe)\s+Checking\b|#\[\s*bypass_check")
_PREFIX = re.compile(r"^(?:#\[[^\]]*\]\s*|(?:Local|Global|Polymorphic|Monomorphic|Program|Private)\s+)*")
_AXIOM_WORDS = {"Axiom", "Axioms", "Parameter", "Parameters", "Conjecture"}
_SECTION_WORDS = {"Variable", "Variables", "Hypothesis", "Hypotheses", "Context"}


def strip_comments(text: str, *, strings: bool = False) -> str:
    """Blank out Coq comments ``(* ... *)`` (nested, strings inside them included), keeping newlines.

    Args:
        text: Coq source.
        strings: also blank the contents of string literals outside comments (their quotes stay).

    Returns:
        Text of the same length and line breaks in which every comment character is a space.
    """
    out, depth, i, n = list(text), 0, 0, len(text)
    while i < n:
        if text.startswith("(*", i) or (depth and text.startswith("*)", i)):
            depth += 1 if text[i] == "(" else -1
            out[i : i + 2] = "  "
            i += 2
        elif text[i] == '"':
            end = i + 1  # a string runs to the next quote that is not doubled ("" is a quote)
            while end < n and not (text[end] == '"' and not text.startswith('""', end)):
                end += 2 if text.startswith('""', end) else 1
            if depth or strings:
                lo, hi = (i, end + 1) if depth else (i + 1, end)
                out[lo:hi] = [c if c == "\n" else " " for c in text[lo:hi]]
            i = end + 1
        else:
            if depth and text[i] != "\n":
                out[i] = " "
            i += 1
    return "".join(out[:n])


def sentences(code: str) -> Iterable[tuple[int, str]]:
    """(start offset, text) of each sentence of comment-free code, leading white space included."""
    start = 0
    for end in _SENTENCE_END.finditer(code):
        yield start, code[start : end.end()]
        start = end.end()


def _line(code: str, offset: int) -> int:
    return code.count("\n", 0, offset) + 1


def statements(text: str, names: Iterable[str] | None = None) -> dict[str, str]:
    """``Theorem name : ... .`` of each theorem or lemma (only ``names`` if given), one line each."""
    wanted = None if names is None else set(names)
    found: dict[str, str] = {}
    for _, sentence in sentences(strip_comments(text)):
        head = _THEOREM.match(sentence)
        if head and (wanted is None or head.group(1) in wanted):
            found[head.group(1)] = " ".join(sentence.split())
    return found


def scan_source(text: str) -> list[str]:
    """Reasons, read from the source alone, why a file is not a certificate.

    Flags ``Admitted``/``admit`` (and ``Admit``, ``give_up``) outside comments and strings,
    ``Axiom``/``Parameter``/``Conjecture`` anywhere, ``Variable``/``Hypothesis``/``Context``
    outside a section (there they declare axioms), and commands that switch off a kernel check.
    """
    code = strip_comments(text, strings=True)
    reasons = [f"line {_line(code, m.start())}: {m.group(1)} (a goal left unproved)" for m in _ADMIT.finditer(code)]
    reasons += [f"line {_line(code, m.start())}: switches off a kernel check" for m in _UNSAFE.finditer(code)]
    blocks: list[str] = []
    for start, sentence in sentences(code):
        body = _PREFIX.sub("", sentence.strip())
        words = body.split()
        if not words:
            continue
        where = f"line {_line(code, start + len(sentence) - len(sentence.lstrip()))}"
        if words[0] == "Section":
            blocks.append("Section")
        elif words[0] == "Module" and ":=" not in body:
            blocks.append("Module")
        elif words[0] == "End" and blocks:
            blocks.pop()
        elif words[0] in _AXIOM_WORDS:
            reasons.append(f"{where}: declares a new {' '.join(words[:2]).rstrip('.')}")
        elif words[0] in _SECTION_WORDS and "Section" not in blocks:
            reasons.append(f"{where}: {words[0]} outside a section declares an axiom")
    return reasons


def parse_coq_error(output: str) -> tuple[str, int, str] | None:
    """(file, line, message) of the first ``File "...", line N, characters a-b: Error: ...``."""
    found = _ERROR.search(output)
    if not found:
        return None
    message = re.split(r'\nFile "|\nChars \d', found.group("msg"))[0].strip()
    return found.group("file"), int(found.group("line")), message


def requires(text: str, prefix: str) -> list[str]:
    """The modules under logical ``prefix`` a file imports (``From prefix Require ...`` or ``prefix.name``)."""
    out: list[str] = []
    for m in _REQUIRE.finditer(strip_comments(text, strings=True)):
        for name in m.group(2).split():
            full = f"{m.group(1)}.{name}" if m.group(1) else name
            if full.startswith(prefix + "."):
                out.append(full.split(".")[1])
    return out


def assumption_blocks(stdout: str, source: bytes) -> dict[str, str]:
    """Theorem -> what its ``Print Assumptions`` printed, from ``coqc -time`` output.

    ``-time`` prints ``Chars a - b [...]`` after each command, ``a - b`` its byte range in the
    source; the lines since the previous such line are that command's output.
    """
    blocks: dict[str, str] = {}
    pending: list[str] = []
    for line in stdout.splitlines():
        chars = _CHARS.match(line)
        if not chars:
            pending.append(line)
            continue
        command = source[int(chars.group(1)) : int(chars.group(2))].decode("utf-8", "replace")
        printed = _PRINT.match(" ".join(command.split()))
        if printed:
            blocks[printed.group(1)] = "\n".join(pending).strip()
        pending = []
    return blocks


def parse_assumptions(block: str) -> list[str]:
    """The assumptions one ``Print Assumptions`` listed.

    Axioms give their (shortest qualified) names; an entry under any other heading (section
    variables, unsafe definitions) keeps its heading, and unrecognised text is kept whole, so
    neither can pass as an allowed axiom.
    """
    if block.strip() == "Closed under the global context":
        return []
    if not block.strip():
        return ["output: nothing printed"]
    names: list[str] = []
    heading: str | None = None
    for line in block.splitlines():
        if not line.strip() or line[0].isspace():
            continue
        if _HEADING.match(line.rstrip()):
            heading = line.strip()[:-1]
        elif heading == "Axioms":
            names.append(line.split(" :")[0].split()[0])
        else:
            names.append(f"{heading or 'output'}: {line.strip()}")
    return names
