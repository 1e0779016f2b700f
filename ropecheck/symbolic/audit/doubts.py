"""Why a REFUTED step may not be refuted after all: doubts about its reading that the counterexample cannot settle.

The auditor (:mod:`.steps`) decides a step, then asks these questions of a REFUTED one: does it bring in names
no formula before wrote, on one side only (:func:`fresh_one_side`: the step may define them), or names the
document never defines, on one side only (:func:`lone_undefined`: the step may state their value); does a ``\\cdot``
stand between names the document conjugates (:func:`dot_of_conjugated`: a dot product of the pairs they stand
for); is ``j`` real only by the reader's default, in an exponent of e (:func:`unit_j`); does the counterexample
take the root of a negative value of a name (:func:`negative_under_root`); did expectations read by
linearity alone leave a difference a distribution may cancel (:func:`expectation_doubt`); was a sum over a
range the text does not write refuted only over some ranges (:func:`open_range_why`). Each answer that may
be yes makes the step UNDECIDED, with the reason said.

Design constraints: pure functions of the step, its text and the document's math before it; each only ever
turns a verdict into UNDECIDED, never into PROVED or REFUTED.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from typing import Any

import sympy
from sympy import MatrixBase

from ..readers.default_doubts import j_in_exponent, negative_under_root_at
from ..readers.expectation import expectations_in, expectations_left
from ..readers.latex_text import GREEK
from ..readers.open_sums import false_over_every_range, open_range_names
from ..readers.scope import Scope, domain_key
from .reading import decimal_places, decimals_as_fractions, read_quiet
from .result import AuditStep

__all__ = [
    "arrow_and_bare",
    "arrow_and_bare_why",
    "dot_of_conjugated",
    "exact_decimals_equal",
    "expectation_doubt",
    "fresh_one_side",
    "lone_labels",
    "lone_labels_why",
    "lone_undefined",
    "member_at_valued_index",
    "negative_under_root",
    "open_range_why",
    "refuted_with",
    "unit_j",
]


def expectation_doubt(s: AuditStep, text: str) -> None:
    """A step read with expectations as unknowns (by linearity alone): REFUTED only where they cancel; where they
    are left in the difference, UNDECIDED, saying what would have to hold."""
    undecided = s.status == "UNDECIDED" and s.reason.startswith("no rewrite reduced")
    if (s.status == "REFUTED" or undecided) and (left_over := expectations_left(s.lhs, s.rhs, text)):
        s.status, s.method, s.counterexample = "UNDECIDED", "none", None
        s.reason = (
            f"with each expectation an unknown (by linearity alone), the sides differ by {left_over}: the step "
            "holds only for distributions that make this 0 (independence, a mean or a variance the text may "
            "state in words), and values of these unknowns need not come from any distribution: not decided"
        )
    elif s.status == "REFUTED" and expectations_in(s.lhs) | expectations_in(s.rhs):
        s.reason = "; ".join(filter(None, [s.reason, "the expectations cancel: false for every distribution"]))


#: ``Q_m \\cdot K_n``: the names either side of a \\cdot
_CDOT_NAME = r"(\\?[A-Za-z]+(?:\s*_\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?)"
#: Euler's number after the dot, raised as written or marked by the reader: ``k \\cdot e^{i n t}`` is no dot product
_CDOT_EULER = r"(?!e\s*\^|\\mathit\s*\{\s*ZQEU\s*\})"
_CDOT = re.compile(_CDOT_NAME + r"\s*\\cdot(?![A-Za-z])\s*" + _CDOT_EULER + _CDOT_NAME)


def dot_of_conjugated(text: str, conjugated: Mapping[str, str]) -> bool:
    """Whether a ``\\cdot`` in ``text`` stands beside a name the document writes conjugated (``Q_m \\cdot K_n``)."""
    return any(domain_key(n) in conjugated for m in _CDOT.finditer(text) for n in m.groups())


#: ``\\vec{z}``, ``\\overrightarrow{z}``: a letter marked as the vector of what the bare letter names
_ARROWED = re.compile(
    r"\\(?:vec|overrightarrow)\s*\{\s*(\\?[A-Za-z]+)(?:\s*_\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?\s*\}"
    r"|\\(?:vec|overrightarrow)\s+(\\?[A-Za-z]+)(?![A-Za-z])"
)


def arrow_and_bare(text: str) -> str:
    r"""A letter the step writes both under an arrow and bare (``z \cdot e^{i\theta} = R \vec{z}``), or "".

    The arrow marks a second object named after the first (the vector of a complex number ``z``); the
    reader takes both for one name, so a counterexample may only show that they differ.

    Example:
        >>> arrow_and_bare(r"z e^{im\theta} = \mathbf{R}_m \vec{z}"), arrow_and_bare(r"\vec{z} = R \vec{z_0}")
        ('z', '')
    """
    rest = _ARROWED.sub(" ", text)
    for m in _ARROWED.finditer(text):
        name = m.group(1) or m.group(2)
        if re.search(r"(?<![A-Za-z\\])" + re.escape(name) + r"(?![A-Za-z])", rest):
            return name
    return ""


#: the reader's name for a labelled entry: ``k_{n}^{(1)}``, ``W^{(1,2)}`` -- its base and its label
_LABELLED = re.compile(r"^(.+?)\^\{\((.+)\)\}$")


def lone_labels(s: AuditStep, scope: Scope) -> list[str]:
    r"""The bases of a refuted step's labelled entries (``k_n^{(1)}``) that stand on one side only, the document
    defining neither them nor their base: ``R W x = R [k_n^{(1)} \\ k_n^{(2)}]`` may be what says k_n = W x.

    Example:
        >>> from sympy import Matrix, Symbol
        >>> w, x, k = (Symbol(n) for n in ("W^{(1,1)}", "x^{(1)}", "k_{n}^{(1)}"))
        >>> lone_labels(AuditStep(1, 1, "", "", "REFUTED", lhs=Matrix([w * x]), rhs=Matrix([k])), Scope())
        ['W', 'k_{n}', 'x']
    """
    sides = []
    for e in (s.lhs, s.rhs):
        found = {str(x) for x in e.free_symbols} if isinstance(e, (sympy.Basic, MatrixBase)) else set()
        sides.append({m.group(1) for n in found if (m := _LABELLED.match(n))})
    lone = (sides[0] - sides[1]) | (sides[1] - sides[0])
    return sorted(b for b in lone if not scope.defines(b) and not scope.defines(b.split("_")[0]))


def arrow_and_bare_why(text: str, pairs: tuple[tuple[str, Any, int], ...] = ()) -> str:
    """Why a refuted step that writes a letter both under an arrow and bare is not refuted, or "". ``pairs``: the
    names the document identifies as a column and a complex number (``c = u + iv``, then ``\\vec{c} = [u \\\\ v]``,
    see :mod:`.complex_pairs`): the document says which column the arrow marks, so no doubt."""
    arrowed = arrow_and_bare(text)
    if not arrowed or any(p[0] == arrowed for p in pairs):
        return ""
    return (
        f"writes \\vec{{{arrowed}}} beside {arrowed}: the arrow may mark another object (the vector a complex "
        f"{arrowed} stands for), read here as the same name, so it refutes nothing"
    )


def lone_labels_why(s: AuditStep, scope: Scope) -> str:
    """Why a refuted step whose labelled entries stand on one side only is not refuted, or ""."""
    labels = lone_labels(s, scope)
    if not labels:
        return ""
    return (
        f"the entries of {', '.join(labels)} (written with labels, X^{{(1)}}) stand on one side only and the document "
        "does not define them: the step may be what ties them to the other side, so it refutes nothing"
    )


def fresh_one_side(s: AuditStep, before: str) -> list[str]:
    """The names of a refuted step that the document's math never wrote before, each on one side only, the other
    side using no name written with its letter (``K e^{in\\theta} = k e^{i(\\beta + n\\theta)}`` where beta is
    new: the step may define it; ``q = f_q(x_q, 0)`` where q alone is new). A name with a subscript is new where
    its letter is (``v_4`` is not, where ``\\mathbf{v}`` was written); a side written out as a matrix has none, nor
    a step none of whose names the text wrote before."""
    if isinstance(s.lhs, MatrixBase) or isinstance(s.rhs, MatrixBase):
        return []  # an entry of a matrix written out is what the step computes, not a name it defines
    names = [{str(x) for x in e.free_symbols} if isinstance(e, sympy.Basic) else set() for e in (s.lhs, s.rhs)]
    bases = [{_base(n) for n in side} for side in names]
    text = _no_subscripts(_UNWRAP.sub(r"\1", before))
    if not any(_written(_base(n), text, plain=False) for side in names for n in side if _base(n)):
        return []  # a step that opens the derivation: its names are what it is about
    fresh = []
    for side, other in ((names[0], bases[1]), (names[1], bases[0])):
        for name in side:
            base = _base(name)
            if base and base not in other and not _written(base, text, plain=name == base):
                fresh.append("\\" + base if len(base) > 1 else base)
    return sorted(set(fresh))


def lone_undefined(s: AuditStep, text: str, scope: Scope, inferred: Collection[str] = ()) -> list[str]:
    r"""The names of a refuted step the document never defines, each on one side only, its letter not on the other
    side (``L / \lambda_d = L / (2 \pi b'^{2d/|D|})``, ``\exp(\mathbf{0}) = \mathbf{I}``), or labelled by a
    letter the step uses nowhere else (``a \cdot b = a_l \cdot b_l + a_u \cdot b_u``), or numbered beside the
    whole name (``\langle q, k \rangle = q_1 k_1 + q_2 k_2``: q_1 may be an entry of q): read as free numbers, a
    counterexample gives them values the text never meant; the step may state their value, or what the prose
    says they are. Variables stay: positions and indices (integer names), names whose domain the document
    declares, names its definitions use (a base, a position), names a definition brought into the step (only
    names the step writes count); where the other side is a number, only a side that is the name alone counts
    (``1 = I``; ``a - b = 0`` is about a and b). ``inferred``: names complex only because the text conjugates them
    (``\overline{z_k}``), a domain that says nothing of what the name is, so they may still be lone."""
    if isinstance(s.lhs, MatrixBase) or isinstance(s.rhs, MatrixBase):
        return []  # an entry of a matrix written out is what the step computes, not a name it defines
    sides = [
        {x for x in e.free_symbols if isinstance(x, sympy.Symbol)} if isinstance(e, sympy.Basic) else set()
        for e in (s.lhs, s.rhs)
    ]
    names = [{str(x) for x in side} for side in sides]
    written = _no_subscripts(_UNWRAP.sub(r"\1", text))
    used = _definition_names(scope, range(s.line, max(s.end_line, s.line) + 1), s.lhs)
    lone: list[sympy.Symbol] = []
    for side, other, whole in ((sides[0], names[1], s.lhs), (sides[1], names[0], s.rhs)):
        bases = {_base(n) or n for n in other}
        for x in side:
            name = str(x)
            declared = domain_key(name) in scope.domains and domain_key(name) not in inferred
            if name in other or x.is_integer or declared or scope.defines(name):
                continue
            if name in used or not _base(name) or not _written(_base(name), written, plain=False):
                continue  # a variable of the document's definitions, or brought in by one the step uses
            if not other and whole != x:
                continue  # a - b = 0: a statement about every name in it
            labelled = _label_only(name, " ".join((names[0] | names[1]) - {name})) and _base(name) in other
            entry = re.fullmatch(r"([A-Za-z]+)_\{\d+\}", name)  # q_1 beside q: an entry of the vector q, maybe
            vector = entry.group(1) if entry is not None else ""
            whole_written = vector in names[0] | names[1] and not scope.defines(vector)
            if (_base(name) or name) not in bases or labelled or whole_written:
                lone.append(x)
    return sorted(str(x) for x in lone) if lone and _refuted_through(s, set(lone)) else []


def member_at_valued_index(s: AuditStep, valued: Callable[[str], bool]) -> tuple[str, str] | None:
    r"""A member of a family the step writes twice (``W_{k}`` beside ``W_{1}``) whose subscript holds a name with a
    value in the document (``k = 1``, or a definition not read), and that name; None where there is none. The
    reader reads each member as a symbol of its own, never putting the name's value in the subscript: the two may
    be one (``W_k = W_1`` where k = 1), so a counterexample that gives them different values refutes nothing."""
    groups: dict[str, set[str]] = {}
    for e in (s.lhs, s.rhs):
        for x in e.free_symbols if isinstance(e, sympy.Basic) else ():
            m = re.fullmatch(r"(.+?)_\{(.+)\}", str(x))
            if m is not None:
                groups.setdefault(m.group(1), set()).add(m.group(2))
    for base, subs in sorted(groups.items()):
        for sub in sorted(subs) if len(subs) >= 2 else ():
            for letter in re.findall(r"[A-Za-z]+", sub):
                if valued(letter):
                    return f"{base}_{{{sub}}}", letter
    return None


def _label_only(name: str, rest: str) -> bool:
    r"""Whether ``name`` is a letter labelled by letters the rest of the step uses nowhere as names: ``a_{l}``,
    ``q_{ab}`` (read ``q_{a*b}``), ``q_{a,b}``, or a word (``q_{\text{new}}``, read ``q_new``)."""
    label = re.fullmatch(r"[A-Za-z]+_(?:\{([A-Za-z](?:[*,][A-Za-z])*)\}|([A-Za-z]{2,}))", name)
    if label is None:
        return False
    letters = re.findall(r"[A-Za-z]", label.group(1) or "")
    return not any(re.search(rf"(?<![A-Za-z{{*,]){x}(?![A-Za-z}}*,])", rest) for x in letters)


def _refuted_through(s: AuditStep, lone: set[sympy.Symbol]) -> bool:
    """Whether the counterexample refutes the step only through values of ``lone``: with the other names at
    their values, the difference still depends on them, or vanishes (``q^T R((m+t)θ)^T R((n+t)θ) k = ...``,
    where t cancels on its own side, stays refuted)."""
    cx = s.counterexample
    if cx is None or not isinstance(s.lhs, sympy.Basic) or not isinstance(s.rhs, sympy.Basic):
        return True
    fixed = {k: sympy.sympify(v) for k, v in cx.values.items() if k not in lone}
    try:
        diff = sympy.expand_trig((s.lhs - s.rhs).subs(fixed))
        if sympy.count_ops(diff) > 400:
            return True
        diff = sympy.simplify(diff)
    except (TypeError, ValueError, AttributeError, AssertionError, RecursionError):  # SymPy's powsimp may assert
        return True
    return diff == 0 or bool(diff.free_symbols & lone)


def _definition_names(scope: Scope, lines: range, opening: object) -> set[str]:
    r"""The names the document's definitions use, in their bodies or as their parameters; not the definition
    that opens the step's own chain, on its lines with the step's left side its value (``r(d) = L / \lambda_d =
    ...``)."""
    out: set[str] = set()
    for table in (scope.symbols, scope.patterns, scope.functions):
        for d in table.values():
            if d.line in lines and d.body == opening:
                continue
            out |= {str(p) for p in d.params}
            if isinstance(d.body, (sympy.Basic, MatrixBase)):
                out |= {str(x) for x in d.body.free_symbols}
    return out


def _base(name: str) -> str:
    """The letter a name is written with (``q_m^{(1)}`` -> q, ``beta`` -> beta); "" for any other name."""
    m = re.match(r"([A-Za-z]+)(?=$|[_^{])", name)
    if m is None or (len(m.group(1)) > 1 and m.group(1) not in GREEK):
        return ""
    return m.group(1)


def _written(base: str, text: str, *, plain: bool) -> bool:
    """Whether ``text`` writes the letter ``base`` (``k``, ``\\beta``): with no subscript where ``plain``."""
    rx = rf"\\{base}(?![A-Za-z])" if len(base) > 1 else rf"(?<![A-Za-z\\_]){base}(?![A-Za-z])"
    return re.search(rx + (r"(?!\s*_)" if plain else ""), text) is not None


def _no_subscripts(text: str) -> str:
    """``text`` with each subscript cut to its ``_`` (``f_{\\{q,k\\}}`` -> ``f_``): a letter there labels a name,
    unless the subscript computes with it (``R_{n-m}``)."""
    out, at = [], 0
    for m in re.finditer(r"_\s*", text):
        if m.start() < at:
            continue
        out.append(text[at : m.end()])
        at = m.end()
        if text.startswith("{", at):
            depth, end = 0, len(text)
            for k in range(at, len(text)):
                depth += {"{": 1, "}": -1}.get(text[k], 0)
                if depth == 0:
                    end = k + 1
                    break
            if re.search(r"[-+]", text[at:end]):  # R_{n-m}: positions, values the text writes
                out.append(text[at:end])
            at = end
        else:
            cmd = re.match(r"\\[A-Za-z]+|.", text[at:], re.S)
            at += len(cmd.group(0)) if cmd else 0
    return "".join(out) + text[at:]


#: ``\\boldsymbol{q}``, ``\\mathbf{v}``: the letter, so that its subscript follows it
_UNWRAP = re.compile(r"\\(?:boldsymbol|mathbf|bm|vec|mathit|mathrm)\s*\{\s*(\\?[A-Za-z]+)\s*\}")


def negative_under_root(s: AuditStep) -> str:
    """The base of a root (``\\sqrt{d_h}``, any power to a fraction), or the argument of a log, of a name that a
    REFUTED step's counterexample makes negative (or 0, in a log), as text; "" where there is none. A text that
    writes the root or the log of a name means a real one (of a size, a scale): a counterexample with an imaginary
    root or log refutes the reader's default, not the text (:func:`..readers.default_doubts.negative_under_root_at`)."""
    cx = s.counterexample
    if cx is None or not cx.values:
        return ""
    return negative_under_root_at(s.lhs, s.rhs, cx.values)


def refuted_with(s: AuditStep) -> list[str]:
    """The names a REFUTED step's counterexample gives values, by name."""
    return sorted(str(k) for k in (s.counterexample.values if s.counterexample is not None else {}))


def open_range_why(s: AuditStep) -> str:
    """Why a step refuted with sums over ranges it does not write (``\\sum_j``, see :mod:`..readers.open_sums`) is
    not refuted: the counterexample's range may not be the one the text means; "" where there is no such sum or
    the step is false over every range."""
    letters = open_range_names(s.lhs, s.rhs)
    values = s.counterexample.values if s.counterexample is not None else {}
    if not letters or false_over_every_range(s.lhs, s.rhs, values):
        return ""
    return (
        f"sums over {', '.join(letters)} with no range (or no lower end) written, and is refuted only over a range "
        "the text may not mean: not refuted"
    )


def unit_j(s: AuditStep, text: str) -> str:
    """Why a step refuted with ``j`` a real number is not refuted: j stands in an exponent of e, where it may be
    the imaginary unit (the sides were read with j real, so they cannot be checked again at j = i); "" where
    the counterexample gives j no value or j stands in no exponent."""
    cx = s.counterexample
    if cx is None or not j_in_exponent(text, cx.values):
        return ""
    return (
        "refuted with j a real number, but j stands in an exponent of e, where it may be the imaginary unit "
        "(as engineers write it): not refuted"
    )


def exact_decimals_equal(left: str, right: str, scope: Scope) -> bool:
    """Whether a step with decimals, refuted as read (decimals are binary floats, so ``(10^{20} + 0.3) - 10^{20}``
    loses the 0.3), has equal sides once every decimal is read as the exact fraction it writes (``3/10``): then
    the refutation came from the reading, not the text."""
    if decimal_places(left) is None and decimal_places(right) is None:
        return False
    a, b = (read_quiet(decimals_as_fractions(t), scope) for t in (left, right))
    if not isinstance(a, sympy.Basic) or not isinstance(b, sympy.Basic) or a.has(sympy.Float) or b.has(sympy.Float):
        return False
    try:
        return sympy.simplify(a - b) == 0
    except (TypeError, ValueError, AttributeError, RecursionError):
        return False
