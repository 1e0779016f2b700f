"""Compiled targets: ``verify(..., compile=True)`` runs every check on ``torch.compile(target)`` and marks what only
the compiled target gets wrong. Kept few and small: the backend here is aot_eager (dynamo's capture without
inductor's C++ build, which takes minutes on a small machine); one slow test runs inductor."""

from __future__ import annotations

from pathlib import Path

import pytest

from ropecheck import RopeSpec
from ropecheck.hf import scaling_from_dict
from ropecheck.target import load_target
from ropecheck.verify import verify
from ropecheck.verify.compiled import choose_backend

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "compiled"
SPEC = RopeSpec(head_dim=64, max_position_embeddings=4096)


@pytest.mark.parametrize("name", ["cache_graph_constant", "length_specialised"])
def test_compile_only_bugs_are_caught_and_marked(name: str) -> None:
    path = FOLDER / f"{name}.py"  # compiled first: an eager call would grow the fixture's table for the graph
    report = verify(
        load_target(f"{path}:rope"), SPEC, device="cpu", dtypes=("float32",), compile=True, compile_backend="aot_eager"
    )
    assert not report.conforms and report.exit_code == 1
    assert report.compile is not None and report.compile["eager_conforms"] is True
    assert report.compile["fail_only_compiled"]
    assert all("[compiled only" in f.message for f in report.findings)
    assert any("verdicts differ" in n for n in report.notes)
    assert report.to_dict()["compile"]["eager_conforms"] is True


def test_a_correct_autograd_target_conforms_compiled_forward_and_backward() -> None:
    path = Path(__file__).resolve().parents[1] / "fixtures" / "backward" / "rope_function.py"
    spec = RopeSpec(
        head_dim=64,
        rotary_dim=32,
        max_position_embeddings=16384,
        scaling=scaling_from_dict({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}),
    )
    report = verify(
        load_target(f"{path}:rope"), spec, device="cpu", dtypes=("float32", "bfloat16"), compile=True,
        compile_backend="aot_eager",
    )  # fmt: skip
    assert report.conforms, [f.message for f in report.findings]
    assert {(c.name, c.dtype) for c in report.checks if c.category == "backward" and c.status == "pass"} >= {
        ("backward", "float32"),
        ("backward", "bfloat16"),
    }
    assert any("same verdict" in n for n in report.notes)


def test_the_backend_is_inductor_with_a_compiler_and_says_why() -> None:
    backend, why = choose_backend()
    assert backend in ("inductor", "aot_eager") and why
    assert choose_backend("aot_eager")[0] == "aot_eager"


@pytest.mark.slow
def test_inductor_catches_the_graph_constant_cache() -> None:
    if choose_backend()[0] != "inductor":
        pytest.skip("no C++ compiler: inductor cannot run on CPU here")
    path = FOLDER / "cache_graph_constant.py"
    report = verify(load_target(f"{path}:rope"), SPEC, device="cpu", dtypes=("float32",), compile=True, backward=False)
    assert not report.conforms and report.compile is not None and report.compile["eager_conforms"]


def test_the_report_rows_compare_compiled_with_eager(monkeypatch: pytest.MonkeyPatch) -> None:
    """The report's torch.compile rows: a correct adapter is PASS "same as eager"; a target whose graph is
    specialised to its first length (the broken input) is FAIL "only compiled" against an expected PASS."""
    from ropecheck.adapters import registry
    from ropecheck.report import engines

    pytest.importorskip("transformers")
    broken = registry.Adapter(
        "length-specialised",
        "torch",
        "torch",
        SPEC,
        lambda: load_target(f"{FOLDER / 'length_specialised.py'}:rope"),
    )
    monkeypatch.setitem(registry.ADAPTERS, broken.name, broken)
    monkeypatch.setattr(engines, "COMPILED_ADAPTERS", ("hf-llama", broken.name))
    monkeypatch.setattr(engines, "DEFAULT_DTYPES", ("float32",))
    rows, timings = engines._compiled_rows(lambda _: None)
    good, bad = rows
    assert good.name == "hf-llama (torch.compile, aot_eager) / float32" and good.verdict == good.expected == "PASS"
    assert "compiled: same as eager; backward: PASS" in good.evidence
    assert bad.verdict == "FAIL" and bad.expected == "PASS" and "compiled: FAIL only compiled" in bad.evidence
    assert set(timings) == {"verify --compile hf-llama", "verify --compile length-specialised"}
