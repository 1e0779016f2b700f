"""The verifier's data model: checks, findings, the report, and the finding codes.

:class:`Check` is one check's outcome, :class:`Finding` one thing wrong with the target
(a stable ``code`` from :data:`FINDING_CODES`, a sentence, a fix), and
:class:`VerifyReport` everything one verification found; ``VerifyReport.to_dict()`` is the
documented JSON schema. The checks (:mod:`.checks`, :mod:`.axes`) add to a report; the
renderers (:mod:`.render`) read one.

Design constraints: pure data and the rules that prune findings to root causes; nothing
here calls a target or imports the checks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..spec import RopeSpec
from .identify import Identification

__all__ = [
    "DEFAULT_DTYPES",
    "FINDING_CODES",
    "INDEPENDENT_CODES",
    "POSITION_MODES",
    "VERIFY_MAX_POSITION",
    "Check",
    "Finding",
    "VerifyReport",
    "finding_rank",
]

DEFAULT_DTYPES: tuple[str, ...] = ("float32", "bfloat16", "float16")
#: Positions probed by default when neither the spec nor the caller bounds them (positions 0..N-1).
VERIFY_MAX_POSITION = 131072
# CLI names of the calling conventions -> the protocol's names
POSITION_MODES = {"tensor": "positions", "offset": "offset", "implicit": "none"}

FINDING_CODES: dict[str, str] = {
    "raised": "the target raised an exception",
    "exited": "the target ended the process (exit, os._exit) instead of returning",
    "crashed": "the target crashed the process (a signal: segmentation fault, abort, killed)",
    "memory": "the target ran out of memory",
    "timeout": "the target did not return within the time limit",
    "shape": "the output's shape differs from x's",
    "dtype": "the output's dtype differs from x's",
    "device": "the output is on another device than x",
    "not_tensor": "the output is not a tensor/array",
    "nonfinite": "the output holds NaN or inf",
    "mutation": "the target modified its input in place",
    "not_rotation": "the matrix applied is not a (scaled) rotation of pairs",
    "layout": "the dims are paired differently from the spec (interleaved vs half-split)",
    "direction": "the rotation goes the wrong way",
    "rotary_dim": "a different set of dims is rotated (partial rotary)",
    "frequencies": "the frequencies differ from the spec's schedule",
    "scale": "cos/sin carry a wrong factor (attention factor)",
    "phase": "position 0 is not the identity",
    "positions": "positions are ignored, shifted, clamped or taken from another row",
    "length_dependence": "a token's rotation depends on the length of the call",
    "state": "a token's rotation depends on earlier calls (longer ones, or ones in another dtype)",
    "batch_head_mixing": "batch rows or heads are mixed",
    "relative_position": "scores depend on absolute positions, not only their difference",
    "precision": "the error in a low-precision dtype exceeds the error model's bound",
}


# bugs that identification cannot see, reported even next to a structural finding
INDEPENDENT_CODES = frozenset(
    {
        "batch_head_mixing",
        "length_dependence",
        "state",
        "mutation",
        "dtype",
        "device",
        "shape",
        "nonfinite",
        "raised",
        "timeout",
        "not_tensor",
    }
)


@dataclass(frozen=True)
class Check:
    """One check's outcome. ``status`` is ``"pass"``, ``"fail"`` or ``"skip"``."""

    name: str
    category: str
    status: str
    evidence: str
    dtype: str | None = None
    hint: str = ""
    code: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "category": self.category,
            "dtype": self.dtype,
            "status": self.status,
            "evidence": self.evidence,
            "hint": self.hint or None,
            "code": self.code,
            "details": self.details,
        }


@dataclass(frozen=True)
class Finding:
    """One thing wrong with the target: a stable code, a sentence, how to fix it, and the check that saw it."""

    code: str
    message: str
    hint: str
    check: str
    dtype: str | None = None
    category: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "hint": self.hint,
            "check": self.check,
            "dtype": self.dtype,
            "category": self.category,
        }


@dataclass
class VerifyReport:
    """Everything :func:`verify` found; ``to_dict()`` is the documented JSON schema (version 1)."""

    target: str
    spec: RopeSpec | None
    spec_source: str
    dtypes: tuple[str, ...]
    device: str
    max_position: int
    convention: str
    seed: int
    checks: list[Check] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    identification: Identification | None = None
    duration_s: float = 0.0
    notes: list[str] = field(default_factory=list)
    #: receives ("stage", name) and ("check", (check, finding message)) as the run goes (never pickled)
    listener: Callable[[str, Any], None] | None = field(default=None, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["listener"] = None
        return state

    def begin(self, stage: str) -> None:
        """Say which check runs next (a supervisor names it if the target dies there)."""
        if self.listener is not None:
            self.listener("stage", stage)

    @property
    def conforms(self) -> bool:
        return not self.findings and not any(c.status == "fail" for c in self.checks)

    @property
    def exit_code(self) -> int:
        return 0 if self.conforms else 1

    def finding_codes(self, dtype: str) -> list[str]:
        """The root-cause finding codes for one dtype (findings without a dtype count for every dtype).

        The checks a finding breaks elsewhere stay in the checks table; this is what a
        per-dtype verdict should name.
        """
        return sorted({f.code for f in self.findings if f.dtype in (dtype, None)})

    def add(self, check: Check, finding_message: str | None = None) -> None:
        self.checks.append(check)
        if self.listener is not None:
            self.listener("check", (check, finding_message))
        if check.status == "fail" and check.code:
            msg = finding_message or check.evidence
            if not any(f.code == check.code and f.message == msg for f in self.findings):
                self.findings.append(Finding(check.code, msg, check.hint, check.name, check.dtype, check.category))

    def prune(self) -> None:
        """Keep root causes: consequences of a structural finding are left to the checks table."""
        primary = any(f.category in ("identification", "interface") for f in self.findings)
        # the behaviour checks run after the dtype-state check: on a target it found polluted, they fail with it
        polluted = any(f.check == "state:dtype" for f in self.findings)
        f32_off = any(f.code == "precision" and f.dtype in ("float32", "float64") for f in self.findings)
        kept: list[Finding] = []
        seen: set[tuple[str, str | None]] = set()
        for f in self.findings:
            if primary and f.category not in ("identification", "interface") and f.code not in INDEPENDENT_CODES:
                continue
            if f.code == "precision" and f32_off and f.dtype not in ("float32", "float64"):
                continue
            if polluted and f.category == "behaviour" and f.check != "state:dtype":
                continue
            key = (f.code, f.dtype if f.code == "precision" else None)
            if key in seen:
                continue
            seen.add(key)
            kept.append(f)
        kept.sort(key=finding_rank)  # stable: direct diagnoses before the generic properties they break
        self.findings = kept

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": "ropecheck.verify/1",
            "target": self.target,
            "conforms": self.conforms,
            "exit_code": self.exit_code,
            "spec": None if self.spec is None else self.spec.to_dict(),
            "spec_description": None if self.spec is None else self.spec.describe(),
            "spec_source": self.spec_source,
            "options": {
                "dtypes": list(self.dtypes),
                "device": self.device,
                "max_position": self.max_position,
                "convention": self.convention,
                "seed": self.seed,
            },
            "identification": None if self.identification is None else self.identification.to_dict(),
            "findings": [f.to_dict() for f in self.findings],
            "checks": [c.to_dict() for c in self.checks],
            "summary": {s: sum(c.status == s for c in self.checks) for s in ("pass", "fail", "skip")},
            "duration_s": round(self.duration_s, 3),
            "notes": list(self.notes),
        }


def finding_rank(f: Finding) -> int:
    """interface, identification, state and lengths, the position scenarios, precision, then the properties."""
    if f.category == "process":  # the target ended the process: what it did comes before what was seen
        return -1
    if f.category in ("interface", "identification"):
        return 0 if f.category == "interface" else 1
    if f.code == "state":  # state carried between calls also spoils every check run after the long call
        return 2
    if f.category == "behaviour" and not f.check.startswith("property:"):
        return 3 if f.check.startswith("positions:") else 2
    return 4 if f.category == "precision" else 5
