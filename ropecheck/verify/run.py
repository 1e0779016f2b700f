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
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InternalError, RopeCheckError, TargetError, UsageError
from ..protocol import Implementation, as_implementation
from ..qk import pair_kind
from ..spec import RopeSpec
from ..tolerance import dtype_name
from .axes import DtypeSentinel, check_dtype_state, check_heads, check_rows
from .checks import check_behaviour, check_gradients, check_identification, check_interface, check_precision
from .compiled import choose_backend, mark_compiled_only
from .model import POSITION_MODES, VERIFY_MAX_POSITION, Check, RunContext, VerifyOptions, VerifyReport
from .multiaxis import (
    check_axes_reference,
    check_axes_relative,
    check_mapped_range,
    check_multi_axis,
    plain_positions,
    text_view,
)
from .probes import identification_dtype
from .ranges import valid_range

__all__ = ["VerifyOptions", "verify"]


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
    options: VerifyOptions | None = None,
    *,
    listener: Callable[[str, Any], None] | None = None,
    **changes: Any,
) -> VerifyReport:
    """Verify ``fn`` (canonical protocol) against ``spec``; with no spec, identify it and check it for consistency.

    Args:
        fn: ``fn(x, positions)``, ``fn(x, offset)`` or ``fn(x)``; x is (batch, seq, heads, head_dim).
        spec: what it should implement; None identifies the target (needs ``head_dim``).
        options: how the verdict runs (:class:`VerifyOptions`); ``changes`` override its fields by name
            (``verify(fn, spec, dtypes=("float32",), max_position=4096)``).
        listener: told ``("start", report)`` once, then ``("stage", name)`` and ``("check", (check,
            message))`` as the run goes -- how a supervising process keeps a partial verdict.

    Example:
        >>> from ropecheck.properties import torch_reference
        >>> spec = RopeSpec(head_dim=8)
        >>> verify(torch_reference(spec), spec, dtypes=("float32",), max_position=4096).conforms
        True
    """
    o = (options or VerifyOptions()).with_(**changes)
    kind = None if isinstance(fn, Implementation) else pair_kind(fn)
    if kind is not None:  # q and k in, q and k out: each side judged through its own view
        from .qk import verify_qk

        target = as_implementation(fn, convention="positions", name=o.name)
        return verify_qk(target, spec, o, judge=verify, listener=listener)
    if o.compile:
        return _verify_compiled(fn, spec, o, listener)
    t0 = time.perf_counter()
    report, ctx = _prepare(fn, spec, o)
    if listener is not None:
        listener("start", report)
        report.listener = listener
    _execute(report, ctx, o.timeout)
    report.prune()
    report.duration_s = time.perf_counter() - t0
    return report


def _target(
    fn: Callable[..., Any] | Implementation, spec: RopeSpec | None, o: VerifyOptions
) -> tuple[Implementation, Implementation | None]:
    """The target as the checks call it, and (multi-axis) the target as it takes its own positions."""
    conv, mode = None, o.positions_mode
    if mode is None and _declared_convention(fn) == "axes":
        mode = "axes"  # a multi-axis callable (ropecheck.adapters.axes_fn) says so itself
    order = None if spec is None else spec.output_order()
    if order is not None:  # a declared output layout: judged in the spec's order, gathered where the target runs
        fn = as_implementation(fn, name=o.name).derive("reorder", order=[int(j) for j in order])
    if mode == "axes":
        if spec is None or spec.axes is None:
            raise UsageError(
                "--positions axes needs a multi-axis spec: an HF config with rope_scaling.mrope_section "
                "(Qwen2-VL, Qwen3-VL) or a 2-D vision config (--config-key vision_config)"
            )
        outer = as_implementation(fn, convention="positions", name=o.name)
        return as_implementation(text_view(outer, len(spec.axes.axes)), name=outer.name), outer
    if mode is not None:
        if mode not in POSITION_MODES and mode not in POSITION_MODES.values():
            raise UsageError(f"positions mode must be one of {', '.join(POSITION_MODES)}, got {mode!r}")
        conv = POSITION_MODES.get(mode, mode)
    return as_implementation(fn, convention=conv, name=o.name), None


def _prepare(
    fn: Callable[..., Any] | Implementation, spec: RopeSpec | None, o: VerifyOptions
) -> tuple[VerifyReport, RunContext]:
    """Every option checked (a usage error before any check runs); the empty report and the run's context."""
    if spec is None and o.head_dim is None:
        raise UsageError("give a spec (or head_dim, to identify the target)")
    d = spec.head_dim if spec is not None else int(o.head_dim)  # type: ignore[arg-type]
    dts = tuple(dtype_name(t) for t in o.dtypes)
    if not dts:
        raise UsageError("give at least one dtype")
    impl, outer = _target(fn, spec, o)
    dev = o.device or ("cuda" if impl.cuda_available() else "cpu")
    if dev not in ("cpu", "cuda") and not dev.startswith("cuda:"):
        raise UsageError(f"device must be 'cpu' or 'cuda', got {dev!r}")
    if dev.startswith("cuda") and not impl.cuda_available():
        why = impl.cuda_unavailable_reason()
        raise UsageError("device 'cuda' asked for, but CUDA is not available here" + (f": {why}" if why else ""))
    max_position, range_source = valid_range(spec, o.max_position, o.context, default=VERIFY_MAX_POSITION)
    if max_position < 8:
        raise UsageError(f"max_position must be >= 8, got {max_position}")
    report = VerifyReport(
        target=o.name or impl.name,
        spec=spec,
        spec_source="given" if spec is not None else "none",
        dtypes=dts,
        device=dev,
        max_position=max_position,
        convention="axes" if outer is not None else impl.convention,
        seed=o.seed,
        range_source=range_source,
    )
    conventions = {} if outer is not None else dict(o.conventions or {})
    if spec is not None and spec.output_layout is not None:  # the target is judged through its reordered view
        spec = spec.with_(output_layout=None)
    ctx = RunContext(impl, spec, d, dts, dev, max_position - 1, o.seed, o.allow_inplace, o.backward, conventions, outer)
    return report, ctx


def _execute(report: VerifyReport, ctx: RunContext, timeout: float | None) -> None:
    """Run the checks; the target's failure that escapes them is a finding, ropecheck's own is InternalError."""
    try:
        with _Deadline(timeout):
            if ctx.outer is not None and ctx.spec is not None:
                _run_axes(report, ctx)
            else:
                _run(report, ctx)
    except (RopeCheckError, MemoryError):  # a usage error, or out of memory: for the caller (the supervisor)
        raise
    except Exception as exc:
        if not isinstance(exc, TargetError) and not _from_target(exc):
            # nothing of the target's on the stack: a bug in ropecheck, not a finding (exit 70, never 1)
            raise InternalError(f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}") from exc
        what = f"the target's output could not be processed: {type(exc).__name__}: {exc}"
        report.add(Check("call", "interface", "fail", what, None, "return a tensor of x's shape, dtype and device",
                         "raised"))  # fmt: skip
    except _Timeout:
        what = f"the target did not finish within {timeout:g} s and was stopped"
        report.add(Check("timeout", "interface", "fail", what, None,
                         "look for an endless loop or a blocking call in the target", "timeout"))  # fmt: skip


def _verify_compiled(
    fn: Callable[..., Any] | Implementation,
    spec: RopeSpec | None,
    o: VerifyOptions,
    listener: Callable[[str, Any], None] | None,
) -> VerifyReport:
    """The compiled verdict, then the eager one; the compiled report, marked where they differ."""
    t0 = time.perf_counter()
    impl = as_implementation(fn, name=o.name)
    chosen, note = choose_backend(o.compile_backend)
    if impl.backend == "numpy":
        raise UsageError("--compile needs a torch target (torch.compile); this target takes numpy arrays")
    try:
        target = impl.derive("compile", backend=chosen)
    except TargetError as exc:
        raise UsageError(f"--compile: torch.compile could not wrap the target: {exc}") from None
    eager_options = o.with_(compile=False, compile_backend=None)
    # compiled first: the eager run's calls must not fill a cache the graph then reads
    report = verify(target, spec, eager_options, listener=listener)
    eager = verify(impl, spec, eager_options)
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
    check_mapped_range(ctx.rope, ctx.top)  # mapped axes: a range no comparison can judge is a usage error
    axes = ctx.with_(impl=ctx.outer)  # the per-axis checks call the multi-axis target itself
    idt = "float32" if "float32" in dts else dts[0]
    report.begin("the pair -> axis identification")
    if check_multi_axis(report, axes, idt) is None and any(c.status == "fail" for c in report.checks):
        return  # the structural finding is the root cause; the rest would only repeat it
    if plain_positions(ctx.rope):
        _run(report, ctx.with_(conventions={}))
    else:
        _run_mapped(report, ctx)
    failed = {c.dtype for c in report.checks if c.category == "interface" and c.status == "fail"}
    for dt in dts:
        if dt in failed:
            continue
        report.begin(f"the per-axis reference check ({dt})")
        check_axes_reference(report, axes, dt)
    report.begin("the per-axis relative position check")
    check_axes_relative(report, axes, idt)


def _run_mapped(report: VerifyReport, ctx: RunContext) -> None:
    """Axes with position maps or own tables: the interface check per dtype, and the 1-D view said not run -- its
    checks (identification at integer positions, the error model's bounds, the properties) read p * theta_i
    on a decaying table, which these axes are not; the per-axis checks judge them against the exact reference."""
    rng = np.random.default_rng(ctx.seed)
    for dt in ctx.dtypes:
        report.begin(f"the interface check ({dt})")
        check_interface(report, ctx, dt, rng)
    maps = ctx.rope.axes.maps_in_words() if ctx.rope.axes is not None else ""
    report.add(
        Check(
            "identification",
            "identification",
            "skip",
            f"the 1-D view is not run: its pairs turn by mapped positions or own tables ({maps}), not by p * theta_i "
            "of a base ** (-2i/d) table; the per-axis reference and relative-position checks judge them",
            ctx.dtypes[0],
        )
    )


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
