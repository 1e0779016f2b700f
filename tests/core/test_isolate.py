"""The child-process fence: whatever the code does, the caller gets an outcome that says so."""

from __future__ import annotations

import ctypes
import gc
import os
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ropecheck.isolate import (
    WarmChild,
    close_warm,
    describe_outcome,
    fresh_for_each_call,
    in_child,
    run_isolated,
    run_warm,
    send,
    warm_pids,
)

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


# ---------------------------------------------------------------- the warm child (ropecheck's own calls)

_KEPT_HERE: list[bytearray] = []  # what calls leave behind in the warm child (never filled in this process)


def _forty_two() -> int:
    return 42


def _sys_exit_0() -> None:
    sys.exit(0)


def _os_exit_3() -> None:
    os._exit(3)


def _interrupt() -> None:
    raise KeyboardInterrupt


WARM_CASES = [
    ("returns", _forty_two, "ok", "finished"),
    ("sys-exit-0", _sys_exit_0, "exited", "SystemExit(0), exit code 0"),
    ("os-exit-3", _os_exit_3, "exited", "exit code 3"),
    ("segfault", _segfault, "signaled", "SIGSEGV (a segmentation fault)"),
    ("abort", os.abort, "signaled", "SIGABRT"),
    ("raises", _raise, "raised", "raised ValueError: bad value"),
    ("keyboard-interrupt", _interrupt, "raised", "KeyboardInterrupt"),
    ("memory", _grab_memory, "memory", "ran out of memory"),
]


@pytest.fixture
def warm() -> Iterator[WarmChild]:
    child = WarmChild(memory_limit=1 << 30)
    yield child
    child.close()


def _keep_and_count(size: int) -> tuple[int, int]:
    """Keep ``size`` bytes in this process; (this process's id, how many blocks it keeps now)."""
    _KEPT_HERE.append(bytearray(size))
    return os.getpid(), len(_KEPT_HERE)


@pytest.mark.parametrize("fn, status, words", [c[1:] for c in WARM_CASES], ids=[c[0] for c in WARM_CASES])
def test_every_way_out_of_a_warm_call_is_the_outcome_a_child_of_its_own_gives(
    warm: WarmChild, fn: Any, status: str, words: str
) -> None:
    first = warm.call(_keep_and_count, (1,), timeout=20)
    outcome = warm.call(fn, (), timeout=20)
    assert outcome.status == status and words in describe_outcome(outcome)
    assert run_isolated(fn, timeout=20, memory_limit=1 << 30, contain=False).status == status
    after = warm.call(_keep_and_count, (1,), timeout=20)  # the child goes on only after a value or an exception
    assert after.status == "ok" and (after.value == (first.value[0], 2)) is (status in ("ok", "raised"))
    assert after.value[0] != os.getpid() and _KEPT_HERE == []


def test_a_warm_child_keeps_what_calls_leave_and_a_hang_ends_it(warm: WarmChild) -> None:
    pids = [warm.call(_keep_and_count, (1,), timeout=20).value for _ in range(3)]
    assert [n for _, n in pids] == [1, 2, 3] and len({pid for pid, _ in pids}) == 1
    t0 = time.perf_counter()
    seen: list[int] = []
    hung = warm.call(_pid_after_sleep, (60,), timeout=0.5, on_message=seen.append)
    assert hung.status == "timeout" and time.perf_counter() - t0 < 30 and seen == [pids[0][0]]
    with pytest.raises(ProcessLookupError):  # killed and reaped: gone, no zombie left
        os.kill(seen[0], 0)
    fresh = warm.call(_keep_and_count, (1,), timeout=20).value
    assert fresh[1] == 1 and fresh[0] != pids[0][0]


def test_a_warm_call_out_of_memory_only_for_what_earlier_calls_kept_runs_again_in_a_child_of_its_own() -> None:
    child = WarmChild(memory_limit=300 << 20)
    try:
        assert child.call(_keep_and_count, (200 << 20,), timeout=20).value[1] == 1
        again = child.call(_keep_and_count, (200 << 20,), timeout=20)  # 400 MB in the warm child: over its limit
        assert again.status == "ok" and again.value[1] == 1  # in a fresh child, within the limit
        alone = child.call(_keep_and_count, (400 << 20,), timeout=20)  # over the limit on its own: memory
        assert alone.status == "memory"
    finally:
        child.close()


def _print_then(text: str) -> str:
    print(text)
    send(text.upper())
    return text


def test_a_warm_call_reports_its_own_output_and_messages(warm: WarmChild) -> None:
    for text in ("first", "second"):
        seen: list[str] = []
        outcome = warm.call(_print_then, (text,), timeout=20, on_message=seen.append)
        assert outcome.value == text and outcome.stdout == f"{text}\n" and seen == [text.upper()] == outcome.messages


def test_a_call_that_does_not_pickle_runs_in_a_child_of_its_own(warm: WarmChild) -> None:
    assert warm.call(lambda: os.getpid(), (), timeout=20).value not in (os.getpid(), None)
    assert warm.pid is None  # no warm child was started for it


def _warm_pid_here() -> tuple[int, int]:
    outcome = run_warm(_keep_and_count, 1, timeout=20, memory_limit=None)
    return os.getpid(), outcome.value[0]


def test_a_forked_process_uses_a_warm_child_of_its_own() -> None:
    ours = run_warm(_keep_and_count, 1, timeout=20, memory_limit=None).value[0]
    assert ours in warm_pids()
    inner, theirs = run_isolated(_warm_pid_here, contain=False).value
    assert theirs not in (ours, inner, os.getpid())
    assert run_warm(_keep_and_count, 1, timeout=20, memory_limit=None).value[0] == ours  # ours still answers
    close_warm()
    assert warm_pids() == set()
    with pytest.raises(ProcessLookupError):
        os.kill(ours, 0)


_NAMED: list[str] = []  # a registry a call fills, numbering what it makes, registered to start afresh each call


def _named_as_forked() -> Callable[[], None]:
    kept = list(_NAMED)

    def put_back() -> None:
        _NAMED[:] = kept

    return put_back


fresh_for_each_call(_named_as_forked)


def _name_one(what: str) -> tuple[str, int]:
    """A name for ``what`` in the order made (the registered registry), and the blocks kept (the unregistered one)."""
    _NAMED.append(what)
    return f"made#{len(_NAMED)}", _keep_and_count(1)[1]


def test_registered_state_is_as_a_child_forked_for_the_call_would_find_it(warm: WarmChild) -> None:
    made = [warm.call(_name_one, (what,), timeout=20).value for what in ("a", "b", "c")]
    assert [name for name, _ in made] == ["made#1"] * 3  # each call numbers from where a fresh child would
    assert [kept for _, kept in made] == [1, 2, 3]  # what is not registered stays from call to call
    assert [run_isolated(_name_one, what, contain=False).value[0] for what in ("a", "b")] == ["made#1"] * 2


def _load_unloadable() -> _Unloadable:
    if in_child():
        raise RuntimeError("not loaded in a child")
    return _Unloadable()


class _Unloadable:
    """Pickles here; its unpickling fails in a child (as a class the child lacks would)."""

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return (_load_unloadable, ())


def _type_name(value: object) -> str:
    return type(value).__name__


def test_a_call_the_warm_child_cannot_unpickle_runs_in_a_child_of_its_own(warm: WarmChild) -> None:
    before = warm.call(_keep_and_count, (1,), timeout=20).value
    assert warm.call(_type_name, (_Unloadable(),), timeout=20).value == "_Unloadable"
    assert warm.call(_keep_and_count, (1,), timeout=20).value == (before[0], 2)  # the warm child goes on
