"""Precision: policies measured against the exact reference, the error model, reproductions."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import requires_cuda

from ropecheck import RopeSpec
from ropecheck import _precision_repro as repro
from ropecheck import precision as P
from ropecheck.errors import UsageError

SPEC = RopeSpec(head_dim=64)
# position bands tested: low, the 8k range, and past fp32's comfortable range
BANDS = [(0, 256), (4096, 8192), (60000, 70000)]
CAREFUL = ("fp64-angles", "fp32-angles", "input-dtype-cache")
CARELESS = ("bf16-inv-freq", "fp16-inv-freq", "bf16-positions", "fp16-cache", "tf32-matmul-angles")
DEVICES = ["cpu", pytest.param("cuda", marks=[pytest.mark.gpu, requires_cuda])]


def _band(lo: int, hi: int, n: int = 600) -> np.ndarray:
    return np.unique(np.linspace(lo, hi - 1, n).astype(np.int64))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", P.DTYPES)
@pytest.mark.parametrize("name", CAREFUL)
def test_careful_policies_within_bound(name: str, dtype: str, device: str) -> None:
    for lo, hi in BANDS:
        pos = _band(lo, hi)
        m = P.measure(SPEC, name, dtype, pos, device=device)
        for kind in P.SOURCES:
            bound = P.error_bound(SPEC, dtype, pos, kind=kind, policy_name=name)
            bad = np.nonzero(m[kind][0] > bound)[0]
            assert bad.size == 0, (name, dtype, kind, pos[bad][:3], m[kind][0][bad][:3], bound[bad][:3])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", P.DTYPES)
@pytest.mark.parametrize("name", CARELESS + ("input-dtype-angles",))
def test_careless_policies_exceed_bound(name: str, dtype: str, device: str) -> None:
    if P.POLICIES[name].is_careful(dtype):
        pytest.skip("input-dtype angles are fp32 angles in float32: careful there")
    lo, hi = BANDS[1]
    pos = _band(lo, hi)
    m = P.measure(SPEC, name, dtype, pos, device=device)
    for kind in ("angle", "output"):
        bound = P.error_bound(SPEC, dtype, pos, kind=kind, policy_name="input-dtype-cache")
        assert (m[kind][0] > bound).any(), (name, dtype, kind)


def test_bound_is_not_vacuous() -> None:
    """The bound is within ~10x of what fp32 angles really reach (it would not catch anything otherwise)."""
    pos = _band(*BANDS[2])
    m = P.measure(SPEC, "fp32-angles", "float32", pos)
    bound = P.error_bound(SPEC, "float32", pos, kind="angle")
    assert m["angle"][0].max() > bound.max() / 10


def test_error_bound_rejects_careless_policy_and_bad_kind() -> None:
    with pytest.raises(UsageError, match="not careful"):
        P.error_bound(SPEC, "bfloat16", 10, policy_name="bf16-inv-freq")
    with pytest.raises(UsageError, match="kind"):
        P.error_bound(SPEC, "bfloat16", 10, kind="nope")
    with pytest.raises(UsageError, match="unknown policy"):
        P.policy("fp8-angles")


def test_tolerance_at_grows_with_position_and_dtype() -> None:
    r0, a_small = P.tolerance_at("bfloat16", 1024, 128)
    _, a_large = P.tolerance_at("bfloat16", 1 << 20, 128)
    _, a_fp32 = P.tolerance_at("float32", 1024, 128)
    _, a_fp64 = P.tolerance_at("float64", 1024, 128)
    assert r0 == 0.0 and a_fp64 < a_fp32 < a_small < a_large
    assert a_small < 0.05  # bf16: a few u_bf16


def test_fp32_angle_limit() -> None:
    lim = P.fp32_angle_limit(RopeSpec(head_dim=128))
    assert lim["bound"] == 55925  # 1e-2 / (gamma_3(2^-24) + 2^-52), theta_max = 1
    measured = P.fp32_angle_limit(RopeSpec(head_dim=128), measured_up_to=1 << 18)["measured"]
    assert measured is not None and lim["bound"] <= measured < 1 << 18


def test_round_tf32() -> None:
    x = torch.tensor([1.0 + 2.0**-10, 1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 8191.0, 8193.0])
    assert P.round_tf32(x).tolist() == [1.0 + 2.0**-10, 1.0, 1.0 + 2 * 2.0**-10, 8192.0, 8192.0]


# ------------------------------------------------------------------ reproductions


def test_bf16_positions_collapse_to_8192() -> None:
    rows = {r["position"]: r for r in repro.bf16_position_collapse()["rows"]}
    for p in (8188, 8189, 8190, 8191):
        assert rows[p]["bf16_position"] == 8192.0
        assert rows[p]["pair0_angle_error_rad"] == pytest.approx(8192 - p, abs=1e-9)  # theta_0 = 1
        assert rows[p]["output_error"] > 100 * rows[p]["careful_output_error"]
    assert rows[8192]["output_error"] < 0.02


def test_fp16_angle_table_reproduces_gpt_neox_numbers() -> None:
    r = repro.fp16_angle_table(head_dim=32, base=10000.0)
    assert r["angle_exact"] == pytest.approx(1044.2678, abs=1e-4)
    assert r["angle_fp16"] == 1045.0
    assert r["max_abs_dcos"] == pytest.approx(0.78, abs=0.005)
    # the careful policy on the same table is at fp16's rounding floor
    m = P.measure(RopeSpec(head_dim=32), "input-dtype-cache", "float16", np.arange(2048))
    assert m["cos_sin"][0].max() < 1e-3


def test_bf16_inv_freq_error_grows_linearly() -> None:
    r = repro.inv_freq_bf16_crossing(head_dim=64, dtype="bfloat16")
    assert r["first_position"] is not None and 50 < r["first_position"] < 2000
    spec = RopeSpec(head_dim=64)
    pos = np.array([1000, 2000, 4000])
    ang = P.measure(spec, "bf16-inv-freq", "bfloat16", pos)["angle"][0]
    assert ang[1] / ang[0] == pytest.approx(2, rel=0.1) and ang[2] / ang[1] == pytest.approx(2, rel=0.1)


def test_relative_violation_grows_in_bf16_not_fp32() -> None:
    r = repro.relative_violation_curve(lengths=(64, 512, 8192), n_vectors=2)
    bf16, fp32 = r["curves"]["bf16"], r["curves"]["fp32"]
    assert bf16[-1] > 10 * bf16[0] and bf16[-1] > 0.1
    assert max(fp32) < 1e-4 and all(f < b / 100 for f, b in zip(fp32, bf16))
    bound = P.error_bound(RopeSpec(head_dim=128), "float32", 8192, kind="relative")
    assert fp32[-1] <= bound


# ------------------------------------------------------------------ CUDA: the real thing


@pytest.mark.gpu
@requires_cuda
def test_tf32_matmul_on_cuda_matches_the_policy() -> None:
    """transformers forms inv_freq @ positions as a matmul; with TF32 on, the operands lose 13 bits."""
    spec = RopeSpec(head_dim=128)
    pos = np.arange(4096, 8192, dtype=np.int64)
    inv = torch.tensor(spec.inv_freq(), dtype=torch.float32, device="cuda")
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        real = (inv[None, :, None] @ torch.tensor(pos, device="cuda", dtype=torch.float32)[None, None, :])[0].T
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old
    err = np.abs(P._wrap(real.double().cpu().numpy() - P.phases(spec, pos))).max()
    assert err > P.error_bound(spec, "float32", pos, kind="angle").max()
    sim = P.policy_angles(P.POLICIES["tf32-matmul-angles"], spec.inv_freq(), pos, "float32").double().numpy()
    sim_err = np.abs(P._wrap(sim - P.phases(spec, pos))).max()
    assert 0.1 < err / sim_err < 10  # same order; cuBLAS may round the operands differently


def test_measure_impl_black_box() -> None:
    from ropecheck._protocol import torch_reference

    spec = RopeSpec(head_dim=64)
    m = P.measure_impl(spec, torch_reference(spec), "bfloat16", np.arange(0, 4096, 64))
    assert np.isnan(m["cos_sin"][0]).all()
    assert (m["output"][0] <= P.error_bound(spec, "bfloat16", np.arange(0, 4096, 64), policy_name="input-dtype-cache")).all()
