"""GPU kernels judged as black boxes on CUDA, forward and backward (``pytest -m gpu``; skipped without CUDA).

The hand-written Triton kernel (``tests/fixtures/gpu/triton_rope.py``) conforms, and each planted-bug twin fails
where its bug is: the forward twin on the forward checks, the backward twin on the backward ones alone.
transformers' Llama rotary path compiled by inductor (Triton kernels on CUDA) conforms. Liger-Kernel's Triton
RoPE has one known finding, its double backward (see ``tests/verify/test_liger_interpret.py``, the same kernel
under Triton's interpreter on the CPU). The full verdicts, in every dtype, are written by
``python -m ropecheck.report.gpu`` to ``reports/gpu/``.

Each verdict runs ``ropecheck verify`` in a process of its own: this test process may have initialised CUDA
(the precision tests beside these do), and CUDA cannot be used in a process forked from it -- which
verification in this process says, as a usage error, instead of judging the target (the last test, on the CPU).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from ropecheck.cli.main import main

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "gpu" / "triton_rope.py"
FLAGS = ["--head-dim", "128", "--base", "10000", "--layout", "half", "--max-position", "4096"]


def _verify(tmp_path: Path, *argv: str, dtype: str = "float32") -> tuple[int, dict]:
    out = tmp_path / "verdict.json"
    cmd = [sys.executable, "-m", "ropecheck", "verify", *argv, "--device", "cuda", "--dtype", dtype, "--json", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return proc.returncode, json.loads(out.read_text())


def _failing(verdict: dict) -> set[str]:
    return {c["name"] for c in verdict["checks"] if c["status"] == "fail"}


@pytest.mark.gpu
def test_the_triton_kernel_conforms_forward_and_backward(tmp_path: Path) -> None:
    pytest.importorskip("triton")
    code, verdict = _verify(tmp_path, f"{FIXTURE}:rope", *FLAGS, dtype="float32,bfloat16,float16")
    assert code == 0, _failing(verdict)
    assert any(c["name"] == "backward" and c["status"] == "pass" for c in verdict["checks"])


@pytest.mark.gpu
def test_the_triton_forward_bug_fails_on_the_forward(tmp_path: Path) -> None:
    pytest.importorskip("triton")
    code, verdict = _verify(tmp_path, f"{FIXTURE}:rope_forward_bug", *FLAGS)
    assert code == 1
    assert any(not name.startswith("backward") for name in _failing(verdict))


@pytest.mark.gpu
def test_the_triton_backward_bug_fails_on_the_backward_alone(tmp_path: Path) -> None:
    pytest.importorskip("triton")
    code, verdict = _verify(tmp_path, f"{FIXTURE}:rope_backward_bug", *FLAGS)
    assert code == 1
    failing = _failing(verdict)
    assert failing and all(name.startswith("backward") for name in failing), failing


@pytest.mark.gpu
def test_llama_rotary_compiled_by_inductor_on_cuda_conforms(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    code, verdict = _verify(tmp_path, "--adapter", "hf-llama", "--compile")
    assert code == 0, _failing(verdict)
    assert verdict["compile"] and "inductor" in json.dumps(verdict["compile"])


@pytest.mark.gpu
def test_liger_on_cuda_fails_only_its_double_backward(tmp_path: Path) -> None:
    pytest.importorskip("liger_kernel")
    code, verdict = _verify(tmp_path, "--adapter", "liger")
    assert code == 1
    assert _failing(verdict) == {"backward:double"}


def test_verifying_after_this_process_initialised_cuda_is_a_usage_error_not_a_verdict(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As on a GPU after a CUDA op here: the forked target process reports a bad fork, and verify says why."""
    monkeypatch.setattr(torch.cuda, "_is_in_bad_fork", lambda: True)  # inherited by the forked target process
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "broken" / "layout_swapped_half_for_interleaved.py"
    code = main(["verify", f"{fixture}:rope", "--head-dim", "64", "--layout", "interleaved", "--device", "cuda", "-q"])
    err = capsys.readouterr().err
    assert code == 2 and "CUDA cannot be used in a forked process" in err
