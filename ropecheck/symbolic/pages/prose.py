"""The theorems' prose: English with ``$...$`` inline math and ``$$...$$`` display math.

Statements, step statements and notes are written once, as Markdown would have them, and
shown in four places: Markdown pages (GitHub renders the math), the HTML report (MathML), the
LaTeX document and the terminal. A display may be an ``aligned`` block of rows made by
:mod:`.mathlines` (so a long value breaks over lines in every format); a display written on one
line is broken at its top-level relations and operators when it is too wide for a phone
(:func:`display_rows`), and long inline math in HTML is set as pieces a browser may wrap between.

Design constraints: pure functions; a segment that is not math is text, never guessed at.
"""

from __future__ import annotations

import html
import re

from .mathlines import LINE_WIDTH, Rows, formula_rows, inline_mathml, rows_from_latex, rows_latex, rows_mathml

__all__ = ["PROSE_WIDTH", "display_rows", "prose_html", "prose_markdown", "prose_plain", "segments"]

_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.DOTALL)
_INLINE = re.compile(r"(?<![\\$])\$([^$]+)\$")


def segments(text: str) -> list[tuple[str, str]]:
    """``text`` as ("text" | "inline" | "display", content) pieces, in order."""
    out: list[tuple[str, str]] = []
    pos = 0
    for block in _DISPLAY.finditer(text):
        out += _inline_segments(text[pos : block.start()])
        out.append(("display", block.group(1).strip()))
        pos = block.end()
    out += _inline_segments(text[pos:])
    return [(kind, body) for kind, body in out if body]


def _inline_segments(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    for m in _INLINE.finditer(text):
        out += [("text", text[pos : m.start()]), ("inline", m.group(1))]
        pos = m.end()
    return [*out, ("text", text[pos:])]


#: A display in prose may sit in a list item (a note), narrower than a step's equation.
PROSE_WIDTH = LINE_WIDTH - 4


def display_rows(body: str) -> Rows:
    """A display's rows: those of its ``aligned`` block, or its one line broken where too wide."""
    return rows_from_latex(body) if body.startswith("\\begin{aligned}") else formula_rows(body, width=PROSE_WIDTH)


def _code_html(text: str) -> str:
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def prose_html(text: str) -> str:
    """HTML: text escaped with `code` spans, inline math as inline MathML, displays as block MathML."""
    out = []
    for kind, body in segments(text):
        if kind == "text":
            out.append(_code_html(body))
        elif kind == "inline":
            out.append(inline_mathml(body))
        else:
            out.append(rows_mathml(display_rows(body)))
    return "".join(out)


def prose_markdown(text: str) -> str:
    """Markdown: inline math as is; a display on lines of its own (GitHub renders it there)."""
    out: list[str] = []
    for kind, body in segments(text):
        if kind == "inline":
            out.append(f"${body}$")
        elif kind == "display":  # on lines of its own: the text around it ends and starts a line
            out = [*out[:-1], out[-1].rstrip()] if out else out
            out.append(f"\n\n$$\n{rows_latex(display_rows(body))}\n$$\n\n")
        else:
            out.append(body.lstrip() if out and out[-1].endswith("$$\n\n") else body)
    return "".join(out).strip()


def prose_plain(text: str) -> str:
    """A terminal line: the dollar signs dropped, a display on one line."""
    return "".join(" ".join(body.split()) if kind == "display" else body for kind, body in segments(text))
