"""Fuzzing the command line: random argv at every fast command, random misbehaving targets at verify.

Each example asserts the contract: the exit code is one of the documented ones (never 70:
that would be a bug in ropecheck), nothing escapes as a traceback, the command finishes
within its time limit, and a requested JSON output is either complete (it parses) or absent.
Derandomized (the ``ci`` profile) and bounded, so CI sees the same examples every run.
"""

from __future__ import annotations

import json
import os
import signal
import string
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ropecheck.cli import main

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork (POSIX)")

DOCUMENTED = {0, 1, 2, 3}


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    def fire(signum: int, frame: object) -> None:
        raise TimeoutError(f"the command did not finish within {seconds} s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _run(argv: list[str]) -> int:
    with deadline(120):
        try:
            return main(argv)
        except SystemExit as exc:  # argparse's own usage errors
            return int(exc.code or 0)


TOKENS = st.sampled_from(
    [
        "--head-dim", "8", "7", "0", "-3", "64", "100000000", "--rotary-dim", "4", "--base", "1e-320", "nan",
        "inf", "--layout", "half", "interleaved", "diagonal", "--rope-scaling", '{"rope_type":"yarn"}', "{",
        '{"rope_type":"linear","factor":2}', "--max-position-embeddings", "--seq-len", "--json", "--hf-config",
        "/nonexistent.json", "--max-position", "--dtype", "bf16", "fp8", "", " ", "--", "-", "--device", "cuda",
    ]
)  # fmt: skip
TEXT = st.text(alphabet=string.printable, max_size=12)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(rest=st.lists(st.one_of(TOKENS, TEXT), max_size=8))
def test_random_spec_argv_keeps_the_contract(rest: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code = _run(["spec", *rest])
    err = capsys.readouterr().err
    assert code in DOCUMENTED and "Traceback" not in err, err


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(rest=st.lists(st.one_of(TOKENS, TEXT, st.sampled_from(["--all", "--d", "6", "rotation_2d", "--no-write"])),
                     max_size=5))  # fmt: skip
def test_random_prove_argv_keeps_the_contract(
    rest: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = ["prove", *rest]
    if "--all" in rest or "--d" in rest:  # keep examples quick: only the small theorems
        argv = ["prove", "rotation_2d", "--no-write"]
    code = _run([*argv, "--out", str(tmp_path / "p")] if "--out" not in argv else argv)
    err = capsys.readouterr().err
    assert code in DOCUMENTED and "Traceback" not in err, err


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(
    rest=st.lists(
        st.one_of(TOKENS, TEXT, st.sampled_from(["--seed", "-1", "--timeout", "--memory-limit", "8Q", "--positions",
                                                 "offset", "--layout", "auto", "--junit", "--markdown", "-q"])),
        max_size=8,
    )
)  # fmt: skip
def test_random_verify_argv_keeps_the_contract(
    rest: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "t.py"
    target.write_text("def rope(x, positions):\n    return x\n")
    out = tmp_path / "v.json"
    argv = ["verify", f"{target}:rope", "--max-position", "64", "--dtype", "float32", *rest, "--json", str(out)]
    code = _run(argv)
    err = capsys.readouterr().err
    assert code in DOCUMENTED and "Traceback" not in err, err
    if code in (0, 1):
        assert json.loads(out.read_text())["exit_code"] == code
    elif out.exists():
        json.loads(out.read_text())  # a JSON output is whole or absent


BEHAVIOURS = {
    "returns": "return x",
    "raises": "raise ValueError('no')",
    "sys-exit": "import sys; sys.exit(0)",
    "os-exit": "import os; os._exit(0)",
    "os-exit-7": "import os; os._exit(7)",
    "segfault": "import ctypes; ctypes.string_at(0)",
    "abort": "import os; os.abort()",
    "prints": "print('noise'); return x",
    "returns-none": "return None",
    "returns-a-list": "return [1, 2, 3]",
    "wrong-shape": "return x[..., :2]",
    "hangs": "import time; time.sleep(3600)",
    "memory": "junk = bytearray(1 << 34)",
    "recursion": "import sys; sys.setrecursionlimit(50); return rope(x, positions)",
    "keyboard-interrupt": "raise KeyboardInterrupt",
}
WHEN = ["always", "at import", "on the third call"]


def _misbehaving(tmp: Path, behaviour: str, when: str) -> Path:
    body = BEHAVIOURS[behaviour]
    if when == "at import":  # the statements run at module level; a `return` has no place there
        statements = [part for part in body.split("; ") if not part.startswith("return")] or ["pass"]
        src = "def rope(x, positions):\n    return x\n\n\n" + "\n".join(statements) + "\n"
    elif when == "on the third call":
        src = (
            "CALLS = [0]\n\n\ndef rope(x, positions):\n    CALLS[0] += 1\n"
            f"    if CALLS[0] >= 3:\n        {body}\n    return x\n"
        )
    else:
        src = f"def rope(x, positions):\n    {body}\n"
    path = tmp / f"t_{behaviour}_{when.replace(' ', '_')}.py"
    path.write_text(src)
    return path


@settings(max_examples=18, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(behaviour=st.sampled_from(sorted(BEHAVIOURS)), when=st.sampled_from(WHEN))
def test_random_misbehaving_targets_get_a_verdict(
    behaviour: str, when: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = _misbehaving(tmp_path, behaviour, when)
    out = tmp_path / f"{target.stem}.json"
    argv = ["verify", f"{target}:rope", "--head-dim", "8", "--dtype", "float32", "--max-position", "64",
            "--timeout", "2", "--memory-limit", "512M", "--json", str(out)]  # fmt: skip
    code = _run(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err, (behaviour, when, err)
    # none of these is a RoPE: a verdict (1, with its JSON) or, for a module that raises while
    # being imported, the usage error "target not importable" (2, no verdict file)
    assert code in (1, 2), (behaviour, when, code, err)
    if code == 1:
        assert json.loads(out.read_text())["exit_code"] == 1
    else:
        assert when == "at import" and not out.exists(), (behaviour, when, err)
