"""The command line: spec tables from flags and configs, JSON, and one-line usage errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures import BAD_CONFIGS, CONFIGS
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


def test_spec_states_each_convention_once(capsys: pytest.CaptureFixture[str]) -> None:
    flags = ["--direction", "-1", "--rotary-dim", "32", "--rotary-dims", "last"]
    assert main(["spec", "--head-dim", "64", *flags]) == 0
    out = capsys.readouterr().out
    assert out.count("-m*theta_i") == 1 and "direction: -1" in out, out
    assert out.count("(32-63)") == 1, out
    assert main(["spec", "--head-dim", "64", *flags, "--json"]) == 0  # the JSON's description keeps them
    assert "direction=-1" in json.loads(capsys.readouterr().out)["description"]


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
    (["spec", "--head-dim", "8", "--seq-len", "0"], "--seq-len must be in 1..4294967296 (2^32), got 0"),
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


# (argv, the one line): sizes past their documented bound, strict configs, --config-key -- exit 2, before any work
LIMIT_ERRORS = [
    (["spec", "--head-dim", "100000000"], "--head-dim must be in 1..65536 (the largest head_dim a spec accepts)"),
    (["spec", "--head-dim", "8", "--rotary-dim", "1000000"], "--rotary-dim must be in 1..65536"),
    (["spec", "--head-dim", "8", "--max-position-embeddings", "10000000000"], "--max-position-embeddings must be in"),
    (["spec", "--head-dim", "8", "--seq-len", "10000000000"], "--seq-len must be in 1..4294967296 (2^32)"),
    (["prove", "--d", "100000000"], "--d must be an even integer in 2..8192, got 100000000"),
    (["prove", "--d", "8194"], "--d must be an even integer in 2..8192"),
    (["precision", "--max-position", "1000000000"], "--max-position must be in 1..16777216 (2^24)"),
    (
        [
            "spec",
            "--head-dim",
            "8",
            "--rope-scaling",
            '{"rope_type": "yarn", "factor": 4, "beta_fast": 0, "original_max_position_embeddings": 4096}',
        ],
        "--rope-scaling.beta_fast: must be positive, got 0",
    ),  # fmt: skip
    (["spec", "--head-dim", "8", "--config-key", "text_config"], "--config-key selects a sub-config of --hf-config"),
    (
        ["spec", "--hf-config", str(CONFIGS / "llava-text-config.json"), "--config-key", "audio"],
        "config key 'audio' (--config-key) names no sub-config",
    ),
    (["spec", "--hf-config", str(BAD_CONFIGS / "yarn_missing_factor.json")], "rope_scaling.factor: required"),
    (["spec", "--hf-config", str(BAD_CONFIGS / "yarn_truncate_string.json")], "rope_scaling.truncate: must be true"),
    (["spec", "--hf-config", str(BAD_CONFIGS / "base_subnormal.json")], "rope_theta: gives inverse frequency"),
    (["spec", "--hf-config", str(BAD_CONFIGS / "not_utf8.json")], "is not UTF-8 text"),
    (["spec", "--hf-config", str(BAD_CONFIGS / "nested_too_deep.json")], "too deeply"),
    (["spec", "--hf-config", str(BAD_CONFIGS / "int_5000_digits.json")], "holds a number too long to read"),
    (["spec", "--hf-config", str(BAD_CONFIGS / "nan_rope_theta.json")], "NaN at line 2 column 16 is not valid JSON"),
    (["spec", "--hf-config", str(BAD_CONFIGS / "rope_theta_401_digits.json")], "rope_theta: must be a finite number"),
    (["spec", "--hf-config", str(BAD_CONFIGS / "max_position_float.json")], "max_position_embeddings: must be an"),
]


@pytest.mark.parametrize("argv, message", LIMIT_ERRORS, ids=[" ".join(a)[-50:] for a, _ in LIMIT_ERRORS])
def test_limits_and_strict_configs_are_one_line_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert out == "" and len(lines) == 1 and message in lines[0], err
    assert lines[0].startswith(f"ropecheck {argv[0]}: error: ")


def test_spec_says_which_sub_config_was_read(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(CONFIGS / "llava-text-config.json")
    assert main(["spec", "--hf-config", path]) == 0
    out = capsys.readouterr().out
    assert f"source: text_config of {path}" in out and "head_dim=128" in out and "base=500000" in out
    assert main(["spec", "--hf-config", path, "--config-key", ".", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["source"] == f"the top level of {path}" and data["spec"]["head_dim"] == 64
    assert main(["spec", "--head-dim", "8", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["source"] is None
