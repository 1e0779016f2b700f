"""A gate nothing can fool or crash: whatever the target does, ``ropecheck verify`` writes a verdict.

Each test reproduces one way a target used to end the run without a verdict (or with a false
pass) and asserts the CLI now exits 1 with a finding that says what the target did, and writes
every requested output.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from fixtures import BROKEN
from ropecheck.cli import main

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork (POSIX)")

GOOD = """
import torch

def rope(x, positions):
    {before}
    d = x.shape[-1]
    inv = 1.0 / (10000 ** (torch.arange(0, d, 2, dtype=torch.float32) / d))
    ang = positions[..., None].float() * inv
    cos = torch.cat([ang.cos()] * 2, -1)[:, :, None].to(x.dtype)
    sin = torch.cat([ang.sin()] * 2, -1)[:, :, None].to(x.dtype)
    x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    return x * cos + torch.cat([-x2, x1], -1) * sin
"""

CASES = [
    ("sys-exit-0-in-call", "import sys; sys.exit(0)", "exited", "SystemExit(0), exit code 0"),
    ("os-exit-0-in-call", "import os; os._exit(0)", "exited", "os._exit(0), exit code 0"),
    ("os-exit-3-in-call", "import os; os._exit(3)", "exited", "exit code 3"),
    ("segfault", "import ctypes; ctypes.string_at(0)", "crashed", "SIGSEGV"),
    ("abort", "import os; os.abort()", "crashed", "SIGABRT"),
    ("keyboard-interrupt", "raise KeyboardInterrupt", "raised", "KeyboardInterrupt"),
]


def _target(tmp_path: Path, before: str) -> str:
    path = tmp_path / "target.py"
    path.write_text(GOOD.format(before=before))
    return f"{path}:rope"


@pytest.mark.parametrize("before, code, words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_target_that_ends_the_process_gets_a_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], before: str, code: str, words: str
) -> None:
    out = tmp_path / "v.json"
    argv = ["verify", _target(tmp_path, before), "--head-dim", "8", "--dtype", "float32", "--json", str(out)]
    assert main([*argv, "--max-position", "64", "--junit", str(tmp_path / "v.xml")]) == 1
    data = json.loads(out.read_text())
    assert data["conforms"] is False and data["findings"][0]["code"] == code
    assert words in data["findings"][0]["message"]
    assert "<testsuite" in (tmp_path / "v.xml").read_text()
    assert "DOES NOT CONFORM" in capsys.readouterr().out


def test_os_exit_at_import_is_a_verdict_not_a_silent_zero(tmp_path: Path) -> None:
    out = tmp_path / "v.json"
    target = f"{BROKEN / 'exits_at_import.py'}:rope"
    assert main(["verify", target, "--head-dim", "32", "--dtype", "float32", "--json", str(out)]) == 1
    finding = json.loads(out.read_text())["findings"][0]
    assert finding["code"] == "exited" and "while it was being imported" in finding["message"]


def test_a_hang_past_the_timeout_is_a_verdict(tmp_path: Path) -> None:
    out = tmp_path / "v.json"
    target = _target(tmp_path, "import time; time.sleep(3600)")
    assert main(["verify", target, "--head-dim", "8", "--dtype", "float32", "--timeout", "1", "--json", str(out)]) == 1
    assert json.loads(out.read_text())["findings"][0]["code"] == "timeout"


def test_memory_exhaustion_is_a_verdict(tmp_path: Path) -> None:
    out = tmp_path / "v.json"
    target = _target(tmp_path, "junk = bytearray(1 << 34)")  # 16 GiB against a 512 MiB limit
    argv = ["verify", target, "--head-dim", "8", "--dtype", "float32", "--memory-limit", "512M", "--json", str(out)]
    assert main(argv) == 1
    assert json.loads(out.read_text())["findings"][0]["code"] == "memory"


def test_a_target_that_prints_cannot_corrupt_json_on_stdout(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    target = _target(tmp_path, "print('debug: called'); import sys; print('warn', file=sys.stderr)")
    code = main(["verify", target, "--head-dim", "8", "--dtype", "float32", "--max-position", "64", "--json", "-"])
    captured = capfd.readouterr()
    data = json.loads(captured.out)  # stdout holds the JSON and nothing else
    assert code == 0 and data["conforms"] is True
    assert captured.out.startswith("{") and captured.out.rstrip().endswith("}")
    assert any("wrote" in note and "stdout" in note for note in data["notes"])


def test_precision_impl_that_exits_is_a_failure_with_its_json(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    target = _target(tmp_path, "import os; os._exit(0)")
    argv = ["precision", "--impl", target, "--head-dim", "8", "--dtype", "bf16", "--max-position", "64"]
    assert main([*argv, "--no-files", "--no-progress", "--json", str(out)]) == 1
    data = json.loads(out.read_text())
    assert data["conforms"] is False and data["failure"] == "exited"


def test_a_correct_target_still_conforms_through_the_fence(tmp_path: Path) -> None:
    out = tmp_path / "v.json"
    argv = ["verify", _target(tmp_path, "pass"), "--head-dim", "8", "--max-position", "256", "--json", str(out)]
    assert main(argv) == 0
    assert json.loads(out.read_text())["conforms"] is True
