"""What an audit finds: each step and its verdict, each definition, and the whole result with its counts.

Data only (dataclasses and their JSON shape, schema ``ropecheck-audit/1``); :mod:`.steps` fills them
and :mod:`.render` renders them.

Design constraints: no SymPy work beyond printing what was read; nothing here imports the rest of
the audit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..engine.proof import Counterexample, expr_text

__all__ = [
    "AUDIT_DEFAULT_DOMAINS",
    "DIMENSION_DEFAULTS",
    "DOCUMENT_TIME_LIMIT_REASON",
    "LIMIT_TAINT",
    "UNREAD",
    "AuditDefinition",
    "AuditResult",
    "AuditStep",
    "limit_reached",
    "limit_reason",
    "unread_reason_key",
]

#: The reason of a step the document's time limit left undecided.
DOCUMENT_TIME_LIMIT_REASON = "document time limit reached"
#: What a name is, in a step's reason, whose definition a limit cut short: a fact about the run, not the text, so a
#: step that uses it is UNDECIDED (never UNREAD, never read with the name free).
LIMIT_TAINT = "not read within the limits of this run"


def limit_reached(reason: str) -> bool:
    """Whether a child's ``reason`` says it stopped at a limit (the step's time or memory, the document's time)
    rather than at something in the text: what rests on it must say so, not be read another way.

    Example:
        >>> limit_reached("time limit of 5 s reached"), limit_reached(r"unknown LaTeX command \\over")
        (True, False)
    """
    return reason.startswith(("time limit of", "memory limit reached", DOCUMENT_TIME_LIMIT_REASON))


def limit_reason(exc: Exception) -> str:
    """The reason of a step a :class:`~ropecheck.errors.ClaimLimitError` stopped: a reading the text leaves in
    doubt (``limit == "reading"``) says so; a size or work limit says it stopped at a limit.

    Example:
        >>> from ropecheck.errors import ClaimLimitError
        >>> limit_reason(ClaimLimitError("'q^*' reads two ways", "reading"))
        "not read with certainty: 'q^*' reads two ways"
        >>> limit_reason(ClaimLimitError("exponent 10**9 exceeds the limit 1000", "exponent"))
        'stopped at a limit: exponent 10**9 exceeds the limit 1000'
    """
    if getattr(exc, "limit", "") == "reading":
        return f"not read with certainty: {exc}"
    return f"stopped at a limit: {exc}"


#: Domains a document gets without declaring them: positions are whole numbers.
AUDIT_DEFAULT_DOMAINS: dict[str, str] = {"m": "integer", "n": "integer"}
#: Sizes as this literature names them (the head size d_h, the model's d_model): positive whole numbers by default.
DIMENSION_DEFAULTS: dict[str, str] = dict.fromkeys(("d_h", "d_k", "d_model", "d_head"), "positive integer")
UNREAD = "UNREAD"
_STATUSES = ("PROVED", "REFUTED", "UNDECIDED", UNREAD)


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
    pattern: str = ""  # written with dots: the pattern read (``x_{j} for j = 0 … d - 1``)
    relation: str = "="  # a condition's relation (``\\ge`` for a bound the text asks for)

    @property
    def read(self) -> bool:
        return self.body is not None

    @property
    def head(self) -> str:
        """The name as defined: ``q``, ``theta_i``, ``f_{q}(x_{m}, m)``."""
        if self.kind == "pattern" and self.name.endswith("_{*,*}"):  # R_{*,*}: both subscripts
            return self.name.replace("{*,*}", "{" + ",".join(self.params) + "}")
        if self.kind == "pattern" and self.name.endswith(",*}"):  # R_{\theta,*}: the last subscript
            return self.name.replace(",*}", f",{self.params[0]}}}")
        if self.kind == "pattern":
            base = re.sub(r"^\\mathrm\{(\w+)\}$", r"\1", self.name).lstrip(chr(92))  # \mathrm{calR} -> calR
            return f"{base}_{self.params[0]}" if self.params else self.name
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
            "pattern": self.pattern or None,
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
    conditions: list[AuditDefinition] = field(default_factory=list)

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
        c = len(self.conditions)
        found += [f"{c} condition{'' if c == 1 else 's'} or equation{'' if c == 1 else 's'} to solve"] if c else []
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
            "conditions": [
                {"line": d.line, "condition": f"{d.name} {d.relation} {d.tex}", "reason": d.reason}
                for d in self.conditions
            ],
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
