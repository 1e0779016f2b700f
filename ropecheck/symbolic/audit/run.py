"""The audit of a whole document: its math read block by block, each chain given to the :class:`~.steps.Auditor`.

:func:`audit_document` reads a Markdown or LaTeX document's math (:mod:`.document`), states the names written
conjugated or starred and those used as matrices, and hands each chain to one auditor, which defines and decides
it (:mod:`.steps`); a sentence that equates two inline formulas is a step too, a display that starts with ``=``
goes on from the one before, and the inline math of the prose after a display may define a name it uses; a
``$$ ... $$`` set in a sentence that holds a step is read as a display (:mod:`.sentence_displays`). A
document whose dots stand for terms it does not write is read again with its patterns written out
(:mod:`.patterns`).

Design constraints: the document is read in order, once per reading; every decision happens in the auditor,
in a child process (see :mod:`.steps`); nothing here raises on a document's content.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ...errors import RopeCheckError
from ..readers.commutators import defines_commutator
from ..readers.complex_sums import writes_complex_parts
from ..readers.components import component_vectors
from ..readers.latex_parser import warm_up
from ..readers.latex_syntax import (
    conjugated_forms,
    conjugated_group_names,
    i_in_exponent_of_e,
    normalize_latex,
    read_latex_side,
    star_only_names,
)
from ..readers.limits import CLAIM_MEMORY_LIMIT
from ..readers.scope import Scope, domain_key, parse_declaration
from .block_families import DOTTED_FAMILY
from .blocks_named_after import blocks_named_after
from .document import Chain, MathBlock, chains, ends_open, math_blocks, stated_equality
from .example_cues import opens_as_example
from .general import array_names, spelled_name
from .implied_bounds import implied_run
from .inline_conditions import inline_condition, inline_existence
from .introduced_names import introduces
from .label_families import labels_after
from .patterns import read_with_patterns, touched_by_dots
from .posed_functions import posed_calls
from .primed_names import primed_number_aliases, primes_named_in_words
from .reading import head as _head
from .reading import is_defined as _is_defined
from .reading import mentions as _mentions
from .reading import posed as _posed
from .reading import uses_index_i
from .result import AUDIT_DEFAULT_DOMAINS, DOCUMENT_TIME_LIMIT_REASON, AuditDefinition, AuditResult, AuditStep
from .resumed import AboveBlock
from .sections import heading_lines, section_setting
from .sentence_displays import sentence_chains, sentence_displays
from .stated_false import asked_or_conditional_after, stated_false_after, stated_false_before, stated_false_tag
from .stated_inner import real_dot_line, real_inner_line
from .stated_signs import bound_hedged, heading_levels
from .steps import STEP_TIMEOUT, Auditor
from .supposed_displays import supposition_before
from .supposition_ends import SuppositionEnds
from .tends import stated_limits
from .vector_conventions import column_capitals, row_matrices, row_vectors
from .where_after import where_after
from .worded_blocks import define_worded_blocks
from .worded_domains import integers_in_words, matrices_in_words
from .worded_sections import WordedSections

__all__ = ["DOCUMENT_TIME_LIMIT_REASON", "audit_document"]


def audit_document(
    text: str,
    *,
    path: str = "",
    latex: bool | None = None,
    domains: Mapping[str, str] | None = None,
    timeout: float | None = STEP_TIMEOUT,
    memory_limit: int | None = CLAIM_MEMORY_LIMIT,
    progress: Callable[[AuditStep, int], None] | None = None,
    document_timeout: float | None = None,
) -> AuditResult:
    """Audit every step of a Markdown (``latex=False``) or LaTeX document's display math.

    ``latex=None`` picks LaTeX for a ``.tex`` path or a document with ``\\documentclass``.
    ``domains`` states names' domains as the flags do (``{"q": "complex"}``); the document's
    own declarations add to them. Each step gets ``timeout`` seconds and ``memory_limit``
    bytes (None and None: in-process, unbounded). ``document_timeout`` bounds the whole audit
    (seconds, None for no bound): once it is reached, every step left is UNDECIDED with the
    reason :data:`DOCUMENT_TIME_LIMIT_REASON`, never decided, and a step running then is cut
    short. ``progress(step, number)`` is called after each step.

    Example:
        >>> r = audit_document("$$\\\\cos^2 x + \\\\sin^2 x = 1 = 2$$")
        >>> [s.status for s in r.steps]
        ['PROVED', 'REFUTED']
    """
    t0 = time.perf_counter()
    deadline = None if document_timeout is None else time.monotonic() + document_timeout
    if latex is None:
        latex = path.endswith((".tex", ".latex")) or "\\documentclass" in text
    # a document saved with Windows line ends reads as one with plain ones (the lines stay where they are)
    text = text.replace("\r\n", "\n")
    stated = {domain_key(k): v for k, v in (domains or {}).items()}
    limits = _Limits(timeout, memory_limit, deadline, document_timeout)
    if timeout is not None or memory_limit is not None:  # the steps are decided in forked children
        warm_up()  # what the parser learns here, the children forked for each step start with
    result = _audit_text(text, path, latex, stated, limits, progress)
    # a step read through a family drawn with dots: the reading of the dots still lists the drawing's pattern
    if touched_by_dots(result) or any(DOTTED_FAMILY in s.reason for s in result.steps):
        result = read_with_patterns(
            text, latex, result, lambda variant, scope: _audit_text(variant, path, latex, stated, limits, None, scope)
        )
    result.seconds = time.perf_counter() - t0
    return result


@dataclass(frozen=True)
class _Limits:
    timeout: float | None
    memory_limit: int | None
    deadline: float | None
    document_timeout: float | None


def _arrays(text: str, blocks: list[MathBlock]) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The names written transposed; those with every other name the document uses as a vector or matrix or calls
    a matrix in words ("let $A$ and $B$ be matrices", see :func:`.general.array_names`); and the rows among them."""
    texts = [b.src.text for b in blocks]
    transposed, arrays = array_names(texts)
    arrays |= {n for k in matrices_in_words(text, blocks) if (n := spelled_name(k)) is not None}
    rows = row_vectors(texts, arrays)  # x_i W_Q: rows, and the capitals after them matrices
    return transposed, arrays | row_matrices(texts, rows), rows


def _audit_text(
    text: str,
    path: str,
    latex: bool,
    stated: dict[str, str],
    limits: _Limits,
    progress: Callable[[AuditStep, int], None] | None,
    start: Scope | None = None,
) -> AuditResult:
    """One reading of the document's math (``start``: the scope a reading of its dots begins with)."""
    t0 = time.perf_counter()
    timeout, memory_limit, deadline = limits.timeout, limits.memory_limit, limits.deadline
    blocks, lines = math_blocks(text, latex=latex)
    blocks, promoted = sentence_displays(text, blocks, lines)  # "so $$A = B + C$$ where": a step, read as a display
    transposed, arrays, rows = _arrays(text, blocks)
    inferred, starred, bracketed = _conjugated(blocks, stated, arrays)
    base = start if start is not None else Scope(strict_products=True)
    auditor = Auditor(path, base, dict(stated) | dict(base.domains), timeout, memory_limit, progress, deadline)
    auditor.inferred = {k: v for k, v in inferred.items() if k not in stated}
    auditor.scope = replace(
        auditor.scope.with_domains(auditor.domains()),
        index_i=uses_index_i([b.src.text for b in blocks]),
        complex_sums="document" if _writes_unit([b.src.text for b in blocks]) else "",
        star_names=starred,
        bracket_names=bracketed,
        matrix_names=transposed,
        array_names=arrays,
        row_names=rows,
        column_names=column_capitals([b.src.text for b in blocks], arrays),
        components=frozenset().union(*(component_vectors(normalize_latex(b.src.text)) for b in blocks)),
        aliases=primed_number_aliases([b.src.text for b in blocks], transposed | arrays | primes_named_in_words(text)),
        commutators=defines_commutator([normalize_latex(b.src.text) for b in blocks], arrays),
        inner_stated=real_inner_line(blocks),
        dot_stated=real_dot_line(blocks),
    )
    if any(b.kind == "display" for b in blocks):
        _preload_parser()
    headings = heading_lines(text, latex=latex)
    auditor.heading_levels = heading_levels(text)  # a sign stated in a section ends with it (:mod:`.stated_signs`)
    auditor.math_texts = [b.src.text for b in blocks]
    auditor.math_places, auditor.worded_integers = [(b.line, b.kind) for b in blocks], integers_in_words(text, blocks)
    above = AboveBlock()  # the last side of the display before, which a display that starts with '=' goes on from
    prose: list[tuple[int, str]] = []  # the inline math since the display before (``\lambda \to 1``)
    worded = WordedSections(auditor.heading_levels)  # names declared in words, each up to its section's end
    supposing = SuppositionEnds()  # "suppose $x + y = 1$", up to its section's end or "for any $x, y$"
    read_early: set[int] = set()  # displays read before their turn: they give the blocks a drawing names
    for at, block in enumerate(blocks):
        auditor.tending = stated_limits(prose) if block.kind == "display" else []
        prose = [] if block.kind == "display" else prose + [(block.line, block.src.text)]
        if at in read_early:
            above.passed(block, None)
            continue
        if (early := blocks_named_after(text, blocks, at, lines, auditor.scope)) is not None:
            read_early.add(early)  # "$$R = (M_1 & 0 & \cdots)$$ where $M_i$ is ... $$M_i = ...$$": M_i first
            for chain in chains(blocks[early], lines):
                auditor.chain(chain, audited=True)
        supposing.before_block(auditor, text, (blocks, at))
        worded.declare(auditor, text, (blocks, at))  # "for complex $z$", "$$..$$ where $z \in \mathbb{C}$"
        found = _declarations(block.src.text)
        if found is not None:
            auditor.declare(found)
            above.passed(block, None)
            continue
        read = _unless_stated_false(auditor, text, (blocks, at, promoted), labels_after(chains(block, lines)))
        if at + 1 < len(blocks) and stated_equality(text, block, blocks[at + 1]):
            _sentence(auditor, read, chains(blocks[at + 1], lines))
        continued = (tail := above.goes_on_from(text, block, read, headings)) is not None
        if tail is not None:
            read[0] = replace(read[0], links=(tail,) + read[0].links[1:], line=tail.line)
        posed = _posed_here(auditor, text, (blocks, at), read, lines, continued=continued)
        read, passing, posed = sentence_chains(read, posed) if at in promoted else (read, frozenset[int](), posed)
        auditor.implications = _implications(text, (block, read), lines, continued=continued)
        auditor.block, auditor.example = at, opens_as_example(text, blocks, at)
        auditor.setting = section_setting(text, blocks, at, headings) if block.kind == "inline" else None
        auditor.inline_condition, auditor.introducing = inline_condition(text, blocks, at), introduces(text, blocks, at)
        auditor.hedged = bound_hedged(text, blocks, at)  # "if $k > 1$": a case, no sign for k
        supposed = supposition_before(text, blocks, at) if block.kind == "display" else ""
        auditor.bounds_ahead(read)
        if block.kind == "display":  # "where $R(k)$ is block-diagonal with the $R_i(k)$ blocks"
            define_worded_blocks(auditor, text, blocks, at)
        auditor.where_after = where_after(text, blocks, at, lines, auditor.scope) if not continued else {}
        hoisted = _later_definitions(read, auditor.scope, posed) if block.kind == "display" and not continued else []
        for n in hoisted:
            auditor.chain(read[n], audited=n not in passing)
        # a name the display after defines is read at the steps as what "where" gives it, not as a free number
        auditor.names_ahead(
            [c for c in read + _prose_after(blocks, at, lines) if c.links[0].text.strip() not in auditor.where_after]
        )
        _read_chains(auditor, (block, read), (hoisted, passing, posed), supposed, continued=continued)
        auditor.setting, auditor.where_after, auditor.supposed = None, {}, ""
        auditor.inline_condition, auditor.introducing = "", False  # "当 $b = ...$ 时", "设 $d = 2k$": this block only
        last = read[-1].links[-1] if read and block.kind == "display" else None
        above.passed(block, last if last is not None and not ends_open(last.text) else None)
    worded.finish(auditor)
    seconds = time.perf_counter() - t0
    inferred_left = {k: v for k, v in auditor.inferred.items() if k not in auditor.declared}
    return AuditResult(
        path, auditor.steps, auditor.definitions, auditor.declared, seconds, timeout, limits.document_timeout,
        inferred_left, sum(1 for b in blocks if b.kind == "inline"), auditor.conditions,
    )  # fmt: skip


def _posed_here(
    auditor: Auditor, text: str, at: tuple[list[MathBlock], int], read: list[Chain], lines: Any, *, continued: bool
) -> dict[int, str]:
    """The chains of block ``at`` that the words pose as conditions, each with the words: a display's (see
    :func:`.reading.posed`), or every chain of inline math after the "such that" of an existence statement; then
    the chains of a display that no words pose and that pose a function written there for the first time (see
    :mod:`.posed_functions`), each with what poses it (the auditor keeps the functions by it). ``continued``: the
    display goes on from the one before, its first chain is no such equation."""
    blocks, n = at
    if blocks[n].kind == "display":
        out = _posed(text, blocks, n, read, lines, auditor.scope)
    else:
        word = inline_existence(text, blocks, n)  # "存在 $P$ 使得 $B = P D P^{-1}$": a condition on B, not its value
        out = dict.fromkeys(range(len(read)), word) if word else {}
    skip = set(out) | ({0} if continued else set())
    found = {k: call for k, call in posed_calls(text, at, read, lines, auditor.scope).items() if k not in skip}
    auditor.posed_calls = {call.word: call for call in found.values()}
    return out | {k: call.word for k, call in found.items()}


def _read_chains(
    auditor: Auditor,
    read: tuple[MathBlock, list[Chain]],
    kept: tuple[list[int], frozenset[int], dict[int, str]],
    supposed: str,
    *,
    continued: bool,
) -> None:
    """The chains of one block, in order: a declaration declared, every other chain read as a step or a definition
    (``kept``: the chains read before, hoisted; those given in passing; the conditions the words pose, by chain)."""
    block, chains_read = read
    hoisted, passing, posed = kept
    for n, chain in enumerate(chains_read):
        if n in hoisted:
            continue
        if len(chain.links) == 1:
            found = _declarations(chain.links[0].text)
            if found is not None:
                auditor.declare(found)
                continue
        audited = block.kind == "display" and n not in passing  # a value given in passing stays one
        auditor.supposed = supposed if n == 0 else ""  # the chain the words before the display lead into
        auditor.chain(chain, audited=audited, continued=continued and n == 0, condition=posed.get(n, ""))


def _implications(text: str, read: tuple[MathBlock, list[Chain]], lines: Any, *, continued: bool) -> dict[Any, Any]:
    """``a < b \\implies 2a < 2b``: the rows of a display that runs of implications pose (see :mod:`.implied_bounds`),
    by their first side; none in inline math."""
    block, chains_read = read
    return (
        implied_run(text, chains_read, lines, continued=continued).roles(chains_read) if block.kind == "display" else {}
    )


def _conjugated(
    blocks: list[MathBlock], stated: dict[str, str], arrays: frozenset[str]
) -> tuple[dict[str, str], frozenset[str], frozenset[str]]:
    """The names written conjugated (each with how it was written), the names read both ways (written starred only,
    or standing in a conjugated bracket), and those of a conjugated bracket but the vectors and matrices
    (``arrays``: a bracket of those is a plane vector taken as a complex number, not complex names)."""
    # a name written conjugated anywhere is complex everywhere (one does not conjugate a real number),
    # unless a flag or the document declares its domain
    inferred: dict[str, str] = {}
    for block in blocks:
        for key, form in conjugated_forms(block.src.text).items():
            inferred.setdefault(key, form)
    # a name written b^* and never conjugated otherwise may be "the optimal b": a step with b^* is read
    # both ways, and one refuted only with b complex is not decided; i an index somewhere (theta_i): a
    # bare i is read both ways
    starred = frozenset(star_only_names("\n".join(b.src.text for b in blocks))) - set(stated)
    for key in starred & set(inferred):
        inferred[key] += " -- if a conjugate; else a real name of its own, read both ways"
    for key in starred & _optimum_names(blocks):  # b^* = \inf ...: real in both readings, so b is real
        inferred.pop(key, None)
    # (W_k x_n)^*: the bracket is complex, which of its names are is not said -- each read both ways
    grouped = set().union(*(conjugated_group_names(b.src.text) for b in blocks)) - set(inferred) - set(stated)
    grouped -= set(AUDIT_DEFAULT_DOMAINS) | {k for k in grouped if spelled_name(k) in arrays}
    for key in grouped:
        inferred[key] = "inside a conjugated bracket -- complex, or real, read both ways"
    return inferred, starred | grouped, frozenset(grouped)


#: ``b^* = \inf ...``: a starred name given as an infimum, supremum, minimum or maximum (a real number)
_OPTIMUM = re.compile(
    r"((?:\\[A-Za-z]+|[A-Za-z])(?:_\{[^{}]*\}|_[A-Za-z0-9])?)\s*\^\s*(?:\{\s*(?:\*|\\ast)\s*\}|\*|\\ast)\s*"
    r"(?:=|:=|\\triangleq|\\equiv)\s*\\(?:inf|sup|min|max)(?![A-Za-z])"
)


def _optimum_names(blocks: list[MathBlock]) -> set[str]:
    """The names written ``b^*`` that the document gives as an infimum, supremum, minimum or maximum.

    Such a value is real (only real numbers are ordered): read as a name of its own, b^* leaves b real; read as
    b's conjugate, the conjugate is real, and so is b. Either way b is not complex.
    """
    return {domain_key(m.group(1)) for b in blocks for m in _OPTIMUM.finditer(b.src.text)}


def _declarations(text: str) -> dict[str, str] | None:
    try:
        return parse_declaration(text)
    except RopeCheckError:
        return None


def _later_definitions(read: list[Chain], scope: Scope, posed: Mapping[int, str]) -> list[int]:
    """``A = B = \\sin(\\omega_i x) \\\\ \\omega_i = 10^{-i}``: the chains of a display that define a name its
    earlier steps use only on a later side, as a rewriting (an aligned list of definitions after a step): read
    before those chains. A name an earlier chain uses on its first side (``x^2 = 4 \\\\ x = 2``: solved for, not
    defined) or defines itself, or a value that uses a name an earlier chain defines, stays where it is."""
    out: list[int] = []
    for n, chain in enumerate(read):
        links = chain.links
        if n == 0 or n in posed or len(links) != 2 or links[1].relation != "=":
            continue
        found = _head(links[0].text, scope)
        if found is None or _is_defined(found, links[0].text, scope):
            continue
        before = read[:n]
        firsts = [normalize_latex(c.links[0].text) for c in before]
        heads = [h for c in before if len(c.links) >= 2 and (h := _head(c.links[0].text, scope)) is not None]
        # only where steps alone use it: a definition before (``\\lambda = s^2 \\\\ s = ...``) reads it as any number
        steps = [len(c.links) >= 3 or (len(c.links) == 2 and _head(c.links[0].text, scope) is None) for c in before]
        later = [normalize_latex(link.text) for c, step in zip(before, steps) if step for link in c.links[1:]]
        others = [normalize_latex(link.text) for c, step in zip(before, steps) if not step for link in c.links[1:]]
        value = normalize_latex(links[1].text)
        if (
            any(_mentions(found, t) for t in firsts + others)
            or not any(_mentions(found, t) for t in later)
            or any(_mentions(h, value) for h in heads)
        ):
            continue
        out.append(n)
    return out


def _prose_after(blocks: list[MathBlock], at: int, lines: Any) -> list[Chain]:
    """``$$ z = \\rho e^{i\\phi} $$ with $\\rho = |z|$``: the inline math of the prose after a display, up to the
    next display, and the equations of that display that give a new name a value (``$$ A = g_s $$ and we know
    $$ g_s = ... $$``), where a name the display uses may be defined (read at the step as a free number, it refutes
    nothing)."""
    if blocks[at].kind != "display":
        return []
    out: list[Chain] = []
    for k in range(at + 1, len(blocks)):
        if blocks[k].kind == "display":
            return out + _new_names_next(blocks, at, k, lines)
        out += chains(blocks[k], lines)
    return out


def _new_names_next(blocks: list[MathBlock], at: int, nxt: int, lines: Any) -> list[Chain]:
    """The one-equation chains of display ``nxt`` (the next after ``at``) that give a value to a name whose letter
    no math before display ``at`` writes: a name the steps of display ``at`` introduce, defined right after them."""
    before = "\n".join(b.src.text for b in blocks[:at])
    out = []
    for chain in chains(blocks[nxt], lines):
        m = re.match(r"\s*(?:\\(?:mathbf|boldsymbol|bm)\s*\{\s*)?(\\?[A-Za-z]+)", chain.links[0].text)
        if len(chain.links) != 2 or chain.links[1].relation != "=" or m is None:
            continue
        if not re.search(r"(?<![\\A-Za-z])" + re.escape(m.group(1)) + r"(?![A-Za-z])", before):
            out.append(chain)
    return out


def _unless_stated_false(
    auditor: Auditor, text: str, where: tuple[list[MathBlock], int, Any], read: list[Chain]
) -> list[Chain]:
    """The chains ``read`` of block ``at``; none where the words around that display mark it as false (see
    :mod:`.stated_false`): each of its equations is then listed with those words, never a step, a definition or a
    statement later steps may use."""
    blocks, at, promoted = where
    if blocks[at].kind != "display" and at not in promoted:
        return read
    return [] if _stated_false(auditor, text, (blocks, at), read) else read


def _stated_false(auditor: Auditor, text: str, where: tuple[list[MathBlock], int], read: list[Chain]) -> bool:
    """Whether the words around display ``at`` (or a tag in it) mark it as false, ask it, or say it holds only under
    a condition; if so, its equations are listed with those words."""
    blocks, at = where
    start = blocks[at - 1].src.col(len(blocks[at - 1].src.text)) + 1 if at else 0
    end = blocks[at + 1].src.col(0) if at + 1 < len(blocks) else len(text)
    after = text[blocks[at].src.col(len(blocks[at].src.text)) : end].lstrip("$\\]) \t")
    # "This is wrong:" between two displays leads in to the next one, it says nothing of this one
    leads_in = at + 1 < len(blocks) and blocks[at + 1].kind == "display" and stated_false_before(after) is not None
    words = stated_false_before(text[start : blocks[at].src.col(0)]) or stated_false_tag(blocks[at].src.text)
    found = (words, "stated false") if words else None
    found = found or (None if leads_in else _after_words(after))
    if found is None or not any(len(c.links) >= 2 for c in read):
        return False
    label = {"stated false": "stated false by the text", "asked": "asked by the text, not stated",
             "conditional": "said by the text to hold only under a condition"}[found[1]]  # fmt: skip
    why = f"{label} ('{found[0]}'): not a claim of the document, not a step"
    for chain in read:
        for a, b in zip(chain.links, chain.links[1:]):
            auditor.conditions.append(
                AuditDefinition(a.line, a.text.strip(), found[1], b.text.strip(), reason=why, relation=b.relation)
            )
    return True


def _after_words(after: str) -> tuple[str, str] | None:
    """The words right after a display that mark it false, ask it, or make it conditional, with which."""
    words = stated_false_after(after)
    return (words, "stated false") if words else asked_or_conditional_after(after)


def _sentence(auditor: Auditor, first: list[Chain], second: list[Chain]) -> None:
    """``So $A$ equals $B$.``: the step A = B, when each formula is one expression (not itself an equation)."""
    if len(first) != 1 or len(second) != 1 or len(first[0].links) != 1 or len(second[0].links) != 1:
        return
    a, b = first[0].links[0], second[0].links[0]
    if not a.text or not b.text or _declarations(a.text) is not None or _declarations(b.text) is not None:
        return
    auditor.chain(Chain((a, replace(b, relation="=")), a.line), audited=True)


# what derivations are made of: parsed once in this process, the ANTLR parser's prediction cache
# is warm in every child forked after (parsing is most of a step's time; a cold cache triples it)
_WARM = (
    r"\cos(m\theta_1) x_1 - \sin(m \theta_{2}) x_{3} + \frac{1}{2} q^{(1)} k_1",
    r"\mathit{ZQPHa}^{\mathit{ZQMKT}} \mathit{ZQPHb} \mathit{ZQPHc} + 2 \mathit{ZQPHd}",
    r"e^{i (m - n)\theta} \overline{k} \mathit{Re} (q \overline{k}) + |q|^2",
    r"(q_1 k_1 + q_2 k_2) \cos((n - m)\theta) - (q_2 k_1 - q_1 k_2) \sin((n - m) \theta)",
    r"10000^{-2(i - 1)/d} + \sum_{j=0}^{N} (S_{j+1} - S_j) + f_{q}(x_m, m)",
)


@functools.cache
def _preload_parser() -> None:
    """SymPy's LaTeX parser, imported and warmed once here rather than in every child."""
    try:
        for text in _WARM:
            read_latex_side(text)
    except RopeCheckError:  # pragma: no cover - a missing ANTLR runtime: each step says so
        pass


def _writes_unit(texts: list[str]) -> bool:
    """Whether the document writes ``i`` as the imaginary unit: in an exponent of e (``e^{i\\theta}``) or under a
    real or imaginary part (``\\text{Re}``) -- then ``q_0 + iq_1`` is a complex number (see
    :mod:`ropecheck.symbolic.readers.complex_sums`)."""
    return any(writes_complex_parts(t) or i_in_exponent_of_e(t) for t in texts)
