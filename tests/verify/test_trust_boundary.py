"""The gate nothing can fool: the verdict is computed outside the judged process, and no process outlives it.

Each target in ``tests/fixtures/hostile/`` attacks the judge: it patches numpy, torch, mpmath or
ropecheck in its own process, forks a grandchild that holds the channel open, starts processes that
would outlive ropecheck, writes into the channel, or kills itself. ``ropecheck verify`` must judge the
identity functions as what they are (DOES NOT CONFORM), a correct target as conforming in its normal
time, and leave no process behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ropecheck.cli.main import main
from ropecheck.isolate import kill_tree

HOSTILE = Path(__file__).resolve().parents[1] / "fixtures" / "hostile"
ARGS = ["--head-dim", "16", "--layout", "half", "--dtype", "float32", "--max-position", "256", "--no-backward"]


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped by init is not alive)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _verdict(tmp_path: Path, target: str, *extra: str) -> tuple[int, dict]:
    out = tmp_path / "v.json"
    code = main(["verify", f"{HOSTILE / target}:rope", *ARGS, *extra, "--json", str(out)])
    return code, json.loads(out.read_text())


@pytest.fixture
def pids(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The file the hostile targets write their processes' pids to; after the test, none may be alive."""
    path = tmp_path / "pids"
    path.write_text("")
    monkeypatch.setenv("ROPECHECK_TEST_PIDS", str(path))

    def read() -> list[int]:
        return [int(line) for line in path.read_text().split()]

    yield read
    leftover = [pid for pid in read() if _alive(pid)]
    for pid in leftover:  # never leave them on the machine, even when the test failed
        kill_tree(pid)
    assert not leftover, f"processes started by the target outlived ropecheck: {leftover}"


@pytest.mark.parametrize(
    "target", ["patches_numpy.py", "patches_torch.py", "patches_mpmath.py", "patches_ropecheck.py"]
)
def test_an_identity_that_patches_the_judge_in_its_own_process_does_not_conform(tmp_path: Path, target: str) -> None:
    code, data = _verdict(tmp_path, target)
    assert code == 1 and data["conforms"] is False, data["findings"]
    assert any(f["code"] in ("angles", "identification", "positions", "precision") for f in data["findings"])


def test_a_grandchild_holding_the_pipe_changes_nothing(tmp_path: Path, pids) -> None:
    t0 = time.monotonic()
    code, data = _verdict(tmp_path, "grandchild_holds_pipe.py", "--timeout", "0")
    assert code == 0 and data["conforms"] is True, data["findings"]
    assert time.monotonic() - t0 < 60
    assert len(pids()) == 1


def test_processes_the_target_starts_do_not_outlive_the_verdict(tmp_path: Path, pids) -> None:
    code, data = _verdict(tmp_path, "starts_sleep.py")
    assert code == 0 and data["conforms"] is True, data["findings"]
    assert len(pids()) == 2  # the Popen'd sleep and the setsid'd double-fork: the fixture checks both are gone


def test_a_target_that_exits_leaves_no_process_behind(tmp_path: Path, pids) -> None:
    code, data = _verdict(tmp_path, "exits_after_spawning.py")
    assert code == 1 and data["findings"][0]["code"] == "exited"
    assert len(pids()) == 1


@pytest.mark.parametrize("target, finding", [("writes_into_channel.py", "crashed"), ("kills_itself.py", "crashed")])
def test_a_broken_channel_or_a_self_kill_is_the_targets_finding(tmp_path: Path, target: str, finding: str) -> None:
    code, data = _verdict(tmp_path, target)
    assert code == 1 and data["findings"][0]["code"] == finding, data["findings"]


def _ctrl_c_as_at_a_terminal() -> None:
    """SIGINT handled by default in ropecheck's process: a test session started in the background by a
    script (``nohup ... &``) ignores SIGINT, its children inherit that, and Python keeps it ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_ends_the_child_and_what_it_started(tmp_path: Path) -> None:
    """SIGINT to ropecheck mid-verdict: exit 130, and the target's sleeper is gone."""
    pid_file = tmp_path / "pids"
    pid_file.write_text("")
    hang = tmp_path / "hang.py"
    hang.write_text(
        "import os, subprocess, time\n"
        "def rope(x, positions):\n"
        "    p = subprocess.Popen(['sleep', '600'])\n"
        f"    open({str(pid_file)!r}, 'a').write(f'{{p.pid}}\\n')\n"
        "    time.sleep(600)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "ropecheck", "verify", f"{hang}:rope", *ARGS],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=_ctrl_c_as_at_a_terminal,
    )
    deadline = time.monotonic() + 60
    while not pid_file.read_text().strip() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(2)
    try:
        code = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:  # never leave it behind, even when the check below fails
            kill_tree(proc.pid)
    assert code == 130, proc.stderr.read() if proc.stderr else ""
    sleeper = int(pid_file.read_text().split()[0])
    time.sleep(0.2)
    alive = _alive(sleeper)
    if alive:
        kill_tree(sleeper)
    assert not alive, "the target's sleeper outlived ropecheck after Ctrl-C"


def test_ropecheck_judging_a_target_imports_no_torch_itself(tmp_path: Path) -> None:
    """The judging process stays light: torch is imported once, by the child that runs the target."""
    script = (
        "import sys\n"
        "from ropecheck.cli.main import main\n"
        f"code = main(['verify', {str(HOSTILE / '_rope.py') + ':rope'!r}, *{ARGS!r}, '-q'])\n"
        "print('torch' in sys.modules, code)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.stdout.strip().splitlines()[-1] == "False 0", out.stdout + out.stderr


def test_no_child_is_left_after_a_verdict() -> None:
    """The process-leak check: after any verify, this process has no child left."""
    before = _children()
    main(["verify", f"{HOSTILE / '_rope.py'}:rope", *ARGS, "-q"])
    assert _children() - before == set()


def _children() -> set[int]:
    me = str(os.getpid())
    found = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if fields[1] == me and fields[0] != "Z":
                found.add(int(name))
    return found


def _verify_in_a_process_of_its_own(prelude: str, target: str) -> str:
    """Run ``prelude`` in a fresh Python, then ``ropecheck verify`` on ``target``; the last line it printed."""
    argv = ["verify", f"{HOSTILE / target}:rope", *ARGS, "-q", "--timeout", "60"]
    script = f"{prelude}\nfrom ropecheck.cli.main import main\nprint('exit', main({argv!r}))\n"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    lines = out.stdout.strip().splitlines()
    return lines[-1] if lines else out.stdout + out.stderr


#: Wraps stdout and stderr in streams whose lock an at-fork hook holds through the fork, the way a
#: refresh thread in the middle of a write holds it, and releases in the parent right after.
HELD_STREAMS = """
import os, sys, threading
class Stream:
    def __init__(self, real):
        self.real, self.lock = real, threading.Lock()
    def write(self, s):
        with self.lock:
            return self.real.write(s)
    def flush(self):
        with self.lock:
            self.real.flush()
    def __getattr__(self, name):
        return getattr(self.real, name)
sys.stdout, sys.stderr = Stream(sys.stdout), Stream(sys.stderr)
me = os.getpid()
def hold():
    if os.getpid() == me:
        sys.stdout.lock.acquire(); sys.stderr.lock.acquire()
def release():
    if os.getpid() == me:
        sys.stdout.lock.release(); sys.stderr.lock.release()
os.register_at_fork(before=hold, after_in_parent=release)
"""


def test_a_stream_lock_held_at_the_fork_does_not_hang_the_child() -> None:
    """Another thread (a progress bar refreshing) holding stdout's or stderr's lock when the child is
    forked: the child never uses the streams it inherited, so a target that prints at import conforms
    (in the child the lock stays held for ever)."""
    assert _verify_in_a_process_of_its_own(HELD_STREAMS, "warns_at_import.py") == "exit 0"


def test_a_child_of_a_process_that_ran_torch_in_parallel_does_not_hang() -> None:
    """The judging process (a report, a test session) has run torch on its OpenMP pool before the
    child is forked; a target whose import runs a large operation still conforms."""
    prelude = "import torch\ntorch.set_num_threads(2)\ntorch.ones(4096, 1024).mul(2.0).sum()"  # the pool is up
    assert _verify_in_a_process_of_its_own(prelude, "parallel_at_import.py") == "exit 0"


def test_ctrl_c_handed_to_another_thread_still_stops_the_verdict(tmp_path: Path) -> None:
    """The kernel may deliver SIGINT to any thread (numpy's and torch's pools are threads): the main
    thread, waiting for the child's answer, still raises KeyboardInterrupt at once, not at the timeout."""
    started = tmp_path / "started"
    hang = tmp_path / "hang.py"
    hang.write_text(
        f"import time\ndef rope(x, positions):\n    open({str(started)!r}, 'w').write('1')\n    time.sleep(600)\n"
    )
    argv = ["verify", f"{hang}:rope", *ARGS, "-q", "--timeout", "100"]
    script = (
        "import os, signal, threading, time\n"
        "from ropecheck.cli.main import main\n"
        "def poke():\n"
        f"    while not os.path.exists({str(started)!r}):\n"
        "        time.sleep(0.05)\n"
        "    signal.pthread_kill(threading.get_ident(), signal.SIGINT)  # this thread, not the main one\n"
        "threading.Thread(target=poke, daemon=True).start()\n"
        "t0 = time.monotonic()\n"
        f"code = main({argv!r})\n"
        "print('exit', code, time.monotonic() - t0 < 60)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                         preexec_fn=_ctrl_c_as_at_a_terminal)  # fmt: skip
    assert out.stdout.strip().splitlines()[-1:] == ["exit 130 True"], out.stdout + out.stderr
