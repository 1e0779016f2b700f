"""Run a function of a test module in a fresh interpreter and return its (pickled) result.

For the tests that assert *what* Hypothesis shrinks to. A derandomized search is repeatable only
when everything it reads is: Hypothesis also draws, now and then, numbers it collects from the
source of every non-test module imported so far (its "local constants"), so the same search
reaches a different first failure -- and shrinks to a different example -- depending on which
modules the tests before it in the same worker happened to import. A fresh interpreter that
imports only the test module (and what it imports) sees the same modules on every run, in any
order, under xdist or not.

Starting that interpreter and importing torch costs seconds, so it is done once per test module
and process: the interpreter, once it has imported the module, forks a child for each call. A
child is that fresh interpreter after the same imports (it has run nothing of a call before it),
so each call sees exactly what a new interpreter of its own would.
"""

from __future__ import annotations

import atexit
import os
import pickle
import select
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

_TESTS = Path(__file__).resolve().parent

# One interpreter per test module: it imports the module as a fresh one would, then for each request
# (a line: function name and arguments, tab-separated) forks a child whose stdout and stderr go to the
# file named in the request; it answers with the child's wait status on a line of its own.
_RUNNER = """
import importlib, os, pickle, sys
answer = os.fdopen(os.dup(1), "w")  # the answers; what an import prints goes nowhere
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
from hypothesis import settings
from ropecheck.strategies import CI_PROFILE
settings.load_profile(CI_PROFILE)  # as tests/conftest.py does, before the module builds its settings
module = importlib.import_module(sys.argv[1])
for line in sys.stdin:
    path, name, *args = line.rstrip("\\n").split("\\t")
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            out = getattr(module, name)(*args)
            sys.stdout.flush()
            sys.stdout.buffer.write(b"\\0RESULT\\0" + pickle.dumps(out))
            sys.stdout.flush()
            code = 0
        except BaseException:
            import traceback
            traceback.print_exc()
            sys.stderr.flush()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    answer.write(f"{os.waitstatus_to_exitcode(status)}\\n")
    answer.flush()
"""

_RUNNERS: dict[str, subprocess.Popen[str]] = {}


def _runner(module: str, folder: Path) -> subprocess.Popen[str]:
    """The interpreter that has imported ``module`` (started on first use, one per process)."""
    proc = _RUNNERS.get(module)
    if proc is None or proc.poll() is not None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(folder), str(_TESTS), *filter(None, [env.get("PYTHONPATH")])])
        proc = subprocess.Popen(
            [sys.executable, "-c", _RUNNER, module],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            cwd=_TESTS.parent,
        )
        _RUNNERS[module] = proc
        atexit.register(_close, proc)
    return proc


def _close(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None and proc.stdin is not None:
        proc.stdin.close()  # the runner ends at the end of its input
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


def run_isolated(fn: Callable[..., Any], *args: str, timeout: float = 600) -> Any:
    """``fn(*args)`` run in a process of its own, forked from a new interpreter that has imported only
    ``fn``'s module; ``fn`` is a module-level function of a test module, ``args`` strings without tabs.

    Raises AssertionError with the child's output when it fails.
    """
    module = sys.modules[fn.__module__]
    folder = Path(module.__file__ or "").resolve().parent
    assert not any("\t" in a or "\n" in a for a in args), args
    proc = _runner(fn.__module__, folder)
    assert proc.stdin is not None and proc.stdout is not None
    with tempfile.NamedTemporaryFile(prefix="isolated-", suffix=".out") as output:
        proc.stdin.write("\t".join([output.name, fn.__name__, *args]) + "\n")
        proc.stdin.flush()
        if not select.select([proc.stdout], [], [], timeout)[0]:
            proc.kill()
            raise AssertionError(f"{fn.__name__}{args} did not finish within {timeout:g} s")
        line = proc.stdout.readline()
        data = Path(output.name).read_bytes()
    head, sep, payload = data.partition(b"\0RESULT\0")
    if line.strip() != "0" or not sep:
        raise AssertionError(
            f"{fn.__name__}{args} failed in its own process (exit {line.strip() or 'lost'}):\n"
            + head.decode(errors="replace")[-4000:]
        )
    return pickle.loads(payload)
