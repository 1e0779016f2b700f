"""The CI integrations users wire in: the composite GitHub Action and the pre-commit hook.

The action's YAML is read with PyYAML and checked for the inputs and steps it promises; then
its ``run:`` steps run here, in the built wheel's venv, with the same inputs (``uses:`` steps
exist only on a runner; the torch download becomes the constraints-file install). The hook
runs through pre-commit itself: ``pre-commit try-repo`` on a git copy of the checkout, and
``pre-commit run`` with a config that names a target in ``args``, as a user writes it.
"""

from __future__ import annotations

import copy
import functools
import json
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from distchecks import ACTION_INPUTS, action_problems, expand, hook_problems, run_action_steps
from distenv import (
    ACTION,
    BROKEN_ROPE,
    CONSTRAINTS,
    GOOD_ROPE,
    HOOKS,
    ROOT,
    Dist,
    Venv,
    bytecode_env,
    clean_env,
    copy_source,
    offline_reason,
    run,
)

yaml = pytest.importorskip("yaml", reason="PyYAML is not installed (pip install -e '.[test]')")


def _action() -> dict[str, Any]:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def _hooks() -> Any:
    return yaml.safe_load(HOOKS.read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------ action


def test_action_structure() -> None:
    assert action_problems(_action()) == []


def _without_input(doc: dict[str, Any], name: str) -> None:
    doc["inputs"].pop(name)


def _without_step(doc: dict[str, Any], uses: str) -> None:
    doc["runs"]["steps"] = [s for s in doc["runs"]["steps"] if not str(s.get("uses", "")).startswith(uses)]


def _edit_runs(doc: dict[str, Any], old: str, new: str) -> None:
    for step in doc["runs"]["steps"]:
        if "run" in step:
            step["run"] = step["run"].replace(old, new)


def _use_unknown_input(doc: dict[str, Any]) -> None:
    next(s for s in doc["runs"]["steps"] if s.get("id") == "verify")["env"]["X"] = "${{ inputs.no-such-input }}"


BREAKAGES: dict[str, Callable[[dict[str, Any]], None]] = {
    **{f"no input {name}": functools.partial(_without_input, name=name) for name in ACTION_INPUTS},
    "no setup-python": functools.partial(_without_step, uses="actions/setup-python"),
    "no upload": functools.partial(_without_step, uses="actions/upload-artifact"),
    "no junit": functools.partial(_edit_runs, old="--junit", new="--xml"),
    "no summary": functools.partial(_edit_runs, old="GITHUB_STEP_SUMMARY", new="SUMMARY"),
    "torch from PyPI": lambda doc: doc["inputs"]["torch-index-url"].update(default="https://pypi.org/simple"),
    "torch unpinnable": functools.partial(_edit_runs, old="TORCH_VERSION:+==$TORCH_VERSION", new=""),
    "exit code swallowed": lambda doc: doc["runs"]["steps"].pop(),
    "not composite": lambda doc: doc["runs"].update(using="node20"),
    "unknown input used": _use_unknown_input,
    "dtypes dropped": lambda doc: doc["runs"]["steps"][3]["env"].pop("DTYPES"),
}


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_a_broken_action_is_caught(breakage: str) -> None:
    doc = copy.deepcopy(_action())
    BREAKAGES[breakage](doc)
    assert action_problems(doc) != [], breakage


def test_expand_rejects_what_it_cannot_evaluate() -> None:
    assert expand("a ${{ inputs.x }} b", {"x": "1"}, {}) == "a 1 b"
    assert expand("${{ steps.s.outputs.code }}", {}, {"s": {"code": "3"}}) == "3"
    with pytest.raises(ValueError):
        expand("${{ inputs.y }}", {"x": "1"}, {})
    with pytest.raises(ValueError):
        expand("${{ github.token }}", {}, {})


def _run_action(venv: Venv, workdir: Path, **given: str) -> Any:
    torch_step = f'python -m pip install -q -c "{CONSTRAINTS}" torch'  # the local CPU wheel, not the network
    return run_action_steps(_action(), given, cwd=workdir, env=venv.env(), replace={"torch": torch_step})


@pytest.mark.slow
@pytest.mark.parametrize(
    ("source", "code", "verdict"),
    [(GOOD_ROPE, 0, "CONFORMS"), (BROKEN_ROPE, 1, "DOES NOT CONFORM")],
    ids=["good", "broken"],
)
def test_action_runs_locally(wheel_venv: Venv, dist: Dist, workdir: Path, source: str, code: int, verdict: str) -> None:
    (workdir / "my_rope.py").write_text(source)
    result = _run_action(
        wheel_venv,
        workdir,
        target="my_rope.py:rope",
        **{"head-dim": "64", "layout": "half", "dtypes": "float32,bfloat16", "args": "--max-position 8192"},
        **{"ropecheck-spec": str(dist.wheel)},
    )
    ran = [s.name for s in result.steps if s.skipped is None]
    assert ran == ["Install torch (CPU build)", "Install ropecheck", "ropecheck verify", "Pass the exit code through"]
    assert [s.name for s in result.steps if s.skipped] == ["Set up Python", "Upload the verdict"]
    install = result.step("Install ropecheck")
    assert install.returncode == 0 and "ropecheck 0." in install.stdout, install.stdout + install.stderr
    assert result.outputs["verify"]["exit-code"] == str(code), result.step("ropecheck verify").stderr
    assert result.exit_code == code
    out = workdir / "ropecheck-verdict"
    data = json.loads((out / "rope-verdict.json").read_text())
    assert data["conforms"] is (code == 0) and data["options"]["dtypes"] == ["float32", "bfloat16"]
    failures = list(ET.parse(out / "rope-verdict.xml").getroot().iter("failure"))
    assert bool(failures) is bool(code)
    assert f"### ropecheck verify: {verdict}" in result.summary
    assert "my_rope.py:rope" in result.summary


@pytest.mark.slow
def test_action_usage_error_passes_through(wheel_venv: Venv, dist: Dist, workdir: Path) -> None:
    given = {"target": "no_such_file.py:rope", "head-dim": "64", "ropecheck-spec": str(dist.wheel)}
    result = _run_action(wheel_venv, workdir, **given)
    assert result.exit_code == 2
    assert "### ropecheck verify: USAGE ERROR" in result.summary and "no_such_file.py" in result.summary


# -------------------------------------------------------------------------------- hook


def test_hook_definition() -> None:
    assert hook_problems(_hooks()) == []


@pytest.mark.parametrize(
    "breakage",
    [
        {"pass_filenames": True},
        {"entry": "ropecheck"},
        {"language": "system"},
        {"id": "verify"},
        {"args": ["x.py:rope"]},
        {"description": ""},
    ],
    ids=lambda b: ",".join(b),
)
def test_a_broken_hook_is_caught(breakage: dict[str, Any]) -> None:
    hooks = _hooks()
    hooks[0].update(breakage)
    assert hook_problems(hooks) != []


def _git(cwd: Path, *args: str) -> None:
    env = clean_env(
        GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid", GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.invalid", GIT_CONFIG_NOSYSTEM="1", HOME=str(cwd),
    )  # fmt: skip
    proc = run(["git", *args], cwd=cwd, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _pre_commit(cwd: Path, home: Path, *args: str) -> Any:
    """``pre-commit ARGS`` from this test environment; its hook venv installs with the constraints file
    and without byte-compiling (``PIP_COMPILE=0`` is pip's ``--no-compile``, where ``PIP_NO_COMPILE=1`` would
    turn compiling on): what the hook imports is compiled once, under ``home`` (:func:`bytecode_env`)."""
    env = clean_env(
        PRE_COMMIT_HOME=str(home), PIP_CONSTRAINT=str(CONSTRAINTS), PIP_COMPILE="0", HOME=str(home),
        GIT_CONFIG_NOSYSTEM="1", **bytecode_env(home / "pycache"),
        GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid", GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.invalid", PRE_COMMIT_COLOR="never",
    )  # fmt: skip
    proc = run([sys.executable, "-m", "pre_commit", *args], cwd=cwd, env=env, timeout=1500)
    log = home / "pre-commit.log"
    reason = offline_reason(proc.stdout + proc.stderr + (log.read_text() if log.exists() else ""))
    if proc.returncode != 0 and reason is not None:
        pytest.skip(f"pre-commit cannot build the hook's environment: {reason}")
    return proc


@pytest.mark.slow
def test_pre_commit_hook(tmp_path: Path) -> None:
    """The hook as a user gets it: pre-commit clones the hook repository (a git copy of this
    checkout), builds its Python environment (ropecheck and torch, pinned by PIP_CONSTRAINT to
    the local CPU wheel) and runs ``ropecheck verify`` with the args the user's config names."""
    pytest.importorskip("pre_commit", reason="pre-commit is not installed (pip install -e '.[test]')")
    hook_repo = copy_source(tmp_path / "ropecheck-repo")
    _git(hook_repo, "init", "-q")
    _git(hook_repo, "add", "-A")
    _git(hook_repo, "commit", "-q", "-m", "snapshot")
    home, project = tmp_path / "pre-commit-home", tmp_path / "project"
    project.mkdir()
    (project / "my_rope.py").write_text(GOOD_ROPE)
    (project / "notes.md").write_text("not Python\n")
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "project")

    # the hook definition as published, without args (what `pre-commit try-repo` runs, here through `run` so
    # that every run below reuses the one environment pre-commit builds for this repo and rev): it names no
    # target, so ropecheck verify stops with its usage error (exit 2) and the hook fails saying why
    rev = run(["git", "rev-parse", "HEAD"], cwd=hook_repo).stdout.strip()
    bare = {"repos": [{"repo": str(hook_repo), "rev": rev, "hooks": [{"id": "ropecheck-verify"}]}]}
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(bare))
    tried = _pre_commit(project, home, "run", "--files", "my_rope.py")
    assert tried.returncode == 1, tried.stdout[-3000:] + tried.stderr[-3000:]
    assert "ropecheck verify (RoPE conformance)" in tried.stdout and "Failed" in tried.stdout, tried.stdout
    assert "exit code: 2" in tried.stdout and "TARGET" in tried.stdout, tried.stdout

    args = ["my_rope.py:rope", "--head-dim", "64", "--layout", "half", "--dtype", "float32", "--device", "cpu"]
    config = {"repos": [{"repo": str(hook_repo), "rev": rev, "hooks": [{"id": "ropecheck-verify", "args": args}]}]}
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))

    passed = _pre_commit(project, home, "run", "--files", "my_rope.py")
    assert passed.returncode == 0, passed.stdout[-3000:] + passed.stderr[-3000:]
    assert "Passed" in passed.stdout

    skipped = _pre_commit(project, home, "run", "--files", "notes.md")  # no Python file changed
    assert skipped.returncode == 0 and "Skipped" in skipped.stdout, skipped.stdout

    (project / "my_rope.py").write_text(BROKEN_ROPE)
    failed = _pre_commit(project, home, "run", "--files", "my_rope.py")
    assert failed.returncode == 1, failed.stdout[-3000:] + failed.stderr[-3000:]
    assert "DOES NOT CONFORM" in failed.stdout and "frequencies" in failed.stdout, failed.stdout
    assert ROOT not in project.parents
