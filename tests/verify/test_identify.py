"""Identification from matrices: layouts, partial rotary, scale, direction, frequencies, and the words of compare()."""

from __future__ import annotations

import numpy as np
import pytest

from ropecheck import Linear, RopeSpec, YaRN
from ropecheck.protocol import as_implementation, reference_impl, torch_reference
from ropecheck.reference import rope_matrix
from ropecheck.verify.compare import compare, matrix_deviation
from ropecheck.verify.identify import analyse, apparent_position, identify, probe_positions


def _mats(spec: RopeSpec, positions: list[int], **kw) -> np.ndarray:
    return np.stack([rope_matrix(spec, p, **kw) for p in positions])


POS = probe_positions(131071)


def test_probe_positions_cover_small_and_large() -> None:
    assert POS[:9] == list(range(9)) and POS[-1] == 131071 and 4095 in POS and 4096 in POS


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("rotary_dim", [64, 32])
def test_reference_identifies_exactly(layout: str, rotary_dim: int) -> None:
    spec = RopeSpec(head_dim=64, rotary_dim=rotary_dim, layout=layout, base=500000.0)
    ident = analyse(_mats(spec, POS), POS, dtype="float64")
    assert ident.is_rotation and ident.layout == layout and ident.rotary_dim == rotary_dim
    assert ident.direction == "standard" and ident.geometric and ident.index_shift == 0
    assert ident.base == pytest.approx(500000.0, rel=1e-6)
    np.testing.assert_allclose(ident.inv_freq, spec.inv_freq(), rtol=1e-9)
    assert compare(ident, spec) == []
    assert matrix_deviation(ident, spec)[0] is None


def test_scaled_schedules_are_described_not_misread() -> None:
    spec = RopeSpec(head_dim=64, scaling=YaRN(4.0, 4096))
    ident = analyse(_mats(spec, POS), POS, dtype="float64")
    assert ident.scale == pytest.approx(spec.attention_factor)
    assert compare(ident, spec) == []
    unscaled = compare(ident, RopeSpec(head_dim=64))
    assert {d.code for d in unscaled} >= {"scale", "frequencies"}


def test_linear_factor_in_words() -> None:
    got = RopeSpec(head_dim=32, scaling=Linear(2.0))
    ident = analyse(_mats(got, POS[:20]), POS[:20], dtype="float64")
    (d,) = [d for d in compare(ident, RopeSpec(head_dim=32, scaling=Linear(4.0))) if d.code == "frequencies"]
    assert "divided by 2" in d.message and "linear factor 4" in d.message


def test_reversed_and_layout_words() -> None:
    spec = RopeSpec(head_dim=16)
    mats = _mats(spec, POS[:12])
    ident = analyse(np.transpose(mats, (0, 2, 1)), POS[:12], dtype="float64")  # R^T = R_{-m}
    assert ident.direction == "reversed"
    assert [d.code for d in compare(ident, spec)] == ["direction"]
    inter = compare(analyse(mats, POS[:12], dtype="float64"), spec.with_(layout="interleaved"))
    assert inter[0].code == "layout" and "half-split, expected interleaved" in inter[0].message


def test_not_a_rotation_and_nonfinite() -> None:
    spec = RopeSpec(head_dim=8)
    mats = _mats(spec, POS[:10])
    mats[:, 0, 5] = 0.3  # dim 0 mixes with a dim of another pair
    ident = analyse(mats, POS[:10], dtype="float64")
    assert not ident.is_rotation and compare(ident, spec)[0].code == "not_rotation"
    mats[3, 1, 1] = np.nan
    assert compare(analyse(mats, POS[:10], dtype="float64"), spec)[0].code == "nonfinite"


def test_apparent_position_of_a_clamped_cache() -> None:
    spec = RopeSpec(head_dim=16)
    pos = POS[:20]
    mats = _mats(spec, [min(p, 63) for p in pos])
    ident = analyse(mats, pos, dtype="float64")
    k = pos.index(100) if 100 in pos else len(pos) - 1
    assert apparent_position(ident, k) == pytest.approx(63, abs=1e-6)


def test_identify_calls_each_convention() -> None:
    spec = RopeSpec(head_dim=8)
    for fn in (torch_reference(spec), reference_impl(spec)):
        ident = identify(as_implementation(fn), 8, max_position=4095, dtype="float32")
        assert ident.layout == "half" and compare(ident, spec) == []

    def implicit(x):  # fn(x): positions 0..seq-1
        import torch

        return torch_reference(spec)(x, torch.arange(x.shape[1])[None].expand(x.shape[0], -1))

    ident = identify(as_implementation(implicit), 8, max_position=4095, dtype="float32")
    assert max(ident.positions) == 4095 and compare(ident, spec) == []
