"""Running untrusted code at arm's length: a forked child, a time limit, a memory limit, its output kept.

:func:`run_isolated` calls a function in a child process made by ``fork`` (after the heavy
imports, so starting one costs milliseconds) and reports what happened as an
:class:`Outcome`: its return value, or that it raised, called ``exit``/``os._exit``, died of
a signal (a segfault, an abort), ran out of memory, or did not finish in time. Whatever the
code does, the caller gets an outcome and can still write its verdict. The child's stdout
and stderr go to temporary files, so a target that prints cannot corrupt ``--json -``; the
tail of each comes back in the outcome. While it runs, the child can send progress messages
(:func:`send`) that the caller receives as they come, so a verdict keeps the checks that
finished before the child died.

What this does *not* give: a security sandbox. The code runs as the same user, with the
same files and network; it can write files, spawn processes or damage the machine. The
child is only a fence around crashes, exits, hangs and memory blow-ups.

Design constraints: POSIX ``fork`` only (where it is missing, :func:`available` is False and
callers run in-process, saying so); the child never returns into the caller's stack (it
leaves through ``os._exit``); results cross the pipe pickled, length-prefixed; the caller
must not hold other threads' locks when it forks (the CLI forks before any progress display).
"""

from __future__ import annotations

import contextlib
import faulthandler
import io
import math
import os
import pickle
import resource
import select
import signal
import struct
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "DEFAULT_MEMORY_LIMIT",
    "Outcome",
    "available",
    "describe_outcome",
    "in_child",
    "run_isolated",
    "send",
]

#: Extra address space a child may map beyond what the parent had at fork time (bytes).
DEFAULT_MEMORY_LIMIT = 8 << 30

_TAIL = 4000  # characters of the child's stdout/stderr kept in an outcome
_CHANNEL: int | None = None  # the write end of the pipe, in a child


@dataclass
class Outcome:
    """What happened to a function run in a child process.

    ``status`` is one of ``ok`` (it returned ``value``), ``raised`` (an exception escaped:
    ``error`` is ``"Type: message"``, ``error_type`` the type's name, ``traceback`` the text),
    ``exited`` (``sys.exit``/``os._exit`` with ``exit_code``), ``signaled`` (killed by
    ``signal_number``: a segfault, an abort), ``memory`` (it ran out of the memory it was
    allowed), ``timeout`` (still running after ``timeout`` seconds: killed) or ``lost`` (it
    ended without a word, e.g. killed from outside).
    """

    status: str
    value: Any = None
    error: str | None = None
    error_type: str | None = None
    traceback: str = ""
    exit_code: int | None = None
    signal_number: int | None = None
    stdout: str = ""
    stderr: str = ""
    messages: list[Any] = field(default_factory=list)
    seconds: float = 0.0
    timeout: float | None = None
    memory_limit: int | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def available() -> bool:
    """Whether this platform can fork (POSIX)."""
    return hasattr(os, "fork") and sys.platform != "win32"


def in_child() -> bool:
    """True inside a child started by :func:`run_isolated`."""
    return _CHANNEL is not None


def send(message: Any) -> None:
    """From inside the child: pass a picklable progress message to the caller (no-op elsewhere)."""
    if _CHANNEL is not None:
        _write_frame(_CHANNEL, ("message", message))


def _write_frame(fd: int, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    payload = struct.pack("!Q", len(data)) + data
    view = memoryview(payload)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _address_space() -> int:
    """Bytes of address space this process maps now (Linux /proc), 0 where unknown."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _child(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], wfd: int,
           out_fd: int, err_fd: int, memory_limit: int | None) -> None:  # fmt: skip
    global _CHANNEL
    code = 0
    try:
        os.setpgid(0, 0)  # its own process group: a timeout kills whatever it started too
        if faulthandler.is_enabled():  # a crash is reported by the parent, not dumped on its terminal
            faulthandler.disable()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), write_through=True)
        sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", closefd=False), write_through=True)
        if memory_limit:
            limit = _address_space() + int(memory_limit)
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        _CHANNEL = wfd
        try:
            value = fn(*args, **kwargs)
            frame: tuple[Any, ...] = ("ok", value)
        except SystemExit as exc:
            code_ = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            frame = ("exited", code_, f"SystemExit({exc.code!r})")
        except MemoryError as exc:
            frame = ("memory", str(exc) or "MemoryError")
        except BaseException as exc:  # every escape is reported, KeyboardInterrupt included
            frame = ("raised", type(exc).__name__, f"{type(exc).__name__}: {exc}", traceback.format_exc())
        try:
            _write_frame(wfd, frame)
        except Exception as exc:  # an unpicklable result is reported, not lost
            _write_frame(wfd, ("raised", type(exc).__name__, f"the result could not be sent back: {exc}", ""))
    except BaseException:  # nothing may return into the parent's stack
        code = 70
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _read_tail(fh: Any) -> str:
    fh.seek(0, os.SEEK_END)
    size = fh.tell()
    fh.seek(max(0, size - 4 * _TAIL))
    text = fh.read().decode("utf-8", errors="replace")
    return text[-_TAIL:]


def run_isolated(
    fn: Callable[..., Any],
    *args: Any,
    timeout: float | None = None,
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
    on_message: Callable[[Any], None] | None = None,
    **kwargs: Any,
) -> Outcome:
    """Call ``fn(*args, **kwargs)`` in a forked child and report what happened.

    Args:
        fn: any callable; the child inherits it (nothing is pickled on the way in). Its return
            value must be picklable.
        timeout: wall-clock seconds before the child (and its process group) is killed.
        memory_limit: bytes of address space the child may add to what the caller maps
            (``RLIMIT_AS``); None for no limit.
        on_message: called in the caller with each message the child sends (:func:`send`).

    Example:
        >>> run_isolated(lambda: 6 * 7).value
        42
        >>> run_isolated(os._exit, 3).status
        'exited'
    """
    if not available():  # pragma: no cover - POSIX machines only
        raise RuntimeError("run_isolated needs fork (POSIX)")
    t0 = time.perf_counter()
    out_file = tempfile.TemporaryFile()
    err_file = tempfile.TemporaryFile()
    rfd, wfd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child, reported through the pipe
        os.close(rfd)
        _child(fn, args, kwargs, wfd, out_file.fileno(), err_file.fileno(), memory_limit)
    os.close(wfd)
    outcome = Outcome(status="lost", timeout=timeout, memory_limit=memory_limit)
    buffer = bytearray()  # appended in place: a large result (tens of MB) costs linear time, not quadratic
    final: tuple[Any, ...] | None = None
    deadline = None if timeout is None or not math.isfinite(timeout) else t0 + timeout
    timed_out = False
    try:
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.perf_counter())
            ready, _, _ = select.select([rfd], [], [], wait)
            if not ready:
                timed_out = True
                break
            chunk = os.read(rfd, 1 << 20)
            if not chunk:
                break
            buffer += chunk
            start = 0
            while len(buffer) - start >= 8:
                (size,) = struct.unpack_from("!Q", buffer, start)
                if len(buffer) - start < 8 + size:
                    break
                frame = pickle.loads(bytes(buffer[start + 8 : start + 8 + size]))
                start += 8 + size
                if frame[0] == "message":
                    outcome.messages.append(frame[1])
                    if on_message is not None:
                        on_message(frame[1])
                else:
                    final = frame
            del buffer[:start]
    except BaseException:
        _kill(pid)
        os.close(rfd)
        raise
    if timed_out:
        _kill(pid)
    os.close(rfd)
    _, status = os.waitpid(pid, 0)
    outcome.seconds = time.perf_counter() - t0
    outcome.stdout, outcome.stderr = _read_tail(out_file), _read_tail(err_file)
    out_file.close()
    err_file.close()
    if timed_out:
        outcome.status = "timeout"
    elif final is not None:
        kind = final[0]
        if kind == "ok":
            outcome.status, outcome.value = "ok", final[1]
        elif kind == "exited":
            outcome.status, outcome.exit_code, outcome.error = "exited", final[1], final[2]
        elif kind == "memory":
            outcome.status, outcome.error = "memory", final[1]
        else:
            outcome.status, outcome.error_type, outcome.error, outcome.traceback = (
                "raised",
                final[1],
                final[2],
                final[3],
            )
            if _looks_like_memory(outcome.error):
                outcome.status = "memory"
    elif os.WIFSIGNALED(status):
        outcome.status, outcome.signal_number = "signaled", os.WTERMSIG(status)
    elif os.WIFEXITED(status):
        outcome.status, outcome.exit_code = "exited", os.WEXITSTATUS(status)
    return outcome


def _looks_like_memory(error: str | None) -> bool:
    text = (error or "").lower()
    return "memoryerror" in text or "can't allocate memory" in text or "out of memory" in text


def _kill(pid: int) -> None:
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            target()


def describe_outcome(outcome: Outcome, what: str = "the target") -> str:
    """One sentence for a failed outcome: what the code did, in words a user reads."""
    if outcome.status == "exited":
        how = outcome.error or f"os._exit({outcome.exit_code})"
        return f"{what} ended the process ({how}, exit code {outcome.exit_code}) instead of returning"
    if outcome.status == "signaled":
        number = outcome.signal_number or 0
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        crash = {
            "SIGSEGV": " (a segmentation fault)",
            "SIGABRT": " (an abort)",
            "SIGBUS": " (a bus error)",
            "SIGFPE": " (a floating-point trap)",
            "SIGKILL": " (killed: often the out-of-memory killer)",
        }
        return f"{what} crashed the process with {name}{crash.get(name, '')}"  # fmt: skip
    if outcome.status == "memory":
        limit = f"memory limit {outcome.memory_limit / 2**30:.3g} GiB" if outcome.memory_limit else "no memory limit"
        return f"{what} ran out of memory ({limit}): {outcome.error}"
    if outcome.status == "timeout":
        return f"{what} did not finish within {outcome.timeout:g} s and was stopped"
    if outcome.status == "raised":
        return f"{what} raised {outcome.error}"
    if outcome.status == "lost":
        return f"{what} ended without a result (exit status unknown)"
    return f"{what} finished"
