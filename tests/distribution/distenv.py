"""The distribution tests' environment: the checkout's paths, copies, builds and venvs.

Helpers shared by ``conftest.py`` (the session fixtures) and the tests: running a command
with an environment that cannot point Python at the checkout, copying the checkout's files,
``python -m build``, ``python -m venv`` and ``pip install`` that skip (with the reason) only
when no package index is reachable, and the two RoPE targets the installed tools judge.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONSTRAINTS = ROOT / ".ci" / "constraints.txt"
ACTION = ROOT / ".github" / "actions" / "verify" / "action.yml"
HOOKS = ROOT / ".pre-commit-hooks.yaml"

# pip's words for an index it could not reach: only these turn a failed install into a skip
OFFLINE_SIGNS = (
    "NewConnectionError",
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "Connection refused",
    "ConnectTimeoutError",
    "ProxyError",
)
# Files of a checkout that never go into a copy to build from (build outputs and caches).
_IGNORED = ("__pycache__", "*.pyc", "*.egg-info", "build", "dist", ".git", ".venv", "*.vo", "*.vok", "*.vos", "*.glob")

# A correct RoPE under the canonical protocol (half-split pairs, theta_i = 10000^(-2i/d)) and
# the same with the frequency exponent off by a factor of 2: a real bug, one character apart.
GOOD_ROPE = """\
import torch


def rope(x, positions):
    d = x.shape[-1]
    inv_freq = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float32) / d)
    ang = positions.to(torch.float32)[..., None] * inv_freq
    cos = torch.cat([ang.cos(), ang.cos()], -1)[:, :, None].to(x.dtype)
    sin = torch.cat([ang.sin(), ang.sin()], -1)[:, :, None].to(x.dtype)
    rot = torch.cat([-x[..., d // 2 :], x[..., : d // 2]], -1)
    return x * cos + rot * sin
"""
BROKEN_ROPE = GOOD_ROPE.replace("(0, d, 2, dtype=torch.float32) / d", "(0, d, 2, dtype=torch.float32) / (2 * d)")
assert BROKEN_ROPE != GOOD_ROPE


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without anything that would point Python at the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")}
    env.update(extra)
    return env


def bytecode_env(cache: Path) -> dict[str, str]:
    """Variables that make the Python of a venv write the bytecode it compiles under ``cache`` and read it back.

    The venvs here install without byte-compiling (``--no-compile``: compiling every torch file at install
    time was half of an install's CPU time), so a module is compiled when first imported; this keeps that
    to once per venv where PYTHONDONTWRITEBYTECODE is set, and writes nothing beside the interpreter's files.
    """
    return {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": str(cache)}


def offline_reason(output: str) -> str | None:
    """The skip reason when ``output`` (of pip or build) shows an unreachable index, else None."""
    for sign in OFFLINE_SIGNS:
        if sign in output:
            lines = [line for line in output.splitlines() if sign in line]
            return f"no package index reachable ({lines[0].strip()[:200]})"
    return None


def run(
    cmd: Sequence[str | os.PathLike[str]],
    *,
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = 900,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run a command, capturing text output (a generous timeout guards against hangs only)."""
    return subprocess.run(
        [str(c) for c in cmd],
        cwd=cwd,
        env=env if env is not None else clean_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        input=input,
    )


def source_files() -> list[Path]:
    """The checkout's files as git sees them (tracked, and untracked but not ignored), relative paths."""
    git = shutil.which("git")
    if git is not None and (ROOT / ".git").exists():
        proc = subprocess.run(
            [git, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        if proc.returncode == 0:
            return [Path(p) for p in proc.stdout.split("\0") if p and (ROOT / p).is_file()]
    return [p.relative_to(ROOT) for p in ROOT.rglob("*") if p.is_file() and ".git" not in p.parts]


def copy_source(dest: Path) -> Path:
    """Copy the checkout's files into ``dest`` (build outputs and caches left out)."""
    for rel in source_files():
        if any(fnmatch.fnmatch(part, pattern) for part in rel.parts for pattern in _IGNORED):
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, target)
    return dest


@dataclass(frozen=True)
class Dist:
    """The built distributions and what ``python -m build`` printed."""

    wheel: Path
    sdist: Path
    log: str
    isolated: bool


@dataclass(frozen=True)
class Venv:
    """A virtual environment with the wheel installed, outside the source tree."""

    root: Path

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    @property
    def python(self) -> Path:
        return self.bin / "python"

    def env(self, **extra: str) -> dict[str, str]:
        """An environment whose PATH starts at this venv (as an activated one would)."""
        return clean_env(
            PATH=f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}",
            VIRTUAL_ENV=str(self.root),
            **bytecode_env(self.root / "pycache"),
            **extra,
        )

    def run(self, *args: str | os.PathLike[str], cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
        """Run ``args`` with this venv first on PATH (``ropecheck`` is its console script)."""
        return run(args, cwd=cwd, env=self.env(), timeout=timeout)


def build_dist(src: Path, out: Path) -> Dist:
    """``python -m build`` of ``src`` into ``out`` (isolated; without isolation only when offline)."""
    try:
        import build  # noqa: F401
    except ImportError:
        pytest.skip("the build package is not installed (pip install -e '.[test]')")
    cmd = [sys.executable, "-m", "build", "--outdir", str(out), str(src)]
    proc = run(cmd, cwd=src, timeout=900)
    isolated = True
    if proc.returncode != 0:
        reason = offline_reason(proc.stdout + proc.stderr)
        if reason is None:
            pytest.fail(f"python -m build failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
        # no index for the isolated build environment: build with this environment's setuptools
        proc = run([*cmd, "--no-isolation"], cwd=src, timeout=900)
        isolated = False
        if proc.returncode != 0:
            pytest.skip(f"cannot build offline: {reason}; --no-isolation: {proc.stderr.strip()[-300:]}")
    wheels, sdists = sorted(out.glob("*.whl")), sorted(out.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in out.iterdir())
    return Dist(wheels[0], sdists[0], proc.stdout + proc.stderr, isolated)


def new_venv(root: Path, *, with_pip: bool = True, system_site: bool = False) -> Path:
    """``python -m venv root``, from the interpreter running the tests: with pip, or without it for a venv that
    this environment's pip installs into (:func:`pip_install` with ``outer=True``; installing pip is most of the
    time ``venv`` takes). ``system_site``: the venv also sees this environment's packages (what the venv's own
    site-packages holds comes first)."""
    cmd = [sys.executable, "-m", "venv", str(root)] + ([] if with_pip else ["--without-pip"])
    cmd += ["--system-site-packages"] if system_site else []
    proc = run(cmd, cwd=root.parent, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return root


def pip_install(
    venv: Path, *args: str | os.PathLike[str], cwd: Path, outer: bool = False
) -> subprocess.CompletedProcess[str]:
    """``venv/bin/python -m pip install ARGS``; skips the test when no index is reachable. ``outer``: this
    environment's pip, run for the venv (``pip --python``: it resolves and installs in the venv as the venv's own
    pip would), for a venv made without pip."""
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", python] if outer else [python, "-m", "pip"]
    proc = run([*pip, "install", *args], cwd=cwd, timeout=1200)
    if proc.returncode != 0:
        reason = offline_reason(proc.stdout + proc.stderr)
        if reason is not None:
            pytest.skip(f"cannot install the wheel's dependencies: {reason}")
    return proc
