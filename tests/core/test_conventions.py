"""The spec's conventions: rotation direction, where the attention factor goes, which end holds the rotated dims.

Each is a field of ``RopeSpec`` with its own validation, read from a flag of the shared spec
arguments, shown by ``ropecheck spec``, and honoured by the reference in all three forms and by
the torch reference.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from ropecheck import RopeSpec, YaRN
from ropecheck.cli.main import main
from ropecheck.errors import SpecError
from ropecheck.hf import spec_fields
from ropecheck.protocol import torch_reference
from ropecheck.reference import FORMS, apply_rope, layout_permutation, rope_matrix

YARN = YaRN(4.0, 4096)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        (dict(direction=0), "direction"),
        (dict(direction=2), "direction"),
        (dict(direction=True), "direction"),
        (dict(attention_factor_in="logits"), "attention_factor_in"),
        (dict(rotary_dims="middle"), "rotary_dims"),
    ],
    ids=["direction-0", "direction-2", "direction-bool", "factor-place", "rotary-dims"],
)
def test_bad_convention_values(kwargs: dict, field: str) -> None:
    with pytest.raises(SpecError) as info:
        RopeSpec(head_dim=8, **kwargs)
    assert info.value.field == field


def test_defaults_are_the_hf_conventions_and_describe_is_unchanged() -> None:
    spec = RopeSpec(head_dim=8)
    assert (spec.direction, spec.attention_factor_in, spec.rotary_dims) == (1, "cos_sin", "first")
    assert spec.conventions == {}
    assert spec.describe() == "half-split RoPE, head_dim=8, rotary_dim=8, base=10000, schedule=default"
    d = spec.to_dict()
    assert (d["direction"], d["attention_factor_in"], d["rotary_dims"]) == (1, "cos_sin", "first")


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(direction=-1),
        dict(rotary_dim=4, rotary_dims="last"),
        dict(rotary_dim=4, rotary_dims="last", layout="interleaved", direction=-1),
        dict(scaling=YARN, attention_factor_in="softmax"),
    ],
    ids=["reversed", "last-dims", "last-interleaved-reversed", "factor-in-softmax"],
)
def test_every_form_and_the_torch_reference_honour_the_conventions(kwargs: dict) -> None:
    spec = RopeSpec(head_dim=8, **kwargs)
    rng = np.random.default_rng(0)
    x, p = rng.standard_normal((2, 3, 2, 8)), rng.integers(0, 5000, (2, 3))
    outs = [apply_rope(x, p[..., None], spec, form=f) for f in FORMS]
    for out in outs[1:]:
        np.testing.assert_allclose(out, outs[0], atol=1e-12)
    got = torch_reference(spec)(torch.tensor(x), torch.tensor(p)).numpy()
    np.testing.assert_allclose(got, outs[0], atol=1e-9)


def test_reversed_direction_is_the_rotation_by_minus_the_position() -> None:
    x, p = np.random.default_rng(1).standard_normal((1, 4, 1, 16)), np.array([[0, 3, 700, 2**31]])
    got = apply_rope(x, p[..., None], RopeSpec(head_dim=16, direction=-1))
    np.testing.assert_allclose(got, apply_rope(x, -p[..., None], RopeSpec(head_dim=16)), atol=1e-13)
    m = rope_matrix(RopeSpec(head_dim=4, direction=-1), 5)
    np.testing.assert_allclose(m, rope_matrix(RopeSpec(head_dim=4), 5).T, atol=1e-15)


def test_last_rotary_dims_rotate_the_tail_and_pass_the_head_through() -> None:
    spec = RopeSpec(head_dim=12, rotary_dim=4, rotary_dims="last", layout="interleaved")
    assert spec.rotated_dims().tolist() == [8, 9, 10, 11] and spec.pairs().tolist() == [[8, 9], [10, 11]]
    x, p = np.random.default_rng(2).standard_normal((1, 2, 1, 12)), np.array([[5, 9]])
    got = apply_rope(x, p[..., None], spec)
    np.testing.assert_array_equal(got[..., :8], x[..., :8])
    inner = RopeSpec(head_dim=4, layout="interleaved")
    np.testing.assert_allclose(got[..., 8:], apply_rope(x[..., 8:], p[..., None], inner), atol=1e-15)
    assert layout_permutation(4, 12, start=8).tolist() == list(range(8)) + [8, 10, 9, 11]


def test_attention_factor_in_the_softmax_leaves_the_rope_output_unscaled() -> None:
    spec = RopeSpec(head_dim=8, scaling=YARN, attention_factor_in="softmax")
    assert spec.attention_factor == 1.0 and spec.schedule_attention_factor == pytest.approx(0.1 * np.log(4) + 1)
    assert "in the softmax scale" in spec.describe()
    plain = RopeSpec(head_dim=8, scaling=YARN)
    np.testing.assert_allclose(spec.inv_freq(), plain.inv_freq())


def test_the_flags_set_the_conventions_and_spec_shows_them(tmp_path, capsys) -> None:
    out = tmp_path / "s.json"
    argv = ["spec", "--head-dim", "8", "--rotary-dim", "4", "--direction", "-1", "--rotary-dims", "last"]
    assert main([*argv, "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["spec"]["direction"] == -1 and data["spec"]["rotary_dims"] == "last"
    assert data["pairs"][0]["pair"] == [4, 6]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "direction: -1" in text and "rotated dims: last (4-7)" in text
    with pytest.raises(SystemExit) as info:
        main(["spec", "--head-dim", "8", "--direction", "2"])
    assert info.value.code == 2


def test_mla_configs_take_the_rope_part_of_the_head() -> None:
    fields = spec_fields({"hidden_size": 7168, "num_attention_heads": 128, "qk_rope_head_dim": 64})
    assert fields["head_dim"] == 64 and fields["rotary_dim"] == 64


def test_mla_partial_rotary_factor_is_relative_to_the_full_head() -> None:
    # Mistral 4 / Dots 3 style: partial_rotary_factor = qk_rope_head_dim / (qk_nope_head_dim + qk_rope_head_dim)
    config = {
        "head_dim": 128,
        "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 64,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5},
    }
    fields = spec_fields(config)
    assert fields["head_dim"] == 64 and fields["rotary_dim"] == 64
