"""One verdict at arm's length: load and verify the target in a child process, judge what happened.

:func:`verify_isolated` runs ``load()`` (import the target, read its spec) and :func:`verify`
in a forked child (:func:`ropecheck.isolate.run_isolated`). The child streams the report's
header and every check as it finishes, so whatever the target does -- return, raise, call
``exit``/``os._exit``, segfault, abort, exhaust its memory limit, hang, print -- the parent
still has the checks that ran and writes a verdict: the target's misbehaviour is a finding
(``exited``, ``crashed``, ``memory``, ``timeout``, ``raised``) naming the check that was
running, exit 1. A user mistake found while loading (a module that does not import, a bad
spec) comes back as a :class:`~ropecheck.errors.RopeCheckError` (exit 2); a bug in ropecheck
as :class:`~ropecheck.errors.InternalError` (exit 70) -- never as the target's fault.

Design constraints: the child runs torch on one thread (a forked OpenMP pool is not safe);
the parent never imports the target; where ``fork`` is missing the verdict runs in-process
and says so in its notes.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import InternalError, RopeCheckError, UsageError
from ..isolate import DEFAULT_MEMORY_LIMIT, Outcome, available, describe_outcome, run_isolated, send
from ..spec import RopeSpec
from .model import VERIFY_MAX_POSITION, Check, VerifyReport
from .run import verify

__all__ = ["PROCESS_CODES", "KILL_GRACE_S", "Loaded", "verify_isolated"]

#: How long past ``timeout`` the parent waits before it kills a child stuck where the
#: in-process deadline cannot reach (C code, another thread).
KILL_GRACE_S = 10.0

#: Finding code for each way a child can end without a verdict.
PROCESS_CODES = {
    "exited": "exited",
    "signaled": "crashed",
    "lost": "crashed",
    "memory": "memory",
    "timeout": "timeout",
    "raised": "raised",
}

_HINTS = {
    "exited": "a RoPE function must return its result: remove sys.exit/os._exit/quit from the code path",
    "crashed": "a native extension or ctypes call crashed: run the target alone under gdb or faulthandler",
    "memory": "the target allocates far more than a RoPE needs (a table per call, a leak?); "
    "or raise --memory-limit if this much is intended",
    "timeout": "look for an endless loop, a blocking call, or a lock held by another thread in the target",
    "raised": "the target raised where it should have returned (see the message)",
}


@dataclass(frozen=True)
class Loaded:
    """What ``load()`` gives the verdict: the callable, the spec (None: identify it), and options."""

    fn: Callable[..., Any]
    spec: RopeSpec | None
    head_dim: int | None
    name: str
    positions_mode: str | None = None


def _one_torch_thread() -> None:
    try:
        import torch  # heavy: imported when used

        torch.set_num_threads(1)
    except ImportError:  # pragma: no cover - torch is a core dependency
        pass


def _child(load: Callable[[], Loaded], options: dict[str, Any]) -> tuple[str, Any]:
    _one_torch_thread()
    try:
        loaded = load()
        send(("loaded", loaded.name))
        report = verify(
            loaded.fn,
            loaded.spec,
            head_dim=loaded.head_dim,
            positions_mode=loaded.positions_mode,
            name=loaded.name,
            listener=lambda kind, payload: send((kind, payload)),
            **options,
        )
        if report.identification is not None:  # the checks have read them: not worth a trip through the pipe
            report.identification = report.identification.without_matrices()
        return ("report", report)
    except RopeCheckError as exc:
        return ("usage", f"{exc}")
    except MemoryError:
        raise  # reported by the child runner as "memory", with the checks sent so far
    except InternalError as exc:
        return ("internal", str(exc))
    except Exception:
        return ("internal", traceback.format_exc())


def verify_isolated(
    load: Callable[[], Loaded],
    *,
    name: str,
    dtypes: tuple[str, ...],
    device: str | None = None,
    max_position: int | None = None,
    allow_inplace: bool = False,
    seed: int = 0,
    timeout: float | None = None,
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
    context: int | None = None,
    conventions: dict[str, Any] | None = None,
    backward: bool = True,
    compile: bool = False,
    compile_backend: str | None = None,
) -> VerifyReport:
    """Load and verify a target in a child process; a verdict whatever the target does.

    Args:
        load: imports the target and builds its spec, in the child (so an import that exits
            or crashes is the target's failure, not the supervisor's end).
        name: the target's name for the verdict, should the child die before ``load`` returns.
        timeout: seconds for the whole verdict (the child's own deadline stops Python-level
            hangs; the parent kills the child :data:`KILL_GRACE_S` later).
        memory_limit: bytes of address space the child may add (None: no limit).
        context, conventions, backward, compile, compile_backend: as :func:`~ropecheck.verify.run.verify`
            (identification's range and conventions; the backward checks; torch.compile).

    Raises:
        UsageError: ``load`` found a user mistake (exit 2).
        InternalError: a bug in ropecheck (exit 70).
    """
    options: dict[str, Any] = {
        "dtypes": dtypes,
        "device": device,
        "max_position": max_position,
        "allow_inplace": allow_inplace,
        "seed": seed,
        "timeout": timeout,
        "context": context,
        "conventions": conventions,
        "backward": backward,
        "compile": compile,
        "compile_backend": compile_backend,
    }
    if not available():  # pragma: no cover - POSIX machines only
        loaded = load()
        report = verify(loaded.fn, loaded.spec, head_dim=loaded.head_dim, positions_mode=loaded.positions_mode,
                        name=loaded.name, **options)  # fmt: skip
        report.notes.append("this platform cannot fork: the target ran in ropecheck's own process")
        return report
    events: list[tuple[str, Any]] = []
    kill_after = None if not timeout else timeout + KILL_GRACE_S
    outcome = run_isolated(_child, load, options, timeout=kill_after, memory_limit=memory_limit,
                           on_message=events.append)  # fmt: skip
    if outcome.ok:
        kind, payload = outcome.value
        if kind == "usage":
            raise UsageError(payload)
        if kind == "internal":
            raise InternalError(payload)
        report = payload
        _note_output(report, outcome)
        return report
    return _judge_failure(outcome, events, name=name, options=options)


def _note_output(report: VerifyReport, outcome: Outcome) -> None:
    for stream, text in (("stdout", outcome.stdout), ("stderr", outcome.stderr)):
        lines = [line for line in text.splitlines() if line.strip()]
        if lines:
            report.notes.append(
                f"the target wrote {len(lines)} line(s) to {stream} (kept apart from ropecheck's output); "
                f"last: {lines[-1][:200]}"
            )


def _judge_failure(
    outcome: Outcome, events: list[tuple[str, Any]], *, name: str, options: dict[str, Any]
) -> VerifyReport:
    """The verdict when the child ended without one: the checks it sent, and what the target did."""
    report: VerifyReport | None = None
    stage, loaded = None, False
    checks: list[tuple[Check, str | None]] = []
    for kind, payload in events:
        if kind == "loaded":
            loaded = True
        elif kind == "start":
            report = payload
        elif kind == "stage":
            stage = payload
        elif kind == "check":
            checks.append(payload)
    if report is None:
        report = VerifyReport(
            target=name,
            spec=None,
            spec_source="none",
            dtypes=tuple(options["dtypes"]),
            device=options["device"] or "cpu",
            max_position=options["max_position"] or VERIFY_MAX_POSITION,
            convention="unknown",
            seed=options["seed"],
        )
    report.listener = None
    for check, message in checks:
        report.add(check, message)
    if not loaded:
        where = " while it was being imported and its spec read"
    elif stage:
        where = f" during {stage}"
    else:
        where = ""
    code = PROCESS_CODES[outcome.status]
    evidence = describe_outcome(outcome, "the target") + where
    if outcome.status == "raised" and outcome.traceback:
        last = [line for line in outcome.traceback.strip().splitlines() if line.strip()]
        evidence += f" ({last[-1].strip()})" if last else ""
    report.add(Check("process", "process", "fail", evidence, None, _HINTS[code], code))
    _note_output(report, outcome)
    report.prune()
    report.duration_s = outcome.seconds
    return report
