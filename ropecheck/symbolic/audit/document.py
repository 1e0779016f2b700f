"""Reading a Markdown or LaTeX document's math: display equations, their rows, chains and line numbers.

What counts as a display equation: ``$$ ... $$``, ``\\[ ... \\]``, ``\\begin{equation}``,
``align``, ``gather``, ``multline`` (starred or not), and fenced ```` ```math ```` blocks in
Markdown; ``aligned``, ``split`` and ``gathered`` inside them are unwrapped. Inline math
(``$ ... $``, ``\\( ... \\)``) is kept apart: it may declare domains or make definitions, but
it is not audited. Code fences, code spans, indented code blocks, HTML comments and LaTeX comments are skipped; in
Markdown the markers of a blockquote (``> $$ ... $$``) are blanked, so quoted math reads as any other.

A display equation is cut into *chains* of links ``A = B = C``: at ``\\\\`` rows (a line
break is a space, as in LaTeX), a row that starts with ``=`` (or ``&=``) continues the chain
above it, a row that starts with an operator (or follows one) continues the expression above
it, and any other row starts a new chain. ``\\quad``, ``\\qquad``, ``\\text{...}`` and ``\\Rightarrow`` between
equations separate chains (a quad beside a relation, or after an operator, is room), as does an alignment point
that opens another column after a whole equation (:func:`_columns`); ``\\tag``, ``\\label``, ``\\nonumber``, a
number typed by hand in a column or at either end of a row, and a final ``.`` or ``,`` are dropped. Relations other
than ``=`` (``:=``, ``\\approx``, ``\\le`` ...) are kept with the link, so a caller can say why it does not decide
them.

A chain may go on in the next display: ``$$ A = B $$ which gives $$ = C $$`` is the chain
``A = B = C`` when only blank space or a short connecting word (:data:`CONNECTIVES`) stands
between the two displays and the first ends with a complete side (:func:`continues`); a display that opens
with a relation also goes on across a step's title or a one-line reason (:mod:`.resumed`).

A sentence may state an equality between two inline formulas: ``So $A$ equals $B$.``,
``$A$ = $B$.``, ``因此 $A$ 等于 $B$。`` -- only in that plain shape (:func:`stated_equality`): the
first formula opens the sentence (or follows one word such as "so" or "then"), the second
closes it. "the norm of $A$ equals $B$", "if $A$ equals $B$", "$A$ equals $B$ for $m = n$" and
"... gives $B$" do not state that A = B, and are left alone.

Design constraints: pure text, no SymPy; every link carries the document line it starts on.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace

from ..readers.latex_text import GREEK, PROSE_WORDS, WORDS_NAME, Src, top_level, words_name
from .angle_pairs import glued_equals
from .loose_subscripts import braced_loose_subscripts
from .spellings import usual_spelling
from .star_conjugates import raised_bracket_stars, star_said_conjugate
from .units import unit_word_at

__all__ = ["CONNECTIVES", "Chain", "Link", "MathBlock", "chains", "continues", "math_blocks", "stated_equality"]

_ENVS = ("equation", "align", "gather", "multline", "eqnarray", "flalign", "alignat")
_INNER_ENVS = ("aligned", "split", "gathered", "alignedat")
_BRACKETS = (("\\begin{", "\\end{"), ("\\langle", "\\rangle"), ("\\lbrace", "\\rbrace"))
#: The words that may stand between two displays of one chain (a longer text breaks the chain).
CONNECTIVES = (
    "and", "so", "then", "thus", "hence", "therefore", "which gives", "which yields", "this gives", "giving",
    "we get", "we have", "i.e.", "that is", "expanding", "simplifying", "rearranging", "which simplifies to",
    "this simplifies to", "which expands to", "即", "则", "所以", "因此", "于是", "从而", "得", "展开得",
)  # fmt: skip
_QUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)+", re.M)


@dataclass(frozen=True)
class MathBlock:
    """A piece of math in the document: ``kind`` is ``display`` or ``inline``; ``src`` keeps document offsets."""

    kind: str
    src: Src
    line: int

    @property
    def end(self) -> int:
        """The document offset just after the block's math."""
        return self.src.col(len(self.src.text))


@dataclass(frozen=True)
class Link:
    """One member of a chain: its LaTeX, the line it starts on, and its relation to the link before."""

    text: str
    line: int
    relation: str = ""
    column: int = 0
    end_line: int = 0


@dataclass(frozen=True)
class Chain:
    """Links ``A = B = C`` read as the steps ``A = B`` and ``B = C``; ``then`` is what separates it from the
    chain after it in the same display (``\\Rightarrow``, ``\\quad``), or empty; ``range`` the range of an index
    written after it (``i \\in [1, d/2]``), dropped from its last link."""

    links: tuple[Link, ...]
    line: int
    then: str = ""
    range: str = ""


class _Lines:
    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def column(self, offset: int) -> int:
        return offset - self.starts[self.line(offset) - 1]


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """The text with each span replaced by spaces (newlines kept, so offsets and lines stay)."""
    chars = list(text)
    for a, b in spans:
        for i in range(a, b):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


_FENCE = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([A-Za-z]*)[^\n]*$", re.M)
_OPENERS = re.compile(r"(?<!\\)\$\$|\\\[|\\begin\{(" + "|".join(_ENVS) + r")(\*?)\}|(?<![\\$])\$(?!\$)|\\\(")


def math_blocks(text: str, *, latex: bool = False) -> tuple[list[MathBlock], _Lines]:
    """Every display and inline math block of a Markdown (or, ``latex=True``, LaTeX) document, in order."""
    lines = _Lines(text)
    skipped: list[tuple[int, int]] = []
    blocks: list[MathBlock] = []
    if latex:
        skipped += [(m.start(), m.end()) for m in re.finditer(r"(?<!\\)%[^\n]*", text)]
    else:
        skipped += [(m.start(), m.end()) for m in re.finditer(r"<!--.*?-->", text, re.S)]
        skipped += [(m.start(), m.end()) for m in _QUOTE.finditer(text)]  # a blockquote's markers
        pos = 0
        while True:
            m = _FENCE.search(text, pos)
            if not m:
                break
            fence_end = re.compile(
                r"^[ \t]*" + re.escape(m.group(1)[0]) + "{" + str(len(m.group(1))) + r",}[ \t]*$", re.M
            )
            c = fence_end.search(text, m.end())
            end = c.end() if c else len(text)
            if m.group(2).lower() == "math":
                body_end = c.start() if c else len(text)
                body = _layout_free(_src(text, m.end() + 1, body_end))
                blocks.append(MathBlock("display", body, lines.line(m.end() + 1)))
            skipped.append((m.start(), end))
            pos = end
        skipped += _code_spans(_blank(text, skipped))
    scan = _blank(text, skipped)
    pos = 0
    while True:
        m = _OPENERS.search(scan, pos)
        if not m:
            break
        opener = m.group(0)
        if opener == "$$":
            close, kind = "$$", "display"
        elif opener == "\\[":
            close, kind = "\\]", "display"
        elif opener.startswith("\\begin"):
            close, kind = f"\\end{{{m.group(1)}{m.group(2)}}}", "display"
        elif opener == "$":
            close, kind = "$", "inline"
        else:
            close, kind = "\\)", "inline"
        end = _find_close(scan, m.end(), close)
        if end < 0:
            pos = m.end()
            continue
        if kind == "inline" and "\n\n" in scan[m.end() : end]:  # a lone $ (a price): not math
            pos = m.end()
            continue
        if opener == "$$" and not latex and _in_sentence(scan, m.start(), end + len(close)):
            kind = "inline"  # kramdown: $$...$$ with prose on its line is inline math
        src = _layout_free(_src(scan, _body_start(scan, m), end))
        blocks.append(MathBlock(kind, src if latex else _markdown_escapes(src), lines.line(m.end())))
        pos = end + len(close)
    blocks.sort(key=lambda b: b.src.col(0))
    # R^d_\Theta,m where the document writes R^d_{\Theta,m} elsewhere: that name (.loose_subscripts)
    braced = braced_loose_subscripts([b.src for b in blocks])
    if star_said_conjugate(text, braced):  # (z_1z_2)* where the text says its star conjugates (.star_conjugates)
        braced = [raised_bracket_stars(s) for s in braced]
    return [replace(b, src=s) for b, s in zip(blocks, braced)], lines


#: ```$$ 1 = 2 $$```: a code span, a run of backticks to the same run, inside one paragraph
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(?:(?!\n[ \t]*\n)[^`]|`(?!\1))+?(?<!`)\1(?!`)")
#: a paragraph: lines with no blank line between them
_PARAGRAPH = re.compile(r"(?:^[ \t]*\S[^\n]*(?:\n|$))+", re.M)
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]", re.M)


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Where Markdown shows the text as code, not math: code spans, and indented code blocks (a paragraph indented
    by four spaces or a tab after a paragraph that starts at the margin, neither a list item nor a quote: there the
    indent continues the item)."""
    spans = [(m.start(), m.end()) for m in _CODE_SPAN.finditer(text)]
    before = ""
    for m in _PARAGRAPH.finditer(text):
        block = m.group(0)
        indented = all(re.match(r"(?: {4}|\t)", line) for line in block.splitlines())
        if indented and before and not re.match(r"[ \t]", before) and not _LIST_ITEM.search(before):
            if not before.lstrip().startswith(">"):
                spans.append((m.start(), m.end()))
                continue
        before = block
    return spans


#: ``\\begin{alignat}{2}``: the number of column pairs, an argument of the environment, never a factor of its math
_COLUMN_COUNT = re.compile(r"\s*\{\s*\d+\s*\}")


def _body_start(scan: str, opener: re.Match[str]) -> int:
    """Where a display's math starts: after its opener, and after the column count ``alignat`` takes."""
    count = _COLUMN_COUNT.match(scan, opener.end()) if opener.group(1) == "alignat" else None
    return count.end() if count else opener.end()


#: what sets only the look of a formula: a size switch (``\\scriptsize{...}``: its group stays), a rule between
#: the rows of an array (``\\hdashline``)
_LOOK = re.compile(
    r"\\(?:tiny|scriptsize|footnotesize|small|normalsize|large|Large|LARGE|huge|Huge)(?![A-Za-z])"
    r"|\\(?:hdashline|hline|midrule|toprule|bottomrule)(?![A-Za-z])"
    # ``&\\phantom{=} + b``: room kept for what it would print, and nothing printed: spacing, as a quad is
    r"|\\[hv]?phantom\s*\{(?:[^{}]|\{[^{}]*\})*\}"
)
#: ``\\left( \\begin{array}{cc:cc} ... \\end{array} \\right)``: a matrix written as an array between brackets
_ARRAY = re.compile(
    r"\\left\s*(?P<open>[(\[])\s*\\begin\{array\}\s*\{[lcr:|\s]*\}|\\end\{array\}\s*\\right\s*(?P<close>[)\]])"
)


def _layout_free(src: Src) -> Src:
    r"""The math with what sets only its look dropped, an alias spelled as its command (:mod:`.spellings`), an
    array between brackets as the matrix it draws, and a label glued to a Greek letter as its subscript
    (:func:`_glued_labels`).

    Example:
        >>> _layout_free(Src.of(r"\small{\left(\begin{array}{c:c} a & b \\ \hline c & d \end{array}\right)}")).text
        ' {\\begin{pmatrix} a & b \\\\   c & d \\end{pmatrix}}'

    The lines stay those of the document (a bracket on a line of its own):

        >>> _layout_free(Src.of("\\left[\n\\begin{array}{cc} a & b \\\\ c & d \\end{array}\n\\right]")).text.count("\n")
        2
    """
    src = usual_spelling(src).sub(_LOOK, lambda m: " ")

    def matrix(m: re.Match[str]) -> str:
        kind = "pmatrix" if (m.group("open") or m.group("close")) in "()" else "bmatrix"
        # the line breaks inside what is replaced are kept (``\\left[`` on its own line): each later line of the
        # math stays the document's line
        return ("\\begin{" if m.group("open") else "\\end{") + kind + "}" + "\n" * m.group(0).count("\n")

    return _glued_labels(src.sub(_ARRAY, matrix))


#: ``\lambda{max}``, ``\lambda^{\prime}{max}``: a brace group of letters glued to a Greek letter, a command that
#: takes no argument -- a label set beside the letter, as ``\lambda_{\mathrm{max}}`` writes it
_GLUED_LABEL = re.compile(
    r"(?<![_^\\])(\\(?:"
    + "|".join(g for g in GREEK if "pi" not in g)
    + r")(?:\^\{\\prime\}|\^\\prime(?![A-Za-z])|')?)\{([A-Za-z]{2,})\}"
)


def _glued_labels(src: Src) -> Src:
    r"""Each label glued to a Greek letter as the upright subscript it stands for.

    Example:
        >>> _glued_labels(Src.of(r"\lambda^{\prime}{max} = s \lambda{max}")).text
        '\\lambda^{\\prime}_{\\mathrm{max}} = s \\lambda_{\\mathrm{max}}'
    """
    return src.sub(_GLUED_LABEL, lambda m: m.group(1) + r"_{\mathrm{" + m.group(2) + "}}")


#: ``\\{`` written in Markdown for the brace ``\{`` (Markdown eats one backslash before a brace)
_ESCAPED_BRACE = re.compile(r"(?<!\\)\\\\(?=[{}])")
_DELIMITER_BRACE = re.compile(r"\\(?:left|right|big|Big|bigg|Bigg)[lr]?\s*\\\\(?=[{}])")


#: ``q\\_m``: Markdown needs ``\\_`` where ``_`` would start emphasis; the renderer gets ``_`` (LaTeX's ``\\_``, a
#: printed underscore, has no place in a formula)
_ESCAPED_UNDERSCORE = re.compile(r"(?<!\\)\\_")
#: ``(W_k x_n)^\\*``: Markdown's escaped star, the renderer gets ``*``
_ESCAPED_STAR = re.compile(r"(?<!\\)\\\*")


def _markdown_escapes(src: Src) -> Src:
    """The math as a Markdown renderer hands it over: escaped underscores, stars and braces unescaped."""
    src = src.sub(_ESCAPED_UNDERSCORE, lambda m: "_")
    src = src.sub(_ESCAPED_STAR, lambda m: "*")
    return _markdown_braces(src)


def _markdown_braces(src: Src) -> Src:
    r"""``\\{ ... \\}`` in Markdown math read as the braces ``\{ ... \}`` it renders as.

    Markdown turns ``\\{`` into ``\{`` before the math renderer sees it, so a set written for a
    Markdown page doubles the backslash. Read so only where nothing else fits: after ``\left``/``\right``
    (a delimiter must follow them, never a row break), or where every ``\\{`` has its ``\\}`` (a row
    break followed by a group that ends in another row break means nothing).
    """
    text = src.text
    opens, closes = len(re.findall(r"(?<!\\)\\\\\{", text)), len(re.findall(r"(?<!\\)\\\\\}", text))
    if opens and opens == closes:
        return src.sub(_ESCAPED_BRACE, lambda m: " \\")
    return src.sub(_DELIMITER_BRACE, lambda m: m.group(0)[:-2] + " \\")


def _in_sentence(text: str, start: int, end: int) -> bool:
    """Whether prose stands on the same line before ``start`` or after ``end`` (punctuation alone does not count)."""
    before = text[text.rfind("\n", 0, start) + 1 : start]
    after_end = text.find("\n", end)
    after = text[end : len(text) if after_end < 0 else after_end]
    before = re.sub(r"\$\$.*?\$\$", " ", before)  # another display on the same line is not prose
    after = re.sub(r"\$\$.*?(?:\$\$|$)", " ", after)
    before = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", before)  # a list item's marker
    return bool(re.search(r"[^\W_]", before) or re.search(r"[^\W_]", after))


_DELIMITERS = re.compile(
    r"\$\$|\$|\\\[|\\\]|\\\(|\\\)|\\(?:begin|end)\{[^{}]*\}|```+[A-Za-z]*|~~~+[A-Za-z]*|<!--.*?-->|(?<!\\)%[^\n]*",
    re.S,
)
_JOIN = re.compile(r"\s*(?:(?:" + "|".join(re.escape(w) for w in CONNECTIVES) + r")\s*[,:，：]?\s*)?", re.I)


def continues(text: str, before: MathBlock, after: MathBlock) -> bool:
    """Whether only blank space or one connecting word (``which gives``, ``即``) stands between two displays."""
    if before.kind != "display" or after.kind != "display":
        return False
    gap = text[before.src.col(len(before.src.text)) : after.src.col(0)]
    gap = _DELIMITERS.sub(" ", _QUOTE.sub(" ", gap))
    return _JOIN.fullmatch(gap) is not None


_SAYS_EQUAL = re.compile(r"\s*(?:=|equals|is equal to|等于)\s*", re.I)
_OPENS = re.compile(
    r"(?:\A|[.!?:;。！？：；]|\n[ \t]*\n)\s*(?:(?:so|then|thus|hence|therefore|we have|we get|we obtain|i\.e\.|"
    r"因此|所以|于是|从而|即|则)\s*[,，]?)?\s*\Z",
    re.I,
)
_CLOSES = re.compile(r"\s*(?:[.!?;。！？；]|\Z|\n[ \t]*\n)")


def stated_equality(text: str, first: MathBlock, second: MathBlock) -> bool:
    """Whether a sentence says, in its plain shape, that two consecutive inline formulas are equal."""
    if first.kind != "inline" or second.kind != "inline":
        return False
    start, end = first.src.col(0), second.src.col(len(second.src.text))
    gap = text[first.src.col(len(first.src.text)) : second.src.col(0)]
    gap = re.sub(r"^(?:\$|\\\))|(?:\$|\\\()$", "", gap)
    before = re.sub(r"(?:\$|\\\()$", "", _QUOTE.sub(" ", text[:start]))
    after = re.sub(r"^(?:\$|\\\))", "", text[end:])
    return bool(_SAYS_EQUAL.fullmatch(gap) and _OPENS.search(before[-200:] if len(before) > 200 else before)
                and _CLOSES.match(after))  # fmt: skip


def ends_open(text: str) -> bool:
    """Whether a side ends with an operator or an open bracket, so that it is not complete."""
    return not text.strip() or _ENDS_OPEN.search(text) is not None


def _find_close(text: str, start: int, close: str) -> int:
    i = start
    while True:
        i = text.find(close, i)
        if i < 0 or text[i - 1 : i] != "\\" or close.startswith("\\"):
            return i
        i += 1


def _src(text: str, start: int, end: int) -> Src:
    start = min(start, len(text))
    end = max(min(end, len(text)), start)
    return Src(text[start:end], tuple(range(start, end + 1)))


# --------------------------------------------------------------------------- rows and chains

_DROP = re.compile(
    r"\\(?:tag|label)\*?\s*\{[^{}]*\}|\\(?:nonumber|notag|displaystyle|textstyle)(?![A-Za-z])"
    # an environment inside ``$$ ... $$`` (``\begin{align} ... \end{align}``, as renderers allow) is unwrapped too
    r"|\\begin\{(?:" + "|".join(_INNER_ENVS + _ENVS) + r")\*?\}(?:\{[^{}]*\})?"
    r"|\\end\{(?:" + "|".join(_INNER_ENVS + _ENVS) + r")\*?\}"
    r"|\\\\\s*\[[^\]]*\]"
    # ``... \qquad \# \text{by (3)} \\``: a remark after a spaced hash, to the end of its row, as a comment in code
    r"|\\q?quad(?:\s|\\q?quad(?![A-Za-z]))*\\#[^\n]*?(?=\\\\|\n|$)"
    # ``A &= B \qquad (1) \\ &= C``, ``B \;\;(1)``: an equation's number typed by hand after a wide space (a quad,
    # or two spaces), closing its row, as a \tag
    r"|(?:\\q?quad(?![A-Za-z])|(?:\\[,;: ]|~)\s*(?:\\[,;: ]|~))(?:\s|\\q?quad(?![A-Za-z])|\\[,;: ]|~)*"
    r"\(\s*\d+(?:\.\d+)*\s*\)(?=\s*(?:\\\\|\n|$))"
)
#: ``(2)\quad &= b``: an equation's number typed by hand opening its row, before room or the alignment point
_ROW_LABEL = re.compile(r"^\s*\(\s*\d+(?:\.\d+)*\s*\)(?=\s*(?:\\q?quad(?![A-Za-z])|&))")
_SEPARATORS = re.compile(
    r"\\(?:q?quad|Rightarrow|Longrightarrow|implies|iff|Leftrightarrow|Longleftrightarrow|because|therefore)(?![A-Za-z])"
    # ``2a = 4 => a = 2``: an implication typed in ASCII (or as one character), never ``=`` then ``>``
    r"|<==?>|(?<![<=])==?>|[⇒⟹⇔]"
    # ``(1, 0) \to (\cos 30^\circ, \sin 30^\circ)``: a map from one point to another, not an equality
    r"|\\(?:to|mapsto|rightarrow|longmapsto|longrightarrow)(?![A-Za-z])|→|↦"
    # a word before what it labels (``\text{Rot}\begin{bmatrix}...``, ``\text{Attn}\,\Big(...``) is not a
    # separator: the reader refuses it; nor is one word on the left of ``=`` (``\text{score} = ...``), the name a
    # display defines; nor ``\text{Re}``, ``\text{Im}``, the real and imaginary parts, whatever follows them
    r"|\\(?:text|textrm|mbox|textnormal)\s*\{(?!\s*(?:Re|Im)\s*\})[^{}]*[A-Za-z]{2,}[^{}]*\}"
    r"(?!(?:\s|~|\\[,;:! ])*(?:\\left|\\(?:big|Big|bigg|Bigg)[lr]?(?![A-Za-z])|\\begin|\\langle|\\\{|[(\[]))"
)
#: ``\text{score}``: one word set upright, with no space in it
_ONE_WORD = re.compile(r"\\(?:text|textrm|mbox|textnormal)\s*\{[A-Za-z]{2,}\}")
_OPERATOR_AFTER = re.compile(r"\s*(?:[-+*/=^_]|\\cdot|\\times)")
_OPERATOR_BEFORE = re.compile(r"(?:^|[-+*/=(]|\\cdot|\\times)\s*$")


_PROSE_WORDS = PROSE_WORDS


def _word_as_name(text: str, m: re.Match[str]) -> bool:
    """``\\text{score} = ...``, ``\\text{gain} - 1``, ``x = \\text{gain} + 1``: one upright word next to an
    operator or a relation (or opening the equation, before one) is a name in the formula, not prose
    between two equations."""
    several = WORDS_NAME.fullmatch(m.group(0))
    if several is not None and words_name(several) is None:
        return False
    if several is None and (
        not _ONE_WORD.fullmatch(m.group(0)) or re.sub(r".*\{|\}", "", m.group(0)).lower() in _PROSE_WORDS
    ):
        return False
    return bool(_OPERATOR_AFTER.match(text, m.end())) or (
        bool(_OPERATOR_BEFORE.search(text[: m.start()])) and text[: m.start()].strip() != ""
    )


# relations, longest first; "=" is the one a step decides
_RELATIONS = re.compile(
    r":=|=:|\\coloneqq|\\eqqcolon|\\triangleq|\\stackrel\{[^{}]*\}\{=\}|\\overset\{[^{}]*\}\{=\}|\\equiv"
    r"|\\approx|\\simeq|\\cong|\\sim(?![A-Za-z])|\\propto|\\neq?(?![A-Za-z])|\\leq?(?![A-Za-z])|\\geq?(?![A-Za-z])"
    r"|\\l[lt](?![A-Za-z])|\\g[gt](?![A-Za-z])|(?<![<>!:\\])=(?![=:>])|[≈≤≥≠]"
    # ``4095 > 1999``: a bare < or > (not \\left<, ->, <=); only where the other one is not also written (see
    # :func:`_top_relations`: ``<q, k>`` is a bracket pair)
    r"|(?<!\\left)(?<!\\right)(?<![-<>=])[<>](?![<>=])"
)
#: a relation typed as one character, as its command
_UNICODE_RELATIONS = {"≈": "\\approx", "≤": "\\le", "≥": "\\ge", "≠": "\\ne", "<": "\\lt", ">": "\\gt"}
#: a row that opens with an operator, after spacing (``&\\quad + b``), continues the expression above it
_CONTINUES = re.compile(r"^\s*&?(?:\s|~|\\[,;:> ]|\\q?quad(?![A-Za-z]))*(?:[-+]|\\cdot|\\times|\\odot|\\otimes)")
_ENDS_OPEN = re.compile(r"(?:[-+(\[{=]|\\cdot|\\times|\\odot|\\otimes|\\left[(\[.]|\\langle)\s*$")


def _strip_alignment(src: Src) -> Src:
    """Top-level ``&`` (alignment points) become spaces; ``&`` inside a matrix stays (as in :func:`_pieces`, after a
    closing bracket with no opening one is top level too)."""
    depth = top_level(src.text, _BRACKETS)
    for i, ch in enumerate(src.text):
        # ``\\&`` is an escaped ampersand; ``\\\\&`` a row break, then an alignment point
        if ch == "&" and depth[i] <= 0 and (len(src.text[:i]) - len(src.text[:i].rstrip("\\"))) % 2 == 0:
            src = src.splice(i, i + 1, " ")
    return src


#: ``a &= b && (3)``: an equation's number typed by hand in a column of its own (after one or more alignment points),
#: closing its row
_COLUMN_NUMBER = re.compile(r"(?<!\\)(?:&\s*)+\(\s*\d+(?:\.\d+)*\s*\)\s*$")


def _columns(row: Src) -> Src:
    r"""A row's columns read as the page sets them: a number typed by hand in a column of its own after the equation
    (``a &= b && (3)``) dropped, as a ``\tag`` is, and an alignment point after a whole equation that opens another
    column (``a &= b & c &= d``: two equations side by side; ``a &= b && \text{by } (2)``: a remark) a ``\quad``
    between the two, never a space that would multiply the last side of the equation by what follows it.

    Example:
        >>> _columns(Src.of(r"a &= b & c &= d")).text, _columns(Src.of(r"a &= b && (3)")).text
        ('a &= b \\quad\\;  c &= d', 'a &= b       ')

    A relation or an operator before the point leaves it alone (``a &=& (3)``, ``a &=& b``: eqnarray's columns).
    """
    depth = top_level(row.text, _BRACKETS)
    number = _COLUMN_NUMBER.search(row.text)
    if number and depth[number.start()] <= 0 and _whole_equation(row.slice(0, number.start())):
        row = row.splice(number.start(), number.end(), " " * (number.end() - number.start()))
    depth = top_level(row.text, _BRACKETS)
    cuts, start = [], 0
    for m in re.finditer(r"(?<!\\)&", row.text):
        if depth[m.start()] > 0:
            continue
        after = row.text[m.end() :].replace("&", " ").strip()
        # ``& + c`` goes on from the column before; ``& -\sin u &= v`` opens an equation of its own
        goes_on = _GOES_ON.match(after) and (_RELATIONS.match(after) or not _top_relations(Src.of(after)))
        if after and not goes_on and _whole_equation(row.slice(start, m.start())):
            cuts.append(m.start())
            start = m.end()
    for cut in reversed(cuts):
        row = row.splice(cut, cut + 1, "\\quad\\; ")  # the ``\\;``: a sign after it opens the next equation
    return row


#: what goes on from the column before: an operator or a relation
_GOES_ON = re.compile(r"[-+*/=<>]|\\(?:cdot|times|odot|otimes|approx|leq?|geq?|lt|gt|equiv|ne)(?![A-Za-z])")


def _whole_equation(src: Src) -> bool:
    """Whether the text holds a relation with something after it and does not end open (what a next column could not
    go on from)."""
    text = src.text.replace("&", " ")
    found = _top_relations(Src.of(text))
    return bool(found) and re.sub(r"[{}\s]", "", text[found[-1].end() :]) != "" and not ends_open(text)


def _pieces(src: Src) -> list[Src]:
    """The display cut at its row breaks (``\\\\`` outside brackets and matrices); a line break is a space.

    A closing bracket with no opening one (a slip: ``\\exp(a[x - y)])``) leaves the rows after it outside every
    bracket: they are rows of their own still, not one row swallowing the rest of the display."""
    depth = top_level(src.text, _BRACKETS)
    cuts = [m.start() for m in re.finditer(r"\\\\", src.text) if depth[m.start()] <= 0]
    cuts = [c for i, c in enumerate(cuts) if i == 0 or c > cuts[i - 1] + 1]  # \\\\\\ is two breaks, not three
    parts = [src.slice(a, b) for a, b in zip([0] + [c + 2 for c in cuts], cuts + [len(src.text)])]
    return [p for p in parts if p.text.strip()]


def _top_relations(src: Src) -> list[re.Match[str]]:
    """The relations outside every bracket (after a closing bracket with no opening one too: see :func:`_pieces`)."""
    depth = top_level(src.text, _BRACKETS)
    found = [m for m in _RELATIONS.finditer(src.text) if depth[m.start()] <= 0]
    # ``<f, g>=g(...)``: the ``=`` glued to a pair of brackets is the relation, never half of ``>=``
    found = sorted(found + [m for m in glued_equals(src.text) if depth[m.start()] <= 0], key=lambda m: m.start())
    pair = "<" in src.text and ">" in src.text  # <q, k>: a pair of brackets
    return [m for m in found if m.group(0) not in "<>" or not pair]


#: ``= a \\ \quad + b``: spacing before a term that continues the row above, not a separator
_SPACE_BEFORE_TERM = re.compile(r"\\q?quad(?:\s|\\q?quad(?![A-Za-z]))*(?:[-+](?!\s*[=<>])|\\cdot|\\times)")


def _separate(src: Src) -> list[tuple[Src, str]]:
    """Equations written side by side (``a = b, \\quad c = d``; ``a = b \\text{ where } c = d``) apart,
    each with the separator after it."""
    depth = top_level(src.text, _BRACKETS)
    out, last, seps = [], 0, []
    found = _separators(src)
    # ``P = ... \in \mathbb{R}^{m\times d}, Q = ...``: a comma after the set a name lives in ends its statement
    found += [(m.start("sep"), m.end("sep"), m.group("sep")) for m in _AFTER_MEMBERSHIP.finditer(src.text)]
    for start, end, sep in sorted(found):
        if depth[start] != 0 or start < last:
            continue
        out.append(src.slice(last, start))
        seps.append(sep)
        last = end
    out.append(src.slice(last, len(src.text)))
    seps.append("")
    out, seps = _comma_separated(out, seps)
    kept = [(_trim(p), sep) for p, sep in zip(out, seps) if _EDGE_ROOM.sub("", _trim(p).text).strip()]
    return [(p, sep if i + 1 < len(kept) else "") for i, (p, sep) in enumerate(kept)]


def _separators(src: Src) -> list[tuple[int, int, str]]:
    """The separators :func:`_separate` cuts at (where, and which), before the commas after a set."""
    return [
        (m.start(), m.end(), m.group(0))
        for m in _SEPARATORS.finditer(src.text)
        if not _word_as_name(src.text, m)
        and not unit_word_at(src.text, m.start())  # a number's unit
        and not _SPACE_BEFORE_TERM.match(src.text, m.start())
        and not _room_only(src.text, m)
    ]


#: ``a &\quad= b``, ``a = \quad b``: a quad and what may stand beside it as spacing
_QUADS = re.compile(r"(?:\s|~|\\[,;: ]|\\q?quad(?![A-Za-z]))*")


def _room_only(text: str, m: re.Match[str]) -> bool:
    """Whether a quad stands next to a relation (``a \\quad = \\quad b``) or after what goes on (``a = b + \\\\
    \\qquad c``, an operator closing the row above): room, not a cut between two equations, as a quad before a term
    that goes on is (:data:`_SPACE_BEFORE_TERM`)."""
    if not re.fullmatch(r"\\q?quad", m.group(0)):
        return False
    after = _QUADS.match(text, m.end())
    before = re.sub(r"(?:\s|~|\\[,;: ]|\\q?quad(?![A-Za-z]))*$", "", text[: m.start()])
    relation_after = _RELATIONS.match(text, after.end() if after else m.end())
    return bool(relation_after and relation_after.group(0) not in "<>") or ends_open(before)


#: a space or words between an equation and a remark after it (never an arrow: what follows one is derived)
_ASIDE_OPENER = re.compile(r"\\(?:q?quad|because)(?![A-Za-z])|\\(?:text|textrm|mbox|textnormal)\s*\{")


def _aside(group: Src) -> int | None:
    """Where the remark after a group's equation starts (``a = b \\quad \\text{since } i^2 = -1``, ``a = b
    \\quad \\text{(by 3)}``): at its last top-level separator made of space or words, or None. A row that opens
    with ``=`` under such a row continues the equation, not the remark."""
    depth = top_level(group.text, _BRACKETS)
    found = [f for f in _separators(group) if depth[f[0]] == 0]
    if not found or not _ASIDE_OPENER.match(found[-1][2]) or not _top_relations(group.slice(0, found[-1][0])):
        return None
    return found[-1][0]


def _comma_separated(pieces: list[Src], seps: list[str]) -> tuple[list[Src], list[str]]:
    """Equations listed with commas (``h_i = a_i b_i, S_j = \\sum_{i<j} c_i``; ``h_N = 0, S_0 = 0``) apart: only
    where every part is an equation of its own, its first relation ``=`` between two sides."""
    out, out_seps = [], []
    for piece, sep in zip(pieces, seps):
        depth = top_level(piece.text, _BRACKETS)
        # ``2\,a b``: the comma of a thin space is spacing, never a cut between two equations
        cuts = [m.start() for m in re.finditer(r"(?<!\\),", piece.text) if depth[m.start()] == 0]
        parts = [piece.slice(a, b) for a, b in zip([0] + [c + 1 for c in cuts], cuts + [len(piece.text)])]
        if len(parts) < 2 or not all(_one_equation(p) for p in parts):
            out.append(piece)
            out_seps.append(sep)
            continue
        out += parts
        out_seps += [","] * (len(parts) - 1) + [sep]
    return out, out_seps


def _one_equation(src: Src) -> bool:
    found = _top_relations(src)
    return (
        bool(found)
        and found[0].group(0) == "="
        and bool(src.text[: found[0].start()].strip())
        and bool(src.text[found[-1].end() :].strip())
    )


#: a comma (or a full-width one) right after ``\in \mathbb{R}^{m\times d}``, before another equation
_AFTER_MEMBERSHIP = re.compile(
    r"(?:\\in(?![A-Za-z])|∈)\s*\\mathbb\s*\{\s*[RCZN]\s*\}(?:\s*\^\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?\s*"
    r"(?P<sep>[,，](?:\\[,;:! ]|~|\s)*)(?=[^=]*=)"
)
#: a comma or the word "for" (``\mathrm{for}``) before the range of an index closing an equation
_RANGE_START = re.compile(r",|\\(?:text|textrm|mathrm|mbox)\s*\{\s*for\s*\}")
_INDEX = r"(?:[A-Za-z]|\\[A-Za-z]+)(?:_\{?[A-Za-z0-9]+\}?)?"
#: the range itself: ``0 \le i \lt d/2``; ``i \in [1, 2, \dots, d/2]``; ``n = 0, \cdots, N`` (with its dots); after
#: a comma, the word "for" may open it set upright or not (``, for \ i = 1, 2, \ldots, n``: a word, as only a
#: range follows it to the end)
_RANGE = re.compile(
    r"(?:\\[,;:! ]|~|\s)*(?:(?:\\(?:text|textrm|mathrm|mbox)\s*\{\s*for\s*\}|for(?=\\[,;:! ]|~|\s))"
    r"(?:\\[,;:! ]|~|\s)*)?(?:"
    r"[^,=<>]*?(?:\\leq?|\\lt|<)(?![A-Za-z])\s*" + _INDEX + r"\s*(?:\\leq?|\\lt|<)(?![A-Za-z])[^=,]*"
    r"|" + _INDEX + r"(?:\s*,\s*" + _INDEX + r")*\s*(?:\\in(?![A-Za-z])|∈)[^=]*"
    r"|" + _INDEX + r"\s*=\s*[^=,]+(?:,[^=,]+)*,\s*(?:\\[lc]?dots|\\cdot\s*\\cdot\s*\\cdot|\.\.\.|…|⋯)"
    r"(?![A-Za-z])\s*,[^=,]+"
    r")\s*$"
)


def _drop_range(src: Src) -> Src:
    r"""An equation without the range of its index written after a comma or "for" (``\lambda_i = ..., 0 \le i
    \lt d/2``, ``\theta_i = ..., i \in \{0, 1, \dots, d/2-1\}``, ``T_n = ..., \mathrm{for}\, n = 0, \cdots, N``)."""
    depth = top_level(src.text, _BRACKETS)
    for m in _RANGE_START.finditer(src.text):
        if depth[m.start()] != 0 or not _RANGE.fullmatch(src.text, m.end()):
            continue
        if _top_relations(src.slice(0, m.start())):
            return src.slice(0, m.start())
    return src


def _trim(src: Src) -> Src:
    """Without surrounding space and a final ``.``, ``,`` or ``;``."""
    src = src.strip()
    while src.text and src.text[-1] in ".,;" and not src.text.endswith("\\,") and not src.text.endswith("\\;"):
        src = src.slice(0, len(src.text) - 1).strip()
    return src


def _dropped(m: re.Match[str]) -> str:
    """What a dropped piece leaves: spaces, or the row break of ``\\\\[2pt]`` (only its spacing goes)."""
    text = m.group(0)
    return "\\\\" + " " * (len(text) - 2) if text.startswith("\\\\") else " " * len(text)


#: a control space opening a row (``\\\`` in Markdown: a row break, then ``\ ``): spacing, not math
_ROW_SPACE = re.compile(r"^\s*\\(?=\s)")
_SPACING = r"(?:\s|~|\\[,;: ]|\\q?quad(?![A-Za-z]))"
#: ``a = 10^{-k} ~ \dots ~ \text{frequency}``: dots between spacing with only a word note after them, to the row's end
_NOTE_DOTS = re.compile(
    _SPACING + r"*(?:~|\\[,;: ]|\\q?quad(?![A-Za-z]))" + _SPACING + r"*\\[lc]?dots(?![A-Za-z])" + _SPACING + r"*"
    r"(?=\\(?:text|textrm|mbox|textnormal)\s*\{[^{}]*[A-Za-z]{2,}[^{}]*\}\s*$)"
)


def _note_dots(row: Src) -> Src:
    """A row without the dots that lead to a word note after it (``\\omega_i = 10000^{-2i/d} ~ \\dots ~
    \\text{frequency}``), where the term before the dots is one term with no index (a number, a name, a power):
    no series or product of indexed terms goes on there, so the dots are prose, not math."""
    m = _NOTE_DOTS.search(row.text)
    found = _top_relations(row.slice(0, m.start())) if m else []
    if m is None or not found:
        return row
    term = row.text[found[-1].end() : m.start()].strip()
    depth = top_level(term)
    flat = "".join(c for c, d in zip(term, depth) if d <= 0)
    if not term or re.search(r"[\s_+\-*/,=]|\\(?:cdot|times|dots|ldots|cdots)(?![A-Za-z])", flat):
        return row
    return row.splice(m.start(), m.end(), " " * (m.end() - m.start()))


def chains(block: MathBlock, lines: _Lines) -> list[Chain]:
    """The chains of one display block (see the module docstring), each link with its line."""
    src = block.src.sub(_DROP, _dropped)
    groups: list[Src] = []  # one per equation, rows joined
    asides: list[Src] = []  # remarks cut from a row that the next row's relation continues
    for piece in _pieces(src):
        piece = _strip_alignment(_columns(piece.sub(_ROW_LABEL, _dropped)))
        piece = piece.sub(_ROW_SPACE, lambda m: " ")
        piece = _note_dots(piece)
        text = piece.text
        opens = re.match(_SPACING + r"*(?:=|\\(?:approx|leq?|geq?|lt|gt|equiv)(?![A-Za-z])|[<>≤≥≈])", text)
        if groups and (
            opens or _CONTINUES.match(text) or _ENDS_OPEN.search(groups[-1].text) or not _top_relations(groups[-1])
        ):
            prev = groups[-1]
            cut = _aside(prev) if opens else None
            if cut is not None and _top_relations(prev.slice(cut, len(prev.text))):
                groups.append(piece)  # the remark is an equation too: which one the row continues is not read
                continue
            if cut is not None:
                asides.append(prev.slice(cut, len(prev.text)))
                prev = prev.slice(0, cut)
            groups[-1] = Src(prev.text + " " + text, prev.origin[:-1] + (prev.origin[-1],) + piece.origin)
        else:
            groups.append(piece)
    out: list[Chain] = []
    for g in groups + asides:
        for eq, then in _separate(g):
            kept = _drop_range(eq)
            stated = eq.text[len(kept.text) :].strip()
            eq = kept
            links, last, relation = [], 0, ""
            for m in _top_relations(eq):
                links.append(_link(eq.slice(last, m.start()), relation, lines))
                relation, last = _UNICODE_RELATIONS.get(m.group(0), m.group(0)), m.end()
            links.append(_link(eq.slice(last, len(eq.text)), relation, lines))
            out.append(Chain(tuple(links), links[0].line, then, stated))
    return out


#: room at the edge of a side (``a \\quad = \\quad b``), kept out of it
_EDGE_ROOM = re.compile(
    r"^(?:\s|~|\\[,;:! ]|\\q?quad(?![A-Za-z]))+|(?:(?<!\\)\s|~|(?<!\\)\\[,;:! ]|\\q?quad(?![A-Za-z]))+$"
)


def _link(src: Src, relation: str, lines: _Lines) -> Link:
    s = _trim(src.sub(_EDGE_ROOM, lambda m: ""))
    at = s.col(0) if s.text else src.col(0)
    end = s.col(len(s.text) - 1) if s.text else at
    return Link(s.text, lines.line(at), relation, lines.column(at), lines.line(end))
