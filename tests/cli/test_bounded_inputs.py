"""Every file a command reads is a regular file of bounded size, and an audit has a whole-document time limit.

A FIFO, a device, a socket or a folder given as ``--hf-config`` or as ``audit FILE`` is exit 2
with one line naming the argument and the path, decided without blocking (each command runs in
a subprocess with a deadline: a command that blocks fails the test). An audit that reaches its
``--document-timeout`` says how many steps it left undecided, and marks them UNDECIDED.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ropecheck.cli import main
from ropecheck.cli.audit import MAX_AUDIT_BYTES

#: Seconds a refused input may take, start-up included (the refusal itself is immediate; a blocked
#: read would hang past any limit).
DEADLINE = 60
#: The reason an audit gives for a step its document time limit left undecided.
DOCUMENT_TIME_LIMIT_REASON = "document time limit reached"

_TARGET = """
import torch

def rope(x, positions):
    d = x.shape[-1]
    inv = 1.0 / (10000.0 ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    ang = positions.to(torch.float64)[..., None, None] * inv
    cos, sin = torch.cat([ang.cos()] * 2, -1).to(x.dtype), torch.cat([ang.sin()] * 2, -1).to(x.dtype)
    return x * cos + torch.cat([-x[..., d // 2 :], x[..., : d // 2]], -1) * sin
"""


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    t0 = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "ropecheck", *argv], capture_output=True, text=True, timeout=DEADLINE
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"ropecheck {' '.join(argv)} blocked for {DEADLINE} s")
    assert time.monotonic() - t0 < DEADLINE
    return proc


def _one_line_exit_2(proc: subprocess.CompletedProcess[str], *words: str) -> str:
    err = proc.stderr.strip()
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-500:], err[-2000:])
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, (w, err)
    return err


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "config.fifo"
    os.mkfifo(path)
    return path


@pytest.fixture
def target(tmp_path: Path) -> str:
    path = tmp_path / "good_rope.py"
    path.write_text(_TARGET)
    return f"{path}:rope"


def test_a_fifo_as_hf_config_of_spec(fifo: Path) -> None:
    _one_line_exit_2(_run("spec", "--hf-config", str(fifo)), "--hf-config", str(fifo), "FIFO")


def test_a_fifo_as_hf_config_of_verify(fifo: Path, target: str) -> None:
    proc = _run("verify", target, "--hf-config", str(fifo), "--dtype", "float32")
    _one_line_exit_2(proc, "--hf-config", str(fifo), "FIFO")


def test_a_fifo_as_hf_config_of_precision(fifo: Path) -> None:
    _one_line_exit_2(_run("precision", "--hf-config", str(fifo)), "--hf-config", str(fifo), "FIFO")


def test_a_fifo_as_the_audited_file(fifo: Path) -> None:
    _one_line_exit_2(_run("audit", str(fifo)), "FILE", str(fifo), "FIFO")


def test_a_fifo_as_the_surveys_expected_findings(fifo: Path) -> None:
    _one_line_exit_2(_run("survey", "--expected", str(fifo), "--family", "llama"), "--expected", str(fifo), "FIFO")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
@pytest.mark.parametrize(
    "argv, flag",
    [(["audit", "/dev/zero"], "FILE"), (["spec", "--hf-config", "/dev/zero"], "--hf-config")],
    ids=["audit", "hf-config"],
)
def test_an_endless_device_is_refused(argv: list[str], flag: str) -> None:
    _one_line_exit_2(_run(*argv), flag, "/dev/zero", "character device")


def test_a_folder_as_the_audited_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "FILE" in err and str(tmp_path) in err and "is a folder" in err


def test_a_folder_without_config_json_as_hf_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spec", "--hf-config", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--hf-config" in err and str(tmp_path) in err and "config.json" in err


def test_a_folder_with_a_config_json_is_still_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "config.json").write_text('{"head_dim": 8}')
    assert main(["spec", "--hf-config", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["spec"]["head_dim"] == 8


@pytest.mark.parametrize("command", ["audit", "spec"])
def test_a_huge_file_is_refused_by_what_is_read(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "huge"
    with path.open("wb") as fh:  # sparse: 1 GiB on paper, nothing on disk
        fh.truncate(1 << 30)
    argv = ["audit", str(path)] if command == "audit" else ["spec", "--hf-config", str(path)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    flag = "FILE" if command == "audit" else "--hf-config"
    assert len(err.splitlines()) == 1 and flag in err and "larger than" in err


def _big_document(steps: int) -> str:
    blocks = [f"$$\\cos^2 x_{{{i}}} + \\sin^2 x_{{{i}}} = 1$$\n\ntext {i}\n" for i in range(steps)]
    return "# many steps\n\n" + "\n".join(blocks)


def test_an_audit_stops_at_its_document_time_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "big.md"
    doc.write_text(_big_document(400))
    out = tmp_path / "audit.json"
    t0 = time.monotonic()
    code = main(["audit", str(doc), "--document-timeout", "1", "--json", str(out)])
    elapsed = time.monotonic() - t0
    text = capsys.readouterr().out
    assert code == 0 and elapsed < 30
    data = json.loads(out.read_text())
    left = [s for s in data["steps"] if s["reason"] == DOCUMENT_TIME_LIMIT_REASON]
    assert data["steps_total"] == 400 and left
    assert all(s["status"] == "UNDECIDED" for s in left)
    assert data["document_time_limit"] == 1 and data["steps_left_by_time_limit"] == len(left)
    assert f"document time limit of 1 s reached: {len(left)} of 400 steps left undecided" in text


def test_the_document_time_limit_is_checked(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = tmp_path / "d.md"
    doc.write_text("$$x = x$$\n")
    for bad in ("-1", "nan", "inf"):
        assert main(["audit", str(doc), "--document-timeout", bad]) == 2
        assert "--document-timeout" in capsys.readouterr().err
    assert main(["audit", str(doc), "--document-timeout", "0"]) == 0  # 0: no limit
    capsys.readouterr()


def test_the_audit_size_limit_is_4_mib() -> None:
    assert MAX_AUDIT_BYTES == 4 << 20
