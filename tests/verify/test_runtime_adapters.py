"""RoPE run outside PyTorch, judged by the runtimes adapters: ONNX Runtime's RotaryEmbedding ops (contrib and
opset 23), transformers' Llama rotary exported to ONNX, and MLX's ``mx.fast.rope``.

The unmodified runtimes conform forward in every dtype they implement on the CPU, and their backward is SKIP with
the reason (no autograd through them); the dtypes they do not implement are refused with a reason that a test here
keeps true; planted bugs (``tests/fixtures/runtimes/runtime_mutants.py``) get their torch twins' finding codes and
causes. Each test skips with the reason where its runtime is not installed
(``pip install -c .ci/constraints.txt -e ".[runtimes]"``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from loading import module_from_file

from ropecheck.adapters import ADAPTERS, get_adapter, runtimes
from ropecheck.cli.main import main
from ropecheck.verify import verify

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ORT = [n for n, a in ADAPTERS.items() if a.library == "onnxruntime"]
MLX = [n for n, a in ADAPTERS.items() if a.library == "mlx"]


def _needs(module: str) -> None:
    pytest.importorskip(
        module, reason=f"{module} is not installed (pip install -c .ci/constraints.txt -e '.[runtimes]')"
    )


# the fixture module imports only ropecheck: the runtimes are imported when a mutant is built
MUTANTS = module_from_file(FIXTURES / "runtimes" / "runtime_mutants.py")


def _load(name: str):
    adapter = ADAPTERS[name]
    reason = adapter.unavailable_reason()
    if reason:
        pytest.skip(reason)
    return adapter.load()


def test_the_runtimes_are_registered_with_their_dtypes() -> None:
    assert {"ort-rotary", "ort-rotary-interleaved", "ort-rotary-partial", "onnx-rotary", "onnx-rotary-interleaved",
            "ort-hf-llama"} == set(ORT)  # fmt: skip
    assert {"mlx-rope", "mlx-rope-traditional", "mlx-rope-linear", "mlx-rope-llama3"} == set(MLX)
    for name in ORT:
        assert ADAPTERS[name].dtypes == ("float32", "float16") and "NOT_IMPLEMENTED" in ADAPTERS[name].dtype_note
        assert "onnx" in ADAPTERS[name].requires
    assert all(ADAPTERS[n].dtypes == ("float32", "bfloat16", "float16") for n in MLX)
    assert ADAPTERS["mlx-rope-traditional"].spec.layout == "interleaved"
    assert ADAPTERS["ort-rotary-interleaved"].spec.layout == ADAPTERS["onnx-rotary-interleaved"].spec.layout


def test_a_missing_required_module_is_named_in_the_skip_reason() -> None:
    # its own module and other requirement installed wherever the suite runs: only the missing one is to blame
    adapter = dataclasses.replace(ADAPTERS["ort-rotary"], module="torch", requires=("numpy", "no_such_module_here"))
    assert not adapter.installed
    assert adapter.unavailable_reason() == f"no_such_module_here is not installed ({adapter.install})"


@pytest.mark.parametrize("name", ORT + MLX)
def test_the_runtime_conforms_forward_and_its_backward_is_skipped_with_the_reason(name: str) -> None:
    fn, spec = _load(name)
    dtypes = ADAPTERS[name].dtypes
    report = verify(fn, spec, device="cpu", dtypes=dtypes, name=name)
    assert report.conforms, [f.message for f in report.findings]
    status = {(c.name, c.dtype): c for c in report.checks}
    for dt in dtypes:
        assert status["precision", dt].status == "pass", status["precision", dt].evidence
        backward = status["backward", dt]
        assert backward.status == "skip" and "outside torch autograd" in backward.evidence, backward.evidence


@pytest.mark.parametrize("op", ["com.microsoft", "ai.onnx"])
def test_onnxruntime_has_no_bfloat16_rotary_kernel_on_the_cpu(op: str) -> None:
    """Why bfloat16 is not judged for ONNX Runtime, kept true: if a release adds the kernels, this fails."""
    _needs("onnxruntime")
    _needs("onnx")
    for dtype in ("float32", "float16"):
        runtimes.ort_session(runtimes.onnx_rotary_model(op, runtimes.ORT_SPEC, dtype, 2, interleaved=False))
    with pytest.raises(Exception, match="NOT_IMPLEMENTED"):
        runtimes.ort_session(runtimes.onnx_rotary_model(op, runtimes.ORT_SPEC, "bfloat16", 2, interleaved=False))


def test_the_exported_llama_graph_has_no_bfloat16_kernel_on_the_cpu() -> None:
    _load("ort-hf-llama")
    with pytest.raises(Exception, match="NOT_IMPLEMENTED"):
        runtimes.ort_session(runtimes.export_hf_llama_onnx("bfloat16"))


def test_the_contrib_scale_attribute_does_not_change_the_cpu_output() -> None:
    """The contrib op's ``scale`` only applies where the op fills its own cache (not implemented on the CPU), which is
    why no adapter judges it; kept true here."""
    _needs("onnxruntime")
    import numpy as np
    from onnx import helper

    model = runtimes.onnx_rotary_model("com.microsoft", runtimes.ORT_SPEC, "float32", 2, interleaved=False)
    x = np.random.default_rng(0).standard_normal((1, 2, 4, 128)).astype(np.float32)
    feeds = {"input": x, "position_ids": np.array([[0, 5, 100, 3000]])}
    plain = runtimes.ort_session(model).run(None, feeds)[0]
    model.graph.node[-1].attribute.append(helper.make_attribute("scale", 0.5))
    assert np.array_equal(runtimes.ort_session(model).run(None, feeds)[0], plain)


def test_bfloat16_is_refused_for_onnxruntime_with_the_reason(capsys: pytest.CaptureFixture[str]) -> None:
    _load("ort-rotary")
    assert main(["verify", "--adapter", "ort-rotary", "--dtype", "bfloat16"]) == 2
    assert "CPU kernels implement float32 and float16 only" in capsys.readouterr().err


def test_mlx_is_an_offset_target() -> None:
    fn, _ = _load("mlx-rope")
    assert fn.rope_convention == "offset"


@pytest.mark.parametrize("mutant", list(MUTANTS.MUTANTS))
def test_runtime_mutants_get_the_expected_finding(mutant: str) -> None:
    _needs(MUTANTS.RUNTIME[mutant])
    if MUTANTS.RUNTIME[mutant] == "onnxruntime":
        _needs("onnx")
    build, spec, dtypes, code, cause = MUTANTS.MUTANTS[mutant]
    report = verify(build(), spec, device="cpu", dtypes=dtypes, name=mutant)
    assert not report.conforms
    first = report.findings[0]
    assert (first.code, first.cause) == (code, cause), [f.label for f in report.findings]


def test_cli_verdict_for_a_runtime_adapter(capsys: pytest.CaptureFixture[str]) -> None:
    _load("onnx-rotary")
    assert main(["verify", "--adapter", "onnx-rotary", "--device", "cpu", "-q"]) == 0
    assert "CONFORMS: adapter:onnx-rotary" in capsys.readouterr().out
    assert get_adapter("onnx-rotary").spec.max_position_embeddings == 8192


MLX_LM = [n for n, a in ADAPTERS.items() if a.library == "mlx-lm"]


@pytest.mark.parametrize("name", MLX_LM)
def test_mlx_lm_ropes_conform_except_longrope_which_uses_its_long_factors_early(name: str) -> None:
    _needs("mlx_lm")
    fn, spec = get_adapter(name).load()
    report = verify(fn, spec, device="cpu", dtypes=("float32",), name=name)
    if name == "mlx-lm-longrope":  # SuScaledRoPE never reads short_factor (see ropecheck/adapters/README.md)
        assert [f.label for f in report.findings] == ["frequencies/longrope_long_factors_early"]
    else:
        assert report.conforms, [f.label for f in report.findings]
