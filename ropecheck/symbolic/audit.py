"""Auditing a derivation: every step of every display equation of a Markdown or LaTeX document, decided.

:func:`audit_document` reads the document's display math (:mod:`.auditdoc`), cuts chains
``A = B = C`` into the steps ``A = B`` and ``B = C``, carries what the document defines into
later steps, and decides each step with the claim checker's decision procedure
(:func:`.decide.decide`):

* **PROVED** -- a rewrite reduced the difference of the two sides to exactly 0;
* **REFUTED** -- exact values at which the two sides differ, checked in exact arithmetic or
  certified at 50 digits;
* **UNDECIDED** -- neither (also: a limit of :mod:`.limits` or the step's time limit was reached);
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
audit itself never raises on a document's content. Results are data (:class:`AuditResult`);
rendering is :mod:`.auditrender`.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import sympy
from sympy import MatrixBase, Symbol

from .. import isolate
from ..errors import ClaimLimitError, ClaimParseError, RopeCheckError
from .auditdoc import Chain, Link, MathBlock, chains, continues, ends_open, math_blocks, stated_equality
from .decide import decide
from .latex_syntax import comma_pattern_key, conjugated_forms, normalize_latex, read_latex_side, trig_ambiguities
from .latex_text import top_level
from .latex_tree import index_sums, remember_parse
from .limits import CLAIM_MEMORY_LIMIT, CLAIM_TIMEOUT, check_text, check_work
from .proof import Counterexample, Verdict, expr_text
from .scope import (
    Definition,
    Scope,
    describe_domains,
    domain_key,
    domain_symbol,
    merge_domains,
    parse_declaration,
)
from .sympy_syntax import INNER_PRODUCTS

__all__ = [
    "AUDIT_DEFAULT_DOMAINS",
    "STEP_TIMEOUT",
    "DOCUMENT_TIMEOUT",
    "DOCUMENT_TIME_LIMIT_REASON",
    "AuditDefinition",
    "AuditResult",
    "AuditStep",
    "audit_document",
    "unread_reason_key",
]

#: The time limit of one step, in seconds (the claim checker's).
STEP_TIMEOUT = CLAIM_TIMEOUT
#: The time limit of a whole document, in seconds: a derivation of a few hundred steps takes under a
#: minute; past this the remaining steps are UNDECIDED with :data:`DOCUMENT_TIME_LIMIT_REASON`.
DOCUMENT_TIMEOUT = 600.0
#: The reason of a step the document's time limit left undecided.
DOCUMENT_TIME_LIMIT_REASON = "document time limit reached"
#: Domains a document gets without declaring them: positions are whole numbers.
AUDIT_DEFAULT_DOMAINS: dict[str, str] = {"m": "integer", "n": "integer"}
UNREAD = "UNREAD"
_STATUSES = ("PROVED", "REFUTED", "UNDECIDED", UNREAD)
_DEFINING = (":=", "\\coloneqq", "\\triangleq", "\\equiv")


@dataclass
class AuditStep:
    """One step ``lhs = rhs`` of the document and its verdict.

    ``status`` is PROVED, REFUTED, UNDECIDED or UNREAD; ``reason`` says why a step is UNREAD or
    UNDECIDED (the limit, the construct that could not be read, at which column), and notes a
    second reading when there was one. ``lhs``/``rhs`` are the sides as read (None if unread).
    """

    number: int
    line: int
    lhs_tex: str
    rhs_tex: str
    status: str
    method: str = "none"
    reason: str = ""
    counterexample: Counterexample | None = None
    lhs: Any = None
    rhs: Any = None
    domains: list[dict[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    relation: str = "="
    end_line: int = 0

    @property
    def lines(self) -> str:
        """``12`` or ``12-15``: the lines the step's right side spans."""
        return str(self.line) if self.end_line <= self.line else f"{self.line}-{self.end_line}"

    @property
    def decided(self) -> bool:
        return self.status in ("PROVED", "REFUTED")

    def to_dict(self) -> dict[str, Any]:
        read = self.lhs is not None
        return {
            "number": self.number,
            "line": self.line,
            "end_line": max(self.end_line, self.line),
            "step": f"{self.lhs_tex} {self.relation} {self.rhs_tex}",
            "lhs_tex": self.lhs_tex,
            "rhs_tex": self.rhs_tex,
            "status": self.status,
            "method": self.method,
            "reason": self.reason,
            "read_as": {"lhs": expr_text(self.lhs), "rhs": expr_text(self.rhs)} if read else None,
            "counterexample": self.counterexample.to_dict() if self.counterexample else None,
            "domains": self.domains,
            "seconds": round(self.seconds, 6),
        }


@dataclass
class AuditDefinition:
    """A name the document defined (``kind``: symbol, pattern or function), or tried to and could not."""

    line: int
    name: str
    kind: str
    tex: str
    body: Any = None
    domain: str = ""
    reason: str = ""
    params: tuple[str, ...] = ()

    @property
    def read(self) -> bool:
        return self.body is not None

    @property
    def head(self) -> str:
        """The name as defined: ``q``, ``theta_i``, ``f_{q}(x_{m}, m)``."""
        if self.kind == "pattern" and self.name.endswith(",*}"):  # R_{\theta,*}: the last subscript
            return self.name.replace(",*}", f",{self.params[0]}}}")
        if self.kind == "pattern":
            return f"{self.name.lstrip(chr(92))}_{self.params[0]}" if self.params else self.name
        if self.kind == "function":
            return f"{self.name}({', '.join(self.params)})"
        return self.name

    def to_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "name": self.name,
            "head": self.head,
            "kind": self.kind,
            "definition": self.tex,
            "read_as": expr_text(self.body) if self.body is not None else None,
            "domain": self.domain,
            "reason": self.reason,
        }


@dataclass
class AuditResult:
    """Every step and definition of one document, in order, with the domains stated in it."""

    path: str
    steps: list[AuditStep]
    definitions: list[AuditDefinition]
    declared: dict[str, str]
    seconds: float
    timeout: float | None
    document_timeout: float | None = None
    inferred: dict[str, str] = field(default_factory=dict)
    inline_formulas: int = 0

    def counts(self) -> dict[str, int]:
        return {s: sum(1 for x in self.steps if x.status == s) for s in _STATUSES}

    def unread_by_reason(self) -> dict[str, int]:
        """How many steps are UNREAD for each reason (its location and hints dropped), most frequent first."""
        found: dict[str, int] = {}
        for s in self.steps:
            if s.status == UNREAD:
                key = unread_reason_key(s.reason)
                found[key] = found.get(key, 0) + 1
        return dict(sorted(found.items(), key=lambda kv: (-kv[1], kv[0])))

    @property
    def decided_fraction(self) -> float | None:
        """The share of steps PROVED or REFUTED (definitions are not steps); None when there is no step."""
        return sum(x.decided for x in self.steps) / len(self.steps) if self.steps else None

    @property
    def nothing_to_decide(self) -> str | None:
        """A sentence that says the document has no step to decide, and what it has instead; None if it has one."""
        if self.steps:
            return None
        n, k = len(self.definitions), self.inline_formulas
        found = [f"{n} definition{'' if n == 1 else 's'}"] if n else []
        found += [f"{k} inline formula{'' if k == 1 else 's'} in passing"] if k else []
        has = f"it has {' and '.join(found)}" if found else "it has no math"
        return f"nothing to decide: no step (an equality A = B in display math) was found; {has}"

    @property
    def left_by_time_limit(self) -> int:
        """How many steps the document's time limit left undecided (0 when it was not reached)."""
        return sum(1 for x in self.steps if x.reason == DOCUMENT_TIME_LIMIT_REASON)

    @property
    def exit_code(self) -> int:
        """1 when a step is REFUTED, else 0."""
        return 1 if any(x.status == "REFUTED" for x in self.steps) else 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": "ropecheck-audit/1",
            "file": self.path,
            "counts": self.counts(),
            "steps_total": len(self.steps),
            "decided_fraction": None if self.decided_fraction is None else round(self.decided_fraction, 4),
            "nothing_to_decide": self.nothing_to_decide,
            "unread_by_reason": self.unread_by_reason(),
            "exit_code": self.exit_code,
            "declared_domains": self.declared,
            "inferred_domains": {k: {"domain": "complex", "from": v} for k, v in self.inferred.items()},
            "default_domains": {k: v for k, v in AUDIT_DEFAULT_DOMAINS.items() if k not in self.declared},
            "time_limit_per_step": self.timeout,
            "document_time_limit": self.document_timeout,
            "steps_left_by_time_limit": self.left_by_time_limit,
            "definitions": [d.to_dict() for d in self.definitions],
            "steps": [s.to_dict() for s in self.steps],
            "seconds": round(self.seconds, 3),
        }


def unread_reason_key(reason: str) -> str:
    """An UNREAD step's reason without where it happened or how to fix it: what steps are counted by.

    Example:
        >>> unread_reason_key("one side of the step is empty (line 3, column 5)")
        'one side of the step is empty'
    """
    key = re.sub(r"^(cannot parse LaTeX) '.*?': ", r"\1: ", reason, flags=re.S)
    key = re.split(r" \(|; ", key, maxsplit=1)[0]
    return re.sub(r"\s+", " ", key).strip() or "cannot read the step"


# --------------------------------------------------------------------------- heads of definitions

_BASE = r"\\[A-Za-z]+|[A-Za-z]"
_SUB = r"\{\s*\\\{[^{}]*?\\\}\s*\}|\{[^{}]+\}|\\[A-Za-z]+|[A-Za-z0-9]"
_SYMBOL_HEAD = re.compile(
    rf"^\s*(?P<base>{_BASE})\s*(?:_\s*(?P<sub>{_SUB}))?\s*(?P<label>\^\s*\{{\s*\(\s*[A-Za-z0-9]+\s*\)\s*\}})?\s*$"
)
_FUNCTION_HEAD = re.compile(
    r"^\s*(?P<name>\\(?:text|operatorname|mathrm|textrm|mathit)\s*\{(?P<text>[A-Za-z\\_]+)\}"
    rf"|[A-Za-z](?:\s*_\s*(?:{_SUB}))?)\s*(?:\\left\s*)?\((?P<args>[^()]*?)(?:\\right\s*)?\)\s*$"
)
_COMMA_HEAD = re.compile(
    rf"^\s*(?:{_BASE})(?:\s*\^\s*(?:\{{[^{{}}]*\}}|[A-Za-z0-9]))?\s*_\s*\{{[^{{}}]*,\s*(?P<param>[A-Za-z]|\\[A-Za-z]+)\s*\}}\s*$"
)
_NOT_DEFINABLE = {"e", "i", "\\pi", "\\cos", "\\sin", "\\tan", "\\exp", "\\log", "\\ln", "\\Re", "\\Im", "\\sqrt"}


@dataclass(frozen=True)
class _Head:
    kind: str  # symbol, pattern, function
    key: str  # the scope's key: a symbol's name, a pattern's base as written, a function's name
    params: tuple[str, ...] = ()


def _head(tex: str, scope: Scope) -> _Head | None:
    """What the left side of a possible definition would define, or None when it is not a bare name."""
    text = normalize_latex(tex)
    m = _FUNCTION_HEAD.match(text)
    if m:
        if m.group("text"):
            name = m.group("text").replace("\\_", "_")
        else:
            raw = m.group("name").replace(" ", "")
            if raw in _NOT_DEFINABLE or raw[0] in "ei" and len(raw) == 1:
                return None
            probe = _read(raw + "(x)", Scope(domains=scope.domains))
            if not isinstance(probe, sympy.core.function.AppliedUndef) and not isinstance(probe, MatrixBase):
                return None
            name = probe.func.__name__ if isinstance(probe, sympy.core.function.AppliedUndef) else raw
        params = []
        for p in (x for x in m.group("args").split(",")):
            sym = _read(p, Scope(domains=scope.domains)) if p.strip() else None
            if not isinstance(sym, Symbol):
                return None
            params.append(sym.name)
        if not params or len(set(params)) != len(params):
            return None
        return _Head("function", name, tuple(params))
    m = _COMMA_HEAD.match(text)
    if m:  # R_{\theta, m}: a pattern over the last subscript
        name = re.sub(r"\s+", "", m.group(0)).lstrip("\\")
        return _Head("pattern", comma_pattern_key(name), (m.group("param").lstrip("\\"),))
    m = _SYMBOL_HEAD.match(text)
    if not m or m.group("base") in _NOT_DEFINABLE or m.group("base") in ("\\langle", "\\left", "\\mathit"):
        return None
    sub = (m.group("sub") or "").strip("{}").strip()
    if sub and re.fullmatch(r"[A-Za-z]|\\[A-Za-z]+", sub) and not m.group("label"):
        return _Head("pattern", m.group("base"), (sub.lstrip("\\"),))
    sym = _read(text, Scope(domains=scope.domains))
    if not isinstance(sym, Symbol):
        return None
    return _Head("symbol", sym.name)


def _read(tex: str, scope: Scope) -> Any:
    try:
        return read_latex_side(tex, 0, scope)
    except (ClaimParseError, ClaimLimitError, RecursionError):
        return None


def _defined(head: _Head, tex: str, scope: Scope) -> bool:
    if head.kind == "function":
        return head.key in scope.functions
    if head.kind == "pattern":
        return head.key in scope.patterns
    base = _SYMBOL_HEAD.match(normalize_latex(tex))
    covered = bool(base and base.group("sub") and base.group("base") in scope.patterns)
    return head.key in scope.symbols or covered or comma_pattern_key(head.key) in scope.patterns


# --------------------------------------------------------------------------- reading and deciding, in a child


@dataclass
class _Outcome:
    status: str
    method: str = "none"
    reason: str = ""
    counterexample: Counterexample | None = None
    lhs: Any = None
    rhs: Any = None
    definition: Definition | None = None
    uses_head: bool = False


def _error_text(exc: BaseException, link: Link) -> str:
    if isinstance(exc, ClaimParseError) and exc.position is not None:
        message = str(exc).rsplit(" (at column ", 1)[0]
        return f"{message} (line {link.line}, column {link.column + exc.position + 1})"
    return str(exc)


def _define_in_child(head: _Head, link: Link, body: Link, scope: Scope) -> _Outcome:
    """Read a definition's right side (its parameters bound) and whether it uses the name it defines."""
    bound_scope = scope
    if head.kind == "function":
        bound_scope = replace(scope, symbols={k: v for k, v in scope.symbols.items() if k not in head.params})
    try:
        check_text(body.text)
        value = _read_bound(body, bound_scope, frozenset(head.params))
    except (ClaimParseError, ClaimLimitError) as exc:
        return _Outcome(UNREAD, reason=_error_text(exc, body))
    names = _names(value)
    uses = head.key in names if head.kind != "pattern" else False
    if head.kind == "function":
        uses = any(f.func.__name__ == head.key for f in _applied(value))
    domains = dict(scope.domains)
    params = tuple(domain_symbol(p, domains) for p in head.params)
    if head.kind == "pattern" and not any(p in _free(value) for p in params):  # x_q = ...: a plain name
        name = _read(link.text, Scope(domains=scope.domains))
        if not isinstance(name, Symbol):
            return _Outcome(UNREAD, reason="cannot read the name it defines")
        d = Definition("symbol", name.name, value, (), link.text, link.line)
        return _Outcome("DEFINED", definition=d, uses_head=name.name in names, lhs=name)
    d = Definition(head.kind, head.key, value, params, link.text, link.line)
    return _Outcome("DEFINED", definition=d, uses_head=uses)


def _read_bound(link: Link, scope: Scope, bound: frozenset[str]) -> Any:
    """A definition's right side, its parameters kept as symbols (``i`` an index, not the imaginary unit)."""
    return read_latex_side(link.text, 0, scope, bound=bound)


def _free(value: Any) -> set[Any]:
    if isinstance(value, MatrixBase):
        return set().union(*(e.free_symbols for e in value)) if value else set()
    return set(value.free_symbols) if isinstance(value, sympy.Basic) else set()


def _names(value: Any) -> set[str]:
    return {s.name for s in _free(value) if isinstance(s, Symbol)} | {
        str(b.label) for b in _atoms(value, sympy.IndexedBase)
    }


def _atoms(value: Any, kind: Any) -> set[Any]:
    if isinstance(value, MatrixBase):
        return set().union(*(e.atoms(kind) for e in value)) if value else set()
    return value.atoms(kind) if isinstance(value, sympy.Basic) else set()


def _applied(value: Any) -> set[Any]:
    return _atoms(value, sympy.core.function.AppliedUndef)


_CONVENTION_NOTE = {
    "real": "<u, v> = Re sum u_i conj(v_i)",
    "conjugate-second": "<u, v> = sum u_i conj(v_i)",
    "conjugate-first": "<u, v> = sum conj(u_i) v_i",
}
_ORDINAL = ("first", "second", "third", "fourth", "fifth", "sixth")


def _readings(lhs: Link, rhs: Link, scope: Scope) -> tuple[list[tuple[str, Any, Any]], str]:
    """The distinct readings of a step (the first is the default), each with a note, or none and why.

    A trig argument without parentheses is read a person's way and the parser's way; an inner
    product of complex values in the real convention and the two others (on real values they
    agree, and the readings collapse into one).
    """
    out: list[tuple[str, Any, Any]] = []
    problem = ""
    ambiguous = bool(trig_ambiguities(lhs.text) or trig_ambiguities(rhs.text))
    inner = bool(re.search(r"\\langle|<", lhs.text + rhs.text))
    options = [(narrow, convention) for narrow in ((True, False) if ambiguous else (True,))
               for convention in (INNER_PRODUCTS if inner else ("real",))]  # fmt: skip
    for narrow, convention in options:
        parts = [f"the trig argument as {'a person' if narrow else 'the parser'} reads it"]
        note = ", ".join(parts[: int(ambiguous)] + ([_CONVENTION_NOTE[convention]] if inner else []))
        scope_here = replace(scope, inner_product=convention)
        try:
            left = read_latex_side(lhs.text, 0, scope_here, narrow=narrow)
            try:
                right = read_latex_side(rhs.text, 0, scope_here, narrow=narrow)
            except ClaimParseError as exc:
                raise _Located(exc, rhs) from None
            left, right = index_sums(left, right, dict(scope.domains), scope.symbols)
        except _Located as exc:
            problem = problem or _error_text(exc.error, exc.link)
            continue
        except ClaimParseError as exc:
            problem = problem or _error_text(exc, lhs)
            continue
        if isinstance(left, MatrixBase) != isinstance(right, MatrixBase) or (
            isinstance(left, MatrixBase) and left.shape != right.shape
        ):
            shape = lambda e: f"a {e.rows}x{e.cols} matrix" if isinstance(e, MatrixBase) else "a number"
            problem = problem or f"the sides are {shape(left)} and {shape(right)}; they cannot be equal"
            continue
        if all((left, right) != (a, b) for _, a, b in out):
            out.append((note, left, right))
    return out, problem


_SUBSCRIPTED = re.compile(r"^(.+?)_\{(.+)\}$")


def _undefined_family(left: Any, right: Any) -> str | None:
    """An undefined name used with related subscripts (``R_{m}``, ``R_{n}``, ``R_{n - m}``), or None.

    Such a family stands for something the document did not define (a matrix of the position);
    read as free numbers its members are unrelated, so a counterexample would not refute the step.
    """
    groups: dict[str, set[str]] = {}
    for s in _free(left) | _free(right):
        m = _SUBSCRIPTED.match(getattr(s, "name", ""))
        if m:
            groups.setdefault(m.group(1), set()).add(m.group(2))
    for base, subs in sorted(groups.items()):
        compound = sorted(x for x in subs if re.search(r"[-+*/ ]", x))
        if len(subs) >= 2 and compound:
            return f"{base}_{{{compound[0]}}}"
    return None


class _Located(Exception):
    def __init__(self, error: ClaimParseError, link: Link) -> None:
        super().__init__(str(error))
        self.error, self.link = error, link


def _step_in_child(lhs: Link, rhs: Link, scope: Scope) -> _Outcome:
    """Read a step (every reading), check the work limits, decide; the best verdict over the readings."""
    for link in (lhs, rhs):
        try:
            check_text(link.text)
        except ClaimParseError as exc:
            return _Outcome(UNREAD, reason=_error_text(exc, link))
    try:
        readings, problem = _readings(lhs, rhs, scope)
    except ClaimLimitError as exc:
        return _Outcome("UNDECIDED", reason=f"stopped at a limit: {exc}")
    except RecursionError:
        return _Outcome(UNREAD, reason="the step nests too deeply to read")
    if not readings:
        return _Outcome(UNREAD, reason=problem or "cannot read the step")
    isolate.send(("read", readings[0][1], readings[0][2]))
    results: list[_Outcome] = []
    for _, left, right in readings:
        try:
            if left != right:
                check_work(left, right)
            verdict, method, cex = decide(left, right)
        except ClaimLimitError as exc:
            results.append(_Outcome("UNDECIDED", reason=f"stopped at a limit: {exc}", lhs=left, rhs=right))
            continue
        except RecursionError:
            results.append(_Outcome("UNDECIDED", reason="the rewrites nested too deeply", lhs=left, rhs=right))
            continue
        except (MemoryError, KeyboardInterrupt):
            raise
        except Exception as exc:  # a rewrite that fails decides nothing
            results.append(_Outcome("UNDECIDED", reason=f"{type(exc).__name__} in the rewrites", lhs=left, rhs=right))
            continue
        family = _undefined_family(left, right) if verdict == Verdict.REFUTED else None
        if family is not None:
            why = (
                f"{family} is not defined in the document: read as unrelated numbers, its members refute nothing "
                f"(define {family.split('_')[0]}_m before this step to decide it)"
            )
            results.append(_Outcome("UNDECIDED", "none", why, None, left, right))
            continue
        results.append(_Outcome(verdict.value, method, "", cex, left, right))
    several = f"read {len(readings)} ways ({'; '.join(n for n, _, _ in readings)})"
    for status in ("PROVED", "REFUTED"):
        chosen = [i for i, r in enumerate(results) if r.status == status]
        if status == "REFUTED" and len(chosen) < len(results):
            continue  # refuted only when every reading is
        if chosen:
            best = results[chosen[0]]
            if len(readings) > 1 and status == "PROVED":
                best.reason = f"{several}: PROVED in the {_ORDINAL[chosen[0]]}"
            elif len(readings) > 1:
                best.reason = f"{several}: refuted in every one"
            return best
    best = results[0]
    best.status = "UNDECIDED"
    why = best.reason or "no rewrite reduced the difference to 0 and no counterexample was found"
    best.reason = (f"{several}; " if len(readings) > 1 else "") + why
    return best


# --------------------------------------------------------------------------- the audit


def _run(fn: Callable[..., _Outcome], *args: Any, timeout: float | None, memory_limit: int | None) -> _Outcome:
    if (timeout is None and memory_limit is None) or not isolate.available():
        try:
            return fn(*args)
        except RopeCheckError as exc:
            return _Outcome(UNREAD, reason=str(exc))
    outcome = isolate.run_isolated(fn, *args, timeout=timeout, memory_limit=memory_limit, on_message=_keep_parse)
    if outcome.ok:
        value: _Outcome = outcome.value
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


def _qualifier(links: list[Link]) -> bool:
    """``i = 1, 2`` or ``j = 0, \\ldots, d/2 - 1``: the range of an index, not an equation."""
    if len(links) != 2 or not re.fullmatch(r"\s*(?:[A-Za-z]|\\[A-Za-z]+)\s*", links[0].text):
        return False
    depth = top_level(links[1].text)
    return any(ch == "," and depth[i] == 0 for i, ch in enumerate(links[1].text))


def _keep_parse(message: Any) -> None:
    """A child's parse of a piece of LaTeX, kept here so that later children need not parse it again."""
    if isinstance(message, tuple) and len(message) == 3 and message[0] == "parsed":
        remember_parse(message[1], message[2])


def _declarations(text: str) -> dict[str, str] | None:
    try:
        return parse_declaration(text)
    except RopeCheckError:
        return None


@dataclass
class _Auditor:
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
    unread: list[tuple[_Head, Link]] = field(default_factory=list)

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def limits(self) -> tuple[float | None, bool]:
        """(the time limit of the next step or definition, whether the document's limit cut it short)."""
        if self.deadline is None or self.timeout is None:
            return self.timeout, False
        left = max(self.deadline - time.monotonic(), 0.01)
        return (left, True) if left < self.timeout else (self.timeout, False)

    def declare(self, found: dict[str, str]) -> None:
        try:
            merge_domains(self.declared, found)
        except RopeCheckError:
            return  # a document that gives one name two domains: the first stays
        self.scope = self.scope.with_domains(self.domains())

    def domains(self) -> dict[str, str]:
        """The positions' defaults, then the names written conjugated (complex), then what is declared."""
        return {**AUDIT_DEFAULT_DOMAINS, **dict.fromkeys(self.inferred, "complex"), **self.declared}

    def chain(self, chain: Chain, *, audited: bool, continued: bool = False) -> None:
        """Define (the first link, when it names something new) and decide the steps of one chain.

        A ``continued`` chain goes on from the display before (``$$ A = B $$ so $$ = C $$``): its first
        link is that display's last side, so it is a step, never a definition.
        """
        links = list(chain.links)
        if not continued and _set_body(links[-1]) is not None and len(links) <= 2:
            self.define_set(links[0] if len(links) == 2 else None, links[-1], audited=audited)
            return
        if len(links) < 2 or _qualifier(links):
            return
        first = links[0]
        defines = not continued and self.maybe_define(first, links[1], audited=audited)
        start = 1 if defines else 0
        if not audited:
            return
        for left, right in zip(links[start:], links[start + 1 :]):
            self.step(left, right)

    def define_set(self, name: Link | None, members: Link, *, audited: bool) -> None:
        """``\\Theta = \\{\\theta_i = 10000^{-2(i-1)/d}, i = 1, ..., d/2\\}``: a set is not a value, so later steps
        that use its name are not decided; its first member, an equation, defines what it names (``\\theta_i``).
        The other members (the range of the index) define nothing."""
        if name is not None and members.relation in ("=",) + _DEFINING:
            head = _head(name.text, self.scope)
            if head is not None and not _defined(head, name.text, self.scope):
                self.unread.append((head, name))
                if audited:
                    why = "a set, not a value: steps that use it are not decided (its first member may define a name)"
                    self.definitions.append(AuditDefinition(name.line, name.text, "set", members.text, reason=why))
        body = _set_body(members) or ""
        depth = top_level(body)
        first = body[: next((i for i, ch in enumerate(body) if ch == "," and depth[i] == 0), len(body))]
        at = [i for i, ch in enumerate(first) if ch == "=" and depth[i] == 0 and first[i - 1 : i] not in "<>!:\\"]
        if len(at) == 1 and first[: at[0]].strip() and first[at[0] + 1 :].strip():
            lhs, rhs = Link(first[: at[0]].strip(), members.line), Link(first[at[0] + 1 :].strip(), members.line, "=")
            self.maybe_define(lhs, rhs, audited=audited)

    def maybe_define(self, link: Link, body: Link, *, audited: bool) -> bool:
        explicit = body.relation in _DEFINING or body.relation.startswith(("\\stackrel", "\\overset"))
        if body.relation != "=" and not explicit:
            return False
        head = _head(link.text, self.scope)
        if head is None or _defined(head, link.text, self.scope):
            if explicit and audited:
                self.definitions.append(
                    AuditDefinition(link.line, link.text, "?", body.text, reason="cannot define this (not a new name)")
                )
                return True
            return False
        if self.out_of_time():
            outcome = _Outcome("UNDECIDED", reason=DOCUMENT_TIME_LIMIT_REASON)
        else:
            timeout, cut = self.limits()
            outcome = _run(_define_in_child, head, link, body, self.scope, timeout=timeout,
                           memory_limit=self.memory_limit)  # fmt: skip
            if cut and outcome.reason.startswith("time limit of"):
                outcome.reason = DOCUMENT_TIME_LIMIT_REASON
        if outcome.status != "DEFINED" or outcome.definition is None:
            # a new name whose definition cannot be read: steps that use it are not decided (UNREAD), since
            # read as a free number it could make a correct step look false
            self.unread.append((head, link))
            if audited:
                self.definitions.append(
                    AuditDefinition(
                        link.line, link.text, head.kind, body.text, reason=outcome.reason, params=head.params
                    )
                )
            return True
        d = outcome.definition
        if outcome.uses_head and not explicit:
            return False  # x = 2x - x: an equation about x, not a definition
        if not audited and d.kind == "symbol" and "_" in d.name and isinstance(d.body, sympy.Number):
            # one entry given a value in passing ($z_1 = 1$, $S_0 = 0$): an example or a boundary
            # condition, not what the name means; a plain name ($d = 4$) fixes a size for the document
            d = replace(d, stated_value=True)
        domain = ""
        if not isinstance(d.body, MatrixBase) and isinstance(d.body, sympy.Basic) and d.body.is_real is not True:
            domain = "complex" if d.body.is_complex or d.body.has(sympy.I) else ""
        symbols, patterns, functions = dict(self.scope.symbols), dict(self.scope.patterns), dict(self.scope.functions)
        {"symbol": symbols, "pattern": patterns, "function": functions}[d.kind][d.name] = d
        self.scope = replace(self.scope, symbols=symbols, patterns=patterns, functions=functions)
        params = tuple(str(p) for p in d.params)
        self.definitions.append(AuditDefinition(link.line, d.name, d.kind, body.text, d.body, domain, "", params))
        return True

    def uses_unread(self, left: Link, right: Link) -> tuple[_Head, Link] | None:
        text = normalize_latex(left.text + " = " + right.text)
        for head, where in self.unread:
            if _mentions(head, text):
                return head, where
        return None

    def step(self, left: Link, right: Link) -> None:
        number = len(self.steps) + 1
        t0 = time.perf_counter()
        if self.out_of_time():
            s = AuditStep(number, right.line, left.text, right.text, "UNDECIDED", reason=DOCUMENT_TIME_LIMIT_REASON)
        elif right.relation != "=":
            why = f"{right.relation} is not an equality; only '=' steps are decided"
            s = AuditStep(number, right.line, left.text, right.text, UNREAD, reason=why, relation=right.relation)
        elif not left.text or not right.text:
            s = AuditStep(number, right.line, left.text, right.text, UNREAD, reason="one side of the step is empty")
        elif self.uses_unread(left, right):
            head, where = self.uses_unread(left, right)  # type: ignore[misc]
            why = f"uses {where.text.strip()}, whose definition (line {where.line}) could not be read"
            s = AuditStep(number, right.line, left.text, right.text, UNREAD, reason=why)
        else:
            timeout, cut = self.limits()
            o = _run(_step_in_child, left, right, self.scope, timeout=timeout, memory_limit=self.memory_limit)
            if cut and o.status == "UNDECIDED" and o.reason.startswith("time limit of"):
                o.reason = DOCUMENT_TIME_LIMIT_REASON
            sides = [e for e in (o.lhs, o.rhs) if e is not None]
            s = AuditStep(
                number, right.line, left.text, right.text, o.status, o.method, o.reason, o.counterexample,
                o.lhs, o.rhs, describe_domains(sides, self.declared, self.inferred) if sides else [],
            )  # fmt: skip
        s.seconds = time.perf_counter() - t0
        s.end_line = right.end_line
        self.steps.append(s)
        if self.progress is not None:
            self.progress(s, number)


def _mentions(head: _Head, text: str) -> bool:
    """Whether ``text`` (normalized LaTeX) uses the name ``head`` would have defined."""
    if head.kind == "pattern":
        base = head.key.split("_{")[0] if head.key.endswith(",*}") else head.key
        rx = re.escape(base) + r"(?![A-Za-z])\s*(?:\^\s*(?:\{[^{}]*\}|[A-Za-z0-9])\s*)?_"
    elif head.kind == "function":
        rx = r"(?<![A-Za-z\\])" + re.escape(head.key.split("_")[0]) + r"\s*(?:_\s*\{?[^()]*?\}?)?\s*\("
    else:  # \\Theta as well as Theta: the name as SymPy spells it drops the backslash
        rx = r"(?<![A-Za-z\\])\\?" + re.escape(head.key.split("_")[0]) + r"(?![A-Za-z])"
    return re.search(rx, text) is not None


#: a set written out: ``\\{ ... \\}``, ``\\left\\{ ... \\right\\}``, ``\\lbrace ... \\rbrace``
_SET = re.compile(
    r"^\s*(?:\\left\s*)?(?:\\\{|\\lbrace(?![A-Za-z]))(?P<body>.*?)(?:\\right\s*)?(?:\\\}|\\rbrace(?![A-Za-z]))\s*$",
    re.S,
)


def _set_body(link: Link) -> str | None:
    """The members of a link that is one set written out, or None (also for ``\\{a\\} \\cup \\{b\\}``)."""
    m = _SET.match(link.text)
    if m is None or re.search(r"\\\}|\\rbrace(?![A-Za-z])", m.group("body")):
        return None
    return m.group("body")


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
    stated = {domain_key(k): v for k, v in (domains or {}).items()}
    blocks, lines = math_blocks(text, latex=latex)
    # a name written conjugated anywhere is complex everywhere (one does not conjugate a real number),
    # unless a flag or the document declares its domain
    inferred: dict[str, str] = {}
    for block in blocks:
        for key, form in conjugated_forms(block.src.text).items():
            inferred.setdefault(key, form)
    auditor = _Auditor(path, Scope(strict_products=True), dict(stated), timeout, memory_limit, progress, deadline)
    auditor.inferred = {k: v for k, v in inferred.items() if k not in stated}
    auditor.scope = auditor.scope.with_domains(auditor.domains())
    if any(b.kind == "display" for b in blocks):
        _preload_parser()
    before: MathBlock | None = None
    tail: Link | None = None  # the last side of the display before, which a display that starts with '=' goes on from
    for at, block in enumerate(blocks):
        found = _declarations(block.src.text)
        if found is not None:
            auditor.declare(found)
            before, tail = block, None
            continue
        read = chains(block, lines)
        if at + 1 < len(blocks) and stated_equality(text, block, blocks[at + 1]):
            _sentence(auditor, read, chains(blocks[at + 1], lines))
        continued = bool(
            read and tail is not None and before is not None and continues(text, before, block)
            and not read[0].links[0].text and len(read[0].links) >= 2
        )  # fmt: skip
        if continued and tail is not None:
            read[0] = Chain((tail,) + read[0].links[1:], tail.line)
        for n, chain in enumerate(read):
            if len(chain.links) == 1:
                found = _declarations(chain.links[0].text)
                if found is not None:
                    auditor.declare(found)
                continue
            auditor.chain(chain, audited=block.kind == "display", continued=continued and n == 0)
        last = read[-1].links[-1] if read and block.kind == "display" else None
        before, tail = block, (last if last is not None and not ends_open(last.text) else None)
    seconds = time.perf_counter() - t0
    inferred_left = {k: v for k, v in auditor.inferred.items() if k not in auditor.declared}
    inline = sum(1 for b in blocks if b.kind == "inline")
    return AuditResult(
        path, auditor.steps, auditor.definitions, auditor.declared, seconds, timeout, document_timeout,
        inferred_left, inline,
    )  # fmt: skip


def _sentence(auditor: _Auditor, first: list[Chain], second: list[Chain]) -> None:
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
