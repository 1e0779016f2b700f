"""A real JAX library's RoPE judged by its adapters: Penzai's ApplyRoPE and ApplyRoPEToSubset conform forward and
backward (jax.vjp) in float32/bfloat16, and one-line mutants of Penzai's own code get their torch twins' finding
codes. Skipped when jax or penzai is not installed (``pip install 'ropecheck[jax]'``)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("jax")
pytest.importorskip("penzai")

from loading import module_from_file

from ropecheck.adapters import get_adapter
from ropecheck.verify import verify

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DTYPES = ("float32", "bfloat16")


MUTANTS = module_from_file(FIXTURES / "jax" / "penzai_mutants.py").MUTANTS


@pytest.mark.parametrize("name", ["penzai", "penzai-gpt-neox"])
def test_penzai_conforms_forward_and_backward(name: str) -> None:
    fn, spec = get_adapter(name).load()
    report = verify(fn, spec, device="cpu", dtypes=DTYPES, name=name)
    assert report.conforms, [f.message for f in report.findings]
    passed = {(c.name, c.dtype) for c in report.checks if c.status == "pass"}
    assert {("backward", dt) for dt in DTYPES} <= passed, sorted(passed)
    assert {("precision", dt) for dt in DTYPES} | {("property:passthrough", "float32")} <= passed, sorted(passed)


@pytest.mark.parametrize("mutant", list(MUTANTS))
def test_penzai_mutants_get_the_torch_twins_codes(mutant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cls, method, replacement, adapter, twin = MUTANTS[mutant]
    expected = module_from_file(FIXTURES / "broken" / f"{twin}.py").EXPECTED
    monkeypatch.setattr(cls, method, replacement)
    fn, spec = get_adapter(adapter).load()
    report = verify(fn, spec, device="cpu", dtypes=("float32",), name=adapter)
    assert not report.conforms
    assert report.findings[0].code == expected, [f.label for f in report.findings]
