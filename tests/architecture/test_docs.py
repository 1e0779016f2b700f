"""The documentation holds together: links resolve, the README stays an entry point, its commands run.

* Every relative link of every Markdown file git knows (tracked, or new and not ignored)
  points at a file or folder that exists; web and mail links and pure ``#anchors`` are not
  followed, and a ``#fragment`` is dropped before the path is checked.
* The README is at most :data:`README_MAX_LINES` lines: the reference lives in the guides
  beside the code.
* Every command of the README's ``bash`` blocks runs, in a subprocess, with the exit code it
  documents (a trailing ``# exit N`` comment; 0 otherwise). A command that is slow or installs
  something says so on its line (``# not run by the docs check: <why>``), or a whole block is
  skipped by an HTML comment just before it (``<!-- docs-check: skip (<why>) -->``).

Design constraints: no network and no install; the commands run in parallel with a per-command
time limit, so the whole module stays well under 30 s.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
README_MAX_LINES = 300
SKIP_LINE = "# not run by the docs check:"
SKIP_BLOCK = re.compile(r"<!--\s*docs-check:\s*skip\b.*?-->")
COMMAND_TIMEOUT = 60

# [text](target) and [text](target "title"), but not images' data or reference-style links
_LINK = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_EXTERNAL = ("http://", "https://", "mailto:", "ftp://")
_PATH = re.compile(r"[A-Za-z0-9_.~/%-]+")  # what a relative link in these docs looks like


def markdown_files() -> list[Path]:
    """Every Markdown file git knows: tracked, or new and not ignored."""
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", "*.md"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sorted({ROOT / p for p in out.split("\0") if p and (ROOT / p).is_file()})


def _without_code(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) outside fenced code blocks, with inline code spans blanked."""
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        marker = re.match(r"(`{3,}|~{3,})", stripped)
        if marker:
            if fence is None:
                fence = marker.group(1)[0] * len(marker.group(1))
                continue
            if stripped.startswith(fence):
                fence = None
                continue
        if fence is None:
            yield number, re.sub(r"`+[^`]*`+", "", line)


def broken_links(path: Path) -> list[str]:
    """The relative links of one Markdown file whose target does not exist, as ``file:line: target``."""
    bad = []
    for number, line in _without_code(path.read_text(encoding="utf-8")):
        for target in _LINK.findall(line):
            if target.startswith(_EXTERNAL) or target.startswith("#"):
                continue
            rel = target.split("#", 1)[0].split("?", 1)[0]
            if not rel or not _PATH.fullmatch(rel):  # `[γ₂(u)](1+√2·ε)` in a formula is no link
                continue
            resolved = (ROOT / rel.lstrip("/")) if rel.startswith("/") else (path.parent / rel)
            if not resolved.exists():
                bad.append(f"{path}:{number}: {target}")
    return bad


@dataclass(frozen=True)
class Command:
    line: int
    text: str
    expected: int
    skip: str | None  # why it is not run, or None


def readme_commands(text: str) -> list[Command]:
    """The commands of the ``bash`` blocks of a README, continuation lines joined."""
    commands: list[Command] = []
    lines = text.splitlines()
    i = 0
    pending: str | None = None  # a skip comment waiting for the block right after it
    while i < len(lines):
        line = lines[i]
        marker = SKIP_BLOCK.search(line)
        if marker:
            pending = marker.group(0)
        elif line.strip() == "```bash":
            block_skip, pending = pending, None
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                start = i
                cmd = lines[i]
                while cmd.rstrip().endswith("\\") and i + 1 < len(lines):
                    i += 1
                    cmd = cmd.rstrip()[:-1].rstrip() + " " + lines[i].strip()
                i += 1
                body = cmd.strip()
                if not body or body.startswith("#"):
                    continue
                why = block_skip
                if SKIP_LINE in body:
                    why = body.split(SKIP_LINE, 1)[1].strip() or "marked"
                exit_code = re.search(r"#[^#]*\bexit (\d+)\s*$", body)
                commands.append(Command(start + 1, body, int(exit_code.group(1)) if exit_code else 0, why))
        elif line.strip():
            pending = None
        i += 1
    return commands


def _argv(command: str) -> list[str]:
    words = shlex.split(command, comments=True)
    if words[:1] == ["ropecheck"]:
        return [sys.executable, "-m", "ropecheck", *words[1:]]
    if words[:3] == ["python", "-m", "ropecheck"]:
        return [sys.executable, *words[1:]]
    raise AssertionError(
        f"README command {command!r}: only ropecheck commands are run; mark others with '{SKIP_LINE} <why>'"
    )


def _run(command: Command) -> tuple[Command, int, str]:
    env = {**os.environ, "COLUMNS": "120", "OMP_NUM_THREADS": "1"}
    try:
        proc = subprocess.run(
            _argv(command.text), cwd=ROOT, capture_output=True, text=True, timeout=COMMAND_TIMEOUT, env=env
        )
    except subprocess.TimeoutExpired:
        return command, -1, f"still running after {COMMAND_TIMEOUT} s"
    return command, proc.returncode, (proc.stdout + proc.stderr)[-2000:]


# ------------------------------------------------------------------------------------ links


def test_every_relative_link_resolves() -> None:
    files = markdown_files()
    assert README in files
    bad = [b for f in files for b in broken_links(f)]
    assert not bad, "broken links:\n" + "\n".join(bad)


def test_the_link_checker_catches_a_broken_link(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# there\n")
    (tmp_path / "sub").mkdir()
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md) [ok folder](sub/) [ok anchor](there.md#there) [web](https://example.org/x)\n"
        "[anchor](#top) [mail](mailto:a@b.c)\n"
        "`[in code](missing-in-span.md)`\n"
        "```\n[in a fence](missing-in-fence.md)\n```\n"
        "[gone](missing.md#part) and [also gone](sub/nothing/)\n"
    )
    bad = broken_links(page)
    assert bad == [f"{page}:7: missing.md#part", f"{page}:7: sub/nothing/"], bad


# ----------------------------------------------------------------------------------- README


def test_readme_is_an_entry_point() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines (at most {README_MAX_LINES})"


def test_readme_commands_are_found() -> None:
    commands = readme_commands(README.read_text(encoding="utf-8"))
    run = [c for c in commands if c.skip is None]
    skipped = [c for c in commands if c.skip is not None]
    assert len(run) >= 5 and skipped, commands
    for name in ("spec", "report", "verify", "adapters", "survey", "prove", "claim", "audit", "precision", "bench"):
        assert any(re.match(rf"ropecheck {name}\b", c.text) for c in commands), f"no example of `ropecheck {name}`"


def test_the_command_reader_honours_the_markers() -> None:
    text = (
        "<!-- docs-check: skip (installs) -->\n```bash\npip install x\n```\n"
        "```bash\n# a comment\nropecheck spec \\\n    --head-dim 64\n"
        "ropecheck claim 'a == b'   # exit 1\n"
        "ropecheck report   # not run by the docs check: slow\n```\n"
    )
    got = [(c.text.split("#")[0].strip(), c.expected, c.skip) for c in readme_commands(text)]
    assert got == [
        ("pip install x", 0, "<!-- docs-check: skip (installs) -->"),
        ("ropecheck spec --head-dim 64", 0, None),
        ("ropecheck claim 'a == b'", 1, None),
        ("ropecheck report", 0, "slow"),
    ], got


def test_readme_commands_run() -> None:
    commands = [c for c in readme_commands(README.read_text(encoding="utf-8")) if c.skip is None]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(_run, commands))
    bad = [
        f"README.md:{c.line}: `{c.text}` exited {rc}, expected {c.expected}\n{out}"
        for c, rc, out in results
        if rc != c.expected
    ]
    assert not bad, "\n\n".join(bad)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
