"""`ropecheck bench verify --compile-only` writes the file's compiled part and keeps the main table, and a main run
keeps the compiled part (the timings are stubbed: this checks how the file is put together, never a speed)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from ropecheck.bench import verify as bench


def test_compiled_part_and_main_table_keep_each_other(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "verify.md"
    out.write_text("# Benchmark: one `ropecheck verify` verdict\n\nmain table\n")
    calls: list[list[str]] = []

    def fake_time(argv: list[str], repeats: int) -> tuple[list[float], int, float]:
        calls.append(argv)
        return [1.0] * repeats, 0, 0.5

    monkeypatch.setattr(bench, "_time", fake_time)
    monkeypatch.setattr(bench, "COMPILE_ONLY_CASES", [("adapter hf-llama", ["--adapter", "hf-llama"])])
    if bench.ADAPTERS["hf-llama"].unavailable_reason():
        pytest.skip("transformers is not installed")
    args = argparse.Namespace(out=str(out), repeats=1, compile=False, compile_only=True)
    assert bench.run(args) == 0
    text = out.read_text()
    assert text.startswith("# Benchmark") and "main table" in text
    assert "## Compiled verdicts" in text and "| adapter hf-llama [--compile --compile-backend aot_eager] |" in text
    assert [a[2:] for a in calls] == [[], ["--compile", "--compile-backend", "aot_eager", "--timeout", "0"], [
        "--compile", "--timeout", "0"]]  # fmt: skip
    main, compiled = bench._split(text)
    assert "main table" in main and compiled.startswith("## Compiled verdicts")
    # a second --compile-only run replaces its part instead of appending another
    assert bench.run(args) == 0
    assert out.read_text().count("## Compiled verdicts") == 1
