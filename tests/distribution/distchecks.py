"""Checks on what users install and wire into CI, as pure functions over data.

Each returns a list of problems (empty: the check holds), so a test can show both that the
real artefact passes and that a broken one (a wheel without its ``.v`` files, metadata with an
upper bound, an action missing an input) is caught. Also a small local runner for the
composite action's ``run:`` steps, which evaluates the ``${{ ... }}`` expressions it uses.

Design constraints: no network and no subprocess here except in :func:`run_action_steps`,
which runs the action's own shell steps exactly as written (``bash -eo pipefail``, as hosted
runners do), with the step outputs, ``GITHUB_OUTPUT`` and ``GITHUB_STEP_SUMMARY`` files a runner
provides.
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from email.parser import Parser
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement

__all__ = [
    "ACTION_INPUTS",
    "CAPPING_OPERATORS",
    "ActionRun",
    "StepRun",
    "action_problems",
    "capped_requirements",
    "expand",
    "hook_problems",
    "metadata_fields",
    "python_names",
    "run_action_steps",
    "wheel_content_problems",
    "wheel_metadata",
    "wheel_names",
]

# Specifier operators that cap a version (or pin one): none may appear in the metadata.
CAPPING_OPERATORS = frozenset({"<", "<=", "==", "===", "~=", "!="})


# ------------------------------------------------------------------------------- wheel


def wheel_names(wheel: Path) -> list[str]:
    """The file names inside a wheel."""
    with zipfile.ZipFile(wheel) as zf:
        return zf.namelist()


def wheel_metadata(wheel: Path) -> str:
    """The wheel's ``*.dist-info/METADATA`` text."""
    with zipfile.ZipFile(wheel) as zf:
        (name,) = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA") and n.count("/") == 1]
        return zf.read(name).decode("utf-8")


def metadata_fields(metadata: str, name: str) -> list[str]:
    """Every value of one core-metadata field (``Requires-Dist``, ``Classifier``, ...)."""
    return Parser().parsestr(metadata).get_all(name) or []


def capped_requirements(metadata: str) -> list[str]:
    """The ``Requires-Dist`` entries that cap or pin a version, or name a direct URL.

    Markers are not specifiers: ``extra == "test"`` is how an extra is written and caps nothing.
    """
    problems = []
    for line in metadata_fields(metadata, "Requires-Dist"):
        req = Requirement(line)
        ops = sorted({s.operator for s in req.specifier} & CAPPING_OPERATORS)
        if ops:
            problems.append(f"{line} (caps with {', '.join(ops)})")
        if req.url:
            problems.append(f"{line} (a direct URL pins one build)")
    return problems


def wheel_content_problems(names: Sequence[str], *, proofs: Sequence[str], certificates: Sequence[str]) -> list[str]:
    """What a wheel lacks or carries that it should not.

    Args:
        names: the wheel's file names.
        proofs: the theorem modules (``*.py`` names) of the source's ``proofs/`` folder.
        certificates: the Coq files (``*.v`` names) of the source's ``proofs/coq/`` folder.
    """
    have = set(names)
    problems = [f"missing {n}" for n in ("ropecheck/py.typed", "ropecheck/__init__.py") if n not in have]
    problems += [f"missing ropecheck/proofs/{p}" for p in proofs if f"ropecheck/proofs/{p}" not in have]
    problems += [f"missing ropecheck/proofs/coq/{v}" for v in certificates if f"ropecheck/proofs/coq/{v}" not in have]
    if not any(fnmatch.fnmatch(n, "*.dist-info/licenses/*") for n in names):
        problems.append("missing the license file under *.dist-info/licenses/")
    for n in names:
        top = n.split("/", 1)[0]
        if top in ("tests", "reports", "proofs", "build") or "/tests/" in n or n.startswith("ropecheck/reports/"):
            problems.append(f"carries {n}")
        elif not (top == "ropecheck" or top.endswith(".dist-info")):
            problems.append(f"carries {n} outside the package")
    return problems


# ------------------------------------------------------------------------------ action

# The inputs the action promises its users (README's CI section shows them).
ACTION_INPUTS = (
    "target",
    "hf-config",
    "head-dim",
    "rotary-dim",
    "base",
    "layout",
    "rope-scaling",
    "max-position-embeddings",
    "dtypes",
    "device",
    "args",
    "python-version",
    "torch-version",
    "torch-index-url",
    "ropecheck-spec",
    "output-dir",
    "artifact-name",
)
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def _steps(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    steps = (doc.get("runs") or {}).get("steps")
    return list(steps) if isinstance(steps, list) else []


def action_problems(doc: Mapping[str, Any]) -> list[str]:
    """What the composite action's definition lacks (structure only; running it is separate)."""
    problems: list[str] = []
    if not isinstance(doc, Mapping):
        return ["the action file is not a mapping"]
    for key in ("name", "description", "inputs", "runs"):
        if key not in doc:
            problems.append(f"no '{key}'")
    inputs = doc.get("inputs") or {}
    for name in ACTION_INPUTS:
        if name not in inputs:
            problems.append(f"no input '{name}'")
        elif not str((inputs[name] or {}).get("description", "")).strip():
            problems.append(f"input '{name}' has no description")
    if str((inputs.get("ropecheck-spec") or {}).get("default", "")) != "ropecheck":
        problems.append("input 'ropecheck-spec' does not default to 'ropecheck'")
    runs = doc.get("runs") or {}
    if runs.get("using") != "composite":
        problems.append("runs.using is not 'composite'")
    steps = _steps(doc)
    if not steps:
        return [*problems, "no steps"]
    uses = [str(s.get("uses", "")) for s in steps]
    setup = [s for s in steps if str(s.get("uses", "")).startswith("actions/setup-python@")]
    if not setup:
        problems.append("no actions/setup-python step")
    elif (setup[0].get("with") or {}).get("python-version") != "${{ inputs.python-version }}":
        problems.append("setup-python does not use inputs.python-version")
    if not any(u.startswith("actions/upload-artifact@") for u in uses):
        problems.append("no actions/upload-artifact step")
    else:
        upload = next(s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact@"))
        if "always()" not in str(upload.get("if", "")):
            problems.append("the upload step does not run when verification fails (if: always())")
    for i, s in enumerate(steps):
        if "run" in s and not s.get("shell"):
            problems.append(f"step {i} ({s.get('name')}) has no shell (composite run steps need one)")
    cpu_index = "download.pytorch.org/whl/cpu"
    index_default = str((inputs.get("torch-index-url") or {}).get("default", ""))
    torch = [s for s in steps if re.search(r"pip install \S*torch\b.*--index-url", str(s.get("run", "")))]
    if not torch or not reaches_run(torch[0], "torch-version"):
        problems.append("no step installs torch at inputs.torch-version from an --index-url")
    elif not (
        cpu_index in str(torch[0]["run"]) or (reaches_run(torch[0], "torch-index-url") and cpu_index in index_default)
    ):
        problems.append(f"torch does not come from its CPU index ({cpu_index})")
    if not any("pip install" in str(s.get("run", "")) and reaches_run(s, "ropecheck-spec") for s in steps):
        problems.append("no step installs ropecheck from inputs.ropecheck-spec")
    verify = [s for s in steps if "ropecheck verify" in str(s.get("run", ""))]
    if not verify:
        problems.append("no step runs ropecheck verify")
    else:
        text = str(verify[0]["run"])
        for needle in ("--json", "--junit", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "exit-code="):
            if needle not in text:
                problems.append(f"the verify step does not use {needle}")
        if verify[0].get("id") != "verify":
            problems.append("the verify step has no id 'verify'")
        spec_inputs = ("target", "hf-config", "head-dim", "rotary-dim", "base", "layout", "rope-scaling")
        for name in (*spec_inputs, "max-position-embeddings", "dtypes", "device", "args", "output-dir"):
            if not reaches_run(verify[0], name):
                problems.append(f"input '{name}' does not reach ropecheck verify")
    last = steps[-1]
    if "steps.verify.outputs.exit-code" not in _step_text(last) or "exit" not in str(last.get("run", "")):
        problems.append("the last step does not exit with the verify step's exit code")
    used = {m.group(1) for s in steps for m in _EXPRESSION.finditer(_step_text(s))}
    used |= {m.group(1) for o in (doc.get("outputs") or {}).values() for m in _EXPRESSION.finditer(str(o))}
    for expr in sorted(used):
        if expr.startswith("inputs.") and expr.removeprefix("inputs.") not in inputs:
            problems.append(f"'{expr}' names no input")
    named = {e.removeprefix("inputs.") for e in used if e.startswith("inputs.")}
    problems += [f"input '{n}' is never used" for n in inputs if n not in named]
    return problems


def reaches_run(step: Mapping[str, Any], name: str) -> bool:
    """Whether input ``name`` reaches the step's script: in it, or through an ``env:`` variable it reads."""
    run = str(step.get("run", ""))
    if re.search(r"\$\{\{\s*inputs\." + re.escape(name) + r"\s*\}\}", run):
        return True
    for var, value in (step.get("env") or {}).items():
        if re.fullmatch(r"\$\{\{\s*inputs\." + re.escape(name) + r"\s*\}\}", str(value)) and re.search(
            r"\$\{?" + re.escape(str(var)) + r"\b", run
        ):
            return True
    return False


def _step_text(step: Mapping[str, Any]) -> str:
    return "\n".join(f"{k}: {v}" for k, v in step.items())


@dataclass
class StepRun:
    """One step of a local action run."""

    name: str
    skipped: str | None = None  # why it did not run (a `uses:` step, or an earlier failure)
    returncode: int | None = None
    stdout: str = ""
    stderr: str = ""


@dataclass
class ActionRun:
    """What a local run of the action's steps did."""

    steps: list[StepRun] = field(default_factory=list)
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    summary: str = ""

    @property
    def exit_code(self) -> int:
        """The job's result as a runner sees it: the first failed step's code, else 0."""
        return next((s.returncode for s in self.steps if s.returncode), 0)

    def step(self, name: str) -> StepRun:
        return next(s for s in self.steps if s.name == name)


def expand(text: str, inputs: Mapping[str, str], outputs: Mapping[str, Mapping[str, str]]) -> str:
    """Evaluate the ``${{ inputs.X }}`` and ``${{ steps.ID.outputs.Y }}`` expressions in ``text``.

    Raises:
        ValueError: another expression, or an input the action does not declare.
    """

    def value(m: re.Match[str]) -> str:
        expr = m.group(1)
        if expr.startswith("inputs."):
            name = expr.removeprefix("inputs.")
            if name not in inputs:
                raise ValueError(f"'{expr}' names no input")
            return inputs[name]
        step = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr)
        if step:
            return outputs.get(step.group(1), {}).get(step.group(2), "")
        raise ValueError(f"the local runner does not evaluate '{expr}'")

    return _EXPRESSION.sub(value, text)


def run_action_steps(
    doc: Mapping[str, Any],
    given: Mapping[str, str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    replace: Mapping[str, str] | None = None,
    timeout: float = 900,
) -> ActionRun:
    """Run the action's ``run:`` steps here with ``given`` inputs (the rest at their defaults).

    ``uses:`` steps are skipped (setup-python and upload-artifact exist only on a runner);
    ``replace`` maps a step id to the command run instead of its own (the torch download, which
    here comes from the constraints file). A step after a failed one runs only with
    ``if: always()``, as on a runner.
    """
    declared = doc.get("inputs") or {}
    unknown = set(given) - set(declared)
    if unknown:
        raise ValueError(f"inputs the action does not declare: {sorted(unknown)}")
    inputs = {name: str((spec or {}).get("default", "")) for name, spec in declared.items()}
    inputs.update(given)
    result = ActionRun()
    summary = cwd / ".github-step-summary.md"
    summary.write_text("")
    failed = False
    for i, step in enumerate(_steps(doc)):
        name = str(step.get("name", f"step {i}"))
        if "uses" in step:
            result.steps.append(StepRun(name, skipped=f"uses {step['uses']}: runs only on a runner"))
            continue
        if failed and "always()" not in str(step.get("if", "")):
            result.steps.append(StepRun(name, skipped="an earlier step failed"))
            continue
        step_id = str(step.get("id", f"step{i}"))
        script = (replace or {}).get(step_id) or expand(str(step["run"]), inputs, result.outputs)
        output_file = cwd / f".github-output-{i}"
        output_file.write_text("")
        step_env = dict(env)
        step_env.update({k: expand(str(v), inputs, result.outputs) for k, v in (step.get("env") or {}).items()})
        step_env.update(GITHUB_OUTPUT=str(output_file), GITHUB_STEP_SUMMARY=str(summary))
        script_file = cwd / f".github-step-{i}.sh"
        script_file.write_text(script)
        # how a runner runs `shell: bash`
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script_file)],
            cwd=cwd,
            env=step_env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        result.steps.append(StepRun(name, returncode=proc.returncode, stdout=proc.stdout, stderr=proc.stderr))
        result.outputs[step_id] = dict(
            line.split("=", 1) for line in output_file.read_text().splitlines() if "=" in line
        )
        failed = failed or proc.returncode != 0
    result.summary = summary.read_text()
    return result


# -------------------------------------------------------------------------------- hook


def hook_problems(doc: Any) -> list[str]:
    """What the pre-commit hook definition lacks."""
    if not isinstance(doc, list):
        return ["the hooks file is not a list of hooks"]
    hooks = {h.get("id"): h for h in doc if isinstance(h, Mapping)}
    hook = hooks.get("ropecheck-verify")
    if hook is None:
        return ["no hook with id 'ropecheck-verify'"]
    problems = []
    expected = {"entry": "ropecheck verify", "language": "python", "pass_filenames": False}
    for key, want in expected.items():
        if hook.get(key) != want:
            problems.append(f"{key} is {hook.get(key)!r}, expected {want!r}")
    for key in ("name", "description"):
        if not str(hook.get(key, "")).strip():
            problems.append(f"no {key}")
    if "args" in hook:
        problems.append("the hook sets args: the user names the target and spec in theirs")
    return problems


def python_names(folder: Path, pattern: str) -> list[str]:
    """Sorted file names in ``folder`` matching ``pattern``."""
    return sorted(p.name for p in folder.glob(pattern) if p.is_file() and not p.name.startswith("."))
