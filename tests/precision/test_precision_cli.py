"""``ropecheck precision``: help, usage errors, files written, deterministic plots."""

from __future__ import annotations

from pathlib import Path

import pytest

from ropecheck.cli.main import main


def _cuda() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def test_help_lists_policies(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["precision", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for name in (
        "fp64-angles",
        "fp32-angles",
        "input-dtype-angles",
        "bf16-inv-freq",
        "fp16-cache",
        "tf32-matmul-angles",
    ):
        assert name in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--policy", "fp8-angles"], "unknown policy"),
        (["--dtype", "fp8"], "dtype must be one of"),
        (["--dtype", "float64"], "reference itself"),
        (["--max-position", "0"], "--max-position"),
        (["--max-position", "-5"], "--max-position"),
        (["--max-position", "abc"], "invalid int value"),
        (["--policy", "fp32-angles", "--impl", "x:y"], "not allowed with argument"),
        pytest.param(
            ["--device", "cuda"],
            "CUDA is not available",
            marks=pytest.mark.skipif(_cuda(), reason="CUDA is available here"),
        ),
        (["--device", "tpu"], "--device"),
        (["--impl", "no_such_module_xyz:fn"], "no_such_module_xyz"),
    ],
    ids=[
        "policy",
        "dtype",
        "float64",
        "max-position",
        "negative-max-position",
        "max-position-not-int",
        "policy-and-impl",
        "cuda-without-cuda",
        "device",
        "impl",
    ],
)
def test_usage_errors_are_one_line_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    try:
        code = main(["precision", *argv, "--out", str(tmp_path)])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not any(tmp_path.iterdir())


@pytest.mark.slow
def test_writes_csv_json_svg_deterministically(tmp_path: Path) -> None:
    args = [
        "precision",
        "--policy",
        "fp32-angles",
        "--dtype",
        "bf16",
        "fp16",
        "--max-position",
        "3000",
        "--head-dim",
        "32",
        "--no-progress",
    ]
    assert main([*args, "--out", str(tmp_path / "a"), "--json", str(tmp_path / "a.json")]) == 0
    assert main([*args, "--out", str(tmp_path / "b")]) == 0
    files = sorted(p.name for p in (tmp_path / "a").iterdir() if not p.name.startswith("."))
    assert files == [
        "fp32-angles-d32-cpu-n3000-angle.svg",
        "fp32-angles-d32-cpu-n3000-output.svg",
        "fp32-angles-d32-cpu-n3000.csv",
        "fp32-angles-d32-cpu-n3000.json",
    ]
    for name in files:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    assert '"within_bound": true' in (tmp_path / "a.json").read_text()


def test_impl_target(tmp_path: Path) -> None:
    target = tmp_path / "myrope.py"
    target.write_text(
        "from ropecheck import RopeSpec\nfrom ropecheck.protocol import torch_reference\n"
        "rope = torch_reference(RopeSpec(head_dim=32))\n"
    )
    assert (
        main(
            [
                "precision",
                "--impl",
                f"{target}:rope",
                "--dtype",
                "bf16",
                "--max-position",
                "512",
                "--head-dim",
                "32",
                "--no-files",
                "--no-progress",
            ]
        )
        == 0
    )


def test_table_is_complete_in_a_pipe(capsys: pytest.CaptureFixture[str]) -> None:
    """Not a terminal (CI log, pipe): every figure printed in full, nothing cut with an ellipsis."""
    assert (
        main(
            [
                "precision",
                "--policy",
                "input-dtype-cache",
                "--dtype",
                "bf16",
                "--max-position",
                "200",
                "--head-dim",
                "128",
                "--no-files",
                "--no-progress",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "…" not in out and "relative" in out and "careful bound ┃" not in out and "bound ┃" in out
    assert "128–199" in out and out.count(" yes ") == 18


def test_json_is_strict_and_marks_careless_rows(tmp_path: Path) -> None:
    import json

    def no_constants(name: str) -> None:
        raise AssertionError(f"non-standard JSON constant {name}")

    assert (
        main(
            [
                "precision",
                "--policy",
                "fp16-cache",
                "--dtype",
                "fp16",
                "--max-position",
                "66000",
                "--head-dim",
                "32",
                "--no-files",
                "--no-progress",
                "--json",
                str(tmp_path / "s.json"),
            ]
        )
        == 0
    )
    data = json.loads((tmp_path / "s.json").read_text(), parse_constant=no_constants)
    last = [r for r in data["rows"] if r["source"] == "output"][-1]
    assert last["max"] == "inf" and last["within_bound"] is False and last["careful"] is False
    assert last["bound_policy"] == "input-dtype-cache"


def test_careful_policy_over_the_bound_exits_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import ropecheck.precision.sweep as S

    real = S.error_bound
    monkeypatch.setattr(S, "error_bound", lambda *a, **k: real(*a, **k) / 100)
    assert (
        main(
            [
                "precision",
                "--policy",
                "fp32-angles",
                "--dtype",
                "bf16",
                "--max-position",
                "300",
                "--head-dim",
                "32",
                "--no-files",
                "--no-progress",
            ]
        )
        == 1
    )
    assert "exceeds the error model" in capsys.readouterr().out


def test_impl_over_the_careful_bound_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A black box forming its angles in the input dtype (bf16) fails against the careful bound."""
    target = tmp_path / "bf16rope.py"
    target.write_text(
        "import torch\n"
        "def rope(x, positions):\n"
        "    d = x.shape[-1]\n"
        "    inv = (1.0 / 10000 ** (torch.arange(0, d, 2, dtype=torch.float64) / d)).to(x.dtype)\n"
        "    ang = positions.to(x.dtype)[..., None] * inv\n"
        "    c, s = torch.cat([ang.cos(), ang.cos()], -1)[:, :, None], torch.cat([ang.sin(), ang.sin()], "
        "-1)[:, :, None]\n"
        "    x1, x2 = x[..., : d // 2], x[..., d // 2 :]\n"
        "    return x * c + torch.cat([-x2, x1], -1) * s\n"
    )
    assert (
        main(
            [
                "precision",
                "--impl",
                f"{target}:rope",
                "--dtype",
                "bf16",
                "--max-position",
                "2048",
                "--head-dim",
                "32",
                "--no-files",
                "--no-progress",
            ]
        )
        == 1
    )
    assert "exceeds the error model" in capsys.readouterr().out


def test_json_to_stdout_is_alone(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert (
        main(
            [
                "precision",
                "--policy",
                "fp32-angles",
                "--dtype",
                "fp16",
                "--max-position",
                "100",
                "--head-dim",
                "32",
                "--no-files",
                "--no-progress",
                "--json",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert json.loads(captured.out)["target"] == "fp32-angles" and "positions" in captured.err


def test_cli_and_report_name_sweeps_alike_and_never_collide() -> None:
    """One writer for the folder: names carry the sweep's length; the CLI's default length is not the report's."""
    from ropecheck import RopeSpec
    from ropecheck.cli import build_parser
    from ropecheck.precision import run_sweep
    from ropecheck.precision.pages import sweep_files
    from ropecheck.report import engines

    sw = run_sweep(RopeSpec(head_dim=8), target="fp32-angles", dtypes=("float32",), max_position=64, progress=False)
    assert set(sweep_files(sw)) == {"fp32-angles-d8-cpu-n64.csv"}
    cli_default = build_parser().parse_args(["precision"]).max_position
    assert cli_default != engines.PRECISION_POSITIONS


@pytest.mark.gpu
def test_precision_on_cuda_writes_a_cuda_sweep(tmp_path: Path) -> None:
    import json

    out = tmp_path / "sweep.json"
    code = main(["precision", "--policy", "input-dtype-cache", "--device", "cuda", "--max-position", "4096",
                 "--no-files", "--no-progress", "--json", str(out)])  # fmt: skip
    data = json.loads(out.read_text())
    assert code == 0 and data["device"] == "cuda" and data["max_position"] == 4096
    assert all(r["within_bound"] for r in data["rows"] if r["careful"] and r["within_bound"] is not None)
