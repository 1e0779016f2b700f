"""Auditing a derivation: every step of every display equation of a Markdown or LaTeX document, decided.

The :class:`Auditor` takes the chains :func:`.run.audit_document` reads from the document's math
(:mod:`.document`), cuts each chain ``A = B = C`` into the steps ``A = B`` and ``B = C``, carries what the
document defines into later steps, and decides each step with the claim checker's decision procedure
(:func:`ropecheck.symbolic.engine.decide.decide`):

* **PROVED** -- a rewrite reduced the difference of the two sides to exactly 0;
* **REFUTED** -- exact values at which the two sides differ, checked in exact arithmetic or
  certified at 50 digits;
* **UNDECIDED** -- neither (also: a limit of :mod:`ropecheck.symbolic.readers.limits` or the
  step's time limit was reached);
* **UNREAD** -- the reader could not read the step (with why): it is never REFUTED.

**Definitions.** The first link of a chain is a definition when it is a name, a subscripted
name or a function of names the document has not defined yet, and its right side does not
use it (or the relation is ``:=``, ``\\triangleq``, ``\\equiv``): ``q = q^{(1)} + i q^{(2)}``,
``\\theta_i = 10000^{-2(i-1)/d}`` (then ``\\theta_1`` and ``\\theta_{i+1}`` are the formula at 1 and
i+1), ``R_m = \\begin{pmatrix} ... \\end{pmatrix}``, ``f_q(x_m, m) = (W_q x_m) e^{i m\\theta}``. Later
steps read the defined names as their definitions; inline math (``$ ... $``) may define names
and declare domains too (``Let $q, k \\in \\mathbb{C}$``), but only display math is audited
(and an equality a sentence states between two inline formulas, ``So $A$ equals $B$.``).
A definition whose right side is not real makes its name complex (the domains list says so).

**Domains.** Names are real unless declared (flags, or math such as ``q, k \\in \\mathbb{C}``)
or written conjugated anywhere in the document (``\\bar q``, ``q^*``: complex, "inferred");
``m`` and ``n``, the positions, are integers unless declared otherwise. A step true for every
complex (or real) value is true for the restricted ones, so these defaults never refute a
correct step; each step lists the domains it was decided under. A name a document uses for a
vector or matrix without defining it is read as a number: a step true for matrices is true
for numbers, and a transpose of such a name is UNREAD, never guessed.

**Readings.** Where a step reads more than one way, every reading is decided: PROVED when
one of them is, REFUTED only when every reading is. A trig argument without parentheses
(``\\cos m\\theta\\, x_1``, ``\\cos(m-n)\\theta``) is read as a person and as SymPy's parser
would; an inner product of complex values as the real one (the default) and as
``sum u_i conj(v_i)`` and ``sum conj(u_i) v_i``.

Design constraints: every definition and step is read and decided in a forked child
(:func:`ropecheck.isolate.run_isolated`) bounded by ``timeout`` seconds and ``memory_limit``
bytes -- a step past them is UNDECIDED, naming the limit -- and the whole audit by a document
time limit, past which every step left is UNDECIDED ("document time limit reached"); the
audit itself never raises on a document's content. A call a child made before with the same
arguments is answered with what that child returned (:mod:`ropecheck.symbolic.engine.memo`).
Results are data (:class:`AuditResult`); rendering is :mod:`.render`.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import sympy
from sympy import MatrixBase
from sympy.core.function import AppliedUndef

from ... import isolate
from ...errors import RopeCheckError
from ..engine import memo
from ..readers.complex_forms import said_by_form
from ..readers.components import without_components
from ..readers.decorated_names import undefined_decorations
from ..readers.decorated_plain import as_own_name, decorated_beside_plain
from ..readers.decorated_values import alias_word, expansion_alias
from ..readers.decorations import apply_aliases, decorated_alias, is_entry
from ..readers.general_matrices import DIMENSION
from ..readers.latex_syntax import (
    calligraphic_as_names,
    family_key,
    normalize_latex,
)
from ..readers.latex_text import Src, top_level
from ..readers.latex_tree import remember_parse
from ..readers.limits import CLAIM_TIMEOUT
from ..readers.scope import (
    Definition,
    Scope,
    describe_domains,
    domain_key,
    merge_domains,
)
from ..readers.written_norms import polar_note
from .approx import approx_in_child, approx_use_in_child, approx_value_in_child
from .block_families import BlockFamily, dotted_family, family_in_child
from .blocks import (
    BlockStep,
    OpenVector,
    block_step,
    blockwise,
    index_letters,
    names_open_vector,
    open_vector_definition,
    written_block,
)
from .colon_sides import named_on_right
from .complex_pairs import column_after_number, paired_name, stated_pair
from .document import Chain, Link
from .doubts import (
    arrow_and_bare_why,
    dot_of_conjugated,
    exact_decimals_equal,
    expectation_doubt,
    fresh_one_side,
    lone_labels_why,
    lone_undefined,
    member_at_valued_index,
    negative_under_root,
    open_range_why,
    refuted_with,
    unit_j,
)
from .equal_expectations import equal_expectations, expectations_said
from .example_values import COLUMN_EXAMPLE_TAIL, example_taint, is_example_taint, refuted_at_example
from .families import brace_names, define_family_in_child, family_head
from .family_names import family_name, raised_families, raised_sibling, without_raised
from .general import GENERAL_READING, VECTOR_PROBLEM, all_read_as_general, any_column_scopes
from .glued_calls import calls_with, glued_call_head, lists_nothing
from .implied_bounds import implication_in_child
from .inequality import INEQUALITIES, inequality_in_child
from .inline_conditions import (
    CONDITION_TAINT,
    MATRIX_TAIL,
    case_outcome,
    cases_said,
    condition_taint,
    conditional_column,
    restored_values,
    unsettled_kind,
    without_values,
)
from .introduced_names import introduced_value, section_extent
from .kept_bounds import within_bounds_in_child
from .label_families import label_definitions, position_renamed
from .label_uses import family_bases, index_arithmetic, subscript_count, without_family_members, without_label_uses
from .labelled_heads import labelled_call_head, labelled_call_step
from .multiplied_values import MultipliedValue, members_at_own_subscript, multiplied_in_child
from .named_product import define_named_product
from .names import (
    bind_late_calls,
    bind_late_entries,
    bracket_part_head,
    decorated_head,
    entry_of,
    false_for_every_value,
    glued_head,
    norm_beside_name,
    norm_of_family,
    operator_head,
    optimum_head,
    renewed_calls,
    value_of_entry,
    without_membership,
    without_set_labels,
    word_call_head,
)
from .notation_doubts import (
    bound_i_beside_unit,
    called_and_bare,
    i_given_value,
    raised_e_with_value,
    spaced_numbers,
    starred_with_value,
    unbased_logs,
    valued_i,
    with_i_as,
    with_index_renamed,
    with_log_base,
    without_spaced_number,
)
from .open_diagonals import diagonal_name
from .parity_calls import (
    ParityDefinition,
    cased_halves,
    merged,
    parity_call_rx,
    parity_half_in_child,
    parity_head,
    parity_step_scope,
    parity_twin,
    restated_half,
    used_before,
)
from .patterns import unread_for_dots
from .placeholders import PlaceholderSide, fill_placeholders
from .polar_forms import StatedPolar, polar_scope, refuted_polar_doubt, stated_polar
from .posed_functions import PosedCall, writes
from .posed_requirements import Requirement, Through, posed_requirement, read_through
from .premises import Premise, premise_in_child, premises_for
from .primed_names import prime_read_otherwise
from .primed_steps import point_names, primed_step, values_of_defined
from .proportional import as_proportion
from .quotients_stated import ZERO_DENOMINATOR, zero_under_stated_in_child
from .raised_members import covered_by_reading, raised_in_child
from .raised_t import raised_t_doubt
from .reading import (
    BOUNDING_RELATIONS,
    FUNCTION_COMMANDS,
    REFUTED_AT_THE_VALUE,
    TAINTING_RELATIONS,
    UNREAD_DEFINING,
    at_values_in_child,
    values_meant,
)
from .reading import Head as _Head
from .reading import Outcome as _Outcome
from .reading import bare_of_sequence as _bare_of_sequence
from .reading import bare_product as _bare_product
from .reading import bind_late as _bind_late
from .reading import closed_number as _closed_number
from .reading import decimal_places as _decimal_places
from .reading import define_in_child as _define_in_child
from .reading import family_member as _family_member
from .reading import general_in_child as _general_in_child
from .reading import has_function as _has_function
from .reading import head as _head
from .reading import is_defined as _defined
from .reading import mentions as _mentions
from .reading import qualifier as _qualifier
from .reading import read_quiet as _read_quiet
from .reading import redefines as _redefines
from .reading import set_body as _set_body
from .reading import step_in_child as _step_in_child
from .recurrences import names_itself, own_calls
from .redeclared import redeclared
from .restated import restated_in_child
from .result import (
    AUDIT_DEFAULT_DOMAINS,
    DIMENSION_DEFAULTS,
    DOCUMENT_TIME_LIMIT_REASON,
    LIMIT_TAINT,
    UNREAD,
    AuditDefinition,
    AuditResult,
    AuditStep,
    limit_reached,
    unread_reason_key,
)
from .sections import in_force
from .solution_forms import OFFSET_ONLY, SOLVED_REASON, solution_form
from .spelled_definitions import as_defined, defined_said, redefined_since, restated_said
from .stated_before import broken_in_child, statements_to_check
from .stated_signs import keeps_bound, positive_from_bound, said_bound, section_end, sign_note
from .tends import limit_in_child
from .transpose_premises import transpose_premises, transposed_in_child
from .under_stated import decide_under_stated_in_child
from .units import number_with_unit
from .unknowns import COLUMN, lists_members, own_entries, shifted_free, unknown_values, without_members
from .wanted import asks_for, states_existence
from .where_after import with_where_after
from .written import written_use_in_child
from .written_quotients import written_denominators

__all__ = [
    "AUDIT_DEFAULT_DOMAINS",
    "STEP_TIMEOUT",
    "DOCUMENT_TIMEOUT",
    "DOCUMENT_TIME_LIMIT_REASON",
    "AuditDefinition",
    "AuditResult",
    "AuditStep",
    "Auditor",
    "unread_reason_key",
]

#: The time limit of one step, in seconds (the claim checker's).
STEP_TIMEOUT = CLAIM_TIMEOUT
#: The time limit of a whole document, in seconds: a derivation of a few hundred steps takes under a
#: minute; past this the remaining steps are UNDECIDED with :data:`DOCUMENT_TIME_LIMIT_REASON`.
DOCUMENT_TIMEOUT = 600.0
_DEFINING = (":=", "\\coloneqq", "\\triangleq", "\\equiv")
#: the relations that state an equation by definition: one that defines no new name is still a premise
_STATED_AS_DEFINED = (":=", "\\coloneqq", "\\triangleq")
#: a name a brace gives (``R_i(k)``, ``M``, ``R_{i}``): one letter, a simple subscript, arguments in brackets
_BRACE_NAME = re.compile(
    r"^(?:[A-Za-z]|\\mathrm\{cal[A-Z]\})(?:_(?:\{[A-Za-z0-9]+\}|[A-Za-z0-9]))?(?:\s*\([A-Za-z, ]+\))?$"
)
#: the identity matrix as documents write it: ``I``, ``\mathbf{I}`` (read as ``I``), ``I_d``
_IDENTITY = re.compile(r"I(?:\s*_\s*\{?\s*[dn]\s*\}?)?")
#: the relations a requirement may pose: an equation, or a bound the text asks for (a sum that must stay ≥ 0)
_POSED_RELATION = re.compile(r"=|\\[lg]eq?|\\[lg]t")
#: the relation a condition word poses ("when", "取": before a bound, "take the absolute value" claims it)
_POSED_EQUATION = re.compile("=")
#: where a set's first member ends: ``,``, or the ``:``, ``|``, ``\mid`` of ``\{x : i \in [d/2]\}``
_MEMBER_END = re.compile(r",|:(?!=)|\\mid(?![A-Za-z])|\\colon(?![A-Za-z])|(?<!\\)\|")


#: the readers of a left side a definition in words names, in the order tried, each with what its note says
_WORDED_HEADS = (
    (operator_head, "an upright word in front of a bracket: what an operator does, not read"),
    (word_call_head, "a word in italics called on names: a function defined in words, not read"),
    (
        labelled_call_head,
        "a function named by a word (set upright, or raised on a letter: a label, never a power), called: a function "
        "defined in words, not read",
    ),
)


# --------------------------------------------------------------------------- the audit


def _run(fn: Callable[..., _Outcome], *args: Any, timeout: float | None, memory_limit: int | None) -> _Outcome:
    if (timeout is None and memory_limit is None) or not isolate.available():
        try:
            return fn(*args)
        except RopeCheckError as exc:
            return _Outcome(UNREAD, reason=str(exc))
    called = memo.key(fn, args, memory_limit)  # a step decided before (a twin's, another reading's) is not again
    kept = memo.known(called, timeout)
    if kept is not None:
        return kept  # type: ignore[no-any-return]
    # the audit's own SymPy code, which starts no process: one child answers call after call, keeping its caches
    outcome = isolate.run_warm(fn, *args, timeout=timeout, memory_limit=memory_limit, on_message=_keep_parse)
    if outcome.ok:
        value: _Outcome = outcome.value
        memo.keep(called, value, outcome.seconds)
        return value
    read = [m[1:] for m in outcome.messages if isinstance(m, tuple) and m and m[0] == "read"]
    sides = read[0] if read else (None, None)
    if outcome.status == "timeout":
        return _Outcome("UNDECIDED", reason=f"time limit of {timeout:g} s reached", lhs=sides[0], rhs=sides[1])
    if outcome.status == "memory":
        return _Outcome("UNDECIDED", reason="memory limit reached", lhs=sides[0], rhs=sides[1])
    if outcome.status == "raised" and outcome.error_type in ("UsageError",):
        return _Outcome(UNREAD, reason=outcome.error or "")
    return _Outcome("UNDECIDED", reason=isolate.describe_outcome(outcome, "the decision"), lhs=sides[0], rhs=sides[1])


#: a matrix drawn with several columns (a ``&`` in a matrix environment), or a list of its diagonal or its blocks
_DRAWN_MATRIX = re.compile(
    r"\\begin\s*\{[bpBvV]?matrix\}(?:(?!\\end)[^&])*?&|\\(?:operatorname|mathrm|text|textrm)\s*\{\s*(?:block)?diag\w*\s*\}"
)


def _unread_why(link: Link, reason: str) -> str:
    """Why a name whose definition at ``link`` was not read has no value: the text, or a limit of this run (said)."""
    if limit_reached(reason):
        return f"whose definition (line {link.line}) was {LIMIT_TAINT} ({reason})"
    return f"whose definition (line {link.line}) could not be read"


#: why a family drawn open-ended gives a step no value: its size is not written (:meth:`Auditor.define_open_family`)
OPEN_FAMILY = "draws it open-ended, its size not written"


def _frees(taint: str) -> bool:
    """Whether a taint leaves the name any value: given one only in a condition, or only as an example."""
    return CONDITION_TAINT in taint or is_example_taint(taint)


def _tainted_status(taint: str) -> str:
    """A step that uses a name without a value: UNREAD, or UNDECIDED where a limit of this run, not the text, left
    the name without one (the same text read with more time may decide it), or where the name is a family drawn
    open-ended (read, but its size, which the step may need, is not written)."""
    return "UNDECIDED" if LIMIT_TAINT in taint or OPEN_FAMILY in taint else UNREAD


def _keep_parse(message: Any) -> None:
    """A child's parse of a piece of LaTeX, kept here so that later children need not parse it again."""
    if isinstance(message, tuple) and len(message) == 3 and message[0] == "parsed":
        remember_parse(message[1], message[2])


#: why a step refuted through the norm of a bare letter whose family the document defines is not (``\|q\|``)
_FAMILY_NORM_DOUBT = (
    "reads the norm {} as a name of its own, where the document defines a family of that letter: it may be the norm "
    "of a member, whose value it does not carry, so it is not refuted"
)
#: why a step with ``\cdot`` between names the document conjugates is not refuted
_DOT_OF_CONJUGATED = (
    "\\cdot between names the document conjugates may be the dot product of the 2-vectors they stand for "
    "(Re(a* b)), not their product: not refuted"
)
#: why a step whose sides differ only with its decimals read in binary is not refuted
_EXACT_DECIMALS_EQUAL = (
    "read with its decimals as binary numbers the sides differ, but with each decimal read as the exact fraction it "
    "writes (0.3 as 3/10) they are equal: not refuted"
)


def _lone_why(lone: list[str]) -> str:
    """Why a step refuted through names the document never defines, on one side only, is not refuted."""
    return (
        f"{', '.join(lone)}, which the document never defines, {'is' if len(lone) == 1 else 'are'} on one "
        "side only: read as free numbers, the counterexample gives values the text may not mean (the step "
        "may state their value, the prose say what they are, or they be the entries of a vector the step "
        "writes whole), so it refutes nothing"
    )


#: a list of values that ends with dots (``1, 2, \\dots``): every value from the first on
_OPEN_LIST = re.compile(r",\s*(?:\\[lc]?dots[cb]?|\.\.\.|\u2026)\s*[.,;]?\s*$")


@dataclass
class Auditor:
    path: str
    scope: Scope
    declared: dict[str, str]
    timeout: float | None
    memory_limit: int | None
    progress: Callable[[AuditStep, int], None] | None
    deadline: float | None = None  # time.monotonic() at which the document's time limit is reached
    inferred: dict[str, str] = field(default_factory=dict)  # a name written conjugated -> how it was written
    steps: list[AuditStep] = field(default_factory=list)
    definitions: list[AuditDefinition] = field(default_factory=list)
    unread: list[tuple[_Head, Link, str]] = field(default_factory=list)  # names steps must not use, and why
    bounded: list[tuple[_Head, Link]] = field(default_factory=list)  # names only bounded (x \ge 0)
    ahead: list[tuple[_Head, Link]] = field(default_factory=list)  # names the display defines further on
    ahead_bounds: dict[int, str] = field(default_factory=dict)  # of those, the ones only bounded: index -> c > 1
    conditions: list[AuditDefinition] = field(default_factory=list)
    #: a family of glued names (PE, v^{(i)}) -> its first name and the display that defined it
    glued: dict[str, tuple[str, int]] = field(default_factory=dict)
    block: int = 0  # the display being read
    #: names given only with \approx as decimals: their symbol, the numbers written, the digits of each
    approx: dict[_Head, tuple[Any, Any, tuple[int, ...]]] = field(default_factory=dict)
    audited_now: bool = False  # whether the chain being read is display math (its definitions are listed)
    premises: list[Premise] = field(default_factory=list)  # the steps so far, PROVED or UNDECIDED
    #: every equation the document wrote so far (inline or display, read or not), and how many precede this chain
    stated: list[Premise] = field(default_factory=list)
    stated_upto: int = 0
    #: the document's math, block by block (inline and display); those before ``block`` come before the step
    math_texts: list[str] = field(default_factory=list)
    math_places: list[tuple[int, str]] = field(default_factory=list)  # each math text's line and kind
    setting: tuple[int, int] | None = None  # the inline math being read sets values for its section: (line, end)
    example: bool = False  # the inline math being read is opened as an example ("for instance, take $b = a$")
    hedged: bool = False  # the math being read stands in a sentence that poses a case or a falsehood ("if $k > 1$")
    #: the word that poses the inline math being read as a condition ("当 $b = [...]$ 时", "if $b = ...$"), or ""
    inline_condition: str = ""
    introducing: bool = False  # the inline math being read follows "let", "设", "令" (see :mod:`.introduced_names`)
    #: the names "let $d = 2k$" introduced, each with the end of its section (None: the document's) and definition
    introduced_ends: list[tuple[str, int | None, Definition]] = field(default_factory=list)
    #: the names such conditions gave a column, each with why, the end of the condition's section and the scope
    #: before it (see :meth:`end_conditions`)
    condition_ends: list[tuple[_Head, str, int, Scope]] = field(default_factory=list)
    #: names the words make complex only as a case ("if $z$ is complex"), by domain key, with the line of the words
    cased_complex: dict[str, int] = field(default_factory=dict)
    #: names the prose calls whole numbers ("for an integer $k$"), by domain key, with the line of the words
    worded_integers: dict[str, int] = field(default_factory=dict)
    #: names the words made complex in a section that has ended (see :mod:`.worded_sections`): read both ways too
    complex_ended: dict[str, int] = field(default_factory=dict)
    #: the document's headings and their levels; the line at which a stated sign's section ends, by domain key
    heading_levels: list[tuple[int, int]] = field(default_factory=list)
    sign_ends: dict[str, int] = field(default_factory=dict)
    #: the supposition's math the display being read is given as a consequence of (see :mod:`.supposed_displays`)
    supposed: str = ""
    #: equations stated before whose supposition ended (see :mod:`.supposition_ends`): they prove nothing, and why
    unsupposed: dict[tuple[int, str, str], str] = field(default_factory=dict)
    #: equations stated before that are not in force for the display being read ("for any $x, y$" before it)
    generalised: frozenset[tuple[int, str, str]] = frozenset()
    #: names a section sets a value for (see :mod:`.sections`): the value's line and the section's end
    settings: dict[str, tuple[int, int]] = field(default_factory=dict)
    open_vectors: dict[str, OpenVector] = field(default_factory=dict)  # vectors of blocks by their base (PE)
    #: a family first defined as a call of a function not defined then (q_m = f_q(x_m, m)), by its pattern's key
    called_families: dict[str, Definition] = field(default_factory=dict)
    #: names defined (not read) as the list of their own members (x = [x_1, ..., x_m]): x_2 is a name of its own
    listing: set[_Head] = field(default_factory=set)
    #: taints (name, line, why) of bare names whose unread value is arithmetic of indices (k = j - i): a number
    numbers_unread: set[tuple[_Head, int, str]] = field(default_factory=set)
    #: the right side of each definition not read, as written, by its line and name (one in passing is not listed)
    unread_bodies: dict[tuple[int, str], str] = field(default_factory=dict)
    #: definitions not read that stopped at a vector never written out (k_n = R(n\theta) k), by their name and line
    multiplied: dict[tuple[_Head, int], MultipliedValue] = field(default_factory=dict)
    #: the inequality step just read (its display, its sides, its scope) while it is PROVED or UNDECIDED
    row_above: tuple[int, Link, Link, Scope] | None = None
    #: names whose defining chain ends in decimals (k_3 = R_3 v = [0.1759, ...]): their symbol, the decimals, the line
    written: dict[_Head, tuple[Any, Any, int]] = field(default_factory=dict)
    #: the functions the display being read poses, by the words its conditions list them with (:mod:`.posed_functions`)
    posed_calls: dict[str, PosedCall] = field(default_factory=dict)
    #: the requirements that pose a function on one side (:mod:`.posed_requirements`), by the function's key
    requirements: dict[str, list[Requirement]] = field(default_factory=dict)
    #: functions a condition gives a value (``g(x, y, m - n) = ...`` posed), by key, with the condition's line
    posed_values: dict[str, int] = field(default_factory=dict)
    #: why each function at a sum or difference of names that was kept a step was not read, by its line and call
    offsets_kept: dict[tuple[int, str], str] = field(default_factory=dict)
    #: names the display after the one being read defines ("where $$R_{n-m} = ...$$"): see :mod:`.where_after`
    where_after: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: names whose display definition uses a name given a value only in a condition: the body as written and its line
    spelled_bodies: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: functions at a sum or difference of names listed as definitions, their value not read: body and line by call
    offset_bodies: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: display definitions read, as written: the body, its line, and the kind and key of the definition read
    written_bodies: dict[str, tuple[str, int, str, str]] = field(default_factory=dict)
    #: limits the prose since the display before states (``\lambda \to 1``): name, value, line (see :mod:`.tends`)
    tending: list[tuple[str, str, int]] = field(default_factory=list)
    #: names a bound stated before makes positive (``k > 1``), by domain key: the bound as said, its line, the name
    signs: dict[str, tuple[str, int, _Head]] = field(default_factory=dict)
    #: the chain being read is the first inequality of a run linked by implication arrows (see :mod:`.implied_bounds`)
    implication_condition: bool = False
    #: the inequality the chain being read follows from by an implication arrow (its two sides), else None
    implied_by: tuple[Link, Link] | None = None
    #: the rows of the display that runs of implications link, by their first side (see :meth:`implication_role`)
    implications: dict[Link, tuple[str, tuple[Link, Link] | None]] = field(default_factory=dict)
    #: the names the document passes alone to a primed call (``\xi`` in ``a''(\xi)``; see :mod:`.primed_steps`)
    primed_points: dict[str, str] | None = None
    #: the polar forms steps stated (``q = \\|q\\| e^{i\\theta_q}``), by name (see :mod:`.polar_forms`)
    polar: dict[str, StatedPolar] = field(default_factory=dict)
    #: the names the step being decided reads as their stated polar forms (their norms are then their moduli)
    polar_now: frozenset[str] = frozenset()

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def limits(self) -> tuple[float | None, bool]:
        """(the time limit of the next step or definition, whether the document's limit cut it short)."""
        if self.deadline is None or self.timeout is None:
            return self.timeout, False
        left = max(self.deadline - time.monotonic(), 0.01)
        return (left, True) if left < self.timeout else (self.timeout, False)

    def declare(self, found: dict[str, str]) -> None:
        before = self.domains()
        for key in set(found) & set(self.signs):  # "$k \\in \\mathbb{R}$" after "$k > 1$": the sign is lifted
            self.lift_sign(key)
        try:
            merge_domains(self.declared, found)
        except RopeCheckError:
            return  # a document that gives one name two domains: the first stays
        self.scope = self.scope.with_domains(self.domains())
        # b^* of a b declared complex is b's conjugate: no longer also read as a real name of its own
        starred = self.scope.star_names - {k for k, v in found.items() if v == "complex"}
        if starred != self.scope.star_names:
            self.scope = replace(self.scope, star_names=starred)
        changed = {k for k, v in self.domains().items() if before.get(k, "real") != v}
        if changed:  # "z_m = q e^{i m theta} where q is complex": the definitions hold the declared q too
            self.scope = redeclared(self.scope, changed)

    def domains(self) -> dict[str, str]:
        """The positions' and sizes' defaults, then the names written conjugated (complex), then what is declared."""
        defaults = {**AUDIT_DEFAULT_DOMAINS, **DIMENSION_DEFAULTS}
        return {**defaults, **dict.fromkeys(self.inferred, "complex"), **self.declared}

    def chain(self, chain: Chain, *, audited: bool, continued: bool = False, condition: str = "") -> None:
        """Define (the first link, when it names something new) and decide the steps of one chain.

        A ``continued`` chain goes on from the display before (``$$ A = B $$ so $$ = C $$``): its first
        link is that display's last side, so it is a step, never a definition. A ``condition`` (the
        words that pose it: "when", "⇒ λ = ...") makes a one-equation chain a condition, not a step.
        """
        links = list(chain.links)
        condition = self.implication_role(chain, condition)  # a < b \implies 2a < 2b: a condition, a step given it
        if self.sign_ends:
            self.expire_signs(links[0].line)
        if self.condition_ends or self.introduced_ends:
            self.end_conditions(links[0].line)
        # ``\theta = \mathrm{atan2}(y, x) \in \mathbb{R}``: the set after the last side says where it lives; so too
        # after a side between two relations (``J = \text{diag}(s) \in \mathbb{R}^{d \times d} = [...]``): no math
        links = [links[0], *(replace(link, text=without_membership(link.text)) for link in links[1:])]
        self.stated_upto = len(self.stated)  # this chain's own equations are no statement before its steps
        self.stated += [Premise(b.line, a, b, self.scope) for a, b in zip(links, links[1:]) if b.relation == "="]
        if not continued and _set_body(links[-1]) is not None and len(links) <= 2:
            self.define_set(links[0] if len(links) == 2 else None, links[-1], audited=audited)
            return
        if len(links) == 1 and not continued:
            self.taint_unread_definition(links[0])
            if audited:  # \underbrace{M}_{R_m} v: a display that states nothing may still name M
                self.define_braced(links, audited=audited)
        if len(links) < 2 or _qualifier(links):
            return self.ranged(links)
        self.audited_now = audited
        if not continued and self.taint_relation(links):
            self.written.pop(_head(links[0].text, self.scope), None)  # type: ignore[arg-type]
            links = links[1:]
            if len(links) < 2:
                return
        if not audited and self.condition_on_column(links):
            return
        if not audited and len(links) >= 3 and self.chain_of_names(links, audited=audited):
            return
        links = self.define_last_side(links, audited=audited)
        links = define_named_product(self, links, audited=audited)  # R_m q = [...][q_0; q_1]: R_m and q named
        if len(links) < 2:
            return
        first = links[0] if continued else replace(links[0], text=without_membership(links[0].text))
        # v_{t+1}^{(j)} where the family v_{t}^{(j)} is defined: that family at t + 1, a step (found is None there)
        member = family_head(first.text) is None and _family_member(first.text, self.scope)
        member = member or names_open_vector(first.text, self.open_vectors)  # Z_{t+s} after Z_t = [...]
        # "Suppose $x + y = 1$; then $$x = 1 - y$$": what follows from the supposition, a step, not what x means
        head = _head(first.text, self.scope) if self.supposed and not continued else None
        supposed = head is not None and _mentions(head, normalize_latex(self.supposed))
        member = member or supposed
        member = member or (not continued and restated_half(first.text, self.scope) is not None)  # PE(m, k) = ...
        # "存在 P 使得 B = P D P^T": one equation posed by an existence statement is a condition on B, not its value
        member = member or (states_existence(condition) and len(links) == 2 and links[1].relation == "=")
        defines = (
            not continued
            and not member
            and (
                (len(links) == 2 and self.define_labelled(first, links[1], chain.range, audited=audited))
                or self.define_pair(first, links[1], audited=audited)  # q = [a \\ b], then q = a + ib: both kept
                or self.define_open_vector(first, links[1], audited=audited)
                or self.define_family(first, links[1], audited=audited)
                or self.define_parity(first, links[1], audited=audited)
                or self.maybe_define(first, links[1], audited=audited)
                or self.define_decorated(first, links[1], audited=audited)
                or self.define_decorated_column(first, links[1], audited=audited)
                or self.define_glued(first, links[1], audited=audited)
                or self.define_operator(first, links[1], audited=audited)
                or self.define_optimum(first, links[1], audited=audited)
                or (len(links) == 2 and self.define_glued_call(first, links[1], audited=audited))
            )
        )
        start = 1 if defines else 0
        if not defines and condition and self.posed_condition(first, links, condition, audited=audited):
            return
        if not audited:
            if defines:
                self.record_written(first, links)
            elif len(links) == 2 and links[1].relation == "=":
                self.valued_in_passing(first, links[1])
            return
        standalone = not continued and len(links) == 2 and not supposed  # posed as following, not to be solved
        links[0] = first  # diag(s) \in \mathbb{R}^{d \times d} = [...]: the set says where the side lives, no math
        filled = fill_placeholders(links[start:])
        for at, (left, right) in enumerate(zip(links[start:], links[start + 1 :])):
            if filled is not None and any(f.note or f.unread for f in filled[at : at + 2]):
                self.filled_step(left, right, (filled[at], filled[at + 1]), stated_range=chain.range)
            else:
                self.step(left, right, standalone=standalone, stated_range=chain.range)
        self.define_braced(links, audited=audited)
        if defines:
            self.record_written(first, links)

    def posed_condition(self, first: Link, links: list[Link], condition: str, *, audited: bool) -> bool:
        """A one-equation chain that ``condition`` (the words, or a function written there for the first time: see
        :mod:`.posed_functions`) poses: listed with the conditions, a premise of later steps where it asks for
        something; True when consumed (no step)."""
        relation = _POSED_RELATION if asks_for(condition) else _POSED_EQUATION  # "取绝对值并放缩": a step
        relation = _POSED_RELATION if self.implication_condition else relation  # a < b \implies 2a < 2b
        if len(links) != 2 or not relation.fullmatch(links[1].relation):
            return False
        if self.implication_condition:
            self.row_above = None  # a condition, not a row the document asserts
        call = self.posed_calls.get(condition)
        if call and not call.right and self.offsets_kept.get((first.line, first.text.strip())) != OFFSET_ONLY:
            return False  # g(x, y, m - n) = ... a body that depends on m and n otherwise too (or not read): a step
        if audited:
            why = call.reason if call else f"a condition or an equation to solve (posed by '{condition}'), not a step"
            self.conditions.append(
                AuditDefinition(first.line, first.text, "condition", links[1].text, reason=why,
                                relation=links[1].relation)
            )  # fmt: skip
        asks = call.right if call else asks_for(condition)  # a new function on the left is given a value: no premise
        if asks and links[1].relation == "=" and first.text and links[1].text:
            self.premises.append(Premise(links[1].line, first, links[1], self.scope))  # what later steps use
        if links[1].relation == "=" and first.text and links[1].text:
            self.record_requirement(first, links[1], call)
        return True

    def record_requirement(self, first: Link, second: Link, call: PosedCall | None) -> None:
        """Keep the requirement ``first = second`` where one side poses a function (:mod:`.posed_requirements`);
        a function a condition gives a value (posed on the left) is kept as such, never read through one."""
        if call is not None and not call.right:
            self.posed_values.setdefault(call.name, first.line)
            return
        found = posed_requirement(second.text, first.text, first.line, self.scope)
        found = found or posed_requirement(first.text, second.text, first.line, self.scope)
        if found is not None:
            self.requirements.setdefault(found.name, []).append(found)
            return
        for link in (first, second):  # ``g(x, y, m - n) = Re[...]`` posed in words: g given a value
            if (key := self.undefined_function(link)) is not None:
                self.posed_values.setdefault(key, first.line)

    def valued_in_passing(self, first: Link, second: Link) -> None:
        """Inline math that gives a function with no definition a value (``$g(x, y, m - n) = \\Re[...]$`` in a
        list of a solution's parts), read as neither a definition nor a step: the function has a value there, so no
        step reads it through a requirement (:mod:`.posed_requirements`)."""
        for link, other in ((first, second), (second, first)):
            key = self.undefined_function(link)
            if key is not None and not writes(key, normalize_latex(other.text)):
                self.posed_values.setdefault(key, link.line)

    def undefined_function(self, link: Link) -> str | None:
        """The key of the function ``link`` calls as its whole side, not yet defined in the document; else None."""
        h = _head(link.text, self.scope)
        return h.key if h is not None and h.kind == "function" and not _defined(h, link.text, self.scope) else None

    def usable_requirements(self) -> list[Requirement]:
        """The requirements a step may read its posed function through: one per function, posed with the same sides
        each time, and no definition in force, listed, or condition giving the function a value."""
        listed = {h.key for d in self.definitions if (h := _head(d.name, self.scope)) is not None}
        out = []
        for name, found in self.requirements.items():
            if name in listed or name in self.posed_values or self.scope.defines(name):
                continue
            if all(found[0].same(r) for r in found[1:]):
                out.append(found[0])
        return out

    def condition_on_column(self, links: list[Link]) -> bool:
        """``当 $b = [\\sqrt{\\lambda}, 0, \\cdots]^\\top$ 时``: inline math that a word poses as a condition,
        giving names a written column or matrix, is a condition, not their definition: never substituted. The names
        keep no value, not even one a definition gave them before (the condition may change it): a step that uses
        them is read with them free (:meth:`for_every_case`). A number or a name so given is an example or a
        condition read as before (True: consumed)."""
        word = self.inline_condition
        if not word or len(links) < 2 or any(x.relation != "=" for x in links[1:]):
            return False
        if not conditional_column(links[-1].text):
            return False
        heads = [(h, x) for x in links[:-1] if (h := _head(x.text, self.scope)) is not None]
        if len(heads) != len(links) - 1:
            return False
        end = section_end(self.heading_levels, links[0].line)
        for head, link in heads:
            why = condition_taint(word, link.line, links[-1].text)
            self.unread.append((head, link, why))
            self.conditions.append(
                AuditDefinition(link.line, link.text, "condition", links[-1].text, reason=f"{why}: not read")
            )
            if end is not None:
                self.condition_ends.append((head, why, end, self.scope))
        self.scope = without_values(self.scope, [h for h, _ in heads])
        return True

    def end_conditions(self, line: int) -> None:
        """The conditions whose section ended before ``line`` (the next heading of its level or above): the case
        they pose is over, so the names they gave a column are as they were before them, free or with the value a
        definition gave them then. A name defined again since keeps that definition; a name whose definition used
        one under the condition keeps its taint (it was defined in the case). So too a name "let $d = 2k$"
        introduced (:mod:`.introduced_names`): free again, where nothing defined it since."""
        for head, why, end, before in self.condition_ends:
            if end <= line and any(u[0] == head and u[2] == why for u in self.unread):
                self.unread = [u for u in self.unread if not (u[0] == head and u[2] == why)]
                self.scope = restored_values(self.scope, before, head)
        self.condition_ends = [c for c in self.condition_ends if c[2] > line]
        for name, until, d in self.introduced_ends:  # k = d/2 from "设 $d = 2k$": only up to its section's end
            if until is not None and until <= line and self.scope.symbols.get(name) is d:
                self.scope = replace(self.scope, symbols={k: v for k, v in self.scope.symbols.items() if k != name})
        self.introduced_ends = [x for x in self.introduced_ends if x[1] is None or x[1] > line]

    def define_labelled(self, first: Link, body: Link, stated_range: str, *, audited: bool) -> bool:
        """``f_{t:t\\in\\{q,k,v\\}}(x_i, i) = W_t(x_i + p_i)``: one definition per listed label, each read as any
        other definition (:mod:`.label_families`); the display is no step (True: consumed)."""
        found = label_definitions(first.text, body.text, stated_range)
        if not found or body.relation not in ("=", *_DEFINING):
            return False
        heads = [_head(left, self.scope) for _, left, _ in found]
        if any(h is not None and _defined(h, left, self.scope) for h, (_, left, _) in zip(heads, found)):
            return False  # f_{\{q,k\}}(x_m, 0) = W x_m after f_q, f_k are defined: a claim about them, read as before
        labels = ", ".join(d[0] for d in found)
        for label, left, written in found:
            said = f"stated for each of the labels {labels} (line {first.line}): read with {label} in the index's place"
            renamed = position_renamed(left, written)
            if renamed is not None:
                left, written = renamed[0], renamed[1]
                said += f"; i read as the position it takes, not the imaginary unit (written {renamed[2]} here)"
            before = len(self.definitions)
            if not self.maybe_define(replace(first, text=left), replace(body, text=written), audited=audited):
                if audited:
                    why = f"{said}; read neither as a definition nor as a step"
                    self.definitions.append(AuditDefinition(first.line, left, "?", written, reason=why))
                continue
            if len(self.definitions) > before:
                d = self.definitions[-1]
                self.definitions[-1] = replace(d, reason="; ".join(x for x in (said, d.reason) if x))
        return True

    def offsets_unread(self, head: _Head, line: tuple[Link, Link], why: str, *, audited: bool) -> bool:
        """``g(x, y, m - n) := ...`` not read: a definition (``:=`` is never a claim), listed with ``why``; the name
        stays as free as before (no taint). ``g(x, y, n - m) = ...`` read neither way stays a step (the caller),
        unless it is one of its display's set of definitions (:mod:`.solution_forms`: no premise then)."""
        link, body = line
        if audited:
            self.definitions.append(AuditDefinition(link.line, link.text, head.kind, body.text, reason=why))
            if not self.example and body.relation in ("=", *_DEFINING):  # written again later: that definition
                self.offset_bodies[link.text.strip()] = (body.text.strip(), link.line)
        if body.relation in _STATED_AS_DEFINED and link.text and body.text:
            self.premises.append(Premise(body.line, link, body, self.scope))  # still an equation later steps use
        return True

    def offsets_listed(self, head: _Head, line: tuple[Link, Link], why: str, *, explicit: bool, audited: bool) -> bool:
        """A function at a sum or difference of names whose body was not read: listed as a definition where written
        with ``:=``, or where it is one of its display's set (:meth:`solution_line`); else False, a step."""
        solved = not explicit and self.solution_line(head, line[0], why)
        if not (explicit or solved):
            self.offsets_kept[(line[0].line, line[0].text.strip())] = why  # a step, unless it poses a new function
            return False
        return self.offsets_unread(head, line, SOLVED_REASON if solved else why, audited=audited)

    def solution_line(self, head: _Head, link: Link, reason: str) -> bool:
        """Whether ``g(x, y, m - n) = ...`` defines g beside the other functions its display defines
        (:func:`.solution_forms.solution_form`)."""
        if head.kind != "function" or self.block >= len(self.math_places):
            return False
        listed = [(d.line, d.name, d.kind, d.read) for d in self.definitions]
        return solution_form(
            head.key,
            link.line,
            reason,
            display_start=self.math_places[self.block][0],
            defined=listed,
            written_before=self.used_before(head, link),
        )

    def define_last_side(self, links: list[Link], *, audited: bool) -> list[Link]:
        """``A = R(s) := C``: a chain whose last relation is ``:=`` defines its side before it (R(s) is C), then
        claims the rest (A = R(s), decided with that definition); the links before the ``:=``, else ``links``.
        ``A \\le B =: M`` defines its last side, a name (M is B), the same way (:mod:`.colon_sides`)."""
        turned = named_on_right(links, self.scope)
        if turned is not None:
            return links[:-1] if self.maybe_define(*turned, audited=audited) else links
        if len(links) < 3 or links[-1].relation not in _DEFINING:
            return links
        if any(link.relation in _DEFINING for link in links[1:-1]):
            return links
        return links[:-1] if self.maybe_define(links[-2], links[-1], audited=audited) else links

    def taint_unread_definition(self, link: Link) -> None:
        """``x \\doteq ...`` (a defining command the audit does not read): later steps must not use x."""
        m = UNREAD_DEFINING.match(link.text)
        head = _head(m.group("name"), self.scope) if m else None
        if m is not None and head is not None:
            why = f"defined with a command the audit does not read (line {link.line})"
            self.unread.append((head, Link(m.group("name").strip(), link.line), why))

    def taint_relation(self, links: list[Link]) -> bool:
        """``R_3 \\approx [...]``, ``x \\ge 0``: a bare name on the left of a relation the audit does not decide.

        An approximate value is no value: steps that use the name are not decided (never refuted with
        it as an unknown number). A bound keeps the name free, but a counterexample may break the
        bound, so a step using it is never REFUTED. A name the document introduces this way (not
        written before) is listed as a definition, not a step: returns True then, and the first link is
        dropped from the chain.
        """
        first, rel = links[0], links[1].relation
        if rel not in TAINTING_RELATIONS + BOUNDING_RELATIONS:
            return False
        head = _head(first.text, self.scope)
        if head is None or _defined(head, first.text, self.scope):
            return False
        if rel in TAINTING_RELATIONS:
            # a new name given only approximately (R_3 \approx [...]) is introduced, not asserted: a definition
            # whose value later steps do not use
            why = f"given only as {rel} (line {first.line}), not a value"
            # H_i \approx ... after H_i = ... (or after a definition that could not be read) is a claim about it
            named = _read_quiet(first.text, Scope(domains=self.scope.domains))
            written = isinstance(named, sympy.Symbol) and named.name in self.scope.symbols
            introduced = not written and not any(u[0] == head for u in self.unread)
            self.unread.append((head, first, why))
            if not introduced:
                return False
            self.read_approximation(head, first, links[1])
            return True
        self.bounded.append((head, first))
        self.sign_from_bound(head, first, links[1])
        return False

    def sign_from_bound(self, head: _Head, name: Link, bound: Link) -> None:
        """``k > 1``: the name read as positive from here on (see :mod:`.stated_signs`)."""
        if self.implication_condition or self.implied_by is not None:  # a < b \implies ...: posed, or what follows
            return
        key = positive_from_bound(name.text, bound.relation, bound.text)
        if key is None:  # k < -1 after k > 1: another case, the sign is lifted
            self.lift_sign(domain_key(name.text.strip()))
            return
        if self.hedged or key in self.declared or key in self.signs:
            return
        now = self.domains().get(key, "real")
        if now == "complex":
            return
        self.declare({key: "positive integer" if now in ("integer", "natural", "positive integer") else "positive"})
        self.signs[key] = (said_bound(name.text, bound.relation, bound.text), name.line, head)
        end = section_end(self.heading_levels, name.line)
        if end is not None:
            self.sign_ends[key] = end

    def expire_signs(self, line: int) -> None:
        """The signs whose section ended before ``line`` are lifted."""
        for key in [k for k, end in self.sign_ends.items() if end <= line]:
            self.lift_sign(key)

    def lift_sign(self, key: str) -> None:
        """The name is no longer read as positive from a stated bound (a later bound or declaration says otherwise)."""
        self.sign_ends.pop(key, None)
        if key in self.signs:
            del self.signs[key]
            self.declared.pop(key, None)
            self.scope = redeclared(self.scope.with_domains(self.domains()), {key})

    def sign_noted(self, s: AuditStep, left: Link, right: Link) -> None:
        """A PROVED step that uses a name read as positive from a stated bound says so in its reason."""
        text = normalize_latex(left.text + " = " + right.text)
        used = {key for key, (_, _, head) in self.signs.items() if _mentions(head, text)}
        sides = [e for e in (s.lhs, s.rhs) if isinstance(e, sympy.Basic)]
        if sides:  # read: the names free in what was read (a sum's own index is not the bounded name)
            used &= {domain_key(str(x)) for e in sides for x in e.free_symbols}
        note = sign_note(used, {key: (said, line) for key, (said, line, _) in self.signs.items()})
        if note:
            s.reason = f"{s.reason}; {note}" if s.reason else note

    def names_ahead(self, read: list[Chain]) -> None:
        """``A = B = \\sin(\\omega_i x) \\\\ \\omega_i = ...``: names a display defines after a step that uses them
        (an aligned list of definitions); read at the step as free numbers, they refute nothing."""
        self.ahead, self.ahead_bounds = [], {}
        for chain in read:
            first = chain.links[0]
            head = _head(first.text, self.scope) if len(chain.links) >= 2 else None
            if head is not None and not _defined(head, first.text, self.scope):
                second = chain.links[1]
                if len(chain.links) == 2 and positive_from_bound(first.text, second.relation, second.text):
                    self.ahead_bounds[len(self.ahead)] = said_bound(first.text, second.relation, second.text)
                self.ahead.append((head, first))

    def bounds_ahead(self, read: list[Chain]) -> None:
        """``\\sqrt{x^2} = x, \\quad x \\ge 0``: a bound written after a step in the same display holds for it too."""
        for chain in read:
            links = chain.links
            if len(links) == 2 and links[1].relation in BOUNDING_RELATIONS:
                head = _head(links[0].text, self.scope)
                if head is not None and not _defined(head, links[0].text, self.scope):
                    self.bounded.append((head, links[0]))

    def read_approximation(self, head: _Head, name: Link, value: Link) -> None:
        """``R_3 \\approx [0.9996 ...]``: the numbers written, kept for the steps that use the name (:mod:`.approx`)."""
        if not self.audited_now:
            return
        note = f"given only as {value.relation}: an approximate value, which later steps do not use"
        if value.relation != "\\approx":  # \propto, \sim: no value at all, whatever digits follow
            self.definitions.append(AuditDefinition(name.line, name.text, "symbol", value.text, None, "", note))
            return
        timeout, _ = self.limits()
        o = _run(approx_value_in_child, name, value, self.scope, timeout=timeout, memory_limit=self.memory_limit)
        if o.status == "DEFINED":
            self.approx[head] = (o.lhs, o.rhs, tuple(int(d) for d in o.method.split(",")))
            note = (
                f"given only as {value.relation}: known to the digits written; a step that uses it is decided only "
                "where it is off by more than their rounding can explain"
            )
        body = o.rhs if o.status == "DEFINED" else None
        self.definitions.append(AuditDefinition(name.line, name.text, "symbol", value.text, body, "", note))

    def with_approximations(self, left: Link, right: Link) -> _Outcome | None:
        """A step whose only unread names were given with ``\\approx`` as decimals, decided with them known only to
        the digits written (REFUTED or UNDECIDED; PROVED only where the sides agree whatever the rounding errors
        are); None when that does not apply."""
        text = normalize_latex(left.text + " = " + right.text)
        used = [h for h, _, _ in self.unread if _mentions(h, text)]
        if not used or any(h not in self.approx for h in used):
            return None
        symbols, units = dict(self.scope.symbols), {}
        for h in dict.fromkeys(used):
            name, value, digits = self.approx[h]
            errors = [sympy.Symbol(f"err_{{{name.name},{k}}}", real=True) for k in range(len(digits))]
            units.update({e: sympy.Rational(1, 10**d) for e, d in zip(errors, digits)})
            if isinstance(value, MatrixBase):
                body = sympy.Matrix(value.rows, value.cols, [v + e for v, e in zip(value, errors)])
            else:
                body = value + errors[0]
            symbols[name.name] = Definition("symbol", name.name, body, (), name.name)
        timeout, _ = self.limits()
        scope = replace(self.scope, symbols=symbols)
        o = _run(approx_use_in_child, left, right, scope, units, timeout=timeout, memory_limit=self.memory_limit)
        # read, and using the names: else the step stays UNREAD for the name it uses
        return o if o.status in ("PROVED", "REFUTED", "UNDECIDED") and o.lhs is not None else None

    def record_written(self, first: Link, links: list[Link]) -> None:
        """``k_3 = R_3 v = [0.1759, ...]``: a definition whose chain of equalities ends in decimals, the value the
        document writes for the name, kept for the later steps that compute with it (:mod:`.written`)."""
        head = _head(first.text, self.scope)
        if head is None:
            return
        self.written.pop(head, None)  # defined again: an earlier value written no longer holds
        if (
            head.kind != "symbol"
            or len(links) < 3
            or any(link.relation != "=" for link in links[1:])
            or not _decimal_places(links[-1].text)
        ):
            return
        timeout, _ = self.limits()
        bare = Scope(domains=self.scope.domains)  # the decimals use no name; the name is read as itself
        o = _run(approx_value_in_child, first, links[-1], bare, timeout=timeout, memory_limit=self.memory_limit)
        if o.status == "DEFINED":
            self.written[head] = (o.lhs, o.rhs, links[-1].line)

    def with_written_values(self, s: AuditStep, left: Link, right: Link) -> AuditStep:
        """A step with decimals, not decided, that uses names whose definitions end in decimals: PROVED where, with
        those names at the decimals written, both sides are the same number (:mod:`.written`); else ``s``."""
        text = normalize_latex(left.text + " = " + right.text)
        used = [h for h in self.written if _mentions(h, text, members=False)]
        if not used or not _decimal_places(text) or self.out_of_time():
            return s
        if replace(self, unread=[u for u in self.unread if u[0] not in used]).uses_unread(left, right):
            return s  # another name without a value
        symbols = dict(self.scope.symbols)
        for h in used:
            name, value, line = self.written[h]
            symbols[name.name] = Definition("symbol", name.name, value, (), name.name, line)
        timeout, _ = self.limits()
        scope = replace(self.scope, symbols=symbols)
        o = _run(written_use_in_child, left, right, scope, timeout=timeout, memory_limit=self.memory_limit)
        if o.status != "PROVED":
            return s
        named = ", ".join(f"{self.written[h][0].name} (line {self.written[h][2]})" for h in used)
        why = (
            f"read with {named} the decimals the document writes as {'its' if len(used) == 1 else 'their'} value, "
            "as the step computes with them: the sides are exactly equal (whether those decimals are right is "
            f"decided where they are written){'; without them: ' + s.reason if s.reason else ''}"
        )
        return self.outcome_step(s.number, left, right, o, why)

    def chain_of_names(self, links: list[Link], *, audited: bool) -> bool:
        """``W_q = W_k = I``: names set equal to one value. Each is defined as the value when it reads
        as one; else (``I``: a name itself) nothing is defined and the names are not values."""
        names = []
        for link in links[:-1]:
            head = _head(link.text, self.scope)
            if head is None or link.relation not in ("", "="):
                break
            names.append((head, link))
        if len(names) < 2 or len(names) != len(links) - 1:
            return False
        value = links[-1]
        if self.set_identity([link for _, link in names], value):
            return True
        value_head = _head(value.text, self.scope)
        if value_head is not None and not _defined(value_head, value.text, self.scope):
            why = f"set equal to {value.text.strip()} (line {value.line}), which the document does not define"
            for head, link in names:
                self.unread.append((head, link, why))
            return True
        for _, link in names:
            if not self.maybe_define(link, replace(value, relation="="), audited=audited):
                why = f"set equal to {value.text.strip()} (line {value.line}), read as neither a definition nor a step"
                self.unread.append((_head(link.text, self.scope) or names[0][0], link, why))
        return True

    def set_identity(self, names: list[Link], value: Link) -> bool:
        """``W_q = W_k = I``: matrices (names of one capital letter) set to the identity, in passing.

        Like a number given in passing, the identity is an example's setting, never substituted: a step
        that uses the names is decided only where it holds for every matrix they may stand for.
        """
        if not _IDENTITY.fullmatch(normalize_latex(value.text).strip()) or "I" in self.scope.symbols:
            return False
        spelled = [_read_quiet(link.text, Scope(domains=self.scope.domains)) for link in names]
        if not all(isinstance(s, sympy.Symbol) and re.match(r"[A-Z](?:_|$)", s.name) for s in spelled):
            return False
        symbols = dict(self.scope.symbols)
        for s, link in zip(spelled, names):
            symbols[s.name] = Definition(
                "symbol", s.name, sympy.Identity(DIMENSION), (), link.text, link.line, True, value.text
            )
            self.set_for_section(s.name)
        self.scope = replace(self.scope, symbols=symbols)
        return True

    def define_set(self, name: Link | None, members: Link, *, audited: bool) -> None:
        """``\\Theta = \\{\\theta_i = 10000^{-2(i-1)/d}, i = 1, ..., d/2\\}``: a set is not a value, so later steps
        that use its name are not decided; its first member, an equation, defines what it names (``\\theta_i``).
        The other members (the range of the index) define nothing."""
        if name is not None and members.relation in ("=",) + _DEFINING:
            head = _head(name.text, self.scope)
            if head is not None and not _defined(head, name.text, self.scope):
                self.unread.append((head, name, f"{_SET_TAINT} (line {name.line}), not a value"))
                if audited:
                    why = "a set, not a value: steps that use it are not decided (its first member may define a name)"
                    self.definitions.append(AuditDefinition(name.line, name.text, "set", members.text, reason=why))
        body = _set_body(members) or ""
        depth = top_level(body)
        # the first member ends at a comma, or at the bar or colon of a set written {x : i \in ...}
        cut = _MEMBER_END.search(body)
        while cut is not None and depth[cut.start()] != 0:
            cut = _MEMBER_END.search(body, cut.end())
        first = body[: cut.start() if cut is not None else len(body)]
        at = [i for i, ch in enumerate(first) if ch == "=" and depth[i] == 0 and first[i - 1 : i] not in "<>!:\\"]
        if len(at) == 1 and first[: at[0]].strip() and first[at[0] + 1 :].strip():
            lhs, rhs = Link(first[: at[0]].strip(), members.line), Link(first[at[0] + 1 :].strip(), members.line, "=")
            self.maybe_define(lhs, rhs, audited=audited)

    def not_a_new_name(self, link: Link, body: Link) -> None:
        """A definition that defines no new name is listed, not read; written with ``:=`` it still states its
        equation, a premise of later steps (``\\theta_g(q, k, m - n) := \\theta_q(q, m) - \\theta_k(k, n)``)."""
        why = "cannot define this (not a new name)"
        self.definitions.append(AuditDefinition(link.line, link.text, "?", body.text, reason=why))
        if body.relation in _STATED_AS_DEFINED and link.text and body.text:
            self.premises.append(Premise(body.line, link, body, self.scope))

    def said_of_defined(self, head: _Head, link: Link, body: Link, explicit: bool, audited: bool) -> bool | None:
        """What ``head = body`` says of a name the document already gives a value, where it is no new definition:
        False (a step: a claim about it), True (consumed: an update, not read), None (read on as a definition)."""
        if head in self.approx or values_of_defined(head, body.text, self.scope, explicit):
            return False  # S_2 = ... after S_2 \approx [...], a(y) = a(x) + ... after a(x) = ...: a claim, a step
        if (recurrence := own_calls(head, body.text, self.scope, explicit)) is not None:
            # h(m) = h(m - 1) + 2 after h(m) = 2m: an equation h satisfies (a step), or an update (not read)
            return recurrence != "step" and self.updated(head, link, body, audited=audited)
        if names_itself(head, body.text, self.scope, explicit):  # x = 2x after x = 2: never x := 4
            return self.updated(head, link, body, audited=audited)
        return None

    def maybe_define(self, link: Link, body: Link, *, audited: bool) -> bool:
        explicit = body.relation in _DEFINING or body.relation.startswith(("\\stackrel", "\\overset"))
        if body.relation != "=" and not explicit:
            return False
        head = _head(link.text, self.scope)
        if head is None and self.define_by_parts(link, body, audited=audited):
            return True
        if head is not None and (said := self.said_of_defined(head, link, body, explicit, audited)) is not None:
            return said
        again = head is not None and _redefines(head, self.scope)
        if head is None or (_defined(head, link.text, self.scope) and not again and not self.bare(head, audited)):
            if not audited and head is not None and self.pin(head, link, body):
                return True
            if explicit and audited:
                self.not_a_new_name(link, body)
                return True
            return False
        outcome = self.read_definition(head, link, body)
        if self.bare(head, audited) and not self.in_passing(outcome):
            return False  # anything else said of the bare name is ignored, as before it was read
        if head.offsets and (outcome.status != "DEFINED" or outcome.definition is None):
            return self.offsets_listed(head, (link, body), outcome.reason, explicit=explicit, audited=audited)
        if outcome.status != "DEFINED" or outcome.definition is None:
            self.not_read(head, (link, body), outcome.reason, audited=audited)
            return True
        d = outcome.definition
        if outcome.uses_head and not explicit and again and not audited and shifted_free(self.scope, head, d):
            self.settings.pop(d.name, None)  # and no longer the value its section set
            return True  # m <- m - n in passing, m a free name: still any value of its domain, so still free
        if outcome.uses_head and not explicit and again:
            return self.updated(head, link, body, audited=audited)
        if outcome.uses_head and not explicit:
            return False  # x = 2x - x: an equation about x, not a definition
        if self.taint_from_body(head, link, body, audited=audited):
            return True
        # q_m = [q_m^1 \\ q_m^2], q_i = [q_{2i}, q_{2i+1}]^T name the entries of any vector: the most general
        # value, never an example
        listed = re.sub(r"[\s{}]", "", d.name) in self.scope.components or own_entries(head, d.body, self.scope)
        if self.example and not listed and d.kind != "symbol":
            return self.define_example(head, link, body)
        if (found := self.introduced(head, link, d, explicit or again or listed or audited)) is not None:
            head, d = found  # $d = 2k$, d a size used above: k = d/2 is what it defines, d stays free
            outcome.reason = f"introduced by {link.text.strip()} = {body.text.strip()}, a name used above kept free"
        elif self.bare(head, audited) or (
            (not audited or self.example) and not listed and self.in_passing_value(head, link, d)
        ):
            # a name given a value in passing ($z_1 = 1$, position $m = 2$), another name ("substituting $m = n$"),
            # any value where earlier steps let it vary ("with $n = m - 1$"), or one the text opens "for example":
            # an example, a boundary condition or a case, not what the name means, so it is never substituted
            d = self.given_in_passing(d)
        # a new definition lifts a taint, of the name and of its entries (R_{\theta,n-m} once R_{\theta,t} is defined)
        self.unread = [u for u in self.unread if not (u[0] == head or entry_of(u[0], head))]
        self.bounded = [u for u in self.bounded if not (u[0] == head)]
        if (key := domain_key(head.key)) in self.signs and self.signs[key][2] == head:  # a value lifts the sign
            del self.signs[key]
            self.declared.pop(key, None)
            self.scope = self.scope.with_domains(self.domains())
        domain = ""
        if not isinstance(d.body, MatrixBase) and isinstance(d.body, sympy.Basic) and d.body.is_real is not True:
            domain = "complex" if d.body.is_complex or d.body.has(sympy.I) else ""
        symbols, patterns, functions = dict(self.scope.symbols), dict(self.scope.patterns), dict(self.scope.functions)
        if d.kind == "symbol" and not d.stated_value:
            for late, line in _bind_late(d, (symbols, patterns, functions)):
                why = f"whose definition (line {line}) cannot take the value of {d.name} given at line {link.line}"
                self.unread.append((late, Link(late.key, line), why))
        calls = self.called_families
        if d.kind == "pattern" and isinstance(d.body, AppliedUndef) and d.body.func.__name__ not in functions:
            calls.setdefault(d.name, d)  # q_m = f_q(x_m, m): the family is the call, whatever it is given later
        renewed, families = renewed_calls(d, (symbols, patterns, calls), self.scope.complex_pairs)
        for key in renewed:  # q_m = f_q(x_m, m), then q_{m} = W_q(x_m + p_m) as an example: f_q's body from here on
            del symbols[key]
        patterns.update(families)
        renewed += [f"{f.name}_{f.params[0]}" for f in families.values()]
        if d.kind == "function":
            bind_late_calls(d, (symbols, patterns, functions))
        bind_late_entries(d, (symbols, patterns, functions), dict(self.scope.domains))
        if listed and head.kind == "pattern" and d.kind == "symbol":
            # k_n = [k_n^1 \\ k_n^2] after k_n = f_k(x_n, n): the vector of its entries, never that family's member
            patterns.pop(head.key, None)
        {"symbol": symbols, "pattern": patterns, "function": functions}[d.kind][d.name] = d
        self.scope = replace(self.scope, symbols=symbols, patterns=patterns, functions=functions)
        if d.kind == "symbol" and domain == "complex" and not d.stated_value:  # k = k_0 + i k_1: k^* conjugates k
            self.scope = replace(self.scope, star_names=self.scope.star_names - {domain_key(d.name)})
        params = tuple(str(p) for p in d.params)
        note = "; ".join(filter(None, (f"defined again, in force from line {link.line} on" * again, outcome.reason)))
        if renewed:
            note = "; ".join(x for x in (note, f"{', '.join(renewed)} its value again from here on") if x)
        self.definitions.append(AuditDefinition(link.line, d.name, d.kind, body.text, d.body, domain, note, params))
        self.keep_written(link, body, d, audited=audited)
        return True

    def in_passing_value(self, head: _Head, link: Link, d: Definition) -> bool:
        """Whether ``d``, read from math in passing, gives a symbol a value the text means as a case or an example:
        a number, another name, a name steps above let vary, or any value in a list of examples."""
        if d.kind != "symbol":
            return False
        return (
            _closed_number(d.body) or isinstance(d.body, sympy.Symbol) or self.used_before(head, link) or self.example
        )

    def given_in_passing(self, d: Definition) -> Definition:
        """``d`` kept as a value given in passing, never substituted; a second, different one marks the name."""
        d = replace(d, stated_value=True)
        self.set_for_section(d.name)
        before = self.scope.symbols.get(d.name)
        if before is not None and before.stated_value and before.body != d.body:  # $m = 1$, later $m = 2$
            self.scope = replace(self.scope, given_again=self.scope.given_again | {d.name})
        return d

    def introduced(self, head: _Head, link: Link, d: Definition, kept: bool) -> tuple[_Head, Definition] | None:
        """``$d = 2k$`` in passing, d a name steps above use with no value, k a plain real name no math above uses
        (but as a sum's index): the head and definition of k in terms of d (see :mod:`.introduced_names`); else
        None. ``kept``: the line is read as it was (a display, ``:=``, a definition again, a vector of entries)."""
        if (
            kept
            or not self.introducing
            or self.example
            or self.inline_condition
            or d.kind != "symbol"
            or head.kind != "symbol"
            or not self.used_before(head, link)
        ):
            return None
        known = _read_quiet(link.text, self.scope)
        found = introduced_value(known, d.body, self.scope)
        new = _head(found[0], self.scope) if found is not None else None
        if found is None or new is None or new.kind != "symbol":
            return None
        math = [(at, text) for (at, _), text in zip(self.math_places, self.math_texts)]
        end = section_extent(found[0], math, self.block, self.heading_levels)
        if end == -1:
            return None
        defined = replace(d, name=found[0], body=found[1], source=found[0], body_source="")
        self.introduced_ends.append((found[0], end, defined))  # k = d/2 until its section ends
        return new, defined

    def keep_written(self, link: Link, body: Link, d: Definition, *, audited: bool) -> None:
        """A display definition of a name (not an example, nor a value in passing) kept as written, for the steps
        that write it out (:meth:`spelled_definition`) while it is in force."""
        if audited and not self.example and not d.stated_value and d.kind in ("symbol", "pattern"):
            self.written_bodies[link.text.strip()] = (body.text.strip(), link.line, d.kind, d.name)

    def updated(self, head: _Head, link: Link, body: Link, *, audited: bool) -> bool:
        """A name defined again in terms of itself: an update (x <- 2x) or an equation about x; neither a step, and
        the name keeps no value the audit reads (True: consumed)."""
        why = f"defined again in terms of itself (line {link.line}): an update or an equation, not read"
        self.unread.append((head, link, why))
        if audited:
            self.definitions.append(
                AuditDefinition(link.line, link.text, head.kind, body.text, reason=why, params=head.params)
            )
        return True

    def define_example(self, head: _Head, link: Link, body: Link) -> bool:
        """``- linear: $\\lambda_j = j$`` in a list the text opens as examples: a family or a function given a value
        only as an example keeps none, not even one it had before (see :mod:`.example_values`); a second example of
        the same name is an alternative to the first (True: consumed)."""
        why = example_taint(link.line, body.text, [y for h, _, y in self.unread if h == head])
        self.unread = [u for u in self.unread if u[0] != head] + [(head, link, why)]
        self.scope = without_values(self.scope, [head])
        note = f"{why}: the name keeps no value, a step that uses it is read with it free"
        self.definitions.append(AuditDefinition(link.line, link.text, head.kind, body.text, reason=note))
        return True

    def define_pair(self, link: Link, body: Link, *, audited: bool) -> bool:
        """``q = a + ib`` where q is the column (a, b): the identification is kept in the scope and the name keeps
        both values, each step reading the one its uses call for (see :mod:`.complex_pairs`, :mod:`.pair_uses`);
        the line defines nothing new (True: consumed)."""
        name = paired_name(link.text, self.scope) if body.relation == "=" else None
        value = stated_pair(self.scope, name, body.text) if name is not None else None
        if name is None or value is None:
            # q = a + ib, then q = [a \\ b]: kept too, the column defined as any other (False: not consumed)
            later = column_after_number(self.scope, link.text, body.text) if body.relation == "=" else None
            if later is not None and all(p[0] != later[0] for p in self.scope.complex_pairs):
                self.scope = replace(self.scope, complex_pairs=(*self.scope.complex_pairs, (*later, link.line)))
            return False
        if all(p[0] != name for p in self.scope.complex_pairs):
            self.scope = replace(self.scope, complex_pairs=(*self.scope.complex_pairs, (name, value, link.line)))
        if audited:
            why = (
                f"the column {name} identified with this complex number: the name keeps both values, a step reading "
                "the column where it uses the name as a vector and the number where it uses it in complex arithmetic"
            )
            self.definitions.append(AuditDefinition(link.line, name, "symbol", body.text, value, "complex", why))
        return True

    def not_read(self, head: _Head, line: tuple[Link, Link], reason: str, *, audited: bool) -> None:
        """A new name whose definition (``line``: the name and its value) cannot be read: steps that use it are not
        decided (UNREAD), since read as a free number it could make a correct step look false."""
        link, body = line
        if self.define_open_family(head, line, audited=audited):
            return
        why = _unread_why(link, reason)
        if VECTOR_PROBLEM in reason and (head.kind == "symbol" or len(head.params) == 1) and not head.offsets:
            if self.uses_unread(Link("", link.line), body, bound=head.params) is None:  # .multiplied_values
                self.multiplied[(head, link.line)] = MultipliedValue(head, link.text, body.text, link.line, self.scope)
        self.unread.append((head, link, why))
        self.unread_bodies[(link.line, link.text)] = body.text
        if head.kind == "symbol" and index_arithmetic(normalize_latex(body.text), self.math_texts):
            self.numbers_unread.add((head, link.line, why))  # k = j - i: a number, so k_j is no entry of it
        if lists_members(link.text, body.text):
            self.listing.add(head)
        # one in inline math that stops at its dots is listed too: the document read with its patterns written out
        # may read it (:mod:`.patterns`), and the steps that use it with it
        if audited or unread_for_dots(reason):
            self.definitions.append(
                AuditDefinition(link.line, link.text, head.kind, body.text, reason=reason, params=head.params)
            )

    def define_open_family(self, head: _Head, line: tuple[Link, Link], *, audited: bool) -> bool:
        """``R^d_{\\Theta,m} = `` a block-diagonal matrix drawn open-ended, its name written with a label or a raised
        size (:mod:`.open_diagonals`, :mod:`.family_names`): a family read block by block, whose size the drawing
        does not write. A step that is a product of its members is read so (:meth:`through_blocks`); any other
        step that uses it is UNDECIDED, since its size, which the step may need, is not written."""
        link, body = line
        named = family_name(link.text)
        found = dotted_family(named.base, named.param, body.text, link.line) if named is not None else None
        if found is None or found.dotted:
            return False
        block = found.block.replace("{j}", "j")
        why = f"whose definition (line {link.line}) {OPEN_FAMILY} (block j = {block}, j = {found.start}, "
        why += f"{found.start + 1}, ...): read only block by block"
        self.unread.append((head, link, why))
        self.unread_bodies[(link.line, link.text)] = body.text
        if audited:
            said = f"block-diagonal with the blocks {block} for j = {found.start}, {found.start + 1}, ..., read block "
            said += "by block (drawn open-ended: its size is not written)"
            d = AuditDefinition(link.line, link.text, head.kind, body.text, sympy.Symbol(block), "", "", head.params)
            self.definitions.append(replace(d, pattern=said))
        return True

    def bare(self, head: _Head | None, audited: bool) -> bool:
        """Whether ``head``, in math in passing, is a bare name beside a sequence of its letter (``m = 0`` beside
        ``m_h``): read as a value given in passing (:meth:`in_passing`), or not at all."""
        return not audited and head is not None and _bare_of_sequence(head, self.scope)

    def in_passing(self, outcome: _Outcome) -> bool:
        """Whether ``outcome`` reads a value given in passing, a number or another name (``m = n``): a case or an
        example, kept as such and never substituted."""
        d = outcome.definition
        if outcome.status != "DEFINED" or d is None or d.kind != "symbol" or outcome.uses_head:
            return False
        return _closed_number(d.body) or isinstance(d.body, sympy.Symbol)

    def define_by_parts(self, link: Link, body: Link, *, audited: bool) -> bool:
        """``(R_{\\theta,m})_i = [...]``: a new name given part by part (a subscript on a bracket), which is not
        read: steps that use the name are not read either. Returns whether the line is one."""
        part = bracket_part_head(link.text, self.scope)
        if part is None:
            return False
        why = f"whose definition (line {link.line}) gives only its parts (a subscript on a bracket)"
        self.unread.append((part, link, why))
        if audited:
            note = "a part of a new name, as a subscript on a bracket: not read"
            self.definitions.append(AuditDefinition(link.line, link.text, part.kind, body.text, reason=note))
        return True

    def read_definition(self, head: _Head, link: Link, body: Link) -> _Outcome:
        """A definition's right side read in a child, within the step's and the document's time limits."""
        if self.out_of_time():
            return _Outcome("UNDECIDED", reason=DOCUMENT_TIME_LIMIT_REASON)
        timeout, cut = self.limits()
        outcome = _run(_define_in_child, head, link, body, self.scope, timeout=timeout, memory_limit=self.memory_limit)
        if cut and outcome.reason.startswith("time limit of"):
            outcome.reason = DOCUMENT_TIME_LIMIT_REASON
        return outcome

    def ranged(self, links: list[Link]) -> None:
        """``分别令 $m = 1, 2, \\dots$`` after ``令 $m = 0$``: an open list of values (ending in dots) given to a name
        that had one value in passing. The name takes every value from the first on now, so it no longer holds that
        one: it is free again, as before the value was given, and what is stated with it after here holds for more
        than that value. A closed list (``m = 1, 2``) keeps the value: what follows may hold at those values only."""
        if len(links) != 2 or not _OPEN_LIST.search(links[1].text):
            return
        name = _read_quiet(links[0].text, Scope(domains=self.scope.domains))
        given = self.scope.symbols.get(name.name) if isinstance(name, sympy.Symbol) else None
        if given is None or not given.stated_value:
            return
        symbols = {k: d for k, d in self.scope.symbols.items() if k != given.name}
        self.scope = replace(self.scope, symbols=symbols, given_again=self.scope.given_again - {given.name})
        self.settings.pop(given.name, None)

    def set_for_section(self, name: str) -> None:
        """A value given in passing, where the sentence that gives it opens a section by setting it."""
        if self.setting is not None:
            self.settings[name] = self.setting
        else:
            self.settings.pop(name, None)

    def at_settings(self, s: AuditStep, left: Link, right: Link) -> AuditStep:
        """A step stopped at values its section sets (``Using $W_q = I$`` after a heading): decided at those
        values, PROVED or REFUTED, and said so; else the step as it was."""
        found = in_force(self.settings, self.scope, right.line, s.reason)
        if found is None:
            return s
        scope, said = found
        timeout, _ = self.limits()
        o = _run(_step_in_child, left, right, scope, timeout=timeout, memory_limit=self.memory_limit)
        if o.status not in ("PROVED", "REFUTED"):
            return s
        why = f"at {said}" + (f"; {o.reason}" if o.reason else "")
        decided = self.outcome_step(s.number, left, right, o, why)
        if decided.status == "REFUTED":
            self.doubt(decided, left, right, standalone=False)
        return decided

    def pin(self, head: _Head, link: Link, body: Link) -> bool:
        """``$h_{d/2} = 0$`` in the text, an entry of a sequence defined by a pattern: the value the text agrees on
        there (a convention that may override the pattern, see :mod:`.pins`), kept as a value given in passing."""
        found = re.fullmatch(r"(.+?)_\{(.+)\}", head.key) if head.kind == "symbol" else None
        if found is None or not any(k.lstrip("\\") == found.group(1) for k in self.scope.patterns):
            return False
        if self.out_of_time():
            return False
        timeout, _ = self.limits()
        outcome = _run(_define_in_child, head, link, body, self.scope, timeout=timeout, memory_limit=self.memory_limit)
        d = outcome.definition
        if outcome.status != "DEFINED" and limit_reached(outcome.reason):
            # whether the text pins the entry is not known: steps that use it are UNDECIDED, never read without it
            why = f"whose value given at line {link.line} was {LIMIT_TAINT} ({outcome.reason})"
            self.unread.append((head, link, why))
            return True
        if outcome.status != "DEFINED" or d is None or d.kind != "symbol" or outcome.uses_head:
            return False
        symbols = dict(self.scope.symbols)
        symbols[d.name] = replace(d, stated_value=True)
        self.scope = replace(self.scope, symbols=symbols)
        return True

    def used_before(self, head: _Head, link: Link) -> bool:
        """Whether a step above ``link`` uses the name: one the derivation lets vary, so a value given it later in
        passing is a case, not its definition."""
        return any(
            s.line < link.line and _mentions(head, normalize_latex(s.lhs_tex + " = " + s.rhs_tex)) for s in self.steps
        )

    def taint_from_body(self, head: _Head, link: Link, body: Link, *, audited: bool) -> bool:
        """``k = P v`` where P has no value the audit can use (given with ``\\approx``, or unread): k has none
        either -- read with P a free number, it could make a correct step look false. Returns whether so."""
        # a parameter of the definition (m in R_{\theta,m} = ...) is bound there: not the name m the text updated
        found = self.uses_unread(Link("", link.line), body, bound=head.params)
        if found is None:
            return False
        where, taint = found
        why = f"whose definition (line {link.line}) uses {where.text.strip()}, {taint}"
        self.unread = [u for u in self.unread if u[0] != head]
        self.unread.append((head, link, why))
        if _frees(taint):  # any value, as the name in the condition or example
            self.scope = without_values(self.scope, [head])
            if audited and not self.example:  # its definition still stands as text (.spelled_definitions)
                self.spelled_bodies[link.text.strip()] = (body.text.strip(), link.line)
        if audited:
            note = f"uses {where.text.strip()}, {taint}: its value is not known"
            self.definitions.append(AuditDefinition(link.line, link.text, head.kind, body.text, reason=note))
        return True

    def define_decorated(self, link: Link, body: Link, *, audited: bool) -> bool:
        """``\\tilde{q}_m = f(q, m)``, ``q' = \\text{RoPE}(q, p)``: a name written with a decoration, a new name.

        The line introduces it, it does not assert anything: it is a definition. Where its right side is
        read, the name is a name of its own (``\\mathrm{ktilde}``, :meth:`define_alias`) that later steps read
        as its value where they spell it as the line did; written otherwise (``q'_1`` after ``q' = 2q``), or
        where the right side is not read, a step that uses it is UNREAD. A prime on a function the
        document defined may be its derivative: that line stays a step.
        """
        if body.relation != "=" and body.relation not in _DEFINING:
            return False
        found = decorated_head(link.text, self.scope)
        if found is None:
            return False
        mark, plain, plain_text = found
        if _mentions(mark, normalize_latex(body.text)):
            return False  # x' = 2 x' - x': an equation about the name
        if plain.kind == "function" and plain.key in self.scope.functions and "'" in normalize_latex(link.text):
            return False
        again = any(u[0] == mark for u in self.unread)
        defined = plain.kind != "function" and self.define_alias(link, body, audited=audited)
        written_out = not defined and plain.kind != "function" and self.define_written_out(link, body)
        self.unread = [u for u in self.unread if u[0] != mark]
        # (once defined, only a spelling the name is not read in stays unread: q'_1 after q' = 2q)
        self.unread.append((mark, link, f"a name written with a decoration, defined at line {link.line}"))
        if defined or not audited:
            return True
        if written_out:
            written = " ".join(link.text.split())
            note = f"a new name, written {written} (with a decoration): later steps read it as its right side"
            note += ", written out in brackets (its value is not read here)"
            self.definitions.append(AuditDefinition(link.line, written, "symbol", body.text, None, "", note))
            return True
        timeout, _ = self.limits()
        named = replace(link, text=plain_text)
        outcome = _run(
            _define_in_child, plain, named, body, self.scope, timeout=timeout, memory_limit=self.memory_limit
        )
        value = outcome.definition.body if outcome.status == "DEFINED" and outcome.definition is not None else None
        note = "a new name (written with a decoration); later steps do not use its value"
        if again:
            note = f"defined again, in force from line {link.line} on; " + note
        if value is None:
            note += f"; its right side was not read ({outcome.reason})"
        self.definitions.append(
            AuditDefinition(link.line, re.sub(r"\s+", " ", link.text.strip()), "symbol", body.text, value, "", note)
        )
        return True

    def define_alias(self, link: Link, body: Link, *, audited: bool) -> bool:
        """``\\tilde{k} = q + \\varepsilon``, ``\\lambda'_d = ...``: the decorated name defined as a name of its own
        (:mod:`ropecheck.symbolic.readers.decorations`), which later steps read as its definition. Returns whether
        so; where the right side is not read (or uses a name without a value) nothing is kept."""
        found = decorated_alias(normalize_latex(link.text))
        if found is None:
            return False
        left, pattern, name = found
        # the name's earlier spelling, if any, is replaced: defined again, it is read as its new value or not at all;
        # one entry (x'_{2j+1}) replaces only itself beside the other entries (x'_{2j})
        others = tuple(
            a
            for a in self.scope.aliases
            if alias_word(a[1]) != name or (is_entry(pattern) and is_entry(a[0]) and a[0] != pattern)
        )
        before = (replace(self.scope, aliases=others), len(self.unread), len(self.definitions))
        self.scope = replace(self.scope, aliases=(*others, (pattern, name)))
        head = _head(left, self.scope)
        ok = head is not None and self.maybe_define(replace(link, text=left), body, audited=audited)
        ok = ok and len(self.unread) == before[1] and self.scope.defines(head.key)  # type: ignore[union-attr]
        if not ok or self.definitions[before[2] :] == [] or not self.definitions[-1].read:
            self.scope, self.unread, self.definitions = (
                before[0],
                self.unread[: before[1]],
                self.definitions[: before[2]],
            )
            return False
        written = re.sub(r"\s+", " ", link.text.strip())
        for i in range(before[2], len(self.definitions)):  # listed as read, saying how it was written
            d = self.definitions[i]
            note = f"a new name, written {written} (with a decoration): later steps read it as this name"
            self.definitions[i] = replace(d, reason="; ".join(filter(None, [note, d.reason])))
        return True

    def define_written_out(self, link: Link, body: Link) -> bool:
        """``\\tilde{q}_m = R_{\\Theta,m} q_m`` whose right side is not read as a value: later uses read as that side
        in brackets (:mod:`ropecheck.symbolic.readers.decorated_values`). Not for a prime the document may read
        otherwise (it differentiates, or writes the letter transposed, in bold, as an array or called), nor for a
        name written before its definition: there the line stays as before. Returns whether so."""
        found = decorated_alias(normalize_latex(link.text))
        side = normalize_latex(body.text)
        if found is None or (
            found[2].endswith("prime") and prime_read_otherwise(self.math_texts, found[2], self.scope)
        ):
            return False
        known = any(alias_word(a[1]) == found[2] for a in self.scope.aliases)
        if not known and re.search(found[1], normalize_latex("\n".join(self.math_texts[: self.block]))):
            return False  # written before it is defined: another name then, or the same one? left as before
        side = apply_aliases(Src.of(side), self.scope.aliases).text
        alias = expansion_alias(found, " ".join(side.split()))
        if alias is None:
            return False
        others = tuple(a for a in self.scope.aliases if alias_word(a[1]) != found[2])
        self.scope = replace(self.scope, aliases=(*others, alias))
        return True

    def define_decorated_column(self, link: Link, body: Link, *, audited: bool) -> bool:
        """A written-out column of new names with a prime on the left, ``(x', y')^T = R(t) (x, y)^T`` (the rotated
        coordinates): each defined by the line. Like one such name (see :meth:`define_decorated`), they are listed,
        and later steps that use them are not read."""
        m = COLUMN.match(normalize_latex(link.text))
        if m is None or (body.relation != "=" and body.relation not in _DEFINING):
            return False
        entries = [e for e in re.split(r"\\\\", m.group("body")) if e.strip()]
        found = [decorated_head(e, self.scope) for e in entries]
        if len(entries) < 2 or any(f is None for f in found) or "&" in m.group("body"):
            return False
        marks = [f[0] for f in found if f is not None]
        text = normalize_latex(body.text)
        if any(_mentions(mark, text) or any(u[0] == mark for u in self.unread) for mark in marks):
            return False  # an equation about names already met, or the names on both sides: a step
        for mark, entry in zip(marks, entries):
            why = f"a name written with a decoration, defined at line {link.line}"
            self.unread.append((mark, Link(entry.strip(), link.line), why))
        if audited:
            note = "new names (written with a decoration), one per entry; later steps do not use their values"
            self.definitions.append(AuditDefinition(link.line, link.text.strip(), "symbol", body.text, None, "", note))
        return True

    def define_family(self, link: Link, body: Link, *, audited: bool) -> bool:
        """``v_{pos}^{(i)} = [...]``: a family of vectors over its subscript and its label (see :mod:`.families`).

        A line that does not read so is left to the other kinds of definition. Written again in the same form
        (``v_{t}^{(j)} = ...`` after ``v_{pos}^{(i)} = ...``) it is a new definition, as a sequence's is, unless
        its right side uses the family (an equation about it, a step); one not read puts the family out of
        force, and steps that use it then are not read."""
        if body.relation != "=" and body.relation not in _DEFINING:
            return False
        found = family_head(link.text)
        if found is None or self.out_of_time():
            return False
        base, key = found[0], family_key(found[0])
        again = key in self.scope.patterns
        if again and re.search(rf"(?<![\\A-Za-z]){base}\s*_", normalize_latex(body.text)):
            return False
        timeout, _ = self.limits()
        outcome = _run(define_family_in_child, link, body, self.scope, timeout=timeout, memory_limit=self.memory_limit)
        d = outcome.definition
        family = _Head("pattern", base)
        if outcome.status != "DEFINED" or d is None:
            if not again:
                return False
            self.scope = replace(self.scope, patterns={k: v for k, v in self.scope.patterns.items() if k != key})
            self.unread.append((family, link, _unread_why(link, outcome.reason)))
            if audited:
                why = outcome.reason
                self.definitions.append(AuditDefinition(link.line, link.text, "pattern", body.text, reason=why))
            return True
        self.unread = [u for u in self.unread if u[0] != family]
        self.scope = replace(self.scope, patterns={**self.scope.patterns, d.name: d})
        if audited:
            note = f"a family over its subscript {found[1]} and its label {found[2]}"
            note += f"; defined again, in force from line {link.line} on" if again else ""
            params = tuple(str(p) for p in d.params)
            name = f"{base}^{{({found[2]})}}"  # listed with its subscript: u^{(j)}_loc
            self.definitions.append(AuditDefinition(link.line, name, d.kind, body.text, d.body, "", note, params))
        return True

    def define_braced(self, links: list[Link], *, audited: bool) -> None:
        """``\\underbrace{M}_{R_i(k)}``: the brace names M, so later steps read R_i(k) as M -- where the name is new
        and written as a name (one letter, a simple subscript, arguments), never a word or a remark."""
        for link in links:
            for name, value in brace_names(link.text):
                plain = re.sub(r"\s+", "", normalize_latex(name))  # \boldsymbol{\mathcal{R}}_m: \mathrm{calR}_m
                head = _head(name, self.scope) if _BRACE_NAME.match(plain) else None
                if head is None or _defined(head, name, self.scope):
                    continue
                self.maybe_define(replace(link, text=name), replace(link, text=value, relation="="), audited=audited)

    def define_glued(self, link: Link, body: Link, *, audited: bool) -> bool:
        """``PE_{(pos,2i)} = \\sin(\\omega_i pos)``: a name of glued letters with a subscript, new to the document.

        Read as one name it is what the line defines; read as a product of letters it is nothing a
        person would write. The line is a definition, listed with its right side read with the letters
        as one name; its value is not used by later steps (they read the letters both ways). A name of
        a family already defined with another subscript (``v_{pos+k}`` after ``v_{pos}``) is that
        definition at another place: the line stays a step.
        """
        if body.relation != "=" and body.relation not in _DEFINING:
            return False
        found = glued_head(link.text, self.scope)
        if found is None or found[0].key in self.scope.symbols:
            return False
        head, family = found
        if family in self.glued and self.glued[family] != (head.key, self.block):
            if self.glued[family][1] != self.block and not parity_twin(self.glued[family][0], head.key):
                return False  # not written beside the first (a definition by cases is written in one display)
        # PE_{(pos)} = cases{PE_{(pos,2i)} = ..., PE_{(pos,2i+1)} = ...}: the halves by parity, no equation about it
        cased = cased_halves(body.text, family, self.scope)
        if not cased and (
            head.key in normalize_latex(body.text).replace(" ", "") or _mentions(head, normalize_latex(body.text))
        ):
            return False
        self.glued.setdefault(family, (head.key, self.block))
        if not audited:
            return True
        if cased:
            note = "a new name of glued letters, given as its two halves by parity (rows of cases): not read"
            self.definitions.append(AuditDefinition(link.line, head.key, "symbol", body.text, None, "", note))
            return True
        timeout, _ = self.limits()
        scope = replace(self.scope, word_reading="name")
        outcome = _run(_define_in_child, head, link, body, scope, timeout=timeout, memory_limit=self.memory_limit)
        value = outcome.definition.body if outcome.status == "DEFINED" and outcome.definition is not None else None
        note = "a new name of glued letters (read as one name); later steps do not use its value"
        if value is None:
            note += f"; its right side was not read ({outcome.reason})"
        self.definitions.append(AuditDefinition(link.line, head.key, "symbol", body.text, value, "", note))
        return True

    def define_glued_call(self, link: Link, body: Link, *, audited: bool) -> bool:
        """``PE(p, i) = \\sin(p / \\theta^{i/d})``: a function named by glued letters, called on plain names, new with
        that many arguments: a definition, listed, whose value later steps do not use (see :mod:`.glued_calls`)."""
        found = glued_call_head(link.text, self.scope) if body.relation in ("=", *_DEFINING) else None
        if found is None or not lists_nothing(body.text):
            return False
        word, params = found
        if calls_with(word, len(params), self.math_texts[: self.block]):
            return False  # a function in use: the line says something of it, a step
        if re.search(r"(?<![A-Za-z\\])" + re.escape(word) + r"(?![A-Za-z])", normalize_latex(body.text)):
            return False  # an equation about the function
        if audited:
            note = (
                f"a new function of {len(params)} arguments named by glued letters (read as one name); later steps "
                "do not use its value"
            )
            listed = AuditDefinition(link.line, word, "function", body.text, None, "", note, params)
            self.definitions.append(listed)
        return True

    def define_parity(self, link: Link, body: Link, *, audited: bool) -> bool:
        """``PE(p, 2i) = \\sin(...)``, ``PE(p, 2i+1) = \\cos(...)``: a half of a function defined by the parity of an
        argument, where the name is new at that line or holds the other half (see :mod:`.parity_calls`)."""
        found = parity_head(link.text) if body.relation in ("=", *_DEFINING) else None
        if found is None or self.out_of_time():
            return False
        known = self.scope.functions.get(found.name)
        if restated_half(link.text, self.scope) is not None:
            return False  # a half given again: a step, never refuted (see :meth:`parity_restated`)
        if known is None and (self.scope.defines(found.name) or used_before(found.name, self.math_texts[: self.block])):
            return False  # a name in use: the line says something of it, a step
        if (known is not None and not isinstance(known, ParityDefinition)) or used_before(found.name, [body.text]):
            return False
        timeout, _ = self.limits()
        o = _run(parity_half_in_child, found, body.text, self.scope, link.line, timeout=timeout,
                 memory_limit=self.memory_limit)  # fmt: skip
        mark = _Head("decorated", parity_call_rx(found.name))
        self.unread = [u for u in self.unread if u[0] != mark]
        functions, note = {k: v for k, v in self.scope.functions.items() if k != found.name}, ""
        if o.status != "DEFINED" or not isinstance(o.definition, ParityDefinition):
            self.scope = replace(self.scope, functions=functions)
            self.unread.append((mark, link, _unread_why(link, o.reason)))
        else:
            d, note = merged(known, o.definition)
            self.scope = replace(self.scope, functions={**functions, found.name: d})
        if audited:
            value = o.definition.body[int(found.odd)] if o.definition is not None else None
            said = "; ".join(filter(None, ("a half of a definition by parity", note)))
            why = said if o.status == "DEFINED" else o.reason
            listed = AuditDefinition(link.line, found.name, "function", body.text, value, "", why, found.written)
            self.definitions.append(listed)
        return True

    def offset_restated(self, s: AuditStep, left: Link, right: Link) -> AuditStep:
        """A step that writes again, as it stands, a function at a sum or difference of names listed as a definition
        whose value is not read (:mod:`.spelled_definitions`): PROVED by that definition where nothing has defined
        the function, or a name its body writes, since; else ``s`` as it was."""
        for call, (body, line) in self.offset_bodies.items():
            later = [d.name for d in self.definitions if line < d.line <= right.line and d.kind != "?"]
            if line >= left.line or redefined_since(call, body, later):
                continue
            if as_defined(left.text, right.text, {call: (body, line)}) is not None:
                why = restated_said(call.strip(), line)
                return replace(s, status="PROVED", method=_RESTATED, reason=why, counterexample=None)
        return s

    def parity_restated(self, s: AuditStep, left: Link, d: ParityDefinition) -> AuditStep:
        """A half of a definition by parity written again and not proved the same: it may define the name again, so
        the step is never refuted, and later steps that use the name are not read."""
        why = f"whose definition by parity (line {d.line}) is written again at line {left.line}, not proved the same"
        self.unread.append((_Head("decorated", parity_call_rx(d.name)), left, why))
        if s.status != "REFUTED":
            return s
        why = (
            f"writes a half of the definition by parity of {d.name} (line {d.line}) again with another value: it may "
            "define the name again, so it is not refuted"
        )
        return replace(s, status="UNDECIDED", method="none", reason=why, counterexample=None)

    def define_open_vector(self, link: Link, body: Link, *, audited: bool) -> bool:
        """``PE_{pos} = [v_{pos}^{(0)}; v_{pos}^{(1)}; \\vdots]``: a vector of blocks over its subscript, a name the
        document has not defined otherwise; steps read it block by block (see :mod:`.blocks`)."""
        found = open_vector_definition(link.text, body.text) if body.relation in ("=", *_DEFINING) else None
        if found is None or any(self.scope.defines(k) for k in (found.base, found.base.lstrip("\\"))):
            return False
        self.open_vectors[found.base] = found
        if found.periodic:  # b ~ N(0, I), then b = [a, 0, a, 0, ...]^T: the column from here on, as a new definition
            named = _head(link.text, self.scope)
            self.unread = [u for u in self.unread if u[0] != named]
        # elsewhere than block by block the name is no number: a step that uses it so is not read
        spelled = normalize_latex(found.base).strip() if found.diagonal else found.base  # as steps are checked
        use = re.escape(spelled) + (r"\s*_" if found.param else r"(?![A-Za-z_])")
        what = "a block-diagonal matrix written open-ended" if found.diagonal else "a vector of blocks"
        why = f"{what} defined at line {link.line}, read only block by block"
        self.unread.append((_Head("decorated", r"(?<![\\A-Za-z])" + use), link, why))
        if audited:
            self.definitions.append(found.listed(link.line, body.text))
        return True

    def define_optimum(self, link: Link, body: Link, *, audited: bool) -> bool:
        """``b^* = \\inf\\{b \\mid ...\\}``: an optimum given a name (see :func:`.names.optimum_head`), a definition
        not read and not a step; a later step that writes the name is not read."""
        if body.relation != "=" and body.relation not in _DEFINING:
            return False
        found = optimum_head(link.text, body.text)
        if found is None or any(u[0] == found for u in self.unread):
            return False
        flat = replace(link, text=" ".join(link.text.split()))
        self.unread.append((found, flat, f"an optimum named at line {link.line}, which the audit does not read"))
        if audited:
            why = "an infimum, supremum, minimum or maximum given a name: a definition, not read"
            self.definitions.append(AuditDefinition(link.line, flat.text, "symbol", body.text, reason=why))
        return True

    def define_operator(self, link: Link, body: Link, *, audited: bool) -> bool:
        """``\\text{Rotated} [x_1; x_2] = M [x_1; x_2]``: what a word set upright, new to the document, does to the
        bracket after it (see :func:`.names.operator_head`), or a word in italics called on names (``Attention(Q, K,
        V)_i``, :func:`.names.word_call_head`; set upright with an index, ``\\mathrm{Attention}(Q, K, V)_m``, or
        raised on a letter, ``f^{RoPE}(x_m, m)``, :mod:`.labelled_heads`). A definition in words, not read: not a
        step, and a later step that uses the word is not read."""
        if body.relation != "=" and body.relation not in _DEFINING:
            return False
        # the first reader that finds a head, and what its definition's note says
        found, finder, note = next(
            ((h, f, n) for f, n in _WORDED_HEADS if (h := f(link.text, body.text, self.scope)) is not None),
            (None, None, ""),
        )
        if found is None or any(u[0] == found for u in self.unread):
            return False  # written again: a statement about the operator, a step
        flat = replace(link, text=" ".join(link.text.split()))
        what = "an operator" if finder is operator_head else "a function named by a word"
        self.unread.append((found, flat, f"{what} defined at line {link.line}, which the audit does not read"))
        if audited:
            name = " ".join(link.text.split())
            self.definitions.append(AuditDefinition(link.line, name, "function", body.text, reason=note))
        return True

    def step_text(self, left: Link, right: Link) -> str:
        """The step ``left = right`` as the checks for names without a value read it: an entry q_m^1 of a vector
        written [q_m^1 \\ q_m^2] is a number of its own, whatever q_m's value; a decorated name the document defined
        is read as its definition, another spelling of it is not."""
        text = without_components(normalize_latex(left.text + " = " + right.text), self.scope.components)
        return apply_aliases(Src.of(text), self.scope.aliases).text

    def uses_unread(
        self, left: Link, right: Link, *, before: bool = False, bound: tuple[str, ...] = ()
    ) -> tuple[Link, str] | None:
        """The name a step uses whose value is not known, and why (``before``: one tainted before the step's line;
        ``bound``: names that stand for a parameter there, never for the name tainted)."""
        text = self.step_text(left, right)
        for head, where, why in reversed(self.unread):
            if (before and where.line >= left.line) or (head.kind == "symbol" and head.key in bound):
                continue
            # a set named in a subscript (R_{\Theta,t}) labels the name it is part of, and the set's name with a
            # subscript (\Theta_q) is a name of its own: the set's value is not used
            seen = without_set_labels(head.key, text) if why.startswith(_SET_TAINT) else text
            if head in self.listing:  # x_2 where x = [x_1, ..., x_m]: a member, a name of its own
                seen = without_members(where.text, seen)
            if head.kind == "symbol":  # W_k (and k_j, where k is a number): names of their own, never k's value
                number = (head, where.line, why) in self.numbers_unread
                seen = without_label_uses(head.key, seen, self.family_bases(), number=number)
            seen = self.without_raised_defined(head, where.line, seen)
            if head.kind in ("symbol", "pattern"):  # \theta_j read by a family \theta_j = ...: no use of \theta
                seen = self.without_other_families(head, seen)
            if _mentions(head, seen, members=not self.family_defined(head)):
                return where, why
        return None

    def without_raised_defined(self, head: _Head, line: int, text: str) -> str:
        """``text`` without the members of a family named with a raised size (``R^d_{\\Theta,m}``) that a definition
        read after ``line`` gives, where ``head`` is the same family without the size (``R_{\\Theta,m}``, not read
        at ``line``): those members are that later definition, not the name whose definition was not read."""
        if head.kind != "pattern":
            return text
        for key, d in self.scope.patterns.items():
            sibling = raised_sibling(head.key, key) if d.line > line else None
            if sibling is not None:
                text = without_raised(text, *sibling)
        return text

    def without_other_families(self, head: _Head, text: str) -> str:
        """``text`` with the names on ``head``'s letter that a family read by a pattern spells, with another
        number of subscripts than ``head`` (:func:`.label_uses.without_family_members`), blanked."""
        base = head.key.split("_")[0].lstrip("\\")
        plain = head.kind == "pattern" and not head.key.endswith(",*}")
        count = len(head.params) if plain else subscript_count(head.key.lstrip("\\"))
        return without_family_members(base, count, text, self.scope.patterns)

    def family_bases(self) -> frozenset[str]:
        """The bases of the families and functions defined so far, whose subscripts may be read at a value."""
        return family_bases([*self.scope.patterns, *self.scope.functions, *self.called_families])

    def family_defined(self, head: _Head) -> bool:
        """Whether the family of an entry at a number (``R_{5}``) is defined (``R_m = ...``): its members at a
        letter are then that definition, not that entry."""
        base = re.match(r"(.+?)_\{", head.key) if head.kind == "symbol" else None
        return base is not None and any(k.lstrip("\\") == base.group(1) for k in self.scope.patterns)

    def doubt(
        self,
        s: AuditStep,
        left: Link,
        right: Link,
        *,
        standalone: bool,
        stated_range: str = "",
        related: tuple[str, ...] = (),
    ) -> None:
        """A REFUTED step that may not be an identity at all, or whose counterexample may break a bound: UNDECIDED.
        ``related``: names a relation the document stated ties, which the counterexample keeps (never lone)."""
        text = normalize_latex(left.text + " = " + right.text)
        self.within_bounds(s, left, right)
        bound = self.bound_not_kept(s, left, right)
        every = ""
        later = next((w for h, w in self.later_not_kept(s, right) if _mentions(h, text)), None)
        why = ""
        if stated_range:
            why = (
                f"stated for a range of its index ({stated_range.lstrip(',').strip()}), which the counterexample may "
                "lie outside: not refuted"
            )
        elif open_range := open_range_why(s) or self.fraction_for_whole(s):  # or a fraction for a whole number
            why = open_range
        elif bound is not None:
            why = (
                f"uses {bound.text.strip()}, only bounded in the document (line {bound.line}): the counterexample "
                "may break the bound, so the step is not refuted"
            )
        elif later is not None:
            why = (
                f"uses {later.text.strip()}, which the text defines after the step (line {later.line}), in this "
                "display or the prose after it: read here as a free number, it refutes nothing"
            )
        elif j_unit := unit_j(s, left.text + " = " + right.text):
            why = j_unit
        elif arrowed := arrow_and_bare_why(left.text + " = " + right.text, self.scope.complex_pairs):
            why = arrowed
        elif labels := lone_labels_why(s, self.scope):
            why = labels
        elif dot_of_conjugated(text, self.inferred):
            why = _DOT_OF_CONJUGATED
        elif (given := value_of_entry((left.text, right.text), refuted_with(s), dict(self.scope.domains))) and not (
            every := false_for_every_value(s.lhs, s.rhs, given)
        ):
            why = (
                f"gives an entry a number, refuted only through {', '.join(given)}, which its definition uses and "
                "the document gives no value here: the value may hold at the text's example, so it is not refuted"
            )
        elif norm_beside_name(s.lhs, s.rhs):
            why = (
                f"reads the norm {norm_beside_name(s.lhs, s.rhs)} as a name of its own, beside the name inside it or "
                "another norm of it: the counterexample may give the two values no vector has, so it is not refuted"
            )
        elif family_norm := norm_of_family(self.unpolar(self.scope.patterns), s.lhs, s.rhs):
            why = _FAMILY_NORM_DOUBT.format(family_norm)
        elif (
            standalone
            and _bare_product(left.text)
            and not FUNCTION_COMMANDS.search(right.text)
            and not any(isinstance(e, MatrixBase) or _has_function(e) for e in (s.lhs, s.rhs))
        ):
            why = "an identity, or an equation to solve? (false as an identity; it may pose a condition on its names)"
        elif root := negative_under_root(s):
            why = (
                f"refuted only where {root}, under a root or a log, is negative: a root or a log the text writes of a "
                "name is real (a size, a scale), so the counterexample refutes the reader's default, not the text"
            )
        elif fresh := fresh_one_side(s, "\n".join(self.math_texts[: self.block])):
            one = len(fresh) == 1
            why = (
                f"{', '.join(fresh)} {'appears' if one else 'appear'} here first, on one side only: the step may be "
                f"what defines {'it' if one else 'them'} (the text may say so in words), so it refutes nothing"
            )
        elif exact_decimals_equal(left.text, right.text, self.scope):
            why = _EXACT_DECIMALS_EQUAL
        elif broken := self.broken_statement(s):
            if related := self.decided_given_stated(s):  # PROVED, or REFUTED at values that keep it: doubted afresh
                if s.status == "REFUTED":
                    self.doubt(s, left, right, standalone=standalone, stated_range=stated_range, related=related[1:])
                return
            why = broken
        elif member := member_at_valued_index(s, self.has_value):
            why = (
                f"reads {member[0]} as a name of its own, beside another member of its family, where {member[1]} "
                "has a value in the document that the reader does not put in a subscript: the two may be one, so "
                "it refutes nothing"
            )
        elif lone := [
            n for n in lone_undefined(s, text, self.scope, set(self.inferred) - set(self.declared)) if n not in related
        ]:
            why = _lone_why(lone)
        if why:
            s.status, s.reason, s.counterexample, s.method = "UNDECIDED", why, None, "none"
        elif every:  # an entry's value no value of the unset name gives: false whatever the text's example
            s.reason = (
                f"false for every value of {every}, which its definition uses and the document gives no value here: "
                f"no real value makes the sides equal, so the step is false whatever example the text means{s.reason}"
            )

    def fraction_for_whole(self, s: AuditStep) -> str:
        """Why a REFUTED step's counterexample may be one the text rules out: it gives a name the prose calls a whole
        number ("for an integer $k$", :func:`.worded_domains.integers_in_words`) a value that is not one; "" else."""
        given = s.counterexample.values.items() if s.counterexample is not None else ()
        for name, value in given:
            key = domain_key(str(name))
            if key in self.worded_integers and getattr(value, "is_integer", None) is not True:
                return (
                    f"the text calls {key} a whole number in words (line {self.worded_integers[key]}), and the "
                    f"counterexample gives it {value}, which is not one: not refuted"
                )
        return ""

    def has_value(self, name: str) -> bool:
        """Whether the document gives the bare name a value: a definition, read or not."""
        unread = any(h.kind == "symbol" and h.key == name for h, _, _ in self.unread)
        return unread or self.scope.defines(name)

    def broken_statement(self, s: AuditStep) -> str:
        """Why a REFUTED step's counterexample is one the document rules out: it breaks an equation stated before
        (see :mod:`.stated_before`); "" where it breaks none."""
        asked = statements_to_check(s, self.stated_in_force(proving=False), self.steps)
        if asked is None:
            return ""
        timeout, _ = self.limits()
        o = _run(broken_in_child, *asked, timeout=timeout, memory_limit=self.memory_limit)
        reason = o.reason if o.status == "UNDECIDED" and o.reason.startswith("the counterexample breaks") else ""
        ended = [why for (line, _, _), why in self.unsupposed.items() if reason.startswith(f"{_BREAKS} {line},")]
        return f"{reason}; that equation was {ended[0]}, so the step is not decided under it" if ended else reason

    def stated_in_force(self, *, proving: bool) -> list[Premise]:
        """The equations stated before the step that may hold at it: not those the display is stated for every value
        of the names of, nor (``proving``) those whose supposition ended (see :mod:`.supposition_ends`)."""
        out = self.stated[: self.stated_upto]
        return [
            p for p in out
            if (k := (p.line, p.left.text, p.right.text)) not in self.generalised
            and not (proving and k in self.unsupposed)
        ]  # fmt: skip

    def decided_given_stated(self, s: AuditStep) -> tuple[str, ...]:
        """Whether the REFUTED step ``s`` is decided under the equation stated before it that its counterexample
        breaks (:mod:`.under_stated`): ``("",)`` and the names the relation ties where it is, and ``s`` is set to
        that verdict; ``()`` where it is not."""
        asked = statements_to_check(s, self.stated_in_force(proving=True), self.steps)
        if asked is None:
            return ()
        timeout, _ = self.limits()
        o = _run(decide_under_stated_in_child, asked[0], asked[1], s.lhs, s.rhs, timeout=timeout,
                 memory_limit=self.memory_limit)  # fmt: skip
        if o.status not in ("PROVED", "REFUTED"):
            return ()
        s.status, s.method, s.reason, s.counterexample = o.status, o.method, o.reason, o.counterexample
        return ("", *o.related)

    def zero_under_stated(self, s: AuditStep, left: Link, right: Link) -> None:
        """A PROVED step that writes a quotient whose denominator an equation stated before makes zero: UNDECIDED
        (see :mod:`.quotients_stated`)."""
        refuted = {(t.line, t.lhs_tex, t.rhs_tex) for t in self.steps if t.status == "REFUTED"}
        stated = [p for p in self.stated[: self.stated_upto] if (p.line, p.left.text, p.right.text) not in refuted]
        if not stated or self.out_of_time():
            return
        timeout, _ = self.limits()
        o = _run(zero_under_stated_in_child, stated, (left.text, right.text), self.scope, timeout=timeout,
                 memory_limit=self.memory_limit)  # fmt: skip
        if o.status == "UNDECIDED" and o.method == ZERO_DENOMINATOR:
            s.status, s.method, s.reason, s.counterexample = "UNDECIDED", "none", o.reason, None

    def uses_bounded(self, left: Link, right: Link) -> Link | None:
        text = normalize_latex(left.text + " = " + right.text)
        return next((where for head, where in self.bounded if _mentions(head, text)), None)

    def bounds_said(self, left: Link, right: Link) -> dict[str, tuple[str, int]] | None:
        """The bounds the document states for the names of the step that it only bounds, before the step or in
        the prose after it (domain key -> ``c > 1`` and its line); None where one is not read so or the document
        defines such a name after the step."""
        text = normalize_latex(left.text + " = " + right.text)
        said: dict[str, tuple[str, int]] = {}
        for head, where in self.bounded:
            key = domain_key(where.text.strip())
            bound, line, _ = self.signs.get(key, ("", 0, None))
            if _mentions(head, text) and line != where.line:
                return None
            if _mentions(head, text):
                said[key] = (bound, line)
        for n, (head, where) in enumerate(self.ahead):
            if where.line > right.line and _mentions(head, text):
                if n not in self.ahead_bounds or domain_key(where.text.strip()) in said:
                    return None
                said[domain_key(where.text.strip())] = (self.ahead_bounds[n], where.line)
        return said

    def within_bounds(self, s: AuditStep, left: Link, right: Link) -> None:
        """A REFUTED step whose counterexample breaks a bound the document states for its names (before the step,
        or in the prose after it): refuted again within the bounds where it can be (see :mod:`.kept_bounds`)."""
        said = self.bounds_said(left, right)
        if not said or s.counterexample is None or self.out_of_time():
            return
        values = {domain_key(str(k)): v for k, v in s.counterexample.values.items()}
        if all(key in values and keeps_bound(values[key], bound) for key, (bound, _) in said.items()):
            return
        timeout, _ = self.limits()
        bounds = {key: bound for key, (bound, _) in said.items()}
        o = _run(within_bounds_in_child, s.lhs, s.rhs, bounds, timeout=timeout, memory_limit=self.memory_limit)
        if o.status == "REFUTED" and o.counterexample is not None:
            s.counterexample = o.counterexample
            kept = ", ".join(f"{bound} (line {line})" for bound, line in said.values())
            note = f"refuted at values that keep {kept}, which the document states"
            s.reason = f"{s.reason}; {note}" if s.reason else note

    def later_not_kept(self, s: AuditStep, right: Link) -> list[tuple[_Head, Link]]:
        """The names the document defines or bounds after the step, but those only bounded where the
        counterexample keeps the bound."""
        values = {domain_key(str(k)): v for k, v in s.counterexample.values.items()} if s.counterexample else {}
        out = []
        for n, (head, where) in enumerate(self.ahead):
            key, bound = domain_key(where.text.strip()), self.ahead_bounds.get(n, "")
            if where.line > right.line and not (key in values and keeps_bound(values[key], bound)):
                out.append((head, where))
        return out

    def bound_not_kept(self, s: AuditStep, left: Link, right: Link) -> Link | None:
        """The first name the step uses that the document only bounds, unless the bound is the one that made it
        positive (``n \\ge 1``, read as :func:`.stated_signs.keeps_bound` reads it) and the counterexample keeps it."""
        text = normalize_latex(left.text + " = " + right.text)
        values = {domain_key(str(k)): v for k, v in s.counterexample.values.items()} if s.counterexample else {}
        for head, where in self.bounded:
            if not _mentions(head, text):
                continue
            key = domain_key(where.text.strip())
            said, line, _ = self.signs.get(key, ("", 0, None))
            if not (line == where.line and key in values and keeps_bound(values[key], said)):
                return where
        return None

    def outcome_step(self, number: int, left: Link, right: Link, o: _Outcome, reason: str) -> AuditStep:
        """The step as an outcome decided it, with the domains of the sides it read."""
        sides = [e for e in (o.lhs, o.rhs) if e is not None]
        domains = describe_domains(sides, self.declared, self.inferred) if sides else []
        return AuditStep(
            number, right.line, left.text, right.text, o.status, o.method, reason, o.counterexample, o.lhs, o.rhs,
            domains, relation=right.relation,
        )  # fmt: skip

    def approx_step(self, number: int, left: Link, right: Link) -> AuditStep:
        """``A \\approx B``: equal after rounding to the digits written, or exactly (PROVED); off by a factor no
        rounding explains (REFUTED, see :func:`.approx.far_off`); else UNDECIDED, UNREAD."""
        timeout, _ = self.limits()
        o = _run(approx_in_child, left, right, self.scope, timeout=timeout, memory_limit=self.memory_limit)
        if o.status == "REFUTED" and o.method != "rounded":  # refuted only off by a factor no rounding explains
            o.status, o.method = "UNDECIDED", "none"
        if o.status != "REFUTED":
            o.counterexample = None
        for tends in self.tending if o.status == "UNDECIDED" else []:  # "since \lambda \to 1": that limit
            timeout, _ = self.limits()
            at = _run(limit_in_child, left, right, self.scope, tends, timeout=timeout, memory_limit=self.memory_limit)
            if at.status == "PROVED":
                return self.outcome_step(number, left, right, at, at.reason)
        return self.outcome_step(number, left, right, o, o.reason)

    def tainted_step(self, number: int, left: Link, right: Link) -> AuditStep:
        """A step that uses a name whose value the audit does not have: UNREAD, unless every such name was given
        with ``\\approx`` as decimals and the step is decided with them (see :meth:`with_approximations`)."""
        where, taint = self.uses_unread(left, right)  # type: ignore[misc]
        why = f"uses {where.text.strip()}, {taint}"
        o = self.with_approximations(left, right) or self.for_every_matrix(left, right)
        o = o or self.through_blocks(left, right) or self.raised_for_every_matrix(left, right)
        o = o or self.any_column(left, right) or self.through_multiplied(left, right)
        o = self.for_every_case(left, right, o)
        o = (self.spelled_definition(left, right) or o) if o is None or o.status != "PROVED" else o
        o = (self.for_every_definition(left, right) or o) if o is None or o.status not in ("PROVED", "REFUTED") else o
        if o is None:
            return AuditStep(number, right.line, left.text, right.text, _tainted_status(taint), reason=why)
        said = _frees(taint) and o.reason  # the reason says which, and why
        return self.outcome_step(number, left, right, o, o.reason if said else f"{why}; {o.reason}")

    def spelled_definition(self, left: Link, right: Link) -> _Outcome | None:
        """A step that is the definition of a name without a value written out (:mod:`.spelled_definitions`):
        PROVED by it where nothing has defined the name again since (its latest taint is that definition's); else
        None."""
        kept = {}
        for name, (body, line) in self.spelled_bodies.items():
            head = _head(name, self.scope)
            latest = [w.line for h, w, _ in self.unread if h == head][-1:]
            if head is not None and latest == [line] and not _defined(head, name, self.scope):
                kept[name] = (body, line)
        for name, (body, line, kind, key) in self.written_bodies.items():
            if name not in kept and self.written_in_force(name, (body, line), kind, key):
                kept[name] = (body, line)
        found = as_defined(left.text, right.text, kept) if kept else None
        return _Outcome("PROVED", "definition", defined_said(*found), None) if found is not None else None

    def written_in_force(self, name: str, written: tuple[str, int], kind: str, key: str) -> bool:
        """Whether the definition of ``name`` written (its body and line; its kind and key) is the one in force, as
        written: the scope holds it, no taint came since, and no later definition names a member or another spelling
        of its letter, or a letter its body writes (which the body, read then, does not follow)."""
        body, line = written
        held = (self.scope.symbols if kind == "symbol" else self.scope.patterns).get(key)
        if held is None or held.line != line:
            return False
        head = _head(name, self.scope)
        if head is None or any(h == head and w.line >= line for h, w, _ in self.unread):
            return False
        letter = key.split("_")[0].lstrip("\\")
        later = {d.name.split("_")[0].lstrip("\\") for d in self.definitions if d.line > line}
        return letter not in later and not any(
            re.search(rf"(?<![A-Za-z\\]){re.escape(x)}(?![A-Za-z])", body) for x in later
        )

    def for_every_definition(self, left: Link, right: Link) -> _Outcome | None:
        """A step left unread that holds for every value of the names it uses that definitions give a value, each
        read as a general vector or matrix (through a family's blocks, or as any matrix): PROVED, so for the values
        their definitions give too, the reason saying so; else None (only PROVED is taken)."""
        text = self.step_text(left, right)
        heads = [_Head("symbol", k) for k, d in self.scope.symbols.items() if not d.stated_value]
        heads += [_Head("pattern", k) for k in self.scope.patterns]
        used = [h for h in heads if _mentions(h, text)]
        if not used:
            return None
        freed = replace(self, scope=without_values(self.scope, used))
        o = freed.through_blocks(left, right) or freed.for_every_matrix(left, right)
        if o is None or o.status != "PROVED":
            return None
        found = [d for h in used if (d := self.defined_as(h)) is not None]
        names = sorted({d.source.strip() for d in found})
        if len(found) != len(used) or "" in names or not all_read_as_general((o.lhs, o.rhs), names, self.scope):
            return None
        lines = ", ".join(sorted({str(d.line) for d in found}, key=int))
        said = f"proved for every value of {', '.join(names)} (defined at line {lines}), so for the values given there"
        return replace(o, reason=f"{said}; {o.reason}")

    def defined_as(self, head: _Head) -> Definition | None:
        """The definition in force of a symbol or a family."""
        return (self.scope.symbols if head.kind == "symbol" else self.scope.patterns).get(head.key)

    def for_every_case(self, left: Link, right: Link, found: _Outcome | None) -> _Outcome | None:
        """A step that uses names given a value only in a condition (or names whose definition uses one), read with
        them free (:mod:`.inline_conditions`): ``found`` (a reading of the names as general matrices, through blocks)
        said so, never REFUTED; else, where no other name without a value is used, the step read as any other:
        PROVED where each such name is read as a general vector or matrix, otherwise UNDECIDED; None where it is
        not read."""
        text = self.step_text(left, right)
        used = {h: (w, y) for h, w, y in self.unread if _mentions(h, text, members=not self.family_defined(h))}
        # each name's latest taint: a condition's, or an example's (.example_values)
        cases = {h: (w, y) for h, (w, y) in used.items() if _frees(y)}
        if not cases:
            return found
        said = cases_said((w.text.strip(), y) for w, y in cases.values())
        where = "under the condition" if any(CONDITION_TAINT in y for _, y in cases.values()) else "at the example"
        matrices = [w.text for w, y in cases.values() if y.endswith(MATRIX_TAIL)]  # a vector's proof covers none
        if found is not None:  # read by the readers of names without a value: as general matrices, or as columns
            unsettled = unsettled_kind((found.lhs, found.rhs), [], matrices, self.scope) if matrices else ""
            return case_outcome(found, said, unsettled=unsettled, where=where)
        if any(h.kind not in ("symbol", "pattern") for h in cases):
            return None  # a function or a decorated name: its value is not freed (see .inline_conditions)
        if replace(self, unread=[u for u in self.unread if u[0] not in cases]).uses_unread(left, right):
            return None  # another name without a value, for another reason: not read, as before
        timeout, _ = self.limits()
        o = _run(_step_in_child, left, right, self.scope, timeout=timeout, memory_limit=self.memory_limit)
        # a number given as an example is read as one; a column (in a condition, or as an example) as a vector
        columns = [
            w.text
            for w, y in cases.values()
            if (CONDITION_TAINT in y and not y.endswith(MATRIX_TAIL)) or y.endswith(COLUMN_EXAMPLE_TAIL)
        ]
        unsettled = unsettled_kind((o.lhs, o.rhs), columns, matrices, self.scope) if o.status == "PROVED" else ""
        return case_outcome(o, said, unsettled=unsettled, where=where)

    def member_step(self, number: int, left: Link, right: Link) -> AuditStep | None:
        """A step left unread that meets names without a value only as a member at a letter (``k_n``) of a family the
        document does not define, beside an entry at a number that has none (``k_5 = R_5 v``, ``R_5`` given with
        ``\\approx``): read with the member a name of its own, any value, so the entry's too -- PROVED or UNDECIDED,
        never REFUTED (at n = 5 the member may be that entry). None where the step writes such a name otherwise."""
        text = self.step_text(left, right)
        members = [u for u in self.unread if _mentions(u[0], text) and not _mentions(u[0], text, members=False)]
        if not members or replace(self, unread=[u for u in self.unread if u not in members]).uses_unread(left, right):
            return None
        timeout, _ = self.limits()
        o = _run(_step_in_child, left, right, self.scope, timeout=timeout, memory_limit=self.memory_limit)
        if o.status not in ("PROVED", "REFUTED", "UNDECIDED") or (o.status == "PROVED" and o.method != _ALGEBRA):
            return None  # proved with the member a number: the entry (a vector, a matrix?) may not be one
        entries = list(dict.fromkeys(where.text.strip() for _, where, _ in members))
        has = "entry " + entries[0] + " has" if len(entries) == 1 else "entries " + ", ".join(entries) + " have"
        why = (
            f"writes a family the document does not define, whose {has} no value: the member at a letter read as a "
            "name of its own, any value"
        )
        if o.status == "REFUTED":
            o.status, o.method, o.counterexample = "UNDECIDED", "none", None
            why += "; so read it is refuted, but the counterexample need not hold where the member is that entry"
        return self.outcome_step(number, left, right, o, "; ".join(x for x in (why, o.reason) if x))

    def for_every_matrix(self, left: Link, right: Link) -> _Outcome | None:
        """A step that uses names the audit has no value for, PROVED when it holds for every matrix and vector
        they may stand for (``(R_m q)^T (R_n k) = q^T R_m^T R_n k``, whatever ``R`` is); else None."""
        timeout, _ = self.limits()
        o = _run(_general_in_child, left, right, self.scope, timeout=timeout, memory_limit=self.memory_limit)
        if o.status != "PROVED":
            return None
        # each name without a value must be one of the general matrices
        text = normalize_latex(left.text + " = " + right.text)
        used = [w.text for h, w, _ in self.unread if _mentions(h, text, members=not self.family_defined(h))]
        if not all_read_as_general((o.lhs, o.rhs), used, self.scope):
            return None
        o.reason = "proved for every matrix and vector these names may stand for; " + o.reason
        return o

    def through_multiplied(self, left: Link, right: Link) -> _Outcome | None:
        """A step whose names without a value were each defined as a matrix times a vector never written out
        (``k_n = R(n\\theta) k``), PROVED with those definitions read with general matrices (:mod:`.multiplied_values`);
        else None."""
        text = normalize_latex(left.text + " = " + right.text)
        used = [(h, w) for h, w, _ in self.unread if _mentions(h, text, members=not self.family_defined(h))]
        values = [self.multiplied.get((h, w.line)) for h, w in used]
        if not used or any(v is None or not members_at_own_subscript(v, text) for v in values):
            return None
        latest = {h: w.line for h, w, _ in self.unread}  # a taint added since (defined again, not read) stands
        if any(latest[h] != w.line for h, w in used):
            return None
        timeout, _ = self.limits()
        found = [v for v in values if v is not None]
        o = _run(multiplied_in_child, left, right, self.scope, found, timeout=timeout, memory_limit=self.memory_limit)
        return o if o.status == "PROVED" else None

    def raised_for_every_matrix(self, left: Link, right: Link) -> _Outcome | None:
        """A step that uses names the audit has no value for, PROVED with each member of its family named with a raised
        size (``R^d_{\\Theta,m}``) a general matrix of its own (:mod:`.raised_members`), where every such name is that
        family or one of the general matrices; else None."""
        text = f"{left.text} = {right.text}"
        if len(raised_families(text)) != 1:
            return None
        timeout, _ = self.limits()
        o = _run(raised_in_child, left, right, self.scope, timeout=timeout, memory_limit=self.memory_limit)
        normed = normalize_latex(text)
        used = [w.text for h, w, _ in self.unread if _mentions(h, normed, members=not self.family_defined(h))]
        if o.status != "PROVED" or not covered_by_reading((o.lhs, o.rhs), text, used, self.scope):
            return None
        o.reason = "proved for every matrix and vector these names may stand for; " + o.reason
        return o

    def with_raised_family(self, o: _Outcome, read: tuple[Link, Link], scope: Scope) -> _Outcome:
        """An unread step with members of a family named with a raised size (``R^d_{\\Theta,m}``), read with each
        member a general matrix of its own (:mod:`.raised_members`): PROVED or UNDECIDED so read; else ``o``."""
        if o.status != UNREAD or not raised_families(f"{read[0].text} = {read[1].text}"):
            return o
        timeout, _ = self.limits()
        found = _run(raised_in_child, *read, scope, timeout=timeout, memory_limit=self.memory_limit)
        return found if found.status in ("PROVED", "UNDECIDED") and found.reason else o

    def through_blocks(self, left: Link, right: Link) -> _Outcome | None:
        """A step whose names without a value are members of one block-diagonal family (drawn open-ended, or with dots
        in a definition not read) and names read as general vectors or matrices, read through the family's blocks
        (see :mod:`.block_families`); else None."""
        text = normalize_latex(left.text + " = " + right.text)
        used = [w for h, w, _ in self.unread if _mentions(h, text, members=not self.family_defined(h))]
        families: list[tuple[Link | None, BlockFamily]] = [
            (w, f) for w in used if (f := self.block_family(w.text, w.line)) is not None
        ]
        if not used:  # a name with a label and a raised size (R^d_{\Theta,m}), its definition not read
            latest = {d.name: d for d in self.definitions if d.line <= left.line and family_name(d.name) is not None}
            named = [self.block_family(d.name, d.line) for d in latest.values() if d.body is None]
            families = [(None, f) for f in named if f is not None]
        if len(families) != 1:
            return None
        where, family = families[0]
        # as the dots written out are read: a size given in a display fixes it from there on; given anywhere, the
        # step may be proved (it holds at that size too), never refuted
        sized = family.size_given(self.math_texts) if family.dotted else []
        if sized and len(self.math_places) != len(self.math_texts):
            return None  # where the text gives the size is not known here
        given = [(self.math_places[at], name) for at, name in sized]
        if any(kind == "display" and line <= left.line for (line, kind), _ in given):
            return None
        timeout, _ = self.limits()
        o = _run(family_in_child, left, right, self.scope, family, timeout=timeout, memory_limit=self.memory_limit)
        if o.status not in ("PROVED", "REFUTED", "UNDECIDED") or not o.reason:
            return None
        if (o.status == "UNDECIDED" and family.dotted) or (given and o.status != "PROVED"):
            return None  # left unread: read with its dots written out, it may be refuted at a size
        if given:
            (line, _), name = given[0]
            o.reason += f" (the text gives {name} a value at line {line}: it holds there too)"
        read = {m.name for side in (o.lhs, o.rhs) for m in side.atoms(sympy.MatrixSymbol)}
        for w in used:  # every other name without a value is one of the general vectors or matrices
            spelled = _read_quiet(calligraphic_as_names(w.text), Scope(domains=self.scope.domains))
            if w is not where and (not isinstance(spelled, sympy.Symbol) or spelled.name not in read):
                return None
        return o

    def block_family(self, name: str, line: int) -> BlockFamily | None:
        """The block-diagonal family a name without a value (defined at ``line``) stands for: drawn open-ended, or with
        dots from its first block to its last in a definition not read (:func:`.block_families.dotted_family`)."""
        named = diagonal_name(name)
        v = self.open_vectors.get(named[0]) if named is not None else None
        if v is not None:
            drawn = v.diagonal and v.start is not None
            return BlockFamily(v.base, v.param, v.block, v.start or 0, line) if drawn else None
        tex = [d.tex for d in self.definitions if d.line == line and d.name == name and d.body is None]
        if not tex and (line, name) in self.unread_bodies:  # a definition in passing (inline math), not listed
            tex = [self.unread_bodies[(line, name)]]
        labelled = family_name(name) if named is None else None
        if len(tex) != 1 or (named is None and labelled is None):
            return None
        if labelled is not None:
            found = dotted_family(labelled.base, labelled.param, tex[0], line)
            return replace(found, raised=labelled.raised, label=labelled.label) if found is not None else None
        return dotted_family(named[0], named[1], tex[0], line) if named is not None else None

    def any_column(self, left: Link, right: Link) -> _Outcome | None:
        """A step that uses one name without a value, PROVED when the name read as a column of fresh complex numbers
        reads at one size only and the step holds there (and where it reads as a number); else None."""
        text = without_components(normalize_latex(left.text + " = " + right.text), self.scope.components)
        used = {h for h, _, _ in self.unread if _mentions(h, text, members=not self.family_defined(h))}
        if len(used) != 1:
            return None
        (head,) = used
        bodies = [self.unread_bodies.get((w.line, w.text), "") for h, w, _ in self.unread if h == head]
        if any(_DRAWN_MATRIX.search(b) for b in bodies):
            return None  # its definition draws a matrix of several columns (or lists its blocks): no column
        proved: list[tuple[int, _Outcome]] = []
        for size, scope in any_column_scopes(self.scope, head.kind, head.key, head.params):
            timeout, _ = self.limits()
            o = _run(_step_in_child, left, right, scope, timeout=timeout, memory_limit=self.memory_limit)
            if o.status == UNREAD:
                continue  # the step does not fit a value of this size
            if o.status != "PROVED" or unknown_values(o, head.key):
                return None  # an unknown function's value may itself be a vector: a proof with it a number is none
            if GENERAL_READING in o.reason:
                return None  # among general matrices the name may be a matrix, which a column or number is not
            proved.append((size, o))
        sizes = [size for size, _ in proved if size > 0]
        if len(sizes) != 1:
            return None
        o = next(o for size, o in proved if size > 0)
        o.reason = (
            f"proved with the name read as any column of {sizes[0]} complex numbers, the only size at which the step "
            "reads"
            + (" (and as any complex number)" if len(proved) > 1 else "")
            + (f"; {o.reason}" if o.reason else "")
        )
        return o

    def from_premises(self, s: AuditStep, left: Link, right: Link) -> AuditStep:
        """An undecided step PROVED as an instance of an equation the document stated before (``n = m`` in it),
        else the step as it was (see :mod:`.premises`)."""
        premises = premises_for(left, right, self.premises)
        if not premises:
            return s
        timeout, _ = self.limits()
        o = _run(premise_in_child, left, right, premises, self.scope, timeout=timeout, memory_limit=self.memory_limit)
        if o.status != "PROVED":
            return s
        return self.outcome_step(s.number, left, right, o, o.reason)

    def with_stated_transposes(self, s: AuditStep, left: Link, right: Link) -> AuditStep:
        """An undecided step among general matrices PROVED with a transpose the document stated before (``B^T =
        -B``) put in, else the step as it was (see :mod:`.transpose_premises`)."""
        rules = transpose_premises(self.premises)
        if not rules:
            return s
        timeout, _ = self.limits()
        o = _run(transposed_in_child, left, right, rules, self.scope, timeout=timeout, memory_limit=self.memory_limit)
        return self.outcome_step(s.number, left, right, o, o.reason) if o.status == "PROVED" else s

    def restating(self, s: AuditStep, left: Link, right: Link) -> AuditStep:
        """An undecided inequality row PROVED as the row above it in the display with terms moved (see
        :mod:`.restated`), else the step as it was."""
        above = self.row_above
        if s.status != "UNDECIDED" or above is None or above[0] != self.block or self.out_of_time():
            return s
        timeout, _ = self.limits()
        o = _run(restated_in_child, above[1:], left, right, self.scope, timeout=timeout, memory_limit=self.memory_limit)
        return self.outcome_step(s.number, left, right, o, o.reason) if o.status == "PROVED" else s

    def implication_role(self, chain: Chain, condition: str) -> str:
        """Set what ``chain`` is in a run of inequalities linked by implication arrows (:attr:`implications`): the
        first, a condition (:attr:`implication_condition`), or a step given the row before (:attr:`implied_by`);
        returns the words that pose the chain, else the arrow that poses it as a condition, else ""."""
        links = chain.links
        one = len(links) == 2 and links[1].relation in INEQUALITIES
        arrow, premise = self.implications.get(links[0], ("", None)) if one else ("", None)
        self.implication_condition, self.implied_by = bool(arrow), premise
        return condition or arrow

    def implied_step(self, s: AuditStep, left: Link, right: Link) -> AuditStep:
        """An inequality that follows by an implication arrow from the one before (:attr:`implied_by`): decided as
        that implication (see :mod:`.implied_bounds`); one PROVED for every value stays PROVED, one UNREAD stays."""
        premise = self.implied_by
        if premise is None or s.status == UNREAD or self.out_of_time():
            return s
        if s.status == "PROVED":
            s.reason = f"holds for every value, so also given line {premise[1].line}; {s.reason}"
            return s
        tainted = self.uses_unread(*premise)
        if tainted is not None:  # what the row before says is not known: neither is what follows from it
            s.reason = f"an implication from line {premise[1].line}, which uses {tainted[0].text.strip()}, {tainted[1]}"
            s.status, s.method, s.counterexample = "UNDECIDED", "none", None
            return s
        timeout, _ = self.limits()
        # bounds stated before (not those the run itself writes), which a refutation's values must keep
        stated = {domain_key(h.key): "" for h, link in self.bounded if link not in self.implications}
        stated.update({key: said for key, (said, _, _) in self.signs.items()})
        o = _run(implication_in_child, premise, left, right, self.scope, stated, timeout=timeout,
                 memory_limit=self.memory_limit)  # fmt: skip
        if o.status == "UNDECIDED" and not o.reason:
            o.reason = f"an implication from line {premise[1].line}: not decided ({s.reason})"
        if o.status == "PROVED" and self.signs:  # a bound the row before alone names: said here
            said = normalize_latex(left.text + " = " + right.text)
            text = normalize_latex(premise[0].text + " = " + premise[1].text)
            only = {k: v for k, v in self.signs.items() if _mentions(v[2], text) and not _mentions(v[2], said)}
            note = sign_note(set(only), {key: (b, line) for key, (b, line, _) in only.items()})
            o.reason = f"{o.reason}; {note}" if note else o.reason
        return self.outcome_step(s.number, left, right, o, o.reason)

    def filled_step(
        self, left: Link, right: Link, sides: tuple[PlaceholderSide, PlaceholderSide], *, stated_range: str = ""
    ) -> None:
        """A step that writes 子 or 母 for the parts of a fraction before it (see :mod:`.placeholders`): decided with
        them filled in, shown as written, its reason saying how they were read; UNREAD where they cannot be."""
        unread = sides[0].unread or sides[1].unread
        if unread:
            s = AuditStep(len(self.steps) + 1, right.line, left.text, right.text, UNREAD, reason=unread)
            s.end_line = right.end_line
            self.steps.append(s)
            if self.progress is not None:
                self.progress(s, s.number)
            return
        self.step(replace(left, text=sides[0].text), replace(right, text=sides[1].text), stated_range=stated_range)
        s = self.steps[-1]
        s.lhs_tex, s.rhs_tex = left.text, right.text
        notes = list(dict.fromkeys(n for n in (sides[0].note, sides[1].note) if n))
        s.reason = "; ".join(notes + ([s.reason] if s.reason else []))

    def at_written_blocks(self, o: _Outcome, read: tuple[Link, Link], blocks: BlockStep) -> _Outcome:
        """A step read block by block (:func:`.blocks.blockwise`), where block j's step is refuted at a block the text
        does not write out: read again at the blocks it does write out, where a counterexample refutes the step."""
        values = o.counterexample.values if o.status == "REFUTED" and o.counterexample is not None else {}
        at = next((v for k, v in values.items() if str(k) == blocks.letter), None)
        if at is not None and at not in (blocks.start, blocks.start + 1):
            for number in (blocks.start, blocks.start + 1):
                sides = written_block(read[0].text, read[1].text, blocks, number)
                timeout, _ = self.limits()
                again = _run(_step_in_child, replace(read[0], text=sides[0]), replace(read[1], text=sides[1]),
                             self.scope, timeout=timeout, memory_limit=self.memory_limit)  # fmt: skip
                if again.status == "REFUTED":
                    again.reason = f"refuted at block {blocks.letter} = {number}" + (
                        f"; {again.reason}" if again.reason else ""
                    )
                    return blockwise(again, blocks)
        return blockwise(o, blocks)

    def step(self, left: Link, right: Link, *, standalone: bool = False, stated_range: str = "") -> None:
        number = len(self.steps) + 1
        t0 = time.perf_counter()
        # Z_{t+s} = diag(T_0(s), T_1(s), \ddots) Z_t: the step said of block j, where it reads so
        letters = index_letters(self.scope) if self.open_vectors else ""
        blocks = block_step(left.text, right.text, self.open_vectors, letters) if self.open_vectors else None
        read = (replace(left, text=blocks[0]), replace(right, text=blocks[1])) if blocks else (left, right)
        read, said_where = with_where_after(read, self.where_after) if self.where_after else (read, "")
        if self.out_of_time():
            s = AuditStep(number, right.line, left.text, right.text, "UNDECIDED", reason=DOCUMENT_TIME_LIMIT_REASON)
        elif unit := number_with_unit(left.text + " = " + right.text, "\n".join(self.math_texts)):
            why = f"{unit} is a number with a unit, a quantity, not a number: the step is not read"
            s = AuditStep(number, right.line, left.text, right.text, UNREAD, reason=why, relation=right.relation)
        elif right.relation in _APPROX and left.text and right.text and not self.uses_unread(left, right):
            s = self.approx_step(number, left, right)
        elif right.relation in INEQUALITIES and left.text and right.text and not self.uses_unread(left, right):
            timeout, _ = self.limits()
            o = _run(inequality_in_child, left, right, self.scope, timeout=timeout, memory_limit=self.memory_limit)
            s = self.outcome_step(number, left, right, o, o.reason)
            s = self.restating(s, left, right) if self.implied_by is None else self.implied_step(s, left, right)
        elif right.relation == "\\propto" and left.text and right.text and not self.uses_unread(left, right):
            timeout, _ = self.limits()
            o = _run(_step_in_child, left, right, self.scope, timeout=timeout, memory_limit=self.memory_limit)
            s = self.outcome_step(number, left, right, as_proportion(o), as_proportion(o).reason)
        elif right.relation in (*_APPROX, *INEQUALITIES, "\\propto") and left.text and right.text:
            where, taint = self.uses_unread(left, right, before=True) or self.uses_unread(left, right)  # type: ignore[misc]
            why = f"uses {where.text.strip()}, {taint}"
            status = _tainted_status(taint)
            s = AuditStep(number, right.line, left.text, right.text, status, reason=why, relation=right.relation)
        elif right.relation != "=":
            why = f"{right.relation} is not an equality; only '=' and inequality steps are decided"
            s = AuditStep(number, right.line, left.text, right.text, UNREAD, reason=why, relation=right.relation)
            if right.relation in _STATED_AS_DEFINED and left.text and right.text:  # stated, so a premise
                self.premises.append(Premise(right.line, left, right, self.scope))
        elif not left.text or not right.text:
            s = AuditStep(number, right.line, left.text, right.text, UNREAD, reason="one side of the step is empty")
        else:
            s = self.equation_step(number, (left, right), (read, blocks), said_where, standalone=standalone,
                                   stated_range=stated_range)  # fmt: skip
        if s.status in ("UNDECIDED", UNREAD) and self.requirements and right.relation == "=" and not blocks:
            s = self.through_requirement(s, left, right, standalone=standalone, stated_range=stated_range)
        if s.status == "REFUTED" and (why := refuted_at_example((s.lhs, s.rhs), self.unread)):
            s.status, s.method, s.counterexample, s.reason = "UNDECIDED", "none", None, why  # a name free at an example
        if s.status != "PROVED" and (restated := restated_half(left.text, self.scope)) is not None:
            s = self.parity_restated(s, left, restated)
        if s.status in ("UNDECIDED", UNREAD) and right.relation == "=" and not blocks:
            s = self.offset_restated(s, left, right)
        if s.status in ("UNDECIDED", UNREAD) and self.written and right.relation == "=" and not blocks:
            s = self.with_written_values(s, left, right)
        if s.status in ("UNDECIDED", UNREAD) and (inner := equal_expectations(left.text, right.text)) is not None:
            s = self.expectation_step(s, left, right, inner)
        expectation_doubt(s, left.text + right.text)
        if s.status == "PROVED" and self.signs:
            self.sign_noted(s, left, right)
        self.polar_stated(s)
        if s.status in ("PROVED", "REFUTED") and (polar := polar_note((s.lhs, s.rhs), self.scope.symbols)):
            s.reason = f"{s.reason}; {polar}" if s.reason else polar
        if s.status == "UNDECIDED" and s.counterexample is None and not self.out_of_time():
            s = self.from_premises(s, left, right)
        if s.status == "UNDECIDED" and s.reason.startswith(GENERAL_READING) and not self.out_of_time():
            s = self.with_stated_transposes(s, left, right)  # undecided by the general reading alone, no other doubt
        if s.status == "PROVED" and written_denominators(left.text + " " + right.text):
            self.zero_under_stated(s, left, right)
        if s.status in ("PROVED", "UNDECIDED") and right.relation == "=" and left.text and right.text and not blocks:
            undecided = s.status == "UNDECIDED"
            if s.method != _RESTATED:  # a definition whose value is not read is no premise (.solution_forms)
                self.premises.append(Premise(right.line, left, right, self.scope, undecided))  # blocks: no premise
        self.primed_points = point_names(self.math_texts) if self.primed_points is None else self.primed_points
        primed_step(s, left.text + " = " + right.text, self.scope, self.primed_points)  # a''(s), f''(\xi)
        labelled_call_step(s, left.text + " = " + right.text, self.scope)  # a_{\text{lin}}(s)
        if s.status == "REFUTED" and (decorated := self.undefined_decorations(left.text + " = " + right.text)):
            s.status, s.method, s.counterexample = "UNDECIDED", "none", None
            s.reason = (
                f"uses {decorated[0]}, a name written with a decoration that the document gives no value: read as a "
                "name of its own, which the text may relate to another in words; the counterexample may not hold: "
                "not decided"
            )
        kept = s.status in ("PROVED", "UNDECIDED") and right.relation in INEQUALITIES and s.counterexample is None
        self.row_above = (self.block, left, right, self.scope) if kept else None
        s.seconds = time.perf_counter() - t0
        s.end_line = right.end_line
        self.steps.append(s)
        if self.progress is not None:
            self.progress(s, number)

    def equation_step(
        self,
        number: int,
        written: tuple[Link, Link],
        reading: tuple[tuple[Link, Link], BlockStep | None],
        said_where: str,
        *,
        standalone: bool,
        stated_range: str,
    ) -> AuditStep:
        """An equation step with both sides written, decided: ``written`` its sides as written, ``reading`` the sides
        as read (the blocks a step is read by, if any), ``said_where`` what a display after defined for it."""
        left, right = written
        read, blocks = reading
        if self.uses_unread(*read):
            s = self.tainted_step(number, left, right)
            return (self.member_step(number, left, right) or s) if s.status == UNREAD else s
        timeout, cut = self.limits()
        # PE(p + k, 2i) where PE is defined by parity: i the integer index the definition has (.parity_calls)
        scope, said_index = parity_step_scope((read[0].text, read[1].text), self.scope) or (self.scope, "")
        scope, said_polar = (
            polar_scope((read[0].text, read[1].text), right.line, scope, self.polar) if self.polar else (scope, "")
        )
        o = _run(_step_in_child, *read, scope, timeout=timeout, memory_limit=self.memory_limit)
        o = self.at_written_blocks(o, read, blocks) if blocks else o
        o = (self.through_blocks(left, right) or o) if o.status == UNREAD and not blocks else o
        o = self.with_raised_family(o, read, scope) if not blocks else o
        for said in (said_index, said_where, said_polar):
            o.reason = (f"{said}; {o.reason}" if o.reason else said) if said else o.reason
        if cut and o.status == "UNDECIDED" and o.reason.startswith("time limit of"):
            o.reason = DOCUMENT_TIME_LIMIT_REASON
        sides = [e for e in (o.lhs, o.rhs) if e is not None]
        s = AuditStep(
            number, right.line, left.text, right.text, o.status, o.method, o.reason, o.counterexample,
            o.lhs, o.rhs, describe_domains(sides, self.declared, self.inferred) if sides else [],
        )  # fmt: skip
        self.reading_doubts(s, read)
        self.polar_now = frozenset(n for n, p in self.polar.items() if scope.symbols.get(n) is p.definition)
        if s.status == "REFUTED":
            self.doubt(s, left, right, standalone=standalone, stated_range=stated_range)
        if s.status == "REFUTED" and self.refuted_off_given(s):  # refuted again, at the value given
            self.doubt(s, left, right, standalone=standalone, stated_range=stated_range)
        if (
            s.status == "REFUTED"
            and self.polar_now
            and (why := refuted_polar_doubt(s, [self.polar[n] for n in self.polar_now]))
        ):
            s.status, s.method, s.counterexample, s.reason = "UNDECIDED", "none", None, why
        self.polar_now = frozenset()
        if s.status == "UNDECIDED" and self.settings:
            s = self.at_settings(s, left, right)
        return s

    def unpolar(self, families: Iterable[str]) -> list[str]:
        """``families`` but those on a letter the step reads as its stated polar form: ``‖q‖`` is then the modulus
        of ``q`` by the statement itself (``q = ‖q‖ e^{i t}``), never the norm of a member ``q_m``."""
        return [f for f in families if f.strip().lstrip("\\").split("_")[0] not in self.polar_now]

    def polar_stated(self, s: AuditStep) -> None:
        """Records the polar form the step states (``q = \\|q\\| e^{i\\theta_q}``), if any (:mod:`.polar_forms`)."""
        if s.status in ("PROVED", "UNDECIDED") and not self.polar.keys() & self.scope.symbols.keys():
            before = "\n".join(self.math_texts[: self.block])
            end = section_end(self.heading_levels, s.line)
            if (found := stated_polar((s.lhs, s.rhs), s.line, self.scope, before, end)) is not None:
                self.polar.setdefault(found.definition.name, found)

    def through_requirement(
        self, s: AuditStep, left: Link, right: Link, *, standalone: bool, stated_range: str
    ) -> AuditStep:
        """A step that states a posed function's value, read through the requirement that poses it (see
        :mod:`.posed_requirements`): its verdict there, its reason saying so; else ``s``. A function of the
        requirement whose definition was not read, or a reading that fails, leaves ``s``."""
        text = normalize_latex(left.text + " = " + right.text)
        if self.out_of_time() or not any(writes(name, text) for name in self.requirements):
            return s
        usable = self.usable_requirements()
        found = read_through((left, right), usable, self.scope) if usable else None
        if found is None or not left.text or not right.text:
            return s
        sides, said = found.sides, found.said
        if sides is None:  # f_q \cdot f_k of complex values: said, the step as it was
            s.reason = f"{s.reason}; {said}" if s.reason and s.status == "UNDECIDED" else s.reason
            return s
        tainted = self.uses_unread(*sides)
        if tainted is not None and tainted != self.uses_unread(left, right):
            return s
        if found.shifted and not self.requirement_holds(found, sides[0].line):
            held = "its side is not shown to stay the same with the positions moved along the arguments"
            s.reason = f"{s.reason}; {said}, but {held}: not read so" if s.status == "UNDECIDED" else s.reason
            return s
        t = self.equation_step(s.number, sides, (sides, None), "", standalone=standalone, stated_range=stated_range)
        if t.status == UNREAD:
            return s
        t.lhs_tex, t.rhs_tex, t.relation = left.text, right.text, s.relation
        t.reason = f"{said}; {t.reason}" if t.reason else said
        return t

    def requirement_holds(self, found: Through, line: int) -> bool:
        """Whether the requirement's side, with the definitions in force, stays the same with the positions moved
        along the arguments (``m - n`` kept): PROVED in every reading; else g is no function of its arguments there,
        and nothing is read through it."""
        return self.status_as((Link("", line), Link("", line, "=")), found.side, found.shifted) == "PROVED"

    def reading_doubts(self, s: AuditStep, read: tuple[Link, Link]) -> None:
        """The doubts a decided step meets whatever it says: its notation (:meth:`notation_doubt`), ``R^T_m`` beside
        a number T (:func:`.raised_t.raised_t_doubt`), and a name complex only as a case (:meth:`complex_as_case`)."""
        if s.status in ("PROVED", "REFUTED"):
            self.notation_doubt(s, read)
            where = (self.math_texts, self.scope, self.declared)  # R^T_m where T is a number: which reading?
            raised_t_doubt(s, (read[0].text, read[1].text), where, functools.partial(self.status_as, read))
        if s.status in ("PROVED", "REFUTED") and (self.cased_complex or self.complex_ended):
            self.complex_as_case(s, read)

    def expectation_step(self, s: AuditStep, left: Link, right: Link, inner: tuple[str, str]) -> AuditStep:
        """``\\mathbb{E}[A] = \\mathbb{E}[B]``: PROVED where the step ``A = B``, decided as any other (its notation
        doubted as any other's), is PROVED, the reason saying so (:mod:`.equal_expectations`); else ``s`` as it was."""
        read = (replace(left, text=inner[0]), replace(right, text=inner[1]))
        if self.out_of_time():
            return s
        # what it averages over may not be whole: the positions whole by default only are any real number here
        real = {k: "real" for k in AUDIT_DEFAULT_DOMAINS if k not in self.declared and k not in self.inferred}
        auditor = replace(self, scope=self.scope.with_domains({**self.domains(), **real}))
        if self.uses_unread(*read):
            found = auditor.tainted_step(s.number, *read)
        else:
            timeout, _ = self.limits()
            o = _run(_step_in_child, *read, auditor.scope, timeout=timeout, memory_limit=self.memory_limit)
            o = (auditor.through_blocks(*read) or o) if o.status == UNREAD else o
            found = self.outcome_step(s.number, *read, o, o.reason)
        if found.status == "PROVED" and not self.uses_unread(*read):
            auditor.reading_doubts(found, read)  # the doubts of any step read so
        if found.status != "PROVED":
            return s
        return replace(found, lhs_tex=left.text, rhs_tex=right.text, reason=expectations_said(found.reason, real))

    def status_as(self, read: tuple[Link, Link], left: str, right: str) -> str:
        """The status of the step ``read`` with its sides written ``left`` and ``right`` instead."""
        timeout, _ = self.limits()
        sides = (replace(read[0], text=left), replace(read[1], text=right))
        return _run(_step_in_child, *sides, self.scope, timeout=timeout, memory_limit=self.memory_limit).status

    def complex_as_case(self, s: AuditStep, read: tuple[Link, Link]) -> None:
        """A decided step that uses a name the words make complex only as a case ("if $z$ is complex") is decided
        again with the name complex: UNDECIDED where the two readings disagree."""
        written = domain_key(read[0].text + read[1].text)  # |e^{iz}| with z real is read as 1: the text, too
        used = {domain_key(str(x)) for e in (s.lhs, s.rhs) if isinstance(e, sympy.Basic) for x in e.free_symbols}
        cased = {**self.complex_ended, **self.cased_complex}  # "if $z$ is complex", or complex in a section past
        used |= {k for k in cased if k in written}
        keys = {k for k in used & set(cased) if self.domains().get(k, "real") != "complex"}
        if not keys:
            return
        scope = redeclared(self.scope.with_domains({**self.domains(), **dict.fromkeys(keys, "complex")}), keys)
        timeout, _ = self.limits()
        again = _run(_step_in_child, *read, scope, timeout=timeout, memory_limit=self.memory_limit)
        if again.status == s.status:
            return
        said = ", ".join(f"{k} (line {cased[k]})" for k in sorted(keys))
        how = ("which the text poses as a case" if keys <= set(self.cased_complex)
               else "as a section that has ended says in words")  # fmt: skip
        s.reason = f"{s.status} with {said} real, {again.status} with it complex, {how}: not decided"
        s.status, s.method, s.counterexample = "UNDECIDED", "none", None

    def refuted_off_given(self, s: AuditStep) -> bool:
        """A counterexample that sets a name the text gives a value in passing (``$q = 3$``) to another value refutes
        nothing: the value is an example or a condition. Where the step reached the name through a definition
        (``p = q + 1``), its reader did not stop there (:func:`.reading.for_every_value`): UNDECIDED here, unless
        the step is false at the value given too (its sides with the values taken), then REFUTED with that
        counterexample (True: the caller weighs its doubts)."""
        values = s.counterexample.values if s.counterexample is not None else {}
        given = [
            (str(k), v)
            for k, v in values.items()
            if (d := self.scope.symbols.get(str(k))) is not None and d.stated_value and v != d.body
        ]
        if not given:
            return False
        said = ", ".join(f"{k} = {v} (the text gives {k} = {self.scope.symbols[k].body} at line "
                         f"{self.scope.symbols[k].line})" for k, v in given)  # fmt: skip
        timeout, _ = self.limits()
        meant = values_meant(self.scope)
        at = (_run(at_values_in_child, s.lhs, s.rhs, meant, timeout=timeout, memory_limit=self.memory_limit)
              if meant is not None else _Outcome("UNDECIDED"))  # fmt: skip
        if at.status == "REFUTED" and at.counterexample is not None:
            s.counterexample, s.lhs, s.rhs = at.counterexample, at.lhs, at.rhs
            s.reason = f"false at {said}, {REFUTED_AT_THE_VALUE}"
            return True
        s.status, s.method, s.counterexample = "UNDECIDED", "none", None
        s.reason = f"false at {said}, which need not be the value given: not decided"
        return False

    def undefined_decorations(self, text: str) -> list[str]:
        """The names ``text`` writes with a decoration (``\\hat{x}_m``, ``w^\\star``) that no definition of the
        document reads (:mod:`..readers.decorated_names`): names of their own, without a value."""
        return undefined_decorations(apply_aliases(Src.of(normalize_latex(text)), self.scope.aliases).text)

    def notation_doubt(self, s: AuditStep, read: tuple[Link, Link]) -> None:
        """A decided step whose notation may mean another statement (see :mod:`..readers.decorated_plain` and
        :mod:`.notation_doubts`): a letter decorated and bare, a raised e where e has a value, a log with no base,
        a starred name with a value the reader did not take. UNDECIDED, unless every reading gives the verdict."""
        text = read[0].text + " = " + read[1].text
        letter = decorated_beside_plain(text)
        why, others, before = "", [], "\n".join(self.math_texts[: self.block])
        if raised_e_with_value(text, before):
            why = "raises e, which the document gives a value: Euler's number or the text's e?"
        elif said_by_form(s.reason) and (value := i_given_value("\n".join(self.math_texts))):
            why = f"writes i as the imaginary unit by its form, and the document gives i the value {value}"
        elif letter_for_i := bound_i_beside_unit(text):  # decided with the i of e^{...} the unit: where it reads
            renamed = tuple(replace(x, text=with_index_renamed(x.text, letter_for_i)) for x in read)
            timeout, _ = self.limits()
            other = _run(_step_in_child, *renamed, self.scope, timeout=timeout, memory_limit=self.memory_limit).status
            if other in ("PROVED", "REFUTED") and other != s.status:
                why = (
                    f"sums over i and raises e to a power with a bare i: {s.status} as read, {other} with that i the "
                    "imaginary unit and the sum's index another letter"
                )
        elif function := called_and_bare(text, list(self.scope.functions)):
            why = f"calls {function}, a function the document defines, and writes it bare: the function or a number?"
        elif not self.scope.index_i and (value := valued_i(text, before)):
            why = f"writes a bare i, which the document gives the value {value}: the imaginary unit or that value?"
            others = [tuple(replace(x, text=with_i_as(x.text, value)) for x in read)]
        elif s.status == "REFUTED" and (star := starred_with_value(text, before)):
            why = f"{star} is given a value in the text, which the reader does not use: the counterexample may not hold"
        # z = a + ib, then \\vec{z} = [a \\\\ b]: the document says the two are one pair, so not a doubt
        elif letter and all(p[0] != letter for p in self.scope.complex_pairs):
            why = f"writes {letter} both decorated and bare: one name, or two (a vector and a number)?"
            others = [tuple(replace(x, text=as_own_name(x.text, letter)) for x in read)] if s.status == "PROVED" else []
        elif unbased_logs(text):
            why = f"writes \\log with no base: {s.status} read as the natural log, not so with base 10 or 2"
            others = [tuple(replace(x, text=with_log_base(x.text, b)) for x in read) for b in (10, 2)]
        elif spaced_numbers((read[0].text, read[1].text)):
            why = "ends a side with a number in brackets after a space: an equation's number, or a factor?"
            others = [tuple(replace(x, text=without_spaced_number(x.text)) for x in read)]
        timeout, _ = self.limits()
        if others and all(
            _run(_step_in_child, *o, self.scope, timeout=timeout, memory_limit=self.memory_limit).status == s.status
            for o in others
        ):
            return  # the same verdict under every reading
        if why:
            s.status, s.method, s.counterexample, s.reason = "UNDECIDED", "none", None, why + ": not decided"


#: how the reason of a step whose counterexample breaks an equation stated before begins (:mod:`.stated_before`)
_BREAKS = "the counterexample breaks line"
#: the method of a step that writes again a definition whose value is not read (:meth:`Auditor.offset_restated`)
_RESTATED = "definition, written again"
#: the method of a step proved with every name a general matrix (so whatever vector or matrix a name stands for)
_ALGEBRA = "matrix algebra"
#: ``\\simeq`` is written for ``\\approx``: decided the same way
_APPROX = ("\\approx", "\\simeq")
_SET_TAINT = "a set"
