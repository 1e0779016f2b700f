"""The child-process fence: whatever the code does, the caller gets an outcome that says so."""

from __future__ import annotations

import ctypes
import os
import sys
import time

import pytest

from ropecheck.isolate import describe_outcome, in_child, run_isolated, send

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork (POSIX)")


def _segfault() -> None:
    ctypes.string_at(0)


def _raise() -> None:
    raise ValueError("bad value")


def _print_and_return() -> int:
    print("printed by the target")
    print("to stderr", file=sys.stderr)
    return 5


def _grab_memory() -> bytearray:
    return bytearray(64 << 30)


def _progress() -> str:
    send("first")
    send({"check": 2})
    os._exit(0)


CASES = [
    ("returns", lambda: 42, "ok", "finished"),
    ("sys-exit-0", lambda: sys.exit(0), "exited", "SystemExit(0), exit code 0"),
    ("os-exit-0", lambda: os._exit(0), "exited", "os._exit(0), exit code 0"),
    ("os-exit-3", lambda: os._exit(3), "exited", "exit code 3"),
    ("segfault", _segfault, "signaled", "SIGSEGV (a segmentation fault)"),
    ("abort", os.abort, "signaled", "SIGABRT"),
    ("raises", _raise, "raised", "raised ValueError: bad value"),
    ("keyboard-interrupt", lambda: (_ for _ in ()).throw(KeyboardInterrupt()), "raised", "KeyboardInterrupt"),
    ("memory", _grab_memory, "memory", "ran out of memory"),
]


@pytest.mark.parametrize("fn, status, words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_every_way_out_is_an_outcome(fn, status: str, words: str) -> None:
    outcome = run_isolated(fn, timeout=20, memory_limit=1 << 30)
    assert outcome.status == status
    assert words in describe_outcome(outcome)


def test_a_hang_is_stopped_at_the_time_limit() -> None:
    t0 = time.perf_counter()
    outcome = run_isolated(time.sleep, 60, timeout=0.5)
    assert outcome.status == "timeout" and time.perf_counter() - t0 < 30
    assert "did not finish within 0.5 s" in describe_outcome(outcome)


def test_output_is_captured_not_mixed_into_ours(capfd: pytest.CaptureFixture[str]) -> None:
    outcome = run_isolated(_print_and_return)
    assert outcome.value == 5 and "printed by the target" in outcome.stdout and "to stderr" in outcome.stderr
    captured = capfd.readouterr()
    assert "printed by the target" not in captured.out and "to stderr" not in captured.err


def test_progress_messages_arrive_even_when_the_child_dies() -> None:
    seen: list[object] = []
    outcome = run_isolated(_progress, on_message=seen.append)
    assert outcome.status == "exited" and seen == ["first", {"check": 2}] == outcome.messages


def test_in_child_is_true_only_in_the_child() -> None:
    assert not in_child()
    assert run_isolated(in_child).value is True
