"""Extreme spec values are refused where the arithmetic that uses them would stop being finite.

Each row is a config with one value past its accepted range: the spec is refused with a
``SpecError`` naming the dotted config key and the range, and ``ropecheck spec`` and
``ropecheck verify`` both exit 2 with that same line (never 0, 1 or 70). ropecheck's own memory
for identifying a target is sized before the target runs: a head_dim whose probe matrices do
not fit ``--memory-limit`` is exit 2 saying what ropecheck itself needs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ropecheck import RopeSpec
from ropecheck.cli import main
from ropecheck.errors import SpecError

_BASE: dict[str, Any] = {"hidden_size": 512, "num_attention_heads": 8, "max_position_embeddings": 4096}
_YARN = {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 4096}
_LLAMA3 = {
    "rope_type": "llama3",
    "factor": 8,
    "low_freq_factor": 1,
    "high_freq_factor": 4,
    "original_max_position_embeddings": 8192,
}
_LONGROPE = {
    "rope_type": "longrope",
    "short_factor": [1.0] * 32,
    "long_factor": [1.0] * 32,
    "original_max_position_embeddings": 4096,
}


def _scaled(**params: Any) -> dict[str, Any]:
    return {**_BASE, "rope_scaling": params}


CASES = [
    ("yarn-factor-1e19", _scaled(**{**_YARN, "factor": 1e19}), "rope_scaling.factor", "at most"),
    ("yarn-factor-1e10", _scaled(**{**_YARN, "factor": 1e10}), "rope_scaling.factor", "at most"),
    (
        "yarn-factor-rope-parameters",
        {**_BASE, "rope_parameters": {**_YARN, "factor": 1e10}},
        "rope_parameters.factor",
        "at most",
    ),
    ("yarn-factor-tiny", _scaled(**{**_YARN, "factor": 1e-300}), "rope_scaling.factor", "float32"),
    (
        "yarn-original-2^32",
        _scaled(**{**_YARN, "original_max_position_embeddings": 2**32}),
        "rope_scaling.factor",
        "at most",
    ),
    ("yarn-beta-slow-subnormal", _scaled(**{**_YARN, "beta_slow": 5e-324}), "rope_scaling.beta_slow", "between"),
    ("yarn-beta-fast-huge", _scaled(**{**_YARN, "beta_fast": 1e300}), "rope_scaling.beta_fast", "between"),
    (
        "yarn-attention-factor-huge",
        _scaled(**{**_YARN, "attention_factor": 1e300}),
        "rope_scaling.attention_factor",
        "between",
    ),
    (
        "yarn-attention-factor-tiny",
        _scaled(**{**_YARN, "attention_factor": 1e-300}),
        "rope_scaling.attention_factor",
        "between",
    ),
    (
        "yarn-mscale-huge",
        _scaled(**{**_YARN, "mscale": 1e300, "mscale_all_dim": 1}),
        "rope_scaling.mscale",
        "between",
    ),
    ("llama3-factor-1e10", _scaled(**{**_LLAMA3, "factor": 1e10}), "rope_scaling.factor", "at most"),
    ("dynamic-factor-1e300", _scaled(rope_type="dynamic", factor=1e300), "rope_scaling.factor", "at most"),
    ("dynamic-factor-1e10", _scaled(rope_type="dynamic", factor=1e10), "rope_scaling.factor", "at most"),
    ("longrope-factor-1e300", _scaled(**{**_LONGROPE, "factor": 1e300}), "rope_scaling.factor", "at most"),
    (
        "longrope-attention-huge",
        _scaled(**{**_LONGROPE, "attention_factor": 1e300}),
        "rope_scaling.attention_factor",
        "between",
    ),
    (
        "longrope-short-factor-tiny",
        _scaled(**{**_LONGROPE, "short_factor": [1e-300] * 32}),
        "rope_scaling.short_factor",
        "float32",
    ),
    ("linear-factor-tiny", _scaled(rope_type="linear", factor=1e-300), "rope_scaling.factor", "float32"),
    ("proportional-factor-tiny", _scaled(rope_type="proportional", factor=1e-300), "rope_scaling.factor", "float32"),
    ("rope-theta-tiny", {**_BASE, "rope_theta": 1e-300}, "rope_theta", "float32"),
    ("partial-rotary-factor-tiny", {**_BASE, "partial_rotary_factor": 1e-300}, "partial_rotary_factor", "at least"),
]


@pytest.mark.parametrize("config, key, words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_spec_names_the_config_key(config: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(SpecError) as info:
        RopeSpec.from_hf_config(config)
    assert info.value.field == key, str(info.value)
    assert words in str(info.value) and "\n" not in str(info.value)


_CLI_CASES = ["yarn-factor-1e19", "yarn-factor-1e10", "dynamic-factor-1e300", "yarn-attention-factor-huge"]


@pytest.mark.parametrize("name", _CLI_CASES)
def test_spec_and_verify_both_exit_2_with_the_same_line(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, key = next((c[1], c[2]) for c in CASES if c[0] == name)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    target = tmp_path / "t.py"
    target.write_text("def rope(x, positions):\n    return x\n")
    assert main(["spec", "--hf-config", str(path)]) == 2
    spec_err = capsys.readouterr().err.strip()
    assert main(["verify", f"{target}:rope", "--hf-config", str(path), "--dtype", "float32"]) == 2
    verify_err = capsys.readouterr().err.strip()
    assert key in spec_err and len(spec_err.splitlines()) == 1
    assert spec_err.split("error: ", 1)[1] == verify_err.split("error: ", 1)[1]


def test_ropecheck_own_memory_is_checked_before_the_target_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "t.py"
    target.write_text("raise SystemExit('the target must not be imported')\n")
    argv = ["verify", f"{target}:rope", "--head-dim", "65536", "--memory-limit", "2G", "--dtype", "float32"]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert "ropecheck itself needs" in err and "head_dim 65536" in err and "--memory-limit" in err
    assert len(err.strip().splitlines()) == 1 and "target ran out of memory" not in out + err


def test_own_memory_grows_with_the_square_of_head_dim() -> None:
    from ropecheck.verify.identify import own_memory_bytes

    assert own_memory_bytes(65536, 1) > 32 << 30
    assert own_memory_bytes(128, 40) < 64 << 20
    assert own_memory_bytes(256, 40) == pytest.approx(4 * own_memory_bytes(128, 40), rel=0.01)
