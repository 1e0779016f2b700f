"""Liger-Kernel's Triton RoPE kernel judged on the CPU under Triton's interpreter (the ``liger-interpret`` adapter).

Each verdict runs in the verifier's child process (the adapter sets TRITON_INTERPRET=1 there, never in the test
process). The unmodified kernel is judged forward and backward; its one known finding is the double backward
(Liger's backward writes the gradient into the incoming one and returns a view of it, so autograd's second
derivative is the identity). One-line mutants of Liger's glue get their torch twins' finding codes. bfloat16 is
not judged: the interpreter's bfloat16 arithmetic is wrong on the CPU, shown here on a one-line kernel. Skipped
without triton and liger-kernel (``pip install -c .ci/constraints.txt triton liger-kernel``).
"""

from __future__ import annotations

import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest

pytest.importorskip("triton")
pytest.importorskip("liger_kernel")

from loading import module_from_file

from ropecheck.adapters import get_adapter
from ropecheck.cli.main import main
from ropecheck.verify.supervise import Loaded, verify_isolated

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ADAPTER = get_adapter("liger-interpret")


MUTANTS = module_from_file(FIXTURES / "triton" / "liger_mutants.py")


def _load(mutant: str | None) -> Loaded:
    fn, spec = ADAPTER.load()  # first: the kernel is imported under the interpreter
    if mutant:
        module_from_file(FIXTURES / "triton" / "liger_mutants.py").apply(mutant)
    return Loaded(fn, f"adapter:liger-interpret{'+' + mutant if mutant else ''}")


def _verify(mutant: str | None, dtypes: tuple[str, ...]):
    return verify_isolated(partial(_load, mutant), spec=ADAPTER.spec, name="adapter:liger-interpret", dtypes=dtypes,
                           device="cpu")  # fmt: skip


def test_the_kernel_conforms_but_for_its_double_backward() -> None:
    report = _verify(None, ADAPTER.dtypes)
    assert [(f.code, f.cause, f.dtype) for f in report.findings] == [("backward", "backward_not_transpose", "float32")]
    assert "double backward" in report.findings[0].message
    status = {(c.name, c.dtype): c.status for c in report.checks}
    for dt in ADAPTER.dtypes:  # the forward, and the gradient itself, are right
        assert status["precision", dt] == "pass" and status["backward", dt] == "pass", status
        assert status["backward:double", dt] == "fail", status


@pytest.mark.parametrize("mutant", list(MUTANTS.MUTANTS))
def test_mutants_get_the_torch_twins_codes(mutant: str) -> None:
    twin = module_from_file(FIXTURES / MUTANTS.MUTANTS[mutant])
    report = _verify(mutant, ("float32",))
    assert not report.conforms
    first = report.findings[0]
    assert first.code == twin.EXPECTED, [f.label for f in report.findings]
    if getattr(twin, "EXPECTED_CAUSE", None):
        assert first.cause == twin.EXPECTED_CAUSE, [f.label for f in report.findings]


def test_bfloat16_is_refused_with_the_reason(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--adapter", "liger-interpret", "--dtype", "bfloat16"]) == 2
    assert "interpreter computes bfloat16 arithmetic wrongly" in capsys.readouterr().err


def test_the_interpreter_gets_bfloat16_wrong_on_a_one_line_kernel() -> None:
    """The reason bfloat16 is not judged, kept true: if a Triton release fixes it, this fails and bf16 comes back."""
    code = """
import os; os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
@triton.jit
def mul(x_ptr, c_ptr, o_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    c = tl.load(c_ptr + i)
    tl.store(o_ptr + i, tl.load(x_ptr + i).to(c.dtype) * c)
torch.manual_seed(0)
for dt in (torch.bfloat16, torch.float16):
    x, c = torch.randn(16).to(dt), torch.rand(16).to(dt)
    o = torch.empty_like(x)
    mul[(1,)](x, c, o, N=16)
    print(dt, float((o.float() - (x * c).float()).abs().max()))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True).stdout
    errors = {line.split()[0]: float(line.split()[1]) for line in out.splitlines()}
    assert errors["torch.float16"] == 0.0, out
    assert errors["torch.bfloat16"] > 1.0, out
