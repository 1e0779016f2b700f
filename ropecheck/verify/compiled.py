"""Compiled targets: a target wrapped in ``torch.compile``, and where its verdict differs from the eager one.

``verify(..., compile=True)`` (``ropecheck verify --compile``, the plugin's ``--ropecheck-compile``)
verifies the target twice -- as written, then through ``torch.compile`` -- and reports the
compiled verdict, each of its findings marked when the eager target passes that check (a
cache captured as a graph constant, a graph specialised to the first call's length, ...).
Every check runs on the compiled callable, the calls of many lengths and offsets included, so
guards fail and the graph is recompiled, and after the first recompilation dynamo marks the
shapes dynamic. The recompile limit is raised for the run: past dynamo's default (8) a frame
silently falls back to eager, which would judge the eager code.

Backend: ``inductor`` when a C++ compiler is on PATH (inductor's CPU code is C++), else
``aot_eager`` (the same dynamo graph capture and AOT autograd, run by eager kernels) -- said in
the report's notes, so a verdict never claims more than ran.

Design constraints: torch imported on use; the wrapper keeps the target's calling convention
(read from the original callable, not from the compiled wrapper).
"""

from __future__ import annotations

import dataclasses
import os
import shutil

from .model import VerifyReport

__all__ = ["choose_backend", "mark_compiled_only"]


def choose_backend(requested: str | None = None) -> tuple[str, str]:
    """(backend, why): ``requested`` when given, else inductor with a C++ compiler on PATH, else aot_eager."""
    if requested:
        return requested, f"backend {requested!r} as asked"
    compilers = [os.environ.get("CXX", ""), "g++", "c++", "clang++"]
    found = next((c for c in compilers if c and shutil.which(c)), None)
    if found:
        return "inductor", f"inductor (C++ compiler {shutil.which(found)})"
    return "aot_eager", "aot_eager: no C++ compiler on PATH, which inductor needs on CPU (install g++ to use inductor)"


def mark_compiled_only(compiled: VerifyReport, eager: VerifyReport, backend_note: str) -> None:
    """Mark each compiled finding whose check passes eagerly; note the eager verdict and every difference."""
    eager_failed = {(c.name, c.dtype) for c in eager.checks if c.status == "fail"}
    eager_passed = {(c.name, c.dtype) for c in eager.checks if c.status == "pass"} - eager_failed
    compiled_failed = {(c.name, c.dtype) for c in compiled.checks if c.status == "fail"}
    compiled_passed = {(c.name, c.dtype) for c in compiled.checks if c.status == "pass"} - compiled_failed
    only_compiled = sorted(f"{n} ({dt})" for n, dt in compiled_failed - eager_failed)
    only_eager = sorted(f"{n} ({dt})" for n, dt in eager_failed & compiled_passed)
    findings = []
    for f in compiled.findings:
        if eager.conforms or (f.check, f.dtype) in eager_passed:
            f = dataclasses.replace(
                f,
                message=f"{f.message} [compiled only: the eager target passes this check]",
                hint=f"{f.hint}; under torch.compile, look for tensors captured as graph constants and values "
                "specialised to the first call (shapes, caches)".lstrip("; "),
            )
        findings.append(f)
    compiled.findings = findings
    compiled.notes.append(f"compiled with torch.compile, {backend_note}; every check ran on the compiled target")
    verdict = "CONFORMS" if eager.conforms else "DOES NOT CONFORM"
    if only_compiled or only_eager or eager.conforms != compiled.conforms:
        diff = "; ".join(
            part
            for part in (
                f"fail only compiled: {', '.join(only_compiled)}" if only_compiled else "",
                f"fail only eager: {', '.join(only_eager)}" if only_eager else "",
            )
            if part
        )
        compiled.notes.append(f"the eager and compiled verdicts differ (eager: {verdict}){': ' + diff if diff else ''}")
    else:
        compiled.notes.append(f"the eager target gives the same verdict ({verdict})")
    compiled.compile = {
        "backend_note": backend_note,
        "eager_conforms": eager.conforms,
        "fail_only_compiled": only_compiled,
        "fail_only_eager": only_eager,
    }
