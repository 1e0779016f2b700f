"""verify(): no false positives, conventions, interface findings, identification without a spec,
rendering (terminal, JSON schema, JUnit, Markdown) and the CLI's exit codes."""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import torch

from fixtures import BROKEN
from ropecheck import RopeSpec, YaRN
from ropecheck.cli.main import main
from ropecheck.errors import UsageError
from ropecheck.protocol import reference_impl, torch_reference
from ropecheck.verify import FINDING_CODES, render_junit, render_markdown, render_terminal, verdict_line, verify

SPEC = RopeSpec(head_dim=32)


@pytest.mark.parametrize(
    "spec",
    [
        SPEC,
        RopeSpec(head_dim=32, rotary_dim=16, layout="interleaved", base=500000.0),
        RopeSpec(head_dim=32, scaling=YaRN(4.0, 4096)),
    ],
    ids=["half", "partial-inter", "yarn"],
)
def test_reference_conforms_with_default_options(spec: RopeSpec) -> None:
    report = verify(torch_reference(spec), spec, device="cpu")
    assert report.conforms, [f.message for f in report.findings]
    assert report.exit_code == 0 and not report.findings
    cats = {c.category for c in report.checks}
    assert cats == {"interface", "identification", "behaviour", "precision", "backward"}
    assert {c.dtype for c in report.checks if c.name == "backward" and c.status == "pass"} == set(report.dtypes)
    assert {c.dtype for c in report.checks if c.category == "precision"} == {"float32", "bfloat16", "float16"}


def test_numpy_reference_conforms() -> None:
    report = verify(reference_impl(SPEC), SPEC, dtypes=("float32", "float16"), device="cpu", max_position=8192)
    assert report.conforms, [f.message for f in report.findings]


def test_offset_and_implicit_conventions() -> None:
    ref = torch_reference(SPEC)

    def with_offset(x, offset):
        return ref(x, (torch.arange(x.shape[1]) + offset)[None].expand(x.shape[0], -1))

    def implicit(x):
        return ref(x, torch.arange(x.shape[1])[None].expand(x.shape[0], -1))

    r1 = verify(with_offset, SPEC, dtypes=("float32",), device="cpu")
    assert r1.convention == "offset" and r1.conforms
    r2 = verify(implicit, SPEC, dtypes=("float32",), device="cpu", max_position=4096)
    assert r2.convention == "none" and r2.conforms, [f.message for f in r2.findings]
    r3 = verify(lambda x, p: ref(x, p), SPEC, dtypes=("float32",), device="cpu", positions_mode="tensor")
    assert r3.convention == "positions" and r3.conforms


def _codes(fn, **kw) -> list[str]:
    return [f.code for f in verify(fn, SPEC, device="cpu", dtypes=("float32",), **kw).findings]


def test_interface_findings() -> None:
    ref = torch_reference(SPEC)
    assert "shape" in _codes(lambda x, p: ref(x, p)[:, :1])
    assert "not_tensor" in _codes(lambda x, p: ref(x, p).tolist())
    assert "raised" in _codes(lambda x, p: 1 / 0)
    assert "device" in _codes(lambda x, p: ref(x, p).to("meta"))

    def inplace(x, p):
        x.copy_(ref(x, p))
        return x

    assert "mutation" in _codes(inplace)
    assert verify(inplace, SPEC, device="cpu", dtypes=("float32",), allow_inplace=True).conforms


def test_axes_findings() -> None:
    ref = torch_reference(SPEC)

    def heads_as_seq(x, p):  # x read as (batch, heads, seq, dim)
        b, s, h, d = x.shape
        return ref(x.reshape(b, h, s, d).transpose(1, 2), p).transpose(1, 2).reshape(b, s, h, d)

    def first_row(x, p):
        return ref(x, p[:1].expand_as(p))

    def rows_rolled(x, p):  # each row rotated at the next row's positions
        return ref(x, p.roll(1, 0))

    report = verify(heads_as_seq, SPEC, device="cpu", dtypes=("float32",))
    assert report.findings[0].code == "batch_head_mixing" and "heads are mixed" in report.findings[0].message
    assert any(c.name == "identification" and c.status == "skip" for c in report.checks)
    report = verify(first_row, SPEC, device="cpu", dtypes=("float32",))
    assert report.findings[0].code == "positions" and "first batch row" in report.findings[0].message
    report = verify(rows_rolled, SPEC, device="cpu", dtypes=("float32",))
    assert report.findings[0].code == "batch_head_mixing" and report.findings[0].check == "axes:rows"
    assert "batch rows are mixed" in report.findings[0].message


def test_without_a_spec_the_finding_names_what_is_inconsistent() -> None:
    ref = torch_reference(SPEC)
    report = verify(lambda x, p: ref(x, -p), None, head_dim=32, dtypes=("float32",), device="cpu")
    assert [f.code for f in report.findings] == ["direction"]
    assert "a consistent RoPE rotating by -theta" in report.findings[0].message
    assert "--direction=-1" in report.findings[0].message
    # declared, the convention is accepted
    report = verify(
        lambda x, p: ref(x, -p), None, head_dim=32, dtypes=("float32",), device="cpu", conventions={"direction": -1}
    )
    assert report.conforms and report.spec.direction == -1


def test_relative_position_finding_where_identification_cannot_see() -> None:
    from ropecheck.verify.identify import probe_positions

    ref = torch_reference(SPEC)
    probed = torch.tensor(probe_positions(131071))

    def sometimes_shifted(x, p):  # right at every probed position, off by one at other multiples of 3
        bad = (p > 8) & (p % 3 == 0) & ~torch.isin(p, probed)
        return ref(x, p + bad.long())

    report = verify(sometimes_shifted, SPEC, device="cpu", dtypes=("float32",))
    codes = [f.code for f in report.findings]
    assert codes == ["positions"] and "identification" not in {f.category for f in report.findings}
    # the properties it breaks are folded under that one root cause
    folded = {c["check"] for c in report.findings[0].consequences}
    assert "property:relative_position" in folded and "precision" in folded


def test_a_relative_position_finding_stands_alone_when_only_the_property_sees_it() -> None:
    from ropecheck.properties import draw_sample
    from ropecheck.verify.identify import probe_positions

    ref = torch_reference(SPEC)
    keys = set(draw_sample(SPEC, 0, max_position=4095).positions_b.ravel().tolist())
    only_there = torch.tensor(sorted(keys - set(probe_positions(131071)) - {0}))

    def shifted_at_a_few_positions(x, p):  # right everywhere but at the property's own key positions
        return ref(x, p + torch.isin(p, only_there).long())

    report = verify(shifted_at_a_few_positions, SPEC, device="cpu", dtypes=("float32",))
    first = report.findings[0]
    assert first.code == "relative_position" and first.check == "property:relative_position"
    assert "attention scores depend on absolute positions" in first.message and "are not close" not in first.message


def test_identifies_without_a_spec() -> None:
    spec = RopeSpec(head_dim=32, rotary_dim=16, layout="interleaved", base=500000.0)
    report = verify(torch_reference(spec), None, head_dim=32, dtypes=("float32",), device="cpu")
    assert report.conforms and report.spec_source == "identified"
    assert report.spec.layout == "interleaved" and report.spec.rotary_dim == 16 and report.spec.base == 500000.0
    assert "interleaved RoPE, rotary_dim 16, base 500000" in report.identification.describe()


def test_identifies_a_scaled_schedule_without_a_spec() -> None:
    from ropecheck import Llama3

    spec = RopeSpec(head_dim=64, base=500000.0, scaling=Llama3(8.0, 1.0, 4.0, 8192))
    report = verify(torch_reference(spec), None, head_dim=64, dtypes=("float32",), device="cpu")
    assert report.conforms, [f.message for f in report.findings]
    assert "non-geometric" in report.identification.describe() and any("own identified" in n for n in report.notes)
    ref = torch_reference(spec)
    reversed_rope = verify(lambda x, p: ref(x, -p), None, head_dim=64, dtypes=("float32",), device="cpu")
    assert not reversed_rope.conforms


def test_usage_errors() -> None:
    with pytest.raises(UsageError):
        verify(torch_reference(SPEC), None)
    with pytest.raises(UsageError):
        verify(torch_reference(SPEC), SPEC, dtypes=("int8",))
    with pytest.raises(UsageError):
        verify(torch_reference(SPEC), SPEC, positions_mode="sometimes")


def test_timeout_stops_a_hanging_target() -> None:
    import time

    def hangs(x, p):
        while True:
            time.sleep(0.01)

    t0 = time.perf_counter()
    report = verify(hangs, SPEC, device="cpu", dtypes=("float32",), timeout=0.5)
    assert time.perf_counter() - t0 < 5
    assert [f.code for f in report.findings] == ["timeout"]


def test_renderings_and_json_schema() -> None:
    broken = verify(lambda x, p: torch_reference(SPEC)(x, p + 1), SPEC, device="cpu", dtypes=("float32",))
    data = json.loads(json.dumps(broken.to_dict()))
    assert data["schema"] == "ropecheck.verify/1" and data["conforms"] is False and data["exit_code"] == 1
    assert set(data) >= {"target", "spec", "identification", "findings", "checks", "summary", "options", "duration_s"}
    assert data["findings"][0]["code"] in FINDING_CODES and data["findings"][0]["hint"]
    assert set(data["checks"][0]) == {
        "name",
        "category",
        "dtype",
        "status",
        "evidence",
        "hint",
        "code",
        "details",
        "cause",
    }
    xml = ET.fromstring(render_junit(broken))
    suite = xml.find("testsuite")
    assert int(suite.get("failures")) >= 1 and len(suite.findall("testcase")) == int(suite.get("tests"))
    md = render_markdown(broken)
    assert "DOES NOT CONFORM" in md and "positions are off by +1" in md
    assert "DOES NOT CONFORM" in verdict_line(broken)
    from rich.console import Console

    console = Console(width=200, record=True)
    for item in render_terminal(broken):
        console.print(item)
    text = console.export_text()
    assert "FAIL" in text and "fix:" in text and "Findings:" in text


GOOD = """
import torch
from ropecheck import RopeSpec
from ropecheck.properties import torch_reference
rope = torch_reference(RopeSpec(head_dim=16))
def off_by_one(x, positions):
    return rope(x, positions + 1)
NOT_CALLABLE = 3
"""


@pytest.fixture
def target_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_rope.py"
    path.write_text(textwrap.dedent(GOOD))
    return path


def test_cli_exit_codes(target_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    common = ["--head-dim", "16", "--device", "cpu", "--dtype", "float32"]
    assert main(["verify", f"{target_file}:rope", *common, "-q"]) == 0
    out_json, out_xml = tmp_path / "v.json", tmp_path / "v.xml"
    assert main(["verify", f"{target_file}:off_by_one", *common, "--json", str(out_json), "--junit", str(out_xml)]) == 1
    assert json.loads(out_json.read_text())["findings"][0]["code"] == "positions"
    assert ET.parse(out_xml).getroot().tag == "testsuites"
    capsys.readouterr()
    for bad in (
        [f"{target_file}:missing"],
        [f"{target_file}:NOT_CALLABLE"],
        ["no_such_module_xyz:rope"],
        [f"{tmp_path}/nope.py:rope"],
        ["just_a_name"],
        [f"{target_file}:rope", "--dtype", "int3"],
        [f"{target_file}:rope", "--max-position", "2"],
    ):
        assert main(["verify", *bad, *common[:2]]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
    assert (
        main(
            [
                "verify",
                f"{target_file}:rope",
                "--layout",
                "auto",
                "--head-dim",
                "16",
                "--device",
                "cpu",
                "--dtype",
                "float32",
                "--json",
                "-",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["spec_source"] == "identified" and data["identification"]["layout"] == "half"


def test_cli_bad_flag_is_usage_error() -> None:
    with pytest.raises(SystemExit) as exc:
        main(["verify", "x:y", "--layout", "diagonal"])
    assert exc.value.code == 2


def test_cli_corpus_end_to_end(capsys: pytest.CaptureFixture[str]) -> None:
    corpus = BROKEN
    code = main(
        ["verify", f"{corpus}/sign_reversed.py:rope", "--head-dim", "64", "--device", "cpu", "--dtype", "float32"]
    )
    out = capsys.readouterr().out
    assert code == 1 and "[direction]" in out and "DOES NOT CONFORM" in out
