"""Display math set inside a sentence: ``... expanding gives $$A = B + C,$$ where ...`` (kramdown, Jekyll, blogs).

Kramdown reads ``$$ ... $$`` with prose on its line as inline math, and so does :func:`.document.math_blocks`. Many
posts still write their whole derivation that way, mid-paragraph. Such a formula that holds an equation chain --
a relation between two sides neither of which is a bare name (``q_m^T k_n = x_m^T W_q^T W_k x_n + ...``,
``e^{i\\theta} = \\cos\\theta + i \\sin\\theta``) -- is a claim of the derivation, and is audited as a display
(:func:`sentence_displays`). One that holds no relation, or whose every relation has a bare name on one side
(``$$m = 2$$``, ``$$r = \\sqrt{a^2 + b^2}$$``, ``$$f(x, m) = x e^{im\\theta}$$``, ``$$\\lambda_1 \\ge \\lambda_2
\\ge \\dots$$``: an example, a definition or a condition given in passing), stays inline math, read as before.

In a formula so read, a chain that gives a name a value (``$$\\theta_j = 10000^{-2j/d} = e^{...}$$``) is still
read in passing, as inline math; only its relations between two expressions are audited, as a chain of their own
(:func:`sentence_chains`). Only a relation the audit decides makes a step (``=``, ``\\approx``, ``\\le``, ...): a
definition's (``:=``, ``\\equiv``) never does, nor ``\\sim`` or ``\\propto``.

Design constraints: pure text, no SymPy; only Markdown (in LaTeX ``$$ ... $$`` is always a display); what makes a
formula a display here is what it holds, never the words around it -- those pose it as a condition or a
requirement exactly as they pose a display (see :func:`.reading.posed`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .document import Chain, Link, MathBlock, chains
from .inequality import INEQUALITIES

__all__ = ["bare_side", "sentence_chains", "sentence_displays"]

#: the relations a step may state: the ones the audit decides (a definition's ``:=``, ``\\equiv``, never; nor
#: ``\\sim``, ``\\propto``, which no step decides)
_STEP_RELATIONS = ("=", "\\approx", "\\simeq", "≈", *INEQUALITIES)
_GROUP = r"\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}"
#: the functions and operators that make a side an expression, never a name
_OPERATORS = (
    "sin|cos|tan|cot|sec|csc|exp|log|ln|sqrt|frac|dfrac|tfrac|sum|prod|int|max|min|sup|inf|lim|det|arctan|arcsin|"
    "arccos|sinh|cosh|tanh|left|right|langle|rangle|binom|cdot|times|odot|otimes|circ|partial|nabla|Re|Im"
)
#: the operators set upright (``\\text{Re}(q^* k)`` is a value, not a function being named)
_UPRIGHT_OPERATORS = "Re|Im|exp|log|ln|softmax|diag|tr|Tr|sign|sgn|arg|atan2|det|rank|max|min"
#: a name's letter: a Latin or Greek letter, a word set upright, or a letter in a font or with an accent
_LETTER = (
    r"(?:[A-Za-z]|\\(?!(?:" + _OPERATORS + r")(?![A-Za-z]))[A-Za-z]+(?![A-Za-z])"
    r"|\\(?:mathbf|boldsymbol|bm|vec|hat|tilde|bar|dot|ddot|overline|overrightarrow|widehat|widetilde|mathrm|"
    r"mathit|mathcal|mathsf|mathbb|text|textrm|textbf|operatorname)\s*(?!\{\s*(?:" + _UPRIGHT_OPERATORS + r")\s*\})"
    r"(?:" + _GROUP + r"|\s[A-Za-z]))"
)
#: what a superscript may be on a name (a label, not a power): ``^*``, ``^\prime``, ``^{(1)}``, ``^{RoPE}``
_LABEL = (
    r"\^\s*(?:\*|'|\\(?:prime|ast|dagger|star)(?![A-Za-z])"
    r"|\{\s*(?:\([^{}()]*\)|[*']|\\prime|\\ast|[A-Za-z]{2,})\s*\})"
)
_SUB = r"_\s*(?:" + _GROUP + r"|\\[A-Za-z]+|[A-Za-z0-9])"
_ANY_SUP = r"\^\s*(?:" + _GROUP + r"|\\[A-Za-z]+|[A-Za-z0-9])"
#: a bare name: one letter with subscripts, labels, primes, a superscript before a subscript (``R^d_{\\Theta,m}``),
#: and the arguments of a function it names (``f_q(x_m, m)``, ``\\text{PE}(pos, 2i)``)
_SCRIPTS = r"(?:\s*(?:" + _SUB + r"|" + _LABEL + r"|'|" + _ANY_SUP + r"(?=\s*_)))*"
_ARGUMENTS = r"\s*(?:\\left\s*)?\((?:[^()]|\([^()]*\))*(?:\\right\s*)?\)"
_BARE_NAME = re.compile(
    r"\s*(?:" + _LETTER + _SCRIPTS + r"(?:" + _ARGUMENTS + r")?"
    # ``PE(pos, 2i)``: glued letters before the arguments, the name of the function they define
    r"|[A-Za-z]{2,}" + _SCRIPTS + _ARGUMENTS + r")\s*"
)
#: dots that stand for the names between two written ones (``\\lambda_1 = \\lambda_2 = \\dots = 1``)
_DOTS = re.compile(r"\s*(?:\\[lc]?dots|\\cdots|\\ldots|…|⋯|\.\.\.)\s*")
#: spacing, which says nothing of what a side is (``\\mathrm{clip}(\\Delta, k) \\;``)
_SPACING = re.compile(r"\\[,;:! ]|~|\\q?quad(?![A-Za-z])")
#: ``R_{n-m}``, ``R_{\\Theta, m-n}``: a subscript that is the difference (or sum) of two positions names a member of
#: a family, a value (one defines ``R_m``, not ``R_{n-m}``); ``x_{2i-1}``, ``p_{2m-1, 2m}`` name entries, and stay
_OFFSET_SUBSCRIPT = re.compile(r"_\s*\{(?:[^{},]*,)?\s*[A-Za-z]\s*[-+]\s*[A-Za-z]\s*\}")
#: a constant, which is a value, not a name (``e^{i\\theta} = ...`` is no definition of e)
_CONSTANT = re.compile(r"\s*(?:e|\\pi)\s*")


def bare_side(text: str) -> bool:
    r"""Whether one side of a relation is a bare name (what a definition or a value given in passing names), or
    dots that stand for such names.

    Example:
        >>> [bare_side(t) for t in (r"\theta_j", r"f_q(x_m, m)", r"R^d_{\Theta,m}", r"q^{(1)}", "i", r"\dots")]
        [True, True, True, True, True, True]
        >>> [bare_side(t) for t in ("PE(pos, 2i)", r"\mathbf{x}^{(1)}_m", r"\mathrm{clip}(\Delta, k) \;", "qk")]
        [True, True, True, False]
        >>> [bare_side(t) for t in (r"e^{i\theta}", "q_m^T k_n", r"\cos(\theta)", "x^2", "2", "q^{(1)} + x^{(2)}")]
        [False, False, False, False, False, False]
        >>> [bare_side(t) for t in ("R_{n-m}", r"R^d_{\Theta,n-m}", r"\theta_{i+1}", "x_{2i-1}", r"p_{2m-1, 2m}")]
        [False, False, True, True, True]
    """
    text = _SPACING.sub(" ", text)
    if _CONSTANT.fullmatch(text) or _OFFSET_SUBSCRIPT.search(text):
        return False
    return bool(_BARE_NAME.fullmatch(text) or _DOTS.fullmatch(text))


def _step_pair(left: Link, right: Link) -> bool:
    """Whether two consecutive links relate two expressions (neither a bare name) by a relation the audit decides."""
    sides = (left.text, right.text)
    return all(s.strip() for s in sides) and right.relation in _STEP_RELATIONS and not any(bare_side(s) for s in sides)


def _segments(chain: Chain) -> list[Chain]:
    """The runs of a chain whose every relation is a step (:func:`_step_pair`), each a chain of its own."""
    links = chain.links
    out: list[Chain] = []
    run: list[Link] = []
    for at, (left, right) in enumerate(zip(links, links[1:])):
        if _step_pair(left, right):
            run = run or [replace(left, relation="")]
            run.append(right)
        if run and (not _step_pair(left, right) or at + 2 == len(links)):
            if len(run) >= 2:
                last = run[-1] is links[-1]
                out.append(Chain(tuple(run), run[0].line, chain.then if last else "", chain.range if last else ""))
            run = []
    return out


def sentence_chains(read: list[Chain], posed: Mapping[int, str]) -> tuple[list[Chain], frozenset[int], dict[int, str]]:
    """The chains of a formula read as a display (see :func:`sentence_displays`), which of them are read in
    passing, and the words that pose each (``posed``: those that pose the chains of ``read``): a chain whose every
    relation is a step stays as it is; any other chain is read in passing, and each run of steps in it is a chain
    of its own after it, posed by what poses the chain.

    Example:
        >>> from ropecheck.symbolic.audit.document import Link
        >>> c = Chain((Link("x", 1), Link("a^2", 1, "="), Link("a a", 1, "=")), 1)
        >>> out, passing, posed = sentence_chains([c], {0: "if"})
        >>> [[link.text for link in ch.links] for ch in out], sorted(passing), posed
        ([['x', 'a^2', 'a a'], ['a^2', 'a a']], [0], {0: 'if', 1: 'if'})
    """
    out: list[Chain] = []
    passing: set[int] = set()
    words: dict[int, str] = {}
    for n, chain in enumerate(read):
        runs = _segments(chain)
        whole = len(runs) == 1 and len(runs[0].links) == len(chain.links)
        pieces = [chain] if whole else [chain, *runs]
        if not whole:
            passing.add(len(out))
        if n in posed:
            words |= {len(out) + k: posed[n] for k in range(len(pieces))}
        out += pieces
    return out, frozenset(passing), words


def sentence_displays(text: str, blocks: list[MathBlock], lines: Any) -> tuple[list[MathBlock], frozenset[int]]:
    """The blocks with each ``$$ ... $$`` that :func:`.document.math_blocks` found in a sentence (and so read as
    inline math) read as a display where it holds a step (:func:`sentence_chains`); and the places of those.

    Example:
        >>> from ropecheck.symbolic.audit.document import math_blocks
        >>> doc = "Expanding gives $$(a+b)^2 = a^2 + 2ab + b^2,$$ where $$a = 2$$ is an example."
        >>> found, lines = math_blocks(doc)
        >>> shown, promoted = sentence_displays(doc, found, lines)
        >>> [b.kind for b in shown], sorted(promoted)
        (['display', 'inline'], [0])
    """
    out, promoted = list(blocks), set()
    for at, block in enumerate(blocks):
        start = block.src.col(0) if block.src.text else -1
        if block.kind != "inline" or start < 2 or text[start - 2 : start] != "$$":
            continue
        read, passing, _ = sentence_chains(chains(block, lines), {})
        if len(passing) < len(read):
            out[at] = replace(block, kind="display")
            promoted.add(at)
    return out, frozenset(promoted)
