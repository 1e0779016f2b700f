"""`ropecheck verify` on the real-world corpus, with the flags a user of each project would give.

Every correct implementation conforms (exit 0) under its ``FLAGS`` and under each ``ALT_FLAGS``
entry that describes it correctly -- ``--max-position`` alone for a bounded table, a config that
needs ``qk_rope_head_dim``, a TorchScript module, a declared convention. Every one-line mutant
is caught (exit 1) and the first finding names its bug: its family code (``EXPECTED``) and,
where the corpus says, its cause (``EXPECTED_CAUSE``). Flags that misdescribe a correct file on
purpose give the finding ``ALT_EXPECTED`` names.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

from ropecheck.cli.main import main

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "realworld"
REPO = Path(__file__).resolve().parents[2]
CORRECT = sorted(p for p in CORPUS.glob("*.py") if not p.name.startswith("_"))
MUTANTS = sorted(p for p in (CORPUS / "mutants").glob("*.py") if not p.name.startswith("_"))


def _literal(path: Path, name: str) -> Any:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    return None


def _cases() -> list[Any]:
    out = []
    for path in CORRECT:
        out.append(pytest.param(path, _literal(path, "FLAGS"), None, None, id=path.stem))
        alt, expected = _literal(path, "ALT_FLAGS") or [], _literal(path, "ALT_EXPECTED") or []
        for i, flags in enumerate(alt):
            code = expected[i] if i < len(expected) else None
            out.append(pytest.param(path, flags, code, None, id=f"{path.stem}[alt{i}]"))
    for path in MUTANTS:
        out.append(
            pytest.param(
                path,
                _literal(path, "FLAGS"),
                _literal(path, "EXPECTED"),
                _literal(path, "EXPECTED_CAUSE"),
                id=f"mutants/{path.stem}",
            )
        )
    return out


def _verdict(path: Path, flags: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict]:
    monkeypatch.chdir(REPO)  # FLAGS name configs relative to the repository root
    out = tmp_path / "verdict.json"
    code = main(["verify", f"{path.relative_to(REPO)}:rope", *flags, "--device", "cpu", "-q", "--json", str(out)])
    return code, json.loads(out.read_text())


@pytest.mark.parametrize("path, flags, expected, cause", _cases())
def test_realworld_verdict(
    path: Path,
    flags: list[str],
    expected: str | None,
    cause: str | None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, data = _verdict(path, flags, tmp_path, monkeypatch)
    findings = data["findings"]
    if expected is None:
        shown = [(f["code"], f["cause"], f["message"]) for f in findings]
        assert code == 0 and data["conforms"], f"false alarm on correct code {path.name} {flags}: {shown}"
        return
    assert code == 1 and findings, f"missed: {path.name} {flags} conforms"
    first = findings[0]
    assert first["code"] == expected, f"{path.name}: expected {expected} first, got {[f['code'] for f in findings]}"
    if cause is not None:
        assert first["cause"] == cause, f"{path.name}: expected cause {cause}, got {first['cause']}: {first['message']}"
    assert first["message"] and first["hint"]
    assert not first["message"].rstrip().endswith("are not close!")


def test_the_corpus_is_large_enough() -> None:
    assert len(CORRECT) >= 12 and len(MUTANTS) >= 12
