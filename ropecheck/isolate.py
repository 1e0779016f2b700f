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
child is only a fence around crashes, exits, hangs and memory blow-ups. ropecheck's own
computations (a SymPy decision, ``contain=False``) get the same fence without the guardian a
target's child gets: they start no process for it to hold, and one fork costs half of two.
Many of them in a row (an audit's steps, a file of claims) go to one :class:`WarmChild`
(:func:`run_warm`), which answers call after call under the same limits and keeps its caches:
a child forked per call would learn them afresh each time, most of a short decision.

Design constraints: POSIX ``fork`` only (where it is missing, :func:`available` is False and
callers run in-process, saying so); the child never returns into the caller's stack (it
leaves through ``os._exit``); results cross the pipe pickled, length-prefixed; the caller
must not hold other threads' locks when it forks (the CLI forks before any progress display);
the child's garbage collector leaves what it inherited alone (``gc.freeze``): walking the parent's
objects (torch's, SymPy's) would copy every page they lie on, much of a SymPy child's time.
"""

from __future__ import annotations

import atexit
import contextlib
import faulthandler
import gc
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
    "ChildEnded",
    "Outcome",
    "TargetProcess",
    "available",
    "describe_outcome",
    "fresh_for_each_call",
    "in_child",
    "kill_tree",
    "WarmChild",
    "close_warm",
    "run_isolated",
    "run_warm",
    "send",
    "warm_pids",
]

#: Extra private writable memory (RLIMIT_DATA) a child may map beyond what it had at fork time (bytes).
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


def _data_size() -> int:
    """Bytes of private writable memory (data and stack) this process maps now (Linux /proc), 0 where unknown."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[5]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _enter_child(channel: tuple[int, ...], out_fd: int, err_fd: int, memory_limit: int | None) -> None:
    """A child's first steps: it dies with its parent, keeps only its channel and its output files
    (stdout and stderr go to them), and maps at most ``memory_limit`` bytes more private writable memory than
    it inherited."""
    # The inherited objects go to the permanent generation: the child's collections never walk them (each walk
    # would write to, and so copy, every page of the parent's heap). They are the parent's to free, not the child's.
    gc.freeze()
    _die_with_parent()
    if faulthandler.is_enabled():  # a crash is reported by the parent, not dumped on its terminal
        faulthandler.disable()
    _keep_only_fds(*channel, out_fd, err_fd)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    # The inherited stream objects are never touched, not even flushed: another thread of the parent
    # (a progress bar refreshing) may have held their lock at the fork, and here no thread would ever
    # release it. What they buffered is the parent's, flushed by it before forking.
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    for fd, name in ((1, "stdout"), (2, "stderr")):  # the __stdout__/__stderr__ fallbacks too
        stream = io.TextIOWrapper(os.fdopen(fd, "wb", closefd=False), write_through=True)
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
    _one_torch_thread_if_inherited()
    if memory_limit:
        # RLIMIT_DATA (private writable mappings: every heap, arena and tensor), not RLIMIT_AS: CUDA reserves
        # address space far larger than the GPU's memory at initialisation (inaccessible, PROT_NONE), which an
        # address-space limit refuses -- a target under it would see no GPU at all.
        limit = _data_size() + int(memory_limit)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


def _one_torch_thread_if_inherited() -> None:
    """A child forked from a process that had loaded torch runs torch's operations on one thread.

    torch's OpenMP pool does not survive a fork: once the parent has used it, an operation large
    enough to be split over the pool waits in the child for threads the fork did not copy, for ever
    (a target building its cos/sin cache at import would hang). One thread never enters the pool.
    A child that imports torch itself (the parent had not) keeps torch's own thread count.
    """
    torch = sys.modules.get("torch")
    if torch is not None:
        with contextlib.suppress(Exception):
            torch.set_num_threads(1)


def _child(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], wfd: int,
           out_fd: int, err_fd: int, memory_limit: int | None) -> None:  # fmt: skip

    def body() -> int:
        global _CHANNEL
        _enter_child((wfd,), out_fd, err_fd, memory_limit)
        _CHANNEL = wfd
        _send_final(wfd, _call(fn, args, kwargs))
        return 0

    _child_main(body)


def _child_main(body: Callable[[], int]) -> None:  # pragma: no cover - runs in the child
    """Run a child's ``body`` and leave through ``os._exit`` with the code it returns, once what it printed is
    flushed: nothing returns into the parent's stack. A ``SystemExit`` (a target that called ``exit``) leaves with
    its code, for the parent to read from the wait status; anything else that escapes, with 70."""
    code = 70
    try:
        code = body()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        code = 70
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _call(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """In a child: the final frame of calling ``fn`` -- its value, how it exited, or what escaped it."""
    try:
        return ("ok", fn(*args, **kwargs))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        return ("exited", code, f"SystemExit({exc.code!r})")
    except MemoryError as exc:
        return ("memory", str(exc) or "MemoryError")
    except BaseException as exc:  # every escape is reported, KeyboardInterrupt included
        return ("raised", type(exc).__name__, f"{type(exc).__name__}: {exc}", traceback.format_exc())


def _send_final(wfd: int, frame: tuple[Any, ...]) -> None:
    """In a child: the final frame down the pipe, once what the call printed is in the files."""
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    try:
        _write_frame(wfd, frame)
    except Exception as exc:  # an unpicklable result is reported, not lost
        _write_frame(wfd, ("raised", type(exc).__name__, f"the result could not be sent back: {exc}", ""))


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
    contain: bool = True,
    **kwargs: Any,
) -> Outcome:
    """Call ``fn(*args, **kwargs)`` in a forked child and report what happened.

    Args:
        fn: any callable; the child inherits it (nothing is pickled on the way in). Its return
            value must be picklable.
        timeout: wall-clock seconds before the child (and its process group) is killed.
        memory_limit: bytes of private writable memory the child may add to what the caller maps
            (``RLIMIT_DATA``; CUDA's address-space reservation is not counted); None for no limit.
        on_message: called in the caller with each message the child sends (:func:`send`).
        contain: fork a guardian that holds every process the child starts (:func:`_spawn`).
            False only for ropecheck's own code, which starts no process (a SymPy decision): the
            child is forked directly, in its own session -- one fork instead of two, which is
            most of what a short call costs in a large process.

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

    def worker() -> None:  # pragma: no cover - runs in the child, reported through the pipe
        os.close(rfd)
        _child(fn, args, kwargs, wfd, out_file.fileno(), err_file.fileno(), memory_limit)

    pid, status_fd = _spawn(worker) if contain else (_spawn_plain(worker), None)
    os.close(wfd)
    outcome = Outcome(status="lost", timeout=timeout, memory_limit=memory_limit)
    deadline = None if timeout is None or not math.isfinite(timeout) else t0 + timeout
    status: int | None = None
    try:
        final, status, timed_out = _read_result(rfd, status_fd, deadline, outcome, on_message)
    finally:  # on every path (Ctrl-C too): the child, and whatever it started, does not outlive the call
        if contain:
            kill_tree(pid)
        else:  # ropecheck's own code starts no process: its group is all there is, no /proc walk needed
            _kill_group(pid)
        _, raw = os.waitpid(pid, 0)
        os.close(rfd)
        if status_fd is not None:
            os.close(status_fd)
    if status_fd is None and status is None:  # no guardian: the worker's own wait status
        status = raw
    outcome.seconds = time.perf_counter() - t0
    outcome.stdout, outcome.stderr = _read_tail(out_file), _read_tail(err_file)
    out_file.close()
    err_file.close()
    if timed_out:
        outcome.status = "timeout"
    elif final is not None:
        _take_final(outcome, final)
    else:
        _take_status(outcome, status)
    return outcome


def _wait_ready(read: list[int], write: list[int], timeout: float | None) -> tuple[list[int], list[int]]:
    """``select`` in slices of at most :data:`_SIGNAL_SLICE` seconds until a descriptor is ready or ``timeout``
    passes; (ready to read, ready to write), both empty on a timeout.

    The kernel may hand SIGINT to any thread of this process (numpy's and torch's pools are threads):
    Python then only marks it, and a main thread blocked in one long ``select`` would not see Ctrl-C
    until the child answered. Waking every slice lets the interpreter raise KeyboardInterrupt at once.
    """
    end = None if timeout is None else time.monotonic() + timeout
    while True:
        left = _SIGNAL_SLICE if end is None else min(_SIGNAL_SLICE, max(0.0, end - time.monotonic()))
        ready, writable, _ = select.select(read, write, [], left)
        if ready or writable or (end is not None and time.monotonic() >= end):
            return ready, writable


#: The longest a wait in this process blocks before it lets the interpreter handle a signal.
_SIGNAL_SLICE = 0.5


def _read_result(
    rfd: int,
    status_fd: int | None,
    deadline: float | None,
    outcome: Outcome,
    on_message: Callable[[Any], None] | None,
) -> tuple[tuple[Any, ...] | None, int | None, bool]:
    """(the final frame, the worker's wait status, whether the deadline passed): read until the result,
    not until EOF -- a grandchild may hold the pipe open; messages go to ``outcome`` as they come.
    Without a guardian (``status_fd`` None) the worker's end is the pipe's EOF, and its status is None here."""
    buffer = bytearray()  # appended in place: a large result (tens of MB) costs linear time, not quadratic
    final: tuple[Any, ...] | None = None
    status: int | None = None
    watched = [rfd] if status_fd is None else [rfd, status_fd]
    while final is None:
        wait = None if deadline is None else max(0.0, deadline - time.perf_counter())
        ready, _ = _wait_ready(watched, [], wait)
        if not ready:
            return None, status, True
        if rfd not in ready and status_fd is not None:  # the worker ended: what it wrote is in the pipe already
            status = _worker_status(status_fd)
            if not select.select([rfd], [], [], 0)[0]:
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
            if frame[0] != "message":
                final = frame
                continue
            outcome.messages.append(frame[1])
            if on_message is not None:
                on_message(frame[1])
        del buffer[:start]
    if final is None and status is None and status_fd is not None and select.select([status_fd], [], [], 2.0)[0]:
        status = _worker_status(status_fd)
    return final, status, False


def _take_final(outcome: Outcome, final: tuple[Any, ...]) -> None:
    """The outcome the child's last frame reports (its value, how it exited, its exception)."""
    kind = final[0]
    if kind == "ok":
        outcome.status, outcome.value = "ok", final[1]
    elif kind == "exited":
        outcome.status, outcome.exit_code, outcome.error = "exited", final[1], final[2]
    elif kind == "memory":
        outcome.status, outcome.error = "memory", final[1]
    else:
        outcome.status, outcome.error_type, outcome.error, outcome.traceback = "raised", final[1], final[2], final[3]
        if _looks_like_memory(outcome.error):
            outcome.status = "memory"


def _take_status(outcome: Outcome, status: int | None) -> None:
    """How a child that ended without a final frame ended, from its raw wait status (None: unknown, ``lost``)."""
    if status is not None and os.WIFSIGNALED(status):
        outcome.status, outcome.signal_number = "signaled", os.WTERMSIG(status)
    elif status is not None and os.WIFEXITED(status):
        outcome.status, outcome.exit_code = "exited", os.WEXITSTATUS(status)


def _looks_like_memory(error: str | None) -> bool:
    text = (error or "").lower()
    return "memoryerror" in text or "can't allocate memory" in text or "out of memory" in text


def _children_by_parent() -> dict[int, list[int]]:
    """Every process's children, read from ``/proc`` (empty where there is no ``/proc``)."""
    tree: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return tree
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat_line = fh.read()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ")"
        fields = stat_line[stat_line.rfind(b")") + 2 :].split()
        if len(fields) > 1:
            tree.setdefault(int(fields[1]), []).append(int(name))
    return tree


def _descendants(pid: int) -> set[int]:
    tree = _children_by_parent()
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def kill_tree(pid: int) -> None:
    """Kill ``pid``, its process group and every process descended from it; nothing they start escapes.

    The tree is frozen first (SIGSTOP, repeated until no new process appears), so a process
    cannot fork past the walk; then every member gets SIGKILL. A child made by
    :func:`run_isolated` or :class:`TargetProcess` is a subreaper (Linux), so a grandchild that
    double-forks or calls ``setsid`` stays in its tree while the child lives.
    """
    seen: set[int] = set()
    for _ in range(100):
        members = {pid} | _descendants(pid)
        new = members - seen
        for member in new:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(member, signal.SIGSTOP)
        seen |= members
        if not new:
            break
    for member in seen - {pid}:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(member, signal.SIGKILL)
    # the root last, and awake: a guardian reaps what it held (no zombie left to an init that never reaps)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGCONT)
    end = time.monotonic() + 0.5
    while seen - {pid} and _descendants(pid) and time.monotonic() < end:
        time.sleep(0.005)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


def _keep_only_fds(*keep: int) -> None:
    """Close every inherited file descriptor but stdin/stdout/stderr and ``keep``: the target's process
    holds its own channel and nothing of its parent's (a test runner's pipes, a CI job's log)."""
    top = max(3, *keep) + 1
    with contextlib.suppress(ValueError, OSError):
        top = max(top, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    top = min(top, 1 << 16)
    with contextlib.suppress(OSError):  # nor does it read the parent's standard input
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
    start = 3
    for fd in sorted(k for k in keep if k >= 3):
        os.closerange(start, fd)
        start = fd + 1
    os.closerange(start, top)


def _die_with_parent() -> None:
    """This process gets SIGKILL when its parent ends (Linux ``PR_SET_PDEATHSIG``); a no-op elsewhere."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)


def _become_subreaper() -> None:
    """Orphans of this process's descendants come back to it (Linux ``PR_SET_CHILD_SUBREAPER``), and it
    dies with its parent (``PR_SET_PDEATHSIG``); a no-op elsewhere."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
        pass


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
    if outcome.status == "channel":
        return f"{what}'s process broke ropecheck's channel ({outcome.error}) and was stopped"
    return f"{what} finished"


# --------------------------------------------------------------------------- a target held in a child


def _spawn(worker: Callable[[], Any]) -> tuple[int, int]:
    """Fork a guardian that forks ``worker``; returns (the guardian's pid, the fd its word arrives on).

    The guardian runs no code of the target's: it is a session leader and a subreaper
    (:func:`_become_subreaper`), so every process the worker starts -- even one that double-forks,
    calls ``setsid``, or outlives the worker -- stays in the guardian's tree until
    :func:`kill_tree` ends it. When the worker ends, the guardian writes its raw wait status (4
    bytes) on the returned fd; it then only reaps orphans until it is killed.
    """
    status_r, status_w = os.pipe()
    guardian = os.fork()
    if guardian:
        os.close(status_w)
        return guardian, status_r
    try:  # pragma: no cover - the guardian
        os.close(status_r)
        os.setsid()  # its own session and group: the terminal's Ctrl-C is the parent's to handle
        _become_subreaper()
        worker_pid = os.fork()
        if worker_pid == 0:
            os.close(status_w)
            try:
                worker()
            finally:
                os._exit(70)
        for fd in range(3, 1024):  # the worker's pipes are the worker's: EOF must not wait on a copy here
            if fd != status_w:
                with contextlib.suppress(OSError):
                    os.close(fd)
        with contextlib.suppress(OSError):  # nor does it hold the caller's terminal or pipes open
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
        while True:
            try:
                pid, raw = os.wait()
            except ChildProcessError:
                time.sleep(3600)
                continue
            if pid == worker_pid:
                os.write(status_w, struct.pack("!i", raw))
    finally:
        os._exit(0)


def _spawn_plain(worker: Callable[[], Any]) -> int:
    """Fork ``worker`` itself, a session leader (so that :func:`_kill_group` ends its group): for ropecheck's own
    code, which starts no process for a guardian to hold. Its end is its pipe's EOF; its status, its parent's wait."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the worker
        try:
            os.setsid()
            worker()
        finally:
            os._exit(70)
    return pid


def _kill_group(pid: int) -> None:
    """SIGKILL to the process group ``pid`` leads, and to ``pid`` itself (killed before it could call ``setsid``)."""
    for kill, target in ((os.killpg, pid), (os.kill, pid)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(target, signal.SIGKILL)


def _worker_status(fd: int) -> int | None:
    """The worker's raw wait status, once the guardian has written it (None if the guardian is gone)."""
    data = bytearray()
    while len(data) < 4:
        chunk = os.read(fd, 4 - len(data))
        if not chunk:
            return None
        data += chunk
    return int(struct.unpack("!i", bytes(data))[0])


class ChildEnded(BaseException):
    """The child holding a target ended, hung past its deadline or broke its channel.

    A BaseException, so no ``except Exception`` between the request and the supervisor (a
    check's, a property's) takes it for a target's ordinary failure: the supervisor writes
    the verdict from the checks that finished, with this outcome as the finding.
    """

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.status)
        self.outcome = outcome


def _read_exact(fd: int, size: int) -> bytes | None:
    """``size`` bytes from a blocking fd; None at end of file."""
    chunks = bytearray()
    while len(chunks) < size:
        chunk = os.read(fd, min(size - len(chunks), 1 << 20))
        if not chunk:
            return None
        chunks += chunk
    return bytes(chunks)


def _serve(setup: Callable[[], Any], rfd: int, wfd: int) -> None:  # pragma: no cover - runs in the child
    """The child's loop: ``setup()`` gives (answerer, first reply); then one reply per request until EOF."""
    from . import wire

    def reply(message: Any) -> None:
        with contextlib.suppress(Exception):  # what it printed is in the files before the reply is read
            sys.stdout.flush()
            sys.stderr.flush()
        try:
            frame = wire.encode(message)
        except Exception as exc:  # a reply that cannot travel is reported, not lost
            frame = wire.encode({"status": "internal", "error": f"the reply could not be encoded: {exc}"})
        view = memoryview(frame)
        while view:
            view = view[os.write(wfd, view) :]

    try:
        answerer, first = setup()
    except MemoryError as exc:
        answerer, first = None, {"status": "memory", "error": str(exc) or "MemoryError"}
    reply(first)
    if answerer is None:
        return
    while True:
        prefix = _read_exact(rfd, 12)
        if prefix is None:
            return
        body = _read_exact(rfd, wire.frame_length(prefix, 1 << 40))
        if body is None:
            return
        try:
            answer = answerer(wire.decode(body))
        except MemoryError as exc:
            answer = {"status": "memory", "error": str(exc) or "MemoryError"}
        except SystemExit as exc:  # the target called exit: say how, then leave as it asked
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            reply({"status": "exited", "code": code, "error": f"SystemExit({exc.code!r})"})
            raise
        except Exception:
            answer = {"status": "internal", "error": traceback.format_exc()}
        except BaseException as exc:  # KeyboardInterrupt and the like, raised by the target
            answer = {"status": "ended", "error": f"{type(exc).__name__}: {exc}", "type": type(exc).__name__}
        reply(answer)


def _target_child(setup: Callable[[], Any], rfd: int, wfd: int, out_fd: int, err_fd: int,
                  memory_limit: int | None) -> None:  # fmt: skip  # pragma: no cover - runs in the child

    def body() -> int:
        _enter_child((rfd, wfd), out_fd, err_fd, memory_limit)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        _serve(setup, rfd, wfd)  # a target's exit: SystemExit, whose code the parent reads from the status
        return 0

    _child_main(body)


class TargetProcess:
    """A child process that holds a target and answers requests about it, at arm's length.

    ``setup()`` runs in the child (imports the target) and returns ``(answer, first)``: the
    function that answers each request, and the first reply (what was loaded). Requests go
    down as :mod:`ropecheck.wire` frames and replies come back the same way -- data only,
    checked on arrival, never unpickled. Each reply is awaited until ``deadline`` (a
    ``time.monotonic()`` instant, None for none); the parent reads one reply per request, not
    until the end of the pipe, so a grandchild that keeps the pipe open changes nothing.
    Whatever goes wrong -- the child exits, crashes, hangs, runs out of memory, writes
    garbage -- the request raises :class:`ChildEnded`. :meth:`close` ends the child and
    every process it started (:func:`kill_tree`) and reaps it, on every path.

    Example:
        >>> with TargetProcess(lambda: (lambda m: {"twice": 2 * m["n"]}, {"status": "ok"})) as proc:
        ...     proc.start()["status"], proc.request({"n": 21})["twice"]
        ('ok', 42)
    """

    def __init__(self, setup: Callable[[], Any], *, memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
                 deadline: float | None = None, timeout: float | None = None) -> None:  # fmt: skip
        self.setup = setup
        self.memory_limit = memory_limit
        self.deadline = deadline
        self.timeout = timeout  # the whole run's limit in seconds, for the finding's sentence
        self.pid: int | None = None
        self.outcome: Outcome | None = None
        self._t0 = time.perf_counter()

    def __enter__(self) -> TargetProcess:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def start(self) -> Any:
        """Fork the child (unless :meth:`launch` did), run ``setup`` there, and return its first reply."""
        if self.pid is None and self.outcome is None:
            self.launch()
        return self._receive(4 << 20)

    def launch(self) -> None:
        """Fork the child and let it run ``setup`` while this process goes on (:meth:`start` waits for it)."""
        self._out, self._err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
        down_r, self._down = os.pipe()
        self._up, up_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        down, up, out, err = self._down, self._up, self._out.fileno(), self._err.fileno()

        def worker() -> None:  # pragma: no cover - the child
            os.close(down)
            os.close(up)
            _target_child(self.setup, down_r, up_w, out, err, self.memory_limit)

        self.pid, self._status = _spawn(worker)
        self._raw: int | None = None
        os.close(down_r)
        os.close(up_w)
        os.set_blocking(self._down, False)

    def request(self, message: Any) -> Any:
        """Send one request and return the child's reply (:class:`ChildEnded` if there is none)."""
        from . import wire

        if self.outcome is not None:
            raise ChildEnded(self.outcome)
        frame = wire.encode(message)
        self._send(frame)
        return self._receive(4 * len(frame) + (4 << 20))

    def _remaining(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def _send(self, frame: bytes) -> None:
        view = memoryview(frame)
        while view:
            _, ready = _wait_ready([], [self._down], self._remaining())
            if not ready:
                self._end("timeout")
            try:
                view = view[os.write(self._down, view) :]
            except BlockingIOError:
                continue
            except BrokenPipeError:
                self._end(None)

    def _read(self, size: int) -> bytes:
        chunks = bytearray()
        while len(chunks) < size:
            ready, _ = _wait_ready([self._up, self._status], [], self._remaining())
            if not ready:
                self._end("timeout")
            if self._up not in ready:  # the worker ended; what it wrote before is already in the pipe
                self._raw = _worker_status(self._status)
                if not select.select([self._up], [], [], 0)[0]:
                    self._end(None)
            chunk = os.read(self._up, min(size - len(chunks), 1 << 20))
            if not chunk:
                self._end(None)
            chunks += chunk
        return bytes(chunks)

    def _receive(self, limit: int) -> Any:
        from . import wire

        try:
            body = self._read(wire.frame_length(self._read(12), limit))
            return wire.decode(body)
        except wire.WireError as exc:
            self._end("channel", str(exc))

    def _end(self, status: str | None, error: str = "") -> Any:
        """Stop the child and raise :class:`ChildEnded` with what happened to it."""
        raw = self._finish(wait_first=status is None)
        outcome = self.outcome = self._outcome(status, raw, error)
        raise ChildEnded(outcome)

    def _finish(self, *, wait_first: bool) -> int | None:
        """Kill the whole tree and reap the guardian; the worker's raw wait status (None: killed by us)."""
        if self.pid is None:
            return None
        pid, self.pid = self.pid, None
        if wait_first and self._raw is None:  # the pipe closed: give an exiting worker a moment to say how it ended
            if select.select([self._status], [], [], 2.0)[0]:
                self._raw = _worker_status(self._status)
        kill_tree(pid)
        os.waitpid(pid, 0)
        for fd in (self._down, self._up, self._status):
            with contextlib.suppress(OSError):
                os.close(fd)
        return self._raw

    def _outcome(self, status: str | None, raw: int | None, error: str) -> Outcome:
        outcome = Outcome(status="lost", timeout=self.timeout, memory_limit=self.memory_limit, error=error or None)
        if status is not None:
            outcome.status = status
        elif raw is not None and os.WIFSIGNALED(raw) and os.WTERMSIG(raw) != signal.SIGKILL:
            outcome.status, outcome.signal_number = "signaled", os.WTERMSIG(raw)
        elif raw is not None and os.WIFEXITED(raw):
            outcome.status, outcome.exit_code = "exited", os.WEXITSTATUS(raw)
        elif raw is not None and os.WIFSIGNALED(raw):
            outcome.status, outcome.signal_number = "signaled", os.WTERMSIG(raw)
        outcome.seconds = time.perf_counter() - self._t0
        outcome.stdout, outcome.stderr = _read_tail(self._out), _read_tail(self._err)
        return outcome

    def fail(self, status: str, error: str, exit_code: int | None = None) -> ChildEnded:
        """End the child for a reason the caller found in a reply (``memory``); the exception to raise."""
        raw = self._finish(wait_first=False)
        self.outcome = self._outcome(status, raw, error)
        if exit_code is not None:
            self.outcome.exit_code = exit_code
        return ChildEnded(self.outcome)

    def close(self) -> Outcome:
        """End the child and everything it started (on every path); what it printed, in an outcome."""
        if self.outcome is None:
            raw = self._finish(wait_first=False)
            self.outcome = self._outcome("ok", raw, "") if hasattr(self, "_out") else Outcome(status="ok")
        for fh in (getattr(self, "_out", None), getattr(self, "_err", None)):
            if fh is not None:
                with contextlib.suppress(Exception):
                    fh.close()
        return self.outcome


# --------------------------------------------------------------------------- ropecheck's own calls in one child

#: calls one warm child answers before a fresh one replaces it (what the calls leave behind grows with each)
WARM_CALLS = 400


class WarmChild:
    """A forked child that runs ropecheck's own functions one call after another, each under its own time limit.

    What a call leaves behind in the child -- SymPy's caches, the LaTeX parser's prediction tables -- the next call
    finds; a child forked per call starts from the parent's state each time and learns it all again, most of a short
    SymPy decision. A call here is a :func:`run_isolated` call with ``contain=False`` in all that matters: the same
    :class:`Outcome`, the child's messages passed on as they come, the same time and memory limits. Only the way in
    differs: the function and its arguments go down a pipe pickled (a module-level function, picklable arguments;
    anything else runs in a child of its own). A call that does not end with a value or an exception -- past its time
    limit, out of memory, exited, killed -- ends the child, and the next call forks a fresh one. A call that ran out of
    memory, or was killed by a signal, in a child that had answered calls before is run again in a child of its own,
    since what the earlier calls kept counts against the child's limit: the limit means what it means for one call
    (and a crash is the call's own only where a fresh child crashes too). A call the child cannot unpickle runs in a
    child of its own as well.

    For ropecheck's own code only, which starts no process and whose calls depend on what earlier ones left only
    through caches: a target is never run here. The child sees this process as it was when forked: module state
    changed here after that (a patch) reaches the calls only once the child is replaced (:func:`close_warm`).

    Example:
        >>> child = WarmChild(memory_limit=None)
        >>> [child.call(pow, (2, n), timeout=10).value for n in (3, 4)]
        [8, 16]
        >>> child.close()
    """

    def __init__(self, memory_limit: int | None) -> None:
        self.memory_limit = memory_limit
        self.pid: int | None = None
        self.calls = 0  # calls the running child has answered
        self._owner = os.getpid()
        self._marks = [0, 0]  # where the running call's output starts in the child's stdout and stderr files

    def call(
        self, fn: Callable[..., Any], args: tuple[Any, ...], *, timeout: float | None,
        on_message: Callable[[Any], None] | None = None,
    ) -> Outcome:  # fmt: skip
        """``fn(*args)`` in the warm child, its outcome as :func:`run_isolated` reports it."""
        try:
            request = pickle.dumps((fn, args), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # what does not pickle runs in a child of its own, which inherits it
            return self._alone(fn, args, timeout, on_message)
        if self.pid is not None and self.calls >= WARM_CALLS:
            self.close()
        t0 = time.perf_counter()
        fresh = self._deliver(struct.pack("!Q", len(request)) + request)
        deadline = None if timeout is None or not math.isfinite(timeout) else t0 + timeout
        outcome = self._answer(deadline, timeout, on_message)
        outcome.seconds = time.perf_counter() - t0
        if outcome.status == "request":  # the child could not unpickle the call: one of its own, which inherits it
            return self._alone(fn, args, timeout, on_message)
        if outcome.status not in ("ok", "raised"):
            self.close()
            # out of memory, or killed (the kernel's last word on memory), after earlier calls: what they kept
            # counts against the child, so the call is run again in a child of its own
            if outcome.status in ("memory", "signaled") and not fresh:
                return self._alone(fn, args, timeout, on_message)
        return outcome

    def _alone(
        self, fn: Callable[..., Any], args: tuple[Any, ...], timeout: float | None,
        on_message: Callable[[Any], None] | None,
    ) -> Outcome:  # fmt: skip
        """The call in a child of its own, which inherits it (:func:`run_isolated`, as the warm child would run it)."""
        return run_isolated(fn, *args, timeout=timeout, memory_limit=self.memory_limit, on_message=on_message,
                            contain=False)  # fmt: skip

    def _deliver(self, frame: bytes) -> bool:
        """Send the request (to a fresh child if none runs, or the one running has gone); whether the child is fresh."""
        for _ in range(2):
            fresh = self.pid is None
            if fresh:
                self._launch()
            # where this call's output starts: taken before the child can read the request, let alone print
            self._marks = [os.fstat(fh.fileno()).st_size for fh in (self._out, self._err)]
            try:
                view = memoryview(frame)
                while view:
                    view = view[os.write(self._down, view) :]
                self.calls += 1
                return fresh
            except BrokenPipeError:  # the child ended between calls (killed from outside): a fresh one
                self.close()
        raise RuntimeError("a fresh child could not take the call")

    def _answer(
        self, deadline: float | None, timeout: float | None, on_message: Callable[[Any], None] | None
    ) -> Outcome:
        outcome = Outcome(status="lost", timeout=timeout, memory_limit=self.memory_limit)
        try:
            final, _, timed_out = _read_result(self._up, None, deadline, outcome, on_message)
        except BaseException:  # Ctrl-C in the wait: the child does not outlive the call
            self.close()
            raise
        outcome.stdout, outcome.stderr = (
            _tail_since(fh, mark) for fh, mark in zip((self._out, self._err), self._marks)
        )
        if timed_out:
            outcome.status = "timeout"
        elif final is not None and final[0] == "request":
            outcome.status, outcome.error = "request", final[1]
        elif final is not None:
            _take_final(outcome, final)
        else:  # it ended without a word: how, from its wait status
            _take_status(outcome, self._reap())
        return outcome

    def _launch(self) -> None:
        self._out, self._err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
        down_r, self._down = os.pipe()
        self._up, up_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        down, up, out, err, limit = self._down, self._up, self._out.fileno(), self._err.fileno(), self.memory_limit

        def worker() -> None:  # pragma: no cover - the child
            os.close(down)
            os.close(up)
            _warm_loop(down_r, up_w, out, err, limit)

        self.pid, self.calls, self._owner = _spawn_plain(worker), 0, os.getpid()
        os.close(down_r)
        os.close(up_w)

    def _reap(self) -> int | None:
        """Kill the child (if it still runs), wait for it and close its pipes; its raw wait status."""
        pid, self.pid = self.pid, None
        raw = None
        if pid is not None and self._owner == os.getpid():  # a forked copy of this object kills nothing
            _kill_group(pid)
            with contextlib.suppress(ChildProcessError):
                raw = os.waitpid(pid, 0)[1]
        for fd in (self._down, self._up):
            with contextlib.suppress(OSError):
                os.close(fd)
        return raw

    def close(self) -> None:
        """End the child (the next call forks a fresh one)."""
        if self.pid is None:
            return
        self._reap()
        for fh in (self._out, self._err):
            with contextlib.suppress(Exception):
                fh.close()


def _tail_since(fh: Any, mark: int) -> str:
    """What the child wrote to ``fh`` past byte ``mark``, its last :data:`_TAIL` characters (the shared offset of
    a file the child still writes to is left alone: ``pread``)."""
    end = os.fstat(fh.fileno()).st_size
    start = max(mark, end - 4 * _TAIL)
    text = os.pread(fh.fileno(), end - start, start).decode("utf-8", errors="replace") if end > start else ""
    return text[-_TAIL:]


def _warm_loop(rfd: int, wfd: int, out_fd: int, err_fd: int, memory_limit: int | None) -> None:  # pragma: no cover
    """The warm child: one call per request until the pipe closes, or a call exits or runs out of memory."""

    def body() -> int:
        global _CHANNEL
        _enter_child((rfd, wfd), out_fd, err_fd, memory_limit)
        _CHANNEL = wfd
        put_back = [keep() for keep in _FRESH]
        while (prefix := _read_exact(rfd, 8)) is not None:
            request = _read_exact(rfd, struct.unpack("!Q", prefix)[0])
            if request is None:
                break
            try:
                fn, args = pickle.loads(request)
            except Exception as exc:  # a call this child cannot take: the caller runs it in a child of its own
                _send_final(wfd, ("request", f"{type(exc).__name__}: {exc}"))
                continue
            for restore in put_back:
                restore()
            frame = _call(fn, args, {})
            _send_final(wfd, frame)
            if frame[0] == "exited":
                return int(frame[1])
            if frame[0] == "memory":
                break
        return 0

    _child_main(body)


_WARM: dict[tuple[int, int | None], WarmChild] = {}
#: what keeps a piece of module state as a warm child found it when forked: called once there, each gives the
#: function that puts that state back, run before every call (:func:`fresh_for_each_call`)
_FRESH: list[Callable[[], Callable[[], None]]] = []


def fresh_for_each_call(keep: Callable[[], Callable[[], None]]) -> None:
    """Register state that a call must find as a child forked for it would: a registry that names what a call
    makes in the order it makes it (``written#1``, ``written#2``), which a warm child would otherwise carry from
    one call into the next. ``keep()`` runs in the warm child when it starts and returns the function that puts
    the state back as it was then; that function runs before every call."""
    _FRESH.append(keep)


def run_warm(
    fn: Callable[..., Any], *args: Any, timeout: float | None, memory_limit: int | None,
    on_message: Callable[[Any], None] | None = None,
) -> Outcome:  # fmt: skip
    """:func:`run_isolated` with ``contain=False``, for ropecheck's own calls: in this process's :class:`WarmChild`
    for ``memory_limit`` (a forked copy of a parent's is never used)."""
    key = (os.getpid(), memory_limit)
    child = _WARM.get(key)
    if child is None:
        child = _WARM[key] = WarmChild(memory_limit)
    return child.call(fn, args, timeout=timeout, on_message=on_message)


def warm_pids() -> set[int]:
    """The process ids of this process's warm children (which stay between calls, by design)."""
    return {c.pid for k, c in _WARM.items() if k[0] == os.getpid() and c.pid is not None}


@atexit.register
def close_warm() -> None:
    """End this process's warm children (at exit; a test that must see fresh ones)."""
    for key in [k for k in _WARM if k[0] == os.getpid()]:
        _WARM.pop(key).close()
