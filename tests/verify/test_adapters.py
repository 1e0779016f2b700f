"""Adapters: the registry, the `adapters` command, and each installed library's verdict per dtype.

Every adapter whose library is installed must conform in float32 (no false positives); in
bfloat16/float16 the verdict is recorded in LOW_PRECISION_FINDINGS -- a real library that
fails there is a finding (see the README), so the test pins it rather than hiding it.
"""

from __future__ import annotations

import json

import pytest

from ropecheck.adapters import ADAPTERS, get_adapter
from ropecheck.cli.main import main
from ropecheck.errors import UsageError
from ropecheck.verify import verify

# adapter -> {(dtype, finding code)} for libraries whose low-precision path fails: positions made in
# x.dtype (rotary-embedding-torch: bf16 rounds them, fp16 overflows past 65504, and the angle cache
# a long bf16 call fills is then served to float32 calls); inv_freq cast with the module (fair-esm)
LOW_PRECISION_FINDINGS = {
    "rotary-embedding-torch": {("bfloat16", "state"), ("bfloat16", "precision"), ("float16", "nonfinite")},
    "fair-esm": {("bfloat16", "precision"), ("float16", "precision")},
}

REQUIRED = {
    "transformers",
    "torchtune",
    "rotary-embedding-torch",
    "x-transformers",
    "litgpt",
    "fair-esm",
    "mistral-inference",
    "llama-models",
    "flash-attn",
    "vllm",
    "liger-kernel",
    "penzai",
    "onnxruntime",
    "mlx",
    "ggml-python",
}


def test_registry_covers_the_libraries() -> None:
    assert {a.library for a in ADAPTERS.values()} >= REQUIRED
    hf = {n for n, a in ADAPTERS.items() if a.library == "transformers"}
    assert {
        "hf-llama",
        "hf-llama-linear",
        "hf-llama-dynamic",
        "hf-llama-yarn",
        "hf-llama3",
        "hf-llama-longrope",
        "hf-gptj",
        "hf-cohere",
        "hf-neox",
    } <= hf
    assert all(ADAPTERS[n].requires_cuda for n in ("flash-attn", "vllm", "liger"))
    assert not ADAPTERS["liger-interpret"].requires_cuda and "bfloat16" not in ADAPTERS["liger-interpret"].dtypes
    assert {"penzai", "penzai-gpt-neox"} <= set(ADAPTERS)
    # libraries whose plain install breaks torch 2.13 / transformers say how to install them instead
    assert "--no-deps litgpt" in ADAPTERS["litgpt-llama3"].info()["install"]
    assert "--no-deps mistral-inference" in ADAPTERS["mistral-inference"].info()["install"]
    assert "torchao==0.15.0" in ADAPTERS["torchtune"].info()["install"]
    with pytest.raises(UsageError):
        get_adapter("no-such-adapter")


def test_adapters_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["adapters", "--json", "-"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in rows} == set(ADAPTERS)
    assert all(set(r) >= {"library", "installed", "requires_cuda", "spec"} for r in rows)
    assert main(["adapters"]) == 0


#: adapters with a known finding in every dtype (the library's own), checked where the finding is named
STRUCTURAL_FINDINGS = {"mlx-lm-longrope": "test_runtime_adapters.py (SuScaledRoPE's long factors at every length)"}


def _runnable(name: str):
    adapter = ADAPTERS[name]
    if name in STRUCTURAL_FINDINGS:
        pytest.skip(f"a known finding in every dtype, checked by {STRUCTURAL_FINDINGS[name]}")
    if name == "liger-interpret":  # it sets TRITON_INTERPRET=1 for the rest of its process: judged in a child there
        pytest.skip("judged in the verifier's child process by test_liger_interpret.py")
    reason = adapter.unavailable_reason()
    if reason:
        pytest.skip(reason)
    return adapter.load()


@pytest.mark.parametrize("name", list(ADAPTERS))
def test_adapter_conforms_in_float32(name: str) -> None:
    fn, spec = _runnable(name)
    report = verify(fn, spec, dtypes=("float32",), device="cpu", name=name)
    assert report.conforms, [f.message for f in report.findings]


@pytest.mark.parametrize("name", list(ADAPTERS))
def test_adapter_low_precision_verdict(name: str) -> None:
    fn, spec = _runnable(name)
    report = verify(
        fn, spec, dtypes=ADAPTERS[name].judged_dtypes(["float32", "bfloat16", "float16"]), device="cpu", name=name
    )
    got = {(f.dtype, f.code) for f in report.findings}
    known = LOW_PRECISION_FINDINGS.get(name, set())
    if not known:
        assert got == set(), [f.message for f in report.findings]
    else:  # findings in the same low-precision dtypes, of the same kinds (exact codes may vary with the version)
        assert {d for d, _ in got} == {d for d, _ in known}, got
        assert {c for _, c in got} <= {"precision", "nonfinite", "state"}, got


def test_gpu_adapters_skip_cleanly_without_cuda() -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("CUDA is available here")
    for name in ("flash-attn", "vllm", "liger"):
        assert ADAPTERS[name].unavailable_reason()
        with pytest.raises(UsageError):
            ADAPTERS[name].load()


def test_cli_adapter_verify(capsys: pytest.CaptureFixture[str]) -> None:
    _runnable("hf-llama")
    assert main(["verify", "--adapter", "hf-llama", "--device", "cpu", "-q"]) == 0
    assert "CONFORMS" in capsys.readouterr().out
    assert main(["verify", "--adapter", "nope"]) == 2


def test_an_adapter_is_judged_only_in_its_dtypes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An adapter that declares fewer dtypes (liger-interpret: no bfloat16 under Triton's interpreter) is SKIP
    there with the reason, in `verify --adapter` (a note; exit 2 when the dtype is asked for by name) and in the
    adapters matrix."""
    import dataclasses

    from ropecheck.adapters import registry
    from ropecheck.verify import batch

    _runnable("hf-llama")
    only = dataclasses.replace(ADAPTERS["hf-llama"], name="hf-llama-f32", dtypes=("float32",), dtype_note="a test")
    monkeypatch.setitem(registry.ADAPTERS, only.name, only)
    monkeypatch.setattr(batch, "ADAPTERS", {only.name: only})
    assert main(["verify", "--adapter", only.name, "--dtype", "bfloat16"]) == 2
    assert "hf-llama-f32 is not judged in bfloat16: a test" in capsys.readouterr().err
    assert main(["verify", "--adapter", only.name, "--device", "cpu", "-q", "--no-backward"]) == 0
    out, err = capsys.readouterr()
    assert "CONFORMS" in out and "note: hf-llama-f32 is not judged in float16: a test" in err
    verdicts = batch.verify_adapters(dtypes=("float32", "bfloat16"), devices=["cpu"])
    assert verdicts[0].report is not None and verdicts[0].report.dtypes == ("float32",)
    index = batch.render_adapter_pages(verdicts, ("float32", "bfloat16"), invocation="test")["README.md"]
    assert "bfloat16: SKIP: hf-llama-f32 is not judged in bfloat16: a test" in index
    assert batch.verify_adapters(dtypes=("float16",), devices=["cpu"])[0].reason == only.dtype_skip_reason("float16")
