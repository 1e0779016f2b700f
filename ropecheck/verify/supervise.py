"""One verdict at arm's length: the target runs in a child process, the verdict is computed here.

:func:`verify_isolated` starts a :class:`~ropecheck.isolate.TargetProcess` whose child runs
``load()`` (imports the target) and then only answers requests: call the target on these
values, take its gradient, compile it (:mod:`ropecheck.host`). Identification, the fp64
reference, every comparison, property, bound and the verdict run in *this* process, on the raw
values that come back as data (:mod:`ropecheck.wire`). A target that patches numpy, torch,
mpmath or ropecheck in its own process can only change its own outputs -- which is what is
judged. Whatever the target does -- raise, call ``exit``/``os._exit``, segfault, abort, exhaust
its memory limit, hang, print, fork -- this process keeps the checks that finished and writes a
verdict: the target's misbehaviour is a finding (``exited``, ``crashed``, ``memory``,
``timeout``, ``raised``, ``channel``) naming the check that was running, exit 1; the child and
every process it started are ended on every path. A user mistake found while loading (a module
that does not import) comes back as a :class:`~ropecheck.errors.RopeCheckError` (exit 2); a bug
in ropecheck as :class:`~ropecheck.errors.InternalError` (exit 70) -- never as the target's fault.

Design constraints: this process imports no torch and never the target (a verdict costs one
torch import, the child's); the spec is settled here, before the child starts; the child runs
torch on one thread; where ``fork`` is missing the verdict runs in-process and says so.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..errors import InternalError, RopeCheckError, TargetMemoryError, UsageError
from ..host import ProcessHost, TargetHost, target_meta
from ..isolate import DEFAULT_MEMORY_LIMIT, ChildEnded, Outcome, TargetProcess, available, describe_outcome
from ..protocol import CONVENTIONS, Implementation
from ..spec import RopeSpec
from .model import VERIFY_MAX_POSITION, Check, VerifyOptions, VerifyReport

__all__ = ["PROCESS_CODES", "Loaded", "verify_isolated"]

#: Finding code for each way a child can end without a verdict.
PROCESS_CODES = {
    "exited": "exited",
    "signaled": "crashed",
    "lost": "crashed",
    "channel": "crashed",
    "memory": "memory",
    "timeout": "timeout",
    "raised": "raised",
}

_HINTS = {
    "exited": "a RoPE function must return its result: remove sys.exit/os._exit/quit from the code path",
    "crashed": "a native extension or ctypes call crashed, or the target wrote into ropecheck's channel: run "
    "the target alone under gdb or faulthandler",
    "memory": "the target allocates far more than a RoPE needs (a table per call, a leak?); "
    "or raise --memory-limit if this much is intended",
    "timeout": "look for an endless loop, a blocking call, or a lock held by another thread in the target",
    "raised": "the target raised where it should have returned (see the message)",
}


@dataclass(frozen=True)
class Loaded:
    """What ``load()`` gives, in the child: the callable, its name, and the calling convention if one was chosen."""

    fn: Callable[..., Any]
    name: str
    positions_mode: str | None = None


def _setup(load: Callable[[], Any]) -> tuple[Any, dict[str, Any]]:
    """In the child: import the target; the answering function and what the judge needs to know of it."""
    try:
        loaded = load()
        fn, name = (loaded.fn, loaded.name) if isinstance(loaded, Loaded) else (loaded, "")
        meta = target_meta(fn, name or None)
    except RopeCheckError as exc:
        return None, {"status": "usage", "error": str(exc)}
    except MemoryError:
        raise
    except Exception:
        return None, {"status": "internal", "error": traceback.format_exc()}
    if "torch" in sys.modules and "OMP_NUM_THREADS" not in os.environ:  # small probes: threads only add overhead
        sys.modules["torch"].set_num_threads(1)
    mode = loaded.positions_mode if isinstance(loaded, Loaded) else None
    return TargetHost(fn, meta["label"]).answer, {"status": "ok", "positions_mode": mode, **meta}


class _Progress:
    """What the parent knows of a verdict in progress: the report, its stage, whether the target loaded."""

    def __init__(self) -> None:
        self.report: VerifyReport | None = None
        self.stage: str | None = None
        self.loaded = False

    def listen(self, kind: str, payload: Any) -> None:
        if kind == "start":
            self.report = payload
        elif kind == "stage":
            self.stage = payload


def verify_isolated(
    load: Callable[[], Any],
    *,
    spec: RopeSpec | None,
    options: VerifyOptions | None = None,
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
    adjust: Callable[[Implementation, RopeSpec | None], RopeSpec | None] | None = None,
    **changes: Any,
) -> VerifyReport:
    """Verify a target held by a child process; a verdict whatever the target does.

    Args:
        load: imports the target and returns it (a callable or a :class:`Loaded`), in the child.
        spec: what it should implement, settled in this process (None: identify it; needs ``head_dim``).
        options: how the verdict runs (:class:`~ropecheck.verify.run.VerifyOptions`; ``changes`` override
            its fields by name). Its ``timeout`` bounds the whole verdict: a target still running then is
            stopped, with everything it started, and the verdict says which check it was in.
        memory_limit: bytes of private writable memory the child may add (None: no limit).
        adjust: called with the target (an :class:`Implementation`) and the spec before the checks;
            returns the spec to judge against (``--layout auto`` takes the pairing from the target).

    Raises:
        UsageError: ``load`` found a user mistake (exit 2).
        InternalError: a bug in ropecheck (exit 70).
    """
    o = (options or VerifyOptions()).with_(**changes)
    if not available():  # pragma: no cover - POSIX machines only
        from .run import verify  # heavy: the checks

        loaded = load()
        report = verify(loaded.fn if isinstance(loaded, Loaded) else loaded, spec, o)
        report.notes.append("this platform cannot fork: the target ran in ropecheck's own process")
        return report
    deadline = None if not o.timeout else time.monotonic() + o.timeout
    process = TargetProcess(partial(_setup, load), memory_limit=memory_limit, deadline=deadline, timeout=o.timeout)
    progress = _Progress()
    try:
        report = _judge(process, progress, spec, adjust, o)
    except ChildEnded as ended:
        report = _judge_failure(ended.outcome, progress, o)
    except TargetMemoryError as exc:
        report = _judge_failure(process.fail("memory", str(exc)).outcome, progress, o)
    finally:
        outcome = process.close()
    _note_output(report, outcome)
    return report


def _judge(
    process: TargetProcess,
    progress: _Progress,
    spec: RopeSpec | None,
    adjust: Callable[[Implementation, RopeSpec | None], RopeSpec | None] | None,
    o: VerifyOptions,
) -> VerifyReport:
    """Load the target in the child, then run the whole verdict here with its calls answered there."""
    process.launch()  # the child imports the target (and torch) while this process imports the checks
    from .run import verify  # heavy: the checks, the reference, the diagnoses

    meta = process.start()
    status = meta.get("status") if isinstance(meta, dict) else None
    if status == "usage":
        raise UsageError(str(meta["error"]))
    if status == "memory":
        raise process.fail("memory", str(meta.get("error")))
    if status != "ok":
        raise InternalError(str(meta.get("error") if isinstance(meta, dict) else meta))
    progress.loaded = True
    declared = meta.get("declared_convention")
    convention = declared if declared in CONVENTIONS else str(meta.get("convention"))
    if convention not in CONVENTIONS:
        convention = "positions"
    mode = o.positions_mode or meta.get("positions_mode") or ("axes" if declared == "axes" else None)
    backend = str(meta.get("backend"))
    impl = Implementation(None, convention, backend if backend in ("torch", "numpy", "jax") else "auto",
                          o.name or str(meta.get("label")), host=ProcessHost(process))  # fmt: skip
    if meta.get("qk"):  # q and k in, q and k out: each side judged through its own view (ropecheck.verify.qk)
        from .qk import verify_qk

        return verify_qk(impl, spec, o.with_(timeout=None), judge=verify, listener=progress.listen, adjust=adjust)
    if adjust is not None:
        spec = adjust(impl, spec)
    # the deadline is the child's to keep (this process kills it), not an alarm in this process
    return verify(impl, spec, o.with_(positions_mode=mode, timeout=None), listener=progress.listen)


def _note_output(report: VerifyReport, outcome: Outcome) -> None:
    for stream, text in (("stdout", outcome.stdout), ("stderr", outcome.stderr)):
        lines = [line for line in text.splitlines() if line.strip()]
        if lines:
            report.notes.append(
                f"the target wrote {len(lines)} line(s) to {stream} (kept apart from ropecheck's output); "
                f"last: {lines[-1][:200]}"
            )


def _judge_failure(outcome: Outcome, progress: _Progress, o: VerifyOptions) -> VerifyReport:
    """The verdict when the child ended before the verdict did: the checks that finished, and what the target did."""
    report = progress.report
    if report is None:
        report = VerifyReport(
            target=o.name or "target",
            spec=None,
            spec_source="none",
            dtypes=tuple(o.dtypes),
            device=o.device or "cpu",
            max_position=o.max_position or VERIFY_MAX_POSITION,
            convention="unknown",
            seed=o.seed,
        )
    report.listener = None
    if not progress.loaded:
        where = " while it was being imported"
    elif progress.stage:
        where = f" during {progress.stage}"
    else:
        where = ""
    code = PROCESS_CODES[outcome.status]
    evidence = describe_outcome(outcome, "the target") + where
    if outcome.status == "raised" and outcome.traceback:
        last = [line for line in outcome.traceback.strip().splitlines() if line.strip()]
        evidence += f" ({last[-1].strip()})" if last else ""
    report.add(Check("process", "process", "fail", evidence, None, _HINTS[code], code))
    report.prune()
    report.duration_s = outcome.seconds
    return report
