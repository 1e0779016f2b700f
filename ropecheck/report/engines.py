"""Report collectors for the four engines: proofs, properties, verify, precision.

Each ``collect_*(progress)`` runs one engine exactly as its own command does and returns a
:class:`~ropecheck.report.model.Section`: verdict rows with the *expected* verdict next to the
actual one (so an intended refutation, or a careless precision policy that must exceed the
error model, counts as holding), detail pages, plots, and extra files (per-adapter JSON,
sweep CSV). Nothing here writes files; the CLI does.

Design constraints: the output is deterministic -- fixed seeds, no timings in pages or
files -- because ``reports/`` is committed and must diff meaningfully; every timing goes to
``Section.timings``, which the report puts in its one volatile header block. Live progress
is the caller's; engines that own a progress bar are run with theirs off.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from ..errors import UsageError
from ..precision.pages import collect as collect_reproductions
from ..precision.pages import render_readme, reproduction_files, sweep_files
from ..precision.policies import POLICIES
from ..precision.sweep import render_plot, run_sweep, violation_plot
from ..proofs import FAMILIES, run_proofs
from ..properties import PROPERTIES, reference_impl, run_all, torch_reference
from ..schedules import Llama3, YaRN
from ..spec import RopeSpec
from ..symbolic import (
    decay_svg,
    render_certificates_markdown,
    render_index_markdown,
    render_proof_html,
    render_proof_markdown,
)
from ..symbolic.coq.certify import certificate_index, certify
from ..symbolic.pages.latexdoc import render_proofs_latex
from ..verify.batch import backward_cell, compiled_cell, render_adapter_pages, verify_adapter_compiled, verify_adapters
from ..verify.model import DEFAULT_DTYPES
from ..version import __version__
from .model import Page, Plot, Row, Section

__all__ = [
    "planted_rows",
    "PRECISION_POSITIONS",
    "collect_certificates",
    "collect_precision",
    "collect_proofs",
    "collect_properties",
    "collect_verify",
    "decade_bound",
]

Progress = Callable[[str], None]

# ----------------------------------------------------------------------------------- proofs


def collect_proofs(progress: Progress) -> Section:
    """Every theorem of :mod:`ropecheck.symbolic`, one page each, plus the concrete-d check."""

    numbers = {f: num for f, (num, _, _) in FAMILIES.items()}
    progress("every theorem, and the full expansion for d = 64")
    try:
        certificates = certificate_index()  # the Coq statements beside each theorem (no coqc needed)
    except UsageError:
        certificates = []
    t0 = time.perf_counter()
    proofs = run_proofs(None, d=64)
    total = time.perf_counter() - t0
    rows, pages, plots, timings = [], [], [], {}
    for p in proofs:
        timings[f"proof {p.name}"] = p.seconds
        link = f"proofs/{p.name}.md"
        rows.append(
            Row(p.title, p.verdict.value, p.verdict.value if p.as_intended else "PROVED", _proof_evidence(p), link=link)
        )
        for s in p.intended_refutations:
            cex = s.counterexample
            where = "" if cex is None else " at " + ", ".join(f"{k} = {v}" for k, v in cex.values.items())
            rows.append(
                Row(
                    f"{p.title}: {s.name}",
                    s.verdict.value,
                    s.expect.value,
                    f"refuted by `{s.method}`{where}",
                    link=link,
                )
            )
        md = render_proof_markdown(p, number=numbers.get(p.family), timings=False, certificates=certificates)
        pages.append(Page(link, p.title, md, html=render_proof_html(p, number=numbers.get(p.family))))
        curve = p.data.get("decay_curve")
        if curve:
            svg = decay_svg(curve)
            plots.append(
                Plot(
                    "decay",
                    "Long-term decay",
                    f"(1/(d/2)) Σ_j |S_j| against relative distance, base {curve['base']}, d = {curve['d']}, min to "
                    f"max per bin over every integer distance (measured): {curve['measured']['steps_up']:,} of "
                    f"{curve['measured']['steps']:,} steps from r to r + 1 go up (the proof page has the figures).",
                    svg,
                )
            )
    index = render_index_markdown(proofs, numbers=numbers, total_seconds=total)
    section = Section(
        "proofs",
        "Symbolic proofs",
        "Every step is an equality SymPy decides exactly by a recorded rewrite; numbers never count as proof. "
        "Intended refutations (the dynamic-NTK cache) come with a counterexample checked in exact arithmetic.",
        rows=rows,
        plots=plots,
        pages=[Page("proofs/index.md", "Proof index", index), *pages],
    )
    section.files["proofs/proofs.tex"] = render_proofs_latex(proofs, numbers=numbers, version=__version__)
    for plot in plots:  # the theorem page links the curve next to itself
        section.files[f"proofs/{plot.key}.svg"] = plot.svg
    section.timings = timings
    return section


def collect_certificates(progress: Progress) -> Section:
    """The Coq certificates checked by coqc where it is installed (SKIP with the reason where it is not)."""
    progress("checking the Coq certificates with coqc")
    index = certificate_index()
    t0 = time.perf_counter()
    results = certify()
    timings = {"coqc, every certificate": time.perf_counter() - t0}
    rows = []
    for r in results:
        twins = sorted({t["sympy_theorem"] for e in index if e["file"] == r.file.name for t in e["theorems"]})
        checked = r.coqc_version is not None
        if r.status.value == "CERTIFIED":
            evidence = (
                f"coqc {r.coqc_version}: compiled, nothing admitted, only Reals' axioms; mirrors {', '.join(twins)}"
            )
        elif not checked:
            evidence = "not checked on this machine: " + "; ".join(r.reasons)
        else:
            where = f"{r.file.name}:{r.error_line}: {r.error_message}; " if r.error_line is not None else ""
            evidence = where + "; ".join(r.reasons)
        verdict = r.status.value if checked else "SKIP"
        rows.append(
            Row(r.file.name, verdict, "CERTIFIED" if checked else "SKIP", evidence, link="proofs/certificates.md")
        )
    page = render_certificates_markdown(results, index, families=list(FAMILIES), timings=False)
    section = Section(
        "certificates",
        "Coq certificates",
        "The identity theorems stated and proved again in Coq and checked by its kernel (coqc): CERTIFIED means it "
        "compiled with nothing admitted and only the axioms of Coq's real numbers. Each theorem page shows the Coq "
        "statement beside the SymPy one; the reader compares them.",
        rows=rows,
        pages=[Page("proofs/certificates.md", "Coq certificates", page)],
    )
    section.timings = timings
    return section


def _proof_evidence(p: Any) -> str:
    methods = sorted({s.method for s in p.steps if s.expect.value == "PROVED"})
    return f"{len(p.steps)} steps decided by {', '.join(methods)}"


# ------------------------------------------------------------------------------- properties

_PROPERTY_SPECS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("half d=64", {"head_dim": 64}),
    ("interleaved d=64", {"head_dim": 64, "layout": "interleaved"}),
    ("half d=64 rotary 16 (NeoX partial)", {"head_dim": 64, "rotary_dim": 16}),
    ("half d=128 Llama 3", {"head_dim": 128, "base": 500000.0, "scaling": ("llama3",)}),
    ("half d=64 YaRN", {"head_dim": 64, "scaling": ("yarn",)}),
)


def _property_specs() -> list[tuple[str, Any]]:

    scalings = {"llama3": Llama3(8.0, 1.0, 4.0, 8192), "yarn": YaRN(4.0, 4096)}
    out = []
    for label, kw in _PROPERTY_SPECS:
        kw = dict(kw)
        if "scaling" in kw:
            kw["scaling"] = scalings[kw["scaling"][0]]
        out.append((label, RopeSpec(**kw)))
    return out


def decade_bound(x: float) -> str:
    """``x`` as the power of ten above it (``7.5e-15`` -> ``≤ 1e-14``): a figure that reads the same on
    every machine, where the last bits of a float64 error depend on the libm and the SIMD path."""
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return str(x)
    return f"≤ 1e{math.ceil(math.log10(x) - 1e-12)}"


def collect_properties(progress: Progress) -> Section:
    """Every property of :mod:`ropecheck.properties` on the reference (three forms) and the torch reference."""

    impls: list[tuple[str, Callable[[Any], Any], tuple[str, ...]]] = [
        ("reference (matrix)", lambda s: reference_impl(s, "matrix"), ("float64",)),
        ("reference (elementwise)", lambda s: reference_impl(s, "elementwise"), ("float64",)),
        ("reference (complex)", lambda s: reference_impl(s, "complex"), ("float64",)),
        ("torch reference", torch_reference, ("float32", "bfloat16", "float16")),
    ]
    rows, lines = (
        [],
        [
            "# Properties on the reference",
            "",
            "Every property of `ropecheck.properties` (seed 0), on the fp64 reference in its three forms "
            "and on the straightforward torch implementation in each dtype. 'worst' is the largest difference any "
            "property saw, as the power of ten above it.",
            "",
            "| implementation | spec | dtype | passed | worst |",
            "|---|---|---|---|---|",
        ],
    )
    for impl_label, make, dtypes in impls:
        for spec_label, spec in _property_specs():
            for dtype in dtypes:
                progress(f"{impl_label}, {spec_label}, {dtype}")
                results = run_all(make(spec), spec, dtype=dtype)
                failed = [r for r in results if not r.passed]
                worst = max(results, key=lambda r: r.max_abs_err)
                name = f"{impl_label} / {spec_label} / {dtype}"
                evidence = (
                    (
                        f"{len(results) - len(failed)} of {len(results)} properties hold; worst |diff| "
                        f"{decade_bound(worst.max_abs_err)} ({worst.name})"
                    )
                    if not failed
                    else "failed: " + ", ".join(r.name for r in failed)
                )
                rows.append(Row(name, "FAIL" if failed else "PASS", "PASS", evidence, link="properties.md"))
                lines.append(
                    f"| {impl_label} | {spec_label} | {dtype} | {len(results) - len(failed)}/{len(results)} | "
                    f"{decade_bound(worst.max_abs_err)} ({worst.name}) |"
                )
                for r in failed:
                    lines += ["", "```", r.message(), "```", ""]
    lines += ["", "## The properties", "", "| property | what it checks |", "|---|---|"]
    lines += [f"| `{n}` | {(f.__doc__ or '').strip().splitlines()[0]} |" for n, f in PROPERTIES.items()]
    return Section(
        "properties",
        "Properties on the reference",
        f"The {len(PROPERTIES)} executable properties (relative position, translation invariance, layout equivalence, "
        "norm, identity at 0, composition, inverse, head/batch independence, pass-through, consistency) on the "
        "reference in every form and dtype. The same checks drive the Hypothesis suite and the verifier.",
        rows=rows,
        pages=[Page("properties.md", "Properties on the reference", "\n".join(lines) + "\n")],
    )


# ----------------------------------------------------------------------------------- verify

#: What real libraries are known to do in low precision, found by this verifier and written
#: up in the adapters guide (ropecheck/adapters/README.md): (adapter, dtype) -> the finding
#: codes expected there. A row whose findings differ from this table (a library fixed, or a
#: new regression) does not hold.
KNOWN_FINDINGS: dict[tuple[str, str], tuple[str, ...]] = {
    # positions built as arange(seq, dtype=x.dtype); one bf16 call corrupts the shared angle cache
    ("rotary-embedding-torch", "bfloat16"): ("precision", "state"),
    # the same positions in fp16 overflow to inf past 65504
    ("rotary-embedding-torch", "float16"): ("nonfinite",),
    # inv_freq is a buffer: casting the module casts the frequencies
    ("fair-esm", "bfloat16"): ("precision",),
    ("fair-esm", "float16"): ("precision",),
    # the Triton kernel's backward writes the gradient into the incoming one and returns a view of it:
    # autograd's double backward through it is the identity, not the forward rotation
    ("liger-interpret", "float32"): ("backward",),
    # mlx-lm's SuScaledRoPE builds its table from long_factor alone (short_factor is accepted and unused), so
    # a call that stays below original_max_position_embeddings is rotated with the long factors
    **{("mlx-lm-longrope", dt): ("frequencies",) for dt in ("float32", "bfloat16", "float16")},
}


def verify_expectation(
    adapter: str, dtype: str, codes: list[str], *, known: dict[tuple[str, str], tuple[str, ...]] | None = None
) -> tuple[str, str, str]:
    """``(verdict, expected, evidence)`` for one adapter and dtype, given the finding codes seen there."""
    known_codes = list((KNOWN_FINDINGS if known is None else known).get((adapter, dtype), ()))
    verdict = "FAIL" if codes else "PASS"
    expected = "FAIL" if known_codes else "PASS"
    evidence = "conforms" if not codes else "findings: " + ", ".join(codes)
    if known_codes and codes and sorted(codes) != sorted(known_codes):  # the known findings changed
        expected = f"FAIL ({', '.join(known_codes)})"
        evidence += f"; known: {', '.join(known_codes)}"
    elif known_codes and not codes:
        gone = f"; the known {', '.join(known_codes)} finding is gone"
        evidence += f"{gone}: update KNOWN_FINDINGS and ropecheck/adapters/README.md"
    return verdict, expected, evidence


#: Adapters also verified under torch.compile in the report (``verify --compile --compile-backend aot_eager``):
#: dynamo traces them and AOTAutograd builds their forward and backward graphs, which is where a cache baked
#: into a graph or a length-specialised graph shows; inductor's code generation would add minutes per verdict.
COMPILED_ADAPTERS: tuple[str, ...] = ("hf-llama", "torchtune")
COMPILE_BACKEND = "aot_eager"


def _compiled_rows(progress: Progress) -> tuple[list[Row], dict[str, float]]:
    from ..verify import batch  # the registry the verify loop runs over (a test may narrow it)

    rows, timings = [], {}
    for name in COMPILED_ADAPTERS:
        if name not in batch.ADAPTERS:
            continue
        progress(f"{name} under torch.compile ({COMPILE_BACKEND})")
        v = verify_adapter_compiled(name, dtypes=DEFAULT_DTYPES, backend=COMPILE_BACKEND, timeout=300)
        label = f"{name} (torch.compile, {COMPILE_BACKEND})"
        if v.report is None:
            rows.append(Row(label, "SKIP", "SKIP", v.reason or ""))
            continue
        timings[f"verify --compile {name}"] = v.seconds
        for dt in DEFAULT_DTYPES:
            if dt not in v.report.dtypes:
                rows.append(Row(f"{label} / {dt}", "SKIP", "SKIP", str(v.adapter.dtype_skip_reason(dt))))
                continue
            verdict, expected, evidence = verify_expectation(name, dt, v.report.finding_codes(dt))
            evidence += f"; compiled: {compiled_cell(v.report, dt)}; backward: {backward_cell(v.report, dt)}"
            rows.append(Row(f"{label} / {dt}", verdict, expected, evidence))
    return rows, timings


def collect_verify(progress: Progress) -> Section:
    """``ropecheck verify`` on every adapter that can run here, per dtype, on every available device."""
    import torch  # heavy: imported when used

    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    verdicts = verify_adapters(dtypes=DEFAULT_DTYPES, devices=devices, seed=0, timeout=120, progress=progress)
    rows, timings = [], {}
    for v in verdicts:
        if v.report is None:
            rows.append(Row(v.name, "SKIP", "SKIP", v.reason or ""))
            continue
        timings[f"verify {v.name} ({v.report.device})"] = v.seconds
        label = v.name if v.report.device == "cpu" else f"{v.name} ({v.report.device})"
        for dt in DEFAULT_DTYPES:
            if dt not in v.report.dtypes:  # an adapter not judged in this dtype (e.g. an emulator's limit)
                rows.append(Row(f"{label} / {dt}", "SKIP", "SKIP", str(v.adapter.dtype_skip_reason(dt))))
                continue
            verdict, expected, evidence = verify_expectation(v.name, dt, v.report.finding_codes(dt))
            consequences = v.report.dtype_verdict(dt)["consequences"]
            if consequences:  # the detail page lists them under the same per-dtype verdict
                evidence += f"; consequences of the root causes: {', '.join(consequences)}"
            evidence += f"; backward: {backward_cell(v.report, dt)}"
            rows.append(Row(f"{label} / {dt}", verdict, expected, evidence, link=f"verify/{v.stem}.md"))
    compiled_rows, compiled_timings = _compiled_rows(progress)
    rows += compiled_rows
    rows += planted_rows(progress)
    timings.update(compiled_timings)
    written = render_adapter_pages(
        verdicts,
        DEFAULT_DTYPES,
        invocation=f"`ropecheck verify --adapter NAME` with default options on {', '.join(devices)}; "
        "expected low-precision findings are listed in ropecheck/adapters/README.md",
    )
    pages = [
        Page(f"verify/{path}", "Adapter verdicts" if path == "README.md" else f"verify {path[:-3]}", text)
        for path, text in written.items()
        if path.endswith(".md")
    ]
    section = Section(
        "verify",
        "Third-party implementations",
        "The black-box verifier on every adapter installed here: identification from basis vectors, behaviour "
        "checks, and precision against the fp64 reference with the error model's bound. A library's known "
        "low-precision finding is expected FAIL (see ropecheck/adapters/README.md); anything else must conform. "
        "Every verdict includes the backward checks; the rows marked torch.compile verify "
        f"{', '.join(COMPILED_ADAPTERS)} compiled ({COMPILE_BACKEND} backend) and compare with the eager verdict; "
        "the rows marked planted are bugs planted in runtimes' own ops (tests/fixtures/runtimes/), each expected to "
        "FAIL with its own first finding.",
        rows=rows,
        pages=pages,
        matrix_columns=DEFAULT_DTYPES,
    )
    section.files.update({f"verify/{path}": text for path, text in written.items() if path.endswith(".json")})
    section.timings = timings
    return section


#: The planted bugs in runtimes' own ops (each module's ``MUTANTS`` and ``RUNTIME``), judged in every report run
#: from a checkout of the repository.
PLANTED = "tests/fixtures/runtimes"


def _planted(build: Callable[[], Any], name: str) -> Any:
    """In the child: the planted bug built (its runtime imported there, never in the report's process)."""
    from ..verify.supervise import Loaded

    return Loaded(build(), name)


def planted_rows(progress: Progress, folder: str = PLANTED) -> list[Row]:
    """Each planted bug of ``folder/*_mutants.py``, verified at arm's length: it must fail first with its finding."""
    import importlib.util
    from pathlib import Path

    from ..verify.supervise import verify_isolated

    rows: list[Row] = []
    for path in sorted(Path(folder).glob("*_mutants.py")):
        spec_of = importlib.util.spec_from_file_location(f"ropecheck_planted_{path.stem}", path)
        if spec_of is None or spec_of.loader is None:  # pragma: no cover - a .py file always has a loader
            continue
        module = importlib.util.module_from_spec(spec_of)
        spec_of.loader.exec_module(module)  # the fixture imports only ropecheck; builds import the runtime
        for name, (build, spec, dtypes, code, cause) in module.MUTANTS.items():
            label, need = f"planted: {name}", module.RUNTIME[name]
            if importlib.util.find_spec(need.split(".")[0]) is None:
                rows.append(Row(label, "SKIP", "SKIP", f"{need.split('.')[0]} is not installed"))
                continue
            progress(label)
            report = verify_isolated(partial(_planted, build, name), spec=spec, dtypes=dtypes, device="cpu",
                                     name=name, backward=code == "backward", timeout=120)  # fmt: skip
            want = code if cause is None else f"{code}/{cause}"
            first = report.findings[0].label if report.findings else "none"
            where = f"{path.name}: {', '.join(dtypes)}; first finding {first}"
            rows.append(Row(label, "FAIL" if first == want else "PASS" if report.conforms else "FAIL (other)",
                            "FAIL", f"{where} (the planted bug's: {want})"))  # fmt: skip
    return rows


# -------------------------------------------------------------------------------- precision

#: Positions swept per policy in the report (every integer position below this).
PRECISION_POSITIONS = 1 << 17


def collect_precision(
    progress: Progress, *, policies: Iterable[str] | None = None, reproductions: bool = True
) -> Section:
    """Every built-in policy (or the ``policies`` named) swept in fp32/bf16/fp16 against the error model,
    and the reproductions."""

    spec = RopeSpec(head_dim=128)
    dtypes = ("float32", "bfloat16", "float16")
    rows, files, timings, sweeps = [], {}, {}, []
    policies = POLICIES if policies is None else policies
    for name in policies:
        progress(f"sweep {name} ({PRECISION_POSITIONS} positions × {len(dtypes)} dtypes)")
        sw = run_sweep(spec, target=name, dtypes=dtypes, max_position=PRECISION_POSITIONS, progress=False)
        timings[f"precision sweep {name}"] = sw.seconds
        sweeps.append(sw)
        files.update({f"precision/{k}": v for k, v in sweep_files(sw).items()})
        for v in sw.verdicts("output"):
            over = v["first_over"]
            where = (
                f"exceeds the {v['bound_policy']} bound from positions {over[0]}–{over[1] - 1}"
                if over
                else f"within the {v['bound_policy']} bound at every position"
            )
            lo, hi = v["worst_band"]
            evidence = f"{where}; worst {v['worst_ratio']:.3g}× the bound at positions {lo}–{hi - 1}"
            verdict = "FAIL" if over else "PASS"
            rows.append(
                Row(
                    f"{name} / {v['dtype']}",
                    verdict,
                    "PASS" if v["careful"] else "FAIL",
                    evidence,
                    link="precision/README.md",
                )
            )

    plots = [
        Plot(
            f"precision-output-{dt}",
            f"Output error vs position, {dt}",
            f"Max output error per position band for every policy in {dt} (head_dim 128, base 10000), log scale; "
            "dashed: the error model's bound for a careful implementation.",
            render_plot([dataclasses.replace(s, dtypes=(dt,)) for s in sweeps], "output").decode(),
        )
        for dt in dtypes
    ]
    pages = []
    if reproductions:
        progress("reproductions of published precision bugs")
        t0 = time.perf_counter()
        repro = collect_reproductions()
        timings["precision reproductions"] = time.perf_counter() - t0
        files.update({f"precision/{k}": v for k, v in reproduction_files(repro).items() if k != "README.md"})
        plots.append(
            Plot(
                "precision-violation",
                "Relative-position violation vs context length",
                "|q_m·k_n − q_{m+t}·k_{n+t}| for a fixed random q/k set: with bf16 angles it grows with "
                "length; fp32 stays orders of magnitude lower, within the error model's bound.",
                violation_plot(repro["violation"]).decode(),
            )
        )
        pages.append(Page("precision/README.md", "Precision", render_readme(repro)))
    section = Section(
        "precision",
        "Precision against the fp64 reference",
        f"Every built-in policy swept over positions 0…{PRECISION_POSITIONS - 1} in fp32/bf16/fp16 (head_dim 128) and "
        "compared with the error model's bound for a careful implementation: careful policies must stay within it, "
        "careless ones (angles, inv_freq, positions or cos/sin in low precision) must exceed it.",
        rows=rows,
        plots=plots,
        pages=pages,
        matrix_columns=dtypes,
    )
    section.files.update(files)
    section.timings = timings
    return section
