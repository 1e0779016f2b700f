"""The child-process fence: whatever the code does, the caller gets an outcome that says so."""

from __future__ import annotations

import ctypes
import gc
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


# contained: a guardian holds whatever the child starts; uncontained (ropecheck's own SymPy code): one fork
CONTAIN = pytest.mark.parametrize("contain", [True, False], ids=["contained", "uncontained"])


@CONTAIN
@pytest.mark.parametrize("fn, status, words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_every_way_out_is_an_outcome(fn, status: str, words: str, contain: bool) -> None:
    outcome = run_isolated(fn, timeout=20, memory_limit=1 << 30, contain=contain)
    assert outcome.status == status
    assert words in describe_outcome(outcome)


@CONTAIN
def test_a_hang_is_stopped_at_the_time_limit(contain: bool) -> None:
    t0 = time.perf_counter()
    outcome = run_isolated(time.sleep, 60, timeout=0.5, contain=contain)
    assert outcome.status == "timeout" and time.perf_counter() - t0 < 30
    assert "did not finish within 0.5 s" in describe_outcome(outcome)


def _pid_after_sleep(seconds: float) -> int:
    send(os.getpid())
    time.sleep(seconds)
    return os.getpid()


@CONTAIN
def test_the_child_is_gone_when_the_call_returns(contain: bool) -> None:
    """Stopped at its time limit or done, the child (contained or not) does not outlive the call, and no
    zombie is left: its pid is no longer this process's child."""
    for seconds, status in ((60, "timeout"), (0, "ok")):
        seen: list[int] = []
        outcome = run_isolated(_pid_after_sleep, seconds, timeout=1.0, on_message=seen.append, contain=contain)
        assert outcome.status == status and len(seen) == 1
        with pytest.raises(ChildProcessError):
            os.waitpid(seen[0], os.WNOHANG)
        with pytest.raises(ProcessLookupError):
            os.kill(seen[0], 0)


def test_output_is_captured_not_mixed_into_ours(capfd: pytest.CaptureFixture[str]) -> None:
    outcome = run_isolated(_print_and_return)
    assert outcome.value == 5 and "printed by the target" in outcome.stdout and "to stderr" in outcome.stderr
    captured = capfd.readouterr()
    assert "printed by the target" not in captured.out and "to stderr" not in captured.err


@CONTAIN
def test_progress_messages_arrive_even_when_the_child_dies(contain: bool) -> None:
    seen: list[object] = []
    outcome = run_isolated(_progress, on_message=seen.append, contain=contain)
    assert outcome.status == "exited" and seen == ["first", {"check": 2}] == outcome.messages


def _half_split_rope(x, positions):  # type: ignore[no-untyped-def]  # base 10000, rotate_half, in float64
    import torch

    d = x.shape[-1]
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    angles = positions.to(torch.float64)[..., None, None] * inv_freq  # (batch, seq, 1, d/2)
    cos, sin = torch.cat([angles.cos()] * 2, -1), torch.cat([angles.sin()] * 2, -1)
    rotated = torch.cat([-x[..., d // 2 :], x[..., : d // 2]], -1)
    return (x.double() * cos + rotated.double() * sin).to(x.dtype)


def _many_frames_then_a_large_result() -> bytes:
    for i in range(300):
        send(("check", i, bytes([i % 256]) * 1000))
    return bytes(range(256)) * (160 << 10)  # 40 MiB, read in many pipe chunks


@CONTAIN
def test_large_results_and_many_messages_arrive_intact_and_in_order(contain: bool) -> None:
    seen: list[object] = []
    outcome = run_isolated(_many_frames_then_a_large_result, on_message=seen.append, contain=contain)
    assert outcome.status == "ok"
    assert seen == [("check", i, bytes([i % 256]) * 1000) for i in range(300)]
    assert outcome.value == bytes(range(256)) * (160 << 10)


def test_a_verdict_is_computed_in_this_process_from_the_childs_raw_outputs() -> None:
    """Only outputs cross the channel: the (probes, d, d) matrices are recovered here, from them."""
    from ropecheck import RopeSpec
    from ropecheck.verify.supervise import Loaded, verify_isolated

    spec = RopeSpec(head_dim=64)

    def load() -> Loaded:
        return Loaded(_half_split_rope, "reference")

    report = verify_isolated(load, spec=spec, name="reference", dtypes=("float32",), max_position=512, backward=False)
    assert report.conforms and report.identification is not None
    assert report.identification.matrices.shape[1:] == (64, 64) and report.identification.matrices.shape[0] > 8
    assert "base 10000" in report.identification.describe()


def test_in_child_is_true_only_in_the_child() -> None:
    assert not in_child()
    assert run_isolated(in_child).value is True


@pytest.mark.parametrize("contain", [True, False], ids=["contained", "uncontained"])
def test_the_child_leaves_the_objects_it_inherited_to_the_parent(contain: bool) -> None:
    # its collections never walk them (a walk copies every page of the parent's heap): all are frozen, here none
    assert gc.get_freeze_count() == 0
    frozen = run_isolated(gc.get_freeze_count, contain=contain).value
    assert frozen > 1000 and gc.get_freeze_count() == 0
