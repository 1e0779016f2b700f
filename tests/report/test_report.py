"""``ropecheck report``: deterministic output, atomic writes, and a page that renders offline."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ropecheck.cli.main import main
from ropecheck.io import VOLATILE_BEGIN, VOLATILE_END, strip_volatile
from ropecheck.report import Report, Row, Section, render_html, render_readme

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "reports"
CHEAP = "reference,schedules"
# the proof and property sections run in seconds too; verify and precision are checked by
# running the whole report twice (see the README) and by the collector tests below
MEDIUM = "proofs,properties"


def _run(out: Path, only: str = CHEAP) -> int:
    return main(["report", "--out", str(out), "--only", only])


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One run of the cheap and medium sections, read by every test below that compares a run's pages
    (each section takes seconds: run once, not once per test)."""
    out = tmp_path_factory.mktemp("fresh-report")
    assert _run(out, f"{CHEAP},{MEDIUM}") == 0
    return out


#: the tests that read ``fresh`` run on one worker under xdist (``--dist loadgroup``): one run of the sections, not two
FRESH_GROUP = pytest.mark.xdist_group("report-fresh")


@pytest.mark.slow
@FRESH_GROUP
def test_report_is_deterministic_outside_the_header(fresh: Path, tmp_path: Path) -> None:
    a, b = fresh, tmp_path / "b"
    assert _run(b, f"{CHEAP},{MEDIUM}") == 0
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert {Path("README.md"), Path("index.html"), Path("report.json")} <= set(files)
    for rel in files:
        ta, tb = (a / rel).read_text(), (b / rel).read_text()
        if rel.suffix == ".json":
            da, db = json.loads(ta), json.loads(tb)
            da.pop("header", None), db.pop("header", None)  # the manifest has none
            assert da == db, rel
        else:
            assert strip_volatile(ta) == strip_volatile(tb), rel
    readme = (a / "README.md").read_text()
    assert readme.count(VOLATILE_BEGIN) == 1 and readme.count(VOLATILE_END) == 1


@pytest.mark.slow
@FRESH_GROUP
def test_committed_pages_are_what_the_code_writes(fresh: Path) -> None:
    """The cheap and medium sections' pages and plots in reports/ match a fresh run byte for byte."""
    written = sorted(p.relative_to(fresh) for p in fresh.rglob("*") if p.is_file() and not p.name.startswith("."))
    pages = [rel for rel in written if rel.name not in ("README.md", "index.html", "report.json")]
    assert {Path("reference.md"), Path("proofs/index.md"), Path("properties.md"), Path("plots/decay.svg")} <= set(pages)
    for rel in pages:  # a page may carry its own volatile block (the proof index's times)
        fresh_page, committed = strip_volatile((fresh / rel).read_text()), strip_volatile((COMMITTED / rel).read_text())
        assert committed == fresh_page, f"reports/{rel} is stale: run `ropecheck report`"


@pytest.mark.slow
@FRESH_GROUP
def test_prove_and_report_write_the_same_proof_pages(fresh: Path, tmp_path: Path) -> None:
    """`ropecheck prove --all --d 64` and `ropecheck report` leave reports/proofs/ alike (outside the times)."""
    assert main(["prove", "--all", "--d", "64", "--out", str(tmp_path / "proofs")]) == 0
    pages = sorted(p.name for p in (tmp_path / "proofs").iterdir() if not p.name.startswith("."))
    assert pages == sorted(p.name for p in (fresh / "proofs").iterdir() if not p.name.startswith("."))
    for name in pages:
        a, b = (tmp_path / "proofs" / name).read_text(), (fresh / "proofs" / name).read_text()
        assert strip_volatile(a) == strip_volatile(b), name


def test_committed_report_holds_every_section() -> None:
    """reports/report.json is a full run: every section present and every expected verdict held."""
    data = json.loads((COMMITTED / "report.json").read_text())
    assert [s["key"] for s in data["sections"]] == [
        "reference",
        "schedules",
        "proofs",
        "certificates",
        "properties",
        "verify",
        "axes",
        "precision",
        "survey",
        "survey_diffusers",
        "survey_timm",
    ]
    assert data["all_expected_verdicts_held"] is True
    for s in data["sections"]:
        assert s["rows"] and all(r["held"] for r in s["rows"]), s["key"]
        for f in s["files"] + [p["path"] for p in s["pages"]]:
            assert (COMMITTED / f).is_file(), f


def test_matrix_view_shows_unexpected_cells() -> None:
    from ropecheck.report.render import matrix

    s = Section(
        "verify",
        "V",
        "intro",
        rows=[
            Row("lib / float32", "PASS", "PASS", "ok", link="verify/lib.md"),
            Row("lib / bfloat16", "PASS", "FAIL", "gone"),
            Row("other", "SKIP", "SKIP", "not installed"),
        ],
        matrix_columns=("float32", "bfloat16"),
    )
    labels, grid = matrix(s)
    assert labels == ["lib", "other"] and grid["other"]["bfloat16"].verdict == "SKIP"
    md = render_readme(Report({"generated": "now"}, [s]))
    assert "| [lib](verify/lib.md) | ✅ PASS | **✅ PASS (expected FAIL)** |" in md
    assert 'class="PASS unexpected"' in render_html(Report({"generated": "now"}, [s]))


@pytest.mark.slow
def test_precision_section_catches_a_careless_policy_called_careful(monkeypatch: pytest.MonkeyPatch) -> None:
    """Broken input: bf16-inv-freq declared careful must break the section (its error exceeds its bound)."""
    import dataclasses

    from ropecheck.precision import policies
    from ropecheck.report import engines

    monkeypatch.setattr(engines, "PRECISION_POSITIONS", 4096)
    pols = {n: p for n, p in policies.POLICIES.items() if n in ("fp32-angles", "bf16-inv-freq")}
    honest = engines.collect_precision(lambda m: None, policies=pols, reproductions=False)
    assert honest.held, [r for r in honest.rows if not r.held]
    pols["bf16-inv-freq"] = dataclasses.replace(pols["bf16-inv-freq"], careful=True)
    monkeypatch.setattr(policies, "POLICIES", {**policies.POLICIES, "bf16-inv-freq": pols["bf16-inv-freq"]})
    lying = engines.collect_precision(lambda m: None, policies=pols, reproductions=False)
    bad = [r.name for r in lying.rows if not r.held]
    assert bad and all(n.startswith("bf16-inv-freq") for n in bad)


def test_verify_section_flags_a_known_finding_that_is_gone_or_joined(monkeypatch: pytest.MonkeyPatch) -> None:
    """The expected low-precision findings are data: a library that changes either way breaks the row."""
    from ropecheck.report import engines

    assert engines.verify_expectation("lib", "bfloat16", [], known={}) == ("PASS", "PASS", "conforms")
    known = {("lib", "bfloat16"): ("precision", "state")}
    assert engines.verify_expectation("lib", "bfloat16", ["precision", "state"], known=known)[:2] == ("FAIL", "FAIL")
    v, e, ev = engines.verify_expectation("lib", "bfloat16", [], known=known)
    assert v != e and "gone" in ev
    v, e, _ = engines.verify_expectation("lib", "bfloat16", ["nonfinite", "precision", "state"], known=known)
    assert v != e
    v, e, _ = engines.verify_expectation("lib", "bfloat16", ["precision"], known=known)
    assert v != e
    v, e, _ = engines.verify_expectation("lib", "float32", ["layout"], known={})
    assert v != e


def test_unexpected_verdict_fails_the_report() -> None:
    good = Section("s", "S", "intro", rows=[Row("a", "PROVED", "PROVED", "ok")])
    bad = Section("t", "T", "intro", rows=[Row("b", "UNDECIDED", "PROVED", "no rewrite decided it")])
    assert Report({"generated": "now"}, [good]).held
    report = Report({"generated": "now"}, [good, bad])
    assert not report.held
    assert "SOME EXPECTED VERDICTS DID NOT HOLD" in render_readme(report)
    assert 'class="unexpected"' in render_html(report)


def test_unknown_section_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--only", "nonsense"]) == 2
    assert "unknown section" in capsys.readouterr().err


@pytest.mark.slow
def test_html_needs_no_network() -> None:
    page = (COMMITTED / "index.html").read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page), "index.html must not load anything remote"
    assert "<script" not in page and "<link" not in page


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PROBE = """<script>
document.querySelectorAll('details').forEach(function(d){d.open = true;});
var box = function(e){var r=e.getBoundingClientRect(); return r.width > 0 && r.height > 0;};
var maths = Array.from(document.querySelectorAll('math'));
var svgs = Array.from(document.querySelectorAll('figure svg'));
// MathML really laid out as math: a fraction's numerator sits above its denominator
var fracs = Array.from(document.querySelectorAll('mfrac'));
var stacked = fracs.filter(function(f){var a=f.children[0].getBoundingClientRect(),
  b=f.children[1].getBoundingClientRect(); return a.bottom <= b.top + 1;});
document.body.setAttribute('data-probe', JSON.stringify({
  math: maths.length, math_rendered: maths.filter(box).length,
  svg: svgs.length, svg_rendered: svgs.filter(box).length,
  fractions: fracs.length, fractions_stacked: stacked.length}));
</script></body>"""
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
]


def _probe(page: str, tmp_path: Path) -> tuple[dict, list[str]]:
    """Open a copy of ``page`` with a probe script added; return what rendered and console lines."""
    probe_page = tmp_path / "probe.html"
    probe_page.write_text(page.replace("</body>", PROBE, 1))
    res = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile-probe'}", "--dump-dom", probe_page.as_uri()],  # type: ignore[list-item]
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = re.search(r'data-probe="([^"]*)"', res.stdout)
    assert found, res.stderr[-2000:]
    return json.loads(found.group(1).replace("&quot;", '"')), [
        line for line in res.stderr.splitlines() if "CONSOLE" in line
    ]


def _rendered(probe: dict) -> bool:
    return (
        probe["math"] > 0
        and probe["math_rendered"] == probe["math"]
        and probe["svg"] > 0
        and probe["svg_rendered"] == probe["svg"]
        and probe["fractions"] > 0
        and probe["fractions_stacked"] == probe["fractions"]
    )


needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian package 'chromium')")


@pytest.mark.slow
@needs_chromium
def test_index_html_renders_math_and_plots_in_chromium(tmp_path: Path) -> None:
    page = (COMMITTED / "index.html").read_text()
    (tmp_path / "index.html").write_text(page)
    shot = tmp_path / "phone.png"
    res = subprocess.run(
        [
            CHROMIUM,
            *FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=412,2400",
            f"--screenshot={shot}",
            (tmp_path / "index.html").as_uri(),
        ],  # type: ignore[list-item]
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shot.exists() and shot.stat().st_size > 10_000, res.stderr[-2000:]
    assert "CONSOLE" not in res.stderr, [line for line in res.stderr.splitlines() if "CONSOLE" in line]
    probe, console = _probe(page, tmp_path)
    assert _rendered(probe), probe
    assert not console, console


@pytest.mark.slow
@needs_chromium
def test_the_render_probe_catches_math_left_as_text(tmp_path: Path) -> None:
    """Broken input: the math emitted as plain elements, a stray <mfrac> outside <math>, a console error."""
    page = (COMMITTED / "index.html").read_text()
    broken = (
        page.replace("<math", "<span")
        .replace("</math>", "</span>")
        .replace("<mfrac", "<span")
        .replace("</mfrac>", "</span>")
    )
    broken = broken.replace("<body>", "<body><mfrac><mi>a</mi><mi>b</mi></mfrac><script>console.error('x')</script>", 1)
    probe, console = _probe(broken, tmp_path)
    assert not _rendered(probe), probe
    assert probe["fractions_stacked"] < probe["fractions"]
    assert console


OVERFLOW_PROBE = """<script>
document.querySelectorAll('details').forEach(function(d){d.open = true;});
var over = [];
var boxes = Array.from(document.querySelectorAll('.proof .eq, .proof li, .proof p'));
boxes.forEach(function(box){
  var outer = box.getBoundingClientRect(), right = outer.left;
  box.querySelectorAll('math, math *').forEach(function(c){right = Math.max(right, c.getBoundingClientRect().right);});
  if (right > outer.right + 1) {
    var page = box.closest('details');
    over.push([page ? page.id : '', Math.round(right - outer.right), box.textContent.slice(0, 60)]);
  }
});
document.body.setAttribute('data-probe', JSON.stringify({boxes: boxes.length, overflow: over}));
</script></body>"""


def _overflow(page: str, width: int, tmp_path: Path) -> dict:
    """Lay ``page`` out ``width`` px wide in Chromium; every proof equation wider than its container."""
    sized = page.replace("</style>", f"html{{width:{width}px}}</style>", 1).replace("</body>", OVERFLOW_PROBE, 1)
    probe_page = tmp_path / f"overflow-{width}.html"
    probe_page.write_text(sized)
    res = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile-overflow'}", "--dump-dom", probe_page.as_uri()],  # type: ignore[list-item]
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = re.search(r'data-probe="([^"]*)"', res.stdout)
    assert found, res.stderr[-2000:]
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))


@pytest.mark.slow
@needs_chromium
@pytest.mark.parametrize("width", [390, 1280])
def test_no_proof_equation_overflows_its_container(width: int, tmp_path: Path) -> None:
    probe = _overflow((COMMITTED / "index.html").read_text(), width, tmp_path)
    assert probe["boxes"] > 200
    assert probe["overflow"] == [], probe["overflow"]


@pytest.mark.slow
@needs_chromium
def test_the_overflow_probe_catches_an_equation_set_on_one_line(tmp_path: Path) -> None:
    """Broken input: one long step typeset without line breaks, as the pages were before."""
    import sympy

    from ropecheck.symbolic.pages.mathlines import aligned_mathml

    a, b, x = sympy.symbols("a b x")
    long = sum(sympy.cos(k * a) * sympy.sin(k * b) * x**k for k in range(1, 9))
    one_line = aligned_mathml(long, "==", sympy.expand(long), width=10_000)
    page = (COMMITTED / "index.html").read_text()
    broken = page.replace('<div class="eq">', f'<div class="eq">{one_line}</div><div class="eq">', 1)
    probe = _overflow(broken, 390, tmp_path)
    assert len(probe["overflow"]) == 1 and probe["overflow"][0][1] > 100


def test_verify_all_adapters_and_report_write_the_same_verify_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ropecheck verify --all-adapters --report-dir` and the report's verify section agree page for page.

    rotary-embedding-torch is the case that tells: its float32 checks fail only as a consequence of
    a bfloat16 call, so its float32 verdict must be PASS in both (root causes only).
    """
    from ropecheck.adapters import ADAPTERS
    from ropecheck.verify import batch

    pytest.importorskip("rotary_embedding_torch", reason="rotary-embedding-torch is a test extra")
    monkeypatch.setattr(batch, "ADAPTERS", {n: ADAPTERS[n] for n in ("rotary-embedding-torch", "vllm")})
    assert main(["verify", "--all-adapters", "--device", "cpu", "--report-dir", str(tmp_path / "cli")]) == 1
    assert _run(tmp_path / "report", "verify") == 0
    cli, rep = tmp_path / "cli", tmp_path / "report" / "verify"
    cli_pages = sorted((p for p in cli.iterdir() if not p.name.startswith(".")), key=lambda p: p.name)
    assert [p.name for p in cli_pages] == sorted(p.name for p in rep.iterdir() if not p.name.startswith("."))
    for p in cli_pages:
        a, b = p.read_text(), (rep / p.name).read_text()
        if p.name == "README.md":  # the first lines say how each was invoked
            a, b = a.split("| adapter |", 1)[1], b.split("| adapter |", 1)[1]
        assert a == b, p.name
    index = (cli / "README.md").read_text()
    # float32 passes (its failed checks are consequences of the bfloat16 cache, and the cell says so)
    assert re.search(r"float32: PASS \(\d+ failed checks in float32: consequences of the root causes\); ", index)
    assert "bfloat16: FAIL precision,state; backward: PASS; float16: FAIL nonfinite; backward: PASS" in index
    page = (cli / "rotary-embedding-torch.md").read_text()  # the detail page states the same per-dtype verdicts
    assert "| float32 | PASS | - |" in page and "| float16 | FAIL | nonfinite |" in page


def test_a_rerun_section_drops_pages_it_no_longer_writes_and_keeps_other_files(tmp_path: Path) -> None:
    """A page of an adapter skipped this time goes away; benchmarks and other sections' files stay."""
    from ropecheck.cli.report import write_report
    from ropecheck.report import Page, Report, Row, Section

    out = tmp_path / "reports"
    earlier = Section(
        "verify",
        "Third-party implementations",
        "intro",
        rows=[Row("skipped-now / float32", "PASS", "PASS", "ok")],
        pages=[Page("verify/skipped-now.md", "skipped-now", "CONFORMS (from an earlier run)")],
    )
    write_report(Report(header={}, sections=[earlier]), out)
    assert (out / "verify" / "skipped-now.md").is_file()
    (out / "benchmarks").mkdir()
    (out / "benchmarks" / "verify.md").write_text("kept")
    (out / "properties.md").write_text("another section's page")
    section = Section(
        "verify",
        "Third-party implementations",
        "intro",
        rows=[Row("lib / float32", "PASS", "PASS", "ok")],
        pages=[Page("verify/lib.md", "lib", "# lib\n")],
    )
    write_report(Report(header={}, sections=[section]), out)
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert "verify/skipped-now.md" not in files
    assert {"verify/lib.md", "benchmarks/verify.md", "properties.md", "README.md", "index.html"} <= set(files)


def test_decade_bound_reads_the_same_for_nearby_values() -> None:
    """fp64 errors that differ in their last bits (7.5e-15 here, 8e-15 there) print the same."""
    from ropecheck.report.engines import decade_bound

    assert decade_bound(7.5e-15) == decade_bound(8e-15) == "≤ 1e-14"
    assert decade_bound(0.0) == "0" and decade_bound(1e-14) == "≤ 1e-14"


def test_multi_axis_section_renders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The multi-axis section: theorem 8 proved, a pair -> axis diagram, properties held, an adapter verdict."""
    pytest.importorskip("transformers", reason="transformers is a test extra")
    import ropecheck.report.axes as axes_section

    monkeypatch.setattr(axes_section, "MULTI_AXIS_ADAPTERS", ("hf-pixtral-vision",))
    section = axes_section.collect_axes(lambda message: None)
    assert section.key == "axes" and section.held, [r for r in section.rows if not r.held]
    names = [r.name for r in section.rows]
    assert names[0].startswith("Theorem 8") and section.rows[0].verdict == "PROVED"
    assert {f"{k}: h and w swapped is caught" for k in ("qwen2_vl", "qwen3_vl", "qwen2_vl_vision", "pixtral")} <= set(
        names
    )
    assert {"hf-pixtral-vision / float32", "hf-pixtral-vision / bfloat16", "hf-pixtral-vision / float16"} <= set(names)
    (plot,) = section.plots
    assert plot.svg.startswith("<svg") and plot.file == "plots/axes.svg"
    (page,) = section.pages
    assert (
        "Theorem 8" in page.markdown and "| hf-pixtral-vision | `axial-alternating h:16 w:16` | PASS |" in page.markdown
    )
    html = render_html(Report(header={}, sections=[section]))
    assert "Multi-axis RoPE" in html


def test_multi_axis_section_fails_when_a_swap_goes_unseen(monkeypatch: pytest.MonkeyPatch) -> None:
    """A property that cannot see the swapped axes makes its row FAIL: the section shows the checks bite."""
    import ropecheck.report.axes as axes_section

    monkeypatch.setattr(axes_section, "MULTI_AXIS_ADAPTERS", ())
    monkeypatch.setattr(
        axes_section, "_properties", lambda spec, fn: dict.fromkeys(("per-axis reference", "section coverage"), True)
    )
    section = axes_section.collect_axes(lambda message: None)
    assert not section.held
    assert {r.name for r in section.rows if not r.held} == {
        f"{k}: h and w swapped is caught" for k in ("qwen2_vl", "qwen3_vl", "qwen2_vl_vision", "pixtral")
    }
