"""Precision: policies measured against the exact reference, the error model, reproductions."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import ropecheck.precision as P
from ropecheck import RopeSpec
from ropecheck.errors import UsageError
from ropecheck.precision import repro
from ropecheck.reference import phases

SPEC = RopeSpec(head_dim=64)
# position bands tested: low, the 8k range, and past fp32's comfortable range
BANDS = [(0, 256), (4096, 8192), (60000, 70000)]
CAREFUL = ("fp64-angles", "fp32-angles", "input-dtype-cache")
CARELESS = ("bf16-inv-freq", "fp16-inv-freq", "bf16-positions", "fp16-cache", "tf32-matmul-angles")
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


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
            bound = P.error_bound(SPEC, dtype, pos, kind=kind, policy_name=name, device=device)
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
        bound = P.error_bound(SPEC, dtype, pos, kind=kind, policy_name="input-dtype-cache", device=device)
        assert (m[kind][0] > bound).any(), (name, dtype, kind)


@pytest.mark.parametrize("name", CAREFUL)
def test_careful_policies_within_bound_on_every_band(name: str) -> None:
    """A full sweep (every position below 2^15, every band of the table) stays within the bound."""
    from ropecheck.precision import run_sweep

    sw = run_sweep(RopeSpec(head_dim=128), target=name, dtypes=P.DTYPES, max_position=1 << 15, progress=False)
    rows = sw.rows()
    assert all(r["careful"] for r in rows) and len({(r["band_lo"], r["band_hi"]) for r in rows}) == 10
    assert sw.failures() == [], sw.failures()[:3]


@pytest.mark.parametrize("name", CARELESS + ("input-dtype-angles",))
def test_careless_policies_exceed_bound_in_a_sweep(name: str) -> None:
    from ropecheck.precision import run_sweep

    dtypes = tuple(dt for dt in P.DTYPES if not P.POLICIES[name].is_careful(dt))
    sw = run_sweep(RopeSpec(head_dim=128), target=name, dtypes=dtypes, max_position=1 << 13, progress=False)
    for dt in dtypes:
        over = [r for r in sw.rows() if r["dtype"] == dt and r["source"] == "output" and r["within_bound"] is False]
        assert over and over[0]["bound_policy"] == "input-dtype-cache", (name, dt)


def test_bound_is_not_vacuous() -> None:
    """The bound is within ~10x of what careful policies really reach (it would not catch anything otherwise)."""
    pos = _band(*BANDS[2])
    m = P.measure(SPEC, "fp32-angles", "float32", pos)
    assert m["angle"][0].max() > P.error_bound(SPEC, "float32", pos, kind="angle").max() / 10
    m = P.measure(SPEC, "input-dtype-cache", "bfloat16", _band(*BANDS[0]))
    assert (
        m["output"][0].max() > P.error_bound(SPEC, "bfloat16", 255, kind="output", policy_name="input-dtype-cache") / 10
    )


@pytest.mark.parametrize("device", ["cpu", "cuda"])
@pytest.mark.parametrize("dtype", ("float64",) + P.DTYPES)
def test_shared_tolerance_covers_the_error_model(dtype: str, device: str) -> None:
    """The verifier's per-element bound (rtol + atol, unit scale) >= the model's sqrt(2) E(p), and near it."""
    from ropecheck.tolerance import tolerance

    for p in (0, 1, 100, 4096, 65536, 1 << 20):
        rtol, atol = tolerance(dtype, "rotation", max_position=p)
        model = P.tolerance_at(dtype, p, 128, device=device)[1]
        assert model <= rtol + atol <= 3 * model, (dtype, device, p, rtol + atol, model)


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
    scan = P.fp32_angle_limit(RopeSpec(head_dim=128), measured_up_to=1 << 18)
    assert scan["measured"] == 151363 and lim["bound"] <= scan["measured"]  # the figure in the docs
    assert 1.0 < scan["slope_u32"] < 1.5  # measured slope, well below the bound's gamma_3 ~ 3 u_32


def test_round_tf32() -> None:
    x = torch.tensor([1.0 + 2.0**-10, 1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 8191.0, 8193.0, 2051.0])
    assert P.round_tf32(x).tolist() == [1.0 + 2.0**-10, 1.0, 1.0 + 2 * 2.0**-10, 8192.0, 8192.0, 2052.0]
    assert P.round_tf32(x, "truncate").tolist() == [1.0 + 2.0**-10, 1.0, 1.0 + 2.0**-10, 8188.0, 8192.0, 2050.0]
    with pytest.raises(UsageError, match="mode"):
        P.round_tf32(x, "stochastic")


def test_nonfinite_output_counts_as_infinite_error() -> None:
    """fp16 positions overflow at 65520: the error there is inf, never a NaN that a max would skip."""
    pos = np.array([1000, 65504, 65519, 65520, 70000])
    m = P.measure(RopeSpec(head_dim=32), "fp16-cache", "float16", pos)
    assert np.isfinite(m["output"][0][:3]).all()
    for src in P.SOURCES:
        assert np.isinf(m[src][0][3:]).all() and np.isinf(m[src][1][3:]).all(), src


def test_measure_in_pieces_matches_one_call() -> None:
    pos = np.arange(0, 3 * P.MAX_ROWS + 17)
    x = np.random.default_rng(1).standard_normal((pos.size, 2, 16, 2))
    whole = P.measure(RopeSpec(head_dim=32), "input-dtype-angles", "bfloat16", pos, x=x)
    for i in (0, P.MAX_ROWS, 3 * P.MAX_ROWS):
        part = P.measure(RopeSpec(head_dim=32), "input-dtype-angles", "bfloat16", pos[i : i + 17], x=x[i : i + 17])
        for src in P.SOURCES:
            np.testing.assert_array_equal(whole[src][0][i : i + 17], part[src][0])


# ------------------------------------------------------------------ reproductions


def test_bf16_positions_collapse_to_8192() -> None:
    r = repro.bf16_position_collapse()
    assert r["collapsed_to_8192"] == [8176, 8224]
    rows = {r["position"]: r for r in r["rows"]}
    for p in (8188, 8189, 8190, 8191):
        assert rows[p]["bf16_position"] == 8192.0
        assert rows[p]["pair0_angle_error_rad"] == pytest.approx(8192 - p, abs=1e-9)  # theta_0 = 1
        assert rows[p]["autocast_pair0_angle_error_rad"] == pytest.approx(8192 - p, abs=1e-9)
        assert rows[p]["angle_error_rad"] > 0.9 and rows[p]["autocast_angle_error_rad"] > 2.5
        assert rows[p]["output_error"] > 50 * rows[p]["careful_output_error"]
        assert rows[p]["output_error"] > 0.9 and rows[p]["autocast_output_error"] > 1.9
        assert rows[p]["careful_output_error"] <= rows[p]["careful_bound"] < 0.02
    assert rows[8192]["output_error"] < 0.02 and rows[8192]["autocast_output_error"] > 1  # autocast: bf16 angles too


def test_fp16_angle_table_reproduces_gpt_neox_numbers() -> None:
    r = repro.fp16_angle_table(head_dim=32, base=10000.0)
    assert r["angle_exact"] == pytest.approx(1044.2678, abs=1e-4)
    assert r["params"]["theta_fp16"] == 0.5625 and r["angle_fp16"] == 1045.0
    assert r["max_abs_dcos"] == pytest.approx(0.78, abs=0.005)
    assert r["careful_max_abs_dcos"] < 1e-3


def test_bf16_inv_freq_error_grows_linearly() -> None:
    r = repro.inv_freq_bf16_crossing(head_dim=128, dtype="bfloat16")
    assert r["params"]["inv_freq_entries"] == 64
    assert r["first_position"] == 61 and r["first_position_vs_bound"] == 138
    assert r["measured_angle_slope_rad_per_position"] == pytest.approx(
        r["phase_error_slope_rad_per_position"], rel=1e-3
    )
    a = r["angle_error_at"]
    assert a["2000"] / a["1000"] == pytest.approx(2, rel=0.01) and a["1000"] / a["100"] == pytest.approx(10, rel=0.01)
    assert repro.inv_freq_bf16_crossing(head_dim=64, dtype="bfloat16")["first_position"] == 184


def test_relative_violation_grows_in_bf16_not_fp32() -> None:
    r = repro.relative_violation_curve(lengths=(64, 512, 8192), n_vectors=2)
    bf16, fp32, careful = r["curves"]["bf16"], r["curves"]["fp32"], r["curves"]["bf16-careful"]
    assert bf16[-1] > 10 * bf16[0] and bf16[-1] > 0.1
    assert max(fp32) < 1e-4 and all(f < b / 1000 for f, b in zip(fp32, bf16))
    assert all(f <= b for f, b in zip(fp32, r["bounds"]["fp32"]))
    assert all(c <= b for c, b in zip(careful, r["bounds"]["bf16-careful"])) and careful[-1] < 2 * careful[0]


def test_tf32_matmul_angles() -> None:
    r = repro.tf32_matmul_angles()
    assert r["modes"]["nearest"]["tf32_positions"][:3] == [2047.0, 2048.0, 2052.0]
    assert r["modes"]["truncate"]["tf32_positions"][5] == 8188.0
    for mode in ("nearest", "truncate"):
        assert 0.05 < r["modes"][mode]["max_angle_error_rad_0_2047"] < 1.0  # inv_freq's rounding only
        assert r["modes"][mode]["max_angle_error_rad_2048_8191"] > 3.0  # positions move by up to 2..4
    assert r["careful_output_bound_8191"] < 0.01
    assert r["output_error_max_2048_8191"] > 1.9 > r["careful_output_error_max_2048_8191"]
    assert r["output_error_max_0_2047"] > 100 * r["careful_output_bound_8191"]


# ------------------------------------------------------------------ CUDA: the real thing


@pytest.mark.gpu
def test_tf32_matmul_on_cuda_matches_the_policy() -> None:
    """transformers forms inv_freq @ position_ids as a matmul; with TF32 on, the operands lose 13 bits."""
    spec = RopeSpec(head_dim=128)
    pos = np.arange(2048, 8192, dtype=np.int64)
    inv = torch.tensor(spec.inv_freq(), dtype=torch.float32, device="cuda")
    p = torch.tensor(pos, device="cuda", dtype=torch.float32)
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try:  # transformers' shapes: (batch, h, 1) @ (batch, 1, seq), batch 2
        real = (inv[None, :, None].expand(2, -1, 1) @ p[None, None, :].expand(2, 1, -1))[0].T
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old
    plain = p[:, None] * inv[None, :]
    if torch.equal(real, plain):
        pytest.skip("cuBLAS ran this K=1 matmul without TF32 on this GPU (nothing to compare)")
    exact = phases(spec, pos)
    err = np.abs(P.wrap_angle(real.double().cpu().numpy() - exact)).max()
    assert err > P.error_bound(spec, "float32", pos, kind="angle", device="cuda").max()
    sims = {
        mode: P.policy_angles(P.POLICIES["tf32-matmul-angles"], spec.inv_freq(), pos, "float32", tf32_mode=mode).cpu()
        for mode in ("nearest", "truncate")
    }
    assert any(torch.equal(real.cpu(), s) for s in sims.values()), "TF32 result matches neither rounding mode"


@pytest.mark.gpu
def test_cuda_fma_and_cos_stay_within_the_cuda_bound() -> None:
    """On CUDA, cos/sin may be off by 2 ulps and a fused kernel rounds less: the device bound holds."""
    spec = RopeSpec(head_dim=128)
    pos = np.arange(0, 1 << 14, 7)
    for dt in P.DTYPES:
        cpu = P.measure(spec, "input-dtype-cache", dt, pos, device="cpu")
        gpu = P.measure(spec, "input-dtype-cache", dt, pos, device="cuda")
        for kind in ("cos_sin", "rotation", "output"):
            assert (
                gpu[kind][0] <= P.error_bound(spec, dt, pos, kind=kind, policy_name="input-dtype-cache", device="cuda")
            ).all()
        np.testing.assert_allclose(gpu["angle"][0], cpu["angle"][0], rtol=0, atol=1e-12)  # same fp32 product


@pytest.mark.gpu
def test_a_cuda_sweep_measures_what_the_cpu_sweep_does() -> None:
    """The same chunks and q/k on both devices: fp32 angles are the same IEEE products, errors agree, bounds hold."""
    from ropecheck.precision.sweep import CHUNK, run_sweep

    spec = RopeSpec(head_dim=128)
    for name in ("fp32-angles", "input-dtype-cache", "bf16-inv-freq"):
        kw = dict(target=name, dtypes=P.DTYPES, max_position=3 * CHUNK + 5, progress=False, chunk=CHUNK)
        cpu, gpu = run_sweep(spec, device="cpu", **kw), run_sweep(spec, device="cuda", **kw)
        assert all(v["held"] for v in gpu.verdicts()) and all(v["held"] for v in cpu.verdicts())
        for rc, rg in zip(cpu.rows(), gpu.rows(), strict=True):
            if rc["source"] == "angle":
                assert rg["max"] == pytest.approx(rc["max"], rel=0, abs=1e-12), rc
            elif rc["source"] in ("output", "rotation") and rc["dtype"] == "float32":
                assert rg["max"] == pytest.approx(rc["max"], rel=0.5), rc  # cos/sin may differ by an ulp or two


def test_a_sweep_given_its_chunk_is_the_same_in_pieces_of_any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """The GPU measures large pieces (DEVICE_ROWS), the CPU cache-sized ones: the figures do not depend on it."""
    import importlib

    from ropecheck.precision.sweep import render_csv, run_sweep

    M = importlib.import_module("ropecheck.precision.measure")  # the package's `measure` is the function

    kw = dict(target="input-dtype-cache", dtypes=P.DTYPES, max_position=3000, progress=False, chunk=1024)
    small = run_sweep(RopeSpec(head_dim=32), **kw)
    monkeypatch.setattr(M, "max_rows", lambda device: 256)
    pieces = run_sweep(RopeSpec(head_dim=32), **kw)
    assert render_csv(small) == render_csv(pieces)


def test_measure_impl_black_box() -> None:
    from ropecheck.protocol import torch_reference

    spec = RopeSpec(head_dim=64)
    m = P.measure_impl(spec, torch_reference(spec), "bfloat16", np.arange(0, 4096, 64))
    assert np.isnan(m["cos_sin"][0]).all()
    assert (
        m["output"][0] <= P.error_bound(spec, "bfloat16", np.arange(0, 4096, 64), policy_name="input-dtype-cache")
    ).all()


def test_sweep_threads_do_not_change_the_result() -> None:
    from ropecheck.precision.sweep import render_csv, run_sweep

    kw = dict(target="input-dtype-angles", dtypes=P.DTYPES, max_position=1500, progress=False, chunk=256)
    one = run_sweep(RopeSpec(head_dim=32), workers=1, **kw)
    two = run_sweep(RopeSpec(head_dim=32), workers=2, **kw)
    assert render_csv(one) == render_csv(two)


def test_sweep_verdicts() -> None:
    from ropecheck.precision import run_sweep

    good = run_sweep(
        RopeSpec(head_dim=64), target="input-dtype-cache", dtypes=("bfloat16",), max_position=3000, progress=False
    )
    bad = run_sweep(
        RopeSpec(head_dim=64), target="bf16-inv-freq", dtypes=("bfloat16",), max_position=3000, progress=False
    )
    (g,), (b,) = good.verdicts(), bad.verdicts()
    assert g["expected"] == "within" and g["held"] and g["first_over"] is None and g["worst_ratio"] < 1
    assert b["expected"] == "exceeds" and b["held"] and b["first_over"][0] < 256 and b["worst_ratio"] > 10
    assert b["bound_policy"] == "input-dtype-cache"


def test_a_plot_does_not_change_with_the_last_digits_of_a_measurement() -> None:
    """Two CPUs measure a float32 statistic alike to ~6 digits: the plot drawn from it is the same."""
    from ropecheck.precision.sweep import violation_plot

    lengths = [2**k for k in range(4, 10)]
    here = [3.0517578e-05, 6.1035156e-05, 1.2207031e-04, 2.4414062e-04, 4.8828125e-04, 9.765625e-04]
    there = [v * (1 + 3e-7) for v in here]  # another vector width, another order of additions
    elsewhere = [v * 1.01 for v in here]  # a different measurement
    plot = lambda ys: violation_plot({"lengths": lengths, "curves": {"fp32": ys}})
    assert plot(here) == plot(there)
    assert plot(here) != plot(elsewhere)
