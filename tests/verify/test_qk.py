"""q/k targets judged without a wrapper (ropecheck.qk, ropecheck.verify.qk), and the output-layout convention."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ropecheck import RopeSpec, verify
from ropecheck.cli.main import main
from ropecheck.errors import SpecError, UsageError
from ropecheck.qk import pair_from_cos_sin, probe_layout, qk_kind
from ropecheck.reference import apply_rope
from ropecheck.target import load_target

QK = Path(__file__).resolve().parents[1] / "fixtures" / "qk"
FAST = {"dtypes": ("float32",), "backward": False}


def _fixture(name: str, attr: str) -> object:
    return load_target(f"{QK / name}:{attr}")


def _causes(report: object) -> set[str]:
    return {f.label for f in report.findings}  # type: ignore[attr-defined]


def test_the_shapes_are_read_from_the_signature() -> None:
    assert qk_kind(_fixture("vllm_forward.py", "rope")) == "positions_query_key"  # a module: its forward's names
    assert qk_kind(_fixture("q_k_positions_bshd.py", "apply_rope")) == "query_key_positions"
    assert qk_kind(_fixture("hf_llama_pair.py", "apply_rotary_pos_emb")) == "cos_sin"
    assert qk_kind(lambda x, positions: x) is None


def test_the_layout_is_probed_not_declared() -> None:
    bshd = _fixture("q_k_positions_bshd.py", "apply_rope")
    assert probe_layout(bshd, "query_key_positions", 64) == "bshd"
    module = _fixture("hf_llama_pair.py", "LlamaRotaryEmbedding")(64)  # type: ignore[operator]
    hf = pair_from_cos_sin(_fixture("hf_llama_pair.py", "apply_rotary_pos_emb"), module)  # type: ignore[arg-type]
    assert probe_layout(hf, "query_key_positions", 64) == "bhsd"
    with pytest.raises(UsageError, match="cannot tell"):
        probe_layout(lambda q, k, positions: (q, k), "query_key_positions", 8)  # no rotation: nothing varies


def test_vllm_shaped_forward_conforms_without_a_wrapper() -> None:
    report = verify(_fixture("vllm_forward.py", "rope"), RopeSpec(head_dim=128, max_position_embeddings=4096), **FAST)
    assert report.conforms, [f.message for f in report.findings]
    names = {c.name for c in report.checks}
    assert {"query:precision", "key:precision", "qk:scores", "qk:independent:key"} <= names
    assert report.convention == "q/k, tokens flattened"


def test_key_one_position_ahead_is_named() -> None:
    fn = load_target(f"{QK / 'broken' / 'vllm_key_one_ahead.py'}:rope")
    report = verify(fn, RopeSpec(head_dim=128, max_position_embeddings=4096), **FAST)
    assert not report.conforms
    shifted = [f for f in report.findings if f.cause == "qk_shifted"]
    assert shifted and "the key is rotated at positions shifted by +1" in shifted[0].message
    assert "positions/positions_shifted" in _causes(report)  # the key side's own finding, named as the key's
    assert any(f.message.startswith("key: positions are off by +1") for f in report.findings)


def test_hf_pair_conforms_and_its_key_from_query_twin_is_named() -> None:
    spec = RopeSpec(head_dim=64, max_position_embeddings=2048)
    for name, ok in (("hf_llama_pair.py", True), ("broken/hf_k_embed_from_q.py", False)):
        rotary = _fixture(name, "LlamaRotaryEmbedding")(64)  # type: ignore[operator]
        fn = pair_from_cos_sin(_fixture(name, "apply_rotary_pos_emb"), rotary)  # type: ignore[arg-type]
        report = verify(fn, spec, **FAST)
        assert report.conforms is ok, [f.message for f in report.findings]
        if not ok:
            crossed = [f for f in report.findings if f.cause == "qk_cross_wired"]
            assert crossed and crossed[0].message.startswith("the key is rotated from the query's input")
            assert {c.name: c.status for c in report.checks}["qk:independent:query"] == "pass"


def test_cli_finds_the_rotary_module_beside_apply(tmp_path: Path) -> None:
    out = tmp_path / "v.json"
    target = f"{QK / 'hf_llama_pair.py'}:apply_rotary_pos_emb"
    code = main(["verify", target, "--head-dim", "64", "--max-position-embeddings", "2048", "--dtype", "float32",
                 "--no-backward", "--json", str(out), "--quiet"])  # fmt: skip
    assert code == 0, json.loads(out.read_text())["findings"]
    twin = f"{QK / 'broken' / 'hf_k_embed_from_q.py'}:apply_rotary_pos_emb"
    code = main(["verify", twin, "--head-dim", "64", "--max-position-embeddings", "2048", "--dtype", "float32",
                 "--no-backward", "--json", str(out), "--quiet"])  # fmt: skip
    assert code == 1 and any(f["cause"] == "qk_cross_wired" for f in json.loads(out.read_text())["findings"])


def test_cli_rotary_flag_is_refused_for_a_target_with_its_own_cos_sin(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["verify", f"{QK / 'vllm_forward.py'}:rope", "--head-dim", "128", "--rotary", "x.py:y", "--quiet"])
    assert code == 2 and "--rotary is for an apply(q, k, cos, sin) target" in capsys.readouterr().err


def test_a_shared_output_layout_is_one_finding_and_declared_conforms() -> None:
    spec = RopeSpec(head_dim=64, layout="interleaved", max_position_embeddings=4096)
    rotary = _fixture("deepseek_interleave_pair.py", "DeepseekV3RotaryEmbedding")(64)  # type: ignore[operator]
    fn = pair_from_cos_sin(_fixture("deepseek_interleave_pair.py", "apply_rotary_pos_emb_interleave"), rotary)  # type: ignore[arg-type]
    undeclared = verify(fn, spec, **FAST)
    assert [f.label for f in undeclared.findings] == ["layout/output_layout"]
    assert undeclared.findings[0].message.startswith("query and key:")
    assert "standard RoPE's (qk:scores passes)" in undeclared.findings[0].message
    assert "--output-layout half" in undeclared.findings[0].hint
    assert verify(fn, spec.with_(output_layout="half"), **FAST).conforms


BROKEN = sorted((QK / "broken").glob("*.py"))


@pytest.mark.parametrize("path", BROKEN, ids=[p.stem for p in BROKEN])
def test_broken_q_k_targets_fail_first_with_their_finding(path: Path, tmp_path: Path) -> None:
    """Each broken q/k fixture, judged as a user would (the CLI, in the child), names its bug first."""
    import ast

    meta = {
        t.id: ast.literal_eval(n.value)
        for n in ast.parse(path.read_text()).body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name) and t.id in ("FLAGS", "EXPECTED", "EXPECTED_CAUSE")
    }
    src = path.read_text()
    attr = next(a for a in ("apply_rotary_pos_emb", "apply_rope", "rope") if f"def {a}(" in src or f"{a} = " in src)
    out = tmp_path / "v.json"
    code = main(["verify", f"{path}:{attr}", *meta["FLAGS"], "--dtype", "float32", "--no-backward", "--quiet",
                 "--json", str(out)])  # fmt: skip
    first = json.loads(out.read_text())["findings"][0]
    assert code == 1 and first["code"] == meta["EXPECTED"] and first["cause"] == meta["EXPECTED_CAUSE"], first


def test_output_layout_is_a_spec_field() -> None:
    spec = RopeSpec(head_dim=8, output_layout="interleaved")
    assert spec.output_order().tolist() == [0, 2, 4, 6, 1, 3, 5, 7]
    assert RopeSpec(head_dim=8, output_layout="half").output_layout is None  # written back where read
    assert spec.to_dict()["output_layout"] == "interleaved" and "written back interleaved" in spec.describe()
    x = np.random.default_rng(0).standard_normal((3, 8))
    plain = apply_rope(x, 5, spec.with_(output_layout=None))
    np.testing.assert_array_equal(apply_rope(x, 5, spec), np.stack([plain[:, :4], plain[:, 4:]], -1).reshape(3, 8))
    with pytest.raises(SpecError, match="output_layout"):
        RopeSpec(head_dim=8, output_layout="diagonal")  # type: ignore[arg-type]


def test_the_pytest_plugin_judges_q_k_targets_the_same_way() -> None:
    from ropecheck.pytest_plugin import RopeChecker

    checker = RopeChecker(isolate=False)
    spec = RopeSpec(head_dim=64, base=500000.0, layout="interleaved", max_position_embeddings=8192)
    results = checker.check(_fixture("q_k_positions_bshd.py", "apply_rope"), spec=spec, dtype="float32")  # type: ignore[arg-type]
    names = {r.name for r in results}
    assert {"query:relative_position", "key:relative_position", "qk:scores", "qk:independent:key"} <= names
    rotary = _fixture("broken/hf_k_embed_from_q.py", "LlamaRotaryEmbedding")(64)  # type: ignore[operator]
    crossed = pair_from_cos_sin(_fixture("broken/hf_k_embed_from_q.py", "apply_rotary_pos_emb"), rotary)  # type: ignore[arg-type]
    with pytest.raises(AssertionError, match="qk:independent:key") as failure:
        checker.check(crossed, spec=RopeSpec(head_dim=64, max_position_embeddings=2048), dtype="float32")
    assert "the key's output moves" in str(failure.value) and "query:relative_position" not in str(failure.value)
