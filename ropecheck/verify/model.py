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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from ..diagnosis import CAUSES
from ..protocol import Implementation
from ..spec import RopeSpec
from .identify import Identification

__all__ = [
    "VerifyOptions",
    "CAUSE_FAMILIES",
    "DEFAULT_DTYPES",
    "FINDING_CODES",
    "FAMILY_CODES",
    "INDEPENDENT_CODES",
    "POSITION_MODES",
    "VERIFY_MAX_POSITION",
    "Check",
    "Finding",
    "RunContext",
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
    "axes": "pairs turn by another position axis than the spec's (M-RoPE sections, interleaving, 2-D rows/columns)",
    "backward": "the gradient (autograd's backward) is not the transpose of the spec's rotation",
    "qk": "the query and the key are rotated differently (one side shifted, rotated from the other's input, "
    "or otherwise unlike the other)",
}
#: The family codes above: every finding's ``code`` is one of them (stable for CI scripts).
FAMILY_CODES: frozenset[str] = frozenset(FINDING_CODES)
# The causes (ropecheck.diagnosis.CAUSES): a finding's ``cause`` names the real-world mistake behind its family code.
FINDING_CODES.update({cause: text for cause, (_, text) in CAUSES.items()})
#: cause -> the family code it refines.
CAUSE_FAMILIES: dict[str, str] = {cause: family for cause, (family, _) in CAUSES.items()}


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
class VerifyOptions:
    """How one verdict runs -- every option of ``ropecheck verify`` -- as one frozen value.

    Attributes:
        head_dim: with no spec, the head dimension to identify the target at.
        dtypes: dtypes for the interface and precision checks.
        device: ``"cpu"`` or ``"cuda"`` (default: cuda when available where the target runs).
        max_position: the valid range: positions 0 .. max_position-1, calls of at most max_position tokens
            (default: the spec's context or scaled context, else ``context``, else 131072; see :mod:`.ranges`).
        positions_mode: ``"tensor"``, ``"offset"`` or ``"implicit"`` (default: from the signature); ``"axes"``
            for multi-axis RoPE (``fn(x, positions)`` with positions ``(axes, batch, seq)``; needs ``spec.axes``,
            see :mod:`.multiaxis`).
        allow_inplace: do not count mutating x as a failure.
        seed: the seed of every random input.
        timeout: seconds; a target still running then is stopped and reported.
        name: the target's name in the verdict.
        context: the model's context when there is no spec to carry it (identification).
        conventions: with no spec, the conventions the target may follow (``direction``, ``rotary_dims``).
        backward: run the backward checks (:mod:`ropecheck.gradients`) where the target supports autograd.
        compile: verify the target wrapped in ``torch.compile`` too, and report the compiled verdict with the
            checks where it differs from the eager one (:mod:`.compiled`).
        compile_backend: the ``torch.compile`` backend (default: inductor with a C++ compiler, else aot_eager).
    """

    head_dim: int | None = None
    dtypes: Sequence[str] = DEFAULT_DTYPES
    device: str | None = None
    max_position: int | None = None
    positions_mode: str | None = None
    allow_inplace: bool = False
    seed: int = 0
    timeout: float | None = None
    name: str | None = None
    context: int | None = None
    conventions: Mapping[str, Any] | None = None
    backward: bool = True
    compile: bool = False
    compile_backend: str | None = None

    def with_(self, **changes: Any) -> VerifyOptions:
        """A copy with some options changed; an unknown option is a TypeError, as for a function."""
        unknown = sorted(set(changes) - {f.name for f in fields(self)})
        if unknown:
            raise TypeError(f"unknown verify option(s): {', '.join(unknown)}")
        return replace(self, **changes)


@dataclass(frozen=True)
class RunContext:
    """What one verification holds fixed, handed to every check instead of a long parameter list.

    ``impl`` is the target as the checks call it (for multi-axis RoPE: the 1-D view), ``outer`` the
    multi-axis target itself; ``top`` is the last position of the valid range; ``spec`` is None
    until identification has built one (no spec given).
    """

    impl: Implementation
    spec: RopeSpec | None
    head_dim: int
    dtypes: tuple[str, ...]
    device: str
    top: int
    seed: int = 0
    allow_inplace: bool = False
    backward: bool = True
    conventions: Mapping[str, Any] = field(default_factory=dict)
    outer: Implementation | None = None

    @property
    def rope(self) -> RopeSpec:
        """The spec, for the checks that run once it is known (given, or built from identification)."""
        assert self.spec is not None, "the checks after identification need a spec"
        return self.spec

    def with_(self, **changes: Any) -> RunContext:
        """A copy with some fields changed (a spec once identified, a narrower range)."""
        return replace(self, **changes)


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
    cause: str | None = None

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
            "cause": self.cause,
        }


@dataclass(frozen=True)
class Finding:
    """One root cause: a stable family code, the cause it refines to, a sentence, the fix, the check that saw it.

    ``consequences`` lists the other failed checks this root cause explains (``check``,
    ``dtype``, ``code``, ``message``): they are folded under it, not reported as findings.
    """

    code: str
    message: str
    hint: str
    check: str
    dtype: str | None = None
    category: str = ""
    cause: str | None = None
    consequences: list[dict[str, Any]] = field(default_factory=list, compare=False)

    @property
    def label(self) -> str:
        """``code`` or ``code/cause`` -- how the text output names it."""
        return self.code if not self.cause or self.cause == self.code else f"{self.code}/{self.cause}"

    @property
    def structural(self) -> bool:
        """What the target computes in every dtype (identification, the axes), not one dtype's outcome."""
        return self.category == "identification" or self.check.startswith("axes:")

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "hint": self.hint,
            "check": self.check,
            "dtype": self.dtype,
            "category": self.category,
            "cause": self.cause,
            "consequences": [dict(c) for c in self.consequences],
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
    range_source: str = "default"
    raises_from: int | None = None  # the position a target's table ends at, when found inside the range
    #: with ``compile=True``: the backend and the checks whose eager and compiled verdicts differ
    compile: dict[str, Any] | None = None
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
        """The root-cause finding codes a per-dtype verdict names (see :meth:`dtype_verdict`)."""
        return self.dtype_verdict(dtype)["codes"]

    def dtype_verdict(self, dtype: str) -> dict[str, Any]:
        """One dtype's verdict: ``FAIL`` when a root cause applies to it -- found in that dtype, in none in
        particular, or structural (what the target computes in every dtype) -- with its codes, and the
        failed checks of that dtype that are consequences of a root cause (found in any dtype).
        """
        roots = [f for f in self.findings if f.dtype in (dtype, None) or f.structural]
        consequences = sorted(
            {
                f"{c['check']} ({f.label})"
                for f in self.findings
                for c in f.consequences
                if c.get("dtype") in (dtype, None)
            }
        )
        return {
            "dtype": dtype,
            "verdict": "FAIL" if roots else "PASS",
            "codes": sorted({f.code for f in roots}),
            "labels": sorted({f.label for f in roots}),
            "consequences": consequences,
        }

    def add(self, check: Check, finding_message: str | None = None) -> None:
        self.checks.append(check)
        if self.listener is not None:
            self.listener("check", (check, finding_message))
        if check.status == "fail" and check.code:
            msg = finding_message or check.evidence
            if not any(f.code == check.code and f.message == msg for f in self.findings):
                self.findings.append(
                    Finding(check.code, msg, check.hint, check.name, check.dtype, check.category, check.cause)
                )

    def prune(self) -> None:
        """Fold findings into root causes: a finding another one explains becomes one of its ``consequences``.

        Explained, in this order: anything but the independent codes when a structural
        (identification or interface) finding exists; a property or position scenario once a
        root applies to its dtype; low-precision ``precision`` when float32 is off too; the
        behaviour checks run after a cache was polluted across dtypes; a repeat of a code.
        Every other failed check is folded under the first root, so the consequences list every
        failed check that is not a root.
        """
        ordered = sorted(self.findings, key=finding_rank)  # stable: direct diagnoses before what they break
        primary = next((f for f in ordered if f.category in ("identification", "interface")), None)
        polluted = next((f for f in ordered if f.check == "state:dtype"), None)
        f32_off = next((f for f in ordered if f.code == "precision" and f.dtype in ("float32", "float64")), None)
        kept: list[Finding] = []
        seen: dict[tuple[str, str | None], Finding] = {}
        for f in ordered:
            root: Finding | None = None
            if primary is not None and f is not primary:
                if f.category not in ("identification", "interface") and f.code not in INDEPENDENT_CODES:
                    root = primary
            if root is None and f.check.startswith(("property:", "positions:")):
                root = next((r for r in kept if r.structural or r.dtype in (None, f.dtype)), None)
            if root is None and f.code == "precision" and f32_off is not None and f is not f32_off:
                if f.dtype not in ("float32", "float64"):
                    root = f32_off
            if root is None and f.category == "precision" and f.dtype in ("float32", "float64"):
                # wrong float32 outputs that a position scenario already named: the same angles, seen twice
                root = next((r for r in kept if r.check.startswith("positions:") and r.dtype == f.dtype), None)
            if root is None and polluted is not None and f is not polluted:
                if f.category == "behaviour":
                    root = polluted
            key = (f.code, f.dtype if f.code == "precision" else None)
            if root is None and key in seen:
                root = seen[key]
            if root is not None and root is not f:
                _fold(root, f.check, f.dtype, f.code, f.message)
                continue
            seen[key] = f
            kept.append(f)
        # every other failed check: a consequence of the first root (its own finding was folded or never made)
        roots_at = {(f.check, f.dtype) for f in kept}
        folded = {(c["check"], c.get("dtype")) for f in kept for c in f.consequences}
        for c in self.checks:
            if c.status != "fail" or not kept or (c.name, c.dtype) in roots_at or (c.name, c.dtype) in folded:
                continue
            target = next((r for r in kept if r.structural or r.dtype in (None, c.dtype)), kept[0])
            _fold(target, c.name, c.dtype, c.code, c.evidence)
        self.findings = kept

    def root_of(self, check: Check) -> Finding | None:
        """The root cause a failed check is a consequence of (None for a root's own check, or a pass)."""
        if check.status != "fail":
            return None
        for f in self.findings:
            if f.check == check.name and f.dtype == check.dtype:
                return None
        for f in self.findings:
            if any(c["check"] == check.name and c.get("dtype") == check.dtype for c in f.consequences):
                return f
        return None

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
                "valid_range": {
                    "positions": [0, self.max_position - 1],
                    "source": self.range_source,
                    "target_raises_from": self.raises_from,
                },
            },
            "identification": None if self.identification is None else self.identification.to_dict(),
            "findings": [f.to_dict() for f in self.findings],
            "checks": [c.to_dict() for c in self.checks],
            "summary": {s: sum(c.status == s for c in self.checks) for s in ("pass", "fail", "skip")},
            "skipped": [
                {"check": c.name, "dtype": c.dtype, "reason": c.evidence} for c in self.checks if c.status == "skip"
            ],
            "dtype_verdicts": [self.dtype_verdict(dt) for dt in self.dtypes],
            "duration_s": round(self.duration_s, 3),
            "notes": list(self.notes),
            "compile": None if self.compile is None else dict(self.compile),
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
    return 4 if f.category in ("precision", "backward") else 5


def _fold(root: Finding, check: str, dtype: str | None, code: str | None, message: str) -> None:
    entry = {"check": check, "dtype": dtype, "code": code, "message": message}
    if not any(c["check"] == check and c.get("dtype") == dtype for c in root.consequences):
        root.consequences.append(entry)
