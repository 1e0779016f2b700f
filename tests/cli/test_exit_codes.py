"""Every row of the exit-code table, shown by a command that produces it; and bad output paths.

0 conforms/proved, 1 the target or claim is wrong, 2 the user's mistake (before any work),
3 undecided, 70 a bug in ropecheck (never 1), 130 Ctrl-C, 141 the reader closed stdout.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures import BROKEN
from ropecheck.cli import main
from ropecheck.cli import spec as spec_command
from ropecheck.errors import ExitCode


def test_the_table_is_what_the_enum_says() -> None:
    assert [int(c) for c in ExitCode] == [0, 1, 2, 3, 70, 130, 141]


@pytest.mark.parametrize(
    "argv, code",
    [
        (["claim", "cos(a)**2 + sin(a)**2 == 1"], ExitCode.OK),
        (["claim", "cos(a + b) == cos(a) + cos(b)"], ExitCode.FAIL),
        (["claim", "f(x) == f(x + 1)"], ExitCode.UNDECIDED),
        (["spec", "--head-dim", "7"], ExitCode.USAGE),
        (["verify", f"{BROKEN / 'sign_reversed.py'}:rope", "--head-dim", "64", "--dtype", "float32"], ExitCode.FAIL),
    ],
    ids=["proved", "refuted", "undecided", "usage", "does-not-conform"],
)
def test_each_outcome_has_its_code(argv: list[str], code: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == code


def test_a_bug_in_ropecheck_is_70_with_a_plea_to_report(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(args: object) -> int:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(spec_command, "run", broken)
    assert main(["spec", "--head-dim", "8"]) == ExitCode.INTERNAL
    err = capsys.readouterr().err
    assert "internal error in ropecheck, please report it" in err and "ZeroDivisionError: a bug" in err


def test_ctrl_c_is_130(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(spec_command, "run", interrupted)
    assert main(["spec", "--head-dim", "8"]) == ExitCode.INTERRUPTED


def test_no_command_is_a_usage_error_on_stderr() -> None:
    proc = subprocess.run([sys.executable, "-m", "ropecheck"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "give a command" in proc.stderr and "usage:" in proc.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["verify", "t.py:rope", "--head-dim", "8", "--seed", "-1"],
        ["verify", "t.py:rope", "--head-dim", "8", "--max-position", str(10**29)],
        ["verify", "t.py:rope", "--head-dim", "8", "--timeout", "nan"],
        ["verify", "t.py:rope", "--head-dim", "8", "--timeout", "inf"],
        ["verify", "t.py:rope", "--head-dim", "8", "--memory-limit", "lots"],
        ["precision", "--head-dim", "8", "--timeout", "nan"],
    ],
    ids=["seed", "max-position", "timeout-nan", "timeout-inf", "memory-limit", "precision-timeout"],
)
def test_bad_options_are_usage_errors_not_findings(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """Options ropecheck cannot use are the user's mistake (2), never the target's failure (1)."""
    assert main(argv) == ExitCode.USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and argv[-2] in err[0]


def _file_under_a_file(tmp: Path) -> str:
    (tmp / "plain").write_text("x")
    return str(tmp / "plain" / "out.json")


BAD_PATHS = {
    "under-a-file": _file_under_a_file,
    "a-folder": lambda tmp: str(tmp),
    "in-proc": lambda tmp: "/proc/ropecheck-nope/out.json",
}
COMMANDS = {
    "spec": lambda p: ["spec", "--head-dim", "8", "--json", p],
    "claim": lambda p: ["claim", "a == a", "--json", p],
    "prove": lambda p: ["prove", "rotation_2d", "--json", p],
    "verify-json": lambda p: ["verify", "t.py:rope", "--head-dim", "8", "--json", p],
    "verify-junit": lambda p: ["verify", "t.py:rope", "--head-dim", "8", "--junit", p],
    "precision": lambda p: ["precision", "--max-position", "8", "--no-files", "--json", p],
    "adapters": lambda p: ["adapters", "--json", p],
}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("where", list(BAD_PATHS))
def test_an_unwritable_output_is_one_line_exit_2_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, where: str
) -> None:
    path = BAD_PATHS[where](tmp_path)
    assert main(COMMANDS[command](path)) == ExitCode.USAGE
    captured = capsys.readouterr()
    assert len(captured.err.strip().splitlines()) == 1 and "Traceback" not in captured.err
    assert captured.out == ""  # no work was done


def test_folder_outputs_are_checked_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x")
    assert main(["report", "--only", "reference", "--out", str(tmp_path / "file")]) == ExitCode.USAGE
    assert main(["prove", "rotation_2d", "--out", "/proc/ropecheck-nope"]) == ExitCode.USAGE


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_a_read_only_folder_is_a_usage_error(tmp_path: Path) -> None:  # pragma: no cover - not root in CI
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(stat.S_IREAD | stat.S_IEXEC)
    assert main(["spec", "--head-dim", "8", "--json", str(ro / "x.json")]) == ExitCode.USAGE
