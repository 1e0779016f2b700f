"""SymPy's LaTeX parser run in two stages: ANTLR's fast SLL prediction first, full LL only where SLL fails.

``sympy.parsing.latex.parse_latex`` drives its ANTLR grammar in the runtime's default prediction
mode, full LL, whose context-sensitive lookahead is not cached between inputs: in this grammar it
is most of an audit's time (a formula of a few dozen tokens takes tens of milliseconds). ANTLR's
SLL mode caches its lookahead and is an order of magnitude faster, and its documented contract is
the one this module rests on: an SLL parse either returns the same tree full LL would, or reports a
syntax error -- which may mean the input is wrong, or that this input needs LL's extra power.
So :func:`parse_latex` parses with SLL and, on any syntax error, parses again with SymPy's own
function, whose tree (or error) is the answer: the result is always the one SymPy gives.

The second stage is also taken when SymPy's internals this module builds on are not where it looks
for them (another SymPy line, another ANTLR runtime): then every parse is SymPy's own.

Example:
    >>> parse_latex(r"\\cos(m \\theta) q_0")
    q_{0}*cos(m*theta)
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["WARM_UP", "parse_latex", "warm_up"]


@functools.cache
def _sll_parts() -> tuple[Any, ...] | None:
    """SymPy's lexer, parser, error listener and converter and ANTLR's SLL mode, or None where any is not found
    (or the ANTLR runtime is not the line SymPy's grammar was generated for: SymPy's own call says why)."""
    try:
        from importlib.metadata import version

        if not version("antlr4-python3-runtime").startswith("4.11"):
            return None
        import antlr4
        from antlr4.atn.PredictionMode import PredictionMode
        from sympy.parsing.latex._antlr.latexlexer import LaTeXLexer
        from sympy.parsing.latex._antlr.latexparser import LaTeXParser
        from sympy.parsing.latex._parse_latex_antlr import MathErrorListener, convert_relation
    except Exception:  # pragma: no cover - another SymPy or runtime layout: SymPy's own parse
        return None
    return antlr4, PredictionMode.SLL, LaTeXLexer, LaTeXParser, MathErrorListener, convert_relation


class _NeedsLL(Exception):
    """The SLL stage gave no tree: the answer is SymPy's own parse."""


def _sll_tree(text: str) -> Any:
    """The relation SLL prediction finds in ``text``, as SymPy's parser builds it; :class:`_NeedsLL` on any
    error, or where the parse does not cover the whole text (SymPy's ``strict``)."""
    parts = _sll_parts()
    if parts is None:
        raise _NeedsLL
    antlr4, sll, lexer_class, parser_class, listener_class, _ = parts
    listener = listener_class(text)  # raises at the first syntax error the lexer or the parser reports
    lexer = lexer_class(antlr4.InputStream(text))
    lexer.removeErrorListeners()
    lexer.addErrorListener(listener)
    parser = parser_class(antlr4.CommonTokenStream(lexer))
    parser.removeErrorListeners()
    parser.addErrorListener(listener)
    parser._interp.predictionMode = sll
    try:
        relation = parser.math().relation()
    except Exception as exc:  # a syntax error, or SLL too weak for this input: LL decides which
        raise _NeedsLL from exc
    if relation.start.start != 0 or relation.stop.stop != len(text) - 1:
        raise _NeedsLL
    return relation


def parse_latex(text: str) -> Any:
    """SymPy's ``parse_latex(text, strict=True)``: the same expression, or the same error, sooner.

    The tree comes from SLL prediction where it succeeds (ANTLR's contract: the tree LL gives);
    otherwise SymPy parses the text itself. Converting the tree to SymPy is SymPy's own code either way.
    """
    from sympy.parsing.latex import parse_latex as sympy_parse_latex

    stripped = text.strip()  # as SymPy does before parsing
    try:
        relation = _sll_tree(stripped)
    except _NeedsLL:
        return sympy_parse_latex(text, strict=True)
    parts = _sll_parts()
    assert parts is not None  # a tree came from them
    return parts[-1](relation)


#: Formulas of the shapes derivations are written in (the placeholders are the readers' own names), parsed once by
#: :func:`warm_up`: what SLL prediction learns on them is cached in the process, and children forked later start
#: with it instead of learning it again each.
WARM_UP = (
    r"a_0 b_0 \cos (x) \cos (y) - a_0 b_1 \cos (x) \sin (y) \quad + a_1 b_1 \sin (x - y) \qquad - 2",
    r"\mathit{ZQPHa} \mathit{ZQEU} ^{ \mathit{ZQPHb} - \mathit{ZQPHc} } + \sum_{j=\mathit{ZQSLj}}^{d/2} c_{2j+1}",
    r"(\exp(s G) u)^{\mathit{ZQMKT}} (\exp(t G) v) + u ^{\mathit{ZQMKT}} \exp(s G ^{\mathit{ZQMKT}}) v",
    r"(p_0 \cos (n\phi) + p_1 \sin (n\phi)) + \mathit{ZQIU} (p_0 \sin (n \phi_{2}) - p_{3})",
    r"\mathit{ZQEU} ^{i\alpha} w \overline{ \mathit{ZQEU} ^{i\alpha}} \overline{w} \cdot | w |^2",
    r"\cos({a\psi})\cdot \cos({b\psi}) \times \frac{1}{2} + \sqrt{(\prod_{k=1}^n y_k)^2}",
    r"\mathit{ZQEU} ^{-\frac{2k}{d}\ln(10000)} + \log \mathit{ZQEU} ^{\lambda s} - \arctan(b/a)",
    r"\frac{p}{(b \mu)^{d/2}} + \frac{p}{c^{2*j/h}} - F_{\mathit{ZQBP}}(c, m-1, 2) + \rho(j) \Omega",
)


@functools.cache
def warm_up() -> None:
    """Parse :data:`WARM_UP` once in this process (about a second): done before forking the children of an audit."""
    for text in WARM_UP:
        try:
            _sll_tree(text)
        except _NeedsLL:  # pragma: no cover - a formula the grammar does not take teaches it less, nothing else
            pass
