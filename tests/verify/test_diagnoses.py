"""Root causes and how they are told: causes, consequences, conventions, calling conventions, exceptions.

One root cause is one finding: what it breaks elsewhere is folded under it (``consequences``, in
the text, the JSON, the pages and each dtype's verdict); a sentence is never cut mid-word; a
target's exception shows its type, text and its own line; offset-only targets get per-row
positions through per-row calls; TorchScript targets are called as their schema says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from ropecheck import RopeSpec
from ropecheck.diagnosis import CAUSES
from ropecheck.protocol import as_implementation, describe_exception, detect_convention, torch_reference
from ropecheck.verify import FINDING_CODES, render_markdown, render_terminal, verify
from ropecheck.verify.batch import dtype_cell
from ropecheck.verify.model import CAUSE_FAMILIES, FAMILY_CODES
from ropecheck.verify.render import shorten

SPEC = RopeSpec(head_dim=32)
REF = torch_reference(SPEC)


def ignores_positions(x: Any, positions: Any) -> Any:
    s = x.shape[1]
    return REF(x, torch.arange(s)[None].expand(x.shape[0], s))


def test_every_cause_is_a_finding_code_that_refines_a_family() -> None:
    assert set(CAUSES) <= set(FINDING_CODES)
    assert all(CAUSE_FAMILIES[c] in FAMILY_CODES for c in CAUSES)


def test_one_root_cause_with_its_consequences_folded_under_it() -> None:
    report = verify(ignores_positions, SPEC, dtypes=("float32", "bfloat16"), device="cpu")
    assert [(f.code, f.cause) for f in report.findings] == [("positions", "positions_ignored")]
    folded = {(c["check"], c["dtype"]) for c in report.findings[0].consequences}
    assert ("property:consistency", "float32") in folded and ("precision", "bfloat16") in folded
    failed = {(c.name, c.dtype) for c in report.checks if c.status == "fail"}
    roots = {(f.check, f.dtype) for f in report.findings}
    assert failed == folded | roots  # every failed check is a root or a named consequence
    data = report.to_dict()
    assert data["findings"][0]["cause"] == "positions_ignored" and data["findings"][0]["consequences"]
    # no claim about the rows' positions for a target that ignores them
    rows = next(c for c in report.checks if c.name == "axes:rows")
    assert "by its own positions" not in rows.evidence
    # each dtype's verdict names the root cause, and the detail page says the same
    for dt in report.dtypes:
        v = report.dtype_verdict(dt)
        assert v["verdict"] == "FAIL" and v["codes"] == ["positions"]
        assert dtype_cell(report, dt).startswith("FAIL positions")
    page = render_markdown(report)
    assert "| bfloat16 | FAIL | positions/positions_ignored |" in page
    assert "(a consequence of finding 1 [positions/positions_ignored])" in page


def test_the_terminal_names_the_cause_and_folds_the_consequences() -> None:
    from rich.console import Console

    report = verify(ignores_positions, SPEC, dtypes=("float32",), device="cpu")
    console = Console(record=True, width=160)
    for item in render_terminal(report):
        console.print(item)
    text = console.export_text()
    assert "1. [positions/positions_ignored] the positions given are ignored" in text
    assert "also breaks" in text and "(a consequence of finding 1 [positions/positions_ignored])" in text
    assert "are not close!" not in text.split("Findings:")[1]


def test_shorten_never_cuts_a_word() -> None:
    text = "error vs fp64 reference within the error model's bound (worst 0.13 of the bound at position 511)"
    for width in range(10, len(text)):
        short = shorten(text, width)
        assert len(short) <= width and short.endswith(" ...")
        assert text.startswith(short[:-4]) and text[len(short) - 4] == " "
    assert shorten(text, len(text)) == text


def test_an_exception_is_shown_with_its_type_text_and_the_targets_own_line(tmp_path: Path) -> None:
    assert describe_exception(AssertionError()) == "AssertionError (no message)"
    target = tmp_path / "asserting.py"
    target.write_text("def rope(x, positions):\n    assert positions.max() < 3\n    return x\n")
    from ropecheck.target import load_target

    impl = as_implementation(load_target(f"{target}:rope"), name=f"{target}:rope")
    with pytest.raises(Exception) as info:
        impl.run(np.zeros((1, 4, 1, 8)), np.arange(4)[None], dtype="float32")
    text = str(info.value)
    assert "AssertionError (no message)" in text and "asserting.py:2 in rope: `assert positions.max() < 3`" in text


def test_a_torchscript_module_is_called_as_its_schema_says() -> None:
    class Offset(torch.nn.Module):
        def forward(self, x: torch.Tensor, offset: int) -> torch.Tensor:
            return x

    class Implicit(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x

    assert detect_convention(torch.jit.script(Offset())) == "offset"
    assert detect_convention(torch.jit.script(Implicit())) == "none"


def test_offset_only_targets_get_per_row_positions_through_per_row_calls() -> None:
    calls: list[int] = []

    def offset_rope(x: Any, offset: int) -> Any:
        calls.append(int(offset))
        b, s = x.shape[:2]
        return REF(x, (offset + torch.arange(s))[None].expand(b, s))

    report = verify(offset_rope, SPEC, dtypes=("float32",), device="cpu", max_position=8192)
    assert report.conforms
    status = {c.name: (c.status, c.evidence) for c in report.checks}
    for key in ("positions:left_padding", "positions:noncontiguous", "positions:decode", "axes:rows"):
        assert status[key][0] == "pass", key
    assert "per-row calls" in status["positions:left_padding"][1]
    assert "fn(x, offset)" in status["axes:rows"][1]

    def offset_from_first_call(x: Any, offset: int) -> Any:  # a bug only per-row positions show: offset ignored
        b, s = x.shape[:2]
        return REF(x, torch.arange(s)[None].expand(b, s))

    report = verify(offset_from_first_call, SPEC, dtypes=("float32",), device="cpu", max_position=8192)
    assert not report.conforms and report.findings[0].code == "positions"


def test_rotated_dims_at_the_end_are_recognised_without_a_spec_and_accepted_when_declared() -> None:
    spec = RopeSpec(head_dim=48, rotary_dim=16, rotary_dims="last", layout="interleaved")
    fn = torch_reference(spec)
    report = verify(fn, None, head_dim=48, dtypes=("float32",), device="cpu")
    first = report.findings[0]
    assert (first.code, first.cause) == ("rotary_dim", "rotary_dims_misplaced")
    assert "a consistent RoPE on the last 16 of 48 dims" in first.message and "--rotary-dims last" in first.message
    report = verify(fn, None, head_dim=48, dtypes=("float32",), device="cpu", conventions={"rotary_dims": "last"})
    assert report.conforms and report.spec.rotary_dims == "last" and report.spec.layout == "interleaved"
    # with a spec that says so, it conforms; the default spec names the dims and the flag
    assert verify(fn, spec, dtypes=("float32",), device="cpu").conforms
    first = verify(fn, spec.with_(rotary_dims="first"), dtypes=("float32",), device="cpu").findings[0]
    assert first.cause == "rotary_dims_misplaced" and "pass --rotary-dims last" in first.message


def test_a_rows_difference_from_the_calls_largest_position_is_length_dependence_not_mixing() -> None:
    def max_position_frequencies(x: Any, positions: Any) -> Any:  # a base that follows the call's largest position
        base = 10000.0 + float(positions.max())
        return torch_reference(RopeSpec(head_dim=32, base=base))(x, positions)

    report = verify(max_position_frequencies, SPEC, dtypes=("float32",), device="cpu", max_position=4096)
    rows = next(f for f in report.findings if f.check == "axes:rows")
    assert rows.code == "length_dependence" and "largest position in the call" in rows.message


def test_json_is_backward_compatible(tmp_path: Path) -> None:
    data = verify(ignores_positions, SPEC, dtypes=("float32",), device="cpu").to_dict()
    old = {"schema", "target", "conforms", "exit_code", "spec", "spec_description", "spec_source", "options"}
    old |= {"identification", "findings", "checks", "summary", "duration_s", "notes"}
    assert old <= set(data) and data["schema"] == "ropecheck.verify/1"
    assert {"code", "message", "hint", "check", "dtype", "category"} <= set(data["findings"][0])
    assert {"dtypes", "device", "max_position", "convention", "seed"} <= set(data["options"])
    json.dumps(data)
