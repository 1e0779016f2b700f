"""The verifier: judge a black-box RoPE implementation against a spec.

``verify(fn, spec)`` runs, in this order, and records every outcome as a :class:`Check`:

1. **interface** (per dtype) -- one call under the canonical protocol: does it return a
   tensor of x's shape, dtype and device, finite, without mutating x or the positions? Then
   the **axes** (:mod:`.axes`): each head rotates as it does alone (else
   identification, which probes one basis vector per head, is skipped), each batch row by
   its own positions.
2. **identification** (one dtype, float32 when asked for) -- the matrix the target applies
   at each probed position, recovered from basis vectors (:mod:`.identify`), its
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
5. **backward** (per dtype, ``backward=True``) -- the gradient autograd gives against the
   transpose of the spec's rotation, and the double backward (:mod:`ropecheck.gradients`);
   SKIP where the target has no autograd.

A failed check yields a :class:`Finding` with a stable ``code`` (see ``FINDING_CODES``) and a
sentence that names the bug. Findings are pruned to root causes and ordered most direct first
(interface, identification, state and lengths, position scenarios, precision, properties), so
the first one names the bug. ``VerifyReport.conforms`` is True when nothing failed.

Design constraints: the target is a black box that may raise, hang, return garbage or
mutate its input -- every such outcome is a finding, never an exception out of ``verify``
(``timeout`` uses SIGALRM on the main thread); default options stay well under 10 s on CPU.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import InternalError, RopeCheckError, TargetError, UsageError
from ..protocol import Implementation, as_implementation
from ..spec import RopeSpec
from ..tolerance import dtype_name
from .axes import DtypeSentinel, check_dtype_state, check_heads, check_rows
from .checks import check_behaviour, check_gradients, check_identification, check_interface, check_precision
from .compiled import choose_backend, mark_compiled_only
from .model import DEFAULT_DTYPES, POSITION_MODES, VERIFY_MAX_POSITION, Check, RunContext, VerifyReport
from .multiaxis import check_axes_reference, check_axes_relative, check_multi_axis, text_view
from .probes import identification_dtype
from .ranges import valid_range

__all__ = ["verify"]


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
    listener: Callable[[str, Any], None] | None = None,
    context: int | None = None,
    conventions: Mapping[str, Any] | None = None,
    backward: bool = True,
    compile: bool = False,
    compile_backend: str | None = None,
) -> VerifyReport:
    """Verify ``fn`` (canonical protocol) against ``spec``; with no spec, identify it and check it for consistency.

    Args:
        fn: ``fn(x, positions)``, ``fn(x, offset)`` or ``fn(x)``; x is (batch, seq, heads, head_dim).
        spec: what it should implement; None identifies the target (needs ``head_dim``).
        dtypes: dtypes for the interface and precision checks.
        device: ``"cpu"`` or ``"cuda"`` (default: cuda when available).
        max_position: the valid range: positions 0 .. max_position-1, calls of at most max_position tokens
            (default: the spec's context or scaled context, else ``context``, else 131072; see :mod:`.ranges`).
        positions_mode: ``"tensor"``, ``"offset"`` or ``"implicit"`` (default: from the signature); ``"axes"``
            for multi-axis RoPE (``fn(x, positions)`` with positions ``(axes, batch, seq)``; needs ``spec.axes``,
            see :mod:`.multiaxis`).
        allow_inplace: do not count mutating x as a failure.
        timeout: seconds; a target still running then is stopped and reported (main thread, POSIX).
        listener: told ``("start", report)`` once, then ``("stage", name)`` and ``("check", (check,
            message))`` as the run goes -- how a supervising process keeps a partial verdict.
        context: the model's context when there is no spec to carry it (identification).
        conventions: with no spec, the conventions the target may follow (``direction``, ``rotary_dims``).
        backward: run the backward checks (:mod:`ropecheck.gradients`) where the target supports autograd.
        compile: verify the target wrapped in ``torch.compile`` too, and report the compiled verdict with the
            checks where it differs from the eager one (:mod:`.compiled`).
        compile_backend: the ``torch.compile`` backend (default: inductor with a C++ compiler, else aot_eager).

    Example:
        >>> from ropecheck.properties import torch_reference
        >>> spec = RopeSpec(head_dim=8)
        >>> verify(torch_reference(spec), spec, dtypes=("float32",), max_position=4096).conforms
        True
    """
    if compile:
        return _verify_compiled(
            fn, spec, compile_backend, head_dim=head_dim, dtypes=dtypes, device=device, max_position=max_position,
            positions_mode=positions_mode, allow_inplace=allow_inplace, seed=seed, timeout=timeout, name=name,
            listener=listener, context=context, conventions=conventions, backward=backward,
        )  # fmt: skip
    t0 = time.perf_counter()
    if spec is None and head_dim is None:
        raise UsageError("give a spec (or head_dim, to identify the target)")
    d = spec.head_dim if spec is not None else int(head_dim)  # type: ignore[arg-type]
    dts = tuple(dtype_name(t) for t in dtypes)
    if not dts:
        raise UsageError("give at least one dtype")
    conv = None
    outer: Implementation | None = None
    if positions_mode is None and _declared_convention(fn) == "axes":
        positions_mode = "axes"  # a multi-axis callable (ropecheck.adapters.axes_fn) says so itself
    if positions_mode == "axes":
        if spec is None or spec.axes is None:
            raise UsageError(
                "--positions axes needs a multi-axis spec: an HF config with rope_scaling.mrope_section "
                "(Qwen2-VL, Qwen3-VL) or a 2-D vision config (--config-key vision_config)"
            )
        outer = as_implementation(fn, convention="positions", name=name)
        fn = text_view(outer, len(spec.axes.axes))
        name = outer.name
    elif positions_mode is not None:
        if positions_mode not in POSITION_MODES and positions_mode not in POSITION_MODES.values():
            raise UsageError(f"positions mode must be one of {', '.join(POSITION_MODES)}, got {positions_mode!r}")
        conv = POSITION_MODES.get(positions_mode, positions_mode)
    impl = as_implementation(fn, convention=conv, name=name)
    dev = device or ("cuda" if impl.cuda_available() else "cpu")
    if dev not in ("cpu", "cuda") and not dev.startswith("cuda:"):
        raise UsageError(f"device must be 'cpu' or 'cuda', got {dev!r}")
    if dev.startswith("cuda") and not impl.cuda_available():
        raise UsageError("device 'cuda' asked for, but CUDA is not available here")
    max_position, range_source = valid_range(spec, max_position, context, default=VERIFY_MAX_POSITION)
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
        convention="axes" if outer is not None else impl.convention,
        seed=seed,
        range_source=range_source,
    )
    if listener is not None:
        listener("start", report)
        report.listener = listener
    try:
        with _Deadline(timeout):
            if outer is not None and spec is not None:
                _run_axes(report, RunContext(impl, spec, d, dts, dev, top, seed, allow_inplace, backward, {}, outer))
            else:
                _run(
                    report,
                    RunContext(impl, spec, d, dts, dev, top, seed, allow_inplace, backward, dict(conventions or {})),
                )
    except (RopeCheckError, MemoryError):  # a usage error, or out of memory: for the caller (the supervisor)
        raise
    except Exception as exc:
        if not isinstance(exc, TargetError) and not _from_target(exc):
            # nothing of the target's on the stack: a bug in ropecheck, not a finding (exit 70, never 1)
            raise InternalError(f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}") from exc
        report.add(
            Check(
                "call",
                "interface",
                "fail",
                f"the target's output could not be processed: {type(exc).__name__}: {exc}",
                None,
                "return a tensor of x's shape, dtype and device",
                "raised",
            )
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


def _verify_compiled(
    fn: Callable[..., Any] | Implementation, spec: RopeSpec | None, backend: str | None, **options: Any
) -> VerifyReport:
    """The compiled verdict, then the eager one; the compiled report, marked where they differ."""
    t0 = time.perf_counter()
    listener = options.pop("listener")
    impl = as_implementation(fn, name=options.get("name"))
    chosen, note = choose_backend(backend)
    if impl.backend == "numpy":
        raise UsageError("--compile needs a torch target (torch.compile); this target takes numpy arrays")
    try:
        target = impl.derive("compile", backend=chosen)
    except TargetError as exc:
        raise UsageError(f"--compile: torch.compile could not wrap the target: {exc}") from None
    # compiled first: the eager run's calls must not fill a cache the graph then reads
    report = verify(target, spec, listener=listener, **options)
    eager = verify(impl, spec, **options)
    mark_compiled_only(report, eager, note)
    report.duration_s = time.perf_counter() - t0
    return report


_OURS = (
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))),  # the ropecheck package
    os.path.dirname(os.path.abspath(os.__file__)),  # the standard library
    os.path.dirname(os.path.abspath(np.__file__)),
)


def _from_target(exc: BaseException) -> bool:
    """Whether a frame of the traceback lies outside ropecheck, the standard library and numpy/torch:
    code of the target's (its module, or the library an adapter wraps)."""
    tb = exc.__traceback__
    while tb is not None:
        filename = os.path.abspath(tb.tb_frame.f_code.co_filename)
        if not filename.startswith(_OURS) and f"{os.sep}torch{os.sep}" not in filename:
            return True
        tb = tb.tb_next
    return False


def _declared_convention(fn: Any) -> str | None:
    """The convention a callable declares itself (``rope_convention``); for a target held by a
    child process, the parent passes ``positions_mode`` from what the child read instead."""
    if isinstance(fn, Implementation):
        return None
    value = getattr(fn, "rope_convention", None)
    return value if isinstance(value, str) else None


def _run_axes(report: VerifyReport, ctx: RunContext) -> None:
    """Multi-axis RoPE: the pair -> axis identification, the 1-D view, then per-axis reference and relative position."""
    dts = ctx.dtypes
    axes = ctx.with_(impl=ctx.outer)  # the per-axis checks call the multi-axis target itself
    idt = "float32" if "float32" in dts else dts[0]
    report.begin("the pair -> axis identification")
    if check_multi_axis(report, axes, idt) is None and any(c.status == "fail" for c in report.checks):
        return  # the structural finding is the root cause; the rest would only repeat it
    _run(report, ctx.with_(conventions={}))
    failed = {c.dtype for c in report.checks if c.category == "interface" and c.status == "fail"}
    for dt in dts:
        if dt in failed:
            continue
        report.begin(f"the per-axis reference check ({dt})")
        check_axes_reference(report, axes, dt)
    report.begin("the per-axis relative position check")
    check_axes_relative(report, axes, idt)


def _run(report: VerifyReport, ctx: RunContext) -> None:
    rng = np.random.default_rng(ctx.seed)
    usable = []
    for dt in ctx.dtypes:
        report.begin(f"the interface check ({dt})")
        if check_interface(report, ctx, dt, rng):
            usable.append(dt)
    if not usable:
        return
    idt = identification_dtype(usable)
    report.begin("the heads check")
    spec = ctx.spec
    if check_heads(report, ctx, idt):
        report.begin("identification")
        spec = check_identification(report, ctx, idt)
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
    ctx = ctx.with_(spec=spec)
    report.begin("the batch rows check")
    check_rows(report, ctx, idt)
    sentinel = DtypeSentinel(ctx, idt)
    for dt in usable:  # before the behaviour checks: their long calls may fill a target's caches
        report.begin(f"the precision check ({dt})")
        check_precision(report, ctx, dt)
        sentinel.check(report, dt, f"the {dt} precision check")
    report.begin("the dtype state check")
    check_dtype_state(report, ctx, usable, sentinel)
    report.begin("the behaviour checks (properties, positions, lengths, decode)")
    check_behaviour(report, ctx, idt)
    if ctx.backward:  # last: the behaviour checks' verdicts come from calls without autograd
        for dt in usable:
            report.begin(f"the backward checks ({dt})")
            check_gradients(report, ctx, dt)
