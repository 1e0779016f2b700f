"""The fp64 reference: its three forms agree, and each is what it claims to be."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from ropecheck import Linear, Llama3, RopeSpec, YaRN
from ropecheck.errors import UsageError
from ropecheck.reference import FORMS, angles, apply_rope, cos_sin, layout_permutation, phases, rope_matrix, rotate

TOL = 1e-12
DIMS = (2, 4, 8, 64, 128, 256)
POSITIONS = np.array([0, 1, 2, 3, 17, 1000, 4095, 65536, 123457, 10**6])


def _specs():
    for d in DIMS:
        for layout in ("interleaved", "half"):
            yield pytest.param(RopeSpec(head_dim=d, layout=layout), id=f"d{d}-{layout}")
            if d >= 8:
                yield pytest.param(
                    RopeSpec(head_dim=d, rotary_dim=d // 4 * 2 if d // 4 * 2 < d else 2, layout=layout),
                    id=f"d{d}-partial-{layout}",
                )
    yield pytest.param(RopeSpec(head_dim=128, base=5e5, scaling=Llama3(8.0, 1.0, 4.0, 8192)), id="llama3")
    yield pytest.param(RopeSpec(head_dim=64, scaling=YaRN(4.0, 4096)), id="yarn-scaled")


@pytest.mark.parametrize("spec", list(_specs()))
def test_three_forms_agree(spec: RopeSpec) -> None:
    rng = np.random.default_rng(spec.head_dim)
    # leading shape (batch=2, seq=len(POSITIONS), heads=3) with per-row positions
    x = rng.standard_normal((2, len(POSITIONS), 3, spec.head_dim))
    pos = np.stack([POSITIONS, POSITIONS[::-1]])[:, :, None]
    outs = {form: apply_rope(x, pos, spec, form=form) for form in FORMS}
    for form in FORMS:
        diff = np.abs(outs[form] - outs["matrix"]).max()
        assert diff <= TOL, f"{form} vs matrix: {diff:.2e}"


def test_form_comparison_has_teeth() -> None:
    """The agreement tolerance is far below what a sign error in one form produces."""
    spec = RopeSpec(head_dim=8)
    x = np.random.default_rng(0).standard_normal((5, 8))
    pos = np.arange(5)
    c, s = cos_sin(spec, pos)
    sign_reversed = x * np.concatenate([c, c], -1) - rotate(x, "half") * np.concatenate([s, s], -1)
    assert np.abs(sign_reversed - apply_rope(x, pos, spec, form="matrix")).max() > 1e3 * TOL


@pytest.mark.parametrize("d", DIMS)
@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_matrix_form_is_block_diagonal_rotations(d: int, layout: str) -> None:
    spec = RopeSpec(head_dim=d, layout=layout)
    m = rope_matrix(spec, 12345)
    pairs = spec.pairs()
    mask = np.zeros((d, d), dtype=bool)
    c, s = cos_sin(spec, 12345)
    for i, (a, b) in enumerate(pairs):
        block = m[np.ix_([a, b], [a, b])]
        np.testing.assert_allclose(block, [[c[i], -s[i]], [s[i], c[i]]], rtol=0, atol=0)
        assert abs(np.linalg.det(block) - 1) < TOL
        mask[np.ix_([a, b], [a, b])] = True
    assert not m[~mask].any(), "entries outside the 2x2 blocks must be zero"
    np.testing.assert_allclose(m.T @ m, np.eye(d), atol=TOL)


def test_partial_rotary_matrix_is_identity_past_rotary_dim() -> None:
    spec = RopeSpec(head_dim=64, rotary_dim=16)
    m = rope_matrix(spec, 999)
    np.testing.assert_array_equal(m[16:, 16:], np.eye(48))
    assert not m[16:, :16].any() and not m[:16, 16:].any()


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_elementwise_form_is_x_cos_plus_rotate_x_sin(layout: str) -> None:
    spec = RopeSpec(head_dim=16, layout=layout)
    x = np.random.default_rng(1).standard_normal((4, 16))
    pos = np.array([0, 5, 77, 10**5])
    c, s = cos_sin(spec, pos)
    expand = (lambda t: np.concatenate([t, t], -1)) if layout == "half" else (lambda t: np.repeat(t, 2, -1))
    expected = x * expand(c) + rotate(x, layout) * expand(s)
    np.testing.assert_array_equal(apply_rope(x, pos, spec, form="elementwise"), expected)
    # rotate() really is (-x_b, x_a) on each pair (a, b)
    r = rotate(x, layout)
    for a, b in spec.pairs():
        np.testing.assert_array_equal(r[:, a], -x[:, b])
        np.testing.assert_array_equal(r[:, b], x[:, a])


def test_complex_form_is_multiplication_by_unit_phasor() -> None:
    spec = RopeSpec(head_dim=8, layout="interleaved")
    x = np.random.default_rng(2).standard_normal(8)
    out = apply_rope(x, 9, spec, form="complex")
    z = x[0::2] + 1j * x[1::2]
    np.testing.assert_allclose(out[0::2] + 1j * out[1::2], z * np.exp(1j * 9 * spec.inv_freq()), atol=1e-14)


@pytest.mark.parametrize("d,r", [(8, 8), (64, 64), (64, 16), (256, 128)])
def test_layout_permutation_maps_interleaved_to_half(d: int, r: int) -> None:
    perm = layout_permutation(r, d)
    assert sorted(perm) == list(range(d))
    inter = RopeSpec(head_dim=d, rotary_dim=r, layout="interleaved")
    half = inter.with_(layout="half")
    x = np.random.default_rng(3).standard_normal((len(POSITIONS), d))
    np.testing.assert_allclose(
        apply_rope(x[:, perm], POSITIONS, half), apply_rope(x, POSITIONS, inter)[:, perm], atol=TOL
    )
    # the pairs land where the permutation says
    inv = np.argsort(perm)
    for (a, b), (ha, hb) in zip(inter.pairs(), half.pairs()):
        assert (inv[a], inv[b]) == (ha, hb)


def test_wrong_permutation_is_caught() -> None:
    d = 8
    wrong = np.arange(d)  # identity is not the layout map
    inter, half = RopeSpec(head_dim=d, layout="interleaved"), RopeSpec(head_dim=d, layout="half")
    x = np.random.default_rng(4).standard_normal((3, d))
    pos = np.array([1, 2, 3])
    assert np.abs(apply_rope(x[:, wrong], pos, half) - apply_rope(x, pos, inter)[:, wrong]).max() > 1e-3


@pytest.mark.parametrize("m", [0, 1, 2**20 + 7, 2**26 - 3, 2**31 + 12345, 2**32 - 1, -(2**31)])
def test_phases_are_exact_at_large_positions(m: int) -> None:
    spec = RopeSpec(head_dim=64, base=500000.0)
    with mpmath.workdps(60):
        exact = [float((m * t) % (2 * mpmath.pi)) for t in spec.inv_freq_mp()]
    got = phases(spec, m)
    err = np.abs((got - np.array(exact) + np.pi) % (2 * np.pi) - np.pi)
    assert err.max() <= 4e-15


def test_plain_fp64_angles_are_not_enough_past_2_20() -> None:
    """Why the exact path exists: fp64 m*theta drifts measurably at large m."""
    spec = RopeSpec(head_dim=64)
    m = 2**31 + 12345
    drift = np.abs(((angles(spec, m) - phases(spec, m)) + np.pi) % (2 * np.pi) - np.pi).max()
    assert drift > 1e-9


def test_attention_factor_scales_every_form() -> None:
    spec = RopeSpec(head_dim=32, scaling=YaRN(factor=16.0, original_max_position_embeddings=2048))
    x = np.random.default_rng(5).standard_normal((3, 32))
    pos = np.array([0, 10, 100])
    for form in FORMS:
        scaled = apply_rope(x, pos, spec, form=form)
        pure = apply_rope(x, pos, spec, form=form, scaled=False)
        np.testing.assert_allclose(scaled, spec.attention_factor * pure, atol=1e-13)
        np.testing.assert_allclose(np.linalg.norm(pure, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-13)


def test_length_dependent_schedule_uses_max_position() -> None:
    from ropecheck import DynamicNTK

    spec = RopeSpec(head_dim=16, scaling=DynamicNTK(factor=2.0, original_max_position_embeddings=100))
    x = np.ones((1, 16))
    short = apply_rope(x, np.array([50]), spec)
    assert np.array_equal(short, apply_rope(x, np.array([50]), spec, seq_len=100))
    assert not np.allclose(apply_rope(x, np.array([50]), spec, seq_len=1000), short)


def test_linear_schedule_equals_position_interpolation() -> None:
    base, cos_sin_scaled = RopeSpec(head_dim=16), RopeSpec(head_dim=16, scaling=Linear(4.0))
    np.testing.assert_allclose(phases(cos_sin_scaled, 400), phases(base, 100), atol=1e-15)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda s: apply_rope(np.ones(7), 0, s), "last dimension head_dim=8"),
        (lambda s: apply_rope(np.ones((2, 8)), np.zeros(3, dtype=int), s), "do not broadcast"),
        (lambda s: apply_rope(np.ones(8), 0.5, s), "must be integers"),
        (lambda s: apply_rope(np.ones(8), 2**33, s), "2^32-1"),
        (lambda s: apply_rope(np.ones(8), 0, s, form="polar"), "form must be one of"),
        (lambda s: layout_permutation(7, 8), "rotary_dim must be even"),
        (lambda s: rotate(np.ones(8), "zigzag"), "layout must be"),
    ],
    ids=["wrong-width", "bad-broadcast", "float-positions", "too-large", "bad-form", "odd-permutation", "bad-layout"],
)
def test_bad_arguments(call, message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("^", r"\^")):
        call(RopeSpec(head_dim=8))
