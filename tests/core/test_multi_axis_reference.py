"""The fp64 reference with one position per axis (M-RoPE, 2-D axial), in all three forms.

With every axis at the same position M-RoPE is 1-D RoPE; each pair's phase is the 1-D phase of
its axis's position, exact at every position as in 1-D; and the reference agrees with the
rotary modules of the installed transformers (fp32 angles: 1e-5 at positions below 100).
"""

from __future__ import annotations

import numpy as np
import pytest

from ropecheck import RopeSpec
from ropecheck.axes import axial, mrope
from ropecheck.errors import UsageError
from ropecheck.reference import FORMS, apply_rope, pair_positions, phases, rope_matrix

SPECS = {
    "mrope": RopeSpec(head_dim=16, base=1e6, axes=mrope((2, 3, 3), 16)),
    "mrope-interleaved": RopeSpec(head_dim=16, base=5e6, axes=mrope((4, 2, 2), 16, interleaved=True)),
    "axial-shared": RopeSpec(head_dim=16, axes=axial(16, "shared")),
    "axial-alternating": RopeSpec(head_dim=16, axes=axial(16, "alternating")),
    "mrope-partial-interleaved-layout": RopeSpec(
        head_dim=24, rotary_dim=16, layout="interleaved", axes=mrope((2, 3, 3), 16)
    ),
}


def _positions(spec: RopeSpec, rng: np.random.Generator, high: int = 2**31) -> np.ndarray:
    return rng.integers(-high, high, size=(len(spec.axis_names), 2, 5))  # (axes, batch, seq)


@pytest.mark.parametrize("name", list(SPECS))
def test_forms_agree_and_axes_first_equals_last(name: str) -> None:
    spec = SPECS[name]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 3, spec.head_dim))
    pos = _positions(spec, rng)[..., None]  # (axes, batch, seq, 1): broadcast over heads
    outs = [apply_rope(x, pos, spec, form=f, axes_at="first") for f in FORMS]
    for out in outs[1:]:
        np.testing.assert_allclose(out, outs[0], rtol=0, atol=1e-12)
    last = apply_rope(x, np.moveaxis(pos, 0, -1), spec, axes_at="last")
    np.testing.assert_array_equal(last, outs[FORMS.index("elementwise")])
    # norm preserved, pass-through dims untouched
    np.testing.assert_allclose(np.linalg.norm(outs[0], axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-12)
    np.testing.assert_array_equal(outs[0][..., spec.rotary_dim :], x[..., spec.rotary_dim :])


@pytest.mark.parametrize("name", ["mrope", "mrope-interleaved", "mrope-partial-interleaved-layout"])
def test_text_tokens_reduce_to_1d(name: str) -> None:
    spec = SPECS[name]
    one_d = spec.with_(axes=None)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 5, spec.head_dim))
    p = rng.integers(0, 2**32 - 1, size=(2, 5))
    same = np.stack([p] * 3)
    np.testing.assert_array_equal(apply_rope(x, same, spec, axes_at="first"), apply_rope(x, p, one_d))
    np.testing.assert_array_equal(apply_rope(x, p, spec), apply_rope(x, p, one_d))  # no axes_at: one position


@pytest.mark.parametrize("name", list(SPECS))
def test_each_pair_turns_exactly_by_its_axis(name: str) -> None:
    spec = SPECS[name]
    rng = np.random.default_rng(2)
    pos = _positions(spec, rng, high=2**32 - 1)
    ph = phases(spec, pos, axes_at="first")  # (batch, seq, pairs)
    axis_of = spec.axis_of_pair()
    for a in range(len(spec.axis_names)):
        exact = phases(spec, pos[a])  # the exact 1-D phases at axis a's positions
        np.testing.assert_array_equal(ph[..., axis_of == a], exact[..., axis_of == a])


def test_rope_matrix_per_axis() -> None:
    spec = SPECS["mrope"]
    m = rope_matrix(spec, (3, 5, 7))
    x = np.eye(spec.head_dim)
    np.testing.assert_allclose(m, apply_rope(x, np.array([3, 5, 7]), spec, axes_at="last").T, atol=1e-15)
    np.testing.assert_array_equal(rope_matrix(spec, 4), rope_matrix(spec.with_(axes=None), 4))


@pytest.mark.parametrize(
    ("spec", "positions", "axes_at", "words"),
    [
        (SPECS["mrope"], np.zeros((2, 4)), "first", "3 axes (t, h, w) in their first dimension"),
        (SPECS["axial-shared"], np.zeros((4, 3)), "last", "2 axes (h, w) in their last dimension"),
        (RopeSpec(head_dim=8), np.zeros((3, 4)), "first", "need a multi-axis spec"),
        (SPECS["mrope"], np.zeros((3, 4)), "middle", "'first' or 'last'"),
    ],
    ids=["mrope-two-axes", "axial-three-axes", "1d-spec", "bad-axes-at"],
)
def test_bad_per_axis_positions(spec: RopeSpec, positions: np.ndarray, axes_at: str, words: str) -> None:
    with pytest.raises(UsageError, match=words.replace("(", r"\(").replace(")", r"\)")):
        pair_positions(spec, positions.astype(np.int64), axes_at)  # type: ignore[arg-type]


def test_against_transformers_qwen2_vl_and_pixtral() -> None:
    torch = pytest.importorskip("torch", reason="torch is a test extra")
    pytest.importorskip("transformers", reason="transformers is a test extra")
    from transformers.models.pixtral.configuration_pixtral import PixtralVisionConfig
    from transformers.models.pixtral.modeling_pixtral import PixtralVisionRotaryEmbedding
    from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLTextConfig
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLRotaryEmbedding, apply_rotary_pos_emb

    rng = np.random.default_rng(3)
    cfg = Qwen2VLTextConfig(
        hidden_size=64,
        num_attention_heads=4,
        rope_scaling={"type": "mrope", "mrope_section": [2, 3, 3]},
        rope_theta=1e6,
    )
    spec = SPECS["mrope"]
    x = rng.standard_normal((2, 5, 4, 16))
    pos = rng.integers(0, 100, size=(3, 2, 5))
    cos, sin = Qwen2VLRotaryEmbedding(cfg)(torch.zeros(1, dtype=torch.float64), torch.from_numpy(pos))
    xt = torch.from_numpy(x).transpose(1, 2)  # (B, H, S, D)
    ours = apply_rope(x, pos[..., None], spec, axes_at="first")
    theirs, _ = apply_rotary_pos_emb(xt, xt, cos.double(), sin.double())
    np.testing.assert_allclose(theirs.transpose(1, 2).numpy(), ours, atol=1e-5)

    vis = PixtralVisionRotaryEmbedding(PixtralVisionConfig(hidden_size=64, num_attention_heads=4))
    spec2 = SPECS["axial-alternating"]
    patches = rng.integers(0, 64, size=(7, 2))  # (seq, axes): row, column
    cos, sin = vis(torch.zeros(1), torch.from_numpy(patches))
    x2 = rng.standard_normal((7, 16))
    theirs2 = (
        torch.from_numpy(x2) * cos.double()
        + torch.cat([-torch.from_numpy(x2[:, 8:]), torch.from_numpy(x2[:, :8])], -1) * sin.double()
    )
    np.testing.assert_allclose(theirs2.numpy(), apply_rope(x2, patches, spec2, axes_at="last"), atol=1e-5)
