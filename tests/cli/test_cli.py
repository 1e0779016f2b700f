"""The command line: spec tables from flags and configs, JSON, and one-line usage errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures import CONFIGS
from ropecheck.cli.main import build_parser, main


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ropecheck", *args], capture_output=True, text=True, timeout=120)


def test_every_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert "spec" in commands and "report" in commands
    for name in commands:
        with pytest.raises(SystemExit) as info:
            main([name, "--help"])
        assert info.value.code == 0
        assert "usage: ropecheck " + name in capsys.readouterr().out


@pytest.mark.parametrize("name", sorted(p.name for p in CONFIGS.glob("*.json")))
def test_spec_from_real_style_configs(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spec", "--hf-config", str(CONFIGS / name), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["pairs"]) == data["spec"]["rotary_dim"] // 2
    assert all(row["wavelength"] > 0 for row in data["pairs"])


def test_spec_table_llama31(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spec", "--hf-config", str(CONFIGS / "llama-3.1-8b.json")]) == 0
    out = capsys.readouterr().out
    assert "llama3" in out and "base=500000" in out and "attention factor: 1" in out
    assert "(63, 127)" in out  # the last half-split pair


def test_spec_from_flags_with_scaling(capsys: pytest.CaptureFixture[str]) -> None:
    scaling = '{"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 4096}'
    assert main(["spec", "--head-dim", "64", "--layout", "interleaved", "--rope-scaling", scaling, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["spec"]["layout"] == "interleaved" and data["pairs"][1]["pair"] == [2, 3]
    assert abs(data["spec"]["attention_factor"] - 1.1386294361) < 1e-9


def test_spec_json_to_file(tmp_path: Path) -> None:
    target = tmp_path / "spec.json"
    assert main(["spec", "--head-dim", "8", "--json", str(target)]) == 0
    assert json.loads(target.read_text())["spec"]["head_dim"] == 8


def test_module_entry_point() -> None:
    res = run_cli("spec", "--head-dim", "4")
    assert res.returncode == 0 and "1.0000000000e+00" in res.stdout


USAGE_ERRORS = [
    (["spec"], "give --head-dim"),
    (["spec", "--head-dim", "7"], "head_dim: must be even"),
    (["spec", "--head-dim", "8", "--rotary-dim", "16"], "rotary_dim: must be <= head_dim"),
    (["spec", "--head-dim", "8", "--base", "-5"], "base: must be positive"),
    (["spec", "--head-dim", "8", "--rope-scaling", "{oops"], "not valid JSON"),
    (["spec", "--head-dim", "8", "--rope-scaling", '{"rope_type": "warp"}'], "unknown rope type 'warp'"),
    (["spec", "--head-dim", "8", "--rope-scaling", '{"rope_type": "llama3", "factor": 8}'], "low_freq_factor"),
    (["spec", "--hf-config", "/nonexistent/config.json"], "config file not found"),
    (["spec", "--head-dim", "eight"], "invalid int value"),
    (["spec", "--layout", "diagonal", "--head-dim", "8"], "invalid choice"),
    (["spec", "--head-dim", "8", "--seq-len", "0"], "--seq-len must be >= 1"),
    (["no-such-command"], "invalid choice"),
    (["report", "--only", ","], "--only needs at least one section"),
    (["report", "--only", "proofs,nope"], "unknown section(s) nope"),
    (["claim"], "give the claim"),
]


@pytest.mark.parametrize("argv, message", USAGE_ERRORS, ids=[" ".join(a)[:40] for a, _ in USAGE_ERRORS])
def test_usage_errors_are_one_line_exit_2(argv: list[str], message: str) -> None:
    res = run_cli(*argv)
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], res.stderr
    assert "Traceback" not in res.stderr


def test_a_closed_pipe_ends_quietly(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``ropecheck ... | head``: a reader that leaves early ends the command quietly, no exception."""
    from ropecheck.cli import spec as spec_command

    def closed_pipe(args: object) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    with open(tmp_path / "stdout", "w") as stdout:  # the handler points this file's fd at devnull
        monkeypatch.setattr(sys, "stdout", stdout)
        monkeypatch.setattr(spec_command, "run", closed_pipe)
        assert main(["spec", "--head-dim", "8"]) == 141  # 128 + SIGPIPE, as a shell's writers end: never 1


def test_claim_json_takes_the_claim_after_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    """``--json`` has an optional PATH: a claim right after it is the claim, and the JSON goes to stdout."""
    assert main(["claim", "--json", "cos(a)**2 + sin(a)**2 == 1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "PROVED" and data["claim"] == "cos(a)**2 + sin(a)**2 == 1"
