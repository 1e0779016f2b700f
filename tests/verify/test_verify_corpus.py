"""The broken corpus: every target file in fixtures/broken exits 1 with the finding that names its bug."""

from __future__ import annotations

import ast
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from fixtures import BROKEN_AXES
from fixtures.broken import TARGET_FILES
from ropecheck import RopeSpec
from ropecheck.hf import scaling_from_dict
from ropecheck.target import load_target
from ropecheck.verify import DEFAULT_DTYPES, FINDING_CODES, verify
from ropecheck.verify.supervise import Loaded, verify_isolated

FILES = TARGET_FILES


def _module(path: Path) -> ModuleType:
    """The fixture's metadata without running it (a target may exit or crash when imported)."""
    tree = ast.parse(path.read_text())
    module = ModuleType(path.stem)
    module.__doc__ = ast.get_docstring(tree)
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in ("SPEC", "EXPECTED", "OPTIONS", "ISOLATED"):
                setattr(module, node.targets[0].id, ast.literal_eval(node.value))
    return module


def _spec(module: ModuleType) -> RopeSpec:
    fields = dict(module.SPEC)
    scaling = scaling_from_dict(
        fields.pop("rope_scaling", None), max_position_embeddings=fields.get("max_position_embeddings")
    )
    return RopeSpec(scaling=scaling, **fields)


def test_corpus_is_large_enough() -> None:
    assert len(FILES) >= 20


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_broken_target_is_caught_with_its_finding(path: Path) -> None:
    module = _module(path)
    spec = _spec(module)
    assert module.__doc__ and "Expected finding" in module.__doc__ and "Bug class" in module.__doc__
    assert module.EXPECTED in FINDING_CODES
    options = getattr(module, "OPTIONS", {})
    if getattr(module, "ISOLATED", False):  # it ends or crashes the process: judged from a child process
        report = verify_isolated(
            lambda: Loaded(load_target(f"{path}:rope"), path.stem),
            spec=spec,
            name=path.stem,
            dtypes=DEFAULT_DTYPES,
            device="cpu",
            memory_limit=4 << 30,
            **options,
        )
    else:
        report = verify(load_target(f"{path}:rope"), spec, device="cpu", **options)
    codes = [f.code for f in report.findings]
    assert not report.conforms and report.exit_code == 1
    # the first finding (the first line a user reads) names the bug
    assert codes[0] == module.EXPECTED, (
        f"{path.stem}: expected {module.EXPECTED} first, got {codes}: {[f.message for f in report.findings]}"
    )
    finding = report.findings[0]
    assert finding.message and finding.hint
    cause = getattr(module, "EXPECTED_CAUSE", None)
    if cause is not None:  # the real-world mistake behind the code, named
        assert finding.cause == cause, f"{path.stem}: expected cause {cause}, got {finding.cause}: {finding.message}"


def _literal(path: Path, name: str) -> Any:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    return None


def test_every_finding_code_is_shown_on_a_broken_input() -> None:
    """Every family code and every cause is what some kept broken input must be reported with first.

    The broken corpus here, the real-world mutants (``tests/verify/test_realworld_verdicts.py``) and the backward
    mutants (``tests/verify/test_backward.py``)."""
    shown = set()
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    mutants = sorted((fixtures / "realworld" / "mutants").glob("*.py"))
    mutants += sorted((fixtures / "backward" / "mutants").glob("*.py"))
    # and the multi-axis corpus (tests/verify/test_multi_axis_verify.py runs it)
    multi_axis = [p for p in sorted(BROKEN_AXES.glob("*.py")) if not p.name.startswith("_")]
    # and the q/k corpus (tests/verify/test_qk.py runs it)
    multi_axis += sorted((fixtures / "qk" / "broken").glob("*.py"))
    for path in [*FILES, *mutants, *multi_axis]:
        shown |= {_literal(path, "EXPECTED"), _literal(path, "EXPECTED_CAUSE")} - {None}
    assert shown <= set(FINDING_CODES)
    # codes shown by the unit tests of test_verify.py / test_identify.py instead of a corpus file
    elsewhere = {"shape", "device", "not_tensor", "relative_position", "not_rotation"}
    assert set(FINDING_CODES) - shown <= elsewhere
