"""``ropecheck audit FILE``: exit codes, the report files, progress, and one-line usage errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ropecheck.cli.main import main

AUDIT = Path(__file__).resolve().parents[1] / "fixtures" / "audit"
SMALL_OK = "# Two steps\n\n$$\n\\cos^2 x + \\sin^2 x\n= 1\n= \\cos(0)\n$$\n"
SMALL_BAD = SMALL_OK.replace("\\cos(0)", "\\sin(0)")


@pytest.fixture
def docs(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, text in (("ok.md", SMALL_OK), ("bad.md", SMALL_BAD)):
        (tmp_path / name).write_text(text)
        out[name] = tmp_path / name
    return out


def test_exit_codes(docs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(docs["ok.md"])]) == 0
    out = capsys.readouterr().out
    assert "line 5" in out and "PROVED" in out and "2 steps: 2 PROVED" in out
    assert main(["audit", str(docs["bad.md"])]) == 1
    out = capsys.readouterr().out
    assert "REFUTED" in out and "counterexample" in out and "line 6" in out


def test_planted_document_exit_1_and_twin_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(AUDIT / "plain_style.md")]) == 1
    assert main(["audit", str(AUDIT / "plain_style_correct.md")]) == 0
    capsys.readouterr()


@pytest.mark.parametrize(
    "make,words",
    [
        (lambda p: p / "missing.md", "no such file"),
        (lambda p: p, "is a folder"),
        (lambda p: _write(p / "latin1.md", b"$$x = x$$ caf\xe9"), "not UTF-8"),
    ],
    ids=["missing", "folder", "not-utf8"],
)
def test_unreadable_files_are_one_line_exit_2(
    tmp_path: Path, make: object, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    assert main(["audit", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and words in err and "Traceback" not in err


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    "argv",
    [["--timeout", "0"], ["--timeout", "nan"], ["--complex", "q;k"], ["--json", "/proc/x/y.json"]],
    ids=["zero-timeout", "nan-timeout", "bad-names", "unwritable-json"],
)
def test_bad_flags_are_exit_2(docs: dict[str, Path], argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(docs["ok.md"]), *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_unknown_flag_is_exit_2(docs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["audit", str(docs["ok.md"]), "--no-such"])
    assert info.value.code == 2 and len(capsys.readouterr().err.strip().splitlines()) == 1


def test_reports_are_written(docs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    md, html, js = tmp_path / "a.md", tmp_path / "a.html", tmp_path / "a.json"
    assert main(["audit", str(docs["bad.md"]), "--md", str(md), "--html", str(html), "--json", str(js)]) == 1
    capsys.readouterr()
    data = json.loads(js.read_text())
    assert data["schema"] == "ropecheck-audit/1" and data["counts"] == {
        "PROVED": 1,
        "REFUTED": 1,
        "UNDECIDED": 0,
        "UNREAD": 0,
    }
    assert [(s["line"], s["status"]) for s in data["steps"]] == [(5, "PROVED"), (6, "REFUTED")]
    text = md.read_text()
    assert "| step | line | verdict | how |" in text and "❌ REFUTED" in text and "$$" in text
    page = html.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<math" in page and 'class="REFUTED"' in page
    assert "--ok:#1a7f37" in page and ".UNREAD{" in page  # the report's style sheet, and a style for UNREAD
    assert "<script" not in page and "http" not in page.replace('xmlns="http', "")


def test_json_to_stdout_moves_the_text_to_stderr(docs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(docs["ok.md"]), "--json", "-"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["steps_total"] == 2 and "2 steps" in err


def test_progress_on_stderr_with_verbose(docs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(docs["ok.md"])]) == 0
    assert "step 1, line 5" not in capsys.readouterr().err  # not a terminal, no -v: quiet
    assert main(["audit", "-v", str(docs["ok.md"])]) == 0
    err = capsys.readouterr().err
    assert "step 1, line 5: PROVED" in err and "step 2, line 6: PROVED" in err


def test_domain_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "z.md"
    doc.write_text("$$\\bar{z} = z$$\n")
    # z is written conjugated, so it is complex unless declared otherwise (as `ropecheck claim` reads it)
    assert main(["audit", str(doc)]) == 1
    out = capsys.readouterr().out
    assert "z complex (inferred from \\bar{z}" in out and "declared" not in out
    assert main(["audit", str(doc), "--real", "z"]) == 0
    assert "declared: z real" in capsys.readouterr().out
    assert main(["audit", str(doc), "--complex", "z"]) == 1
    assert "declared: z complex" in capsys.readouterr().out


def test_a_real_run_end_to_end(docs: dict[str, Path]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ropecheck", "audit", str(docs["bad.md"])], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 1 and "REFUTED" in proc.stdout and proc.stderr == ""
