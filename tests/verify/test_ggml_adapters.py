"""llama.cpp's RoPE, judged through the ggml adapters: ggml's ``ggml_rope_ext`` (NORMAL, NEOX, partial, linear,
YaRN) and ``ggml_rope_multi`` (MROPE, VISION) ops on ggml's CPU backend, through ggml-python.

The unmodified ops conform forward and backward (ggml's own rope backward op, through a
``torch.autograd.Function``) in float32 and float16; bfloat16 is refused with a reason that a test here keeps
true (ggml aborts the process on a bfloat16 rope); ggml's YaRN ramp is checked to be ropecheck's (and its one
difference, no ``truncate: false``, kept visible); planted bugs (``tests/fixtures/runtimes/ggml_mutants.py``)
get their torch twins' finding codes and causes. Each test that runs ggml skips with the reason where it is not
installed (``pip install -c .ci/constraints.txt -e ".[runtimes]"``).
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from loading import module_from_file

from ropecheck.adapters import ADAPTERS, ggml_rope
from ropecheck.cli.main import main
from ropecheck.verify import verify

ROOT = Path(__file__).resolve().parents[2]
GGML = [n for n, a in ADAPTERS.items() if a.library == "ggml-python"]


def _needs_ggml() -> None:
    pytest.importorskip(
        "ggml", reason="ggml-python is not installed (pip install -c .ci/constraints.txt -e '.[runtimes]')"
    )


# the fixture module imports only ropecheck: ggml is imported when a mutant is called
MUTANTS = module_from_file(ROOT / "tests" / "fixtures" / "runtimes" / "ggml_mutants.py")


def _load(name: str):
    reason = ADAPTERS[name].unavailable_reason()
    if reason:
        pytest.skip(reason)
    return ADAPTERS[name].load()


def test_the_ggml_adapters_are_registered_with_their_dtypes_and_specs() -> None:
    assert {"ggml-rope-norm", "ggml-rope-neox", "ggml-rope-partial", "ggml-rope-linear", "ggml-rope-yarn",
            "ggml-rope-mrope", "ggml-rope-vision"} == set(GGML)  # fmt: skip
    for name in GGML:
        assert ADAPTERS[name].dtypes == ("float32", "float16") and "GGML_ABORT" in ADAPTERS[name].dtype_note
    assert ADAPTERS["ggml-rope-norm"].spec.layout == "interleaved"
    assert ADAPTERS["ggml-rope-neox"].spec.layout == "half"
    # the same models as the transformers adapters judge, read from the same configs
    assert ADAPTERS["ggml-rope-yarn"].spec == ADAPTERS["hf-llama-yarn"].spec
    assert ADAPTERS["ggml-rope-mrope"].spec == ADAPTERS["hf-qwen2-vl"].spec
    assert ADAPTERS["ggml-rope-vision"].spec == ADAPTERS["hf-qwen2-vl-vision"].spec


@pytest.mark.parametrize("name", GGML)
def test_ggml_conforms_forward_and_backward(name: str) -> None:
    fn, spec = _load(name)
    dtypes = ADAPTERS[name].dtypes
    report = verify(fn, spec, device="cpu", dtypes=dtypes, name=name)
    assert report.conforms, [f.message for f in report.findings]
    status = {(c.name, c.dtype): c for c in report.checks}
    for dt in dtypes:
        assert status["precision", dt].status == "pass", status["precision", dt].evidence
        assert status["backward", dt].status == "pass", status["backward", dt].evidence
        double = status["backward:double", dt]  # ggml gives no gradient of its backward op
        assert double.status == "skip" and "once_differentiable" in double.evidence, double.evidence


def test_the_backward_is_ggmls_rope_back_op() -> None:
    """The gradient torch receives is ggml_rope_ext_back's output on the incoming gradient, bit for bit."""
    fn, _ = _load("ggml-rope-neox")
    import torch

    x = torch.randn(2, 5, 3, 128, requires_grad=True)
    g = torch.randn(2, 5, 3, 128)
    positions = torch.tensor([[0, 1, 2, 900, 4000], [7, 8, 9, 10, 131071]])
    fn(x, positions).backward(g)
    params = ggml_rope.GgmlRope(128, ggml_rope.MODE_NEOX, 10000.0)
    back = ggml_rope.run_ggml_rope(params, g.reshape(10, 3, 128).numpy(), positions.reshape(10).numpy(),
                                   dtype="float32", backward=True)  # fmt: skip
    assert np.array_equal(x.grad.reshape(10, 3, 128).numpy(), back)


def test_ggml_aborts_on_a_bfloat16_rope() -> None:
    """Why bfloat16 is not judged, kept true: ggml's CPU rope aborts the process (in a child here)."""
    _needs_ggml()
    script = (
        "import numpy as np\n"
        "from ropecheck.adapters.ggml_rope import GgmlRope, MODE_NEOX, run_ggml_rope\n"
        "p, pos = GgmlRope(8, MODE_NEOX, 10000.0), np.arange(3, dtype=np.int32)\n"
        "for dtype, x in (('float32', np.ones((3, 1, 8), np.float32)), ('float16', np.ones((3, 1, 8), np.float16)),\n"
        "                 ('bfloat16', np.full((3, 1, 8), 0x3F80, np.uint16))):\n"
        "    run_ggml_rope(p, x, pos, dtype=dtype)\n"
        "    print(dtype, 'ran', flush=True)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GGML_NO_BACKTRACE": "1"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.stdout.split("\n")[:2] == ["float32 ran", "float16 ran"], done.stdout + done.stderr
    assert "bfloat16 ran" not in done.stdout
    assert done.returncode != 0 and "fatal error" in done.stderr, (done.returncode, done.stderr[-500:])


def test_the_glue_refuses_bfloat16_before_ggml_sees_it(capsys: pytest.CaptureFixture[str]) -> None:
    fn, _ = _load("ggml-rope-norm")
    import torch

    with pytest.raises(TypeError, match="float32 and float16 only"):
        fn(torch.ones(1, 2, 1, 128, dtype=torch.bfloat16), torch.arange(2).unsqueeze(0))
    assert main(["verify", "--adapter", "ggml-rope-norm", "--dtype", "bfloat16"]) == 2
    assert "GGML_ABORT" in capsys.readouterr().err


def test_ggmls_yarn_correction_dims_are_ropechecks() -> None:
    """ggml_rope_yarn_corr_dims (float32) and YaRN.correction_range (float64) give the same ramp ends."""
    _needs_ggml()
    import ctypes

    import ggml

    from ropecheck.schedules import YaRN
    from ropecheck.spec import RopeSpec

    for d in (64, 80, 128):
        for ctx in (2048, 4096, 32768, 131072):
            for base in (10000.0, 500000.0, 1000000.0):
                for fast, slow in ((32.0, 1.0), (16.0, 2.0)):
                    dims = (ctypes.c_float * 2)()
                    ggml.ggml_rope_yarn_corr_dims(d, ctx, base, fast, slow, dims)
                    spec = RopeSpec(head_dim=d, base=base, scaling=YaRN(4.0, ctx, beta_fast=fast, beta_slow=slow))
                    assert tuple(dims) == spec.scaling.correction_range(spec), (d, ctx, base, fast, slow)


def test_ggml_has_no_untruncated_yarn_ramp() -> None:
    """ggml always floors/ceils the ramp's ends: a spec with ``truncate: false`` (gpt-oss) is not what it computes."""
    _needs_ggml()
    spec = ggml_rope.GGML_YARN_SPEC
    untruncated = spec.with_(scaling=dataclasses.replace(spec.scaling, truncate=False))
    fn = ggml_rope.ggml_function("ggml-yarn", ggml_rope.yarn_params(spec, ggml_rope.MODE_NEOX))
    report = verify(fn, untruncated, device="cpu", dtypes=("float32",), backward=False)
    assert [f.code for f in report.findings][:1] == ["frequencies"], [f.label for f in report.findings]


@pytest.mark.parametrize("mutant", list(MUTANTS.MUTANTS))
def test_ggml_mutants_get_the_expected_finding(mutant: str) -> None:
    _needs_ggml()
    build, spec, dtypes, code, cause = MUTANTS.MUTANTS[mutant]
    report = verify(build(), spec, device="cpu", dtypes=dtypes, name=mutant)
    assert not report.conforms
    first = report.findings[0]
    assert (first.code, first.cause) == (code, cause), [f.label for f in report.findings]


def test_cli_verdict_for_a_ggml_adapter(capsys: pytest.CaptureFixture[str]) -> None:
    _load("ggml-rope-yarn")
    assert main(["verify", "--adapter", "ggml-rope-yarn", "--device", "cpu", "-q"]) == 0
    assert "CONFORMS: adapter:ggml-rope-yarn" in capsys.readouterr().out
