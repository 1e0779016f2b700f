"""The one prepared GPU run (``python -m ropecheck.report.gpu``, ``.ci/gpu``): what it counts and judges, on the CPU.

Its CUDA steps run only on a GPU (their results are in ``reports/gpu/``); here: the dry run without CUDA writes
nothing, the JUnit counting tells a skip for lack of CUDA from other skips, a kernel's verdict is "held" only
when it is the one the kernel must have (a correct kernel that fails, a planted bug that passes, or a bug caught
by the wrong checks are NOT HELD), and the sweep step keeps to its budget, saying so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ropecheck.errors import UsageError
from ropecheck.report import gpu as G

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="4">
<testcase classname="tests.precision.test_precision" name="test_a[cuda]"/>
<testcase classname="tests.precision.test_precision" name="test_b[cuda]">
  <failure message="assert 2.0 &lt;= 1.0">trace</failure></testcase>
<testcase classname="tests.verify.test_gpu_kernels" name="test_c">
  <skipped message="CUDA is not available on this machine"/></testcase>
<testcase classname="tests.verify.test_gpu_kernels" name="test_d">
  <skipped message="could not import 'liger_kernel'"/></testcase>
</testsuite></testsuites>
"""


def test_junit_counts_tell_a_missing_cuda_from_other_skips(tmp_path: Path) -> None:
    path = tmp_path / "junit.xml"
    path.write_text(JUNIT)
    c = G._junit_counts(path)
    assert (c["collected"], c["passed"], c["failed"], c["skipped"], c["skipped_for_lack_of_cuda"]) == (4, 1, 1, 2, 1)
    assert c["failures"][0]["test"].endswith("test_b[cuda]") and "2.0" in c["failures"][0]["message"]


def _verdict(conforms: bool, failing: tuple[str, ...]) -> dict:
    checks = [{"name": n, "status": "fail"} for n in failing]
    checks += [{"name": "interface", "status": "pass"}, {"name": "backward", "status": "pass"}]
    return {"conforms": conforms, "checks": checks, "findings": [], "options": {"dtypes": ["float32"]}}


KERNEL = {k.name: k for k in G.KERNELS}


@pytest.mark.parametrize(
    ("kernel", "conforms", "failing", "held"),
    [
        ("triton-rope", True, (), "held"),
        ("triton-rope", False, ("angles",), "NOT HELD"),  # a correct kernel judged wrong
        ("triton-rope-forward-bug", False, ("angles", "property:relative_position"), "held"),
        ("triton-rope-forward-bug", True, (), "NOT HELD"),  # the planted bug missed
        ("triton-rope-forward-bug", False, ("backward",), "NOT HELD"),  # a forward bug the forward checks missed
        ("triton-rope-backward-bug", False, ("backward",), "held"),
        ("triton-rope-backward-bug", False, ("backward", "angles"), "NOT HELD"),  # caught by the wrong check
        ("liger", False, ("backward:double",), "held"),
        ("liger", False, ("backward:double", "precision"), "NOT HELD"),
    ],
)
def test_a_kernel_verdict_is_held_only_when_it_is_the_one_it_must_have(
    kernel: str, conforms: bool, failing: tuple[str, ...], held: str
) -> None:
    row = G._held(KERNEL[kernel], _verdict(conforms, failing))
    assert row["status"] == held
    assert row["forward"] == ("fail" if any(not f.startswith("backward") for f in failing) else "pass")


def test_a_missing_library_is_a_skip_with_its_reason() -> None:
    row = G.judge_kernel(G.Kernel("x", "a kernel", ("--adapter", "x"), True, module="no_such_module_here"), Path(), 60)
    assert row["status"] == "skip" and "no_such_module_here does not import" in row["reason"]


def test_the_sweep_step_keeps_to_its_budget_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(G, "SWEEP_ORDER", ("fp32-angles", "bf16-inv-freq"))  # a careful and a careless one
    roomy, tight = G.Run(cuda=False), G.Run(cuda=False)
    G.sweeps(roomy, 1 << 11, budget=3600.0, device="cpu", floor=1 << 9)
    G.sweeps(tight, 1 << 11, budget=0.0, device="cpu", floor=1 << 9)
    assert [s["positions"] for s in roomy.sweeps] == [1 << 11] * 2 and not roomy.notes
    assert [s["positions"] for s in tight.sweeps] == [1 << 9] * 2
    assert any("fewer positions than 2048" in n for n in tight.notes)
    assert all(all(v["held"] for v in s["verdicts"]) for s in roomy.sweeps)  # careful within, careless over
    assert "precision/fp32-angles-d128-cpu-n2048.csv" in roomy.files


def test_the_dry_run_without_cuda_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("CUDA is available: the run would not be a dry run")
    monkeypatch.chdir(tmp_path)
    assert G.main(["--compare-positions", "2048", "--skip", "tests,kernels"]) == 0
    assert list(tmp_path.iterdir()) == []
    assert G.main(["--compare-positions", "2048", "--skip", "tests,kernels", "--out", "half"]) == 0
    data = json.loads((tmp_path / "half" / "gpu.json").read_text())
    assert data["cuda"] is False and {r["policy"] for r in data["compare"]} == set(G.SWEEP_ORDER)
    assert all(r["cpu_held"] for r in data["compare"])
    page = (tmp_path / "half" / "README.md").read_text()
    assert "CUDA is not available" in page and "held CUDA" in page


REPORTS_GPU = Path(__file__).resolve().parents[2] / "reports" / "gpu"


def test_the_committed_gpu_page_is_what_its_data_renders() -> None:
    """reports/gpu/README.md is rendered from reports/gpu/gpu.json (a GPU run's data): no hand edit, no drift."""
    data = json.loads((REPORTS_GPU / "gpu.json").read_text())
    assert data["cuda"] is True and data["machine"]["device"].startswith("NVIDIA")
    assert (REPORTS_GPU / "README.md").read_text() == G.render(G.Run(**data))


def test_render_rewrites_the_page_and_refuses_what_is_not_a_run(tmp_path: Path) -> None:
    (tmp_path / "gpu.json").write_text((REPORTS_GPU / "gpu.json").read_text())
    assert G.main(["--render", str(tmp_path / "gpu.json")]) == 0
    assert (tmp_path / "README.md").read_text() == (REPORTS_GPU / "README.md").read_text()
    (tmp_path / "bad.json").write_text('{"cuda": true, "surprise": 1}')
    with pytest.raises(UsageError, match="not a gpu.json"):
        G.main(["--render", str(tmp_path / "bad.json")])


def test_a_user_mistake_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert G.cli(["--render", "/nonexistent/gpu.json"]) == 2
    assert G.cli(["--skip", "nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("python -m ropecheck.report.gpu: error:") for line in err)


def test_a_report_run_on_the_cpu_keeps_the_gpu_folder_as_it_is(tmp_path: Path) -> None:
    """reports/gpu/ is written on a GPU machine: `ropecheck report` (full or partial) never removes or rewrites it."""
    from ropecheck.cli.report import write_report
    from ropecheck.io import replace_tree
    from ropecheck.report.model import Report

    out = tmp_path / "reports"
    write_report(Report(header={"generated": "first"}, sections=[]), out)
    replace_tree(out / "gpu", {"README.md": "# measured on a GPU\n", "gpu.json": "{}\n"}, keep=lambda rel: False)
    for _ in range(2):  # the first run lists gpu/ in its manifest; the second must still keep it
        write_report(Report(header={"generated": "again"}, sections=[]), out)
        assert (out / "gpu" / "README.md").read_text() == "# measured on a GPU\n"
        assert (out / "gpu" / "gpu.json").exists()
