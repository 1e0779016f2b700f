"""Output folders and files are never a user's loss: ropecheck replaces only what it can tell is its own.

Each case is one a careless user meets: ``--out`` at a folder of their own, at a link to a folder,
at a full report with ``--only``; ``--json`` at a read-only file or a full disk; a Ctrl-C or a kill
in the middle of writing. The report command itself is slow, so the report-level cases use
:func:`~ropecheck.cli.report.write_report` with small synthetic reports, and the CLI cases use the
fast commands (``spec``, ``prove`` on two theorems) or fail before any work.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ropecheck.cli import main
from ropecheck.cli.report import carry_over, write_report
from ropecheck.errors import ExitCode, UsageError
from ropecheck.io import VOLATILE_BEGIN, VOLATILE_END, check_writable, replace_tree, write_output
from ropecheck.report import Page, Report, Row, Section

MANIFEST_NAME = ".ropecheck-manifest.json"
ROOT = Path(__file__).resolve().parents[2]


def _tree(folder: Path) -> dict[str, str]:
    """Every entry under ``folder``: files by content, links by target, folders as ``<dir>``."""
    out: dict[str, str] = {}
    for dirpath, dirnames, names in os.walk(folder):
        for name in dirnames + names:
            p = Path(dirpath) / name
            rel = p.relative_to(folder).as_posix()
            if p.is_symlink():
                out[rel] = f"-> {os.readlink(p)}"
            elif p.is_dir():
                out[rel] = "<dir>"
            else:
                out[rel] = p.read_text()
    return out


def _hidden_litter(*folders: Path) -> list[str]:
    return [p.name for f in folders for p in f.iterdir() if ".new-" in p.name or ".old-" in p.name]


def _section(key: str, *pages: tuple[str, str]) -> Section:
    return Section(
        key,
        key.title(),
        "intro",
        rows=[Row(f"{key} row", "PASS", "PASS", "ok")],
        pages=[Page(path, path, body) for path, body in pages],
    )


def _one_line_usage_error(code: int, err: str, *needles: str) -> None:
    assert code == ExitCode.USAGE, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err


# --------------------------------------------------------------------------- a user's folder


def test_out_at_a_folder_of_the_users_own_is_a_usage_error_and_nothing_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`report --out DIR` where DIR holds a user's README.md and proofs/sketch.md: exit 2, before any work."""
    out = tmp_path / "notes"
    (out / "proofs").mkdir(parents=True)
    (out / "README.md").write_text("my notes")
    (out / "proofs" / "sketch.md").write_text("my sketch")
    (out / "empty").mkdir()
    (out / "link").symlink_to("README.md")
    before = _tree(out)
    code = main(["report", "--only", "reference", "--out", str(out)])
    _one_line_usage_error(code, capsys.readouterr().err, "--out", str(out), "empty or new folder")
    assert _tree(out) == before


def test_write_report_refuses_a_folder_it_cannot_tell_is_its_own(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "README.md").write_text("my notes")
    with pytest.raises(UsageError, match="empty or new folder"):
        write_report(Report(header={}, sections=[_section("reference", ("reference.md", "# ref\n"))]), out)
    assert _tree(out) == {"README.md": "my notes"}


def test_an_empty_folder_is_filled_and_gets_a_manifest(tmp_path: Path) -> None:
    out = tmp_path / "empty"
    out.mkdir()
    replace_tree(out, {"a.md": "a", "sub/b.md": "b"}, keep=lambda rel: False)
    manifest = json.loads((out / MANIFEST_NAME).read_text())
    assert manifest["files"] == ["a.md", "sub/b.md"] and manifest["format"].startswith("ropecheck.manifest/")
    assert _hidden_litter(tmp_path) == []


def test_a_users_files_links_and_empty_folders_in_an_owned_folder_are_kept(tmp_path: Path) -> None:
    """Inside ropecheck's own folder, what its manifest does not list is the user's: kept; its own stale files go."""
    out = tmp_path / "reports"
    replace_tree(
        out, {"README.md": "v1", "proofs/a.md": "a1", "proofs/stale.md": "gone next time"}, keep=lambda r: False
    )
    (out / "proofs" / "sketch.md").write_text("my sketch")
    (out / "mine" / "empty").mkdir(parents=True)
    (out / "proofs" / "link.md").symlink_to("a.md")
    (out / "dirlink").symlink_to("proofs", target_is_directory=True)
    replace_tree(out, {"README.md": "v2", "proofs/a.md": "a2"}, keep=lambda rel: False)
    tree = _tree(out)
    assert tree.pop(MANIFEST_NAME)
    assert tree == {
        "README.md": "v2",
        "proofs": "<dir>",
        "proofs/a.md": "a2",
        "proofs/sketch.md": "my sketch",
        "proofs/link.md": "-> a.md",
        "mine": "<dir>",
        "mine/empty": "<dir>",
        "dirlink": "-> proofs",
    }
    assert json.loads((out / MANIFEST_NAME).read_text())["files"] == ["README.md", "proofs/a.md"]


def test_a_users_file_where_ropecheck_would_now_write_is_a_usage_error(tmp_path: Path) -> None:
    out = tmp_path / "reports"
    replace_tree(out, {"README.md": "v1"}, keep=lambda rel: False)
    (out / "index.html").write_text("my page")
    with pytest.raises(UsageError, match="index.html"):
        replace_tree(out, {"README.md": "v2", "index.html": "<html>"}, keep=lambda rel: False)
    assert (out / "index.html").read_text() == "my page" and (out / "README.md").read_text() == "v1"


def test_a_report_written_before_manifests_is_recognised_by_its_header_and_report_json(tmp_path: Path) -> None:
    """A committed reports/ of an older version: README.md with the volatile header, report.json listing its files."""
    out = tmp_path / "reports"
    (out / "proofs").mkdir(parents=True)
    (out / "README.md").write_text(f"# ropecheck report\n{VOLATILE_BEGIN}\nold\n{VOLATILE_END}\n")
    (out / "report.json").write_text(
        json.dumps({"sections": [{"key": "proofs", "pages": [{"path": "proofs/old.md"}], "plots": [], "files": []}]})
    )
    (out / "proofs" / "old.md").write_text("old page")
    (out / "proofs" / "sketch.md").write_text("my sketch")
    (out / "benchmarks").mkdir()
    (out / "benchmarks" / "b.md").write_text("bench")
    write_report(Report(header={}, sections=[_section("proofs", ("proofs/new.md", "# new\n"))]), out)
    tree = _tree(out)
    assert "proofs/old.md" not in tree
    assert tree["proofs/sketch.md"] == "my sketch" and tree["benchmarks/b.md"] == "bench"
    assert tree["proofs/new.md"] == "# new\n"
    # a folder inside it (prove's default --out reports/proofs) is recognised as well
    check_writable(out / "proofs", "--out", directory=True, tree=True)


def test_the_committed_reports_folder_is_recognised() -> None:
    for sub in ("", "proofs", "precision", "survey", "verify"):
        check_writable(ROOT / "reports" / sub, "--out", directory=True, tree=True)


# --------------------------------------------------------------------------- links


def test_a_symlinked_out_folder_is_written_through(tmp_path: Path) -> None:
    real = tmp_path / "store" / "reports"
    replace_tree(real, {"README.md": "v1"}, keep=lambda rel: False)
    (real / "mine.md").write_text("my file")
    link = tmp_path / "reports-link"
    link.symlink_to(real, target_is_directory=True)
    replace_tree(link, {"README.md": "v2"}, keep=lambda rel: False)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert (real / "README.md").read_text() == "v2" and (real / "mine.md").read_text() == "my file"
    assert _hidden_litter(tmp_path, real.parent) == []


# --------------------------------------------------------------------------- --only


def test_only_one_section_keeps_every_file_of_the_others(tmp_path: Path) -> None:
    """`report --only proofs` over a full report keeps proofs/certificates.md, a page of the certificates section."""
    out = tmp_path / "reports"
    full = Report(
        header={"generated": "earlier"},
        sections=[
            _section("proofs", ("proofs/index.md", "# proofs v1\n"), ("proofs/gone.md", "old theorem\n")),
            _section("certificates", ("proofs/certificates.md", "# certificates\n")),
            _section("properties", ("properties.md", "# properties\n")),
        ],
    )
    write_report(full, out)
    partial = carry_over(Report(header={}, sections=[_section("proofs", ("proofs/index.md", "# proofs v2\n"))]), out)
    write_report(partial, out)
    tree = _tree(out)
    assert tree["proofs/index.md"] == "# proofs v2\n" and "proofs/gone.md" not in tree
    assert tree["proofs/certificates.md"] == "# certificates\n" and tree["properties.md"] == "# properties\n"
    listed = json.loads((out / MANIFEST_NAME).read_text())["files"]
    assert {"proofs/certificates.md", "properties.md", "proofs/index.md"} <= set(listed)
    assert "proofs/gone.md" not in listed


def test_a_carried_section_keeps_its_extra_files_listed(tmp_path: Path) -> None:
    """report.json of a partial run still names the extra files (CSVs, JSON) of the sections carried over."""
    out = tmp_path / "reports"
    precision = _section("precision", ("precision/README.md", "# precision\n"))
    precision.files = {"precision/fp16.csv": "band,err\n", "precision/reproductions.json": "{}\n"}
    write_report(Report(header={}, sections=[_section("proofs", ("proofs/index.md", "# v1\n")), precision]), out)
    write_report(carry_over(Report(header={}, sections=[_section("proofs", ("proofs/index.md", "# v2\n"))]), out), out)
    sections = {s["key"]: s for s in json.loads((out / "report.json").read_text())["sections"]}
    assert sections["precision"]["files"] == ["precision/fp16.csv", "precision/reproductions.json"]
    assert (out / "precision" / "fp16.csv").read_text() == "band,err\n"


# --------------------------------------------------------------------------- single files


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_is_a_usage_error_naming_the_path(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["spec", "--head-dim", "8", "--json", "/dev/full"])
    _one_line_usage_error(code, capsys.readouterr().err, "/dev/full", "No space left")


def test_no_space_while_writing_a_tree_is_a_usage_error_and_leaves_the_old_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "reports"
    replace_tree(out, {"README.md": "v1"}, keep=lambda rel: False)
    before = _tree(out)
    real = Path.write_bytes

    def full(self: Path, data: bytes) -> int:
        if self.name == "b.md":
            raise OSError(28, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", full)
    with pytest.raises(UsageError, match="No space left"):
        replace_tree(out, {"README.md": "v2", "b.md": "b"}, keep=lambda rel: False)
    monkeypatch.undo()
    assert _tree(out) == before and _hidden_litter(tmp_path) == []


def test_a_read_only_file_is_not_replaced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ro = tmp_path / "ro.json"
    ro.write_text("keep me")
    ro.chmod(0o444)
    code = main(["spec", "--head-dim", "8", "--json", str(ro)])
    _one_line_usage_error(code, capsys.readouterr().err, str(ro), "read-only")
    assert ro.read_text() == "keep me"
    with pytest.raises(UsageError, match="read-only"):
        write_output(ro, "new")
    assert ro.read_text() == "keep me"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only folder")
def test_an_unwritable_folder_is_a_usage_error(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(UsageError, match="cannot write"):
            check_writable(folder / "x.json", "--json")
        with pytest.raises(UsageError, match="cannot write"):
            write_output(folder / "x.json", "{}")
    finally:
        folder.chmod(0o755)


def test_a_run_that_fails_on_its_input_creates_no_folders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    check_writable(tmp_path / "a" / "b" / "out.json", "--json")  # writable, and the probe leaves nothing
    assert list(tmp_path.iterdir()) == []
    check_writable(tmp_path / "c" / "d", "--out", directory=True, tree=True)
    assert list(tmp_path.iterdir()) == []
    code = main(
        ["prove", "--d", "3", "--out", str(tmp_path / "x" / "proofs"), "--json", str(tmp_path / "y" / "p.json")]
    )
    assert code == ExitCode.USAGE and "--d" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- interrupted runs


def test_ctrl_c_during_prove_leaves_the_old_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """prove renders every page, then swaps the folder: a Ctrl-C before the swap leaves the old set whole."""
    import ropecheck.cli.prove as prove_cli

    out = tmp_path / "proofs"
    argv = ["prove", "rotation_2d", "relative_position_2d", "--out", str(out)]
    assert main(argv) == 0
    before = _tree(out)
    real = prove_cli.render_proof_markdown
    calls = {"n": 0}

    def interrupted(*args: object, **kwargs: object) -> str:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs) + "changed\n"  # type: ignore[arg-type]

    monkeypatch.setattr(prove_cli, "render_proof_markdown", interrupted)
    assert main(argv) == ExitCode.INTERRUPTED
    assert _tree(out) == before and _hidden_litter(tmp_path) == []


_KILLED_WRITER = textwrap.dedent(
    """
    import sys, types
    pkg = types.ModuleType("ropecheck")  # io alone, without the package's heavy imports
    pkg.__path__ = [sys.argv[1]]
    sys.modules["ropecheck"] = pkg
    from ropecheck.io import replace_tree
    out, n = sys.argv[2], int(sys.argv[3])
    sets = [{f"d{i % 7}/f{i}.md": f"{tag} {i}" for i in range(n)} for tag in ("A", "B")]
    print("ready", flush=True)
    k = 0
    while True:
        replace_tree(out, sets[k % 2], keep=lambda rel: False)
        k += 1
    """
)


@pytest.mark.skipif(sys.platform != "linux", reason="SIGKILL timing test for Linux")
def test_a_kill_at_any_moment_leaves_the_old_set_or_the_new_one(tmp_path: Path) -> None:
    n = 60
    sets = [{f"d{i % 7}/f{i}.md": f"{tag} {i}" for i in range(n)} for tag in ("A", "B")]
    out = tmp_path / "reports"
    rng = random.Random(1234)
    for _ in range(6):
        proc = subprocess.Popen(
            [sys.executable, "-c", _KILLED_WRITER, str(ROOT / "ropecheck"), str(out), str(n)], stdout=subprocess.PIPE
        )
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0.02, 0.3))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        tree = {k: v for k, v in _tree(out).items() if v != "<dir>"}
        manifest = json.loads(tree.pop(MANIFEST_NAME))
        assert tree in sets, "a mix of two runs"
        assert manifest["files"] == sorted(tree)
    replace_tree(out, sets[0], keep=lambda rel: False)  # the next run removes what a killed one left
    assert _hidden_litter(tmp_path) == []
