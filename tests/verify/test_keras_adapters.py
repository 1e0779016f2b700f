"""keras-hub's Gemma RoPE on Keras 3's torch backend (ropecheck.adapters.keras_libs): its output layout as a
declared convention, and the earlier code's positions in the compute dtype caught once it is declared."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from ropecheck import verify
from ropecheck.adapters import get_adapter

# found, not imported: Keras picks its backend at import, and the adapter sets torch first
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("keras_hub") is None,
    reason="keras-hub is not installed (" + get_adapter("keras-hub-gemma").install + ")",
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "runtimes"
FAST = {"dtypes": ("float32", "bfloat16"), "backward": False, "device": "cpu"}


def _mutants():
    spec = importlib.util.spec_from_file_location("keras_mutants", FIXTURES / "keras_mutants.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["keras-hub-gemma", "keras-hub-gemma-positions"])
def test_gemma_conforms_with_its_output_layout_declared(name: str) -> None:
    fn, spec = get_adapter(name).load()
    assert spec.output_layout == "interleaved"
    report = verify(fn, spec, **FAST)
    assert report.conforms, [f.label for f in report.findings]


def test_gemma_undeclared_is_the_output_layout_finding() -> None:
    fn, spec = get_adapter("keras-hub-gemma").load()
    report = verify(fn, spec.with_(output_layout=None), dtypes=("float32",), backward=False, device="cpu")
    assert [f.label for f in report.findings] == ["layout/output_layout"]
    assert "--output-layout interleaved" in report.findings[0].hint


def test_positions_in_the_compute_dtype_fail_in_bfloat16_only() -> None:
    spec = get_adapter("keras-hub-gemma").spec
    report = verify(_mutants().gemma_positions_in_compute_dtype(), spec, **FAST)
    assert [(f.label, f.dtype) for f in report.findings] == [("precision/positions_low_precision", "bfloat16")]
