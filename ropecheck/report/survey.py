"""The report's survey section: every rotary embedding of the installed transformers, family x dtype.

The rows are ``<family> / <dtype>``: FAIL when a verdict of that family (any layer type, built in
float32 or cast) has a finding in that dtype. The expected verdict comes from the reviewed
``ropecheck/survey/expected.json``: a family whose known finding disappears, or that gains
another one, does not hold, exactly as ``ropecheck survey`` exits 1. The pages are the
survey's own (``survey/README.md``, one per family). diffusers' and timm's rotary classes are sections of their
own, ``survey_diffusers`` and ``survey_timm`` (pages under ``survey_diffusers/`` and ``survey_timm/``), built the
same way.

Design constraints: a section with its library not installed is one SKIP row, not an error;
the survey's worker count follows the machine's CPUs.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from ..survey.diffusers_discover import diffusers_version, discover_diffusers
from ..survey.discover import discover, transformers_version
from ..survey.expected import compare, load_expected
from ..survey.render import cells, page_path, render_pages
from ..survey.run import DEFAULT_MAX_POSITION, run_survey
from ..survey.timm_discover import discover_timm, timm_version
from ..verify.model import DEFAULT_DTYPES
from .model import Page, Row, Section

__all__ = ["collect_survey", "collect_survey_diffusers", "collect_survey_timm"]


def collect_survey(progress: Callable[[str], None]) -> Section:
    """``ropecheck survey`` with default options, as a section of the report."""
    section = Section(
        "survey",
        "Rotary embeddings of transformers",
        "Every model family of the installed transformers whose modeling code defines a rotary embedding, driven "
        "from its own config class, rotary module and apply function, verified in each dtype, built in float32 "
        "and cast with module.to(dtype). A family's reviewed finding (ropecheck/survey/expected.json) is an "
        "expected FAIL; anything else must conform.",
        matrix_columns=DEFAULT_DTYPES,
    )
    try:
        found = discover()
    except ImportError as exc:
        section.rows.append(Row("transformers", "SKIP", "SKIP", f"transformers is not installed ({exc})"))
        return section
    return _fill(section, list(found.values()), "transformers", transformers_version(), "survey", progress)


def collect_survey_diffusers(progress: Callable[[str], None]) -> Section:
    """``ropecheck survey --library diffusers`` with default options, as a section of the report (pages under
    ``survey_diffusers/``)."""
    section = Section(
        "survey_diffusers",
        "Rotary embeddings of diffusers",
        "Every rotary embedding class of the installed diffusers (and the rotary helpers of "
        "diffusers.models.embeddings), built with its model's default arguments and applied with its attention's "
        "apply function, verified against the axial spec those arguments declare, with distinct positions per "
        "axis, in each dtype, built in float32 and cast with module.to(dtype). A class's reviewed finding "
        "(ropecheck/survey/expected.json, under diffusers) is an expected FAIL; anything else must conform.",
        matrix_columns=DEFAULT_DTYPES,
    )
    try:
        found = discover_diffusers()
    except ImportError as exc:
        section.rows.append(Row("diffusers", "SKIP", "SKIP", f"diffusers is not installed ({exc})"))
        return section
    return _fill(section, list(found.values()), "diffusers", diffusers_version(), "survey_diffusers", progress)


def collect_survey_timm(progress: Callable[[str], None]) -> Section:
    """``ropecheck survey --library timm`` with default options, as a section of the report (pages under
    ``survey_timm/``)."""
    section = Section(
        "survey_timm",
        "Rotary embeddings of timm",
        "Every rotary embedding class and helper of the installed timm's layers and models, built as its vision "
        "transformers build it (in_pixels=False, on a 128 x 128 patch grid) and applied with the function its "
        "attention calls, verified against the 2-D axial spec its arguments declare (an image M-RoPE's temporal pairs "
        "on an inert axis, DINOv3's patch centres as an affine map of the cell index), with distinct positions per "
        "axis, in each dtype, built in float32 and cast with module.to(dtype). timm's rotary module is loaded from "
        "its files without timm's package __init__ (which imports torchvision). A class's reviewed finding "
        "(ropecheck/survey/expected.json, under timm) is an expected FAIL; anything else must conform.",
        matrix_columns=DEFAULT_DTYPES,
    )
    try:
        found = discover_timm()
    except ImportError as exc:
        section.rows.append(Row("timm", "SKIP", "SKIP", f"timm is not installed ({exc})"))
        return section
    return _fill(section, list(found.values()), "timm", timm_version(), "survey_timm", progress)


def _fill(
    section: Section, families: list[Any], library: str, version: str, folder: str, progress: Callable[[str], None]
) -> Section:
    """The survey of ``families`` as the section's rows (``<family> / <dtype>``) and pages (under ``folder/``)."""
    expected = load_expected(version, library=library)
    t0 = time.perf_counter()
    results = run_survey(
        families,
        dtypes=DEFAULT_DTYPES,
        max_position=DEFAULT_MAX_POSITION,
        jobs=os.cpu_count() or 1,
        done=lambda r: progress(f"{r.name}: {r.status}"),
    )
    section.timings["survey (every family)" if library == "transformers" else f"survey of {library}"] = (
        time.perf_counter() - t0
    )
    actual = {r.name: cells(r, DEFAULT_DTYPES) for r in results if r.status == "driven" or r.structural}
    mismatches = compare(actual, expected, dtypes=DEFAULT_DTYPES)
    off = {(m.family, m.cell.rsplit("/", 1)[-1]) for m in mismatches}
    for r in results:
        if r.status != "driven" and r.name not in actual:
            verdict = "SKIP" if r.status == "skip" else "FAIL"
            section.rows.append(Row(r.name, verdict, "SKIP", r.reason, link=f"{folder}/{page_path(r)}"))
            continue
        for dt in DEFAULT_DTYPES:
            found_here = {k: v for k, v in actual[r.name].items() if k.endswith(f"/{dt}") and v}
            known = {k: expected.labels(r.name, k) for k in actual[r.name] if k.endswith(f"/{dt}")}
            known = {k: v for k, v in known.items() if v}
            verdict = "FAIL" if found_here else "PASS"
            want = "FAIL" if known else "PASS"
            if (r.name, dt) in off:  # the findings changed: the row cannot hold
                listed = "; ".join(f"{k}: {', '.join(v)}" for k, v in known.items()) or "none known"
                want = f"{want} ({listed})"
            evidence = (
                "conforms" if not found_here else "; ".join(f"{k}: {', '.join(v)}" for k, v in found_here.items())
            )
            if r.status != "driven":  # only its structural checks ran
                evidence = f"not driven ({r.reason}); structural checks: {evidence}"
            section.rows.append(Row(f"{r.name} / {dt}", verdict, want, evidence, link=f"{folder}/{page_path(r)}"))
    flag = "" if library == "transformers" else f" --library {library}"
    pages = render_pages(
        results,
        dtypes=DEFAULT_DTYPES,
        mismatches=mismatches,
        expected=expected,
        transformers=version,
        invocation=f"`ropecheck survey{flag}` with default options",
        options={"max_position": DEFAULT_MAX_POSITION},
        library=library,
    )
    for path, text in pages.items():
        if path.endswith(".md"):
            title = f"Survey of {library}" if path == "README.md" else f"survey {path.rsplit('/', 1)[-1][:-3]}"
            section.pages.append(Page(f"{folder}/{path}", title, text))
        else:
            section.files[f"{folder}/{path}"] = text
    return section
