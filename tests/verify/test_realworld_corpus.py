"""The real-world corpus is well formed: metadata, one-line mutants, and correct files that are correct.

Only the corpus is checked here -- each correct file against the fp64 reference directly, under
its declared convention -- not the verifier's verdicts on it.
"""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from ropecheck import RopeSpec
from ropecheck.cli.args import spec_from_args
from ropecheck.cli.main import build_parser
from ropecheck.hf import scaling_from_dict
from ropecheck.reference import apply_rope
from ropecheck.target import load_target
from ropecheck.verify import FINDING_CODES
from ropecheck.verify.model import CAUSE_FAMILIES

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "realworld"
REPO = Path(__file__).resolve().parents[2]
CORRECT = sorted(p for p in CORPUS.glob("*.py") if not p.name.startswith("_"))
MUTANTS = sorted(p for p in (CORPUS / "mutants").glob("*.py") if not p.name.startswith("_"))
CONVENTIONS = {
    "direction": {-1},
    "attention_factor": {"softmax"},
    "rotary_dims": {"last"},
    "output_layout": {"interleaved", "half"},
}
METADATA = {
    "ORIGINAL",
    "EXPECTED",
    "EXPECTED_CAUSE",
    "FLAGS",
    "SPEC",
    "OPTIONS",
    "CONVENTION",
    "ALT_FLAGS",
    "ALT_EXPECTED",
}


def _literal(path: Path, name: str) -> Any:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    return None


def _spec(fields: dict[str, Any]) -> RopeSpec:
    fields = dict(fields)
    max_pos = fields.get("max_position_embeddings")
    scaling = scaling_from_dict(fields.pop("rope_scaling", None), max_position_embeddings=max_pos)
    return RopeSpec(scaling=scaling, **fields)


def _code_lines(path: Path) -> list[str]:
    """The file's lines without its docstring and its metadata assignments (and their comment lines)."""
    text = path.read_text()
    tree = ast.parse(text)
    lines = text.splitlines()
    drop: set[int] = set(range(tree.body[0].end_lineno))  # the module docstring
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) in METADATA for t in node.targets):
            drop.update(range(node.lineno - 1, node.end_lineno))
            if node.lineno >= 2 and lines[node.lineno - 2].startswith("#"):
                drop.add(node.lineno - 2)
    return [line for i, line in enumerate(lines) if i not in drop]


def test_corpus_is_large_enough() -> None:
    assert len(CORRECT) >= 14 and len(MUTANTS) >= 14


def _load(path: Path) -> tuple[Any, Any]:
    """(the target, its module): a TorchScript target has no Python ``__module__``, so look the module up by file."""
    fn = load_target(f"{path}:rope")
    module = next(m for m in list(sys.modules.values()) if getattr(m, "__file__", None) == str(path.resolve()))
    return fn, module


def _arg_names(fn: Any) -> list[str]:
    if hasattr(getattr(fn, "forward", None), "schema"):  # TorchScript module: forward(self, x, ...)
        return [a.name for a in fn.forward.schema.arguments][1:]
    return list(inspect.signature(fn).parameters)


@pytest.mark.parametrize("path", CORRECT, ids=[p.stem for p in CORRECT])
def test_correct_file_metadata(path: Path) -> None:
    doc = ast.get_docstring(ast.parse(path.read_text()))
    assert doc and len(doc.splitlines()) >= 3
    flags = _literal(path, "FLAGS")
    assert isinstance(flags, list) and flags
    for i, flag in enumerate(flags):
        if flag == "--hf-config":
            assert (REPO / flags[i + 1]).is_file(), flags[i + 1]
    for name, value in (_literal(path, "CONVENTION") or {}).items():
        assert name in CONVENTIONS and value in CONVENTIONS[name]
    alt, alt_expected = _literal(path, "ALT_FLAGS"), _literal(path, "ALT_EXPECTED")
    if alt_expected is not None:
        assert len(alt_expected) == len(alt) and all(c is None or c in FINDING_CODES for c in alt_expected)
    # SPEC (Python) and FLAGS (command line) describe the same spec
    _, module = _load(path)
    args = build_parser().parse_args(["verify", "x:rope", *flags])
    assert _spec(module.SPEC).to_dict() == spec_from_args(args).to_dict()


@pytest.mark.parametrize("path", CORRECT, ids=[p.stem for p in CORRECT])
def test_correct_file_matches_the_reference(path: Path) -> None:
    fn, module = _load(path)
    spec = _spec(module.SPEC)
    conv = getattr(module, "CONVENTION", {})
    names = _arg_names(fn)
    x_pos = np.array([[0, 1, 7, 100, 1023], [2047, 5, 3, 4000, 9]])  # inside every file's table
    if spec.max_position_embeddings:
        x_pos = np.minimum(x_pos, spec.max_position_embeddings - 1)
    if len(names) == 1:
        positions = np.arange(16)[None]
    elif "offset" in names[1] or "start" in names[1]:
        positions = np.arange(1000, 1008)[None]
    else:
        positions = x_pos
    x = np.random.default_rng(0).standard_normal(positions.shape + (2, spec.head_dim)).astype(np.float32)
    xt = torch.tensor(x)
    if len(names) == 1:
        got = fn(xt)
    elif positions is x_pos:
        got = fn(xt, torch.tensor(positions))
    else:
        got = fn(xt, int(positions[0, 0]))
    got = got.double().numpy()
    x64 = x.astype(np.float64)
    # the spec carries the convention (direction, rotated dims at the end, factor in the softmax): compare with it,
    # and with the convention written out by hand, so the reference's handling of it is checked too
    want = apply_rope(x64, positions[..., None], spec)
    np.testing.assert_allclose(got, want, atol=2e-3, rtol=0)
    plain = spec.with_(direction=1, rotary_dims="first", attention_factor_in="cos_sin", output_layout=None)
    if conv.get("direction") == -1:
        by_hand = apply_rope(x64, -positions[..., None], plain)
    elif conv.get("rotary_dims") == "last":
        r = spec.rotary_dim
        inner = plain.with_(head_dim=r, rotary_dim=r)
        by_hand = np.concatenate([x64[..., :-r], apply_rope(x64[..., -r:], positions[..., None], inner)], -1)
    elif conv.get("output_layout") == "interleaved" and spec.layout == "half":
        rotated = apply_rope(x64, positions[..., None], plain)  # the halves written back interleaved, by hand
        h = spec.head_dim // 2
        by_hand = np.stack([rotated[..., :h], rotated[..., h:]], axis=-1).reshape(rotated.shape)
    elif conv.get("attention_factor") == "softmax":
        by_hand = apply_rope(x64, positions[..., None], plain) / plain.attention_factor
    else:
        by_hand = want
    np.testing.assert_allclose(got, by_hand, atol=2e-3, rtol=0)


@pytest.mark.parametrize("path", CORRECT, ids=[p.stem for p in CORRECT])
def test_convention_is_a_spec_field(path: Path) -> None:
    """A file's CONVENTION is declared by its FLAGS and carried by its SPEC (a RopeSpec field)."""
    _, module = _load(path)
    conv = getattr(module, "CONVENTION", {})
    spec = _spec(module.SPEC)
    assert spec.direction == conv.get("direction", 1)
    assert spec.attention_factor_in == {"softmax": "softmax"}.get(conv.get("attention_factor", ""), "cos_sin")
    assert spec.rotary_dims == conv.get("rotary_dims", "first")
    assert spec.output_layout == conv.get("output_layout")


@pytest.mark.parametrize("path", MUTANTS, ids=[p.stem for p in MUTANTS])
def test_mutant_changes_one_line_of_its_original(path: Path) -> None:
    doc = ast.get_docstring(ast.parse(path.read_text()))
    assert doc and "Bug class" in doc and "Expected finding" in doc and "was:" in doc and "now:" in doc
    original = CORPUS / _literal(path, "ORIGINAL")
    assert original.is_file()
    assert _literal(path, "EXPECTED") in FINDING_CODES
    cause = _literal(path, "EXPECTED_CAUSE")
    assert cause is None or CAUSE_FAMILIES[cause] == _literal(path, "EXPECTED")
    assert _literal(path, "FLAGS") == _literal(original, "FLAGS")
    a, b = _code_lines(original), _code_lines(path)
    assert len(a) == len(b)
    changed = [(x, y) for x, y in zip(a, b) if x != y]
    assert len(changed) == 1, changed
    was, now = changed[0]
    assert f"was: ``{was.strip()}``" in doc and f"now: ``{now.strip()}``" in doc
