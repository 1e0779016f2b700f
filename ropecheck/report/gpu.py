"""The CUDA half of the suite in one run: ``python -m ropecheck.report.gpu`` (``.ci/gpu``) writes ``reports/gpu/``.

What it runs, in order, each step timed and its outcome kept (a step that fails is reported, the
others still run):

1. **the machine**: GPU, driver, CUDA, torch, Triton and the kernel libraries' versions;
2. **the CUDA tests**: ``pytest -m gpu`` on the project's tests, counted from its JUnit XML
   (passed, failed, skipped, and how many were skipped for lack of CUDA);
3. **the GPU kernels as black boxes**, forward and backward, each through ``ropecheck verify
   --device cuda`` in its own process: Liger-Kernel's Triton RoPE, transformers' Llama rotary path
   under ``torch.compile`` (inductor, which emits Triton on CUDA), the hand-written Triton kernel
   fixture and its two planted-bug twins (``tests/fixtures/gpu/triton_rope.py``); each against the
   verdict it must have;
4. **CPU vs CUDA**: every precision policy in fp32/bf16/fp16 swept on both devices over the same
   positions with the same q/k (same chunk size, same seeds), the largest error of each source
   compared, and each sweep's throughput;
5. **the CUDA precision sweeps**: every policy in fp32/bf16/fp16 up to 2^24 positions, band tables
   (CSV), JSON and plots, each held to the error model's CUDA bound.

Without CUDA the CUDA steps are skipped with the reason, the CPU half of step 4 still runs (a dry
run), and nothing is written unless ``--out`` is given: the CPU-only report never touches
``reports/gpu/``. The step that sweeps to 2^24 keeps to ``--budget``: where the positions left
would not fit, it sweeps fewer and the page says how many.

Design constraints: the page names the device, driver and versions on every table; every figure
is measured in this run (nothing is carried over); the folder is replaced as a whole
(:func:`ropecheck.io.replace_tree`).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
import traceback
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import UsageError
from ..io import replace_tree, write_text_atomic
from ..precision.pages import stable_floats, sweep_files
from ..precision.policies import DTYPES, POLICIES, SOURCES
from ..precision.sweep import CHUNK, Sweep, run_sweep
from ..spec import RopeSpec

__all__ = ["KERNELS", "cli", "main"]

DEFAULT_OUT = Path("reports/gpu")
SPEC = RopeSpec(head_dim=128)
#: the policies in sweep order: the careful ones first (the bound's own policies), then the careless
SWEEP_ORDER = tuple(sorted(POLICIES, key=lambda name: (not POLICIES[name].is_careful("bfloat16"), name)))
TRITON_FIXTURE = "tests/fixtures/gpu/triton_rope.py"
TRITON_FLAGS = ("--head-dim", "128", "--base", "10000", "--layout", "half")


@dataclass(frozen=True)
class Kernel:
    """A GPU kernel judged as a black box: how to verify it, and the verdict it must have."""

    name: str
    what: str
    argv: tuple[str, ...]
    conforms: bool  # the verdict it must have
    failing: tuple[str, ...] = ()  # when it must fail: the only checks (name prefixes) it may fail; () any
    forward: bool = False  # when it must fail: at least one forward check among them
    module: str | None = None  # the library it needs, checked before running


KERNELS: tuple[Kernel, ...] = (
    Kernel(
        "liger",
        "Liger-Kernel's Triton RoPE (liger_rotary_pos_emb), forward and its own backward",
        ("--adapter", "liger"),
        conforms=False,
        failing=("backward:double",),  # its backward returns a view of the incoming gradient: see the adapter
        module="liger_kernel",
    ),
    Kernel(
        "hf-llama-compiled",
        "transformers' Llama rotary path under torch.compile (inductor: Triton kernels on CUDA)",
        ("--adapter", "hf-llama", "--compile"),
        conforms=True,
        module="transformers",
    ),
    Kernel(
        "triton-rope",
        "the hand-written Triton kernel (half-split, fp32 angles, transposed backward)",
        (f"{TRITON_FIXTURE}:rope", *TRITON_FLAGS),
        conforms=True,
        module="triton",
    ),
    Kernel(
        "triton-rope-forward-bug",
        "its twin with a planted forward bug",
        (f"{TRITON_FIXTURE}:rope_forward_bug", *TRITON_FLAGS),
        conforms=False,
        forward=True,
        module="triton",
    ),
    Kernel(
        "triton-rope-backward-bug",
        "its twin with a planted backward bug (the forward rotation as its own gradient)",
        (f"{TRITON_FIXTURE}:rope_backward_bug", *TRITON_FLAGS),
        conforms=False,
        failing=("backward",),
        module="triton",
    ),
    Kernel(
        "flash-attn",
        "flash-attn's Triton rotary (apply_rotary_emb)",
        ("--adapter", "flash-attn"),
        conforms=True,
        module="flash_attn",
    ),
    Kernel("vllm", "vLLM's rotary op (get_rope)", ("--adapter", "vllm"), conforms=True, module="vllm"),
    Kernel(
        "flashinfer",
        "flashinfer's RoPE (its JIT builds the kernel on first use)",
        (),
        conforms=True,
        module="flashinfer",
    ),
)


@dataclass
class Run:
    """What the run found, step by step (the page and ``gpu.json`` are rendered from it)."""

    cuda: bool
    machine: dict[str, Any] = field(default_factory=dict)
    steps: dict[str, float] = field(default_factory=dict)  # step -> seconds
    tests: dict[str, Any] = field(default_factory=dict)
    kernels: list[dict[str, Any]] = field(default_factory=list)
    compare: list[dict[str, Any]] = field(default_factory=list)
    sweeps: list[dict[str, Any]] = field(default_factory=list)
    files: dict[str, str | bytes] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------------------- the machine


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def _driver() -> str:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unknown ({type(exc).__name__})"
    return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else "unknown"


def machine() -> dict[str, Any]:
    """The device, driver and library versions every table of the page names."""
    import torch  # heavy: imported when used

    info: dict[str, Any] = {
        "cpu": f"{platform.machine()}, {os.cpu_count()} cores",
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": np.__version__,
    }
    for lib in ("triton", "transformers", "liger-kernel", "flash-attn", "vllm", "flashinfer-python"):
        info[lib] = _version(lib)
    if torch.cuda.is_available():
        p = torch.cuda.get_device_properties(0)
        info.update(
            device=torch.cuda.get_device_name(0),
            capability=f"sm_{p.major}{p.minor}",
            memory_gib=round(p.total_memory / 2**30, 1),
            cuda=torch.version.cuda,
            driver=_driver(),
        )
    else:
        info["device"] = "none (CUDA is not available)"
    return info


# ------------------------------------------------------------------------------------- the tests


def run_tests(tests: Path, workers: int, timeout: float) -> dict[str, Any]:
    """``pytest -m gpu`` on the files of ``tests`` that mark a test ``gpu``, counted from its JUnit XML.

    Only those files are collected: a module elsewhere that needs a library this machine lacks is not a
    CUDA test, and its collection error would otherwise count as one.
    """
    files = sorted(str(p) for p in tests.rglob("test_*.py") if "mark.gpu" in p.read_text(encoding="utf-8"))
    if not files:
        return {"status": "skipped", "reason": f"no test under {tests} is marked gpu"}
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "junit.xml"
        cmd = [sys.executable, "-m", "pytest", "-m", "gpu", "-q", "-p", "no:cacheprovider",
               "--continue-on-collection-errors", f"--junitxml={junit}", *files]  # fmt: skip
        if workers > 1:
            cmd += ["-n", str(workers)]
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return {"status": "timed out", "seconds": timeout, "command": " ".join(cmd[1:])}
        shown = [c for c in cmd[1:] if not c.startswith("--junitxml")]
        out = {"status": "ran", "exit_code": proc.returncode, "seconds": round(time.perf_counter() - t0, 1),
               "command": "python " + " ".join(shown)}  # fmt: skip
        out.update(_junit_counts(junit) if junit.exists() else {"error": "pytest wrote no JUnit XML"})
        out["tail"] = proc.stdout[-3000:]
    return out


def _junit_counts(path: Path) -> dict[str, Any]:
    root = ET.parse(path).getroot()
    cases = list(root.iter("testcase"))
    failed, skipped, no_cuda = [], [], 0
    for case in cases:
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        for tag in ("failure", "error"):
            el = case.find(tag)
            if el is not None:
                failed.append({"test": name, "message": (el.get("message") or "")[:300]})
        sk = case.find("skipped")
        if sk is not None:
            msg = sk.get("message") or ""
            skipped.append({"test": name, "message": msg[:200]})
            no_cuda += "CUDA is not available" in msg
    return {
        "collected": len(cases),
        "passed": len(cases) - len(failed) - len(skipped),
        "failed": len(failed),
        "skipped": len(skipped),
        "skipped_for_lack_of_cuda": no_cuda,
        "failures": failed,
        "skips": skipped,
    }


# ------------------------------------------------------------------------------------- the kernels


def _importable(module: str) -> str | None:
    """None if ``module`` imports in a fresh interpreter, else the reason it does not."""
    proc = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=300,
                          check=False)  # fmt: skip
    if proc.returncode == 0:
        return None
    last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return f"{module} does not import here: {last[:200]}"


def judge_kernel(k: Kernel, root: Path, timeout: float) -> dict[str, Any]:
    """Verify one kernel on CUDA in its own process; compare with the verdict it must have."""
    row = _kernel_row(k)
    why = _importable(k.module) if k.module else None
    if why is None and not k.argv:
        why = "no adapter drives it yet"
    if why is not None:
        return {**row, "status": "skip", "reason": why}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "verdict.json"
        cmd = [sys.executable, "-m", "ropecheck", "verify", *k.argv, "--device", "cuda", "--json", str(out), "-q"]
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return {**row, "status": "error", "reason": f"verify did not finish in {timeout:g} s"}
        row["seconds"] = round(time.perf_counter() - t0, 1)
        row["command"] = _command(k)
        row["exit_code"] = proc.returncode
        if proc.returncode not in (0, 1) or not out.exists():
            return {**row, "status": "error", "reason": (proc.stderr.strip() or proc.stdout.strip())[-600:]}
        verdict = json.loads(out.read_text())
    return {**row, **_held(k, verdict)}


def _kernel_row(k: Kernel) -> dict[str, Any]:
    """What every row of a kernel says, judged or not: its name, what it is, the verdict it must have."""
    return {"kernel": k.name, "what": k.what, "expected": "CONFORMS" if k.conforms else "FAILS"}


def judge_kernels(root: Path, timeout: float = 420.0) -> list[dict[str, Any]]:
    """Every kernel of :data:`KERNELS`, all at once (each in its own processes)."""
    with ThreadPoolExecutor(max_workers=len(KERNELS)) as ex:
        return list(ex.map(lambda k: judge_kernel(k, root, timeout), KERNELS))


def _command(k: Kernel) -> str:
    return " ".join(("ropecheck", "verify", *k.argv, "--device", "cuda"))


def _held(k: Kernel, verdict: dict[str, Any]) -> dict[str, Any]:
    checks = verdict.get("checks", [])
    fails = sorted({c["name"] for c in checks if c["status"] == "fail"})
    passes = [c for c in checks if c["status"] == "pass"]
    backward = sorted({c["status"] for c in checks if c["name"].startswith("backward")})
    forward_fail = [n for n in fails if not n.startswith("backward")]
    if k.conforms:
        held = bool(verdict["conforms"])
    else:
        only = not k.failing or all(any(f.startswith(p) for p in k.failing) for f in fails)
        held = not verdict["conforms"] and bool(fails) and only and (bool(forward_fail) or not k.forward)
    return {
        "status": "held" if held else "NOT HELD",
        "verdict": "CONFORMS" if verdict["conforms"] else "DOES NOT CONFORM",
        "checks_passed": len(passes),
        "checks_failed": fails,
        "forward": "fail" if forward_fail else "pass",
        "backward": "/".join(backward) or "not checked",
        "findings": [f"{f.get('code')}: {f.get('message', '')[:160]}" for f in verdict.get("findings", [])][:6],
        "dtypes": verdict.get("options", {}).get("dtypes"),
        "compile": verdict.get("compile"),
    }


# ------------------------------------------------------------------------------------- precision


def _sweep(policy: str, device: str, positions: int, chunk: int | None, workers: int | None) -> Sweep:
    return run_sweep(SPEC, target=policy, dtypes=DTYPES, device=device, max_position=positions, chunk=chunk,
                     workers=workers, progress=False)  # fmt: skip


def _max_by(sw: Sweep) -> dict[tuple[str, str], float]:
    out: dict[tuple[str, str], float] = {}
    for r in sw.rows():
        key = (r["dtype"], r["source"])
        out[key] = max(out.get(key, 0.0), r["max"]) if not math.isnan(r["max"]) else out.get(key, 0.0)
    return out


def compare(positions: int, device: str | None) -> list[dict[str, Any]]:
    """Every policy on the CPU and on ``device`` (None: the CPU alone) over the same positions and q/k."""
    rows = []
    cores = os.cpu_count() or 1
    for name in SWEEP_ORDER:
        cpu = _sweep(name, "cpu", positions, CHUNK, cores)
        gpu = _sweep(name, device, positions, CHUNK, None) if device else None
        cm, gm = _max_by(cpu), (_max_by(gpu) if gpu else {})
        for dt in DTYPES:
            row: dict[str, Any] = {"policy": name, "dtype": dt, "careful": cpu.careful[dt]}
            for src in SOURCES:
                row[f"cpu_{src}"] = cm[(dt, src)]
                row[f"cuda_{src}"] = gm.get((dt, src), float("nan"))
            row["cpu_held"] = all(v["held"] for v in cpu.verdicts() if v["dtype"] == dt)
            row["cuda_held"] = all(v["held"] for v in gpu.verdicts() if v["dtype"] == dt) if gpu else None
            row["positions"] = positions
            row["cpu_seconds"], row["cuda_seconds"] = cpu.seconds, (gpu.seconds if gpu else float("nan"))
            rows.append(row)
    return rows


def sweeps(run: Run, positions: int, budget: float, device: str = "cuda", floor: int = 1 << 16) -> None:
    """Every policy on ``device`` to ``positions`` (fewer where the budget would not hold them), files into the run.

    A probe (the first policy over a sixteenth of the positions, not kept) times the device first, so even
    the first sweep keeps to the budget; each sweep then re-times it for the ones after.
    """
    t0 = time.perf_counter()
    probe = max(floor, positions // 16)
    _sweep(SWEEP_ORDER[0], device, probe, None, None)
    per_position = (time.perf_counter() - t0) / probe
    left = budget - (time.perf_counter() - t0)
    n = positions
    for i, name in enumerate(SWEEP_ORDER):
        remaining = len(SWEEP_ORDER) - i
        while n > floor and per_position * n * remaining > left:
            n //= 2  # what is left of the budget would not hold the policies left at this length
        if n < positions and not any("fewer positions" in note for note in run.notes):
            run.notes.append(
                f"the sweeps from {name} on ran to {n} positions (fewer positions than {positions}): "
                f"the run's budget of {budget:.0f} s would not hold them all at {positions}"
            )
        t0 = time.perf_counter()
        sw = _sweep(name, device, n, None, None)
        spent = time.perf_counter() - t0
        left -= spent
        per_position = spent / n
        run.files.update({f"precision/{k}": v for k, v in sweep_files(sw, plots=True).items()})
        run.sweeps.append(
            {
                "policy": name,
                "positions": n,
                "seconds": round(spent, 2),
                "positions_per_second": round(n * len(DTYPES) / spent) if spent else None,
                "verdicts": sw.verdicts(),
                "failures": len(sw.failures()),
            }
        )


# ------------------------------------------------------------------------------------- the page


def _e(v: Any) -> str:
    if isinstance(v, float):
        return "—" if math.isnan(v) else ("inf" if math.isinf(v) else f"{v:.2e}")
    return str(v)


def render(run: Run) -> str:
    m = run.machine
    head = (
        f"{m.get('device')} ({m.get('capability', '-')}, {m.get('memory_gib', '-')} GiB), "
        f"driver {m.get('driver', '-')}, "
        f"CUDA {m.get('cuda', '-')}, torch {m.get('torch')}, Triton {m.get('triton')}, transformers "
        f"{m.get('transformers')}, Liger-Kernel {m.get('liger-kernel')}; CPU {m.get('cpu')}"
    )
    lines = [
        "# The CUDA half: tests, GPU kernels and precision on a GPU",
        "",
        f"Measured on: {head}.",
        "",
        "Reproduce on a machine with CUDA, from the repository's root: `.ci/gpu` (it runs "
        "`python -m ropecheck.report.gpu`, which writes this folder). Steps and their times on the machine above "
        "(the tests and the kernels side by side): " + ", ".join(f"{k} {v:.0f} s" for k, v in run.steps.items()) + ".",
        "",
    ]
    lines += _tests_md(run.tests, head) + _kernels_md(run.kernels, head)
    lines += _compare_md(run.compare, head) + _sweeps_md(run.sweeps, run.compare, head)
    if run.notes:
        lines += ["## Notes", "", *[f"- {n}" for n in run.notes], ""]
    return "\n".join(lines)


def _tests_md(t: dict[str, Any], head: str) -> list[str]:
    out = ["## CUDA tests (`pytest -m gpu`)", "", f"On {head}.", ""]
    if t.get("status") != "ran":
        return out + [f"Not run: {t.get('reason', t.get('status'))}.", ""]
    out += [
        "| collected | passed | failed | skipped | skipped for lack of CUDA | seconds |",
        "|---:|---:|---:|---:|---:|---:|",
        f"| {t.get('collected')} | {t.get('passed')} | {t.get('failed')} | {t.get('skipped')} | "
        f"{t.get('skipped_for_lack_of_cuda')} | {t.get('seconds')} |",
        "",
        f"Command: `{t.get('command')}`.",
        "",
    ]
    out += [f"- failed: `{f['test']}`: {f['message']}" for f in t.get("failures", [])]
    out += [f"- skipped: `{s['test']}`: {s['message']}" for s in t.get("skips", [])]
    return out + [""]


def _kernels_md(rows: list[dict[str, Any]], head: str) -> list[str]:
    out = [
        "## GPU kernels as black boxes (forward and backward, `ropecheck verify --device cuda`)",
        "",
        f"On {head}. `held`: the verdict is the one the kernel must have (a planted bug caught, a correct "
        "kernel passed).",
        "",
        "| kernel | what | must | verdict | held | forward | backward | failed checks | s |",
        "|---|---|---|---|---|---|---|---|---:|",
    ]
    for r in rows:
        if r["status"] in ("skip", "error"):
            out.append(f"| {r['kernel']} | {r['what']} | {r['expected']} | {r['status'].upper()}: {r['reason']} "
                       "| - | - | - | - | - |")  # fmt: skip
            continue
        out.append(
            f"| {r['kernel']} | {r['what']} | {r['expected']} | {r['verdict']} | {r['status']} | {r['forward']} | "
            f"{r['backward']} | {', '.join(r['checks_failed']) or '-'} | {r['seconds']} |"
        )
    commands = {k.name: _command(k) for k in KERNELS}
    for r in rows:
        if r.get("findings"):
            out += ["", f"`{r['kernel']}` (`{commands.get(r['kernel'], r.get('command'))}`):"]
            out += [f"- {f}" for f in r["findings"]]
    return out + [""]


def _compare_md(rows: list[dict[str, Any]], head: str) -> list[str]:
    if not rows:
        return []
    positions = rows[0].get("positions", "")
    out = [
        "## CPU vs CUDA: the same sweeps, the same q/k",
        "",
        f"On {head}. Every policy swept over positions 0..{positions}-1 on both devices with the same chunks and "
        "seeds; the largest error of each source over all positions (output and score relative to the norms, "
        "angle in rad). `held`: on that device a careful policy stays within its own bound and a careless one "
        "exceeds the careful bound, as the error model says.",
        "",
        "| policy | dtype | angle CPU | angle CUDA | cos/sin CPU | cos/sin CUDA | output CPU | output CUDA | "
        "score CPU | score CUDA | held CPU | held CUDA |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    yes = {True: "yes", False: "**no**", None: "—"}
    for r in rows:
        out.append(
            f"| {r['policy']} | {r['dtype']} | {_e(r['cpu_angle'])} | {_e(r['cuda_angle'])} | {_e(r['cpu_cos_sin'])} | "
            f"{_e(r['cuda_cos_sin'])} | {_e(r['cpu_output'])} | {_e(r['cuda_output'])} | {_e(r['cpu_score'])} | "
            f"{_e(r['cuda_score'])} | {yes[r['cpu_held']]} | "
            f"{yes[r['cuda_held']]} |"
        )
    out += [
        "",
        f"Throughput of the same sweeps (positions × {len(DTYPES)} dtypes measured per second; the CPU sweep "
        "on every core of the machine):",
        "",
        "| policy | CPU s | CUDA s | CPU pos/s | CUDA pos/s | CUDA / CPU |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    n = positions * len(DTYPES)
    for r in rows[:: len(DTYPES)]:
        c, g = r["cpu_seconds"], r["cuda_seconds"]
        if math.isnan(g):
            out.append(f"| {r['policy']} | {c:.1f} | — | {n / c:.3g} | — | — |")
        else:
            out.append(f"| {r['policy']} | {c:.1f} | {g:.1f} | {n / c:.3g} | {n / g:.3g} | {c / g:.1f}× |")
    return out + [""]


def _sweeps_md(rows: list[dict[str, Any]], compared: list[dict[str, Any]], head: str) -> list[str]:
    if not rows:
        return []
    cpu_rate = {r["policy"]: r["positions"] * len(DTYPES) / r["cpu_seconds"] for r in compared if r["cpu_seconds"]}
    out = [
        "## CUDA precision sweeps",
        "",
        f"On {head}. Every integer position swept, in fp32/bf16/fp16; `held`: a careful policy stays within "
        "its own CUDA bound, a careless one exceeds the careful bound (what the error model is there to "
        "catch). Band tables, JSON and plots per policy are in [`precision/`](precision/).",
        "",
        "| policy | positions | dtype | expected | held | first band over the bound | worst error / bound | s |",
        "|---|---:|---|---|---|---|---:|---:|",
    ]
    for s in rows:
        for v in s["verdicts"]:
            first = "-" if v["first_over"] is None else f"{v['first_over'][0]}–{v['first_over'][1] - 1}"
            out.append(
                f"| {s['policy']} | {s['positions']} | {v['dtype']} | {v['expected']} | "
                f"{'yes' if v['held'] else '**no**'} | {first} | {_e(v['worst_ratio'])} | {s['seconds']} |"
            )
    out += [
        "",
        f"Throughput of these sweeps (positions × {len(DTYPES)} dtypes measured per second; chunks of 2^16 "
        "positions on the GPU) against the CPU sweep of the same policy above (chunks of 2^11, every core):",
        "",
        "| policy | positions | s | CUDA pos/s | CPU pos/s | CUDA / CPU |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for s in rows:
        rate, cpu = s["positions_per_second"], cpu_rate.get(s["policy"])
        ratio = f"{rate / cpu:.1f}×" if rate and cpu else "—"
        out.append(f"| {s['policy']} | {s['positions']} | {s['seconds']} | {rate:.3g} | "
                   f"{f'{cpu:.3g}' if cpu else '—'} | {ratio} |")  # fmt: skip
    return out + [""]


# ------------------------------------------------------------------------------------- the run


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m ropecheck.report.gpu", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, help=f"the folder to write (default {DEFAULT_OUT}, and only with CUDA)")
    p.add_argument("--tests", type=Path, default=Path("tests"), help="the project's tests (default: tests)")
    p.add_argument("--max-position", type=int, default=1 << 24, help="the CUDA sweeps' length (default 2^24)")
    p.add_argument("--compare-positions", type=int, default=1 << 18, help="CPU vs CUDA sweep length (default 2^18)")
    p.add_argument("--budget", type=float, default=180.0, help="seconds for the sweeps to 2^24 (default 180)")
    p.add_argument("--workers", type=int, default=6, help="pytest-xdist workers for the CUDA tests (default 6)")
    p.add_argument(
        "--deadline",
        type=float,
        default=540.0,
        help="seconds the whole run may take: the tests' and kernels' time limits and the sweeps' budget are cut to "
        "fit (default 540)",
    )
    p.add_argument(
        "--render",
        type=Path,
        metavar="GPU_JSON",
        help="measure nothing: rewrite the README.md beside GPU_JSON (a run's gpu.json) from it",
    )
    p.add_argument("--skip", default="", help="comma-separated steps to leave out: tests,kernels,compare,sweeps")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.render is not None:
        return _rerender(args.render)
    end = time.monotonic() + args.deadline
    left = lambda reserve: max(30.0, end - time.monotonic() - reserve)  # seconds to spend, keeping `reserve`
    import torch  # heavy: imported when used

    cuda = torch.cuda.is_available()
    out = args.out if args.out is not None else (DEFAULT_OUT if cuda else None)
    skip = {s for s in args.skip.split(",") if s}
    unknown = skip - {"tests", "kernels", "compare", "sweeps"}
    if unknown:
        raise UsageError(f"--skip: unknown steps {sorted(unknown)}")
    run = Run(cuda=cuda, machine=machine())
    root = Path.cwd()

    def step(name: str, fn: Any, default: Any = None) -> Any:
        """Run one step, timed; a step that raises is reported (with its traceback printed) and the run goes on."""
        print(f"[gpu] {name} ...", flush=True)
        t0 = time.perf_counter()
        try:
            return fn()
        except Exception as exc:  # one broken step must not lose the others' results
            traceback.print_exc()
            run.notes.append(f"the {name} step raised {type(exc).__name__}: {str(exc)[:300]}")
            return default
        finally:
            run.steps[name] = round(time.perf_counter() - t0, 1)
            print(f"[gpu] {name}: {run.steps[name]} s", flush=True)

    print(f"[gpu] {json.dumps(run.machine)}", flush=True)
    no_cuda = {"status": "skipped", "reason": "CUDA is not available on this machine"}
    with ThreadPoolExecutor(max_workers=2) as pool:  # tests and kernels side by side: neither is timed work
        tests = kernels = None
        if "tests" not in skip and cuda and args.tests.is_dir():
            tests = pool.submit(step, "tests", lambda: run_tests(args.tests, args.workers, min(420.0, left(180))), {})
        elif "tests" not in skip:
            run.tests = no_cuda if not cuda else {"status": "skipped", "reason": f"no tests folder at {args.tests}"}
        if "kernels" not in skip and cuda:
            kernels = pool.submit(step, "kernels", lambda: judge_kernels(root, min(420.0, left(180))), [])
        elif "kernels" not in skip:
            run.kernels = [{**_kernel_row(k), "status": "skip", "reason": "CUDA is not available"} for k in KERNELS]
        if tests is not None:
            run.tests = tests.result()
        if kernels is not None:
            run.kernels = kernels.result()
    if "compare" not in skip:
        run.compare = step("compare", lambda: compare(args.compare_positions, "cuda" if cuda else None), [])
    if "sweeps" not in skip and cuda:
        step("sweeps", lambda: sweeps(run, args.max_position, min(args.budget, left(20))))
    data = stable_floats(json.loads(json.dumps(
        {k: v for k, v in run.__dict__.items() if k != "files"}, default=str)))  # fmt: skip
    page = render(run)
    print(page)
    if out is None:
        print("[gpu] dry run without CUDA: nothing written (give --out to write the CPU half)")
        return 0
    files: dict[str, str | bytes] = {"README.md": page, "gpu.json": json.dumps(data, indent=1) + "\n", **run.files}
    replace_tree(out, files, keep=lambda rel: False, flag="--out")
    print(f"[gpu] wrote {len(files)} files to {out}/")
    bad = run.tests.get("failed", 0) or any(k["status"] in ("NOT HELD", "error") for k in run.kernels)
    return 1 if bad else 0


def _rerender(path: Path) -> int:
    """The page of an earlier run, from its ``gpu.json`` (the page's wording changed, nothing measured)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        run = Run(**data)
    except (OSError, ValueError, TypeError) as exc:
        raise UsageError(f"--render {path}: not a gpu.json this command wrote ({exc})") from exc
    write_text_atomic(path.parent / "README.md", render(run))
    print(f"[gpu] rewrote {path.parent / 'README.md'} from {path.name}")
    return 0


def cli(argv: list[str] | None = None) -> int:
    """:func:`main` as a command: a usage error is one line on stderr and exit 2, never a traceback."""
    try:
        return main(argv)
    except UsageError as exc:
        print(f"python -m ropecheck.report.gpu: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(cli())
