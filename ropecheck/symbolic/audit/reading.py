"""What an equation of a document is: the name a definition's left side would define, and text-level readings.

:func:`head` says what the left side of a possible definition would define (a symbol, a
subscripted pattern, a function of names) or None when it is not a bare name; :func:`mentions`
whether a piece of LaTeX uses such a name; :func:`set_body` and :func:`qualifier` recognise a
set written out and the range of an index. The rest reads what the prose around an equation
says it is (a condition, an equation to solve) and what decimals written in a step mean
(rounded to the digits shown).

The last part reads and decides one step or definition, as the audit runs it in a forked child:
every reading of a step (a trig argument without parentheses, an inner product's convention),
the decision of each, a step with decimals read as rounded, and an undefined family of names
that refutes nothing.

Design constraints: pure functions of the document's text and scope; nothing imports
:mod:`.steps`, and nothing here forks or times out (the audit does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

import sympy
from sympy import MatrixBase, Symbol

from ... import isolate
from ...errors import ClaimLimitError, ClaimParseError
from ..engine.decide import decide
from ..engine.proof import Counterexample, Verdict
from ..readers.complex_dots import DOT_CHOICES
from ..readers.complex_forms import said_by_form, unit_form
from ..readers.complex_sums import indexes_with_i, unit_sum_columns
from ..readers.general_matrices import BOLD_ZERO
from ..readers.identity_matrix import identity_sides
from ..readers.inner_fields import (
    FIELD_IDENTITY,
    FIELD_SAID,
    inner_field_options,
    merged_field_note,
    real_part_of_hermitian,
)
from ..readers.latex_decimals import DECIMAL, decimals_as_fractions, exact_closed
from ..readers.latex_syntax import (
    I_CHOICES,
    WORD_CHOICES,
    AmbiguousReading,
    comma_pattern_key,
    family_key,
    i_in_exponent_of_e,
    i_indexes_the_step,
    normalize_latex,
    read_latex_side,
    read_quiet,
    subscripts_with_i,
    trig_ambiguities,
    upright_key,
)
from ..readers.latex_text import GREEK, top_level
from ..readers.latex_tree import index_sums
from ..readers.limits import check_text, check_work
from ..readers.pair_families import pair_head, pair_key
from ..readers.scope import Definition, Scope, domain_key, domain_symbol, indexed_by
from ..readers.sign_pairs import SIGN_NAMES, kept_of_both, sign_sides
from ..readers.sympy_syntax import INNER_PRODUCTS
from .cancel_given import zero_denominator_at_given
from .complex_pairs import paired_verdict
from .defined_i import UNIT_AS_DEFINED, read_definition_side, unit_as_defined
from .document import Chain, Link, MathBlock, chains
from .general import (
    MULTIPLIED_PROBLEM,
    TRANSPOSE_PROBLEM,
    VECTOR_PROBLEM,
    array_names,
    commuted_arrays,
    general_step,
    vector_function,
)
from .pair_uses import scope_by_use
from .pins import pinned_step, pins_in_force
from .result import limit_reason
from .solution_forms import OFFSET_ONLY, OFFSET_OTHERWISE, depends_through_offsets
from .stated_inner import STATED_INNER, states_dot, states_real_inner
from .unstated_pairs import hedged_verdict, unstated_reading
from .wanted import SENTENCE_END, requirement_before
from .word_calls import word_call_head
from .written_columns import exponent_argument, with_written_column
from .written_quotients import zero_written_denominator

__all__ = [
    "BOUNDING_RELATIONS",
    "CONDITION_WORDS",
    "FUNCTION_COMMANDS",
    "Head",
    "Outcome",
    "REFUTED_AT_THE_VALUE",
    "SOLVED_WORDS",
    "TAINTING_RELATIONS",
    "UNREAD",
    "UNREAD_DEFINING",
    "applied",
    "atoms",
    "bare_product",
    "bind_late",
    "closed_number",
    "condition_before",
    "decimal_places",
    "decimals_as_fractions",
    "error_text",
    "define_in_child",
    "for_every_value",
    "free",
    "has_function",
    "family_member",
    "head",
    "is_defined",
    "mentions",
    "names",
    "posed",
    "qualifier",
    "read_quiet",
    "at_values_in_child",
    "values_given",
    "values_meant",
    "scope_for_every_value",
    "redefines",
    "rounded_comparison",
    "set_body",
    "solved_after",
    "step_in_child",
    "step_readings",
    "uses_index_i",
]

_BASE = r"\\[A-Za-z]+|[A-Za-z]"
_SUB = r"\{\s*\\\{[^{}]*?\\\}\s*\}|\{(?:[^{}]|\{[^{}]*\})+\}|\\[A-Za-z]+|[A-Za-z0-9]"
_UPRIGHT = r"\\(?:mathrm|text|textrm|operatorname)\s*\{[A-Za-z]+(?:\\_[A-Za-z]+)*\}"
_UPRIGHT_SUB = re.compile(r"\{?\s*\\(?:mathrm|text|textrm|operatorname)\s*\{[A-Za-z]{2,}\}\s*\}?")
_SYMBOL_HEAD = re.compile(
    rf"^\s*(?P<base>{_UPRIGHT}|{_BASE})\s*(?:_\s*(?P<sub>{_SUB}))?\s*(?P<label>\^\s*\{{\s*\(\s*[A-Za-z0-9]+\s*\)\s*\}})?\s*$"
)
#: ``\\gamma(r)``, ``\\phi(x)``: a lower-case Greek letter named as a function (π, a number, never is)
_GREEK_FUNCTION = (
    r"\\(?:alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|vartheta|iota|kappa|lambda|mu|nu|xi|rho|sigma|"
    r"tau|upsilon|phi|varphi|chi|psi|omega)(?![A-Za-z])"
)
#: ``a_\\text{lin}``, ``\\lambda_{\\mathrm{ref}}``: a letter labelled by an upright word (a function's name where a
#: bracket follows; see :mod:`..readers.labelled_calls`)
_LABELLED_NAME = rf"(?:[A-Za-z]|{_GREEK_FUNCTION})\s*_\s*(?:\{{\s*{_UPRIGHT}\s*\}}|{_UPRIGHT})"
_FUNCTION_HEAD = re.compile(
    r"^\s*(?P<name>\\(?:text|operatorname|mathrm|textrm|mathit)\s*\{(?P<text>[A-Za-z\\_]+)\}"
    rf"|{_LABELLED_NAME}|[A-Za-z](?:\s*_\s*(?:{_SUB}))?|{_GREEK_FUNCTION})"
    r"\s*(?:\\left\s*)?\((?P<args>[^()]*?)(?:\\right\s*)?\)\s*$"
)
_COMMA_HEAD = re.compile(
    rf"^\s*(?:{_BASE})(?:\s*\^\s*(?:\{{[^{{}}]*\}}|[A-Za-z0-9]))?\s*_\s*\{{(?:\\mathrm\{{[A-Za-z]+\}})?[^{{}}]*,"
    r"\s*(?P<param>[A-Za-z]|\\[A-Za-z]+)\s*\}\s*$"
)
_SUPERSCRIPT_LAST = re.compile(
    rf"^\s*({_BASE})\s*(_\s*\{{[^{{}}]*,[^{{}}]*\}})\s*(\^\s*(?:\{{[^{{}}]*\}}|[A-Za-z0-9]))\s*$"
)
_NOT_DEFINABLE = {"e", "i", "\\pi", "\\cos", "\\sin", "\\tan", "\\exp", "\\log", "\\ln", "\\Re", "\\Im", "\\sqrt"}


@dataclass(frozen=True)
class Head:
    kind: str  # symbol, pattern, function; decorated (a name with a tilde or a prime: see .names)
    key: str  # the scope's key: a symbol's name, a pattern's base as written, a function's name; a regex
    params: tuple[str, ...] = ()
    #: the parameters written as a sum or difference of names (``g(x_m, x_n, n - m)``), as SymPy prints them
    offsets: tuple[str, ...] = ()


def _offset(value: Any) -> bool:
    """Whether a function's argument in a definition is a sum or difference of names (``n - m``): a parameter
    the definition's body may depend on only through it (see :func:`.general.vector_function`)."""
    return (
        isinstance(value, sympy.Add)
        and len(value.args) >= 2
        and all(
            isinstance(t, Symbol)
            or (isinstance(t, sympy.Mul) and t.args[0] == -1 and isinstance(t.args[1], Symbol) and len(t.args) == 2)
            for t in value.args
        )
    )


def _offset_names(param: str, scope: Scope) -> set[Any]:
    """The names in a parameter written as a sum or difference of names (``n - m``: m and n), with their domains."""
    value = read_quiet(param, Scope(domains=scope.domains))
    return {s for s in value.free_symbols if isinstance(s, Symbol)} if isinstance(value, sympy.Basic) else set()


def head(tex: str, scope: Scope) -> Head | None:
    """What the left side of a possible definition would define, or None when it is not a bare name."""
    text = normalize_latex(tex)
    text = word_call_head(text, scope) or text
    m = _FUNCTION_HEAD.match(text)
    if m:
        if m.group("text"):
            name = m.group("text").replace("\\_", "_")
        else:
            raw = m.group("name").replace(" ", "")
            if raw in _NOT_DEFINABLE or raw[0] in "ei" and len(raw) == 1:
                return None
            if raw.startswith("\\") and any(scope.defines(k) for k in (raw, raw[1:])):
                return None  # a Greek name the document gave a value: a function of it is no new name
            probe = read_quiet(raw + "(x)", Scope(domains=scope.domains))
            if not isinstance(probe, sympy.core.function.AppliedUndef) and not isinstance(probe, MatrixBase):
                return None
            name = probe.func.__name__ if isinstance(probe, sympy.core.function.AppliedUndef) else raw
        params, names_of_params = [], []
        for p in (x for x in m.group("args").split(",")):
            sym = read_quiet(p, Scope(domains=scope.domains)) if p.strip() else None
            if not isinstance(sym, Symbol) and not _offset(sym):
                return None
            params.append(sym.name if isinstance(sym, Symbol) else str(sym))
            if isinstance(sym, Symbol):
                names_of_params.append(sym.name)
        offsets = tuple(p for p in params if p not in names_of_params)
        within = {x.name for p in offsets for x in _offset_names(p, scope)}
        if not params or len(set(params)) != len(params) or within & set(names_of_params):
            return None
        return Head("function", name, tuple(params), offsets)
    late = _SUPERSCRIPT_LAST.match(text)
    if late:  # R_{\Theta, m}^d is R^d_{\Theta, m}
        text = late.group(1) + late.group(3) + late.group(2)
    pair = pair_head(text)
    if pair:  # R_{m_1, m_2}: a family over both subscripts
        return Head("pattern", pair_key(pair[0]), pair[1:])
    m = _COMMA_HEAD.match(text)
    if m:  # R_{\theta, m}: a pattern over the last subscript
        name = re.sub(r"\s+", "", m.group(0)).lstrip("\\")
        return Head("pattern", comma_pattern_key(name), (m.group("param").lstrip("\\"),))
    m = _SYMBOL_HEAD.match(text)
    # e and i are the constants, but e_t and i_1 are names (the reader reads them so)
    named = m is not None and m.group("base") in ("e", "i") and bool(m.group("sub"))
    constant = m is not None and m.group("base") in _NOT_DEFINABLE and not named
    if not m or constant or m.group("base") in ("\\langle", "\\left", "\\mathit"):
        return None
    sub = (m.group("sub") or "").strip("{}").strip()
    if sub and re.fullmatch(r"[A-Za-z]|\\[A-Za-z]+", sub) and not m.group("label"):
        return Head("pattern", upright_key(m.group("base")), (sub.lstrip("\\"),))
    sym = read_quiet(text, Scope(domains=scope.domains))
    if not isinstance(sym, Symbol):
        return None
    return Head("symbol", sym.name)


def is_defined(head: Head, tex: str, scope: Scope) -> bool:
    if head.kind == "function":
        return head.key in scope.functions
    if head.kind == "pattern":
        return head.key in scope.patterns
    base = _SYMBOL_HEAD.match(normalize_latex(tex))
    # x_{\mathrm{max}}: an upright word labels a name of its own, it is no index of the sequence x_j
    label = bool(base and base.group("sub") and _UPRIGHT_SUB.fullmatch(base.group("sub")))
    covered = bool(base and base.group("sub") and base.group("base") in scope.patterns and not label)
    return head.key in scope.symbols or covered or comma_pattern_key(head.key) in scope.patterns


def bare_of_sequence(head: Head, scope: Scope) -> bool:
    """Whether ``head`` is a bare name (``m``) the audit counts as defined only because a sequence of the same
    letter is (``m_h = 2^{-8h/H}``): no member of it, so a value the text gives it in passing is read as one."""
    bare = head.kind == "symbol" and "_" not in head.key
    return bare and head.key not in scope.symbols and head.key in scope.patterns


def free(value: Any) -> set[Any]:
    if isinstance(value, MatrixBase):
        return set().union(*(e.free_symbols for e in value)) if value else set()
    return set(value.free_symbols) if isinstance(value, sympy.Basic) else set()


def names(value: Any) -> set[str]:
    return {s.name for s in free(value) if isinstance(s, Symbol)} | {
        str(b.label) for b in atoms(value, sympy.IndexedBase)
    }


def atoms(value: Any, kind: Any) -> set[Any]:
    if isinstance(value, MatrixBase):
        return set().union(*(e.atoms(kind) for e in value)) if value else set()
    return value.atoms(kind) if isinstance(value, sympy.Basic) else set()


def applied(value: Any) -> set[Any]:
    return atoms(value, sympy.core.function.AppliedUndef)


def qualifier(links: list[Link]) -> bool:
    """``i = 1, 2`` or ``j = 0, \\ldots, d/2 - 1``: the range of an index, not an equation."""
    if len(links) != 2 or not re.fullmatch(r"\s*(?:[A-Za-z]|\\[A-Za-z]+)\s*", links[0].text):
        return False
    text = re.sub(r"\\,", "  ", links[1].text)  # ``\,`` is a thin space, no comma
    depth = top_level(text)
    return any(ch == "," and depth[i] == 0 for i, ch in enumerate(text))


#: where a name starts: a command's backslash (``m\\theta`` is m, then theta), or no letter before it
_NAME_START = r"(?:\\|(?<![A-Za-z\\]))"


def mentions(head: Head, text: str, *, members: bool = True) -> bool:
    """Whether ``text`` (normalized LaTeX) uses the name ``head`` would have defined.

    ``members``: a member of a family at a letter (``R_m``) may be an entry at a number (``R_{3}``); a caller
    whose document defines the family (``R_m = ...``) passes False, and then only ``R_3`` or ``R_{5-2}`` is it.
    """
    if head.kind == "decorated":  # the key is a regular expression
        return re.search(head.key, text) is not None or re.search(head.key, re.sub(r"\s+", "", text)) is not None
    if head.kind == "pattern":
        base = head.key.split("_{")[0] if head.key.endswith(",*}") else head.key
        # the name itself, not the end of a longer one (a_i is not in \theta_i)
        rx = _NAME_START + re.escape(base.lstrip("\\"))
        rx += r"(?![A-Za-z])\s*(?:\^\s*(?:\{[^{}]*\}|[A-Za-z0-9])\s*)?_"
        name, _, sup = base.lstrip("\\").partition("^")
        if sup and re.search(_superscript_last(name, sup), text) is not None:
            return True  # R_{\Theta,m}^d, the family R^d_{\Theta,t}: its superscript written last, no power
    elif head.kind == "function" and (labelled := _LABELLED_FUNCTION.fullmatch(head.key)) is not None:
        # a_lin (written a_{\\text{lin}}(s)): the letter with its label in some spelling, never the function a
        rx = _NAME_START + re.escape(labelled.group(1)) + _LABEL_AFTER + labelled.group(2) + r"(?![A-Za-z])"
    elif head.kind == "function":
        rx = _NAME_START + re.escape(head.key.split("_")[0].lstrip("\\")) + r"\s*(?:_\s*\{?[^()]*?\}?)?\s*\("
    elif (labelled := _LABELLED.fullmatch(head.key) or _LABELLED_INDEXED.fullmatch(head.key)) is not None:
        # d_new (written d_{\\text{new}}): a name of its own, used only where the label follows the letter as a
        # subscript in some spelling (d_{\\text{new}}, d_\\mathrm{new}, d_{new}); the bare d is another name.
        # k_{\\text{rot}_j} likewise: every k_{\\text{rot}_...} (k_{\\text{rot}_0}, k_{\\text{rot}}) is taken as it, the
        # bare k and k_{\\text{new}} are not
        rx = _NAME_START + re.escape(labelled.group(1).lstrip("\\")) + _LABEL_AFTER + labelled.group(2)
        rx += r"(?![A-Za-z])"
    else:  # \\Theta as well as Theta: the name as SymPy spells it drops the backslash
        rx = _NAME_START + re.escape(head.key.split("_")[0].lstrip("\\")) + r"(?![A-Za-z])"
        entry = _NUMBERED.fullmatch(head.key)
        if entry is not None:  # R_{3}: R_3 and R_m (maybe R_3) are it, R_2 is not
            found = re.finditer(rx + _SUBSCRIPT_AFTER, text)
            # the subscript of another name (W_k) is not the name k
            return any(
                _may_be_entry(m.group(1), entry.group(2), members) for m in found if not _in_subscript(text, m.start())
            )
    return re.search(rx, text) is not None


def _superscript_last(name: str, sup: str) -> str:
    """The name ``name`` with a braced subscript and then the superscript ``sup`` (``R_{\\Theta,m}^d``)."""
    sup = re.escape(sup.strip("{}").strip())
    after = r"\s*_\s*\{(?:[^{}]|\{[^{}]*\})*\}\s*\^\s*(?:\{\s*" + sup + r"\s*\}|" + sup + r"(?![A-Za-z0-9]))"
    return _NAME_START + re.escape(name) + r"(?![A-Za-z])" + after


def _may_be_entry(sub: str | None, number: str, members: bool) -> bool:
    """Whether the name written with subscript ``sub`` may be its entry at ``number``: the same number, a
    subscript of numbers alone that may come to it (``5-2``), none, or -- with ``members`` -- one with a letter.

    Where the family is defined (``R_m = ...``), a subscript with a letter (``R_m``, ``R_{n-m}``) is that
    definition at any position: one entry given only approximately (``R_5 \\approx [...]``) neither stands
    for it nor keeps a step about it from being read.
    """
    m = _SUBSCRIPT_NUMBER.fullmatch(sub or "")
    if m is not None:
        return m.group(1) == number
    sum_ = _SUBSCRIPT_SUM.fullmatch(sub or "")
    if sum_ is not None:  # R_{5-2} is the entry at 3
        return sympy.sympify(sum_.group(1)) == int(number)
    return members or not re.search(r"[A-Za-z]", (sub or "").replace("\\left", "").replace("\\right", ""))


def _in_subscript(text: str, at: int) -> bool:
    before = text[:at].rstrip()
    return before.endswith("_") or bool(re.search(r"_\s*\{[^{}]*$", before))


#: a symbol named as an entry at a whole number (``R_{3}``), and the subscript after a name in the text
_NUMBERED = re.compile(r"(.+?)_\{?\s*(-?\d+)\s*\}?")
#: a name with a word as its subscript (d_new, read from d_{\\text{new}}): the letter and the word
_LABELLED = re.compile(r"(\\?[A-Za-z]+)_([A-Za-z]{2,})")
#: a name whose word subscript carries an index of its own (k_{rotated_{j}}, read from k_{\\text{rotated}_j})
#: a function named by a letter labelled with a word (a_lin, read from a_{\\text{lin}}(s): .readers.labelled_calls)
_LABELLED_FUNCTION = re.compile(r"([A-Za-z]|" + "|".join(GREEK) + r")_([A-Za-z]{2,})")
_LABELLED_INDEXED = re.compile(r"(\\?[A-Za-z]+)_\{([A-Za-z]{2,})_.+\}")
#: between a letter and its word subscript, in any spelling (``_{\\text{``, ``}_\\mathrm{``, ``\\_``): a superscript
#: maybe, then anything but a letter outside a command
_LABEL_AFTER = r"(?![A-Za-z])(?:\^\s*(?:\{[^{}]*\}|\S))?(?:[^A-Za-z\\]|\\[A-Za-z]+|\\[^A-Za-z])*?"
_SUBSCRIPT_AFTER = r"\s*(?:_\s*(\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9]))?"
_SUBSCRIPT_NUMBER = re.compile(r"\{?\s*(-?\d+)\s*\}?")
#: a subscript of whole numbers added or subtracted (``{5-2}``, ``{(5 - 2)}``): an entry at the number it comes to
_SUBSCRIPT_SUM = re.compile(r"\{\s*\(?\s*(-?\s*\d+(?:\s*[-+]\s*\d+)+)\s*\)?\s*\}")


#: a set written out: ``\\{ ... \\}``, ``\\left\\{ ... \\right\\}``, ``\\lbrace ... \\rbrace``
_SET = re.compile(
    r"^\s*(?:\\left\s*)?(?:\\\{|\\lbrace(?![A-Za-z]))(?P<body>.*?)(?:\\right\s*)?(?:\\\}|\\rbrace(?![A-Za-z]))\s*$",
    re.S,
)


def set_body(link: Link) -> str | None:
    """The members of a link that is one set written out, or None (also for ``\\{a\\} \\cup \\{b\\}``)."""
    m = _SET.match(link.text)
    if m is None or re.search(r"\\\}|\\rbrace(?![A-Za-z])", m.group("body")):
        return None
    return m.group("body")


# --------------------------------------------------------------------------- what the prose says an equation is

UNREAD = "UNREAD"

#: Words that, just before an equation, pose it as a condition, a choice or an equation to solve.
CONDITION_WORDS = (
    "when", "if", "let", "set", "setting", "choose", "choosing", "assume", "assuming", "suppose", "such that",
    "solve", "solving", "provided", "require", "requiring",
    "当", "若", "如果", "令", "设", "取", "假设", "要使", "解得",
)  # fmt: skip
#: Words that, after a condition word, say that what follows is its consequence (then it is a step again).
_CONSEQUENCE_WORDS = (
    "then", "we get", "we have", "we obtain", "gives", "yields", "becomes", "is", "are", "holds", "shows",
    "则", "得", "有", "就", "可得", "得到", "即",
)  # fmt: skip
#: Words between an equation and a bare-name equation after it that say the first was solved for that name.
SOLVED_WORDS = ("⇒", "=>", "\\Rightarrow", "\\implies", "解得", "gives", "giving", "so that", "solving", "solve",
                "solved", "hence", "i.e.", "that is", "即", "得")  # fmt: skip


def _word_rx(words: tuple[str, ...]) -> re.Pattern[str]:
    alts = sorted(words, key=len, reverse=True)
    ascii_rx = [r"(?<![A-Za-z])" + re.escape(w) + r"(?![A-Za-z])" for w in alts if w.isascii() and w[0].isalpha()]
    other = [re.escape(w) for w in alts if not (w.isascii() and w[0].isalpha())]
    return re.compile("|".join(ascii_rx + other), re.I)


_CONDITION_RX = _word_rx(CONDITION_WORDS)
_CONSEQUENCE_RX = _word_rx(_CONSEQUENCE_WORDS)
_SOLVED_RX = _word_rx(SOLVED_WORDS)


def condition_before(prose: str) -> str | None:
    """The condition word that poses the equation right after ``prose`` (its last clause), or None.

    ``prose`` is the text between the math before and the equation. A consequence word after the
    condition word ("if we expand, we get") makes the equation a step again.

    Example:
        >>> condition_before("The scaled base is then fixed: when"), condition_before("If we expand, we get")
        ('when', None)
    """
    prose = prose.rstrip()
    ends = list(SENTENCE_END.finditer(prose))
    clause = prose[ends[-1].end() :] if ends else prose
    last_condition = None
    for m in _CONDITION_RX.finditer(clause):
        last_condition = m
    if last_condition is None:
        return None
    rest = clause[last_condition.end() :]
    if _CONSEQUENCE_RX.search(rest) or len(rest.split()) > 4 or len(rest.strip()) > 40:
        return None  # the word poses something further back in the sentence
    return last_condition.group(0)


def solved_after(prose: str) -> str | None:
    """The word (``⇒``, ``解得``, ``solving``) in ``prose`` between an equation and a bare-name equation after it."""
    if len(prose) > 120 or SENTENCE_END.search(prose.strip()[:-1] if prose.strip() else ""):
        return None
    m = _SOLVED_RX.search(prose)
    return m.group(0) if m else None


_GREEK = {
    "alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta", "vartheta", "iota", "kappa",
    "lambda", "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi", "varphi", "chi", "psi", "omega",
    "Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Phi", "Psi", "Omega",
}  # fmt: skip


def bare_product(tex: str) -> bool:
    """Whether a side is only names and numbers multiplied, divided, raised to powers (``\\frac{n}{\\beta^{d/2}}``).

    Such a side, equal to another without a function in it, may be an equation posed to solve as
    well as an identity.
    """
    text = re.sub(r"\\(?:left|right|cdot|times|,|;|!|:| )", " ", tex)
    previous = None
    while previous != text:  # exponents and subscripts may hold any arithmetic
        previous = text
        text = re.sub(r"[\^_]\s*\{[^{}]*\}", " ", text)
    text = re.sub(r"\\d?t?frac", " ", text)
    for m in re.findall(r"\\([A-Za-z]+)", text):
        if m not in _GREEK:
            return False
    text = re.sub(r"\\[A-Za-z]+", " x ", text)
    return bool(re.search(r"[A-Za-z]", text)) and re.fullmatch(r"[A-Za-z0-9.{}()\[\]/*\s^_]*", text) is not None


#: Functions that make a side more than names multiplied (an identity about them, not an equation to solve).
FUNCTION_COMMANDS = re.compile(
    r"\\(?:sin|cos|tan|cot|sec|csc|exp|log|ln|sum|prod|int|langle|begin|sqrt|arctan|arcsin|arccos|Re|Im|mathrm|"
    r"operatorname|text)(?![A-Za-z])|e\^"
)

#: Relations that give a name no value the audit can use: the name is tainted, not a free number.
TAINTING_RELATIONS = ("\\approx", "\\simeq", "\\sim", "\\cong", "\\propto")
#: Relations that only bound a name: a counterexample may lie outside the bound.
BOUNDING_RELATIONS = ("\\le", "\\leq", "\\ge", "\\geq", "\\lt", "\\gt", "\\ll", "\\gg")
#: A definition written with a command the audit does not read (``x \\doteq ...``, ``x \\stackrel{\\Delta}{=} ...``).
UNREAD_DEFINING = re.compile(
    r"^(?P<name>.*?)\\(?:doteq|coloneq|defeq|eqdef|stackrel|overset|mathrel|Coloneqq|eqcirc|triangleq)(?![A-Za-z])",
    re.S,
)


def uses_index_i(texts: list[str]) -> bool:
    """Whether ``i`` appears as an index in a subscript of the document (``\\theta_i``, ``x_{2i}``)."""
    rx = re.compile(r"_\s*(?:i(?![A-Za-z])|\{[^{}]*(?<![A-Za-z\\])i(?![A-Za-z])[^{}]*\})")
    return any(rx.search(t) for t in texts)


# --------------------------------------------------------------------------- decimals rounded to the digits shown


def decimal_places(tex: str) -> tuple[int, int] | None:
    """(the fewest digits after the point, how many decimals) among the decimals written in ``tex``, or None.

    Example:
        >>> decimal_places("0.157 + 0.3371"), decimal_places("x + 1")
        ((3, 2), None)
    """
    found = [len(m.group(1)) for m in DECIMAL.finditer(tex)]
    return (min(found), len(found)) if found else None


def exact_closed_sides(texts: tuple[str, str], read: tuple[Any, Any], scope: Scope) -> tuple[Any, Any] | None:
    """The sides ``texts`` read with each decimal as the exact fraction it writes, where those and the sides as
    read (``read``) are closed numbers; else None. A decimal read in binary is lost beside a large number
    (``(10^{20} + 0.3) - 10^{20}`` reads as 0): a step between closed numbers is the arithmetic the text writes."""
    return exact_closed(texts, read, scope, read_quiet)


def rounded_comparison(left: Any, right: Any, places: int, terms: int = 1) -> tuple[str, str] | None:
    """A step between numbers, one side written as ``terms`` decimals with ``places`` digits: (status, reason).

    The decimals are read as rounded to the digits shown: within half a unit of the last digit the
    step agrees to that many places (PROVED, so said); within what the rounding of ``terms`` decimals
    (at least one unit) can add up to it is UNDECIDED; further off it is REFUTED, with both values.
    None when a side is not a closed number.
    """
    pairs = list(zip(left, right)) if isinstance(left, MatrixBase) else [(left, right)]
    if isinstance(left, MatrixBase) and (not isinstance(right, MatrixBase) or left.shape != right.shape):
        return None
    worst, where = sympy.Integer(0), (None, None)
    for a, b in pairs:
        if not isinstance(a, sympy.Basic) or not isinstance(b, sympy.Basic) or a.free_symbols or b.free_symbols:
            return None
        try:
            va, vb = sympy.N(a, 30), sympy.N(b, 30)
            gap = abs(va - vb)
        except (TypeError, ValueError):  # pragma: no cover - a value sympy cannot evaluate
            return None
        if not gap.is_number or not gap.is_real:
            return None
        if gap >= worst:
            worst, where = gap, (va, vb)
    unit = sympy.Rational(1, 10**places)
    both = f"left ≈ {sympy.N(where[0], 12)}, right ≈ {sympy.N(where[1], 12)}"
    if worst <= unit / 2 * sympy.Rational(1001, 1000):
        return "PROVED", f"agrees to {places} decimal places (decimals read as rounded to the digits shown; {both})"
    if worst <= unit * max(1, sympy.Rational(terms, 2)) * sympy.Rational(1001, 1000):
        return "UNDECIDED", (
            f"within one unit of the {places}th decimal place ({both}): right if the decimals were rounded "
            "along the way, so not decided"
        )
    return "REFUTED", (
        f"off by {sympy.N(worst, 3)}, more than a unit in the {places}th decimal place, even with the decimals read "
        f"as rounded ({both})"
    )


# --------------------------------------------------------------------------- reading and deciding, in a child


@dataclass
class Outcome:
    status: str
    method: str = "none"
    reason: str = ""
    counterexample: Counterexample | None = None
    lhs: Any = None
    rhs: Any = None
    definition: Definition | None = None
    uses_head: bool = False
    related: tuple[str, ...] = ()  # names a stated relation the counterexample keeps ties (see .under_stated)


def error_text(exc: BaseException, link: Link) -> str:
    if isinstance(exc, ClaimParseError) and exc.position is not None:
        message = str(exc).rsplit(" (at column ", 1)[0]
        return f"{message} (line {link.line}, column {link.column + exc.position + 1})"
    return str(exc)


def define_in_child(head: Head, link: Link, body: Link, scope: Scope) -> Outcome:
    """Read a definition's right side (its parameters bound) and whether it uses the name it defines."""
    # a value given in passing stays a name inside a definition (the definition holds for every value)
    bound_scope = replace(scope, symbols={k: v for k, v in scope.symbols.items() if not v.stated_value})
    offsets = {p: read_quiet(p, Scope(domains=scope.domains)) for p in head.offsets}
    bound = frozenset(head.params) | {x.name for v in offsets.values() for x in v.free_symbols}
    if head.kind == "function":
        bound_scope = replace(bound_scope, symbols={k: v for k, v in bound_scope.symbols.items() if k not in bound})
    domains = dict(scope.domains)
    params = tuple(offsets[p] if p in offsets else domain_symbol(p, domains) for p in head.params)
    said = ""
    try:
        check_text(body.text)
        named = (link.text, _complex_or_new(head, link.text, scope))
        value, said = read_definition_side(named, body.text, bound_scope, bound)
    except (ClaimParseError, ClaimLimitError) as exc:
        # a vector written transposed in a function's body (g(x, y, n - m) = x^T W R_{n-m} y): the body is read
        # with general matrices, and so is every call of the function
        d = Definition(head.kind, head.key, None, params, link.text, link.line, body_source=body.text)
        # a vector the document never writes out, which the body multiplies (f_q(q_m, m) = R(m\theta) q_m): so too
        multiplied = VECTOR_PROBLEM in str(exc)
        general = (
            vector_function(d, bound_scope, multiplied=multiplied)
            if head.kind == "function" and (TRANSPOSE_PROBLEM in str(exc) or multiplied)
            else None
        )
        if general is not None:
            return Outcome("DEFINED", definition=general)
        return Outcome(UNREAD, reason=error_text(exc, body))
    if offsets:  # n - m as a parameter is read only where the body is read with general matrices
        through = depends_through_offsets(value, offsets.values())  # .solution_forms: maybe a definition still
        return Outcome(UNREAD, reason=OFFSET_ONLY if through else OFFSET_OTHERWISE)
    used = names(value)
    if cancelled := _cancelled_arrays(body.text, used, scope):
        why = f"{', '.join(cancelled)}, a matrix of the document, beside its inverse: read as a number it cancels"
        return Outcome(UNREAD, reason=why)
    uses = head.key in used if head.kind != "pattern" else False
    if head.kind == "function":
        uses = any(f.func.__name__ == head.key for f in applied(value))
    # x_q = ...: a plain name, unless the body depends on q through subscripts (c_j = e^{w_j}, h_i = a_i b_i: c_1 is
    # e^{w_1}, never a free name), and not through the entries of the name itself (a_{m,n} = a_{m, n}: an equation)
    through_subscripts = (
        head.key not in scope.patterns
        and any(indexed_by(value, p) for p in params)
        and not _own_entries(head.key, used)
    )
    if (
        head.kind == "pattern"
        and not any(p in free(value) for p in params)
        and not _indexes(value, head)
        and not through_subscripts
    ):
        name = read_quiet(link.text, Scope(domains=scope.domains))
        if not isinstance(name, Symbol):
            return Outcome(UNREAD, reason="cannot read the name it defines")
        d = Definition("symbol", name.name, value, (), link.text, link.line, body_source=body.text)
        return Outcome("DEFINED", reason=said, definition=d, uses_head=name.name in used, lhs=name)
    d = Definition(head.kind, head.key, value, params, link.text, link.line, body_source=body.text)
    return Outcome("DEFINED", reason=said, definition=d, uses_head=uses)


#: an inverse written as a power (``P^{-1}``)
_INVERSE = re.compile(r"\^\s*\{\s*-\s*1\s*\}|\^\s*-\s*1(?![0-9])")


def _cancelled_arrays(body: str, used: set[str], scope: Scope) -> list[str]:
    """``G = P D P^{-1}``: the names of a definition's body that the document uses as vectors or matrices (bold,
    transposed), written beside their inverse, and gone from the body as read: read as numbers, ``P P^{-1}`` was
    1, and the body another matrix than the one the document means."""
    if not _INVERSE.search(body):
        return []
    arrays = array_names([body])[1] & scope.array_names
    return sorted(n for n in arrays if n not in used and not scope.defines(n))


def _complex_or_new(head: Head, tex: str, scope: Scope) -> bool:
    """Whether the name ``tex`` has no value yet, or a complex number's (``z = a + bi``, then ``z = x + yi``): one
    that a value read as a complex number may replace, where a vector's (``q_m = [q_m^1, q_m^2]``) may not."""
    sym = read_quiet(tex, Scope(domains=scope.domains))
    found = [scope.symbols.get(sym.name)] if isinstance(sym, Symbol) else []
    kinds = {"symbol": scope.symbols, "pattern": scope.patterns, "function": scope.functions}
    found.append(kinds.get(head.kind, {}).get(head.key))
    values = [d.body for d in found if d is not None]
    return all(isinstance(v, sympy.Basic) and not isinstance(v, MatrixBase) and v.has(sympy.I) for v in values)


def _indexes(value: Any, family: Head) -> bool:
    """Whether a parameter of a family is written in the subscript of a name of ``value`` (``w_{j}``,
    ``u^Tv_{a,j}``), other than a member of the family itself (``x_i = w x_{i-1}`` says how members follow)."""
    own = family.key.split("_{")[0].lstrip("\\")
    found = [re.fullmatch(r"(.+?)_\{(.+)\}", n) for n in names(value)]
    subs = [m.group(2) for m in found if m is not None and m.group(1).lstrip("\\") != own]
    return any(re.search(rf"(?<![A-Za-z\\]){re.escape(p)}(?![A-Za-z])", sub) for p in family.params for sub in subs)


def _own_entries(key: str, used: set[str]) -> bool:
    """Whether a sequence's body uses its own entries (``a_{m,n} = a_{m, n}``): an equation about it, no pattern."""
    base = re.match(r"\\?([A-Za-z]+)", key)
    return base is not None and any(n.split("_")[0] == base.group(1) for n in used)


_CONVENTION_NOTE = {
    "real": "<u, v> = Re sum u_i conj(v_i)",
    "conjugate-second": "<u, v> = sum u_i conj(v_i)",
    "conjugate-first": "<u, v> = sum conj(u_i) v_i",
}
_ORDINAL = ("first", "second", "third", "fourth", "fifth", "sixth")


#: a side that is a name alone (``pos``, ``PE_{(pos,2i)}``, ``v_{pos}^{(i)}``, ``PE(x)``): the line may define it
_BARE_NAME = re.compile(
    r"^\s*(?:\\(?:mathrm|text|operatorname)\s*\{\s*[A-Za-z]+\s*\}|\\?[A-Za-z]+)\s*"
    r"(?:_\s*(?:\{(?:[^{}]|\{[^{}]*\})*\}|[A-Za-z0-9]))?\s*(?:\^\s*\{\s*\([^{}]*\)\s*\})?\s*"
    r"(?:(?:\\left\s*)?\([^()]*(?:\\right\s*)?\))?\s*$"
)


def family_member(tex: str, scope: Scope) -> bool:
    """``v_{pos+k}^{(i)}`` where the family ``v_{pos}^{(i)}`` is defined: a member, which no line defines again."""
    m = re.match(r"^\s*([A-Za-z])\s*_", tex)
    return m is not None and family_key(m.group(1)) in scope.patterns and "^{(" in tex.replace(" ", "")


def step_readings(lhs: Link, rhs: Link, scope: Scope) -> tuple[list[tuple[str, Any, Any]], str]:
    """The distinct readings of a step (the first is the default), each with a note, or none and why.

    A trig argument without parentheses is read a person's way and the parser's way; an inner
    product of complex values in the real convention and the two others (on real values they
    agree, and the readings collapse into one); glued letters (``pos``) as one name and as a
    product of letters, and a bare ``i`` where the document also indexes with i as the imaginary
    unit and as that index -- each must be read, or the step is not read with certainty.
    """
    step = lhs.text + " = " + rhs.text
    if indexes_with_i(step):  # x_i + iy_i, \\sum_i: no i of the step is read as the unit of a complex sum
        scope = replace(scope, complex_sums="off")
    try:
        return _readings_once(lhs, rhs, scope)
    except AmbiguousReading as exc:
        if exc.field not in TWO_WAY_FIELDS or getattr(scope, exc.field):
            raise
        field, choices = exc.field, exc.choices
    if field == "i_reading" and i_indexes_the_step(step):
        choices = {"index": INDEX_IN_STEP}
    elif (
        field == "i_reading"
        and i_in_exponent_of_e(lhs.text + " = " + rhs.text)
        and not subscripts_with_i(lhs.text + " = " + rhs.text)
    ):
        # i the unit in an exponent of e in this step: the same letter in the same equation is the unit elsewhere too
        choices = {"unit": I_CHOICES["unit"] + " (as in the exponent of e in this step)"}
    elif field == "i_reading" and (said := unit_as_defined(lhs.text, rhs.text, scope)) is not None:
        choices = {"unit": said}  # z = a + bi = r(...): the chain goes on from the value read with i the unit
    elif field == "i_reading" and scope.complex_sums == "document" and unit_sum_columns(step):
        # a + ib in this step, where the document writes i as the unit: the same letter elsewhere in it is the unit
        choices = {"unit": I_CHOICES["unit"] + " (as in a complex number a + ib in this step)"}
    elif field == "i_reading" and not scope.defines("i") and "i" not in scope.domains and (form := unit_form(step)):
        # cos x + i sin x, Re[...], a conjugate, (a + bi)(c + di): complex arithmetic, no index i in the step
        choices = {"unit": I_CHOICES["unit"] + f" (as in {form} in this step)"}
    elif field == "dot_reading" and scope.dot_stated and not states_dot(step):
        # the document writes a \cdot b = Re[a conj(b)]: its other steps read such a \cdot so only
        choices = {"pairs": f"{DOT_CHOICES['pairs']}, {STATED_INNER} (line {scope.dot_stated})"}
    out: list[tuple[str, Any, Any]] = []
    for choice, note in choices.items():
        picked = _picked(scope, field, choice)
        found, problem = step_readings(lhs, rhs, picked)
        if not found:
            raise ClaimLimitError(f"read with {note}, the step cannot be read ({problem})", "reading")
        out += [(", ".join(filter(None, [note, n])), left, right) for n, left, right in found]
    return out, ""


def _picked(scope: Scope, field: str, choice: str) -> Scope:
    """``scope`` with the reading ``choice`` picked for the two-way notation ``field`` (:data:`TWO_WAY_FIELDS`)."""
    if field == "word_reading":
        return replace(scope, word_reading=choice)
    return replace(scope, dot_reading=choice) if field == "dot_reading" else replace(scope, i_reading=choice)


#: the one reading of a bare i in an exponent of a step that indexes a subscript with i (see :func:`step_readings`)
INDEX_IN_STEP = I_CHOICES["index"] + " (this step indexes a subscript with it)"
#: the Scope fields whose two readings a step is read in, each decided (see :func:`step_readings`)
TWO_WAY_FIELDS = ("word_reading", "i_reading", "dot_reading")


def _readings_once(lhs: Link, rhs: Link, scope: Scope) -> tuple[list[tuple[str, Any, Any]], str]:
    out: list[tuple[str, Any, Any]] = []
    problem = ""
    ambiguous = bool(trig_ambiguities(lhs.text) or trig_ambiguities(rhs.text))
    inner = bool(re.search(r"\\langle|<", lhs.text + rhs.text))
    # a trig argument without parentheses is read as this literature writes it: the function of the
    # product that follows (\cos m\theta is cos(m theta)); the reading is said, not decided both ways
    # an inner product marked _\\mathbb{R} or _\\mathbb{C} is read in its field's conventions (see .inner_fields)
    conventions: tuple[str, ...] = INNER_PRODUCTS
    notes = _CONVENTION_NOTE
    if scope.inner_stated and not states_real_inner(lhs.text + " = " + rhs.text):  # the document says which
        conventions = ("real",)
        notes = {"real": f"{_CONVENTION_NOTE['real']}, {STATED_INNER} (line {scope.inner_stated})"}
    options = inner_field_options(lhs.text + " = " + rhs.text, conventions, notes) if inner else []
    for convention, hermitian, said in options or [("real", "conjugate-second", "")]:
        parts = ["the trig argument as the product that follows it (this literature's convention)"]
        note = ", ".join(parts[: int(ambiguous)] + ([said] if said else []))
        scope_here = replace(scope, inner_product=convention, inner_product_complex=hermitian)
        try:
            left = read_latex_side(lhs.text, 0, scope_here, narrow=True)
            try:
                right = read_latex_side(rhs.text, 0, scope_here, narrow=True)
            except ClaimParseError as exc:
                raise _Located(exc, rhs) from None
            left, right = index_sums(left, right, dict(scope.domains), scope.symbols)
        except _Located as exc:
            problem = problem or error_text(exc.error, exc.link)
            continue
        except ClaimParseError as exc:
            problem = problem or error_text(exc, lhs)
            continue
        if isinstance(left, MatrixBase) != isinstance(right, MatrixBase) and (
            eye := identity_sides(left, right, lambda name: scope.defines(name) or name in scope.freed)
        ):  # R^T R = I: an undefined I beside a square matrix is the identity
            left, right, said = eye
            note = ", ".join(filter(None, [note, said]))
        if isinstance(left, MatrixBase) != isinstance(right, MatrixBase) or (
            isinstance(left, MatrixBase) and left.shape != right.shape
        ):
            shape = lambda e: f"a {e.rows}x{e.cols} matrix" if isinstance(e, MatrixBase) else "a number"
            problem = problem or f"the sides are {shape(left)} and {shape(right)}; {_SHAPES_DIFFER}" + _lone_name(
                left, right, scope
            )
            continue
        same = [k for k, (_, a, b) in enumerate(out) if (left, right) == (a, b)]
        if not same:
            out.append((note, left, right))
        else:  # <u, v>_C read alike in both conventions here: one reading, said so
            out[same[0]] = (merged_field_note(out[same[0]][0], note), left, right)
    return out, problem


def _lone_name(left: Any, right: Any, scope: Scope) -> str:
    """Where one side of sides of different shapes is one name the document never defines, beside a matrix
    (``p_3 = [0, 1, 1]``), the words that say so: that name is read as a number, and the step may give a vector its
    value; else ""."""
    for one, other in ((left, right), (right, left)):
        if isinstance(one, Symbol) and isinstance(other, MatrixBase) and not scope.defines(one.name):
            return (
                f" ({one.name}, which the document never defines, is read as a number here: the step may give a "
                "vector its value)"
            )
    return ""


#: the end of the reason for sides of different shapes: a vector read as a number beside a written-out matrix
#: may be why, so the step is read again with general matrices
_SHAPES_DIFFER = "they cannot be equal"


#: the words of a reason for reading a step again with general matrices: a transposed or multiplied vector, a
#: call of a function read so, a calligraphic name, sides of different shapes
_AS_MATRICES = (TRANSPOSE_PROBLEM, VECTOR_PROBLEM, MULTIPLIED_PROBLEM, "\\mathcal", _SHAPES_DIFFER)


_SUBSCRIPTED = re.compile(r"^(.+?)_\{(.+)\}$")


def _undefined_family(left: Any, right: Any) -> str | None:
    """An undefined name used with related subscripts (``R_{m}``, ``R_{n}``, ``R_{n - m}``), or None.

    Such a family stands for something the document did not define (a matrix of the position);
    read as free numbers its members are unrelated, so a counterexample would not refute the step.
    """
    groups: dict[str, set[str]] = {}
    for s in free(left) | free(right):
        m = _SUBSCRIPTED.match(getattr(s, "name", ""))
        if m:
            groups.setdefault(m.group(1), set()).add(m.group(2))
    for base, subs in sorted(groups.items()):
        compound = sorted(x for x in subs if re.search(r"[-+*/ ]", x))
        if len(subs) >= 2 and compound:
            return f"{base}_{{{compound[0]}}}"
    return None


#: the reader's words for an undefined one-letter name a matrix multiplies (``u multiplies a matrix from the right``)
#: or a lower-case one written transposed (``...; x is not one here``, after :data:`.general.TRANSPOSE_PROBLEM`; a
#: capital may be a matrix, its subscripted letters blocks)
_UNDEFINED_VECTOR = re.compile(
    r"^([A-Za-z]) multiplies a matrix from the right|^" + re.escape(TRANSPOSE_PROBLEM) + r".*?; ([a-z]) is not one here"
)


def _components_vector(lhs: Link, rhs: Link, scope: Scope, problem: str) -> Outcome | None:
    """``R u = (u_1 \\cos ..., ...)``: an undefined vector u beside its components u_1 ... u_N, each written in the
    step, read as the column (u_1, ..., u_N) -- only where the numbers written are exactly 0 or 1 to N (no gap);
    the shapes must then fit. None where that does not apply; the step is then decided so, and says so."""
    m = _UNDEFINED_VECTOR.match(problem)
    name = (m.group(1) or m.group(2)) if m is not None else ""
    if not name or name in scope.symbols or name in scope.patterns:
        return None
    text = normalize_latex(lhs.text + " " + rhs.text).replace("\\\\", " \\\\ ")  # a row break glued on: \\x_1
    found = re.findall(rf"(?<![\\A-Za-z]){name}\s*_\s*(?:\{{\s*(\d+)\s*\}}|(\d+))", text)
    written = {int(a or b) for a, b in found}
    subscripts = [str(k) for k in sorted(written)]
    if scope.generic_blocks and not written:  # one block of the vector: its entries x_{2 j}, x_{2 j + 1}
        subscripts = _block_entries(name, text)
    elif len(written) < 2 or min(written) not in (0, 1) or written != set(range(min(written), max(written) + 1)):
        return None
    if len(subscripts) < 2:
        return None
    entries = [read_quiet(f"{name}_{{{k}}}", Scope(domains=scope.domains)) for k in subscripts]
    if any(not isinstance(e, Symbol) for e in entries):
        return None
    column = sympy.ImmutableMatrix(len(entries), 1, entries)
    d = Definition("symbol", name, column, (), f"{name} = ({entries[0]}, ..., {entries[-1]})^T")
    o = step_in_child(lhs, rhs, replace(scope, symbols={**scope.symbols, name: d}))
    if o.status == UNREAD:
        return None
    note = f"{name} read as the column ({entries[0]}, ..., {entries[-1]}) of the components the step writes"
    o.reason = "; ".join(x for x in (note, o.reason) if x)
    return o


def _vector_as_column(lhs: Link, rhs: Link, scope: Scope, problem: str) -> Outcome | None:
    """The step with its undefined vector read as the column of entries the step writes: a bare letter beside its
    components (``u`` and ``u_1 ... u_N``), or a name with a subscript beside a column of its letter's entries
    (``q_m`` beside ``(q_0, q_1)``: :mod:`.written_columns`); or, for ``\\exp(A) = \\exp(B)``, PROVED where
    ``A = B`` is. None where none applies."""
    components = _components_vector(lhs, rhs, scope, problem)
    if components is not None:
        return components
    column = with_written_column(lhs.text, rhs.text, scope, problem, lambda s: step_in_child(lhs, rhs, s))
    arguments = [exponent_argument(x.text) for x in (lhs, rhs)]
    if column is not None or VECTOR_PROBLEM not in problem or arguments[0] is None or arguments[1] is None:
        return column
    # exp(A) = exp(B), the vectors' products a number: the same function of arguments proved equal
    inner = step_in_child(replace(lhs, text=arguments[0]), replace(rhs, text=arguments[1]), scope)
    if inner.status == UNREAD:
        return None
    if inner.status != "PROVED":  # free entries of vectors the document never writes out refute nothing
        why = f"the arguments of the exponentials, compared: {inner.status} ({inner.reason or 'no proof'}): not decided"
        return Outcome("UNDECIDED", "none", why, None, inner.lhs, inner.rhs)
    inner.reason = "; ".join(x for x in ("the exponentials of arguments proved equal", inner.reason) if x)
    return inner


def _block_entries(name: str, text: str) -> list[str]:
    """The subscripts of the entries of ``name`` that one block of a pattern writes (``x_{2 j}``, ``x_{2 j + 1}``:
    entries 2j and 2j + 1 of the vector, in that order), where there are exactly two, in one block index, one
    apart (the contiguous layout of a written column); else none."""
    found = sorted(set(re.findall(rf"(?<![\\A-Za-z]){name}\s*_\s*\{{\s*([^{{}}]*[A-Za-z][^{{}}]*)\}}", text)))
    if len(found) != 2:
        return []
    try:
        first, second = (sympy.sympify(re.sub(r"(\d)\s+([A-Za-z])", r"\1*\2", f)) for f in found)
    except (sympy.SympifyError, SyntaxError, TypeError):
        return []
    step = sympy.expand(second - first)
    if len(first.free_symbols | second.free_symbols) != 1 or step not in (1, -1):
        return []
    return found if step == 1 else found[::-1]


class _Located(Exception):
    def __init__(self, error: ClaimParseError, link: Link) -> None:
        super().__init__(str(error))
        self.error, self.link = error, link


def readable(lhs: Link, rhs: Link) -> Outcome | None:
    """None when both sides pass the work limits of a reading; else the UNREAD outcome saying which did not."""
    for link in (lhs, rhs):
        try:
            check_text(link.text)
        except ClaimParseError as exc:
            return Outcome(UNREAD, reason=error_text(exc, link))
    return None


def readings_or_outcome(lhs: Link, rhs: Link, scope: Scope) -> tuple[list[Any], Outcome | None]:
    """The step's readings, or why it has none (UNREAD, or UNDECIDED at a limit): one reader for the equality,
    approximation and inequality steps that need no more than that."""
    unread = readable(lhs, rhs)
    if unread is not None:
        return [], unread
    try:
        pinned = pinned_step(lhs.text, rhs.text, scope, rhs.relation)
        if pinned is not None:  # decided here, or not read with certainty
            return [], Outcome(
                pinned.status, pinned.method, pinned.reason, pinned.counterexample, pinned.lhs, pinned.rhs
            )
        readings, problem = step_readings(lhs, rhs, scope)
    except ClaimLimitError as exc:
        return [], Outcome("UNDECIDED", reason=limit_reason(exc))
    except RecursionError:
        return [], Outcome(UNREAD, reason="the step nests too deeply to read")
    if not readings:
        return [], Outcome(UNREAD, reason=problem or "cannot read the step")
    return readings, None


def step_in_child(lhs: Link, rhs: Link, scope: Scope) -> Outcome:
    """Read a step (every reading), check the work limits, decide; the best verdict over the readings. A name the
    document identifies both as a column and as a complex number takes the value the step's uses call for (see
    :mod:`.pair_uses`), said in the reason."""
    signs = sign_sides(lhs.text, rhs.text)
    if signs is not None:  # \\pm on both sides: the step for each sign (.sign_pairs)
        both = [step_in_child(replace(lhs, text=a), replace(rhs, text=b), scope) for a, b in signs]
        kept = both[kept_of_both([o.status for o in both])]
        ways = "; ".join(f"{name}: {o.status}" for name, o in zip(SIGN_NAMES, both, strict=True))
        kept.reason = "; ".join(x for x in (f"\\pm read with each sign in turn ({ways})", kept.reason) if x)
        return kept
    note = ""
    if scope.complex_pairs:
        read = scope_by_use(lhs.text, rhs.text, scope)
        scope, note = read.scope, read.note
        lhs, rhs = replace(lhs, text=read.lhs), replace(rhs, text=read.rhs)
    outcome = _step_read(lhs, rhs, scope)
    if note:
        said = outcome.status != UNREAD
        outcome.reason = "; ".join(x for x in ((note, outcome.reason) if said else (outcome.reason, note)) if x)
    return outcome


def _step_read(lhs: Link, rhs: Link, scope: Scope) -> Outcome:
    """:func:`step_in_child` for a scope in which each such name has its value."""
    unread = readable(lhs, rhs)
    if unread is not None:
        return unread
    if real_part_of_hermitian(lhs.text, rhs.text):  # <u, v>_R = Re(<u, v>_C): the two products' definitions
        return Outcome("PROVED", "definition", FIELD_IDENTITY)
    try:
        pinned = pinned_step(lhs.text, rhs.text, scope)
        if pinned is not None:
            return Outcome(pinned.status, pinned.method, pinned.reason, pinned.counterexample, pinned.lhs, pinned.rhs)
        readings, problem = step_readings(lhs, rhs, scope)
    except ClaimLimitError as exc:
        stopped = Outcome("UNDECIDED", reason=limit_reason(exc))
        return for_every_value(_step_read, lhs, rhs, scope, stopped, equality=True)
    except RecursionError:
        return Outcome(UNREAD, reason="the step nests too deeply to read")
    if not readings:
        paired = paired_verdict(lhs.text, rhs.text, scope, named=False) if scope.complex_pairs else None
        if paired is not None:  # q = [a \\ b] and q = a + ib in the document: the pair read as that number
            return Outcome(*paired)
        columns = _vector_as_column(lhs, rhs, scope, problem)
        if columns is not None:
            return columns
        # undefined names transposed: general matrices, proved by matrix algebra or not decided
        # a bold zero (the zero matrix) is read only among general matrices
        as_matrices = any(w in problem for w in _AS_MATRICES) or BOLD_ZERO.search(lhs.text + rhs.text) is not None
        matrices = _with_general_matrices(lhs, rhs, scope) if as_matrices else None
        unstated = unstated_reading(lhs.text, rhs.text, scope) if "2x1 matrix" in problem else None
        if matrices is None and unstated is not None:  # a number beside a column, no identification stated
            return Outcome("UNDECIDED", reason=unstated)
        return matrices or Outcome(UNREAD, reason=problem or "cannot read the step")
    as_numbers = tuple(sorted(set().union(*(names(a) | names(b) for _, a, b in readings)) & scope.matrix_names))
    if as_numbers:  # a vector or matrix of the document read as a number: another statement, never decided so
        return _with_general_matrices(lhs, rhs, scope, as_numbers) or Outcome("UNDECIDED")
    isolate.send(("read", readings[0][1], readings[0][2]))
    rounded = decimal_places(rhs.text) or decimal_places(lhs.text)
    results: list[Outcome] = []
    for note, left, right in readings:
        try:
            exact = exact_closed_sides((lhs.text, rhs.text), (left, right), scope) if rounded is not None else None
            left, right = exact if exact is not None and len(readings) == 1 else (left, right)
            if left != right:
                check_work(left, right)
            verdict, method, cex = decide(left, right)
            if rounded is not None and verdict != Verdict.PROVED:
                results.append(_rounded(left, right, rounded, verdict, cex))
                continue
        except ClaimLimitError as exc:
            results.append(Outcome("UNDECIDED", reason=limit_reason(exc), lhs=left, rhs=right))
            continue
        except RecursionError:
            results.append(Outcome("UNDECIDED", reason="the rewrites nested too deeply", lhs=left, rhs=right))
            continue
        except (MemoryError, KeyboardInterrupt):
            raise
        except Exception as exc:  # a rewrite that fails decides nothing
            results.append(Outcome("UNDECIDED", reason=f"{type(exc).__name__} in the rewrites", lhs=left, rhs=right))
            continue
        family = _undefined_family(left, right) if verdict == Verdict.REFUTED else None
        if family is not None:
            why = (
                f"{family} is not defined in the document: read as unrelated numbers, its members refute nothing "
                f"(define {family.split('_')[0]}_m before this step to decide it)"
            )
            results.append(Outcome("UNDECIDED", "none", why, None, left, right))
            continue
        why = _reading_doubt(lhs, rhs, scope, note, cex) if verdict == Verdict.REFUTED else ""
        if why:
            results.append(Outcome("UNDECIDED", "none", why, None, left, right))
            continue
        starred = _complex_star_names(cex, scope) if verdict == Verdict.REFUTED else []
        again = _refuted_with_real(lhs, rhs, scope, starred) if starred else None
        if again is not None:
            results.append(again)
            continue
        if starred:
            results.append(Outcome("UNDECIDED", "none", _starred_doubt(starred, scope), None, left, right))
            continue
        results.append(Outcome(verdict.value, method, "", cex, left, right))
    decided = _with_pair(_over_readings(lhs, rhs, scope, readings, results), lhs, rhs, scope)
    if decided.status in ("UNDECIDED", "REFUTED") and _EXPONENTIAL.search(lhs.text + rhs.text):
        # exp(s H) exp(-s H) = I: read as numbers, I is a free number (refuted, and left undecided for it); as
        # matrices, the exponentials cancel, and a proof for every matrix is one for what the names stand for
        found = _with_general_matrices(lhs, rhs, scope)
        decided = found if found is not None and found.status == "PROVED" else decided
    hedge = hedged_verdict(decided.status, lhs.text, rhs.text, scope)
    if hedge is not None:  # a column in complex arithmetic, never identified with a number (.unstated_pairs)
        decided = Outcome("UNDECIDED", "none", hedge, None, decided.lhs, decided.rhs)
    zero = _zero_written(lhs, rhs, scope) if decided.status == "PROVED" else ""
    if zero:  # (a - b) x / (a - b), cancelled as it was read, where a = b: the quotient is not defined
        decided.status, decided.method, decided.counterexample = "UNDECIDED", "none", None
        decided.reason = (
            f"writes a quotient by {zero}, which the definitions in force and the values the text gives make zero: "
            "the side is not defined there, so the step is not decided"
        )
    return decided


#: an exponential written in a step (``\exp``, ``e^``): where its argument is a matrix, the step is read so too
_EXPONENTIAL = re.compile(r"\\exp(?![A-Za-z])|(?<![\\A-Za-z])e\s*\^")


def _reading_doubt(lhs: Link, rhs: Link, scope: Scope, note: str, cex: Any) -> str:
    """Why a step refuted in the reading ``note`` is not refuted after all, or "": i read as an index, refuted only
    where i is not a whole number; exp of a written-out matrix read as the matrix exponential."""
    if I_CHOICES["index"] in note and _index_not_whole(cex):
        return "read with i an index, refuted only where i is not a whole number: not decided"
    if _written_exponential_used(lhs, rhs, scope):
        return (
            "refuted with exp of a written-out matrix read as the matrix exponential; exp of a matrix may be meant "
            "entry by entry: not decided"
        )
    return ""


def _written_exponential_used(lhs: Link, rhs: Link, scope: Scope) -> bool:
    """Whether a step read in ``scope`` is read only with the exponential of a written-out matrix: read again with
    it refused, it stops (or, stopped by a limit, may have used one)."""
    if not _EXPONENTIAL.search(lhs.text + rhs.text):
        return False
    try:
        found, _ = step_readings(lhs, rhs, replace(scope, matrix_exponentials=False))
    except ClaimLimitError:
        return True
    return not found


def _zero_written(lhs: Link, rhs: Link, scope: Scope) -> str:
    """A denominator the step writes that is zero with the definitions in force and the values given in passing
    (see :mod:`.written_quotients`), or ''."""
    values = values_given(scope)
    general = _without_values_in_passing(scope) if values else None
    return zero_written_denominator((lhs.text, rhs.text), general or scope, values)


def _with_pair(outcome: Outcome, lhs: Link, rhs: Link, scope: Scope) -> Outcome:
    """A step that names a column the document identifies with a complex number (see :mod:`.complex_pairs`),
    read both ways: decided only where the column's reading and the number's agree."""
    paired = paired_verdict(lhs.text, rhs.text, scope) if scope.complex_pairs else None
    if paired is None or outcome.status not in ("PROVED", "REFUTED") or paired[0] == outcome.status:
        return outcome
    why = (
        f"read with the names as the columns the document defines: {outcome.status}; {paired[2]}: {paired[0]}; "
        "the two readings differ, so the step is not decided"
    )
    return Outcome("UNDECIDED", "none", why, None, outcome.lhs, outcome.rhs)


def _over_readings(lhs: Link, rhs: Link, scope: Scope, readings: list[Any], results: list[Outcome]) -> Outcome:
    """The verdict over every reading of a step: decided only when each reading gives it."""
    several = f"read {len(readings)} ways ({'; '.join(n for n, _, _ in readings)})"
    glued = any(WORD_CHOICES["name"] in n for n, _, _ in readings)
    if (
        glued
        and all(r.status == "REFUTED" for r in results)
        and any(_BARE_NAME.match(t) and not family_member(t, scope) for t in (lhs.text, rhs.text))
    ):
        why = (
            f"{several}: REFUTED in every one, but a side is a name of glued letters alone, which this line "
            "may define: not decided"
        )
        return Outcome("UNDECIDED", "none", why, None, results[0].lhs, results[0].rhs)
    if all(r.status == "PROVED" for r in results) and (commuted := _commuted(lhs, rhs, scope, readings)):
        return commuted
    for status in ("PROVED", "REFUTED"):
        if all(r.status == status for r in results):  # decided only when every reading gives it
            best = results[0]
            if len(readings) > 1:
                best.reason = f"{several}: {status} in every one"
            elif _said(readings[0][0]):
                best.reason = f"read with {readings[0][0]}"
            return best
    if len(readings) > 1 and {r.status for r in results} & {"PROVED", "REFUTED"}:
        return _readings_differ(readings, results, several)
    best = results[0]
    best.status = "UNDECIDED"
    why = best.reason or "no rewrite reduced the difference to 0 and no counterexample was found"
    said = f"read with {readings[0][0]}; " if UNIT_AS_DEFINED in readings[0][0] or said_by_form(readings[0][0]) else ""
    best.reason = (f"{several}; " if len(readings) > 1 else said) + why
    return best


def _said(note: str) -> bool:
    """Whether the one reading of a decided step is said in its reason: how its i was read, where that was chosen."""
    said = (INDEX_IN_STEP, UNIT_AS_DEFINED, FIELD_SAID, STATED_INNER)
    return any(s in note for s in said) or said_by_form(note)


def _commuted(lhs: Link, rhs: Link, scope: Scope, readings: list[Any]) -> Outcome | None:
    """A step proved as numbers that names vectors or matrices (``W R x = R W x``: products of numbers commute),
    read again with general matrices: PROVED there, or UNDECIDED; None where it names none such."""
    used = set().union(*(names(a) | names(b) for _, a, b in readings))
    commuted = commuted_arrays(used, scope)
    if not commuted:
        return None if used else _cancelled(lhs, rhs, scope, readings)
    found = _with_general_matrices(lhs, rhs, scope)
    if found is not None and found.status == "PROVED":
        return found
    why = (
        f"{', '.join(commuted)} are written as vectors or matrices; read as numbers, whose products commute, "
        "the step holds, which does not prove it for matrices" + (f"; {found.reason}" if found else "")
    )
    return Outcome("UNDECIDED", "none", why, None, readings[0][1], readings[0][2])


def _cancelled(lhs: Link, rhs: Link, scope: Scope, readings: list[Any]) -> Outcome | None:
    """A step proved as numbers whose names all cancel there (``A B - B A = B A - A B`` is ``0 = 0``: products of
    numbers commute), read again with general matrices where it writes two vectors or matrices with no value (or
    one transposed): PROVED there, or UNDECIDED (also where it cannot be read so); None where it writes no such
    pair -- what holds for numbers holds for one matrix, whose powers and functions commute."""
    if not _written_arrays(f"{lhs.text} + {rhs.text}", scope):
        return None
    found = _with_general_matrices(lhs, rhs, scope)
    if found is not None and found.status == "PROVED":
        return found
    why = (
        "read as numbers, whose products commute, its names cancel and the step holds, which does not prove it for "
        "the vectors or matrices it names" + (f"; {found.reason}" if found is not None else "")
    )
    return Outcome("UNDECIDED", "none", why, None, readings[0][1], readings[0][2])


#: a script: a braced group with no group inside, a command or one character after ``_`` or ``^``
_SCRIPT = re.compile(r"[_^]\s*(?:\{[^{}]*\}|\\[A-Za-z]+|[^\s{])")
#: a transpose or a conjugate transpose, as normalized LaTeX writes it
_TRANSPOSED = re.compile(r"\^\s*(?:\{\s*)?(?:T|H|\\top|\\intercal|\\dagger)(?![A-Za-z])")


def _written_arrays(text: str, scope: Scope) -> bool:
    """Whether ``text`` writes two letters that name vectors or matrices of the document with no value, or one
    transposed (outside commands, upright words and scripts): a written-out one (``p = [3, 4]^T``) is read with its
    entries, whose products commute."""
    words = re.sub(r"\\(?:text|mathrm|operatorname|begin|end)\s*\{[^{}]*\}", " ", normalize_latex(text))
    transposed = _TRANSPOSED.search(words) is not None
    while (bare := _SCRIPT.sub(" ", words)) != words:  # a subscript or a power names no vector (W_q, k^T)
        words = bare
    letters = set(re.sub(r"\\[A-Za-z]+", " ", words))  # a word set upright or a command names nothing
    valued = {k.split("_")[0] for k in (*scope.symbols, *scope.patterns)}
    found = {b for n in scope.array_names | scope.matrix_names if (b := n.split("_")[0]) in letters} - valued
    return len(found) >= 2 or (len(found) == 1 and transposed)


def _readings_differ(readings: list[Any], results: list[Outcome], several: str) -> Outcome:
    """UNDECIDED, with each reading's verdict: by its place, or in words where a bare i reads two ways."""
    best = results[0]
    says = "; ".join(f"as the {_ORDINAL[i]}: {r.status}" for i, r in enumerate(results))
    why = f"{several}; {says}: the reading decides it"
    if any(note in n for n, _, _ in readings for note in I_CHOICES.values()):
        says = "; ".join(f"as {n}: {r.status}" for (n, _, _), r in zip(readings, results))
        why = f"read {says}: the reading decides it"
    return Outcome("UNDECIDED", "none", why, None, best.lhs, best.rhs)


def _index_not_whole(cex: Counterexample | None) -> bool:
    """Whether a counterexample gives the index i a value no index takes (a fraction): then it refutes nothing."""
    values = cex.values if cex is not None else {}
    return any(getattr(k, "name", "") == "i" and not sympy.sympify(v).is_integer for k, v in values.items())


def _with_general_matrices(lhs: Link, rhs: Link, scope: Scope, as_numbers: tuple[str, ...] = ()) -> Outcome | None:
    if (found := general_step(lhs.text, rhs.text, scope, as_numbers)) is None:
        return None
    method = found.method or ("matrix algebra" if found.status == "PROVED" else "none")
    return Outcome(found.status, method, found.reason, found.counterexample, found.lhs, found.rhs)


def general_in_child(lhs: Link, rhs: Link, scope: Scope) -> Outcome:
    """A step that uses names whose values the audit does not have, read with them as general matrices: PROVED
    when it holds for every matrix and vector they may stand for, else UNDECIDED (the caller keeps it unread)."""
    unread = readable(lhs, rhs)
    if unread is not None:
        return unread
    found = _with_general_matrices(lhs, rhs, scope)
    return found if found is not None else Outcome("UNDECIDED")


def _without_values_in_passing(scope: Scope) -> Scope | None:
    """The scope without the values the text gives names in passing (``$m = 1$``), or None when there is none or
    one is not a number. A value that may lie outside its name's domain (``\theta = \arctan(b/a)``, not real at
    ``a = 0``) makes the name complex there: a proof for every complex number covers it."""
    pins = {(p.base, p.line) for p in pins_in_force(scope)}  # conditions on a sequence's entries: they stay
    given = {k: d for k, d in scope.symbols.items() if d.stated_value and (k.split("_")[0], d.line) not in pins}
    widened = dict(scope.domains)
    kept: set[str] = set()
    for name, d in given.items():
        sym = domain_symbol(name, dict(scope.domains))
        value = d.body
        if isinstance(value, sympy.MatrixExpr) and not isinstance(value, MatrixBase):
            continue  # a matrix set in passing (W = I): read again as any matrix, it is covered
        if not isinstance(value, sympy.Basic) or isinstance(value, MatrixBase):
            # a vector given in passing (u = (1, 0)^T) is no number: it keeps its value, so a step that uses it
            # still stops there; the other names are freed
            kept.add(name)
            continue
        for assumption in ("integer", "real", "positive", "nonnegative"):
            if getattr(sym, f"is_{assumption}") and getattr(_where_defined(value), f"is_{assumption}") is not True:
                widened[domain_key(name)] = "complex"
    if not set(given) - kept:
        return None
    symbols = {k: d for k, d in scope.symbols.items() if k not in given or k in kept}
    return replace(scope, symbols=symbols, freed=frozenset(set(given) - kept)).with_domains(widened)


def _where_defined(value: Any) -> Any:
    """``value`` with each real name in it nonzero: ``\arctan(b/a)`` is real wherever it is defined."""
    nonzero = {
        s: sympy.Dummy(integer=True, nonzero=True) if s.is_integer else sympy.Dummy(real=True, nonzero=True)
        for s in value.free_symbols
        if s.is_real
    }  # a position stays a whole number
    return value.xreplace(nonzero)


#: the words of the reader's stop at a name the text gives a value in passing (``latex_tree``)
_GIVEN_IN_PASSING = "is given the value"


def for_every_value(
    decide_step: Any, lhs: Link, rhs: Link, scope: Scope, stopped: Outcome, *, equality: bool = False
) -> Outcome:
    """A step stopped at a name the text gives a value in passing (``$b = 10000$``), decided with the name free.

    What holds for every value of the name holds at the value given, so PROVED stands, and says for which
    value. Anything else is UNDECIDED with both readings: the value is an example or a condition, never
    substituted, so a counterexample for some other value refutes nothing. ``decide_step(lhs, rhs, scope)``
    decides the step as its relation asks (an equality, an inequality, an approximation). An ``equality`` refuted
    for some value is decided at the values given too: REFUTED there as well, it is REFUTED.
    """
    general = _without_values_in_passing(scope) if _GIVEN_IN_PASSING in stopped.reason else None
    if general is None:
        return stopped
    o = decide_step(lhs, rhs, general)
    given = _values_given(o, scope, stopped.reason)
    values = values_given(scope)
    zero = zero_denominator_at_given((o.lhs, o.rhs), values) if o.status == "PROVED" else ""
    zero = zero or (zero_written_denominator((lhs.text, rhs.text), general, values) if o.status == "PROVED" else "")
    if zero:  # proved where the sides are defined, but the value given makes one undefined
        o.status, o.method, o.counterexample = "UNDECIDED", "none", None
        o.reason = f"proved where {zero} is nonzero, but {given} makes it zero: not decided"
    if o.status == "PROVED":
        o.reason = f"proved for every value of {given}" + (f"; {o.reason}" if o.reason else "")
        return o
    why = o.reason or "no rewrite reduced the difference to 0 and no counterexample was found"
    if o.status == "REFUTED" and o.counterexample is not None:
        both = _refuted_at_the_value(o, scope, given) if equality else None
        if both is not None:
            return both
        at = ", ".join(f"{k} = {v}" for k, v in sorted(o.counterexample.values.items(), key=str))
        why = f"false at {at}, which need not be the value given"
    stopped.reason = f"{stopped.reason}; read for every value of {given}: {o.status} ({why})"
    if o.status == UNREAD:  # read neither at the value (not taken) nor for every value (not read): unread
        stopped.status = UNREAD
    return stopped


#: why a step false both for other values of a name given a value in passing and at that value is REFUTED
REFUTED_AT_THE_VALUE = "and at the value given too: false whichever the text means"


def values_given(scope: Scope) -> dict[str, Any]:
    """The values the text gives names in passing (``$b = 10000$``): name -> value (a name given two values has
    the later one)."""
    return {k: d.body for k, d in scope.symbols.items() if d.stated_value and isinstance(d.body, sympy.Basic)}


def values_meant(scope: Scope) -> dict[str, Any] | None:
    """The values given in passing, where each is the one value the text gives its name; None where the text
    gives one of them two values (which one a step means is not known)."""
    values = values_given(scope)
    return None if set(values) & scope.given_again else values


def at_values_in_child(lhs: Any, rhs: Any, values: dict[str, Any]) -> Outcome:
    """An equality's sides read for every value of the names the text gives values in passing, decided at those
    values (each symbol of such a name, whatever its assumptions, set to the value): REFUTED with the
    counterexample there, else UNDECIDED (what holds there is not the question)."""
    if not all(isinstance(e, sympy.Expr) for e in (lhs, rhs)):
        return Outcome("UNDECIDED")
    numbers = {k: v for k, v in values.items() if isinstance(v, sympy.Expr) and not isinstance(v, sympy.MatrixExpr)}
    at = {x: numbers[x.name] for e in (lhs, rhs) for x in e.free_symbols if getattr(x, "name", None) in numbers}
    if not at:
        return Outcome("UNDECIDED")
    try:
        left, right = lhs.xreplace(at), rhs.xreplace(at)
        verdict, method, cex = decide(left, right)
    except (TypeError, ValueError, ZeroDivisionError):  # a value that does not fit where the name stands
        return Outcome("UNDECIDED")
    if verdict is not Verdict.REFUTED or cex is None:
        return Outcome("UNDECIDED")
    return Outcome("REFUTED", method, counterexample=cex, lhs=left, rhs=right)


def _refuted_at_the_value(o: Outcome, scope: Scope, given: str) -> Outcome | None:
    """A step refuted for some value of the names the text gives values in passing (``o``), decided at those
    values: REFUTED there too, it is false whichever the text means (the names' every value, or the value
    given), so it is REFUTED, with the counterexample at the value given; else None."""
    meant = values_meant(scope)
    at = at_values_in_child(o.lhs, o.rhs, meant) if meant is not None else Outcome("UNDECIDED")
    if at.status != "REFUTED":
        return None
    at.reason = f"false for other values of {given}, {REFUTED_AT_THE_VALUE}"
    return at


def scope_for_every_value(scope: Scope, stopped: Outcome) -> Scope | None:
    """The scope that reads a step for every value of the names the text gives values in passing, where
    ``stopped`` stopped at one of them (see :func:`for_every_value`); else None."""
    return _without_values_in_passing(scope) if _GIVEN_IN_PASSING in stopped.reason else None


def _values_given(o: Outcome, scope: Scope, stop: str) -> str:
    """The names given values in passing that the step uses (read, or named where it stopped), with each value
    and line, in words."""
    used = {getattr(x, "name", "") for side in (o.lhs, o.rhs) for x in free(side)}
    used |= set(re.findall(r"(\S+) " + _GIVEN_IN_PASSING, stop))
    given = [(k, d) for k, d in sorted(scope.symbols.items()) if d.stated_value]
    shown = [(k, d) for k, d in given if k in used] or given
    said = ", ".join(f"{k} = {d.body} at line {d.line}" for k, d in shown)
    return f"{', '.join(k for k, _ in shown)} (the text gives {said}, an example or a condition)"


def _starred_doubt(starred: list[str], scope: Scope) -> str:
    """Why a step refuted only with ``starred`` complex is not decided: ``b^*`` may be an optimum, a conjugated
    bracket says only that the bracket is complex."""
    if not set(starred) <= scope.bracket_names:
        return (
            f"refuted only with {', '.join(starred)} not real; {', '.join(n + '^*' for n in starred)} may name "
            "another quantity (an optimum), not a conjugate, and then the name is real: not decided"
        )
    held = "them" if len(starred) > 1 else "it"
    return (
        f"refuted only with {', '.join(starred)} not real; a conjugated bracket holds {held}, which says the "
        "bracket is complex, not which of its names are: not decided"
    )


def _complex_star_names(cex: Counterexample | None, scope: Scope) -> list[str]:
    """The names written only ``b^*`` to which ``cex`` gives a value that is not real."""
    if cex is None or not scope.star_names:
        return []
    found = []
    for sym, value in cex.values.items():
        name = getattr(sym, "name", str(sym))
        if name in scope.star_names and sympy.im(value) != 0:
            found.append(name)
    return sorted(found)


def _refuted_with_real(lhs: Link, rhs: Link, scope: Scope, names: list[str]) -> Outcome | None:
    """The step refuted again with ``names`` real (a counterexample under either reading of ``b^*``), or None."""
    real = scope.with_domains({**scope.domains, **{n: "real" for n in names}})
    try:
        readings, _ = step_readings(lhs, rhs, real)
        if not readings:
            return None
        _, left, right = readings[0]
        verdict, method, cex = decide(left, right)
    except (ClaimLimitError, ClaimParseError, RecursionError):
        return None
    if verdict != Verdict.REFUTED:
        return None
    whether = (
        "whether they are complex or real (a conjugated bracket holds them)"
        if set(names) <= scope.bracket_names
        else f"whether {names[0]}^* is a conjugate or a name"
    )
    why = f"refuted with {', '.join(names)} real: a counterexample {whether}"
    return Outcome("REFUTED", method, why, cex, left, right)


def _rounded(left: Any, right: Any, rounded: tuple[int, int], verdict: Verdict, cex: Any) -> Outcome:
    """A step with decimals, not proved exactly: decided with the decimals read as rounded to the digits shown."""
    judged = rounded_comparison(left, right, *rounded)
    if judged is None:
        why = "decimals that may be rounded, next to unknown names: not decided"
        return Outcome("UNDECIDED", reason=why, lhs=left, rhs=right)
    status, why = judged
    if status == "REFUTED" and verdict != Verdict.REFUTED:
        return Outcome("UNDECIDED", reason=why, lhs=left, rhs=right)
    method = "rounded" if status == "PROVED" else "none"
    return Outcome(status, method, why, cex if status == "REFUTED" else None, left, right)


def redefines(head: Head, scope: Scope) -> bool:
    """Whether ``head`` names what the document already defined, in the same form (a new definition then).

    An entry of a defined sequence (``\\theta_1`` under ``\\theta_i``) is not defined again: it is that
    definition at 1, and an equation about it is a step.
    """
    table = {"symbol": scope.symbols, "pattern": scope.patterns, "function": scope.functions}[head.kind]
    # only an entry (a subscript) is covered: a bare m beside the sequence m_h is a name of its own
    entry = head.kind == "symbol" and "_{" in head.key
    covered = entry and re.sub(r"_\{.*$", "", head.key) in {k.lstrip("\\") for k in scope.patterns}
    return head.key in table and not covered


def bind_late(d: Definition, tables: tuple[dict[str, Definition], ...]) -> list[tuple[Head, int]]:
    """Earlier definitions that use ``d``'s name, still free in them (``d`` given no value then), take its value.

    Returns the heads (and lines) of those that cannot take it (a matrix where the earlier body raised the name
    to a power, added it to a number): they are dropped from their table, and the caller marks them unread,
    since read with the name free they would disagree with the steps that use its value.
    """
    failed: list[tuple[Head, int]] = []
    for kind, table in zip(("symbol", "pattern", "function"), tables):
        for key, other in list(table.items()):
            body = other.body
            if not isinstance(body, sympy.Basic) and not isinstance(body, MatrixBase):
                continue
            late = [x for x in free(body) if getattr(x, "name", None) == d.name and x not in other.params]
            if not late:
                continue
            try:
                table[key] = replace(other, body=body.subs({x: d.body for x in late}))
            except (TypeError, ValueError, AttributeError, sympy.matrices.exceptions.MatrixError):
                del table[key]
                failed.append((Head(kind, key, tuple(str(p) for p in other.params)), other.line))
    return failed


def has_function(value: Any) -> bool:
    return isinstance(value, sympy.Basic) and bool(value.atoms(sympy.Function))


def closed_number(value: Any) -> bool:
    return isinstance(value, sympy.Basic) and not isinstance(value, MatrixBase) and not value.free_symbols


def posed(text: str, blocks: list[MathBlock], at: int, read: list[Chain], lines: Any, scope: Scope) -> dict[int, str]:
    """The chains of a display that the prose (or a ``\\Rightarrow`` in it) poses as conditions, each with the words.

    A condition word just before the display ("when", "令") poses its first chain; an implication
    sign to a bare-name equation in the same display (``\\lambda^{d/2} = k \\Rightarrow \\lambda = ...``),
    or a word such as "解得" or "solving" between the display and a bare-name equation after it,
    poses the chain before it as an equation to solve.
    """
    if not read:
        return {}
    block = blocks[at]
    out: dict[int, str] = {}
    start = blocks[at - 1].src.col(len(blocks[at - 1].src.text)) + 1 if at else 0
    word = condition_before(text[start : block.src.col(0)].strip("$"))
    if not word:  # "we want ... to be a function of n - m:" the sentence leading in, inline math and all
        shown = [b for b in blocks[:at] if b.kind == "display"]
        begin = shown[-1].src.col(len(shown[-1].src.text)) + 1 if shown else 0
        word = requirement_before(text[begin : block.src.col(0)])
    if word:
        out[0] = word
    for n in range(len(read) - 1):
        after = read[n + 1].links
        if read[n].then in _IMPLIES and len(after) >= 2 and head(after[0].text, scope) is not None:
            out[n] = read[n].then
    if at + 1 < len(blocks):
        nxt = blocks[at + 1]
        gap = text[block.src.col(len(block.src.text)) : nxt.src.col(0)].strip("$\\[]() \t\n")
        word = solved_after(gap)
        following = chains(nxt, lines)
        if word and following and len(following[0].links) >= 2 and head(following[0].links[0].text, scope):
            out.setdefault(len(read) - 1, word)
    return out


_IMPLIES = ("\\Rightarrow", "\\Longrightarrow", "\\implies", "=>", "==>", "⇒", "⟹")
