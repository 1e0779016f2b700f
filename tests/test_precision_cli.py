"""``ropecheck precision``: help, usage errors, files written, deterministic plots."""

from __future__ import annotations

from pathlib import Path

import pytest

from ropecheck._cli import main


def test_help_lists_policies(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["precision", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for name in ("fp64-angles", "fp32-angles", "input-dtype-angles", "bf16-inv-freq", "fp16-cache", "tf32-matmul-angles"):
        assert name in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--policy", "fp8-angles"], "unknown policy"),
        (["--dtype", "fp8"], "dtype must be one of"),
        (["--dtype", "float64"], "reference itself"),
        (["--max-position", "0"], "--max-position"),
        (["--device", "tpu"], "--device"),
        (["--impl", "no_such_module_xyz:fn"], "no_such_module_xyz"),
    ],
    ids=["policy", "dtype", "float64", "max-position", "device", "impl"],
)
def test_usage_errors_are_one_line_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["precision", *argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_writes_csv_json_svg_deterministically(tmp_path: Path) -> None:
    args = ["precision", "--policy", "fp32-angles", "--dtype", "bf16", "fp16", "--max-position", "3000", "--head-dim", "32",
            "--no-progress"]
    assert main([*args, "--out", str(tmp_path / "a"), "--json", str(tmp_path / "a.json")]) == 0
    assert main([*args, "--out", str(tmp_path / "b")]) == 0
    files = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert files == ["fp32-angles-d32-cpu-angle.svg", "fp32-angles-d32-cpu-output.svg", "fp32-angles-d32-cpu.csv", "fp32-angles-d32-cpu.json"]
    for name in files:
        if name.endswith((".svg", ".csv")):
            assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    assert '"within_bound": true' in (tmp_path / "a.json").read_text()


def test_impl_target(tmp_path: Path) -> None:
    target = tmp_path / "myrope.py"
    target.write_text(
        "from ropecheck import RopeSpec\nfrom ropecheck._protocol import torch_reference\n"
        "rope = torch_reference(RopeSpec(head_dim=32))\n"
    )
    assert main(["precision", "--impl", f"{target}:rope", "--dtype", "bf16", "--max-position", "512", "--head-dim", "32",
                 "--no-files", "--no-progress"]) == 0
