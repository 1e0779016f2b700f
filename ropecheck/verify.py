"""The verifier: judge a black-box RoPE implementation against a spec.

``verify(fn, spec)`` runs, in this order, and records every outcome as a :class:`Check`:

1. **interface** (per dtype) -- one call under the canonical protocol: does it return a
   tensor of x's shape, dtype and device, finite, without mutating x or the positions? Then
   the **axes** (:mod:`ropecheck._verify_axes`): each head rotates as it does alone (else
   identification, which probes one basis vector per head, is skipped), each batch row by
   its own positions.
2. **identification** (one dtype, float32 when asked for) -- the matrix the target applies
   at each probed position, recovered from basis vectors (:mod:`ropecheck._identify`), its
   structure compared with the spec in words, and the angles at every probed position up to
   ``max_position`` compared with the exact reference.
3. **precision** (per dtype) -- outputs against the fp64 reference at positions up to
   ``max_position``, with the per-position bound of the error model: a careful implementation
   (angles in float32, rotation in the output dtype) passes; angles or frequencies rounded to
   bf16/fp16 fail, and the check says where the error crosses the bound. (Run before the
   behaviour checks, whose long calls could fill a target's caches and hide its own path.)
   A float32 probe is re-taken after each low-precision dtype (**dtype state**): a cache
   filled in bf16/fp16 and served to float32 calls is a ``state`` finding.
4. **behaviour** -- the properties of :mod:`ropecheck.properties` (relative position,
   translation invariance, batch/head independence, length and state consistency, ...) and
   the position scenarios real inference uses: left padding and arbitrary per-row positions,
   KV-cache decode (seq 1 at a large offset), calls of lengths around common thresholds.

A failed check yields a :class:`Finding` with a stable ``code`` (see ``FINDING_CODES``) and a
sentence that names the bug. Findings are pruned to root causes and ordered most direct first
(interface, identification, state and lengths, position scenarios, precision, properties), so
the first one names the bug. ``VerifyReport.conforms`` is True when nothing failed.

Design constraints: the target is a black box that may raise, hang, return garbage or
mutate its input -- every such outcome is a finding, never an exception out of ``verify``
(``timeout`` uses SIGALRM on the main thread); default options stay well under 10 s on CPU.
"""

from __future__ import annotations

import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from ._identify import Identification
from ._protocol import Implementation, as_implementation
from ._spec import RopeSpec
from ._tolerance import dtype_name
from .errors import RopeCheckError, UsageError

__all__ = [
    "verify",
    "VerifyReport",
    "Check",
    "Finding",
    "FINDING_CODES",
    "DEFAULT_DTYPES",
    "DEFAULT_MAX_POSITION",
    "POSITION_MODES",
]

DEFAULT_DTYPES: tuple[str, ...] = ("float32", "bfloat16", "float16")
DEFAULT_MAX_POSITION = 131072
# CLI names of the calling conventions -> the protocol's names
POSITION_MODES = {"tensor": "positions", "offset": "offset", "implicit": "none"}

FINDING_CODES: dict[str, str] = {
    "raised": "the target raised an exception",
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
_INDEPENDENT = frozenset(
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
            if primary and f.category not in ("identification", "interface") and f.code not in _INDEPENDENT:
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
        kept.sort(key=_finding_rank)  # stable: direct diagnoses before the generic properties they break
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


def _finding_rank(f: Finding) -> int:
    """interface, identification, state and lengths, the position scenarios, precision, then the properties."""
    if f.category in ("interface", "identification"):
        return 0 if f.category == "interface" else 1
    if f.code == "state":  # state carried between calls also spoils every check run after the long call
        return 2
    if f.category == "behaviour" and not f.check.startswith("property:"):
        return 3 if f.check.startswith("positions:") else 2
    return 4 if f.category == "precision" else 5


class _Timeout(BaseException):
    """Raised by the alarm inside the target (a BaseException so the target's `except Exception` cannot eat it)."""


class _Deadline:
    """SIGALRM-based deadline on the main thread (POSIX); a no-op elsewhere."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.active = (
            bool(seconds) and hasattr(signal, "SIGALRM") and threading.current_thread() is threading.main_thread()
        )

    def __enter__(self) -> _Deadline:
        if self.active:

            def on_alarm(signum: int, frame: Any) -> None:
                raise _Timeout()

            self._old = signal.signal(signal.SIGALRM, on_alarm)
            signal.setitimer(signal.ITIMER_REAL, float(self.seconds))  # type: ignore[arg-type]
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old)


# --------------------------------------------------------------------------- the entry point


def verify(
    fn: Callable[..., Any] | Implementation,
    spec: RopeSpec | None = None,
    *,
    head_dim: int | None = None,
    dtypes: Sequence[str] = DEFAULT_DTYPES,
    device: str | None = None,
    max_position: int | None = None,
    positions_mode: str | None = None,
    allow_inplace: bool = False,
    seed: int = 0,
    timeout: float | None = None,
    name: str | None = None,
) -> VerifyReport:
    """Verify ``fn`` (canonical protocol) against ``spec``; with no spec, identify it and check it for consistency.

    Args:
        fn: ``fn(x, positions)``, ``fn(x, offset)`` or ``fn(x)``; x is (batch, seq, heads, head_dim).
        spec: what it should implement; None identifies the target (needs ``head_dim``).
        dtypes: dtypes for the interface and precision checks.
        device: ``"cpu"`` or ``"cuda"`` (default: cuda when available).
        max_position: largest position probed (default: the spec's context, else 131072).
        positions_mode: ``"tensor"``, ``"offset"`` or ``"implicit"`` (default: from the signature).
        allow_inplace: do not count mutating x as a failure.
        timeout: seconds; a target still running then is stopped and reported (main thread, POSIX).

    Example:
        >>> from ropecheck.properties import torch_reference
        >>> spec = RopeSpec(head_dim=8)
        >>> verify(torch_reference(spec), spec, dtypes=("float32",), max_position=4096).conforms
        True
    """
    t0 = time.perf_counter()
    if spec is None and head_dim is None:
        raise UsageError("give a spec (or head_dim, to identify the target)")
    d = spec.head_dim if spec is not None else int(head_dim)  # type: ignore[arg-type]
    dts = tuple(dtype_name(t) for t in dtypes)
    if not dts:
        raise UsageError("give at least one dtype")
    dev = device or _default_device()
    if dev not in ("cpu", "cuda") and not dev.startswith("cuda:"):
        raise UsageError(f"device must be 'cpu' or 'cuda', got {dev!r}")
    if dev.startswith("cuda") and not __import__("torch").cuda.is_available():
        raise UsageError("device 'cuda' asked for, but CUDA is not available here")
    conv = None
    if positions_mode is not None:
        if positions_mode not in POSITION_MODES and positions_mode not in POSITION_MODES.values():
            raise UsageError(f"positions mode must be one of {', '.join(POSITION_MODES)}, got {positions_mode!r}")
        conv = POSITION_MODES.get(positions_mode, positions_mode)
    impl = as_implementation(fn, convention=conv, name=name)
    if max_position is None:
        max_position = (
            spec.max_position_embeddings if spec is not None and spec.max_position_embeddings else DEFAULT_MAX_POSITION
        )
    max_position = int(max_position)
    if max_position < 8:
        raise UsageError(f"max_position must be >= 8, got {max_position}")
    top = max_position - 1
    report = VerifyReport(
        target=name or impl.name,
        spec=spec,
        spec_source="given" if spec is not None else "none",
        dtypes=dts,
        device=dev,
        max_position=max_position,
        convention=impl.convention,
        seed=seed,
    )
    try:
        with _Deadline(timeout):
            _run(report, impl, spec, d, dts, dev, top, allow_inplace, seed)
    except (RopeCheckError, NameError, ImportError):  # a usage error, or a bug here: never the target's fault
        raise
    except Exception as exc:  # the target's output broke the pipeline somewhere: its failure, not ours
        report.add(
            Check("call", "interface", "fail",
                  f"the target's output could not be processed: {type(exc).__name__}: {exc}",
                  None, "return a tensor of x's shape, dtype and device", "raised")
        )
    except _Timeout:
        report.add(
            Check(
                "timeout",
                "interface",
                "fail",
                f"the target did not finish within {timeout:g} s and was stopped",
                None,
                "look for an endless loop or a blocking call in the target",
                "timeout",
            )
        )
    report.prune()
    report.duration_s = time.perf_counter() - t0
    return report


def _default_device() -> str:
    try:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    except Exception:  # pragma: no cover
        return "cpu"


def _run(
    report: VerifyReport,
    impl: Implementation,
    spec: RopeSpec | None,
    d: int,
    dts: tuple[str, ...],
    dev: str,
    top: int,
    allow_inplace: bool,
    seed: int,
) -> None:
    from ._verify_axes import DtypeSentinel, check_dtype_state, check_heads, check_rows
    from ._verify_checks import _behaviour, _ident_dtype, _identification, _interface, _precision

    rng = np.random.default_rng(seed)
    usable = [dt for dt in dts if _interface(report, impl, d, dt, dev, allow_inplace, rng)]
    if not usable:
        return
    idt = _ident_dtype(usable)
    if check_heads(report, impl, d, idt, dev, seed):
        spec = _identification(report, impl, spec, d, idt, dev, top)
    else:  # identification puts one basis vector in each head: meaningless when heads are mixed
        report.add(
            Check(
                "identification",
                "identification",
                "skip",
                "not run: it probes each dim in its own head, which needs the heads to be independent",
                idt,
            )
        )
    report.spec = spec
    if spec is None:
        return
    check_rows(report, impl, spec, idt, dev, seed, top)
    sentinel = DtypeSentinel(impl, spec, idt, dev, seed, top)
    for dt in usable:  # before the behaviour checks: their long calls may fill a target's caches
        _precision(report, impl, spec, dt, dev, seed, top)
        sentinel.check(report, dt, f"the {dt} precision check")
    check_dtype_state(report, impl, spec, usable, sentinel, dev, seed, top)
    _behaviour(report, impl, spec, idt, dev, seed, top)


