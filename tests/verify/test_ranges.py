"""The valid range: every call stays inside it, bounded tables conform, and a check that cannot run is a SKIP.

The range R comes from ``--max-position``, else the model's context (``max_position_embeddings``
or a scaling schedule's extended context), else ``--max-position-embeddings`` with no spec; no
call may use a position >= R or be longer than R tokens, for every calling convention, and in
identification mode too. A check that cannot run inside R is reported SKIP with its reason in
the text, the JSON and the JUnit output, and the verdict line counts it.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import torch

from ropecheck import DynamicNTK, RopeSpec
from ropecheck.cli.main import main
from ropecheck.protocol import torch_reference
from ropecheck.verify import render_junit, render_markdown, verdict_line, verify
from ropecheck.verify.ranges import valid_range


class Recorder:
    """A correct RoPE whose table holds ``rows`` positions (IndexError past it), recording every call."""

    def __init__(self, spec: RopeSpec, rows: int, convention: str) -> None:
        self.ref = torch_reference(spec)
        self.rows = rows
        self.max_position = -1
        self.max_length = 0
        self.rope_convention = convention

    def _note(self, x: Any, positions: Any) -> Any:
        self.max_position = max(self.max_position, int(positions.max()))
        self.max_length = max(self.max_length, int(x.shape[1]))
        if int(positions.max()) >= self.rows:
            raise IndexError(f"index {int(positions.max())} is out of bounds for dimension 0 with size {self.rows}")
        return self.ref(x, positions)

    def __call__(self, x: Any, *rest: Any) -> Any:
        b, s = x.shape[:2]
        if self.rope_convention == "positions":
            positions = rest[0]
        elif self.rope_convention == "offset":
            positions = (rest[0] + torch.arange(s))[None].expand(b, s)
        else:
            positions = torch.arange(s)[None].expand(b, s)
        return self._note(x, positions)


@pytest.mark.parametrize("convention", ["positions", "offset", "none"])
@pytest.mark.parametrize("how", ["max_position", "max_position_embeddings"])
def test_every_call_stays_inside_the_range_and_a_bounded_table_conforms(convention: str, how: str) -> None:
    rows = 2048
    spec = RopeSpec(head_dim=32, layout="interleaved")
    target = Recorder(spec, rows, convention)
    if how == "max_position":
        report = verify(target, spec, dtypes=("float32", "bfloat16"), device="cpu", max_position=rows)
    else:
        report = verify(target, spec.with_(max_position_embeddings=rows), dtypes=("float32", "bfloat16"), device="cpu")
    assert target.max_position == rows - 1 and target.max_length <= rows
    assert report.conforms, [(f.label, f.message) for f in report.findings]
    # the length consistency property ran inside the range: it is not silently gone
    assert any(c.name == "property:consistency" and c.status == "pass" for c in report.checks)
    assert report.to_dict()["options"]["valid_range"]["positions"] == [0, rows - 1]


def test_identification_mode_stays_inside_the_models_context(tmp_path: Path) -> None:
    target = Recorder(RopeSpec(head_dim=32), 2048, "positions")
    report = verify(target, None, head_dim=32, dtypes=("float32",), device="cpu", context=2048)
    assert target.max_position == 2047 and report.conforms
    assert "--max-position-embeddings 2048" in report.range_source


def test_a_table_shorter_than_the_range_is_named_with_its_end_and_the_targets_exception() -> None:
    spec = RopeSpec(head_dim=32, max_position_embeddings=8192)
    target = Recorder(spec, 3000, "positions")
    report = verify(target, spec, dtypes=("float32",), device="cpu")
    first = report.findings[0]
    assert (first.code, first.cause) == ("raised", "table_too_short")
    assert "raises for positions 3000 and above" in first.message and "IndexError: index 3000" in first.message
    assert "--max-position 3000" in first.hint
    assert len(report.findings) == 1  # the rest is checked inside 0..2999 and conforms


def test_the_range_sources() -> None:
    assert valid_range(RopeSpec(head_dim=8), 100, default=131072) == (100, "--max-position 100")
    assert valid_range(RopeSpec(head_dim=8, max_position_embeddings=4096), default=131072)[0] == 4096
    dyn = RopeSpec(head_dim=8, max_position_embeddings=2048, scaling=DynamicNTK(2.0, 2048))
    assert valid_range(dyn, default=131072) == (4096, "the scaled context, factor 2 x 2048")
    assert valid_range(None, None, 1024, default=131072)[0] == 1024
    assert valid_range(None, default=131072)[0] == 131072


def _skipping_report() -> Any:
    """fn(x) has no positions to give rows and decode; a range below L0 leaves nothing past it to call."""
    spec = RopeSpec(head_dim=32, max_position_embeddings=4096, scaling=DynamicNTK(2.0, 4096))
    ref = torch_reference(spec)

    def implicit(x: Any) -> Any:
        s = x.shape[1]
        return ref(x, torch.arange(s)[None].expand(x.shape[0], s))

    return verify(implicit, spec, dtypes=("float32",), device="cpu", max_position=1024)


def test_skipped_checks_are_reported_with_their_reason_in_every_output(tmp_path: Path) -> None:
    report = _skipping_report()
    skipped = {c.name: c.evidence for c in report.checks if c.status == "skip"}
    assert {"positions:left_padding", "positions:decode", "past_original"} <= set(skipped)
    assert "fn(x) target takes no positions" in skipped["positions:decode"]
    assert "original_max_position_embeddings (4096)" in skipped["past_original"]
    assert "valid range ends at 1023" in skipped["past_original"]
    n = len(skipped)
    assert report.conforms and f"{n} checks skipped" in verdict_line(report)
    # JSON: status skip, the reason as evidence, and the list of skipped checks with reasons
    data = report.to_dict()
    assert data["summary"]["skip"] == n
    assert {s["check"] for s in data["skipped"]} == set(skipped) and all(s["reason"] for s in data["skipped"])
    # JUnit: <skipped message=reason>
    suite = ET.fromstring(render_junit(report)).find("testsuite")
    assert suite is not None and int(suite.get("skipped", "0")) == n
    reasons = {
        case.get("name", "").split("[")[0]: case.find("skipped").get("message")  # type: ignore[union-attr]
        for case in suite.findall("testcase")
        if case.find("skipped") is not None
    }
    assert reasons == skipped
    # Markdown: the SKIP row with its reason
    assert "| past_original | float32 | SKIP | calls reaching original_max_position_embeddings" in render_markdown(
        report
    )


def test_skipped_checks_in_the_terminal_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "implicit.py"
    target.write_text(
        "import torch\n"
        "from ropecheck import RopeSpec\n"
        "from ropecheck.protocol import torch_reference\n"
        "REF = torch_reference(RopeSpec(head_dim=32))\n"
        "def rope(x):\n"
        "    s = x.shape[1]\n"
        "    return REF(x, torch.arange(s)[None].expand(x.shape[0], s))\n"
    )
    out_json, out_xml = tmp_path / "v.json", tmp_path / "v.xml"
    argv = ["verify", f"{target}:rope", "--head-dim", "32", "--max-position", "1024", "--dtype", "float32"]
    assert main([*argv, "--json", str(out_json), "--junit", str(out_xml)]) == 0
    text = capsys.readouterr().out
    assert "SKIP" in text and "skipped: KV-cache decode" in text and "3 checks skipped" in text
    data = json.loads(out_json.read_text())
    assert [c["status"] for c in data["checks"] if c["name"] == "positions:decode"] == ["skip"]
    assert "<skipped message=" in out_xml.read_text()


def test_the_command_line_identifies_inside_max_position_embeddings(tmp_path: Path) -> None:
    target = tmp_path / "table.py"
    target.write_text(
        "import torch\n"
        "from ropecheck import RopeSpec\n"
        "from ropecheck.protocol import torch_reference\n"
        "REF = torch_reference(RopeSpec(head_dim=32))\n"
        "def rope(x, positions):\n"
        "    assert int(positions.max()) < 2048, 'past the table'\n"
        "    return REF(x, positions)\n"
    )
    out = tmp_path / "v.json"
    argv = ["verify", f"{target}:rope", "--layout", "auto", "--head-dim", "32", "--max-position-embeddings", "2048"]
    assert main([*argv, "--dtype", "float32", "-q", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["spec_source"] == "identified" and data["options"]["max_position"] == 2048
    assert max(data["identification"]["probe_positions"]) == 2047
