"""Run a function of a test module in a fresh interpreter and return its (pickled) result.

For the tests that assert *what* Hypothesis shrinks to. A derandomized search is repeatable only
when everything it reads is: Hypothesis also draws, now and then, numbers it collects from the
source of every non-test module imported so far (its "local constants"), so the same search
reaches a different first failure -- and shrinks to a different example -- depending on which
modules the tests before it in the same worker happened to import. A fresh interpreter that
imports only the test module (and what it imports) sees the same modules on every run, in any
order, under xdist or not.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

_TESTS = Path(__file__).resolve().parent

_RUNNER = """
import importlib, pickle, sys
from hypothesis import settings
from ropecheck.strategies import CI_PROFILE
settings.load_profile(CI_PROFILE)  # as tests/conftest.py does, before the module builds its settings
fn = getattr(importlib.import_module(sys.argv[1]), sys.argv[2])
out = fn(*sys.argv[3:])
sys.stdout.flush()
sys.stdout.buffer.write(b"\\0RESULT\\0" + pickle.dumps(out))
"""


def run_isolated(fn: Callable[..., Any], *args: str, timeout: float = 600) -> Any:
    """``fn(*args)`` run in a new Python process; ``fn`` is a module-level function of a test module.

    Raises AssertionError with the child's output when it fails.
    """
    module = sys.modules[fn.__module__]
    folder = Path(module.__file__ or "").resolve().parent
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(folder), str(_TESTS), *filter(None, [env.get("PYTHONPATH")])])
    proc = subprocess.run(
        [sys.executable, "-c", _RUNNER, fn.__module__, fn.__name__, *args],
        capture_output=True,
        timeout=timeout,
        env=env,
        cwd=_TESTS.parent,
    )
    head, sep, payload = proc.stdout.partition(b"\0RESULT\0")
    if proc.returncode != 0 or not sep:
        raise AssertionError(
            f"{fn.__name__}{args} failed in its own process (exit {proc.returncode}):\n"
            + (head + proc.stderr).decode(errors="replace")[-4000:]
        )
    return pickle.loads(payload)
